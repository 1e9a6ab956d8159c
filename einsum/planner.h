// The contraction planner: in which order an Einsum's operands are contracted, pairwise.
//
// Input: each operand's distinct labels (its diagonals already taken, broadcast dims of size 1
// already dropped), the output's labels and every label's size (an IndexExpr: literal or
// symbolic). Output: per operand the labels to sum out first (those no other operand and not
// the output has), then a list of pairwise steps. A step contracts two tensors over the labels
// that neither the output nor any remaining tensor needs (summed); labels both hold and that are
// still needed are batch labels; the result keeps the rest. Whether a step becomes a MatMul, a
// Hadamard product or an outer product is the layout stage's business (program.h); the order is
// decided here, by a cost model in the spirit of opt_einsum:
//  - cost of a step = multiply-adds (the product of the sizes of all labels the pair holds) plus
//    the elements of its result, so that among equal flops smaller intermediates win;
//  - kOptimal: the cheapest order over all pairwise orders (dynamic programming over subsets,
//    3^n work); kGreedy: repeatedly the pair whose result shrinks memory most (result size minus
//    the sizes of the two inputs; ties by cost), pairs that share a label before outer products;
//    kLeftToRight: ((a, b), c), ... as ONNX Runtime's kernel contracts; kAuto: optimal up to
//    `optimal_limit` operands, greedy beyond. kOptimal falls back to greedy beyond 12 operands.
// A symbolic size enters the cost model as `size_hint` per symbol (questionmarks too); the plan
// is correct for every size, only its cost depends on the hint.
#ifndef ANVIL_EINSUM_PLANNER_H_
#define ANVIL_EINSUM_PLANNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "shape/index_expr.h"

namespace anvil::einsum {

enum class Strategy { kAuto, kOptimal, kGreedy, kLeftToRight };

struct PlannerOptions {
  Strategy strategy = Strategy::kAuto;
  int optimal_limit = 6;
  int64_t size_hint = 64;
};

// A size for cost estimates: the literal, or the expression with every symbol = hint (a
// questionmark or an overflow counts as hint).
double EstimateSize(const IndexExpr& size, int64_t hint);

struct PlanStep {
  int lhs = 0;  // tensor ids: operands are 0..n-1, step k's result is n + k
  int rhs = 0;
  std::vector<int> result;  // labels the result keeps, sorted
  std::vector<int> summed;  // labels contracted away by this step, sorted
  double cost = 0;          // estimate: multiply-adds + result elements
};

struct ContractionPlan {
  std::vector<std::vector<int>> presum;  // per operand: labels to sum out first, sorted
  std::vector<PlanStep> steps;           // n - 1 steps for n operands
  double cost = 0;                       // the steps' costs summed
  double largest_intermediate = 0;       // elements of the largest step result
};

// `operands[i]`: operand i's distinct labels; `output`: the output's labels; `sizes`: indexed by
// label.
ContractionPlan PlanContraction(const std::vector<std::vector<int>>& operands,
                                absl::Span<const int> output, absl::Span<const IndexExpr> sizes,
                                const PlannerOptions& options);

// "auto", "optimal", "greedy", "left-to-right" (what the pass option accepts).
bool ParseStrategy(std::string_view text, Strategy* strategy);

}  // namespace anvil::einsum

#endif  // ANVIL_EINSUM_PLANNER_H_
