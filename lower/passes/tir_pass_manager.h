// tir::PassManager: an ordered pipeline of Tensor IR passes (tir_pass.h), built from text or by
// hand, run over a Module with instrumentation hooks (tir_instrumentation.h: timing, verifier,
// print-IR, statistics). It mirrors the graph's PassManager (graph/pass_manager.h): the same
// pipeline syntax, parser and printer (graph/pipeline_text.h), the same hook order and errors.
//
//   ANVIL_ASSIGN_OR_RETURN(tir::PassManager pm,
//                          tir::PassManager::Parse("fuse,tile-rows{tile-bytes=98304}"));
//   pm.AddInstrumentation(std::make_unique<tir::VerifierInstrumentation>());
//   ANVIL_RETURN_IF_ERROR(pm.Run(module));
//
// ToString() prints the canonical text; Parse(ToString()) rebuilds the same pipeline. Parse
// errors are InvalidArgument (syntax with the column, an unknown pass listing the registered
// ones, an unknown option or a bad value naming the pass). Run() stops at the first failure,
// keeping its status code, as `failed in <pass>: <msg>` (the pass returned an error), `failed
// after <pass>: <msg>` (an instrumentation rejected its result, e.g. the verifier) or `failed
// before <pass>: <msg>`.
#ifndef ANVIL_LOWER_PASSES_TIR_PASS_MANAGER_H_
#define ANVIL_LOWER_PASSES_TIR_PASS_MANAGER_H_

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::tir {

// Hooks around pipeline and pass execution, as the graph's PassInstrumentation: "before" hooks
// in the order added, "after" hooks in reverse (the last added wraps the pass most tightly). A
// hook's error stops the pipeline; the remaining "after" hooks of that pass still run.
class PassInstrumentation {
 public:
  virtual ~PassInstrumentation() = default;

  virtual void RunBeforePipeline(Module& module) {}
  virtual void RunAfterPipeline(Module& module, const absl::Status& status) {}
  virtual absl::Status RunBeforePass(const Pass& pass, Module& module) { return absl::OkStatus(); }
  // After a pass succeeded; `ctx` holds its statistics.
  virtual absl::Status RunAfterPass(const Pass& pass, Module& module, const PassContext& ctx,
                                    bool changed) {
    return absl::OkStatus();
  }
  virtual void RunAfterPassFailed(const Pass& pass, Module& module, const absl::Status& status) {}
};

class PassManager {
 public:
  PassManager();
  ~PassManager();
  PassManager(PassManager&&) noexcept;
  PassManager& operator=(PassManager&&) noexcept;

  // Builds a pipeline from text with the Tensor IR registry.
  static absl::StatusOr<PassManager> Parse(std::string_view pipeline);
  // Appends the passes of `pipeline`; on error nothing is appended.
  absl::Status AddPipeline(std::string_view pipeline);
  void AddPass(std::unique_ptr<Pass> pass);
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // Canonical pipeline text, e.g. `fuse,tile-rows{tile-bytes=4096},mark-loops`.
  std::string ToString() const;

  // Takes ownership; returns the instrumentation for later inspection.
  template <typename T>
  T* AddInstrumentation(std::unique_ptr<T> instrumentation) {
    T* raw = instrumentation.get();
    owned_.push_back(std::move(instrumentation));
    instrumentations_.push_back(raw);
    return raw;
  }
  // An instrumentation owned by the caller, which must outlive Run() (a tool that collects one
  // report over several managers).
  void AddExternalInstrumentation(PassInstrumentation* instrumentation) {
    instrumentations_.push_back(instrumentation);
  }

  // Where passes may write debug output (PassContext::log()); nullptr for none.
  void set_log(std::ostream* log) { log_ = log; }

  // Runs the passes in order; see the file comment for errors.
  absl::Status Run(Module& module);

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<std::unique_ptr<PassInstrumentation>> owned_;
  std::vector<PassInstrumentation*> instrumentations_;
  std::ostream* log_ = nullptr;
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_PASSES_TIR_PASS_MANAGER_H_
