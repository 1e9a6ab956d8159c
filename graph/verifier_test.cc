#include "graph/verifier.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "graph/limits.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

using ::testing::HasSubstr;

Type Float() { return Type::Tensor(ElementType::kFloat, {Dim::Literal(2)}); }

class VerifierTest : public ::testing::Test {
 protected:
  VerifierTest() {
    model_.opset_imports.push_back({"", 17});
    Graph& g = model_.graph();
    g.set_name("main");
    x_ = g.AddInput("x", Float());
    relu_ = g.AddNode("Relu");
    relu_->set_name("r");
    relu_->AddInput(x_);
    relu_->AddOutput("a");
    neg_ = g.AddNode("Neg");
    neg_->AddInput(relu_->output(0));
    neg_->AddOutput("b");
    g.AddOutput(neg_->output(0));
  }
  Model model_;
  Value* x_;
  Node* relu_;
  Node* neg_;
};

TEST_F(VerifierTest, AcceptsValidGraph) { EXPECT_TRUE(VerifyModel(model_).ok()); }

TEST_F(VerifierTest, RejectsUseBeforeDefinition) {
  model_.graph().MoveNodeBefore(neg_, relu_);
  absl::Status s = VerifyModel(model_);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("graph 'main': node #0 (Neg, output 'b')"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("input 0 'a' is used before it is defined"));
}

TEST_F(VerifierTest, RejectsUnimportedDomain) {
  Node* custom = model_.graph().AddNode("Gelu", "com.example");
  custom->AddInput(x_);
  custom->AddOutput("g");
  absl::Status s = VerifyModel(model_);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("op domain 'com.example' is not in the model's opset imports ('')"));
  model_.opset_imports.push_back({"com.example", 1});
  EXPECT_TRUE(VerifyModel(model_).ok());
}

TEST_F(VerifierTest, RejectsDuplicateDefinition) {
  Node* dup = model_.graph().AddNode("Neg");
  dup->AddInput(x_);
  dup->AddOutput("a");  // same name as Relu's output
  absl::Status s = VerifyModel(model_);
  EXPECT_THAT(std::string(s.message()), HasSubstr("value 'a' is defined twice"));
}

TEST_F(VerifierTest, RejectsInitializerTypeMismatch) {
  Value* w = model_.graph().AddInitializer(
      "w", DenseElements::FromVector<float>(ElementType::kFloat, {3}, {1, 2, 3}));
  w->set_type(Float());  // declares [2], holds [3]
  absl::Status s = VerifyModel(model_);
  EXPECT_THAT(std::string(s.message()), HasSubstr("initializer 'w' is declared float[2]"));
}

TEST_F(VerifierTest, RejectsSubgraphUsingValueDefinedAfterOwner) {
  Graph& g = model_.graph();
  Node* iff = g.InsertNodeBefore(relu_, "If");
  iff->AddInput(g.AddInput("c", Type::Tensor(ElementType::kBool, {})));
  iff->AddOutput("r_out");
  auto body = std::make_unique<Graph>(&model_, &g);
  body->set_name("then");
  Node* inner = body->AddNode("Identity");
  inner->AddInput(relu_->output(0));  // 'a' is defined after the If
  body->AddOutput(inner->AddOutput("o"));
  Attribute attr("then_branch", AttributeType::kGraph);
  attr.graphs.push_back(std::move(body));
  iff->SetAttribute(std::move(attr));
  auto else_body = std::make_unique<Graph>(&model_, &g);
  else_body->set_name("else");
  Node* else_inner = else_body->AddNode("Identity");
  else_inner->AddInput(x_);
  else_body->AddOutput(else_inner->AddOutput("e"));
  Attribute else_attr("else_branch", AttributeType::kGraph);
  else_attr.graphs.push_back(std::move(else_body));
  iff->SetAttribute(std::move(else_attr));
  absl::Status s = VerifyModel(model_);
  EXPECT_THAT(std::string(s.message()), HasSubstr("graph 'then'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("input 0 'a' is used before it is defined"));
  // Moving the If after the producer makes the capture legal.
  g.MoveNodeBefore(iff, nullptr);
  EXPECT_TRUE(VerifyModel(model_).ok()) << VerifyModel(model_);
}

TEST_F(VerifierTest, AcceptsRewiredGraphAfterReorder) {
  Graph& g = model_.graph();
  g.SetOutput(0, relu_->output(0));
  neg_->SetInput(0, x_);
  g.MoveNodeBefore(relu_, nullptr);
  EXPECT_TRUE(VerifyModel(model_).ok());
}

// A model built in memory with Ifs nested `depth` levels (each then_branch holds the next If; every
// else_branch returns x): the entry import cannot check.
void NestIfs(Model& model, int depth) {
  model.opset_imports.push_back({"", 17});
  Graph* g = &model.graph();
  g->set_name("main");
  Value* c = g->AddInput("c", Type::Tensor(ElementType::kBool, {}));
  Value* x = g->AddInput("x", Float());
  for (int level = 0; level < depth; ++level) {
    Node* node = g->AddNode("If");
    node->AddInput(c);
    Value* y = node->AddOutput("y" + std::to_string(level));
    g->AddOutput(y);
    for (const char* name : {"then_branch", "else_branch"}) {
      auto sub = std::make_unique<Graph>(&model, g);
      sub->set_name(std::string(name) + std::to_string(level + 1));
      sub->set_owner_node(node);
      Attribute a(name, AttributeType::kGraph);
      a.graphs.push_back(std::move(sub));
      node->SetAttribute(std::move(a));
    }
    Graph* other = node->FindAttribute("else_branch")->graphs[0].get();
    other->AddOutput(x);
    g = node->FindAttribute("then_branch")->graphs[0].get();
  }
  g->AddOutput(x);
}

TEST(VerifierDepthTest, SubgraphsNestAtMostTheLimit) {
  Model ok;
  NestIfs(ok, kMaxSubgraphDepth);
  EXPECT_TRUE(VerifyModel(ok).ok()) << VerifyModel(ok);
  EXPECT_TRUE(CheckSubgraphDepth(ok.graph()).ok());

  Model deep;
  NestIfs(deep, kMaxSubgraphDepth + 1);
  absl::Status s = VerifyModel(deep);
  EXPECT_EQ(s.message(),
            "graph 'then_branch100': node #0 (If, output 'y100'): subgraphs nested deeper than 100 "
            "levels");
  EXPECT_EQ(CheckSubgraphDepth(deep.graph()).message(), s.message());

  // Far deeper: refused by walks that stop at the limit.
  Model deeper;
  NestIfs(deeper, 2000);
  EXPECT_THAT(std::string(VerifyModel(deeper).message()),
              HasSubstr("subgraphs nested deeper than 100 levels"));
  EXPECT_THAT(std::string(CheckSubgraphDepth(deeper.graph()).message()),
              HasSubstr("subgraphs nested deeper than 100 levels"));
}

}  // namespace
}  // namespace anvil
