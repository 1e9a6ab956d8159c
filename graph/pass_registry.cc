#include "graph/pass_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"

namespace anvil {
namespace {

struct Registry {
  std::mutex mu;
  // Ordered so that listings come out sorted.
  std::map<std::string, PassFactory, std::less<>> factories;
};

// A function-local static: registrations run during static initialization of
// other translation units, in unspecified order, so the map must be constructed
// on first use.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

bool RegisterPass(std::string_view name, PassFactory factory) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto [it, inserted] = registry.factories.emplace(std::string(name), std::move(factory));
  if (!inserted) {
    std::fprintf(stderr, "anvil: pass '%.*s' registered twice\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
  return true;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(std::string_view name) {
  PassFactory factory;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    auto it = registry.factories.find(name);
    if (it != registry.factories.end()) factory = it->second;
  }
  if (!factory) {
    return absl::NotFoundError(absl::StrCat("unknown pass '", Excerpt(name),
                                            "'; available passes: ", AvailablePassNames()));
  }
  return factory();
}

bool IsPassRegistered(std::string_view name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return registry.factories.find(name) != registry.factories.end();
}

std::vector<RegisteredPass> ListPasses() {
  std::vector<std::pair<std::string, PassFactory>> entries;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    entries.assign(registry.factories.begin(), registry.factories.end());
  }
  // Factories run outside the lock: a pass constructor may itself consult the
  // registry.
  std::vector<RegisteredPass> result;
  for (const auto& [name, factory] : entries) {
    std::unique_ptr<Pass> pass = factory();
    result.push_back({name, std::string(pass->description())});
  }
  return result;
}

std::vector<std::string> PassesEstablishing(std::string_view property) {
  std::vector<std::pair<std::string, PassFactory>> entries;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    entries.assign(registry.factories.begin(), registry.factories.end());
  }
  std::vector<std::string> result;
  for (const auto& [name, factory] : entries) {
    std::vector<std::string> established = factory()->Establishes();
    if (std::find(established.begin(), established.end(), property) != established.end()) {
      result.push_back(name);
    }
  }
  return result;
}

std::string AvailablePassNames() {
  std::vector<std::string> names;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    for (const auto& [name, factory] : registry.factories) names.push_back(name);
  }
  if (names.empty()) return "(none registered)";
  return absl::StrJoin(names, ", ");
}

}  // namespace anvil
