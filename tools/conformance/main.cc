// conformance: runs Anvil against the ONNX backend test suite (../shared/docs/TESTING.md).
//
//   conformance MODE [mode options] [--filter=REGEX] [--verbose] [--report=FILE]
//               [--min-pass=N] [--max-wrong=N] [--data-root=DIR] [--no-fork] [--timeout=SECONDS]
//               [--jobs=N]
//
// Modes: `shapes` (shapes_mode.h), `run` (run_mode.h), `fold` (fold_mode.h). Verdicts are data: the
// exit code is 0 whatever they are, except that --min-pass / --max-wrong make a run below / above
// them exit 1 (the floor test's guard). A tool failure is exit 1 and a command-line mistake exit 2,
// each with one line `conformance: error: ...` on stderr.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "tools/command_line.h"
#include "tools/conformance/fold_mode.h"
#include "tools/conformance/run_mode.h"
#include "tools/conformance/runner.h"
#include "tools/conformance/shapes_mode.h"

namespace anvil::conformance {
namespace {

constexpr char kUsage[] = R"(usage: conformance MODE [options]

Runs Anvil against the ONNX backend test suite and prints a verdict summary: the in-scope tests
(tools/conformance/test_suite.h states the scope rule), or with --whole-suite all of them.

modes:
  shapes [--dynamic] [--int-inputs-const]
      shape inference from the input shapes alone, compared with the recorded output shapes;
      --dynamic makes every input dim a symbol, --int-inputs-const makes integer inputs
      constants holding the test's values
  fold [--pipeline=P] [--rtol=X] [--atol=X]
      every graph input made a constant holding the test's input; after constant propagation
      every output must be a constant equal to the recorded one (random-op tests excluded)
  run [--backend=session|reference|tir-eval|compiled] [--dynamic] [--threads=N]
      [--exclusions=FILE | --no-exclusions]
      [--rtol=X] [--atol=X]
      runs each model on its inputs and compares every output with the recorded one (floats
      within atol + rtol*|expected|, default rtol 1e-3, atol 1e-7; integers exactly); prints the
      non-passing tests per op; tests in tools/conformance/run_exclusions.txt are not run;
      --dynamic declares every input dim a symbol (code made for any dims, run on the test's)

options:
  --whole-suite      every test of the suite, the scope rule off: strings, sequences,
                     optionals and training ops run too (what Anvil lacks is an error)
  --filter=REGEX     only tests whose id (e.g. node/test_abs) matches REGEX
  --verbose          also list unknown tests and the non-passing tests per op
  --report=FILE      write one line per test: <folder/test> <verdict> <detail>
  --min-pass=N       exit 1 when fewer than N tests pass
  --max-wrong=N      exit 1 when more than N tests are wrong
  --min-bounded=N    exit 1 when fewer than N dims are symbols with a finite upper bound
                     (shapes: the `counts:` line sums every value's dims by kind)
  --data-root=DIR    the suite (default /usr/include/onnx/backend/test/data)
  --no-fork          run tests in-process (for debuggers; a crash ends the run)
  --timeout=SECONDS  per-test limit when forked (default 60; 0: none)
  --jobs=N           forked tests run at once (default: the machine's cores); the output and
                     verdicts do not depend on it
  --help             show this text
)";

// A mode: its flags are handed over as written; the common ones are parsed here.
struct Mode {
  const char* name;
  // Parses the mode's flags and returns the title and per-test function, or InvalidArgument.
  // A mode may also set runner options of its own (the run mode's exclusions).
  std::function<absl::StatusOr<std::pair<std::string, TestFn>>(const std::vector<std::string>&,
                                                               RunnerOptions&)>
      setup;
};

std::vector<Mode> Modes() {
  return {
      {"shapes",
       [](const std::vector<std::string>& flags,
          RunnerOptions&) -> absl::StatusOr<std::pair<std::string, TestFn>> {
         absl::StatusOr<ShapesOptions> options = ParseShapesFlags(flags);
         if (!options.ok()) return options.status();
         TestFn fn = [options = *options](const TestCase& test, const onnx::ModelProto& model) {
           return RunShapesTest(test, model, options);
         };
         return std::make_pair(ShapesTitle(*options), std::move(fn));
       }},
      {"run",
       [](const std::vector<std::string>& flags,
          RunnerOptions& runner) -> absl::StatusOr<std::pair<std::string, TestFn>> {
         absl::StatusOr<RunModeOptions> options = ParseRunFlags(flags);
         if (!options.ok()) return options.status();
         absl::StatusOr<std::map<std::string, std::string>> exclusions = LoadExclusions(*options);
         if (!exclusions.ok()) return exclusions.status();
         runner.exclusions = *std::move(exclusions);
         runner.op_breakdown = true;
         TestFn fn = [options = *options](const TestCase& test, const onnx::ModelProto& model) {
           return RunRunTest(test, model, options);
         };
         return std::make_pair(RunTitle(*options), std::move(fn));
       }},
      {"fold",
       [](const std::vector<std::string>& flags,
          RunnerOptions& runner) -> absl::StatusOr<std::pair<std::string, TestFn>> {
         absl::StatusOr<FoldModeOptions> options = ParseFoldFlags(flags);
         if (!options.ok()) return options.status();
         ANVIL_ASSIGN_OR_RETURN(std::vector<TestCase> tests, DiscoverTests(runner.data_root));
         // Random-op tests, plus the run list's exclusions (its reasons concern the recorded
         // data, which folding is compared with too).
         runner.exclusions = FoldExclusions(tests);
         absl::StatusOr<std::map<std::string, std::string>> data_exclusions =
             LoadExclusions(RunModeOptions{});
         if (!data_exclusions.ok()) return data_exclusions.status();
         runner.exclusions.insert(data_exclusions->begin(), data_exclusions->end());
         runner.op_breakdown = true;
         TestFn fn = [options = *options](const TestCase& test, const onnx::ModelProto& model) {
           return RunFoldTest(test, model, options);
         };
         return std::make_pair(absl::StrCat("fold (", options->pipeline, ")"), std::move(fn));
       }},
  };
}

int UsageError(const std::string& message) {
  std::cerr << "conformance: error: " << message << "\n";
  return 2;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  std::vector<std::string> mode_names;
  for (const Mode& m : Modes()) mode_names.push_back(m.name);
  if (args.empty() || args[0].rfind("-", 0) == 0) {
    return UsageError(
        absl::StrCat("expected a mode first (", absl::StrJoin(mode_names, ", "), "); see --help"));
  }
  const Mode* mode = nullptr;
  std::vector<Mode> modes = Modes();
  for (const Mode& m : modes) {
    if (args[0] == m.name) mode = &m;
  }
  if (mode == nullptr) {
    return UsageError(absl::StrCat("unknown mode '", args[0],
                                   "'; available modes: ", absl::StrJoin(mode_names, ", ")));
  }

  RunnerOptions options;
  options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> mode_flags;
  CommandLine line(argc - 1, argv + 1);  // after the mode
  auto parse = [&]() -> absl::Status {
    while (line.Next()) {
      const std::string& key = line.key();
      if (key == "--filter") {
        ANVIL_ASSIGN_OR_RETURN(options.filter, line.Value());
        try {
          std::regex check(options.filter, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
          return absl::InvalidArgumentError(
              absl::StrCat("bad --filter regex '", options.filter, "': ", e.what()));
        }
      } else if (key == "--report") {
        ANVIL_ASSIGN_OR_RETURN(options.report_path, line.Path());
      } else if (key == "--data-root") {
        ANVIL_ASSIGN_OR_RETURN(options.data_root, line.Path());
      } else if (key == "--min-pass") {
        ANVIL_ASSIGN_OR_RETURN(options.min_pass, line.Count(0));
      } else if (key == "--max-wrong") {
        ANVIL_ASSIGN_OR_RETURN(options.max_wrong, line.Count(0));
      } else if (key == "--min-bounded") {
        ANVIL_ASSIGN_OR_RETURN(options.min_counters["bounded"], line.Count(0));
      } else if (key == "--timeout") {
        ANVIL_ASSIGN_OR_RETURN(const int64_t seconds, line.Count(0));
        options.timeout_seconds = static_cast<int>(seconds);
      } else if (key == "--jobs") {
        ANVIL_ASSIGN_OR_RETURN(const int64_t jobs, line.Count(1));
        options.jobs = static_cast<int>(std::min<int64_t>(jobs, 256));
      } else if (key == "--verbose") {
        ANVIL_RETURN_IF_ERROR(line.NoValue());
        options.verbose = true;
      } else if (key == "--whole-suite") {
        ANVIL_RETURN_IF_ERROR(line.NoValue());
        options.whole_suite = true;
      } else if (key == "--no-fork") {
        ANVIL_RETURN_IF_ERROR(line.NoValue());
        options.isolate = false;
      } else if (line.IsOption()) {
        mode_flags.push_back(line.arg());  // the mode decides
      } else {
        return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", line.arg(), "'"));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status parsed = parse(); !parsed.ok()) {
    return UsageError(std::string(parsed.message()));
  }
  for (std::string& flag : mode_flags) {
    if (flag.rfind("--exclusions=", 0) == 0) {
      flag = "--exclusions=" + ResolveUserPath(flag.substr(13));
    }
  }
  auto setup = mode->setup(mode_flags, options);
  if (!setup.ok()) return UsageError(std::string(setup.status().message()));
  auto& [title, fn] = *setup;
  return RunSuite(title, options, fn, std::cout, std::cerr);
}

}  // namespace
}  // namespace anvil::conformance

int main(int argc, char** argv) { return anvil::conformance::Main(argc, argv); }
