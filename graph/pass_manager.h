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
//
// The manager and the instrumentation hooks are PassManagerBase and
// PassInstrumentationT (pass_manager_base.h: their contracts), the templates the
// Tensor IR's manager instantiates too, here over Model and Pass.
#ifndef ANVIL_GRAPH_PASS_MANAGER_H_
#define ANVIL_GRAPH_PASS_MANAGER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "graph/pass_manager_base.h"

namespace anvil {

// Hooks around pipeline and pass execution; see PassInstrumentationT for the
// order of the hooks and what their errors do.
using PassInstrumentation = PassInstrumentationT<Model, Pass>;

extern template class PassManagerBase<Model, Pass>;

class PassManager : public PassManagerBase<Model, Pass> {
 public:
  // An empty pipeline over the global registry (pass_registry.h).
  PassManager();

  // Builds a pipeline from text using the global registry (see the file
  // comment).
  static absl::StatusOr<PassManager> Parse(std::string_view pipeline) {
    return ParseInto<PassManager>(pipeline);
  }

  // Declares that input models already have `property` (for the Requires()
  // check).
  void AssumeProperty(std::string property);
  // Checks that every pass's Requires() is established by an earlier pass (or
  // assumed) and not invalidated since: `pass 'constprop' requires
  // 'shapes-inferred'; run 'shape-inference' before it`. Run() calls this
  // before touching the model.
  absl::Status CheckPipelineOrder() const;

 protected:
  absl::Status CheckBeforeRun() const override { return CheckPipelineOrder(); }

 private:
  std::vector<std::string> assumed_properties_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_MANAGER_H_
