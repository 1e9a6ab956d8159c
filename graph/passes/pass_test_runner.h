// Runs textual pass tests (in the manner of MLIR's lit tests) kept in
// testdata/<pass>.test.
//
// File format: cases separated by lines `# -----`. Each case is
//
//   # pipeline: dce,cse         the pipeline to run (PassManager syntax)
//   <input model, ONNX text>    (other `#` lines are comments, as in ONNX text)
//   # expected:
//   <expected model, ONNX text>
//
// or, instead of `# expected:` and a model, `# expected-error: <substring>`:
// the pipeline (its parsing or its run) must fail with a message containing the
// substring.
//
// A case passes when the input parses (ParseModelText), the pipeline runs with
// a VerifierInstrumentation that checks the IR after every pass, and PrintModel
// of the result is exactly the expected text normalized by parsing and printing
// it (so spacing and layout in the file do not matter, only the model). A
// failure's message has the file and line of the case, the pipeline, and the
// Input / Output / Expected texts.
//
// The file format, the run of a case and the messages are shared with the
// Tensor IR's pass tests (lower/passes/tir_pass_test_runner.h): an IR plugs in
// its parser, printer and pass manager as a PassTestIr and runs cases with
// RunPassTestCaseWith / RunPassTestFileWith.
#ifndef ANVIL_GRAPH_PASSES_PASS_TEST_RUNNER_H_
#define ANVIL_GRAPH_PASSES_PASS_TEST_RUNNER_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace anvil {

struct PassTestCase {
  std::string file;  // for messages
  int line = 0;      // 1-based line of `# pipeline:` (or where the case starts)
  std::string pipeline;
  std::string input;
  std::optional<std::string> expected;        // model text
  std::optional<std::string> expected_error;  // substring of the error message
};

// Splits a .test file into cases. InvalidArgument (with file:line) when a case
// lacks a pipeline or an expectation, or has text after `# expected-error:`.
absl::StatusOr<std::vector<PassTestCase>> ParsePassTestFile(std::string_view contents,
                                                            std::string_view file_name);

// The IR-specific steps of running one case, which RunPassTestCaseWith drives
// in this order: ParseInput, RunPipeline, PrintResult, then, when the case
// expects IR, ParseExpected and, only when the printed texts differ,
// EqualsExpected. A fresh instance serves one case.
class PassTestIr {
 public:
  virtual ~PassTestIr() = default;

  // What messages call a unit of this IR: "model", "module".
  virtual std::string_view unit_name() const = 0;
  // Parses the case's input into the unit the pipeline runs on.
  virtual absl::Status ParseInput(std::string_view text) = 0;
  // Parses `pipeline` and runs it over the input with a verifier after every
  // pass, changed or not; the parse error or the run's status.
  virtual absl::Status RunPipeline(std::string_view pipeline) = 0;
  // The unit as the pipeline left it, printed.
  virtual std::string PrintResult() const = 0;
  // Parses the expected text and returns it printed (normalized).
  virtual absl::StatusOr<std::string> ParseExpected(std::string_view text) = 0;
  // Whether the result equals the expected unit although their printed texts
  // differ (e.g. up to the renaming of variables); by default it does not.
  virtual bool EqualsExpected() const { return false; }
};

// OK when the case passes; otherwise an error whose message explains the
// mismatch.
absl::Status RunPassTestCase(const PassTestCase& test_case);
// The same with the IR `ir` (RunPassTestCase: the graph's).
absl::Status RunPassTestCaseWith(const PassTestCase& test_case, PassTestIr& ir);

// Where `path` (relative to the workspace root, e.g. "shape/testdata/shape_inference.test") is
// when a Bazel test runs: in its runfiles tree (TEST_SRCDIR/TEST_WORKSPACE), else `path` itself.
std::string WorkspaceFile(std::string_view path);

// Reads `path`, runs every case, and returns the failures (empty: all passed).
// A file that cannot be read or parsed gives one failure.
std::vector<absl::Status> RunPassTestFile(const std::string& path, int* num_cases = nullptr);
// The same, each case run by `run_case` (RunPassTestFile: RunPassTestCase).
std::vector<absl::Status> RunPassTestFileWith(
    const std::string& path, const std::function<absl::Status(const PassTestCase&)>& run_case,
    int* num_cases = nullptr);

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_PASS_TEST_RUNNER_H_
