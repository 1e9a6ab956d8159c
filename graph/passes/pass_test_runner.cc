#include "graph/passes/pass_test_runner.h"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/instrumentation.h"
#include "graph/ir.h"
#include "graph/pass_manager.h"
#include "graph/text_format.h"

namespace anvil {
namespace {

constexpr std::string_view kSeparator = "# -----";
constexpr std::string_view kPipeline = "# pipeline:";
constexpr std::string_view kExpected = "# expected:";
constexpr std::string_view kExpectedError = "# expected-error:";

std::string Trim(std::string_view s) { return std::string(absl::StripAsciiWhitespace(AsAbsl(s))); }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string Location(const PassTestCase& c) { return absl::StrCat(c.file, ":", c.line); }

// Index (1-based) of the first line where `a` and `b` differ.
int FirstDifferentLine(const std::string& a, const std::string& b) {
  std::vector<std::string> la = absl::StrSplit(a, '\n');
  std::vector<std::string> lb = absl::StrSplit(b, '\n');
  size_t i = 0;
  while (i < la.size() && i < lb.size() && la[i] == lb[i]) ++i;
  return static_cast<int>(i) + 1;
}

absl::Status Fail(const PassTestCase& c, std::string_view what, std::string_view output = "",
                  std::string_view expected = "") {
  std::string message = absl::StrCat(Location(c), ": pipeline '", c.pipeline, "': ", AsAbsl(what),
                                     "\n--- Input ---\n", c.input);
  if (!output.empty()) absl::StrAppend(&message, "--- Output ---\n", AsAbsl(output));
  if (!expected.empty()) absl::StrAppend(&message, "--- Expected ---\n", AsAbsl(expected));
  return absl::FailedPreconditionError(message);
}

// The graph's IR for RunPassTestCaseWith: ONNX text, PassManager.
class GraphPassTestIr final : public PassTestIr {
 public:
  std::string_view unit_name() const override { return "model"; }
  absl::Status ParseInput(std::string_view text) override {
    ANVIL_ASSIGN_OR_RETURN(model_, ParseModelText(text));
    return absl::OkStatus();
  }
  absl::Status RunPipeline(std::string_view pipeline) override {
    ANVIL_ASSIGN_OR_RETURN(PassManager manager, PassManager::Parse(pipeline));
    manager.AddInstrumentation(
        std::make_unique<VerifierInstrumentation>(/*verify_unchanged=*/true));
    return manager.Run(*model_);
  }
  std::string PrintResult() const override { return PrintModel(*model_); }
  absl::StatusOr<std::string> ParseExpected(std::string_view text) override {
    ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> expected, ParseModelText(text));
    return PrintModel(*expected);
  }

 private:
  std::unique_ptr<Model> model_;
};

}  // namespace

absl::StatusOr<std::vector<PassTestCase>> ParsePassTestFile(std::string_view contents,
                                                            std::string_view file_name) {
  enum class Section { kInput, kExpected, kAfterError };
  std::vector<PassTestCase> cases;
  PassTestCase current;
  Section section = Section::kInput;
  bool has_content = false;

  auto error = [&](int line, std::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(AsAbsl(file_name), ":", line, ": ", AsAbsl(what)));
  };
  auto finish = [&]() -> absl::Status {
    if (!has_content) return absl::OkStatus();  // blank lines and comments only
    if (current.pipeline.empty()) return error(current.line, "case has no '# pipeline:' line");
    if (!current.expected && !current.expected_error) {
      return error(current.line, "case has neither '# expected:' nor '# expected-error:'");
    }
    cases.push_back(std::move(current));
    return absl::OkStatus();
  };
  auto start = [&](int line) {
    current = PassTestCase();
    current.file = std::string(file_name);
    current.line = line;
    section = Section::kInput;
    has_content = false;
  };

  std::vector<std::string> lines = absl::StrSplit(AsAbsl(contents), '\n');
  start(1);
  for (size_t i = 0; i < lines.size(); ++i) {
    const int line_number = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    const std::string trimmed = Trim(line);
    if (trimmed == kSeparator) {
      ANVIL_RETURN_IF_ERROR(finish());
      start(line_number + 1);
      continue;
    }
    // Comments alone (e.g. a file header) do not make a case.
    if (!trimmed.empty() && trimmed[0] != '#') has_content = true;
    if (StartsWith(trimmed, kPipeline) || StartsWith(trimmed, kExpected)) has_content = true;
    if (StartsWith(trimmed, kPipeline)) {
      if (section != Section::kInput || !current.pipeline.empty()) {
        return error(line_number, "unexpected '# pipeline:' line");
      }
      current.pipeline = Trim(std::string_view(trimmed).substr(kPipeline.size()));
      current.line = line_number;  // cases are reported by their pipeline line
      if (current.pipeline.empty()) return error(line_number, "empty pipeline");
      continue;
    }
    if (StartsWith(trimmed, kExpectedError)) {
      if (section != Section::kInput) {
        return error(line_number, "unexpected '# expected-error:' line");
      }
      current.expected_error = Trim(std::string_view(trimmed).substr(kExpectedError.size()));
      section = Section::kAfterError;
      continue;
    }
    if (StartsWith(trimmed, kExpected)) {
      if (section != Section::kInput) return error(line_number, "unexpected '# expected:' line");
      if (!Trim(std::string_view(trimmed).substr(kExpected.size())).empty()) {
        return error(line_number, "the expected model goes on the lines after '# expected:'");
      }
      current.expected = "";
      section = Section::kExpected;
      continue;
    }
    switch (section) {
      case Section::kInput:
        absl::StrAppend(&current.input, line, "\n");
        break;
      case Section::kExpected:
        absl::StrAppend(&*current.expected, line, "\n");
        break;
      case Section::kAfterError:
        if (!trimmed.empty() && trimmed[0] != '#') {
          return error(line_number, "text after '# expected-error:' (use '# -----' first)");
        }
        break;
    }
  }
  ANVIL_RETURN_IF_ERROR(finish());
  return cases;
}

absl::Status RunPassTestCaseWith(const PassTestCase& c, PassTestIr& ir) {
  if (absl::Status parsed = ir.ParseInput(c.input); !parsed.ok()) {
    return Fail(c, absl::StrCat("input does not parse: ", parsed.message()));
  }
  const absl::Status status = ir.RunPipeline(c.pipeline);
  const std::string output = ir.PrintResult();

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
  const std::string unit(ir.unit_name());
  absl::StatusOr<std::string> expected = ir.ParseExpected(*c.expected);
  if (!expected.ok()) {
    return Fail(c,
                absl::StrCat("expected ", unit, " does not parse: ", expected.status().message()),
                output, *c.expected);
  }
  if (output != *expected && !ir.EqualsExpected()) {
    return Fail(c,
                absl::StrCat("output differs from the expected ", unit, " at line ",
                             FirstDifferentLine(output, *expected)),
                output, *expected);
  }
  return absl::OkStatus();
}

absl::Status RunPassTestCase(const PassTestCase& c) {
  GraphPassTestIr ir;
  return RunPassTestCaseWith(c, ir);
}

std::string WorkspaceFile(std::string_view path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return std::string(path);
  return absl::StrCat(srcdir, "/", workspace, "/", AsAbsl(path));
}

std::vector<absl::Status> RunPassTestFile(const std::string& path, int* num_cases) {
  return RunPassTestFileWith(path, RunPassTestCase, num_cases);
}

std::vector<absl::Status> RunPassTestFileWith(
    const std::string& path, const std::function<absl::Status(const PassTestCase&)>& run_case,
    int* num_cases) {
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
    absl::Status s = run_case(c);
    if (!s.ok()) failures.push_back(std::move(s));
  }
  return failures;
}

}  // namespace anvil
