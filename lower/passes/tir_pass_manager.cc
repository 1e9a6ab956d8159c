#include "lower/passes/tir_pass_manager.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/pipeline_text.h"

namespace anvil::tir {
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

absl::Status PassManager::Run(Module& module) {
  for (PassInstrumentation* inst : instrumentations_) inst->RunBeforePipeline(module);
  absl::Status status;
  for (auto& pass : passes_) {
    for (PassInstrumentation* inst : instrumentations_) {
      absl::Status s = inst->RunBeforePass(*pass, module);
      if (!s.ok()) {
        status = Annotate(s, absl::StrCat("failed before ", AsAbsl(pass->name()), ": "));
        break;
      }
    }
    if (!status.ok()) break;

    PassContext ctx(log_);
    absl::StatusOr<bool> changed = pass->Run(module, ctx);
    if (!changed.ok()) {
      for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
        (*it)->RunAfterPassFailed(*pass, module, changed.status());
      }
      status = Annotate(changed.status(), absl::StrCat("failed in ", AsAbsl(pass->name()), ": "));
      break;
    }
    for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
      absl::Status s = (*it)->RunAfterPass(*pass, module, ctx, *changed);
      if (!s.ok() && status.ok()) {
        status = Annotate(s, absl::StrCat("failed after ", AsAbsl(pass->name()), ": "));
      }
    }
    if (!status.ok()) break;
  }
  for (auto it = instrumentations_.rbegin(); it != instrumentations_.rend(); ++it) {
    (*it)->RunAfterPipeline(module, status);
  }
  return status;
}

}  // namespace anvil::tir
