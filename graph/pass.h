// The unit of model rewriting: a `Pass` transforms a Model in place and reports
// whether it changed anything. Passes are created by name from the registry
// (pass_registry.h) and sequenced by the PassManager (pass_manager.h), which
// parses textual pipelines such as `dce,cse{foo=1}`.
//
// Contract for pass authors:
//  - name() is a stable kebab-case identifier (pipelines and reports use it),
//    description() a one-line summary for `ListPasses()`.
//  - Options are `PassOption<T>` members (pass_options.h, shared with the
//    Tensor IR's passes), set from text before Run() and constant while the
//    pass runs.
//  - Run() returns true when the model changed and false only when it is
//    untouched (a verifier instrumentation skips unchanged models), or an
//    error, after which the model may be half-rewritten but must still be
//    structurally sound IR (the manager stops the pipeline).
//  - Requires()/Establishes()/Invalidates() name model properties (e.g.
//    "shapes-inferred"); the manager checks a pipeline's order against them
//    before running it.
//  - Passes are neither copyable nor movable (options register their own
//    address with the pass).
#ifndef ANVIL_GRAPH_PASS_H_
#define ANVIL_GRAPH_PASS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass_options.h"

namespace anvil {

class Pass : public PassBase {
 public:
  // Rewrites `model`; true when it changed. See the file comment for the error
  // contract.
  virtual absl::StatusOr<bool> Run(Model& model, PassContext& ctx) = 0;

  // Model properties this pass needs on entry, establishes on success, and
  // destroys. A property stays established through later passes unless one of
  // them lists it in Invalidates().
  virtual std::vector<std::string> Requires() const { return {}; }
  virtual std::vector<std::string> Establishes() const { return {}; }
  virtual std::vector<std::string> Invalidates() const { return {}; }
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASS_H_
