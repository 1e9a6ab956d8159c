#include "lower/passes/tir_pass_test_runner.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"
#include "lower/ir/equal.h"
#include "lower/ir/parser.h"
#include "lower/ir/printer.h"
#include "lower/passes/tir_instrumentation.h"
#include "lower/passes/tir_pass_manager.h"

namespace anvil::tir {
namespace {

int FirstDifferentLine(const std::string& a, const std::string& b) {
  std::vector<std::string> la = absl::StrSplit(a, '\n');
  std::vector<std::string> lb = absl::StrSplit(b, '\n');
  size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  return static_cast<int>(i) + 1;
}

absl::Status Fail(const PassTestCase& c, std::string_view what, std::string_view output = "",
                  std::string_view expected = "") {
  std::string message = absl::StrCat(c.file, ":", c.line, ": pipeline '", c.pipeline,
                                     "': ", AsAbsl(what), "\n--- Input ---\n", c.input);
  if (!output.empty()) absl::StrAppend(&message, "--- Output ---\n", AsAbsl(output));
  if (!expected.empty()) absl::StrAppend(&message, "--- Expected ---\n", AsAbsl(expected));
  return absl::FailedPreconditionError(message);
}

}  // namespace

absl::Status RunTirPassTestCase(const PassTestCase& c) {
  absl::StatusOr<Module> module = ParseModule(c.input);
  if (!module.ok()) {
    return Fail(c, absl::StrCat("input does not parse: ", module.status().message()));
  }
  absl::Status status;
  absl::StatusOr<PassManager> manager = PassManager::Parse(c.pipeline);
  if (manager.ok()) {
    manager->AddInstrumentation(
        std::make_unique<VerifierInstrumentation>(/*verify_unchanged=*/true));
    status = manager->Run(*module);
  } else {
    status = manager.status();
  }
  const std::string output = PrintModule(*module);

  if (c.expected_error) {
    if (status.ok()) {
      return Fail(c,
                  absl::StrCat("expected an error containing '", *c.expected_error,
                               "' but the pipeline succeeded"),
                  output);
    }
    if (!absl::StrContains(status.message(), *c.expected_error)) {
      return Fail(c, absl::StrCat("expected an error containing '", *c.expected_error,
                                  "', got: ", status.message()));
    }
    return absl::OkStatus();
  }
  if (!status.ok()) return Fail(c, absl::StrCat("pipeline failed: ", status.message()), output);
  absl::StatusOr<Module> expected_module = ParseModule(*c.expected);
  if (!expected_module.ok()) {
    return Fail(
        c, absl::StrCat("expected module does not parse: ", expected_module.status().message()),
        output, *c.expected);
  }
  const std::string expected = PrintModule(*expected_module);
  // Variables are compared up to renaming: a pass may keep the consumer's loop variable `i0.1`
  // where the expected text, parsed afresh, names it `i0`.
  if (output != expected && !StructurallyEqual(*module, *expected_module)) {
    return Fail(c,
                absl::StrCat("output differs from the expected module at line ",
                             FirstDifferentLine(output, expected)),
                output, expected);
  }
  return absl::OkStatus();
}

std::vector<absl::Status> RunTirPassTestFile(const std::string& path, int* num_cases) {
  if (num_cases != nullptr) *num_cases = 0;
  std::ifstream in(path);
  if (!in) return {absl::NotFoundError(absl::StrCat("cannot read ", path))};
  std::stringstream contents;
  contents << in.rdbuf();
  std::string name = path;
  if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  absl::StatusOr<std::vector<PassTestCase>> cases = ParsePassTestFile(contents.str(), name);
  if (!cases.ok()) return {cases.status()};
  if (num_cases != nullptr) *num_cases = static_cast<int>(cases->size());
  std::vector<absl::Status> failures;
  for (const PassTestCase& c : *cases) {
    absl::Status s = RunTirPassTestCase(c);
    if (!s.ok()) failures.push_back(std::move(s));
  }
  return failures;
}

}  // namespace anvil::tir
