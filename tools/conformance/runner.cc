// The shared run loop, isolation and reporting of the conformance runner; see runner.h.
#include "tools/conformance/runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"

namespace anvil::conformance {
namespace {

constexpr int kNumVerdicts = 4;

struct Counts {
  std::array<int64_t, kNumVerdicts> by_verdict{};
  int64_t total() const {
    int64_t n = 0;
    for (int64_t c : by_verdict) n += c;
    return n;
  }
  int64_t operator[](Verdict v) const { return by_verdict[static_cast<int>(v)]; }
  void Add(Verdict v) { ++by_verdict[static_cast<int>(v)]; }
};

// "N tests: P pass, U unknown, W wrong, E error".
std::string CountsLine(const Counts& counts) {
  std::vector<std::string> parts;
  for (int v = 0; v < kNumVerdicts; ++v) {
    parts.push_back(
        absl::StrCat(counts.by_verdict[v], " ", AsAbsl(VerdictName(static_cast<Verdict>(v)))));
  }
  return absl::StrCat(counts.total(), " tests: ", absl::StrJoin(parts, ", "));
}

// Details come from error messages and may span lines; reports are one line per test.
std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\r", ""}, {"\n", " | "}});
}

// Reads everything from `fd` until EOF.
std::string ReadAll(int fd) {
  std::string data;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      data.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return data;
}

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

struct Outcome {
  const TestCase* test;
  std::vector<std::string> ops;
  TestResult result;
};

}  // namespace

TestResult ErrorResult(std::string_view step, const absl::Status& status) {
  return TestResult{Verdict::kError, absl::StrCat(AsAbsl(step), ": ", status.message())};
}

std::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kUnknown:
      return "unknown";
    case Verdict::kWrong:
      return "wrong";
    case Verdict::kError:
      return "error";
  }
  return "?";
}

namespace {

// A forked test process: its pid and the read end of its result pipe, or (pid < 0) the error
// that kept it from starting.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  TestResult failed;
};

// Forks a child that runs `fn` and writes its result to a pipe; does not wait for it.
Child StartIsolated(const std::function<TestResult()>& fn, int timeout_seconds) {
  Child child;
  int fds[2];
  if (pipe(fds) != 0) {
    child.failed = {Verdict::kError,
                    absl::StrCat("conformance: pipe failed: ", std::strerror(errno))};
    return child;
  }
  // Buffered output would otherwise be written twice, once by each process.
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    child.failed = {Verdict::kError,
                    absl::StrCat("conformance: fork failed: ", std::strerror(errno))};
    return child;
  }
  if (pid == 0) {
    close(fds[0]);
    // SIGALRM's default action ends the child; the parent reports it as a timeout.
    if (timeout_seconds > 0) alarm(static_cast<unsigned>(timeout_seconds));
    TestResult result = fn();
    // The verdict as one digit, the ops (names hold no newline) and a newline, the tag and a
    // newline, the counters (name=value,...) and a newline, then the detail.
    std::vector<std::string> counters;
    for (const auto& [name, value] : result.counters) {
      counters.push_back(absl::StrCat(name, "=", value));
    }
    WriteAll(fds[1],
             absl::StrCat(static_cast<int>(result.verdict), absl::StrJoin(result.ops, ","), "\n",
                          result.tag, "\n", absl::StrJoin(counters, ","), "\n", result.detail));
    close(fds[1]);
    _exit(0);  // no atexit handlers or static destructors of the parent's state
  }
  close(fds[1]);
  child.pid = pid;
  child.fd = fds[0];
  return child;
}

// Reads a started child's result and reaps it. Reading to EOF before waiting lets a child whose
// result outgrows the pipe's buffer finish; other children run on meanwhile.
TestResult FinishIsolated(Child& child, int timeout_seconds) {
  if (child.pid < 0) return child.failed;
  std::string message = ReadAll(child.fd);
  close(child.fd);
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    if (sig == SIGALRM) {
      return {Verdict::kError, absl::StrCat("timed out after ", timeout_seconds, " s")};
    }
    return {Verdict::kError, absl::StrCat("crashed: signal ", sig, " (", strsignal(sig), ")")};
  }
  const size_t newline = message.find('\n');
  if (message.empty() || message[0] < '0' || message[0] >= '0' + kNumVerdicts ||
      newline == std::string::npos) {
    return {Verdict::kError, absl::StrCat("the test process exited with status ",
                                          WEXITSTATUS(status), " without a result")};
  }
  const size_t tag_end = message.find('\n', newline + 1);
  const size_t counters_end =
      tag_end == std::string::npos ? std::string::npos : message.find('\n', tag_end + 1);
  if (counters_end == std::string::npos) {
    return {Verdict::kError, "the test process sent a malformed result"};
  }
  TestResult result{static_cast<Verdict>(message[0] - '0'), message.substr(counters_end + 1)};
  result.tag = message.substr(newline + 1, tag_end - newline - 1);
  for (absl::string_view counter :
       absl::StrSplit(absl::string_view(message).substr(tag_end + 1, counters_end - tag_end - 1),
                      ',', absl::SkipEmpty())) {
    const size_t eq = counter.find('=');
    int64_t value = 0;
    if (eq == absl::string_view::npos || !absl::SimpleAtoi(counter.substr(eq + 1), &value)) {
      return {Verdict::kError, "the test process sent a malformed counter"};
    }
    result.counters[std::string(counter.substr(0, eq))] = value;
  }
  if (newline > 1) {
    result.ops = absl::StrSplit(absl::string_view(message).substr(1, newline - 1), ',');
  }
  return result;
}

}  // namespace

TestResult RunIsolated(const std::function<TestResult()>& fn, int timeout_seconds) {
  Child child = StartIsolated(fn, timeout_seconds);
  return FinishIsolated(child, timeout_seconds);
}

int RunSuite(std::string_view title, const RunnerOptions& options, const TestFn& fn,
             std::ostream& out, std::ostream& err) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<TestCase>> tests = DiscoverTests(options.data_root);
  if (!tests.ok()) {
    err << "conformance: error: " << tests.status().message() << "\n";
    return 1;
  }
  std::optional<std::regex> filter;
  if (!options.filter.empty()) {
    try {
      filter.emplace(options.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      err << "conformance: error: bad --filter regex '" << options.filter << "': " << e.what()
          << "\n";
      return 1;
    }
  }
  std::ofstream report;
  if (!options.report_path.empty()) {
    report.open(options.report_path);
    if (!report) {
      err << "conformance: error: cannot write report '" << options.report_path
          << "': " << std::strerror(errno) << "\n";
      return 1;
    }
  }

  // Scope first, so that the count is printed before any per-test line.
  std::vector<std::pair<const TestCase*, onnx::ModelProto>> in_scope;
  std::vector<std::pair<std::string, std::string>> excluded_tests;  // id, reason
  std::map<std::string, int64_t> in_scope_by_folder;
  int64_t considered = 0;
  for (const TestCase& test : *tests) {
    if (filter && !std::regex_search(test.id(), *filter)) continue;
    ++considered;
    onnx::ModelProto model;
    if (absl::Status s = ReadProtoFile(test.model_path(), &model); !s.ok()) {
      // A broken model is the suite's problem, not a verdict on Anvil: count it out of scope.
      if (report.is_open()) report << test.id() << " out-of-scope " << OneLine(s.message()) << "\n";
      continue;
    }
    if (std::optional<std::string> reason =
            options.whole_suite ? std::nullopt : OutOfScopeReason(model)) {
      if (report.is_open()) report << test.id() << " out-of-scope " << OneLine(*reason) << "\n";
      continue;
    }
    ++in_scope_by_folder[test.folder];
    auto excluded = options.exclusions.find(test.id());
    if (excluded == options.exclusions.end()) excluded = options.exclusions.find(test.name);
    if (excluded != options.exclusions.end()) {
      excluded_tests.emplace_back(test.id(), excluded->second);
      continue;
    }
    in_scope.emplace_back(&test, std::move(model));
  }
  std::vector<std::string> folder_counts;
  for (const char* folder : kTestFolders) {
    folder_counts.push_back(absl::StrCat(folder, " ", in_scope_by_folder[folder]));
  }
  out << (options.whole_suite ? "whole suite: " : "in scope: ")
      << in_scope.size() + excluded_tests.size() << " of " << considered << " tests ("
      << absl::StrJoin(folder_counts, ", ") << ")";
  if (filter) out << ", filter '" << options.filter << "'";
  out << "\n";
  for (const auto& [id, reason] : excluded_tests) {
    if (options.verbose) out << "EXCLUDED " << id << ": " << reason << "\n";
    if (report.is_open()) report << id << " excluded " << OneLine(reason) << "\n";
  }
  // An entry naming no test of the suite is stale (renamed test, typo): say so.
  if (!filter) {
    for (const auto& [key, reason] : options.exclusions) {
      bool found = false;
      for (const TestCase& test : *tests) found = found || test.id() == key || test.name == key;
      if (!found) err << "conformance: warning: the exclusion list names no test '" << key << "'\n";
    }
  }

  std::vector<Outcome> outcomes;
  outcomes.reserve(in_scope.size());
  // Prints and records test k's result; results arrive in test order.
  auto record = [&](size_t k, TestResult result) {
    const auto& [test, model] = in_scope[k];
    result.detail = OneLine(result.detail);
    if (result.verdict == Verdict::kWrong || result.verdict == Verdict::kError ||
        (options.verbose && result.verdict == Verdict::kUnknown)) {
      out << absl::AsciiStrToUpper(AsAbsl(VerdictName(result.verdict))) << " " << test->id() << ": "
          << result.detail << "\n";
    }
    if (report.is_open()) {
      report << test->id() << " " << VerdictName(result.verdict);
      if (!result.detail.empty()) report << " " << result.detail;
      report << "\n";
    }
    std::vector<std::string> ops = result.ops.empty() ? ModelOpTypes(model) : result.ops;
    outcomes.push_back({test, std::move(ops), std::move(result)});
  };
  // Up to `jobs` forked tests run at once, finished oldest first (a test's process compiles code
  // or runs kernels alone; the order of the output does not depend on the job count).
  const size_t jobs = options.isolate ? static_cast<size_t>(std::max(1, options.jobs)) : 1;
  std::deque<std::pair<size_t, Child>> running;
  for (size_t k = 0; k < in_scope.size(); ++k) {
    const auto& [test, model] = in_scope[k];
    auto run_one = [&fn, test = test, &model = model]() { return fn(*test, model); };
    if (!options.isolate) {
      record(k, run_one());
      continue;
    }
    if (running.size() == jobs) {
      record(running.front().first,
             FinishIsolated(running.front().second, options.timeout_seconds));
      running.pop_front();
    }
    running.emplace_back(k, StartIsolated(run_one, options.timeout_seconds));
  }
  for (auto& [k, child] : running) record(k, FinishIsolated(child, options.timeout_seconds));

  Counts total;
  std::map<std::string, Counts> by_folder;
  std::map<std::string, Counts> by_op;  // non-passing tests only
  for (const Outcome& o : outcomes) {
    total.Add(o.result.verdict);
    by_folder[o.test->folder].Add(o.result.verdict);
    if (o.result.verdict != Verdict::kPass) {
      for (const std::string& op : o.ops) by_op[op].Add(o.result.verdict);
    }
  }
  if ((options.verbose || options.op_breakdown) && !by_op.empty()) {
    std::vector<std::pair<std::string, Counts>> ops(by_op.begin(), by_op.end());
    std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
      return a.second.total() > b.second.total();
    });
    out << "non-passing tests by op (the op the mode blames, else every op of the model):\n";
    for (const auto& [op, counts] : ops) {
      std::vector<std::string> parts;
      for (int v = 1; v < kNumVerdicts; ++v) {
        if (counts.by_verdict[v] > 0) {
          parts.push_back(absl::StrCat(counts.by_verdict[v], " ",
                                       AsAbsl(VerdictName(static_cast<Verdict>(v)))));
        }
      }
      out << absl::StrFormat("  %-28s %4d: %s\n", op, counts.total(), absl::StrJoin(parts, ", "));
    }
  }
  for (const char* folder : kTestFolders) {
    if (by_folder.count(folder)) {
      out << "  " << folder << ": " << CountsLine(by_folder[folder]) << "\n";
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << absl::StrFormat("time: %.1f s\n", seconds);
  if (!excluded_tests.empty()) {
    out << "excluded: " << excluded_tests.size() << " tests (not run, not counted)\n";
  }
  std::map<std::string, int64_t> tags;
  for (const auto& o : outcomes) {
    if (o.result.verdict == Verdict::kPass && !o.result.tag.empty()) ++tags[o.result.tag];
  }
  if (!tags.empty()) {
    std::vector<std::string> parts;
    for (const auto& [tag, n] : tags) parts.push_back(absl::StrCat(n, " ", tag));
    out << "passing tests by kind: " << absl::StrJoin(parts, ", ") << "\n";
  }
  std::map<std::string, int64_t> counters;
  for (const auto& o : outcomes) {
    for (const auto& [name, value] : o.result.counters) counters[name] += value;
  }
  if (!counters.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : counters) parts.push_back(absl::StrCat(name, " ", value));
    out << "counts: " << absl::StrJoin(parts, ", ") << "\n";
  }
  out << title << ": " << CountsLine(total) << "\n";
  out.flush();

  int code = 0;
  if (report.is_open()) {
    report.close();
    if (!report) {
      err << "conformance: error: writing report '" << options.report_path << "' failed\n";
      code = 1;
    }
  }
  if (options.min_pass && total[Verdict::kPass] < *options.min_pass) {
    err << "conformance: " << title << ": " << total[Verdict::kPass]
        << " tests pass, below --min-pass=" << *options.min_pass << "\n";
    code = 1;
  }
  for (const auto& [name, floor] : options.min_counters) {
    if (counters[name] < floor) {
      err << "conformance: " << title << ": " << counters[name] << " " << name
          << ", below its floor " << floor << "\n";
      code = 1;
    }
  }
  if (options.max_wrong && total[Verdict::kWrong] > *options.max_wrong) {
    err << "conformance: " << title << ": " << total[Verdict::kWrong]
        << " tests wrong, above --max-wrong=" << *options.max_wrong << "\n";
    code = 1;
  }
  return code;
}

}  // namespace anvil::conformance
