// fold-batchnorm on float16 weights, which the text tests cannot write (ONNX 1.12's text parser
// has no float16 literals): the folded weight and bias keep the weight's type, rounded once from
// the double folding, and statistics of another float type (BatchNormalization-15's T2) fold too.
#include "graph/passes/fold_batchnorm.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "base/float16.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::shared_ptr<const Elements> Half(std::vector<int64_t> dims, const std::vector<float>& values) {
  std::vector<uint16_t> bits;
  for (float v : values) bits.push_back(fp16::FloatToHalf(v));
  return DenseElements::FromVector(ElementType::kFloat16, std::move(dims), bits);
}

TEST(FoldBatchNormTest, Float16WeightsFoldIntoFloat16Initializers) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    main (float16[1, 1, 3, 3] x, float16[2, 1, 1, 1] w, float16[2] b, float16[2] s,
          float16[2] t) => (float16[1, 2, 3, 3] y)
    <float[2] mu = {3, -1}, float[2] v = {4, 1}>
    {
      c = Conv(x, w, b)
      n = BatchNormalization<epsilon = 0.0>(c, s, t, mu, v)
      y = Relu(n)
    })");
  ASSERT_TRUE(model.ok()) << model.status();
  Graph& graph = (*model)->graph();
  // The float16 constants the text cannot spell, in place of the inputs w, b, s, t.
  Node* conv = graph.FindValue("c")->producer();
  Node* bn = graph.FindValue("n")->producer();
  conv->SetInput(1, graph.AddInitializer("w16", Half({2, 1, 1, 1}, {1, -2})));
  conv->SetInput(2, graph.AddInitializer("b16", Half({2}, {1, 1})));
  bn->SetInput(1, graph.AddInitializer("s16", Half({2}, {2, 3})));
  bn->SetInput(2, graph.AddInitializer("t16", Half({2}, {0.5, -1})));

  FoldBatchNormPass pass;
  PassContext ctx;
  absl::StatusOr<bool> changed = pass.Run(**model, ctx);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(graph.FindValue("n"), nullptr);
  const Value* w = conv->input(1);
  const Value* b = conv->input(2);
  ASSERT_TRUE(w->IsInitializer() && b->IsInitializer());
  ASSERT_EQ(w->constant()->element_type(), ElementType::kFloat16);
  ASSERT_EQ(b->constant()->element_type(), ElementType::kFloat16);
  // W' = W * s / sqrt(v), B' = (B - mu) * s / sqrt(v) + t: exact in float16.
  EXPECT_EQ(w->constant()->GetDouble(0), 1.0);
  EXPECT_EQ(w->constant()->GetDouble(1), -6.0);
  EXPECT_EQ(b->constant()->GetDouble(0), -1.5);
  EXPECT_EQ(b->constant()->GetDouble(1), 5.0);
}

}  // namespace
}  // namespace anvil
