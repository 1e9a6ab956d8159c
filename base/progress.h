// Progress lines for work a user waits on: importing a large model, a slow pass, planning, writing
// the result. `TOOL: WHAT: 1.83 s (0.86 GB)` on stderr when the work took at least the threshold
// (one second), nothing when it was quicker (a small model's run prints no noise), nothing at all
// when quiet (the tools' --quiet). Lines go out as each step ends, so a long load shows where it
// is. Not thread-safe: one reporter per tool run.
#ifndef ANVIL_BASE_PROGRESS_H_
#define ANVIL_BASE_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace anvil {

class Progress {
 public:
  explicit Progress(std::string tool, bool quiet = false,
                    std::chrono::nanoseconds threshold = std::chrono::seconds(1),
                    std::ostream* out = nullptr);

  // Reports `what`, which took `elapsed`, when that is at least the threshold; bytes >= 0 adds
  // the size of what was processed.
  void Report(std::string_view what, std::chrono::nanoseconds elapsed, int64_t bytes = -1) const;
  bool quiet() const { return quiet_; }

 private:
  std::string tool_;
  bool quiet_;
  std::chrono::nanoseconds threshold_;
  std::ostream* out_;
};

// Times its scope and reports it to `progress` (null: nobody) when it ends.
class ScopedProgress {
 public:
  ScopedProgress(const Progress* progress, std::string what, int64_t bytes = -1);
  ~ScopedProgress();
  ScopedProgress(const ScopedProgress&) = delete;
  ScopedProgress& operator=(const ScopedProgress&) = delete;
  void set_bytes(int64_t bytes) { bytes_ = bytes; }

 private:
  const Progress* progress_;
  std::string what_;
  int64_t bytes_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace anvil

#endif  // ANVIL_BASE_PROGRESS_H_
