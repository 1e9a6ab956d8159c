// Standard instrumentations of the Tensor IR's pass manager (tir_pass_manager.h). Timing,
// print-IR and statistics are the graph's (graph/instrumentation.h) over Module and tir::Pass:
// the templates of graph/pass_manager_base.h, with the reports of graph/pass_reports.h.
//  - TimingInstrumentation: wall time of every pass run, printed as a table.
//  - VerifierInstrumentation: tir::VerifyModule after each pass that changed the module (or
//    after every pass); a module a pass left invalid fails the pipeline with
//    `failed after <pass>: ...` (Internal: a pass broke an invariant, not the user's model).
//  - PrintIrInstrumentation: tir::PrintModule before/after all or selected passes.
//  - StatisticsInstrumentation: sums the passes' statistics into a table.
// Not thread-safe; an instance may serve several managers one after another (a tool lowering
// several modules collects one report).
#ifndef ANVIL_LOWER_PASSES_TIR_INSTRUMENTATION_H_
#define ANVIL_LOWER_PASSES_TIR_INSTRUMENTATION_H_

#include <string>

#include "absl/status/status.h"
#include "graph/pass_manager_base.h"
#include "graph/pass_reports.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"
#include "lower/passes/tir_pass_manager.h"

namespace anvil {

// Prints with tir::PrintModule (lower/ir/printer.h).
template <>
std::string PrintIrInstrumentationT<tir::Module, tir::Pass>::PrintUnit(const tir::Module& module);

extern template class TimingInstrumentationT<tir::Module, tir::Pass>;
extern template class StatisticsInstrumentationT<tir::Module, tir::Pass>;
extern template class PrintIrInstrumentationT<tir::Module, tir::Pass>;

}  // namespace anvil

namespace anvil::tir {

using TimingInstrumentation = TimingInstrumentationT<Module, Pass>;
// Dumps headed `// ----- IR after <pass> -----` (PrintIrOptions selects the passes).
using PrintIrInstrumentation = PrintIrInstrumentationT<Module, Pass>;
using StatisticsInstrumentation = StatisticsInstrumentationT<Module, Pass>;

class VerifierInstrumentation : public PassInstrumentation {
 public:
  explicit VerifierInstrumentation(bool verify_unchanged = false)
      : verify_unchanged_(verify_unchanged) {}

  absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                            bool changed) override;

 private:
  bool verify_unchanged_;
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_PASSES_TIR_INSTRUMENTATION_H_
