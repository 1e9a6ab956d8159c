// MemoryPlanner: places the intermediate tensors of one schedule in a single arena.
//
// Input: per value, its lifetime [first step, last step] (liveness over the schedule; a value
// is live from the step that defines it through the last step that reads it) and, per run, its
// size in bytes (or -1 for values that do not live in the arena: graph inputs and outputs,
// constants, data-dependent values). Output: an offset per arena value, such that values whose
// lifetimes overlap never overlap in memory, plus the arena size.
//
//  - In-place reuse: a candidate (step, output, input) lets the output take the input's bytes
//    when that is legal — both in the arena, same size, and (for kInPlace, where the kernel
//    overwrites the input) every value sharing the input's buffer dies at that step. kAlias
//    candidates (reshape-like ops, which do not write) only need the sizes to agree; the buffer
//    then lives as long as any of its values.
//  - Placement: several strategies, keeping the smallest arena: a sweep along the schedule
//    over a best-fit free list (O(n log n)), and for schedules of up to 4096 buffers best fit
//    among the already placed buffers whose lifetimes overlap (the smallest gap that fits, else
//    the end) with buffers taken largest first, longest lived first or earliest first. Offsets
//    are 64-byte aligned.
//  - Lower bound: the peak, over steps, of the bytes of buffers live at that step. No placement
//    can use less; arena_bytes() / lower_bound_bytes() says how close this one came.
//  - Plan() re-plans only when some size differs from the previous plan's (plans() counts).
#ifndef ANVIL_RUNTIME_MEMORY_PLANNER_H_
#define ANVIL_RUNTIME_MEMORY_PLANNER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace anvil {

struct Lifetime {
  int first = 0;  // defining step
  int last = 0;   // last reading step (>= first)
};

struct ReuseCandidate {
  int step = 0;
  int output = 0;         // value index
  int input = 0;          // value index
  bool overwrite = true;  // kInPlace: the kernel writes over the input; false: kAlias
};

// Arena bytes set aside for a value whose dims only its kernel learns (a plan for the dims'
// upper bounds).
struct ArenaRegion {
  uint8_t* data = nullptr;
  int64_t bytes = 0;
  int64_t used = -1;  // what the last run put there
};

// The most bytes live at once: `sizes[v]` bytes over `lifetimes[v]`, -1 for values left out.
int64_t PeakLiveBytes(absl::Span<const Lifetime> lifetimes, absl::Span<const int64_t> sizes);

class MemoryPlanner {
 public:
  static constexpr int64_t kAlignment = 64;

  // `lifetimes[v]` per value; `candidates` in step order.
  MemoryPlanner(std::vector<Lifetime> lifetimes, std::vector<ReuseCandidate> candidates,
                bool allow_reuse = true);

  // `sizes[v]`: bytes of value v this run, -1 when v is not placed in the arena. Plans again
  // only when `sizes` differs from the last plan's; returns whether it did.
  bool Plan(absl::Span<const int64_t> sizes);

  // Offset of value v in the arena, -1 when it is not in the arena.
  int64_t offset(int v) const { return offsets_[v]; }
  // Whether candidate k (index into the constructor's list) was applied by the last plan.
  bool applied(int k) const { return applied_[k]; }
  int64_t arena_bytes() const { return arena_bytes_; }
  int64_t lower_bound_bytes() const { return lower_bound_bytes_; }
  // Sum of the (aligned) sizes of all arena values: what one buffer per tensor would take
  // (no liveness sharing, no reuse).
  int64_t unshared_bytes() const { return unshared_bytes_; }
  int64_t plans() const { return plans_; }
  int in_place_reuses() const { return in_place_reuses_; }
  int aliases() const { return aliases_; }

 private:
  void DoPlan();

  std::vector<Lifetime> lifetimes_;
  std::vector<ReuseCandidate> candidates_;
  bool allow_reuse_;
  std::vector<int64_t> sizes_;
  bool planned_ = false;
  std::vector<int64_t> offsets_;
  std::vector<bool> applied_;
  int64_t arena_bytes_ = 0;
  int64_t lower_bound_bytes_ = 0;
  int64_t unshared_bytes_ = 0;
  int64_t plans_ = 0;
  int in_place_reuses_ = 0;
  int aliases_ = 0;
};

}  // namespace anvil

#endif  // ANVIL_RUNTIME_MEMORY_PLANNER_H_
