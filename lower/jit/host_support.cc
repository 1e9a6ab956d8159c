#include "lower/jit/host_support.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"

namespace anvil::lower {

void PackedWeights::Pack(const float* data, int64_t elements, bool trans_b, int64_t k, int64_t n,
                         int64_t ldb) {
  const int64_t rows = trans_b ? n : k, cols = trans_b ? k : n;
  if (data == nullptr || rows <= 0 || cols <= 0 || ldb < cols ||
      (rows - 1) * ldb + cols > elements) {
    return;
  }
  if (Lookup(data, trans_b, k, n, ldb) != nullptr) return;
  packed_[data].push_back({trans_b, ldb, simd::PackB(trans_b, k, n, data, ldb)});
}

void PackedWeights::Share(const PackedWeights& other) {
  for (const auto& [data, uses] : other.packed_) {
    for (const Packed& p : uses) {
      if (Lookup(data, p.trans_b, p.packed->k, p.packed->n, p.ldb) == nullptr) {
        packed_[data].push_back(p);
      }
    }
  }
}

std::shared_ptr<const simd::PackedB> PackedWeights::Find(const void* data, bool trans_b, int64_t k,
                                                         int64_t n, int64_t ldb) const {
  const Packed* p = Lookup(data, trans_b, k, n, ldb);
  return p != nullptr ? p->packed : nullptr;
}

const PackedWeights::Packed* PackedWeights::Lookup(const void* data, bool trans_b, int64_t k,
                                                   int64_t n, int64_t ldb) const {
  auto it = packed_.find(data);
  if (it == packed_.end()) return nullptr;
  for (const Packed& p : it->second) {
    if (p.trans_b == trans_b && p.ldb == ldb && p.packed->k == k && p.packed->n == n) return &p;
  }
  return nullptr;
}

absl::Status GemmHost::Gemm(bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                            double beta, void* c, int64_t ldc) const {
  if (m < 0 || n < 0 || k < 0) return absl::InvalidArgumentError("gemm with a negative size");
  if (m == 0 || n == 0) return absl::OkStatus();
  // A packed weight takes the packed path whatever the rows, as the interpreter's MatMul and
  // Gemm do (the evaluator packs the same weights, so compiled code keeps its bits).
  if (!f64) {
    if (const PackedWeights::Packed* w = weights_.Lookup(b, tb, k, n, ldb)) {
      packed_products_.fetch_add(1, std::memory_order_relaxed);
      simd::SgemmPackedB(ta, m, static_cast<float>(alpha), static_cast<const float*>(a), lda,
                         *w->packed, static_cast<float>(beta), static_cast<float*>(c), ldc);
      return absl::OkStatus();
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
