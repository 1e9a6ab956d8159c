#include "graph/instrumentation.h"

#include <string>
#include <utility>

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

}  // namespace anvil
