#include "graph/instrumentation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/text_format.h"
#include "graph/verifier.h"

namespace anvil {

// ---- TimingInstrumentation ----

absl::Status TimingInstrumentation::RunBeforePass(const Pass& pass, Model& model) {
  Start();
  return absl::OkStatus();
}

absl::Status TimingInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                 const PassContext& ctx, bool changed) {
  Record(pass, changed, /*failed=*/false);
  return absl::OkStatus();
}

void TimingInstrumentation::RunAfterPassFailed(const Pass& pass, Model& model,
                                               const absl::Status& status) {
  Record(pass, /*changed=*/false, /*failed=*/true);
}

// ---- VerifierInstrumentation ----

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

// ---- PrintIrInstrumentation ----

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterAll(std::ostream& os) {
  Options options;
  options.after_all = true;
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterPasses(
    std::ostream& os, std::vector<std::string> passes) {
  Options options;
  options.after = std::move(passes);
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

absl::Status PrintIrInstrumentation::RunBeforePass(const Pass& pass, Model& model) {
  if (options_.PrintsBefore(pass.name())) {
    Dump(absl::StrCat("// ----- IR before ", AsAbsl(pass.name()), " -----"), model);
  }
  return absl::OkStatus();
}

absl::Status PrintIrInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                  const PassContext& ctx, bool changed) {
  if (options_.PrintsAfter(pass.name()) && (changed || !options_.only_if_changed)) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " -----"), model);
  }
  return absl::OkStatus();
}

void PrintIrInstrumentation::RunAfterPassFailed(const Pass& pass, Model& model,
                                                const absl::Status& status) {
  if (options_.after_failure && options_.PrintsAfter(pass.name())) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " (failed) -----"), model);
  }
}

void PrintIrInstrumentation::Dump(std::string_view header, const Model& model) {
  std::string text = PrintModel(model);
  os_ << header << "\n" << text;
  if (text.empty() || text.back() != '\n') os_ << "\n";
}

// ---- StatisticsInstrumentation ----

absl::Status StatisticsInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                     const PassContext& ctx, bool changed) {
  Add(pass, ctx);
  return absl::OkStatus();
}

}  // namespace anvil
