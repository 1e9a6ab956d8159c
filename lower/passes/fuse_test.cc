// The passes on lowered modules: what fusion leaves (loop nests, loops, stored intermediates)
// on the shapes it is for, and that no pass changes a single bit of any output — each model runs
// through the evaluator with every pass on and with none, on dims it was not lowered for.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lower/evaluator/evaluator.h"
#include "lower/lowering/lower_to_tir.h"
#include "lower/passes/passes.h"
#include "lower/testing/lowering_test_util.h"
#include "shape/shape_inference.h"

namespace anvil::lower {
namespace {

using testing::Lowered;
using testing::TestInput;

std::unique_ptr<Model> Parse(const std::string& text) { return testing::ParseModel(text); }

Lowered Lower(const Model& model, bool passes) {
  return testing::LowerModel(model, testing::AllPasses(passes));
}

Tensor Input(ElementType type, std::vector<int64_t> dims, int salt) {
  return TestInput(type, std::move(dims), salt);
}

// Every pass on against none.
void ExpectBitIdentical(const std::string& text, const std::vector<Tensor>& inputs) {
  std::unique_ptr<Model> model = Parse(text);
  ASSERT_NE(model, nullptr);
  testing::ExpectSameBits(*model, testing::AllPasses(false), testing::AllPasses(true), inputs);
}

constexpr char kLayerNorm[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[B, S, 16] x, float[16] gamma, float[16] beta) => (float[B, S, 16] y) {
  mean = ReduceMean<axes = [-1]>(x)
  d = Sub(x, mean)
  two = Constant<value = float {2.0}>()
  sq = Pow(d, two)
  var = ReduceMean<axes = [-1]>(sq)
  eps = Constant<value = float {1e-5}>()
  ve = Add(var, eps)
  sd = Sqrt(ve)
  n = Div(d, sd)
  g = Mul(n, gamma)
  y = Add(g, beta)
})";

TEST(FuseTest, LayerNormOfNineOpsIsOneNestOverTheRows) {
  std::unique_ptr<Model> model = Parse(kLayerNorm);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  // As lowered: one nest per node (9), 8 stored intermediates.
  EXPECT_EQ(l.stats.before_passes.nests, 9);
  EXPECT_EQ(l.stats.before_passes.stored_intermediates, 8);
  const ModuleCounts after = CountLoops(l.module);
  EXPECT_EQ(after.nests, 1);
  EXPECT_EQ(after.stored_intermediates, 0);
  EXPECT_EQ(after.local_buffers, 0);  // mean, variance, stddev are scalars
  // Rows (B, S), then three passes over each row: mean, variance, output.
  EXPECT_EQ(after.loops, 5);
  EXPECT_EQ(l.stats.passes.fuse.contracted, 3);
  EXPECT_EQ(l.stats.passes.mark.parallel, 1);
  ExpectBitIdentical(
      kLayerNorm, {Input(ElementType::kFloat, {2, 3, 16}, 1), Input(ElementType::kFloat, {16}, 2),
                   Input(ElementType::kFloat, {16}, 3)});
}

constexpr char kChain[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8] x, float[8] b) => (float[N, 8] y) {
  a = Add(x, b)
  t = Tanh(a)
  m = Mul(t, t)
  e = Exp(m)
  y = Sigmoid(e)
})";

TEST(FuseTest, ElementwiseChainIsOneLoopNest) {
  std::unique_ptr<Model> model = Parse(kChain);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  EXPECT_EQ(l.stats.before_passes.nests, 5);
  const ModuleCounts after = CountLoops(l.module);
  // Tanh is read twice (t * t) and Exp three times (Sigmoid's stable form): not inlined, as
  // they would run that often, but their loops fuse with their consumers' and each becomes a
  // scalar; Add inlines.
  EXPECT_EQ(after.nests, 1);
  EXPECT_EQ(after.stored_intermediates, 0);
  EXPECT_EQ(l.stats.passes.fuse.inlined, 2);
  EXPECT_EQ(l.stats.passes.fuse.contracted, 2);
  ExpectBitIdentical(kChain,
                     {Input(ElementType::kFloat, {5, 8}, 1), Input(ElementType::kFloat, {8}, 2)});
}

constexpr char kSoftmaxOfScaled[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, C] x, float[C] w) => (float[N, C] y) {
  s = Mul(x, w)
  y = Softmax<axis = -1>(s)
})";

TEST(FuseTest, ElementwiseProducerMovesIntoTheReductions) {
  std::unique_ptr<Model> model = Parse(kSoftmaxOfScaled);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  const ModuleCounts after = CountLoops(l.module);
  EXPECT_EQ(after.nests, 1);
  EXPECT_EQ(after.stored_intermediates, 0);
  ExpectBitIdentical(kSoftmaxOfScaled,
                     {Input(ElementType::kFloat, {3, 7}, 1), Input(ElementType::kFloat, {7}, 2)});
}

// Broadcast consumers: an expensive producer read once per output element of a larger consumer
// is not recomputed; data movement, Where and a reduction to a vector go through unchanged.
constexpr char kMixed[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, C] x, bool[N, C] c) => (float[N, C] y, float[C, N] t, float[N] r) {
  e = Exp(x)
  s = ReduceSum<axes = [1], keepdims = 1>(e)
  l = Log(s)
  d = Sub(x, l)
  z = Constant<value = float {0}>()
  y = Where(c, d, z)
  t = Transpose<perm = [1, 0]>(y)
  r = ReduceMax<axes = [1], keepdims = 0>(t)
})";

TEST(FuseTest, MixedModelKeepsEveryBit) {
  ExpectBitIdentical(kMixed,
                     {Input(ElementType::kFloat, {4, 6}, 1), Input(ElementType::kBool, {4, 6}, 2)});
  std::unique_ptr<Model> model = Parse(kMixed);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  EXPECT_LT(CountLoops(l.module).nests, l.stats.before_passes.nests);
}

TEST(FuseTest, PassesAreOptional) {
  std::unique_ptr<Model> model = Parse(kLayerNorm);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, false);
  EXPECT_EQ(CountLoops(l.module).nests, 9);
  EXPECT_TRUE(l.module.workspace.empty());
}

TEST(PlanBuffersTest, DynamicPlanSharesTheWorkspace) {
  // Two MatMuls keep their outputs (gemm writes through an address); their lifetimes do not
  // overlap with a third, so the plan is smaller than one buffer each.
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8] x, float[8, 8] w) => (float[N, 8] y) {
  a = MatMul(x, w)
  b = MatMul(a, w)
  c = MatMul(b, w)
  y = MatMul(c, w)
})";
  std::unique_ptr<Model> model = Parse(kText);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  EXPECT_TRUE(l.stats.passes.plan.dynamic);
  EXPECT_EQ(l.stats.passes.plan.buffers, 3);
  ASSERT_TRUE(l.module.workspace.offsets.defined());
  Evaluator evaluator(l.module);
  Tensor x = Input(ElementType::kFloat, {100, 8}, 1);
  Tensor w = Input(ElementType::kFloat, {8, 8}, 2);
  absl::StatusOr<std::vector<Tensor>> out = evaluator.Run({x, w});
  ASSERT_TRUE(out.ok()) << out.status();
  // a and c can share: 2 live buffers of 100 * 8 floats at most.
  EXPECT_LE(evaluator.stats().workspace_bytes, 2 * 100 * 8 * 4);
  ExpectBitIdentical(kText, {x, w});
}

// collapse-loops: a squeeze-excitation block (a mean over H x W, a per-channel scale of
// the planes) and an element-wise chain over a reshaped tensor collapse their plane loops (the
// average's reduction pair included), and keep every bit, on dims other than those lowered for.
TEST(CollapseLoopsTest, PlaneLoopsBecomeOneAndKeepEveryBit) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 4, H, W] x) => (float[N, 4, H, W] y, float[N, 4] m) {
  g = ReduceMean<axes = [2, 3]>(x)
  s = Sigmoid(g)
  z = Mul(x, s)
  y = Relu(z)
  shape = Constant<value = int64[2] {0, 4}>()
  m = Reshape(g, shape)
})";
  std::unique_ptr<Model> model = Parse(kText);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  EXPECT_GE(l.stats.passes.collapse.collapsed, 2);
  EXPECT_GE(l.stats.passes.collapse.views, 2);
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 4, 3, 5}, std::vector<int64_t>{1, 4, 7, 7},
        std::vector<int64_t>{3, 4, 1, 17}}) {
    ExpectBitIdentical(kText, {Input(ElementType::kFloat, dims, 5)});
  }
}

}  // namespace
}  // namespace anvil::lower
