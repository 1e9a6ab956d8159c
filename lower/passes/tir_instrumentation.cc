#include "lower/passes/tir_instrumentation.h"

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "lower/ir/printer.h"

namespace anvil::tir {

// ---- TimingInstrumentation ----

absl::Status TimingInstrumentation::RunBeforePass(const Pass& pass, Module& module) {
  Start();
  return absl::OkStatus();
}

absl::Status TimingInstrumentation::RunAfterPass(const Pass& pass, Module& module,
                                                 const PassContext& ctx, bool changed) {
  Record(pass, changed, /*failed=*/false);
  return absl::OkStatus();
}

void TimingInstrumentation::RunAfterPassFailed(const Pass& pass, Module& module,
                                               const absl::Status& status) {
  Record(pass, /*changed=*/false, /*failed=*/true);
}

// ---- VerifierInstrumentation ----

absl::Status VerifierInstrumentation::RunAfterPass(const Pass& pass, Module& module,
                                                   const PassContext& ctx, bool changed) {
  if (!changed && !verify_unchanged_) return absl::OkStatus();
  absl::Status s = VerifyModule(module);
  if (s.ok()) return s;
  return absl::InternalError(absl::StrCat("invalid Tensor IR: ", s.message()));
}

// ---- PrintIrInstrumentation ----

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterAll(std::ostream& os) {
  PrintIrOptions options;
  options.after_all = true;
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterPasses(
    std::ostream& os, std::vector<std::string> passes) {
  PrintIrOptions options;
  options.after = std::move(passes);
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

absl::Status PrintIrInstrumentation::RunBeforePass(const Pass& pass, Module& module) {
  if (options_.PrintsBefore(pass.name())) {
    Dump(absl::StrCat("// ----- IR before ", AsAbsl(pass.name()), " -----"), module);
  }
  return absl::OkStatus();
}

absl::Status PrintIrInstrumentation::RunAfterPass(const Pass& pass, Module& module,
                                                  const PassContext& ctx, bool changed) {
  if (options_.PrintsAfter(pass.name()) && (changed || !options_.only_if_changed)) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " -----"), module);
  }
  return absl::OkStatus();
}

void PrintIrInstrumentation::RunAfterPassFailed(const Pass& pass, Module& module,
                                                const absl::Status& status) {
  if (options_.after_failure && options_.PrintsAfter(pass.name())) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " (failed) -----"), module);
  }
}

void PrintIrInstrumentation::Dump(std::string_view header, const Module& module) {
  std::string text = PrintModule(module);
  os_ << header << "\n" << text;
  if (text.empty() || text.back() != '\n') os_ << "\n";
}

// ---- StatisticsInstrumentation ----

absl::Status StatisticsInstrumentation::RunAfterPass(const Pass& pass, Module& module,
                                                     const PassContext& ctx, bool changed) {
  Add(pass, ctx);
  return absl::OkStatus();
}

}  // namespace anvil::tir
