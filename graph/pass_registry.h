// The global pass registry: maps a pass name to a factory so that pipelines can
// be written as text (`dce,cse`) and tools can list what is available.
//
// Registration normally happens during static initialization through
// ANVIL_REGISTER_PASS in the pass's .cc file. The linker drops an object file
// nothing references, and with it the registration, so every cc_library that
// registers passes must set `alwayslink = 1`.
//
// Registering the same name twice is a programming error and aborts at startup
// with a message naming the pass. The registry is safe to use from several
// threads. It is a PassRegistryT (pass_registry_base.h), the registry the
// Tensor IR's passes use too.
#ifndef ANVIL_GRAPH_PASS_REGISTRY_H_
#define ANVIL_GRAPH_PASS_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/pass.h"
#include "graph/pass_registry_base.h"

namespace anvil {

using PassFactory = PassRegistryT<Pass>::Factory;

// Registers `factory` under `name`, which must equal the name() of the passes
// it creates. Returns true (so that it can initialize a static).
bool RegisterPass(std::string_view name, PassFactory factory);

// A new instance of the pass registered as `name`, options at their defaults.
// NotFound error `unknown pass 'foo'; available passes: cse, dce, topo-sort`
// otherwise.
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(std::string_view name);

bool IsPassRegistered(std::string_view name);

// Every registered pass (RegisteredPass: name, description), sorted by name.
std::vector<RegisteredPass> ListPasses();

// "cse, dce, topo-sort": the registered names, sorted, for error messages.
std::string AvailablePassNames();

// Names of the registered passes whose Establishes() lists `property`, sorted.
std::vector<std::string> PassesEstablishing(std::string_view property);

namespace pass_internal {
// Registers the default-constructible Pass subclass PassT under its name().
template <typename PassT>
bool RegisterPassClass() {
  return RegisterPassClassWith<PassT>(&RegisterPass);
}
}  // namespace pass_internal

}  // namespace anvil

// Registers the default-constructible Pass subclass `PassClass` (qualified
// names are fine) under its name(). Use at namespace scope in a .cc file of an
// `alwayslink = 1` library.
#define ANVIL_REGISTER_PASS(PassClass) ANVIL_REGISTER_PASS_WITH_(&::anvil::RegisterPass, PassClass)

#endif  // ANVIL_GRAPH_PASS_REGISTRY_H_
