// Standard instrumentations of the Tensor IR's pass manager (tir_pass_manager.h), the
// counterparts of the graph's (graph/instrumentation.h) with whose reports they share code
// (graph/pass_reports.h):
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

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "graph/pass_reports.h"
#include "lower/passes/tir_pass_manager.h"

namespace anvil::tir {

class TimingInstrumentation : public PassInstrumentation, public PassTimingReport {
 public:
  explicit TimingInstrumentation(std::function<absl::Time()> now = absl::Now)
      : PassTimingReport(std::move(now)) {}

  absl::Status RunBeforePass(const Pass& pass, Module& module) override;
  absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const Pass& pass, Module& module, const absl::Status& status) override;
};

class VerifierInstrumentation : public PassInstrumentation {
 public:
  explicit VerifierInstrumentation(bool verify_unchanged = false)
      : verify_unchanged_(verify_unchanged) {}

  absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                            bool changed) override;

 private:
  bool verify_unchanged_;
};

// Dumps headed `// ----- IR after <pass> -----` (PrintIrOptions selects the passes).
class PrintIrInstrumentation : public PassInstrumentation {
 public:
  PrintIrInstrumentation(std::ostream& os, PrintIrOptions options)
      : os_(os), options_(std::move(options)) {}
  static std::unique_ptr<PrintIrInstrumentation> AfterAll(std::ostream& os);
  static std::unique_ptr<PrintIrInstrumentation> AfterPasses(std::ostream& os,
                                                             std::vector<std::string> passes);

  absl::Status RunBeforePass(const Pass& pass, Module& module) override;
  absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const Pass& pass, Module& module, const absl::Status& status) override;

 private:
  void Dump(std::string_view header, const Module& module);

  std::ostream& os_;
  PrintIrOptions options_;
};

class StatisticsInstrumentation : public PassInstrumentation, public PassStatisticsReport {
 public:
  absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                            bool changed) override;
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_PASSES_TIR_INSTRUMENTATION_H_
