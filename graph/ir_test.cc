#include "graph/ir.h"

#include <memory>

#include "gtest/gtest.h"

namespace anvil {
namespace {

Type Float(std::vector<Dim> dims) { return Type::Tensor(ElementType::kFloat, std::move(dims)); }

// x -> Relu -> a -> Neg -> b (output)
struct Chain {
  Model model;
  Value* x;
  Node* relu;
  Node* neg;
  Chain() {
    Graph& g = model.graph();
    x = g.AddInput("x", Float({Dim::Param("N")}));
    relu = g.AddNode("Relu");
    relu->AddInput(x);
    relu->AddOutput("a");
    neg = g.AddNode("Neg");
    neg->AddInput(relu->output(0));
    neg->AddOutput("b");
    g.AddOutput(neg->output(0));
  }
};

TEST(IrTest, UseListsFollowInputs) {
  Chain c;
  ASSERT_EQ(c.x->uses().size(), 1u);
  EXPECT_EQ(c.x->uses()[0], (Use{c.relu, 0}));
  EXPECT_EQ(c.relu->output(0)->producer(), c.relu);
  EXPECT_TRUE(c.neg->output(0)->IsGraphOutput());
  EXPECT_FALSE(c.relu->output(0)->IsGraphOutput());
  c.neg->SetInput(0, c.x);
  EXPECT_EQ(c.x->uses().size(), 2u);
  EXPECT_FALSE(c.relu->output(0)->HasUses());
}

TEST(IrTest, ReplaceAllUsesRewiresNodesAndOutputs) {
  Chain c;
  Value* b = c.neg->output(0);
  b->ReplaceAllUsesWith(c.relu->output(0));
  EXPECT_EQ(c.model.graph().outputs()[0], c.relu->output(0));
  EXPECT_FALSE(b->IsGraphOutput());
  EXPECT_TRUE(c.relu->output(0)->IsGraphOutput());
  c.model.graph().EraseNode(c.neg);
  EXPECT_EQ(c.model.graph().num_nodes(), 1u);
  EXPECT_EQ(c.model.graph().FindValue("b"), nullptr);
  EXPECT_FALSE(c.relu->output(0)->HasUses());
}

TEST(IrTest, InsertMoveAndTopologicalSort) {
  Chain c;
  Graph& g = c.model.graph();
  g.MoveNodeBefore(c.neg, c.relu);  // now Neg before Relu: invalid order
  EXPECT_EQ(*g.nodes().begin(), c.neg);
  ASSERT_TRUE(g.TopologicalSort());
  EXPECT_EQ(*g.nodes().begin(), c.relu);
  Node* id = g.InsertNodeBefore(c.neg, "Identity");
  id->AddInput(c.x);
  id->AddOutput("i");
  std::vector<Node*> order = g.NodesSnapshot();
  ASSERT_TRUE(g.TopologicalSort());
  EXPECT_EQ(g.NodesSnapshot(), order);  // stable when already valid
}

TEST(IrTest, TopologicalSortReportsCycle) {
  Model model;
  Graph& g = model.graph();
  Node* a = g.AddNode("Neg");
  Node* b = g.AddNode("Neg");
  a->AddOutput("a");
  b->AddOutput("b");
  a->AddInput(b->output(0));
  b->AddInput(a->output(0));
  std::string cycle;
  EXPECT_FALSE(g.TopologicalSort(&cycle));
  EXPECT_NE(cycle.find("Neg"), std::string::npos);
}

TEST(IrTest, TopologicalSortNamesANodeOnTheCycleNotDownstream) {
  Model model;
  Graph& g = model.graph();
  Value* x = g.AddInput("x", Float({}));
  Node* relu = g.AddNode("Relu");  // y = Relu(b): downstream of the cycle
  relu->set_name("downstream");
  Node* add = g.AddNode("Add");  // a = Add(x, b)
  add->set_name("add");
  Node* neg = g.AddNode("Neg");  // b = Neg(a)
  neg->set_name("neg");
  Value* a = add->AddOutput("a");
  Value* b = neg->AddOutput("b");
  relu->AddInput(b);
  relu->AddOutput("y");
  add->AddInput(x);
  add->AddInput(b);
  neg->AddInput(a);
  std::string cycle;
  EXPECT_FALSE(g.TopologicalSort(&cycle));
  EXPECT_TRUE(cycle == "node 'add' (Add)" || cycle == "node 'neg' (Neg)") << cycle;
}

TEST(IrTest, SubgraphCaptureCountsForSortAndIsReleasedOnErase) {
  Model model;
  Graph& g = model.graph();
  Value* cond = g.AddInput("cond", Type::Tensor(ElementType::kBool, {}));
  Node* iff = g.AddNode("If");
  iff->AddInput(cond);
  iff->AddOutput("r");
  Node* producer = g.AddNode("Relu");  // defined after the If that captures it
  producer->AddInput(cond);
  Value* captured = producer->AddOutput("p");
  auto body = std::make_unique<Graph>(&model, &g);
  Node* inner = body->AddNode("Identity");
  inner->AddInput(captured);
  body->AddOutput(inner->AddOutput("o"));
  Attribute then_branch("then_branch", AttributeType::kGraph);
  then_branch.graphs.push_back(std::move(body));
  iff->SetAttribute(std::move(then_branch));
  EXPECT_EQ(iff->Subgraphs()[0]->owner_node(), iff);
  EXPECT_EQ(captured->uses().size(), 1u);
  ASSERT_TRUE(g.TopologicalSort());
  EXPECT_EQ(*g.nodes().begin(), producer);
  g.EraseNode(iff);
  EXPECT_FALSE(captured->HasUses());
}

TEST(IrTest, UniqueNameAvoidsAllGraphs) {
  Chain c;
  EXPECT_EQ(c.model.graph().UniqueName("fresh"), "fresh");
  EXPECT_EQ(c.model.graph().UniqueName("a"), "a_1");
}

TEST(IrTest, CloneCopiesEverythingAndKeepsNames) {
  Chain c;
  c.model.producer_name = "p";
  c.model.opset_imports.push_back({"", 17});
  Value* w = c.model.graph().AddInitializer(
      "w", DenseElements::FromVector<float>(ElementType::kFloat, {2}, {1.f, 2.f}));
  c.neg->AddInput(w);
  c.relu->SetAttribute(Attribute::Ints("perm", {1, 0}));
  std::unique_ptr<Model> copy = c.model.Clone();
  const Graph& g = copy->graph();
  EXPECT_EQ(copy->producer_name, "p");
  EXPECT_EQ(copy->OpsetVersion("ai.onnx"), 17);
  ASSERT_EQ(g.num_nodes(), 2u);
  Node* neg = g.NodesSnapshot()[1];
  EXPECT_EQ(neg->input(0)->name(), "a");
  EXPECT_EQ(neg->input(1)->name(), "w");
  EXPECT_NE(neg->input(1), w);
  EXPECT_TRUE(neg->input(1)->constant()->Equals(*w->constant()));
  EXPECT_EQ(g.outputs()[0]->name(), "b");
  EXPECT_EQ(g.NodesSnapshot()[0]->GetInts("perm"), (std::vector<int64_t>{1, 0}));
}

TEST(IrTest, CloneNodeInSameGraphRenamesOutputs) {
  Chain c;
  absl::flat_hash_map<const Value*, Value*> map;
  Node* copy = c.model.graph().CloneNode(*c.relu, &map);
  EXPECT_EQ(copy->input(0), c.x);
  EXPECT_EQ(copy->output(0)->name(), "a_1");
  EXPECT_EQ(map[c.relu->output(0)], copy->output(0));
}

TEST(IrTest, AttributeEqualityIsTypedAndBitwise) {
  EXPECT_TRUE(Attribute::Int("axis", 1).Equals(Attribute::Int("axis", 1)));
  EXPECT_FALSE(Attribute::Int("axis", 1).Equals(Attribute::Int("axis", 2)));
  EXPECT_FALSE(Attribute::Int("axis", 1).Equals(Attribute::Ints("axis", {1})));
  EXPECT_FALSE(Attribute::Float("a", 0.0f).Equals(Attribute::Float("a", -0.0f)));
}

TEST(ElementsTest, DenseReadsAndEquality) {
  auto e = DenseElements::FromVector<int32_t>(ElementType::kInt32, {2, 2}, {1, -2, 3, 4});
  EXPECT_EQ(e->NumElements(), 4);
  EXPECT_EQ(e->ByteSize(), 16u);
  EXPECT_EQ(e->GetInt64(1), -2);
  EXPECT_DOUBLE_EQ(e->GetDouble(2), 3.0);
  auto same = DenseElements::FromVector<int32_t>(ElementType::kInt32, {2, 2}, {1, -2, 3, 4});
  auto other_dims = DenseElements::FromVector<int32_t>(ElementType::kInt32, {4}, {1, -2, 3, 4});
  EXPECT_TRUE(e->Equals(*same));
  EXPECT_FALSE(e->Equals(*other_dims));
  auto half = DenseElements::FromVector<uint16_t>(ElementType::kFloat16, {1}, {0x3c00});
  EXPECT_DOUBLE_EQ(half->GetDouble(0), 1.0);
}

TEST(TypeTest, PrintsTextualSyntax) {
  EXPECT_EQ(Float({Dim::Param("N"), Dim::Literal(3), Dim::Unknown()}).ToString(), "float[N,3,?]");
  EXPECT_EQ(Type::Tensor(ElementType::kInt64).ToString(), "int64[]");
  EXPECT_EQ(Type::Tensor(ElementType::kInt64, {}).ToString(), "int64");
  EXPECT_TRUE(Float({Dim::Literal(2)}).IsStatic());
  EXPECT_FALSE(Float({Dim::Param("N")}).IsStatic());
}

}  // namespace
}  // namespace anvil
