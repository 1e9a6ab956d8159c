// What the passes of lower/passes/ share around Run(): each rewrites the module's entry function
// (tir_pass.h's contract: a module without one is left alone) and reports counts of what it did,
// both as the run's statistics and into the totals the pass instance keeps across runs (its
// stats()).
#ifndef ANVIL_LOWER_PASSES_ENTRY_REWRITE_H_
#define ANVIL_LOWER_PASSES_ENTRY_REWRITE_H_

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "graph/pass_options.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

// One count of a pass run: the statistic's name, this run's value, and the pass's running total
// the value is added to.
struct RunCount {
  std::string_view statistic;
  int64_t value;
  int64_t* total;
};

// Adds each count to the run's statistics and to its total, in order.
inline void ReportCounts(PassContext& ctx, std::initializer_list<RunCount> counts) {
  for (const RunCount& c : counts) {
    ctx.AddStatistic(c.statistic, c.value);
    *c.total += c.value;
  }
}

// Replaces the module's entry function by rewrite(entry), `rewrite` taking the function and
// returning its rewritten copy (and reporting its counts: a module without an entry reports
// none). Returns whether it changed; false, with `rewrite` not called, when the module has no
// entry.
template <typename F>
bool RewriteEntry(tir::Module& module, F&& rewrite) {
  tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr) return false;
  const tir::Function before = *entry;
  *entry = rewrite(before);
  return tir::FunctionChanged(before, *entry);
}

// For a pass that rewrote the whole module: whether its entry function differs from `before`,
// the entry's copy from before the pass (true when the entry is gone).
inline bool EntryChanged(const tir::Module& module, const tir::Function& before) {
  const tir::Function* entry = module.FindFunction(module.entry);
  return entry == nullptr || tir::FunctionChanged(before, *entry);
}

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_ENTRY_REWRITE_H_
