#include "einsum/planner.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace anvil::einsum {
namespace {

using Labels = std::vector<int>;  // sorted, distinct

Labels Union(const Labels& a, const Labels& b) {
  Labels r;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}

Labels Intersection(const Labels& a, const Labels& b) {
  Labels r;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}

Labels Difference(const Labels& a, const Labels& b) {
  Labels r;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
  return r;
}

// Label sizes as estimates, and the costs the strategies compare.
class CostModel {
 public:
  CostModel(absl::Span<const IndexExpr> sizes, int64_t hint) {
    estimate_.reserve(sizes.size());
    for (const IndexExpr& s : sizes) estimate_.push_back(EstimateSize(s, hint));
  }

  double Size(const Labels& labels) const {
    double n = 1;
    for (int l : labels) n *= estimate_[l];
    return n;
  }

  // A pairwise step: result labels = (a ∪ b) ∩ keep.
  PlanStep Step(int lhs, int rhs, const Labels& a, const Labels& b, const Labels& keep) const {
    PlanStep s;
    s.lhs = lhs;
    s.rhs = rhs;
    const Labels all = Union(a, b);
    s.result = Intersection(all, keep);
    s.summed = Difference(all, s.result);
    s.cost = Size(all) + Size(s.result);
    return s;
  }

 private:
  std::vector<double> estimate_;
};

// The labels that a tensor made of `members` must keep: those the output or a tensor outside
// `members` still needs.
struct Problem {
  std::vector<Labels> operands;  // after presums
  Labels output;

  Labels NeededOutside(const std::vector<bool>& inside) const {
    Labels needed = output;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (!inside[i]) needed = Union(needed, operands[i]);
    }
    return needed;
  }
};

// Steps over a list of live tensors, each with the set of operands it was made of.
class StepRecorder {
 public:
  StepRecorder(const Problem& p, const CostModel& cost) : p_(p), cost_(cost) {
    const int n = static_cast<int>(p.operands.size());
    for (int i = 0; i < n; ++i) {
      std::vector<bool> members(n, false);
      members[i] = true;
      live_.push_back({i, p.operands[i], std::move(members)});
    }
    next_id_ = n;
  }

  int num_live() const { return static_cast<int>(live_.size()); }
  const Labels& labels(int k) const { return live_[k].labels; }

  // The step contracting live tensors j and k (not applied).
  PlanStep Preview(int j, int k) const {
    std::vector<bool> inside = live_[j].members;
    for (size_t i = 0; i < inside.size(); ++i) inside[i] = inside[i] || live_[k].members[i];
    return cost_.Step(live_[j].id, live_[k].id, live_[j].labels, live_[k].labels,
                      p_.NeededOutside(inside));
  }

  void Apply(int j, int k, ContractionPlan* plan) {
    PlanStep s = Preview(j, k);
    Live merged{next_id_++, s.result, live_[j].members};
    for (size_t i = 0; i < merged.members.size(); ++i) {
      merged.members[i] = merged.members[i] || live_[k].members[i];
    }
    plan->cost += s.cost;
    plan->largest_intermediate = std::max(plan->largest_intermediate, cost_.Size(s.result));
    plan->steps.push_back(std::move(s));
    live_.erase(live_.begin() + std::max(j, k));
    live_.erase(live_.begin() + std::min(j, k));
    live_.push_back(std::move(merged));
  }

 private:
  struct Live {
    int id;
    Labels labels;
    std::vector<bool> members;
  };
  const Problem& p_;
  const CostModel& cost_;
  std::vector<Live> live_;
  int next_id_ = 0;
};

void PlanLeftToRight(const Problem& p, const CostModel& cost, ContractionPlan* plan) {
  StepRecorder r(p, cost);
  // The live list keeps unmerged operands in order and appends results: contract the result
  // (last) with the first remaining operand.
  if (r.num_live() < 2) return;
  r.Apply(0, 1, plan);
  while (r.num_live() > 1) r.Apply(0, r.num_live() - 1, plan);
}

void PlanGreedy(const Problem& p, const CostModel& cost, ContractionPlan* plan) {
  StepRecorder r(p, cost);
  while (r.num_live() > 1) {
    int best_j = -1, best_k = -1;
    bool best_shares = false;
    double best_gain = 0, best_cost = 0;
    for (int j = 0; j < r.num_live(); ++j) {
      for (int k = j + 1; k < r.num_live(); ++k) {
        const bool shares = !Intersection(r.labels(j), r.labels(k)).empty();
        const PlanStep s = r.Preview(j, k);
        const double gain = cost.Size(s.result) - cost.Size(r.labels(j)) - cost.Size(r.labels(k));
        const bool better = best_j < 0 || (shares && !best_shares) ||
                            (shares == best_shares &&
                             (gain < best_gain || (gain == best_gain && s.cost < best_cost)));
        if (better) {
          best_j = j;
          best_k = k;
          best_shares = shares;
          best_gain = gain;
          best_cost = s.cost;
        }
      }
    }
    r.Apply(best_j, best_k, plan);
  }
}

// Dynamic programming over subsets of operands: best[S] = the cheapest way to contract the
// operands in S into one tensor.
void PlanOptimal(const Problem& p, const CostModel& cost, ContractionPlan* plan) {
  const int n = static_cast<int>(p.operands.size());
  if (n < 2) return;
  const uint32_t full = (1u << n) - 1;
  std::vector<Labels> labels(full + 1);  // the labels subset S's tensor keeps
  for (uint32_t s = 1; s <= full; ++s) {
    Labels all;
    std::vector<bool> inside(n, false);
    for (int i = 0; i < n; ++i) {
      if (s & (1u << i)) {
        all = Union(all, p.operands[i]);
        inside[i] = true;
      }
    }
    labels[s] = Intersection(all, p.NeededOutside(inside));
  }
  std::vector<double> best(full + 1, std::numeric_limits<double>::infinity());
  std::vector<uint32_t> split(full + 1, 0);
  for (int i = 0; i < n; ++i) best[1u << i] = 0;
  for (uint32_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) continue;  // a single operand
    // Proper subsets a of s with a < s ^ a, so each split is seen once.
    for (uint32_t a = (s - 1) & s; a > 0; a = (a - 1) & s) {
      const uint32_t b = s ^ a;
      if (a > b) continue;
      const Labels all = Union(labels[a], labels[b]);
      const double c = best[a] + best[b] + cost.Size(all) + cost.Size(labels[s]);
      if (c < best[s]) {
        best[s] = c;
        split[s] = a;
      }
    }
  }
  // Replay the best tree bottom-up (children before parents), numbering results as steps.
  std::vector<int> id(full + 1, -1);
  for (int i = 0; i < n; ++i) id[1u << i] = i;
  int next_id = n;
  auto emit = [&](auto&& self, uint32_t s) -> void {
    if (id[s] >= 0) return;
    const uint32_t a = split[s], b = s ^ a;
    self(self, a);
    self(self, b);
    PlanStep step;
    step.lhs = id[a];
    step.rhs = id[b];
    step.result = labels[s];
    step.summed = Difference(Union(labels[a], labels[b]), labels[s]);
    step.cost = cost.Size(Union(labels[a], labels[b])) + cost.Size(labels[s]);
    plan->cost += step.cost;
    plan->largest_intermediate = std::max(plan->largest_intermediate, cost.Size(step.result));
    plan->steps.push_back(std::move(step));
    id[s] = next_id++;
  };
  emit(emit, full);
}

}  // namespace

double EstimateSize(const IndexExpr& size, int64_t hint) {
  if (size.IsLiteral()) return static_cast<double>(size.literal());
  std::optional<int64_t> v = size.Evaluate([hint](std::string_view) { return hint; });
  return v ? static_cast<double>(*v) : static_cast<double>(hint);
}

ContractionPlan PlanContraction(const std::vector<std::vector<int>>& operands,
                                absl::Span<const int> output, absl::Span<const IndexExpr> sizes,
                                const PlannerOptions& options) {
  const int n = static_cast<int>(operands.size());
  Problem p;
  p.output.assign(output.begin(), output.end());
  std::sort(p.output.begin(), p.output.end());
  ContractionPlan plan;
  plan.presum.resize(n);
  // Labels only one operand holds and the output lacks are summed out of it first.
  for (int i = 0; i < n; ++i) {
    Labels own = operands[i];
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    Labels elsewhere = p.output;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      Labels other = operands[j];
      std::sort(other.begin(), other.end());
      elsewhere = Union(elsewhere, other);
    }
    plan.presum[i] = Difference(own, elsewhere);
    p.operands.push_back(Difference(own, plan.presum[i]));
  }
  const CostModel cost(sizes, options.size_hint);
  Strategy strategy = options.strategy;
  if (strategy == Strategy::kAuto) {
    // 3^n work: 6 operands is 729 splits, 12 would be half a million.
    strategy = n <= std::min(options.optimal_limit, 12) ? Strategy::kOptimal : Strategy::kGreedy;
  }
  if (strategy == Strategy::kOptimal && n > 12) strategy = Strategy::kGreedy;
  switch (strategy) {
    case Strategy::kOptimal:
      PlanOptimal(p, cost, &plan);
      break;
    case Strategy::kGreedy:
      PlanGreedy(p, cost, &plan);
      break;
    case Strategy::kLeftToRight:
    case Strategy::kAuto:
      PlanLeftToRight(p, cost, &plan);
      break;
  }
  return plan;
}

bool ParseStrategy(std::string_view text, Strategy* strategy) {
  if (text == "auto") {
    *strategy = Strategy::kAuto;
  } else if (text == "optimal") {
    *strategy = Strategy::kOptimal;
  } else if (text == "greedy") {
    *strategy = Strategy::kGreedy;
  } else if (text == "left-to-right") {
    *strategy = Strategy::kLeftToRight;
  } else {
    return false;
  }
  return true;
}

}  // namespace anvil::einsum
