#include "lower/passes/tir_pass.h"

#include <utility>

#include "graph/pass_registry_base.inc"
#include "lower/ir/equal.h"

namespace anvil {
template class PassRegistryT<tir::Pass>;
}  // namespace anvil

namespace anvil::tir {
namespace {

// Constructed on first use: registrations run during other translation units' static
// initialization, in unspecified order.
PassRegistryT<Pass>& Registry() {
  static auto* registry = new PassRegistryT<Pass>("Tensor IR pass", "available");
  return *registry;
}

}  // namespace

bool FunctionChanged(const Function& before, const Function& after) {
  if (before.body.same(after.body) && before.params.size() == after.params.size()) return false;
  return !StructurallyEqual(before, after);
}

bool RegisterPass(std::string_view name, PassFactory factory) {
  return Registry().Register(name, std::move(factory));
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(std::string_view name) {
  return Registry().Create(name);
}

std::vector<RegisteredPass> ListPasses() { return Registry().List(); }

std::string AvailablePassNames() { return Registry().AvailableNames(); }

bool IsPassRegistered(std::string_view name) { return Registry().IsRegistered(name); }

}  // namespace anvil::tir
