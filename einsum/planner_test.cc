#include "einsum/planner.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shape/einsum_equation.h"

namespace anvil::einsum {
namespace {

int L(char c) { return LetterLabel(c); }

std::vector<int> Labels(std::string_view s) {
  std::vector<int> r;
  for (char c : s) r.push_back(L(c));
  return r;
}

// Sizes indexed by label from "i=1000,j=10".
std::vector<IndexExpr> Sizes(std::vector<std::pair<char, IndexExpr>> sizes) {
  std::vector<IndexExpr> r(kNumLetters, IndexExpr(1));
  for (auto& [c, s] : sizes) r[L(c)] = s;
  return r;
}

ContractionPlan Plan(std::vector<std::string_view> operands, std::string_view output,
                     const std::vector<IndexExpr>& sizes, Strategy strategy = Strategy::kAuto) {
  std::vector<std::vector<int>> ops;
  for (std::string_view o : operands) ops.push_back(Labels(o));
  PlannerOptions options;
  options.strategy = strategy;
  return PlanContraction(ops, Labels(output), sizes, options);
}

TEST(PlannerTest, UnbalancedChainContractsTheCheapPairFirst) {
  const auto sizes = Sizes({{'i', 1000}, {'j', 10}, {'k', 1000}, {'l', 5}});
  for (Strategy s : {Strategy::kAuto, Strategy::kOptimal, Strategy::kGreedy}) {
    const ContractionPlan plan = Plan({"ij", "jk", "kl"}, "il", sizes, s);
    ASSERT_EQ(plan.steps.size(), 2u);
    EXPECT_EQ(plan.steps[0].lhs, 1);
    EXPECT_EQ(plan.steps[0].rhs, 2);
    EXPECT_EQ(plan.steps[0].summed, Labels("k"));
    EXPECT_EQ(plan.steps[1].lhs, 0);
    EXPECT_EQ(plan.steps[1].rhs, 3);
    // 50k + 50 multiply-adds and results, against 10M + 5M left to right.
    EXPECT_LT(plan.cost, 200'000);
  }
  const ContractionPlan l2r = Plan({"ij", "jk", "kl"}, "il", sizes, Strategy::kLeftToRight);
  EXPECT_EQ(l2r.steps[0].lhs, 0);
  EXPECT_EQ(l2r.steps[0].rhs, 1);
  EXPECT_GT(l2r.cost, 15'000'000);
}

TEST(PlannerTest, LabelsOfOneOperandAreSummedFirst) {
  const ContractionPlan plan =
      Plan({"abc", "cd", "def"}, "abd", Sizes({{'a', 8}, {'b', 16}, {'c', 64}, {'d', 32}}));
  EXPECT_TRUE(plan.presum[0].empty());
  EXPECT_TRUE(plan.presum[1].empty());
  EXPECT_EQ(plan.presum[2], Labels("ef"));
  ASSERT_EQ(plan.steps.size(), 2u);
  // [c,d] x [d] (a Hadamard-like broadcast) before the big contraction.
  EXPECT_EQ(plan.steps[0].lhs, 1);
  EXPECT_EQ(plan.steps[0].rhs, 2);
  EXPECT_TRUE(plan.steps[0].summed.empty());
  EXPECT_EQ(plan.steps[1].result, Labels("abd"));
}

TEST(PlannerTest, OneOperandHasNoSteps) {
  const ContractionPlan plan = Plan({"ij"}, "i", Sizes({}));
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_EQ(plan.presum[0], Labels("j"));
}

TEST(PlannerTest, GreedyAvoidsOuterProductsWhileALabelIsShared) {
  // ab,cd,bc: (ab,cd) would be an outer product.
  const auto sizes = Sizes({{'a', 10}, {'b', 10}, {'c', 10}, {'d', 10}});
  const ContractionPlan plan = Plan({"ab", "cd", "bc"}, "ad", sizes, Strategy::kGreedy);
  ASSERT_EQ(plan.steps.size(), 2u);
  EXPECT_FALSE(plan.steps[0].lhs == 0 && plan.steps[0].rhs == 1);
}

TEST(PlannerTest, SymbolicSizesUseTheHint) {
  ScopedIndexExprContext context;  // the symbolic sizes' (shape/index_expr.h)
  EXPECT_EQ(EstimateSize(IndexExpr(7), 64), 7);
  EXPECT_EQ(EstimateSize(IndexExpr::Symbol("N"), 64), 64);
  EXPECT_EQ(EstimateSize(IndexExpr::Symbol("N") * IndexExpr::Symbol("M") + 1, 10), 101);
  EXPECT_EQ(EstimateSize(IndexExpr::Questionmark(), 32), 32);
  // ij,jk,kl with j = N: (jk, kl) first costs about 2e4*N, (ij, jk) first 1e4*N + 1e6, so the
  // hint decides (the plan is correct either way).
  const auto sizes = Sizes({{'i', 100}, {'j', IndexExpr::Symbol("N")}, {'k', 100}, {'l', 100}});
  std::vector<std::vector<int>> ops = {Labels("ij"), Labels("jk"), Labels("kl")};
  PlannerOptions small, large;
  small.size_hint = 1;
  large.size_hint = 4096;
  EXPECT_EQ(PlanContraction(ops, Labels("il"), sizes, small).steps[0].lhs, 1);
  EXPECT_EQ(PlanContraction(ops, Labels("il"), sizes, large).steps[0].lhs, 0);
}

TEST(PlannerTest, ManyOperandsStayFast) {
  // A 20-matrix chain: greedy (auto beyond the optimal limit), 19 steps.
  std::vector<std::vector<int>> ops;
  std::vector<IndexExpr> sizes(kNumLetters, IndexExpr(1));
  for (int i = 0; i < 20; ++i) {
    ops.push_back({i, i + 1});
    sizes[i] = 2 + i % 5;
  }
  sizes[20] = 3;
  const ContractionPlan plan = PlanContraction(ops, {0, 20}, sizes, PlannerOptions{});
  EXPECT_EQ(plan.steps.size(), 19u);
  EXPECT_EQ(plan.steps.back().result, (std::vector<int>{0, 20}));
  // Optimal on 12 operands (3^12 = 531441 splits) finishes too.
  ops.resize(12);
  PlannerOptions optimal;
  optimal.strategy = Strategy::kOptimal;
  EXPECT_EQ(PlanContraction(ops, {0, 12}, sizes, optimal).steps.size(), 11u);
}

TEST(PlannerTest, ParsesStrategies) {
  Strategy s;
  EXPECT_TRUE(ParseStrategy("greedy", &s));
  EXPECT_EQ(s, Strategy::kGreedy);
  EXPECT_TRUE(ParseStrategy("left-to-right", &s));
  EXPECT_EQ(s, Strategy::kLeftToRight);
  EXPECT_FALSE(ParseStrategy("fastest", &s));
}

}  // namespace
}  // namespace anvil::einsum
