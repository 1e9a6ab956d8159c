#include "graph/pass_manager.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "graph/pass_manager_base.inc"
#include "graph/pass_registry.h"

namespace anvil {

template class PassManagerBase<Model, Pass>;

PassManager::PassManager() : PassManagerBase(CreatePass) {}

void PassManager::AssumeProperty(std::string property) {
  assumed_properties_.push_back(std::move(property));
}

absl::Status PassManager::CheckPipelineOrder() const {
  // property -> name of the pass that invalidated it ("" while established).
  std::map<std::string, std::string, std::less<>> state;
  for (const std::string& p : assumed_properties_) state[p] = "";
  for (const auto& pass : passes()) {
    for (const std::string& required : pass->Requires()) {
      auto it = state.find(required);
      if (it != state.end() && it->second.empty()) continue;
      std::string message =
          absl::StrCat("pass '", AsAbsl(pass->name()), "' requires '", required, "'");
      if (it != state.end()) absl::StrAppend(&message, " (invalidated by '", it->second, "')");
      std::vector<std::string> providers = PassesEstablishing(required);
      if (providers.empty()) {
        absl::StrAppend(&message, ", which no registered pass establishes");
      } else {
        absl::StrAppend(&message, "; run '", absl::StrJoin(providers, "' or '"), "' before it");
      }
      return absl::FailedPreconditionError(message);
    }
    for (const std::string& p : pass->Invalidates()) {
      auto it = state.find(p);
      if (it != state.end()) it->second = std::string(pass->name());
    }
    for (const std::string& p : pass->Establishes()) state[p] = "";
  }
  return absl::OkStatus();
}

}  // namespace anvil
