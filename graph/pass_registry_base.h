// A registry of passes by name, written once for every IR Anvil rewrites: the graph's registry
// (pass_registry.h) and the Tensor IR's (lower/passes/tir_pass.h) are each one PassRegistryT
// over their pass type, behind their own free functions (RegisterPass, CreatePass, ListPasses,
// ...) and registration macro (ANVIL_REGISTER_PASS, ANVIL_REGISTER_TIR_PASS, both built on
// ANVIL_REGISTER_PASS_WITH_ below).
//
// Contract: names are unique (registering a name twice aborts at startup with a message naming
// the pass); listings are sorted by name; every operation is thread-safe, and factories run
// outside the registry's lock (a pass constructor may consult the registry).
//
// Only declarations live here: the member definitions are in pass_registry_base.inc, which only
// the .cc files that explicitly instantiate the registry include (graph/pass_registry.cc,
// lower/passes/tir_pass.cc).
#ifndef ANVIL_GRAPH_PASS_REGISTRY_BASE_H_
#define ANVIL_GRAPH_PASS_REGISTRY_BASE_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace anvil {

// One entry of a listing: a registered pass's name and description().
struct RegisteredPass {
  std::string name;
  std::string description;
};

template <typename PassT>
class PassRegistryT {
 public:
  using Factory = std::function<std::unique_ptr<PassT>()>;

  // `kind` names the passes in messages ("pass", "Tensor IR pass"); `available` introduces the
  // registered names in Create()'s error ("available passes", "available").
  PassRegistryT(std::string kind, std::string available);

  // Registers `factory` under `name`, which must equal the name() of the passes it creates.
  // Returns true (so that it can initialize a static); aborts when `name` is taken.
  bool Register(std::string_view name, Factory factory);
  // A new instance of the pass registered as `name`, options at their defaults; otherwise
  // NotFound `unknown <kind> 'foo'; <available>: a, b, c`.
  absl::StatusOr<std::unique_ptr<PassT>> Create(std::string_view name) const;
  bool IsRegistered(std::string_view name) const;
  // Every registered pass, sorted by name.
  std::vector<RegisteredPass> List() const;
  // "a, b, c": the registered names, sorted, for error messages; "(none registered)".
  std::string AvailableNames() const;
  // A snapshot of the (name, factory) pairs, sorted by name, to run factories outside the lock.
  std::vector<std::pair<std::string, Factory>> Entries() const;

 private:
  const std::string kind_;
  const std::string available_;
  mutable std::mutex mu_;
  // Ordered so that listings come out sorted.
  std::map<std::string, Factory, std::less<>> factories_;
};

namespace pass_internal {
// Registers the default-constructible PassClass with `register_pass` (an IR's RegisterPass)
// under its name(). One throwaway instance supplies the name, so the class states it in one
// place only.
template <typename PassClass, typename PassT>
bool RegisterPassClassWith(bool (*register_pass)(std::string_view,
                                                 std::function<std::unique_ptr<PassT>()>)) {
  std::string name(PassClass().name());
  return register_pass(name, [] { return std::make_unique<PassClass>(); });
}
}  // namespace pass_internal

}  // namespace anvil

#define ANVIL_PASS_CONCAT_INNER_(a, b) a##b
#define ANVIL_PASS_CONCAT_(a, b) ANVIL_PASS_CONCAT_INNER_(a, b)

// What the IRs' registration macros expand to: registers PassClass with `register_pass` during
// static initialization. Use at namespace scope in a .cc file of an `alwayslink = 1` library
// (the linker drops an object file nothing references, and its registrations with it).
#define ANVIL_REGISTER_PASS_WITH_(register_pass, PassClass)                                    \
  [[maybe_unused]] static const bool ANVIL_PASS_CONCAT_(anvil_pass_registered_, __COUNTER__) = \
      ::anvil::pass_internal::RegisterPassClassWith<PassClass>(register_pass)

#endif  // ANVIL_GRAPH_PASS_REGISTRY_BASE_H_
