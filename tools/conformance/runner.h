// The mode-independent half of the conformance runner: verdicts, running a mode's per-test
// function over the in-scope tests (each in its own child process, so that a crash or a hang in
// the code under test is that test's error rather than the end of the run), the summary, the
// per-op breakdown, the report file and the --min-pass / --max-wrong floors.
//
// A mode (shapes_mode.h, later run and fold) supplies a TestFn and a title; everything it prints
// about a test goes into its TestResult.
#ifndef ANVIL_TOOLS_CONFORMANCE_RUNNER_H_
#define ANVIL_TOOLS_CONFORMANCE_RUNNER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "tools/conformance/test_suite.h"

namespace anvil::conformance {

// Ordered from best to worst; a test's verdict is the worst of its parts.
enum class Verdict {
  kPass,     // everything checked is right
  kUnknown,  // nothing wrong, but something was not determined (e.g. a `?` dim)
  kWrong,    // a checked result is wrong
  kError,    // the code under test failed (error status, crash, timeout) or the test is unusable
};

// "pass", "unknown", "wrong", "error": the words of the summary and the report.
std::string_view VerdictName(Verdict verdict);

inline Verdict Worse(Verdict a, Verdict b) { return a > b ? a : b; }

struct TestResult {
  Verdict verdict = Verdict::kPass;
  // One line (newlines are flattened when printed): why the test did not pass, or what passed.
  std::string detail;
  // The ops to blame for a verdict other than pass, when the mode can tell (the node an error
  // names, the node where inference lost information); empty means every op of the model.
  std::vector<std::string> ops;
  // A one-word class of how the test ran (run --backend=tir-eval: "native", "intrinsic",
  // "fallback"); the summary counts the passing tests per tag. Empty: none.
  std::string tag;
  // Figures of the test (shapes: its dims by kind), summed over every test in the summary's
  // `counts:` line. Names are words without '=' or ','.
  std::map<std::string, int64_t> counters;
};

// An error verdict for a test whose step `step` ("import", "test data", ...) failed:
// "<step>: <message>".
TestResult ErrorResult(std::string_view step, const absl::Status& status);

struct RunnerOptions {
  std::string data_root = kDefaultDataRoot;
  // ECMAScript regex searched in the test id ("node/test_abs"); empty runs everything.
  std::string filter;
  // Also print unknown tests and the per-op breakdown.
  bool verbose = false;
  // When set, one line per discovered test: `<folder/test> <verdict> <detail>` (out-of-scope
  // tests as `out-of-scope <reason>`).
  std::string report_path;
  // Exit 1 when fewer tests pass / more are wrong (the floor test's guard).
  std::optional<int64_t> min_pass;
  std::optional<int64_t> max_wrong;
  // Exit 1 when a summed counter is below its floor (--min-bounded=N: "bounded").
  std::map<std::string, int64_t> min_counters;
  // Run each test in a forked child (off: in-process, for debuggers).
  bool isolate = true;
  // Per test, when isolated.
  int timeout_seconds = 60;
  // Isolated tests run at once (each in its own process); ignored without isolation.
  int jobs = 1;
  // The mode's exclusion list: test id (`node/test_abs`) or bare name -> reason. Excluded tests
  // are not run; they are listed (report: `<id> excluded <reason>`) and counted apart from the
  // verdicts, so an exclusion never passes for a pass.
  std::map<std::string, std::string> exclusions;
  // Print the non-passing tests per op even without --verbose (the run mode's breakdown).
  bool op_breakdown = false;
  // Run every test of the suite: the scope rule (OutOfScopeReason) is not applied, so a test
  // whose types or ops Anvil does not handle counts as an error (or unknown), never as skipped.
  bool whole_suite = false;
};

// What a mode does with one in-scope test; `model` is the parsed model.onnx.
using TestFn = std::function<TestResult(const TestCase& test, const onnx::ModelProto& model)>;

// Discovers the suite, applies scope and filter, runs `fn` on each in-scope test and prints:
// the scope count per folder, a line per wrong or error test (and unknown ones with verbose), the
// summary `<title>: N tests: P pass, U unknown, W wrong, E error`, one such line per folder, and
// with verbose the non-passing tests per op (TestResult::ops, else all of the model's ops). Returns
// the process exit code: 0, or 1 when the tool itself failed (unreadable suite or report file) or a
// floor is broken (said on `err`).
int RunSuite(std::string_view title, const RunnerOptions& options, const TestFn& fn,
             std::ostream& out, std::ostream& err);

// Runs `fn` in a forked child and returns its result; a child that crashes, exits without a
// result or runs past `timeout_seconds` gives an error verdict saying so. Exposed for tests.
TestResult RunIsolated(const std::function<TestResult()>& fn, int timeout_seconds);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_RUNNER_H_
