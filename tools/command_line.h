// The command line of the Anvil tools, read one argument at a time: options as "--flag=value" or
// "--flag value", bare flags, positionals. Paths are taken relative to where the user ran
// `bazel run`, not the runfiles tree the tool starts in. Errors are InvalidArgument naming the
// flag, for the tool to print as a usage error.
//
//   CommandLine args(argc, argv);
//   while (args.Next()) {
//     if (args.key() == "--out") { ANVIL_ASSIGN_OR_RETURN(flags.out, args.Path()); }
//     else if (args.key() == "--iters") { ANVIL_ASSIGN_OR_RETURN(flags.iters, args.Count(1)); }
//     else if (args.IsOption()) return args.Unknown();
//     else flags.model = args.arg();
//   }
#ifndef ANVIL_TOOLS_COMMAND_LINE_H_
#define ANVIL_TOOLS_COMMAND_LINE_H_

#include <cstddef>
#include <cstdint>
#include <exception>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace anvil {

// Prints `warnings` as lines "<tool>: warning: <warning>", each distinct one once, the first
// kMaxWarningsShown of them, then how many more there were. Each is one printable line of bounded
// length (OneLineMessage, base/excerpt.h), whatever bytes from the model it quotes.
inline constexpr int kMaxWarningsShown = 20;
void PrintWarnings(std::ostream& os, std::string_view tool,
                   const std::vector<std::string>& warnings);

// Prints "<tool>: error: <message>" as one printable line of bounded length (OneLineMessage): the
// one place the tools print errors, so that no message echoes raw bytes or a huge name whole.
void PrintError(std::ostream& os, std::string_view tool, absl::string_view message);

// The message for an exception that reached a tool's main: std::bad_alloc (an allocation no
// limit caught) as "out of memory", others by their what().
std::string ExceptionMessage(const std::exception& e);

// `path` relative to the directory `bazel run` was invoked from (BUILD_WORKING_DIRECTORY), when
// it is relative and the tool runs under `bazel run`; else `path` unchanged.
std::string ResolveUserPath(const std::string& path);

class CommandLine {
 public:
  CommandLine(int argc, char** argv);

  // Moves to the next argument; false when there is none.
  bool Next();
  // The argument as given, and its flag name ("--flag" of "--flag=value"; the argument itself
  // when it has no "=").
  const std::string& arg() const { return arg_; }
  const std::string& key() const { return key_; }
  // Starts with '-'.
  bool IsOption() const { return !arg_.empty() && arg_[0] == '-'; }

  // The flag's value: after "=", else the next argument (consumed).
  absl::StatusOr<std::string> Value();
  // Value() as a user path (ResolveUserPath).
  absl::StatusOr<std::string> Path();
  // Value() as a whole number >= `min`.
  absl::StatusOr<int64_t> Count(int64_t min);
  // OK unless the flag was given "=value".
  absl::Status NoValue() const;
  // "unknown option '...' (see --help)".
  absl::Status Unknown() const;

 private:
  std::vector<std::string> args_;
  size_t next_ = 0;
  std::string arg_, key_, inline_value_;
  bool has_inline_value_ = false;
};

}  // namespace anvil

#endif  // ANVIL_TOOLS_COMMAND_LINE_H_
