#include "shape/dim_analysis.h"

#include <memory>

#include "gmock/gmock.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

std::unique_ptr<Model> InferredModel(const char* text) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return nullptr;
  absl::StatusOr<bool> changed = InferShapes(**model);
  EXPECT_TRUE(changed.ok()) << changed.status();
  return *std::move(model);
}

const Value* Find(const Model& m, const char* name) { return m.graph().LookupInScope(name); }

// The analysis reads dims into the caller's IndexExprContext (it compares them with the caller's
// expressions): each test installs one of its own.
class DimAnalysisTest : public ::testing::Test {
 private:
  ScopedIndexExprContext context_;
};

TEST_F(DimAnalysisTest, MatMulContractionDimsAreEqual) {
  auto m = InferredModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B, S, K] a, float[M, N] b) => (float[B, S, N] c) { c = MatMul(a, b) })");
  ASSERT_NE(m, nullptr);
  DimAnalysis dims(*m);
  EXPECT_TRUE(dims.SameDim(*Find(*m, "a"), 2, *Find(*m, "b"), 0));
  EXPECT_TRUE(dims.Same(IndexExpr::Symbol("K"), IndexExpr::Symbol("M")));
  EXPECT_FALSE(dims.Same(IndexExpr::Symbol("B"), IndexExpr::Symbol("S")));
}

TEST_F(DimAnalysisTest, LiteralPartnerMakesADimStatic) {
  auto m = InferredModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B, K] a, float[64, 10] b) => (float[B, 10] c) { c = MatMul(a, b) })");
  ASSERT_NE(m, nullptr);
  DimAnalysis dims(*m);
  EXPECT_EQ(dims.LiteralOf(IndexExpr::Symbol("K")), 64);
  EXPECT_EQ(dims.LiteralOf(IndexExpr::Symbol("B")), std::nullopt);
}

TEST_F(DimAnalysisTest, ElementwiseAndConcatOperandsMatch) {
  auto m = InferredModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x, float[M, 4] y, float[P, Q] z) => (float[N, 4] s, float[?, 4] c) {
  s = Add(x, y)
  c = Concat<axis = 0>(x, z)
})");
  ASSERT_NE(m, nullptr);
  DimAnalysis dims(*m);
  EXPECT_TRUE(dims.Same(IndexExpr::Symbol("N"), IndexExpr::Symbol("M")));
  EXPECT_EQ(dims.LiteralOf(IndexExpr::Symbol("Q")), 4);                     // Concat non-axis dim
  EXPECT_FALSE(dims.Same(IndexExpr::Symbol("N"), IndexExpr::Symbol("P")));  // the concat axis
}

TEST_F(DimAnalysisTest, BroadcastAgainstOneProvesNothing) {
  auto m = InferredModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 1] x, float[1, M] y) => (float[N, M] s) { s = Mul(x, y) })");
  ASSERT_NE(m, nullptr);
  DimAnalysis dims(*m);
  EXPECT_FALSE(dims.Same(IndexExpr::Symbol("N"), IndexExpr::Symbol("M")));
  EXPECT_TRUE(dims.Classes().empty()) << ::testing::PrintToString(dims.Classes());
}

TEST_F(DimAnalysisTest, SubgraphsAreAnalyzed) {
  auto m = InferredModel(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[A, K] a, float[L, 3] b) => (float[A, 3] r) {
  r = If <
    then_branch = t () => (float[A, 3] o) { o = MatMul(a, b) },
    else_branch = e () => (float[A, 3] o2) { o2 = MatMul(a, b) }
  > (c)
})");
  ASSERT_NE(m, nullptr);
  DimAnalysis dims(*m);
  EXPECT_TRUE(dims.Same(IndexExpr::Symbol("K"), IndexExpr::Symbol("L")));
}

}  // namespace
}  // namespace anvil
