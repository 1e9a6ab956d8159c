// Buffer planning: the intermediates that survive fusion share one workspace, placed by the
// runtime's MemoryPlanner (runtime/memory_planner.h) over their lifetimes in the entry
// function's top-level statements.
//
// Planned: every tensor Define at the top level of the entry function that is neither a view,
// nor dynamic (a kernel allocates those), nor already placed, and whose size is known before the
// body runs: dims over the entry's parameters, or a `bound` (TensorAttrs::max_bytes, from the
// model's dim ranges: dims only the run learns, e.g. after NonZero), planned at that bound. A
// tensor lives from its Define to the last top-level statement that touches it or a view of it.
// When every size is a constant the plan is made here: each Define gets `at <offset>` and
// Module::workspace.bytes the total. When a size depends on dims, the plan is made per run: the
// Defines read their offset from Module::workspace.offsets (an s64 tensor the runner fills), and
// workspace.buffers hold the byte sizes (index expressions over the entry's parameters) and
// lifetimes the runner hands to the MemoryPlanner, which re-plans only when a size changed.
#ifndef ANVIL_LOWER_PASSES_PLAN_BUFFERS_H_
#define ANVIL_LOWER_PASSES_PLAN_BUFFERS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

struct PlanStats {
  int64_t buffers = 0;
  bool dynamic = false;
  // Static plans: the workspace and what one buffer per tensor would take.
  int64_t workspace_bytes = 0;
  int64_t unshared_bytes = 0;
};

absl::StatusOr<tir::Module> PlanBuffers(tir::Module module, PlanStats* stats = nullptr);

// Pass `plan-buffers`: PlanBuffers() on the module. Statistics: workspace-buffers, and for a
// static plan workspace-bytes and workspace-bytes-unshared.
class PlanBuffersPass : public tir::Pass {
 public:
  std::string_view name() const override { return "plan-buffers"; }
  std::string_view description() const override {
    return "place intermediates in one workspace (plan_buffers.h)";
  }
  absl::StatusOr<bool> Run(tir::Module& module, PassContext& ctx) override;

  // What this instance's runs did, summed.
  const PlanStats& stats() const { return stats_; }

 private:
  PlanStats stats_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_PLAN_BUFFERS_H_
