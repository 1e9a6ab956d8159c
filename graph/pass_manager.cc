#include "graph/pass_manager.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/pass_registry.h"
#include "graph/pipeline_text.h"

namespace anvil {
namespace {

absl::Status Annotate(const absl::Status& status, std::string_view prefix) {
  return absl::Status(status.code(), absl::StrCat(AsAbsl(prefix), status.message()));
}

}  // namespace

PassManager::PassManager() = default;
PassManager::~PassManager() = default;
PassManager::PassManager(PassManager&&) noexcept = default;
PassManager& PassManager::operator=(PassManager&&) noexcept = default;

absl::StatusOr<PassManager> PassManager::Parse(std::string_view pipeline) {
  PassManager manager;
  ANVIL_RETURN_IF_ERROR(manager.AddPipeline(pipeline));
  return manager;
}

absl::Status PassManager::AddPipeline(std::string_view pipeline) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Pass>> created,
                         CreatePipelinePasses<Pass>(pipeline, CreatePass));
  for (auto& pass : created) passes_.push_back(std::move(pass));
  return absl::OkStatus();
}

void PassManager::AddPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

std::string PassManager::ToString() const { return PipelineToText(passes_); }

void PassManager::AssumeProperty(std::string property) {
  assumed_properties_.push_back(std::move(property));
}

absl::Status PassManager::CheckPipelineOrder() const {
  // property -> name of the pass that invalidated it ("" while established).
  std::map<std::string, std::string, std::less<>> state;
  for (const std::string& p : assumed_properties_) state[p] = "";
  for (const auto& pass : passes_) {
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

absl::Status PassManager::Run(Model& model) {
  ANVIL_RETURN_IF_ERROR(CheckPipelineOrder());
  for (auto& inst : instrumentations_) inst->RunBeforePipeline(model);

  absl::Status status;
  for (auto& pass : passes_) {
    for (auto& inst : instrumentations_) {
      absl::Status s = inst->RunBeforePass(*pass, model);
      if (!s.ok()) {
        status = Annotate(s, absl::StrCat("failed before ", AsAbsl(pass->name()), ": "));
        break;
      }
    }
    if (!status.ok()) break;

    PassContext ctx(log_);
    absl::StatusOr<bool> changed = pass->Run(model, ctx);
    if (!changed.ok()) {
      for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
        (*it)->RunAfterPassFailed(*pass, model, changed.status());
      }
      status = Annotate(changed.status(), absl::StrCat("failed in ", AsAbsl(pass->name()), ": "));
      break;
    }
    for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
      absl::Status s = (*it)->RunAfterPass(*pass, model, ctx, *changed);
      if (!s.ok() && status.ok()) {
        status = Annotate(s, absl::StrCat("failed after ", AsAbsl(pass->name()), ": "));
      }
    }
    if (!status.ok()) break;
  }

  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
    (*it)->RunAfterPipeline(model, status);
  }
  return status;
}

}  // namespace anvil
