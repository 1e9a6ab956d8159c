// The pass manager and its standard instrumentations, written once for every IR Anvil rewrites.
// The graph's (pass_manager.h, instrumentation.h: Model and Pass) and the Tensor IR's
// (lower/passes/tir_pass_manager.h, tir_instrumentation.h: tir::Module and tir::Pass) are
// these templates instantiated over their unit of IR and their pass type (a PassBase with
// `absl::StatusOr<bool> Run(Unit&, PassContext&)`), under their own names.
//
// Only declarations live here (the repository keeps template-heavy code out of widely included
// headers): the member definitions are in pass_manager_base.inc, which only the .cc files that
// explicitly instantiate these templates include (graph/pass_manager.cc, graph/instrumentation.cc,
// lower/passes/tir_pass_manager.cc, lower/passes/tir_instrumentation.cc). The IRs' headers
// declare those instantiations `extern template`, so no other file compiles them.
//
// Contracts (both IRs):
//  - PassInstrumentationT: the hooks and their order (below).
//  - PassManagerBase: an ordered pipeline built from text with a registry's CreatePass
//    (pipeline_text.h syntax; on error nothing is appended), printed back canonically by
//    ToString(), run by Run(), which stops at the first failure and reports it with its status
//    code kept, as
//      `failed in <pass>: <msg>`      the pass returned an error;
//      `failed after <pass>: <msg>`   an instrumentation rejected the result (e.g. a verifier);
//      `failed before <pass>: <msg>`  an instrumentation refused to start it.
//    The unit is then left as the failing step produced it.
//  - TimingInstrumentationT, StatisticsInstrumentationT, PrintIrInstrumentationT: the standard
//    instrumentations around the reports of pass_reports.h. PrintIrInstrumentationT prints a unit
//    with its static PrintUnit(), which each IR defines: an explicit specialization declared in
//    that IR's instrumentation header and defined in its .cc.
#ifndef ANVIL_GRAPH_PASS_MANAGER_BASE_H_
#define ANVIL_GRAPH_PASS_MANAGER_BASE_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "graph/pass_options.h"
#include "graph/pass_reports.h"

namespace anvil {

// Hooks around pipeline and pass execution, in the manner of MLIR's PassInstrumentation.
// Ordering: "before" hooks run in the order instrumentations were added, "after" hooks
// (including RunAfterPassFailed and RunAfterPipeline) in reverse order, so instrumentations nest
// like brackets: the last one added wraps the pass most tightly (add a timer last to keep the
// other instrumentations' work out of its measurements).
//
// A hook that returns an error stops the pipeline; the remaining "after" hooks of the same pass
// still run (so a timer still records the pass and a printer can still show the IR), and the
// first error is reported. Hooks must not add or remove passes.
template <typename Unit, typename PassT>
class PassInstrumentationT {
 public:
  virtual ~PassInstrumentationT() = default;

  // Once per Run(), around all passes. `status` is what Run() is about to return.
  virtual void RunBeforePipeline(Unit& unit) {}
  virtual void RunAfterPipeline(Unit& unit, const absl::Status& status) {}

  // Before a pass runs. An error skips the pass, and all after-hooks of it, and fails the run
  // with `failed before <pass>: <msg>`.
  virtual absl::Status RunBeforePass(const PassT& pass, Unit& unit) { return absl::OkStatus(); }
  // After a pass succeeded; `ctx` holds its statistics. An error fails the run with
  // `failed after <pass>: <msg>`.
  virtual absl::Status RunAfterPass(const PassT& pass, Unit& unit, const PassContext& ctx,
                                    bool changed) {
    return absl::OkStatus();
  }
  // After a pass returned an error (the run then fails with `failed in <pass>: <msg>`).
  virtual void RunAfterPassFailed(const PassT& pass, Unit& unit, const absl::Status& status) {}
};

// What both pass managers do; see the file comment. An IR's manager derives from it, supplies
// its registry's CreatePass and a static Parse() (ParseInto), and may check a pipeline before it
// runs (CheckBeforeRun).
template <typename Unit, typename PassT>
class PassManagerBase {
 public:
  using Instrumentation = PassInstrumentationT<Unit, PassT>;
  // A registry's CreatePass: a new instance of the pass registered as `name`, options at their
  // defaults, or NotFound naming the registered passes.
  using CreatePassFn = absl::StatusOr<std::unique_ptr<PassT>> (*)(std::string_view name);

  virtual ~PassManagerBase() = default;
  PassManagerBase(PassManagerBase&&) noexcept = default;
  PassManagerBase& operator=(PassManagerBase&&) noexcept = default;

  // Appends the passes of `pipeline`; on error nothing is appended.
  absl::Status AddPipeline(std::string_view pipeline);
  void AddPass(std::unique_ptr<PassT> pass);
  const std::vector<std::unique_ptr<PassT>>& passes() const { return passes_; }

  // Canonical pipeline text, e.g. `dce,constprop{max-expansion=8},topo-sort`.
  std::string ToString() const;

  // Takes ownership; returns the instrumentation for later inspection (reports).
  template <typename T>
  T* AddInstrumentation(std::unique_ptr<T> instrumentation) {
    T* raw = instrumentation.get();
    owned_.push_back(std::move(instrumentation));
    instrumentations_.push_back(raw);
    return raw;
  }
  // An instrumentation owned by the caller, which must outlive Run() (a tool that collects one
  // report over several managers). It takes its place in the hook order like an owned one.
  void AddExternalInstrumentation(Instrumentation* instrumentation) {
    instrumentations_.push_back(instrumentation);
  }

  // Where passes may write debug output (PassContext::log()); nullptr (default) for none.
  void set_log(std::ostream* log) { log_ = log; }

  // Runs the passes in order, after CheckBeforeRun(); see the file comment for errors.
  absl::Status Run(Unit& unit);

 protected:
  explicit PassManagerBase(CreatePassFn create_pass) : create_pass_(create_pass) {}

  // A Derived (default-constructible manager) holding the passes of `pipeline`: what the IRs'
  // static Parse() return.
  template <typename Derived>
  static absl::StatusOr<Derived> ParseInto(std::string_view pipeline) {
    Derived manager;
    absl::Status status = manager.AddPipeline(pipeline);
    if (!status.ok()) return status;
    return manager;
  }

  // Checked by Run() before any hook or pass touches the unit; an error is returned as it is.
  virtual absl::Status CheckBeforeRun() const { return absl::OkStatus(); }

 private:
  CreatePassFn create_pass_;
  std::vector<std::unique_ptr<PassT>> passes_;
  std::vector<std::unique_ptr<Instrumentation>> owned_;
  // Owned and external ones, in the order added.
  std::vector<Instrumentation*> instrumentations_;
  std::ostream* log_ = nullptr;
};

// Measures each pass run between its before and after hooks (PassTimingReport). Add it last to
// exclude the other instrumentations' time (e.g. verification) from the measurements.
template <typename Unit, typename PassT>
class TimingInstrumentationT : public PassInstrumentationT<Unit, PassT>, public PassTimingReport {
 public:
  explicit TimingInstrumentationT(std::function<absl::Time()> now = absl::Now)
      : PassTimingReport(std::move(now)) {}

  absl::Status RunBeforePass(const PassT& pass, Unit& unit) override;
  absl::Status RunAfterPass(const PassT& pass, Unit& unit, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const PassT& pass, Unit& unit, const absl::Status& status) override;
};

// Sums the passes' statistics and remarks (PassStatisticsReport).
template <typename Unit, typename PassT>
class StatisticsInstrumentationT : public PassInstrumentationT<Unit, PassT>,
                                   public PassStatisticsReport {
 public:
  absl::Status RunAfterPass(const PassT& pass, Unit& unit, const PassContext& ctx,
                            bool changed) override;
};

// Prints the unit around the passes PrintIrOptions selects (pass_reports.h), each dump under its
// header line.
template <typename Unit, typename PassT>
class PrintIrInstrumentationT : public PassInstrumentationT<Unit, PassT> {
 public:
  using Options = PrintIrOptions;

  PrintIrInstrumentationT(std::ostream& os, Options options)
      : os_(os), options_(std::move(options)) {}
  // Print-IR-after-all.
  static std::unique_ptr<PrintIrInstrumentationT> AfterAll(std::ostream& os);
  // Print after the named passes only.
  static std::unique_ptr<PrintIrInstrumentationT> AfterPasses(std::ostream& os,
                                                              std::vector<std::string> passes);

  absl::Status RunBeforePass(const PassT& pass, Unit& unit) override;
  absl::Status RunAfterPass(const PassT& pass, Unit& unit, const PassContext& ctx,
                            bool changed) override;
  void RunAfterPassFailed(const PassT& pass, Unit& unit, const absl::Status& status) override;

  // The text a dump shows; defined by each IR (see the file comment).
  static std::string PrintUnit(const Unit& unit);

 private:
  void Dump(std::string_view header, const Unit& unit);

  std::ostream& os_;
  Options options_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_MANAGER_BASE_H_
