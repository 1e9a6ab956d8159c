#include "graph/passes/topo_sort.h"

#include <memory>
#include <string>
#include <vector>

#include "graph/ir.h"
#include "graph/pass.h"
#include "graph/pass_registry.h"
#include "graph/text_format.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::unique_ptr<Model> Parse(const char* text) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

// Import sorts graphs (onnx_import.h), so the pass's input is made by reversing the node order of
// a parsed model in memory, as a pass could leave it.
void Reverse(Graph& graph) {
  for (Node* node : graph.NodesSnapshot()) graph.MoveNodeBefore(node, *graph.nodes().begin());
}

std::vector<std::string> OpTypes(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node* n : graph.nodes()) ops.push_back(n->op_type());
  return ops;
}

TEST(TopoSortTest, IsRegistered) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass("topo-sort");
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->Establishes(), std::vector<std::string>{"topologically-sorted"});
}

TEST(TopoSortTest, SortedGraphIsUnchanged) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) {
  b = Neg(x)
  a = Relu(x)
  y = Add(a, b)
}
)");
  TopoSortPass pass;
  PassContext ctx;
  absl::StatusOr<bool> changed = pass.Run(*model, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(ctx.GetStatistic("graphs-reordered"), 0);
  EXPECT_EQ(OpTypes(model->graph()), (std::vector<std::string>{"Neg", "Relu", "Add"}));
}

TEST(TopoSortTest, SortsMainGraphAndSubgraphs) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (bool c, float[2] x) => (float[2] y) {
  a = Relu(x)
  y = If(c) <
    then_branch = then_g () => (float[2] t) { u = Abs(a)  t = Neg(u) },
    else_branch = else_g () => (float[2] e) { e = Identity(x) }
  >
}
)");
  Reverse(model->graph());
  Reverse(*model->graph().NodesSnapshot()[0]->Subgraphs()[0]);
  EXPECT_EQ(OpTypes(model->graph()), (std::vector<std::string>{"If", "Relu"}));
  EXPECT_FALSE(VerifyModel(*model).ok());
  TopoSortPass pass;
  PassContext ctx;
  absl::StatusOr<bool> changed = pass.Run(*model, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ctx.GetStatistic("graphs-reordered"), 2);
  EXPECT_EQ(OpTypes(model->graph()), (std::vector<std::string>{"Relu", "If"}));
  Graph* then_branch = model->graph().NodesSnapshot()[1]->Subgraphs()[0];
  EXPECT_EQ(OpTypes(*then_branch), (std::vector<std::string>{"Abs", "Neg"}));
  EXPECT_TRUE(VerifyModel(*model).ok());
}

TEST(TopoSortTest, CycleIsFailedPreconditionAndKeepsOrder) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) {
  a = Add(x, x)
  b = Neg(a)
  y = Relu(b)
}
)");
  // Import refuses cycles: make one in memory (a reads b), with y first.
  std::vector<Node*> nodes = model->graph().NodesSnapshot();
  nodes[0]->SetInput(1, nodes[1]->output(0));
  model->graph().MoveNodeBefore(nodes[2], nodes[0]);
  TopoSortPass pass;
  PassContext ctx;
  absl::StatusOr<bool> changed = pass.Run(*model, ctx);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kFailedPrecondition);
  // Graph::TopologicalSort names the first node it could not schedule (here
  // Relu, which is only downstream of the cycle); assert just the shape of the
  // message.
  EXPECT_EQ(changed.status().message().substr(0, 37), "graph 'main' has a cycle through node");
  EXPECT_EQ(OpTypes(model->graph()), (std::vector<std::string>{"Relu", "Add", "Neg"}));
}

}  // namespace
}  // namespace anvil
