#include "lower/passes/tir_pass.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/excerpt.h"
#include "lower/ir/equal.h"

namespace anvil::tir {
namespace {

struct Registry {
  std::mutex mu;
  // Ordered so that listings come out sorted.
  std::map<std::string, PassFactory, std::less<>> factories;
};

// Constructed on first use: registrations run during other translation units' static
// initialization, in unspecified order.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

std::vector<std::pair<std::string, PassFactory>> Entries() {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return {registry.factories.begin(), registry.factories.end()};
}

}  // namespace

bool FunctionChanged(const Function& before, const Function& after) {
  if (before.body.same(after.body) && before.params.size() == after.params.size()) return false;
  return !StructurallyEqual(before, after);
}

bool RegisterPass(std::string_view name, PassFactory factory) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  if (!registry.factories.emplace(std::string(name), std::move(factory)).second) {
    std::fprintf(stderr, "anvil: Tensor IR pass '%.*s' registered twice\n",
                 static_cast<int>(name.size()), name.data());
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
    return absl::NotFoundError(absl::StrCat("unknown Tensor IR pass '", Excerpt(name),
                                            "'; available: ", AvailablePassNames()));
  }
  return factory();
}

bool IsPassRegistered(std::string_view name) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  return registry.factories.find(name) != registry.factories.end();
}

std::vector<RegisteredPass> ListPasses() {
  std::vector<RegisteredPass> result;
  // Factories run outside the lock.
  for (const auto& [name, factory] : Entries()) {
    result.push_back({name, std::string(factory()->description())});
  }
  return result;
}

std::string AvailablePassNames() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : Entries()) names.push_back(name);
  if (names.empty()) return "(none registered)";
  return absl::StrJoin(names, ", ");
}

}  // namespace anvil::tir
