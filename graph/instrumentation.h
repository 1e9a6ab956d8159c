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
// Each keeps its results for inspection after PassManager::Run returns; they
// are not thread-safe and an instance serves one manager.
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

namespace anvil {

// Measures each pass run between its before and after hooks. Add it last to
// exclude the other instrumentations' time (e.g. verification) from the
// measurements.
class TimingInstrumentation : public PassInstrumentation {
 public:
  struct Entry {
    std::string pass;  // name, plus `{options}` when any differ from the defaults
    absl::Duration wall;
    bool changed = false;
    bool failed = false;
  };

  // `now` is the clock; tests inject a fake one.
  explicit TimingInstrumentation(std::function<absl::Time()> now = absl::Now)
      : now_(std::move(now)) {}

  // One entry per pass run, in execution order (a pass that runs twice has two
  // rows).
  const std::vector<Entry>& entries() const { return entries_; }
  absl::Duration total() const;

  // A table: pass, wall ms, % of the total, changed (yes / no / failed), then a
  // Total line.
  //   ===----- Pass execution timing report -----===
  //   Pass       Wall (ms)  % total  Changed
  //   dce            1.500    75.0%  yes
  //   cse            0.500    25.0%  no
  //   Total          2.000   100.0%
  void PrintReport(std::ostream& os) const;
  static constexpr int kMaxRemarksShown = 20;

  absl::Status RunBeforePass(const Pass& pass, Model& model) override;
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const Pass& pass, Model& model, const absl::Status& status) override;

 private:
  void Record(const Pass& pass, bool changed, bool failed);

  std::function<absl::Time()> now_;
  absl::Time start_;
  std::vector<Entry> entries_;
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

// Prints the IR around passes, each dump preceded by a header line:
//   // ----- IR before <pass> -----
//   // ----- IR after <pass> -----
//   // ----- IR after <pass> (failed) -----
class PrintIrInstrumentation : public PassInstrumentation {
 public:
  struct Options {
    bool before_all = false;
    bool after_all = false;
    std::vector<std::string> before;  // pass names
    std::vector<std::string> after;   // pass names
    // Skip "after" dumps of passes that reported no change.
    bool only_if_changed = false;
    // Print after a pass that failed (what it left behind), when it is selected
    // for "after".
    bool after_failure = true;
  };

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
  bool PrintsAfter(const Pass& pass) const;
  void Dump(std::string_view header, const Model& model);

  std::ostream& os_;
  Options options_;
};

// Sums the statistics of every successful pass run by pass name (a pass run
// three times shows its totals), passes in order of first appearance,
// statistics in order of first report; collects the passes' remarks.
class StatisticsInstrumentation : public PassInstrumentation {
 public:
  struct PassStatistics {
    std::string pass;
    std::vector<std::pair<std::string, int64_t>> values;
    std::vector<std::string> remarks;
  };

  const std::vector<PassStatistics>& statistics() const { return statistics_; }
  // The summed value, 0 when never reported.
  int64_t Get(std::string_view pass, std::string_view statistic) const;

  //   ===----- Pass statistics report -----===
  //   Pass  Statistic     Value
  //   dce   nodes-erased      3
  // then, when any pass made remarks, up to kMaxRemarksShown per pass:
  //   remarks:
  //     einsum-decompose: node 'e' (Einsum): kept: ...
  void PrintReport(std::ostream& os) const;
  static constexpr int kMaxRemarksShown = 20;

  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override;

 private:
  std::vector<PassStatistics> statistics_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_INSTRUMENTATION_H_
