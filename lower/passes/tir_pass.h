// The unit of Tensor IR rewriting: a `tir::Pass` transforms a Module in place and reports
// whether it changed anything. Passes are created by name from the Tensor IR's own registry
// (below) and sequenced by tir::PassManager (tir_pass_manager.h), which reads pipelines such as
// `fuse,tile-rows{tile-bytes=98304},plan-buffers` in the graph pipelines' syntax.
//
// A Tensor IR pass is a PassBase (graph/pass_options.h) like a graph pass: a stable kebab-case
// name, a description and typed PassOption<T> members, set from text before Run() and constant
// while it runs; Run() receives the shared PassContext for statistics and remarks. Contract:
//  - Run() returns true when the module changed and false only when it is untouched, or an
//    error, after which the module may be half-rewritten (the manager stops the pipeline).
//  - The passes of lower/passes/ rewrite the entry function (Module::entry); a module without
//    one is left alone.
//  - Registration: ANVIL_REGISTER_TIR_PASS(Class) in the pass's .cc file, in a cc_library with
//    `alwayslink = 1`. The registry is a PassRegistryT (graph/pass_registry_base.h) like the
//    graph's (graph/pass_registry.h), but a separate name space: a graph pipeline cannot name a
//    Tensor IR pass, it runs them through `lower-to-tir{pipeline=}`.
#ifndef ANVIL_LOWER_PASSES_TIR_PASS_H_
#define ANVIL_LOWER_PASSES_TIR_PASS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/pass_options.h"
#include "graph/pass_registry_base.h"
#include "lower/ir/module.h"

namespace anvil::tir {

class Pass : public PassBase {
 public:
  // Rewrites `module`; true when it changed.
  virtual absl::StatusOr<bool> Run(Module& module, PassContext& ctx) = 0;
};

// Whether a pass changed a function: its body is another node and not structurally equal (a
// mutator returns the same node when nothing changed, so this is usually a pointer compare).
bool FunctionChanged(const Function& before, const Function& after);

using PassFactory = PassRegistryT<Pass>::Factory;
using ::anvil::RegisteredPass;

// Registers `factory` under `name`, which must equal the name() of the passes it creates;
// registering a name twice aborts at startup naming the pass. Returns true (to initialize a
// static). Thread-safe.
bool RegisterPass(std::string_view name, PassFactory factory);

// A new instance of the Tensor IR pass registered as `name`, options at their defaults; NotFound
// `unknown Tensor IR pass 'foo'; available: collapse-loops, fuse, ...` otherwise.
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(std::string_view name);

// Every registered Tensor IR pass, sorted by name.
std::vector<RegisteredPass> ListPasses();
// "collapse-loops, fuse, mark-loops": the registered names, sorted, for error messages.
std::string AvailablePassNames();
bool IsPassRegistered(std::string_view name);

}  // namespace anvil::tir

// Registers the default-constructible tir::Pass subclass `PassClass` under its name(). Use at
// namespace scope in a .cc file of an `alwayslink = 1` library.
#define ANVIL_REGISTER_TIR_PASS(PassClass) \
  ANVIL_REGISTER_PASS_WITH_(&::anvil::tir::RegisterPass, PassClass)

#endif  // ANVIL_LOWER_PASSES_TIR_PASS_H_
