#include "base/status_macros.h"
#include "graph/passes/cse.h"

#include <memory>
#include <string>
#include <vector>

#include "graph/elements.h"
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

absl::StatusOr<bool> RunCse(Model& model, PassContext& ctx, const char* option = nullptr,
                            const char* value = nullptr) {
  CsePass cse;
  if (option != nullptr) {
    ANVIL_RETURN_IF_ERROR(cse.SetOption(option, value));
  }
  return cse.Run(model, ctx);
}

TEST(CseTest, IsRegistered) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass("cse");
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->name(), "cse");
}

TEST(CseTest, Statistics) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y1, float[2] y2) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
  a = Add(x, w1)
  b = Add(x, w2)
  y1 = Relu(a)
  y2 = Relu(b)
}
)");
  PassContext ctx;
  absl::StatusOr<bool> changed = RunCse(*model, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ctx.GetStatistic("initializers-erased"), 1);
  EXPECT_EQ(ctx.GetStatistic("nodes-erased"), 2);         // b and the second Relu
  EXPECT_EQ(ctx.GetStatistic("identities-inserted"), 1);  // y2 = Identity(y1)
  EXPECT_TRUE(VerifyModel(*model).ok());
  // Output names are kept.
  ASSERT_EQ(model->graph().outputs().size(), 2u);
  EXPECT_EQ(model->graph().outputs()[0]->name(), "y1");
  EXPECT_EQ(model->graph().outputs()[1]->name(), "y2");
  EXPECT_EQ(model->graph().outputs()[1]->producer()->op_type(), "Identity");
}

TEST(CseTest, NothingToMergeReportsNoChange) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) {
  a = Relu(x)
  b = Neg(x)
  y = Add(a, b)
}
)");
  const std::string before = PrintModel(*model);
  PassContext ctx;
  absl::StatusOr<bool> changed = RunCse(*model, ctx);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(PrintModel(*model), before);
}

TEST(CseTest, RenamedOutputTakesTheDeclaredType) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[N] x) => (float[N] y, float[N] z) <float a> {
  a = Relu(x)
  z = Neg(a)
  y = Relu(x)
}
)");
  PassContext ctx;
  ASSERT_TRUE(RunCse(*model, ctx).ok());
  Value* y = model->graph().FindValue("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(model->graph().FindValue("a"), nullptr);
  EXPECT_EQ(y->type().ToString(), "float[N]");
  EXPECT_FALSE(y->in_value_info());
  EXPECT_EQ(model->graph().NodesSnapshot()[0]->output(0), y);
  EXPECT_TRUE(VerifyModel(*model).ok());
}

// Without the default domain imported there is no Identity to keep both output
// names.
TEST(CseTest, NoIdentityWithoutDefaultOpset) {
  std::unique_ptr<Model> model = Parse(R"(
<ir_version: 8, opset_import: ["ai.onnx.ml" : 3]>
main (float[2] x) => (float[2] y1, float[2] y2, float[2] z) {
  y1 = ai.onnx.ml.Binarizer(x)
  y2 = ai.onnx.ml.Binarizer(x)
  a = ai.onnx.ml.Binarizer(x)
  z = ai.onnx.ml.Normalizer(a)
}
)");
  ASSERT_EQ(model->OpsetVersion(""), -1);
  PassContext ctx;
  ASSERT_TRUE(RunCse(*model, ctx).ok());
  // y2 stays (both are outputs); `a` still merges into y1.
  EXPECT_EQ(ctx.GetStatistic("nodes-erased"), 1);
  EXPECT_EQ(ctx.GetStatistic("identities-inserted"), 0);
  EXPECT_EQ(model->graph().num_nodes(), 3u);
  EXPECT_EQ(model->graph().FindValue("z")->producer()->input(0)->name(), "y1");
}

TEST(CseTest, InitializerSizeLimit) {
  auto build = [] {
    auto model = std::make_unique<Model>();
    model->opset_imports = {{"", 17}};
    Graph& g = model->graph();
    std::vector<float> values(1025,
                              0.5f);  // 4100 bytes: above the default 4096
    Value* x = g.AddInput("x", Type::Tensor(ElementType::kFloat, {Dim::Literal(1025)}));
    Value* w1 = g.AddInitializer(
        "w1", DenseElements::FromVector<float>(ElementType::kFloat, {1025}, values));
    Value* w2 = g.AddInitializer(
        "w2", DenseElements::FromVector<float>(ElementType::kFloat, {1025}, values));
    Node* a = g.AddNode("Add");
    a->AddInput(x);
    a->AddInput(w1);
    Node* b = g.AddNode("Add");
    b->AddInput(x);
    b->AddInput(w2);
    Node* y = g.AddNode("Sub");
    y->AddInput(a->AddOutput("a"));
    y->AddInput(b->AddOutput("b"));
    g.AddOutput(y->AddOutput("y"));
    return model;
  };
  {
    std::unique_ptr<Model> model = build();
    PassContext ctx;
    absl::StatusOr<bool> changed = RunCse(*model, ctx);
    ASSERT_TRUE(changed.ok());
    EXPECT_FALSE(*changed);
    EXPECT_EQ(model->graph().initializers().size(), 2u);
  }
  std::unique_ptr<Model> model = build();
  PassContext ctx;
  ASSERT_TRUE(RunCse(*model, ctx, "max-initializer-bytes", "-1").ok());
  EXPECT_EQ(ctx.GetStatistic("initializers-erased"), 1);
  EXPECT_EQ(ctx.GetStatistic("nodes-erased"), 1);
  EXPECT_EQ(model->graph().initializers().size(), 1u);
  EXPECT_TRUE(VerifyModel(*model).ok());
}

}  // namespace
}  // namespace anvil
