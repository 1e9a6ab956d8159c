// tir::PassManager: an ordered pipeline of Tensor IR passes (tir_pass.h), built from text or by
// hand, run over a Module with instrumentation hooks (tir_instrumentation.h: timing, verifier,
// print-IR, statistics). It is the graph's PassManager (graph/pass_manager.h) over another IR:
// both are graph/pass_manager_base.h's PassManagerBase, with the same pipeline syntax, parser
// and printer (graph/pipeline_text.h), the same hook order and errors.
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

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/pass_manager_base.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil {
extern template class PassManagerBase<tir::Module, tir::Pass>;
}  // namespace anvil

namespace anvil::tir {

// Hooks around pipeline and pass execution, as the graph's PassInstrumentation (their order and
// errors: graph/pass_manager_base.h).
using PassInstrumentation = PassInstrumentationT<Module, Pass>;

// Instrumentations are added owned (AddInstrumentation) or owned by the caller
// (AddExternalInstrumentation: a tool that collects one report over several managers).
class PassManager : public PassManagerBase<Module, Pass> {
 public:
  // An empty pipeline over the Tensor IR registry (tir_pass.h).
  PassManager();

  // Builds a pipeline from text with the Tensor IR registry, e.g.
  // `fuse,tile-rows{tile-bytes=4096},mark-loops`.
  static absl::StatusOr<PassManager> Parse(std::string_view pipeline) {
    return ParseInto<PassManager>(pipeline);
  }
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_PASSES_TIR_PASS_MANAGER_H_
