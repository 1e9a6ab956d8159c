#include "runtime/memory_planner.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <utility>

namespace anvil {
namespace {

int64_t Align(int64_t bytes) {
  return (bytes + MemoryPlanner::kAlignment - 1) / MemoryPlanner::kAlignment *
         MemoryPlanner::kAlignment;
}

struct Buffer {
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
  int64_t offset = -1;
};

// Places `buffers` in `order`, each at the smallest gap among the already placed buffers whose
// lifetimes overlap its own (else after them). Returns the offsets; `*arena` gets the size.
std::vector<int64_t> PlaceBestFit(const std::vector<Buffer>& buffers, const std::vector<int>& order,
                                  int64_t* arena) {
  std::vector<int64_t> offsets(buffers.size(), -1);
  std::vector<int> placed;  // indices into buffers, kept sorted by offset
  *arena = 0;
  for (int index : order) {
    const Buffer& b = buffers[index];
    int64_t best = -1, best_gap = std::numeric_limits<int64_t>::max(), end = 0;
    for (int p : placed) {  // by offset
      const Buffer& q = buffers[p];
      if (q.first > b.last || b.first > q.last) continue;  // not live at the same time
      const int64_t gap = offsets[p] - end;
      if (gap >= b.bytes && gap < best_gap) {
        best = end;
        best_gap = gap;
      }
      end = std::max(end, offsets[p] + q.bytes);
    }
    offsets[index] = best >= 0 ? best : end;
    *arena = std::max(*arena, offsets[index] + b.bytes);
    placed.insert(std::upper_bound(placed.begin(), placed.end(), index,
                                   [&](int a, int c) { return offsets[a] < offsets[c]; }),
                  index);
  }
  return offsets;
}

// Places buffers in order of first use, each into the best-fitting block of a free list that
// buffers return to after their last use (adjacent blocks merge; a block at the end of the arena
// grows). O(n log n): the strategy large schedules can afford on every re-plan.
std::vector<int64_t> PlaceBySweep(const std::vector<Buffer>& buffers, int64_t* arena) {
  std::vector<int64_t> offsets(buffers.size(), -1);
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::map<int64_t, int64_t> free_by_offset;     // offset -> bytes
  std::multimap<int64_t, int64_t> free_by_size;  // bytes -> offset
  auto erase_free = [&](std::map<int64_t, int64_t>::iterator it) {
    auto range = free_by_size.equal_range(it->second);
    for (auto s = range.first; s != range.second; ++s) {
      if (s->second == it->first) {
        free_by_size.erase(s);
        break;
      }
    }
    free_by_offset.erase(it);
  };
  auto add_free = [&](int64_t offset, int64_t bytes) {
    auto next = free_by_offset.lower_bound(offset);
    if (next != free_by_offset.end() && next->first == offset + bytes) {
      bytes += next->second;
      erase_free(next);
    }
    auto prev = free_by_offset.lower_bound(offset);
    if (prev != free_by_offset.begin()) {
      --prev;
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        bytes += prev->second;
        erase_free(prev);
      }
    }
    free_by_offset[offset] = bytes;
    free_by_size.emplace(bytes, offset);
  };
  // Live buffers by last use, to release them once the sweep passes it.
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> live;
  *arena = 0;
  for (int index : order) {
    const Buffer& b = buffers[index];
    if (b.bytes == 0) {
      // An empty tensor's buffer takes no space and stays out of the free list: freed there,
      // it would leave a zero-byte block at the offset of the buffer placed after it, and the
      // two free lists would disagree once that one is freed too (the model fuzzer found it).
      offsets[index] = 0;
      continue;
    }
    while (!live.empty() && live.top().first < b.first) {
      const int done = live.top().second;
      live.pop();
      add_free(offsets[done], buffers[done].bytes);
    }
    auto fit = free_by_size.lower_bound(b.bytes);
    if (fit != free_by_size.end()) {
      const int64_t offset = fit->second, bytes = fit->first;
      erase_free(free_by_offset.find(offset));
      offsets[index] = offset;
      if (bytes > b.bytes) add_free(offset + b.bytes, bytes - b.bytes);
    } else if (!free_by_offset.empty() &&
               std::prev(free_by_offset.end())->first + std::prev(free_by_offset.end())->second ==
                   *arena) {
      // The free block at the end grows into the new space.
      auto last = std::prev(free_by_offset.end());
      offsets[index] = last->first;
      *arena = last->first + b.bytes;
      erase_free(last);
    } else {
      offsets[index] = *arena;
      *arena += b.bytes;
    }
    live.emplace(b.last, index);
  }
  return offsets;
}

}  // namespace

MemoryPlanner::MemoryPlanner(std::vector<Lifetime> lifetimes,
                             std::vector<ReuseCandidate> candidates, bool allow_reuse)
    : lifetimes_(std::move(lifetimes)),
      candidates_(std::move(candidates)),
      allow_reuse_(allow_reuse),
      offsets_(lifetimes_.size(), -1),
      applied_(candidates_.size(), false) {}

bool MemoryPlanner::Plan(absl::Span<const int64_t> sizes) {
  if (planned_ && std::equal(sizes.begin(), sizes.end(), sizes_.begin(), sizes_.end())) {
    return false;
  }
  sizes_.assign(sizes.begin(), sizes.end());
  sizes_.resize(lifetimes_.size(), -1);
  DoPlan();
  planned_ = true;
  ++plans_;
  return true;
}

void MemoryPlanner::DoPlan() {
  const int n = static_cast<int>(lifetimes_.size());
  // Values sharing memory form one buffer (union-find with the root holding the buffer).
  std::vector<int> root(n);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&root](int v) {
    while (root[v] != v) v = root[v] = root[root[v]];
    return v;
  };
  std::vector<int> buffer_last(n);
  for (int v = 0; v < n; ++v) buffer_last[v] = lifetimes_[v].last;

  std::fill(applied_.begin(), applied_.end(), false);
  in_place_reuses_ = 0;
  aliases_ = 0;
  std::vector<bool> joined(n, false);  // an output takes at most one input's memory
  if (allow_reuse_) {
    for (size_t k = 0; k < candidates_.size(); ++k) {
      const ReuseCandidate& c = candidates_[k];
      if (sizes_[c.output] < 0 || sizes_[c.input] < 0 || joined[c.output]) continue;
      if (sizes_[c.output] != sizes_[c.input] || sizes_[c.output] == 0) continue;
      const int r = find(c.input);
      // Overwriting is legal only when nothing reads the buffer after this step.
      if (c.overwrite && buffer_last[r] != c.step) continue;
      root[c.output] = r;
      joined[c.output] = true;
      buffer_last[r] = std::max(buffer_last[r], lifetimes_[c.output].last);
      applied_[k] = true;
      ++(c.overwrite ? in_place_reuses_ : aliases_);
    }
  }

  // One buffer per root.
  std::vector<Buffer> buffers;
  std::vector<int> buffer_of(n, -1);
  for (int v = 0; v < n; ++v) {
    if (sizes_[v] < 0 || find(v) != v) continue;
    buffer_of[v] = static_cast<int>(buffers.size());
    buffers.push_back(Buffer{Align(sizes_[v]), lifetimes_[v].first, buffer_last[v], -1});
  }
  for (int v = 0; v < n; ++v) {
    if (sizes_[v] < 0) continue;
    Buffer& b = buffers[buffer_of[find(v)]];
    b.first = std::min(b.first, lifetimes_[v].first);
  }

  // Placement: a sweep in schedule order over a best-fit free list, then (schedules of up to
  // 4096 buffers: these are quadratic) best fit among overlapping buffers in three orders —
  // largest first, the strong one in general; longest lived first and earliest first, which win
  // on some schedules (long-lived residual streams next to short temporaries). The smallest arena
  // wins.
  std::vector<std::vector<int>> orders;
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  auto add_order = [&](auto less) {
    std::vector<int> o = order;
    std::stable_sort(o.begin(), o.end(), less);
    orders.push_back(std::move(o));
  };
  if (buffers.size() <= 4096) {
    add_order([&](int a, int b) {
      if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
      return buffers[a].first < buffers[b].first;
    });
    add_order([&](int a, int b) {
      const int la = buffers[a].last - buffers[a].first, lb = buffers[b].last - buffers[b].first;
      if (la != lb) return la > lb;
      return buffers[a].bytes > buffers[b].bytes;
    });
    add_order([&](int a, int b) {
      if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
      return buffers[a].bytes > buffers[b].bytes;
    });
  }
  std::vector<int64_t> best_offsets = PlaceBySweep(buffers, &arena_bytes_);
  for (const std::vector<int>& o : orders) {
    int64_t arena = 0;
    std::vector<int64_t> offsets = PlaceBestFit(buffers, o, &arena);
    if (arena < arena_bytes_) {
      arena_bytes_ = arena;
      best_offsets = std::move(offsets);
    }
  }
  for (size_t b = 0; b < buffers.size(); ++b) buffers[b].offset = best_offsets[b];
  unshared_bytes_ = 0;
  for (int v = 0; v < n; ++v) {
    if (sizes_[v] >= 0) unshared_bytes_ += Align(sizes_[v]);
  }
  for (int v = 0; v < n; ++v) {
    offsets_[v] = sizes_[v] < 0 ? -1 : buffers[buffer_of[find(v)]].offset;
  }

  std::vector<Lifetime> buffer_lifetimes;
  std::vector<int64_t> buffer_bytes;
  for (const Buffer& b : buffers) {
    buffer_lifetimes.push_back({b.first, b.last});
    buffer_bytes.push_back(b.bytes);
  }
  lower_bound_bytes_ = PeakLiveBytes(buffer_lifetimes, buffer_bytes);
}

int64_t PeakLiveBytes(absl::Span<const Lifetime> lifetimes, absl::Span<const int64_t> sizes) {
  // A sweep over lifetime boundaries.
  int steps = 0;
  for (size_t v = 0; v < lifetimes.size(); ++v) {
    if (sizes[v] >= 0) steps = std::max(steps, lifetimes[v].last + 1);
  }
  std::vector<int64_t> delta(steps + 1, 0);
  for (size_t v = 0; v < lifetimes.size(); ++v) {
    if (sizes[v] < 0) continue;
    delta[lifetimes[v].first] += sizes[v];
    delta[lifetimes[v].last + 1] -= sizes[v];
  }
  int64_t peak = 0, live = 0;
  for (int s = 0; s < steps; ++s) {
    live += delta[s];
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace anvil
