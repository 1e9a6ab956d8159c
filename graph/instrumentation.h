// Standard PassInstrumentations (see pass_manager_base.h for the hook contract
// and ordering):
//  - TimingInstrumentation: wall time of every pass run, printed as a table.
//  - VerifierInstrumentation: runs VerifyModel after each pass that changed
//    the model; fails the pipeline with `failed after <pass>: <message>` and
//    keeps the tolerated spec breaches it finds as warnings.
//  - PrintIrInstrumentation: prints the model (PrintModel) before/after all or
//    selected passes.
//  - StatisticsInstrumentation: sums the passes' PassContext statistics into
//    a table.
//  - ProgressInstrumentation: a progress line (base/progress.h) for each pass
//    run that took a second or more.
// Timing, print-IR and statistics are the templates of pass_manager_base.h over
// Model and Pass, which the Tensor IR's instrumentations instantiate too; their
// reports and the choice of passes to print come from pass_reports.h. Each keeps
// its results for inspection after PassManager::Run returns; they are not
// thread-safe and an instance serves one manager.
#ifndef ANVIL_GRAPH_INSTRUMENTATION_H_
#define ANVIL_GRAPH_INSTRUMENTATION_H_

#include <chrono>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "base/progress.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "graph/pass_manager.h"
#include "graph/pass_manager_base.h"
#include "graph/pass_reports.h"

namespace anvil {

// Prints with PrintModel (text_format.h).
template <>
std::string PrintIrInstrumentationT<Model, Pass>::PrintUnit(const Model& model);

extern template class TimingInstrumentationT<Model, Pass>;
extern template class StatisticsInstrumentationT<Model, Pass>;
extern template class PrintIrInstrumentationT<Model, Pass>;

// Measures each pass run between its before and after hooks. Add it last to
// exclude the other instrumentations' time (e.g. verification) from the
// measurements.
using TimingInstrumentation = TimingInstrumentationT<Model, Pass>;

// Prints the model around the passes PrintIrOptions selects (pass_reports.h);
// AfterAll() and AfterPasses() make the common ones.
using PrintIrInstrumentation = PrintIrInstrumentationT<Model, Pass>;

// Sums the passes' statistics and remarks (PassStatisticsReport).
using StatisticsInstrumentation = StatisticsInstrumentationT<Model, Pass>;

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

// Reports each pass run to `progress` ("TOOL: pass NAME: 1.20 s"), which prints those over its
// threshold: long pipelines on big models say where they are.
class ProgressInstrumentation : public PassInstrumentation {
 public:
  explicit ProgressInstrumentation(const Progress* progress) : progress_(progress) {}
  absl::Status RunBeforePass(const Pass& pass, Model& model) override;
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;

 private:
  const Progress* progress_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_INSTRUMENTATION_H_
