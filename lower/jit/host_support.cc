#include "lower/jit/host_support.h"

#include <atomic>

#include "base/parallel.h"

namespace anvil::lower {

void GemmHost::PackWeight(const float* data, int64_t elements, bool trans_b, int64_t k, int64_t n,
                          int64_t ldb) {
  const int64_t rows = trans_b ? n : k, cols = trans_b ? k : n;
  if (data == nullptr || rows <= 0 || cols <= 0 || ldb < cols ||
      (rows - 1) * ldb + cols > elements) {
    return;
  }
  for (const Packed& p : packed_[data]) {
    if (p.trans_b == trans_b && p.ldb == ldb && p.packed->k == k && p.packed->n == n) return;
  }
  packed_[data].push_back({trans_b, ldb, simd::PackB(trans_b, k, n, data, ldb)});
}

absl::Status GemmHost::Gemm(bool f64, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                            double beta, void* c, int64_t ldc) const {
  if (m < 0 || n < 0 || k < 0) return absl::InvalidArgumentError("gemm with a negative size");
  if (m == 0 || n == 0) return absl::OkStatus();
  // The packed path is also the one Sgemm takes for more than 4 rows and columns: the same bits
  // as the evaluator's Sgemm. (Fewer rows or columns keep Sgemm's matrix-vector paths.)
  if (!f64 && m > 4 && n > 4) {
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
