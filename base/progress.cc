#include "base/progress.h"

#include <iostream>
#include <utility>

#include "absl/strings/str_format.h"

namespace anvil {

Progress::Progress(std::string tool, bool quiet, std::chrono::nanoseconds threshold,
                   std::ostream* out)
    : tool_(std::move(tool)), quiet_(quiet), threshold_(threshold), out_(out ? out : &std::cerr) {}

void Progress::Report(std::string_view what, std::chrono::nanoseconds elapsed,
                      int64_t bytes) const {
  if (quiet_ || elapsed < threshold_) return;
  std::string line = absl::StrFormat("%s: %s: %.2f s", tool_, what,
                                     std::chrono::duration<double>(elapsed).count());
  if (bytes >= 0) {
    const double b = static_cast<double>(bytes);
    if (b >= 1e9) {
      absl::StrAppendFormat(&line, " (%.2f GB)", b / 1e9);
    } else if (b >= 1e6) {
      absl::StrAppendFormat(&line, " (%.1f MB)", b / 1e6);
    } else {
      absl::StrAppendFormat(&line, " (%d bytes)", bytes);
    }
  }
  *out_ << line << std::endl;
}

ScopedProgress::ScopedProgress(const Progress* progress, std::string what, int64_t bytes)
    : progress_(progress),
      what_(std::move(what)),
      bytes_(bytes),
      start_(std::chrono::steady_clock::now()) {}

ScopedProgress::~ScopedProgress() {
  if (progress_ == nullptr) return;
  progress_->Report(what_, std::chrono::steady_clock::now() - start_, bytes_);
}

}  // namespace anvil
