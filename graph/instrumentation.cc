#include "graph/instrumentation.h"

#include <chrono>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/pass_manager_base.inc"
#include "graph/text_format.h"
#include "graph/verifier.h"

namespace anvil {

template <>
std::string PrintIrInstrumentationT<Model, Pass>::PrintUnit(const Model& model) {
  return PrintModel(model);
}

template class TimingInstrumentationT<Model, Pass>;
template class StatisticsInstrumentationT<Model, Pass>;
template class PrintIrInstrumentationT<Model, Pass>;

absl::Status VerifierInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                   const PassContext& ctx, bool changed) {
  if (!changed && !verify_unchanged_) return absl::OkStatus();
  std::vector<std::string> found;
  ANVIL_RETURN_IF_ERROR(VerifyModel(model, &found));
  for (std::string& warning : found) {
    if (seen_.insert(warning).second) warnings_.push_back(std::move(warning));
  }
  return absl::OkStatus();
}

absl::Status ProgressInstrumentation::RunBeforePass(const Pass& pass, Model& model) {
  start_ = std::chrono::steady_clock::now();
  return absl::OkStatus();
}

absl::Status ProgressInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                   const PassContext& ctx, bool changed) {
  progress_->Report(absl::StrCat("pass ", AsAbsl(pass.name())), std::chrono::steady_clock::now() - start_);
  return absl::OkStatus();
}

}  // namespace anvil
