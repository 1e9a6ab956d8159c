// Standard PassInstrumentations (see pass_manager.h for the hook contract and
// ordering):
//  - TimingInstrumentation: wall time of every pass run, printed as a table.
//  - VerifierInstrumentation: runs VerifyModel after each pass that changed
//    the model; fails the pipeline with `failed after <pass>: <message>` and
//    keeps the tolerated spec breaches it finds as warnings.
//  - PrintIrInstrumentation: prints the model (PrintModel) before/after all or
//    selected passes.
//  - StatisticsInstrumentation: sums the passes' PassContext statistics into
//    a table.
// The reports and the choice of passes to print come from pass_reports.h, which the
// Tensor IR's instrumentations share. Each keeps its results for inspection after PassManager::Run
// returns; they are not thread-safe and an instance serves one manager.
#ifndef ANVIL_GRAPH_INSTRUMENTATION_H_
#define ANVIL_GRAPH_INSTRUMENTATION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "graph/pass_manager.h"
#include "graph/pass_reports.h"

namespace anvil {

// Measures each pass run between its before and after hooks. Add it last to
// exclude the other instrumentations' time (e.g. verification) from the
// measurements.
class TimingInstrumentation : public PassInstrumentation, public PassTimingReport {
 public:
  explicit TimingInstrumentation(std::function<absl::Time()> now = absl::Now)
      : PassTimingReport(std::move(now)) {}

  absl::Status RunBeforePass(const Pass& pass, Model& model) override;
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const Pass& pass, Model& model, const absl::Status& status) override;
};

// Verifies the model after every pass that reports a change (or after every
// pass when `verify_unchanged`, which catches passes that modify the model but
// return false).
class VerifierInstrumentation : public PassInstrumentation {
 public:
  explicit VerifierInstrumentation(bool verify_unchanged = false)
      : verify_unchanged_(verify_unchanged) {}

  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;

  // Tolerated spec breaches (verifier.h) the passes' results showed, each once, in the order
  // found.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  bool verify_unchanged_;
  absl::flat_hash_set<std::string> seen_;
  std::vector<std::string> warnings_;
};

// Prints the model around the passes PrintIrOptions selects (pass_reports.h).
class PrintIrInstrumentation : public PassInstrumentation {
 public:
  using Options = PrintIrOptions;

  PrintIrInstrumentation(std::ostream& os, Options options)
      : os_(os), options_(std::move(options)) {}
  // Print-IR-after-all.
  static std::unique_ptr<PrintIrInstrumentation> AfterAll(std::ostream& os);
  // Print after the named passes only.
  static std::unique_ptr<PrintIrInstrumentation> AfterPasses(std::ostream& os,
                                                             std::vector<std::string> passes);

  absl::Status RunBeforePass(const Pass& pass, Model& model) override;
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const Pass& pass, Model& model, const absl::Status& status) override;

 private:
  void Dump(std::string_view header, const Model& model);

  std::ostream& os_;
  Options options_;
};

// Sums the passes' statistics and remarks (PassStatisticsReport).
class StatisticsInstrumentation : public PassInstrumentation, public PassStatisticsReport {
 public:
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_INSTRUMENTATION_H_
