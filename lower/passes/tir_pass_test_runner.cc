#include "lower/passes/tir_pass_test_runner.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "lower/ir/equal.h"
#include "lower/ir/parser.h"
#include "lower/ir/printer.h"
#include "lower/passes/tir_instrumentation.h"
#include "lower/passes/tir_pass_manager.h"

namespace anvil::tir {
namespace {

// The Tensor IR for RunPassTestCaseWith: modules in their text form, tir::PassManager, and
// results compared up to the renaming of variables (StructurallyEqual: a pass may keep the
// consumer's loop variable `i0.1` where the expected text, parsed afresh, names it `i0`; layout
// in the file does not matter).
class TirPassTestIr final : public PassTestIr {
 public:
  std::string_view unit_name() const override { return "module"; }

  absl::Status ParseInput(std::string_view text) override {
    ANVIL_ASSIGN_OR_RETURN(module_, ParseModule(text));
    return absl::OkStatus();
  }

  absl::Status RunPipeline(std::string_view pipeline) override {
    ANVIL_ASSIGN_OR_RETURN(PassManager manager, PassManager::Parse(pipeline));
    manager.AddInstrumentation(
        std::make_unique<VerifierInstrumentation>(/*verify_unchanged=*/true));
    return manager.Run(*module_);
  }

  std::string PrintResult() const override { return PrintModule(*module_); }

  absl::StatusOr<std::string> ParseExpected(std::string_view text) override {
    ANVIL_ASSIGN_OR_RETURN(expected_, ParseModule(text));
    return PrintModule(*expected_);
  }

  bool EqualsExpected() const override { return StructurallyEqual(*module_, *expected_); }

 private:
  std::optional<Module> module_;
  std::optional<Module> expected_;
};

}  // namespace

absl::Status RunTirPassTestCase(const PassTestCase& c) {
  TirPassTestIr ir;
  return RunPassTestCaseWith(c, ir);
}

std::vector<absl::Status> RunTirPassTestFile(const std::string& path, int* num_cases) {
  return RunPassTestFileWith(path, RunTirPassTestCase, num_cases);
}

}  // namespace anvil::tir
