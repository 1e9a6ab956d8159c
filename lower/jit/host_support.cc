#include "lower/jit/host_support.h"

#include <atomic>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/parallel.h"

namespace anvil::lower {
namespace {

// The packed copies of shared weights (GemmHost::PackWeight), held by the hosts that use them.
class SharedPackedWeights {
 public:
  static SharedPackedWeights& Get() {
    static SharedPackedWeights* const instance = new SharedPackedWeights;
    return *instance;
  }

  std::shared_ptr<const simd::PackedB> Pack(const float* data, bool trans_b, int64_t k, int64_t n,
                                            int64_t ldb) {
    const Key key{data, trans_b, k, n, ldb};
    absl::MutexLock lock(&mutex_);
    std::weak_ptr<const simd::PackedB>& entry = packed_[key];
    if (std::shared_ptr<const simd::PackedB> live = entry.lock()) return live;
    // Expired entries are dropped as new ones come: the map stays the size of what is live
    // plus what expired since the last sweep.
    if (packed_.size() > 2 * live_at_sweep_ + 16) Sweep();
    std::shared_ptr<const simd::PackedB> made = simd::PackB(trans_b, k, n, data, ldb);
    packed_[key] = made;
    return made;
  }

  int64_t Live() {
    absl::MutexLock lock(&mutex_);
    int64_t live = 0;
    for (const auto& [key, packed] : packed_) live += packed.expired() ? 0 : 1;
    return live;
  }

 private:
  using Key = std::tuple<const float*, bool, int64_t, int64_t, int64_t>;

  void Sweep() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    absl::erase_if(packed_, [](const auto& entry) { return entry.second.expired(); });
    live_at_sweep_ = packed_.size();
  }

  absl::Mutex mutex_;
  absl::flat_hash_map<Key, std::weak_ptr<const simd::PackedB>> packed_ ABSL_GUARDED_BY(mutex_);
  size_t live_at_sweep_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace

void GemmHost::PackWeight(const float* data, int64_t elements, bool trans_b, int64_t k, int64_t n,
                          int64_t ldb, bool shared) {
  const int64_t rows = trans_b ? n : k, cols = trans_b ? k : n;
  if (data == nullptr || rows <= 0 || cols <= 0 || ldb < cols ||
      (rows - 1) * ldb + cols > elements) {
    return;
  }
  for (const Packed& p : packed_[data]) {
    if (p.trans_b == trans_b && p.ldb == ldb && p.packed->k == k && p.packed->n == n) return;
  }
  packed_[data].push_back({trans_b, ldb,
                           shared ? SharedPackedWeights::Get().Pack(data, trans_b, k, n, ldb)
                                  : simd::PackB(trans_b, k, n, data, ldb)});
}

absl::Status GemmHost::Gemm(bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                            double beta, void* c, int64_t ldc) const {
  if (m < 0 || n < 0 || k < 0) return absl::InvalidArgumentError("gemm with a negative size");
  if (m == 0 || n == 0) return absl::OkStatus();
  // A packed weight takes the packed path whatever the rows, as the interpreter's MatMul and
  // Gemm do (the evaluator packs the same weights, so compiled code keeps its bits).
  if (!f64) {
    if (auto it = packed_.find(b); it != packed_.end()) {
      for (const Packed& w : it->second) {
        if (tb == w.trans_b && ldb == w.ldb && w.packed->k == k && w.packed->n == n) {
          simd::SgemmPackedB(ta, m, static_cast<float>(alpha), static_cast<const float*>(a), lda,
                             *w.packed, static_cast<float>(beta), static_cast<float*>(c), ldc);
          return absl::OkStatus();
        }
      }
    }
  }
  if (f64) {
    simd::Dgemm(ta, tb, m, n, k, alpha, static_cast<const double*>(a), lda,
                static_cast<const double*>(b), ldb, beta, static_cast<double*>(c), ldc);
  } else {
    simd::Sgemm(ta, tb, m, n, k, static_cast<float>(alpha), static_cast<const float*>(a), lda,
                static_cast<const float*>(b), ldb, static_cast<float>(beta), static_cast<float*>(c),
                ldc);
  }
  return absl::OkStatus();
}

absl::StatusOr<WorkspacePlan> WorkspacePlan::Make(absl::Span<const std::pair<int, int>> lifetimes) {
  std::vector<Lifetime> spans;
  spans.reserve(lifetimes.size());
  for (auto [first, last] : lifetimes) {
    if (first < 0 || last < first) {
      return absl::InvalidArgumentError(
          absl::StrCat("workspace buffer ", spans.size(), ": lifetime [", first, ", ", last, "]"));
    }
    spans.push_back({first, last});
  }
  const size_t count = spans.size();
  WorkspacePlan plan(
      std::make_unique<MemoryPlanner>(std::move(spans), std::vector<ReuseCandidate>{}));
  plan.count_ = count;
  return plan;
}

absl::StatusOr<int64_t> WorkspacePlan::Place(absl::Span<const int64_t> sizes,
                                             absl::Span<int64_t> offsets) {
  if (sizes.size() != count_ || offsets.size() != count_) {
    return absl::InvalidArgumentError(
        absl::StrCat(sizes.size(), " workspace sizes for ", count_, " buffers"));
  }
  // The planner adds aligned sizes: their sum must fit.
  int64_t sum = 0;
  for (size_t b = 0; b < sizes.size(); ++b) {
    if (sizes[b] < 0 || sizes[b] > INT64_MAX / 2 ||
        __builtin_add_overflow(sum, sizes[b] + 64, &sum)) {
      return absl::InvalidArgumentError(
          absl::StrCat("workspace buffer ", b, " of ", sizes.size(),
                       ": its byte size overflows 64 bits for these input dims"));
    }
  }
  planner_->Plan(sizes);
  for (size_t b = 0; b < count_; ++b) offsets[b] = planner_->offset(static_cast<int>(b));
  return planner_->arena_bytes();
}

int64_t LiveSharedPackedWeights() { return SharedPackedWeights::Get().Live(); }

int32_t HostParallelFor(int64_t trips, int64_t work_per_trip,
                        int32_t (*chunk)(void* closure, int64_t lo, int64_t hi), void* closure) {
  std::atomic<int32_t> failed{0};
  parallel::For(trips,
                parallel::MinChunk(static_cast<double>(work_per_trip), parallel::kMinChunkElements),
                [&](int64_t lo, int64_t hi) {
                  if (chunk(closure, lo, hi) != 0) failed.store(1, std::memory_order_relaxed);
                });
  return failed.load();
}

}  // namespace anvil::lower
