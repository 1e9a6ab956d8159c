// The IR-independent parts of the standard pass instrumentations, shared by the graph's
// (instrumentation.h) and the Tensor IR's (lower/passes/tir_instrumentation.h): the timing
// table, the statistics table, and which passes an IR printer dumps around. An instrumentation
// derives from the report and calls its protected recorders from its hooks.
#ifndef ANVIL_GRAPH_PASS_REPORTS_H_
#define ANVIL_GRAPH_PASS_REPORTS_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "graph/pass_options.h"

namespace anvil {

// Wall time of each pass run, printed as a table.
class PassTimingReport {
 public:
  struct Entry {
    std::string pass;  // name, plus `{options}` when any differ from the defaults
    absl::Duration wall;
    bool changed = false;
    bool failed = false;
  };

  // `now` is the clock; tests inject a fake one.
  explicit PassTimingReport(std::function<absl::Time()> now = absl::Now) : now_(std::move(now)) {}

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

 protected:
  // Before a pass runs.
  void Start() { start_ = now_(); }
  // After it ran (or failed): one entry since Start().
  void Record(const PassBase& pass, bool changed, bool failed);

 private:
  std::function<absl::Time()> now_;
  absl::Time start_;
  std::vector<Entry> entries_;
};

// Sums the statistics of every successful pass run by pass name (a pass run
// three times shows its totals), passes in order of first appearance,
// statistics in order of first report; collects the passes' remarks.
class PassStatisticsReport {
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

 protected:
  // After a pass succeeded: adds its run's statistics and remarks.
  void Add(const PassBase& pass, const PassContext& ctx);

 private:
  std::vector<PassStatistics> statistics_;
};

// Which passes an IR printer dumps around. Each dump is preceded by a header line:
//   // ----- IR before <pass> -----
//   // ----- IR after <pass> -----
//   // ----- IR after <pass> (failed) -----
struct PrintIrOptions {
  bool before_all = false;
  bool after_all = false;
  std::vector<std::string> before;  // pass names
  std::vector<std::string> after;   // pass names
  // Skip "after" dumps of passes that reported no change.
  bool only_if_changed = false;
  // Print after a pass that failed (what it left behind), when it is selected
  // for "after".
  bool after_failure = true;

  bool PrintsBefore(std::string_view pass) const;
  bool PrintsAfter(std::string_view pass) const;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_REPORTS_H_
