#include "tools/command_line.h"

#include <cstdlib>
#include <new>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"

namespace anvil {

std::string ResolveUserPath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || cwd == nullptr) return path;
  return absl::StrCat(cwd, "/", path);
}

void PrintWarnings(std::ostream& os, std::string_view tool,
                   const std::vector<std::string>& warnings) {
  absl::flat_hash_set<std::string_view> seen;
  int shown = 0;
  for (const std::string& warning : warnings) {
    if (!seen.insert(warning).second) continue;
    if (shown++ < kMaxWarningsShown) os << tool << ": warning: " << OneLineMessage(warning) << "\n";
  }
  if (shown > kMaxWarningsShown) {
    os << tool << ": warning: ... and " << shown - kMaxWarningsShown << " more\n";
  }
}

void PrintError(std::ostream& os, std::string_view tool, absl::string_view message) {
  os << tool << ": error: " << OneLineMessage(std::string_view(message.data(), message.size()))
     << "\n";
}

std::string ExceptionMessage(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    return "out of memory (std::bad_alloc)";
  }
  return e.what();
}

CommandLine::CommandLine(int argc, char** argv) : args_(argv + 1, argv + argc) {}

bool CommandLine::Next() {
  if (next_ >= args_.size()) return false;
  arg_ = args_[next_++];
  key_ = arg_;
  inline_value_.clear();
  has_inline_value_ = false;
  if (arg_.rfind("--", 0) == 0) {
    if (size_t eq = arg_.find('='); eq != std::string::npos) {
      key_ = arg_.substr(0, eq);
      inline_value_ = arg_.substr(eq + 1);
      has_inline_value_ = true;
    }
  }
  return true;
}

absl::StatusOr<std::string> CommandLine::Value() {
  if (has_inline_value_) return inline_value_;
  if (next_ >= args_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(key_, " needs a value"));
  }
  return args_[next_++];
}

absl::StatusOr<std::string> CommandLine::Path() {
  ANVIL_ASSIGN_OR_RETURN(std::string value, Value());
  return ResolveUserPath(value);
}

absl::StatusOr<int64_t> CommandLine::Count(int64_t min) {
  ANVIL_ASSIGN_OR_RETURN(std::string value, Value());
  int64_t n;
  if (!absl::SimpleAtoi(value, &n) || n < min) {
    return absl::InvalidArgumentError(
        absl::StrCat(key_, " needs a whole number >= ", min, ", got '", Excerpt(value), "'"));
  }
  return n;
}

absl::Status CommandLine::NoValue() const {
  return has_inline_value_ ? absl::InvalidArgumentError(absl::StrCat(key_, " takes no value"))
                           : absl::OkStatus();
}

absl::Status CommandLine::Unknown() const {
  return absl::InvalidArgumentError(
      absl::StrCat("unknown option '", Excerpt(arg_), "' (see --help)"));
}

}  // namespace anvil
