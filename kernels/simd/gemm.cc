// Runtime dispatch of simd/gemm.h: compiles gemm-inl.h for every Highway target and picks the
// best one the CPU supports on first call.
#include "kernels/simd/gemm.h"

#include <algorithm>
#include <cstdint>

#include "base/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

void SgemmImpl(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
               const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) {
  gemm_internal::Gemm<float>(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void DgemmImpl(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
               const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
               int64_t ldc) {
  gemm_internal::Gemm<double>(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {
namespace {

HWY_EXPORT(SgemmImpl);
HWY_EXPORT(DgemmImpl);

// Splits one product across the current parallel scope (base/parallel.h) into row blocks or
// column blocks, whichever dimension offers more. Blocks are whole multiples of the micro-tile
// (24 rows: a multiple of every target's MR; 48 columns: of every NR) and hold more than 4 rows
// and columns, so each runs the path the whole product would: the summation order of every
// element, which only the path and K decide, is that of a serial call - bit-identical results
// for any thread count.
template <typename T, typename Serial>
void ParallelGemm(Serial serial, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                  T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
                  int64_t ldc) {
  constexpr int64_t kRowUnit = 24, kColUnit = 48, kSmallDim = 4;
  const double flops =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int64_t row_units = M > kSmallDim ? M / kRowUnit : 0;
  const int64_t col_units = N > kSmallDim || M <= kSmallDim ? N / kColUnit : 0;
  const bool by_rows = row_units >= col_units && M > kSmallDim;
  const int64_t units = by_rows ? row_units : col_units;
  const int64_t size = by_rows ? M : N;
  const int64_t unit = by_rows ? kRowUnit : kColUnit;
  const double unit_flops = flops * static_cast<double>(unit) / static_cast<double>(size);
  const int64_t min_units = parallel::MinChunk(unit_flops, parallel::kMinChunkFlops);
  if (K <= 0 || parallel::ChunkCount(units, min_units) <= 1) {
    serial(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  parallel::For(units, min_units, [&](int64_t b, int64_t e) {
    const int64_t lo = b * unit, hi = e == units ? size : e * unit;
    if (by_rows) {
      serial(trans_a, trans_b, hi - lo, N, K, alpha, trans_a ? A + lo : A + lo * lda, lda, B, ldb,
             beta, C + lo * ldc, ldc);
    } else {
      serial(trans_a, trans_b, M, hi - lo, K, alpha, A, lda, trans_b ? B + lo * ldb : B + lo, ldb,
             beta, C + lo, ldc);
    }
  });
}

}  // namespace

void Sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  ParallelGemm<float>(
      [](auto... args) {
        HWY_DYNAMIC_DISPATCH(SgemmImpl)
        (args...);
      },
      trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void Dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc) {
  ParallelGemm<double>(
      [](auto... args) {
        HWY_DYNAMIC_DISPATCH(DgemmImpl)
        (args...);
      },
      trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
