#include "graph/passes/dce.h"

#include <memory>
#include <string>

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

constexpr char kDeadCode[] = R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}, float[2] v = {3.0, 4.0}> {
  a = Add(x, w)
  b = Neg(a)
  c = Mul(b, w)
  y = Add(x, v)
}
)";

TEST(DceTest, IsRegistered) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass("dce");
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->name(), "dce");
}

TEST(DceTest, StatisticsAndChangedFlag) {
  std::unique_ptr<Model> model = Parse(kDeadCode);
  DcePass dce;
  PassContext ctx;
  absl::StatusOr<bool> changed = dce.Run(*model, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ctx.GetStatistic("nodes-erased"), 3);
  EXPECT_EQ(ctx.GetStatistic("initializers-erased"), 1);
  EXPECT_EQ(model->graph().num_nodes(), 1u);
  ASSERT_EQ(model->graph().initializers().size(), 1u);
  EXPECT_EQ(model->graph().initializers()[0]->name(), "v");
  EXPECT_TRUE(VerifyModel(*model).ok());
}

TEST(DceTest, SecondRunChangesNothing) {
  std::unique_ptr<Model> model = Parse(kDeadCode);
  DcePass dce;
  PassContext first;
  ASSERT_TRUE(dce.Run(*model, first).ok());
  const std::string after_first = PrintModel(*model);
  PassContext second;
  absl::StatusOr<bool> changed = dce.Run(*model, second);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(second.GetStatistic("nodes-erased"), 0);
  EXPECT_EQ(PrintModel(*model), after_first);
}

// Nodes without any output cannot be written in ONNX text; build them directly.
TEST(DceTest, OutputlessNodes) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
main (float[2] x) => (float[2] y) {
  a = Neg(x)
  y = Relu(x)
}
)");
  Graph& graph = model->graph();
  Value* a = graph.FindValue("a");
  ASSERT_NE(a, nullptr);
  // A custom op with no outputs exists for its side effect: kept, and so is its
  // input.
  Node* print = graph.AddNode("Print", "com.example");
  print->AddInput(a);
  // A standard op whose only output slot is omitted computes nothing anyone
  // sees.
  Node* relu = graph.AddNode("Relu");
  relu->AddInput(a);
  relu->AddOutput("");

  DcePass dce;
  PassContext ctx;
  ASSERT_TRUE(dce.Run(*model, ctx).ok());
  EXPECT_EQ(ctx.GetStatistic("nodes-erased"), 1);
  ASSERT_EQ(graph.num_nodes(), 3u);
  EXPECT_EQ(graph.NodesSnapshot().back(), print);
  EXPECT_TRUE(a->HasUses());
}

TEST(DceTest, KeepCustomDomainsOption) {
  const char* text = R"(
<ir_version: 8, opset_import: ["" : 17, "com.example" : 1]>
main (float[2] x) => (float[2] y) {
  f = com.example.Fancy(x)
  y = Relu(x)
}
)";
  {
    std::unique_ptr<Model> model = Parse(text);
    DcePass dce;
    PassContext ctx;
    ASSERT_TRUE(dce.Run(*model, ctx).ok());
    EXPECT_EQ(model->graph().num_nodes(), 1u);
  }
  std::unique_ptr<Model> model = Parse(text);
  DcePass dce;
  ASSERT_TRUE(dce.SetOption("keep-custom-domains", "true").ok());
  EXPECT_EQ(dce.OptionsToString(), "keep-custom-domains=true");
  PassContext ctx;
  absl::StatusOr<bool> changed = dce.Run(*model, ctx);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(model->graph().num_nodes(), 2u);
}

TEST(DceTest, SubgraphInitializers) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (bool c, float[2] x) => (float[2] y) {
  y = If(c) <
    then_branch = then_g () => (float[2] t) <float[2] k = {1.0, 2.0}, float[2] j = {3.0, 4.0}> {
      t = Add(x, k)
    },
    else_branch = else_g () => (float[2] e) { e = Identity(x) }
  >
}
)");
  DcePass dce;
  PassContext ctx;
  ASSERT_TRUE(dce.Run(*model, ctx).ok());
  EXPECT_EQ(ctx.GetStatistic("initializers-erased"), 1);
  Graph* then_branch = model->graph().NodesSnapshot()[0]->Subgraphs()[0];
  ASSERT_EQ(then_branch->initializers().size(), 1u);
  EXPECT_EQ(then_branch->initializers()[0]->name(), "k");
  EXPECT_TRUE(VerifyModel(*model).ok());
}

}  // namespace
}  // namespace anvil
