// Runs textual tests of Tensor IR passes kept in lower/passes/testdata/<pass>.test: Tensor IR
// in, pipeline, Tensor IR out. The file format, the run of a case and the messages are the graph
// pass tests' (graph/passes/pass_test_runner.h, RunPassTestCaseWith with a PassTestIr), with
// Tensor IR (lower/ir/parser.h) instead of ONNX text:
//
//   # pipeline: fuse,mark-loops      a Tensor IR pipeline (tir_pass_manager.h)
//   module { ... }                   the input module (`#` lines are comments)
//   # expected:
//   module { ... }                   the expected module
//   # -----                          between cases
//
// or `# expected-error: <substring>` instead of `# expected:` and a module. A case passes when
// the input parses, the pipeline runs with the verifier after every pass, and the result equals
// the expected module up to the renaming of variables (tir::StructurallyEqual; layout in the
// file does not matter). A failure names the file and line of the case and shows Input / Output /
// Expected.
#ifndef ANVIL_LOWER_PASSES_TIR_PASS_TEST_RUNNER_H_
#define ANVIL_LOWER_PASSES_TIR_PASS_TEST_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/passes/pass_test_runner.h"

namespace anvil::tir {

// OK when the case passes; otherwise an error explaining the mismatch.
absl::Status RunTirPassTestCase(const PassTestCase& test_case);

// Reads `path`, runs every case and returns the failures (empty: all passed). A file that cannot
// be read or split gives one failure.
std::vector<absl::Status> RunTirPassTestFile(const std::string& path, int* num_cases = nullptr);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_PASSES_TIR_PASS_TEST_RUNNER_H_
