#include "graph/pass_registry.h"

#include <algorithm>
#include <utility>

#include "graph/pass_registry_base.inc"

namespace anvil {

template class PassRegistryT<Pass>;

namespace {

// Constructed on first use: registrations run during other translation units'
// static initialization, in unspecified order.
PassRegistryT<Pass>& Registry() {
  static auto* registry = new PassRegistryT<Pass>("pass", "available passes");
  return *registry;
}

}  // namespace

bool RegisterPass(std::string_view name, PassFactory factory) {
  return Registry().Register(name, std::move(factory));
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(std::string_view name) {
  return Registry().Create(name);
}

std::vector<std::string> PassesEstablishing(std::string_view property) {
  std::vector<std::string> result;
  for (const auto& [name, factory] : Registry().Entries()) {
    std::vector<std::string> established = factory()->Establishes();
    if (std::find(established.begin(), established.end(), property) != established.end()) {
      result.push_back(name);
    }
  }
  return result;
}

bool IsPassRegistered(std::string_view name) { return Registry().IsRegistered(name); }

std::vector<RegisteredPass> ListPasses() { return Registry().List(); }

std::string AvailablePassNames() { return Registry().AvailableNames(); }

}  // namespace anvil
