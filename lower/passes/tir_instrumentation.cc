#include "lower/passes/tir_instrumentation.h"

#include "absl/strings/str_cat.h"
#include "graph/pass_manager_base.inc"
#include "lower/ir/printer.h"

namespace anvil {

template <>
std::string PrintIrInstrumentationT<tir::Module, tir::Pass>::PrintUnit(const tir::Module& module) {
  return tir::PrintModule(module);
}

template class TimingInstrumentationT<tir::Module, tir::Pass>;
template class StatisticsInstrumentationT<tir::Module, tir::Pass>;
template class PrintIrInstrumentationT<tir::Module, tir::Pass>;

}  // namespace anvil

namespace anvil::tir {

absl::Status VerifierInstrumentation::RunAfterPass(const Pass& pass, Module& module,
                                                   const PassContext& ctx, bool changed) {
  if (!changed && !verify_unchanged_) return absl::OkStatus();
  absl::Status s = VerifyModule(module);
  if (s.ok()) return s;
  return absl::InternalError(absl::StrCat("invalid Tensor IR: ", s.message()));
}

}  // namespace anvil::tir
