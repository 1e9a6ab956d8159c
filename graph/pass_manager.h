// PassManager: an ordered pipeline of passes, built from text or by hand, run
// over a Model with pluggable instrumentation (timing, verification, IR
// printing, statistics, ... see instrumentation.h).
//
// Pipeline text, e.g. `dce,constprop{max-expansion=4}`, is parsed and printed by
// pipeline_text.h (shared with the Tensor IR's pass manager); ToString() prints the
// canonical form, and Parse(ToString()) rebuilds the same pipeline.
//
// Errors (all InvalidArgument): `unknown pass 'foo'; available passes: cse,
// dce, topo-sort`; unknown options or badly typed values name the pass and list
// its options; syntax errors give the 1-based column and echo the text with a
// caret.
//
// Run() stops at the first failure and reports it, keeping the original status
// code, as
//   `failed in <pass>: <msg>`      the pass returned an error;
//   `failed after <pass>: <msg>`   an instrumentation rejected the result
//                                  (e.g. the verifier);
//   `failed before <pass>: <msg>`  an instrumentation refused to start it.
// The model is then left as the failing step produced it.
#ifndef ANVIL_GRAPH_PASS_MANAGER_H_
#define ANVIL_GRAPH_PASS_MANAGER_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

// Hooks around pipeline and pass execution, in the manner of MLIR's
// PassInstrumentation. Ordering: "before" hooks run in the order
// instrumentations were added, "after" hooks (including RunAfterPassFailed and
// RunAfterPipeline) in reverse order, so instrumentations nest like brackets:
// the last one added wraps the pass most tightly (add a timer last to keep the
// other instrumentations' work out of its measurements).
//
// A hook that returns an error stops the pipeline; the remaining "after" hooks
// of the same pass still run (so a timer still records the pass and a printer
// can still show the IR), and the first error is reported. Hooks must not add
// or remove passes.
class PassInstrumentation {
 public:
  virtual ~PassInstrumentation() = default;

  // Once per Run(), around all passes. `status` is what Run() is about to
  // return.
  virtual void RunBeforePipeline(Model& model) {}
  virtual void RunAfterPipeline(Model& model, const absl::Status& status) {}

  // Before a pass runs. An error skips the pass, and all after-hooks of it, and
  // fails the run with `failed before <pass>: <msg>`.
  virtual absl::Status RunBeforePass(const Pass& pass, Model& model) { return absl::OkStatus(); }
  // After a pass succeeded; `ctx` holds its statistics. An error fails the run
  // with `failed after <pass>: <msg>`.
  virtual absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                                    bool changed) {
    return absl::OkStatus();
  }
  // After a pass returned an error (the run then fails with `failed in <pass>:
  // <msg>`).
  virtual void RunAfterPassFailed(const Pass& pass, Model& model, const absl::Status& status) {}
};

class PassManager {
 public:
  PassManager();
  ~PassManager();
  PassManager(PassManager&&) noexcept;
  PassManager& operator=(PassManager&&) noexcept;

  // Builds a pipeline from text using the global registry (see the file
  // comment).
  static absl::StatusOr<PassManager> Parse(std::string_view pipeline);
  // Appends the passes of `pipeline`; on error nothing is appended.
  absl::Status AddPipeline(std::string_view pipeline);
  void AddPass(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // Canonical pipeline text, e.g. `dce,constprop{max-expansion=8},topo-sort`.
  std::string ToString() const;

  // Takes ownership; returns the instrumentation for later inspection
  // (reports).
  template <typename T>
  T* AddInstrumentation(std::unique_ptr<T> instrumentation) {
    T* raw = instrumentation.get();
    instrumentations_.push_back(std::move(instrumentation));
    return raw;
  }

  // Where passes may write debug output (PassContext::log()); nullptr (default)
  // for none.
  void set_log(std::ostream* log) { log_ = log; }

  // Declares that input models already have `property` (for the Requires()
  // check).
  void AssumeProperty(std::string property);
  // Checks that every pass's Requires() is established by an earlier pass (or
  // assumed) and not invalidated since: `pass 'constprop' requires
  // 'shapes-inferred'; run 'shape-inference' before it`. Run() calls this
  // before touching the model.
  absl::Status CheckPipelineOrder() const;

  // Runs the passes in order; see the file comment for errors.
  absl::Status Run(Model& model);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<std::unique_ptr<PassInstrumentation>> instrumentations_;
  std::vector<std::string> assumed_properties_;
  std::ostream* log_ = nullptr;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_MANAGER_H_
