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

size_t PackedBSizeImpl(int64_t N, int64_t K) { return gemm_internal::PackedBSize<float>(N, K); }

void PackAllBImpl(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb, float* dst) {
  gemm_internal::PackAllB<float>(trans_b, K, N, B, ldb, dst);
}

size_t MicroTileRowsImpl() { return gemm_internal::Tile<float>::kMR; }
size_t MicroTileColsImpl() { return gemm_internal::Tile<float>::kNR; }
size_t DotTailColumnsImpl(int64_t N, int64_t K) {
  return gemm_internal::DotTailColumns<float>(static_cast<size_t>(N), static_cast<size_t>(K));
}

void GemmPrepackedImpl(bool trans_a, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                       int64_t lda, const float* packed, float beta, float* C, int64_t ldc,
                       int64_t col_begin, int64_t col_end, const float* col_bias) {
  gemm_internal::GemmPrepacked<float>(trans_a, M, N, K, alpha, A, lda, packed, beta, C, ldc,
                                      col_begin, col_end, col_bias);
}

void SgemmFilledBImpl(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                      BPanelFiller fill, const float* row_bias, float beta, float* C, int64_t ldc,
                      const Epilogue* epilogue) {
  gemm_internal::GemmFilled<float>(
      false, M, N, K, 1.0f, A, lda,
      [&](size_t k0, size_t kc, size_t j0, size_t w, size_t pw, float* dst) {
        fill(static_cast<int64_t>(k0), static_cast<int64_t>(kc), static_cast<int64_t>(j0),
             static_cast<int64_t>(w), static_cast<int64_t>(pw), dst);
      },
      row_bias, beta, C, ldc, epilogue);
}

void PackRowsOfBImpl(const float* B, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t w,
                     int64_t pw, float* dst) {
  gemm_internal::PackB<float>(false, B, static_cast<size_t>(ldb), static_cast<size_t>(k0),
                              static_cast<size_t>(kc), static_cast<size_t>(j0),
                              static_cast<size_t>(w), static_cast<size_t>(pw), dst);
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {
namespace {

// Threads split a product into blocks of whole micro-tiles of every target: 24 rows (a multiple
// of every MR) or 48 columns (of every NR).
constexpr int64_t kRowUnit = 24, kColUnit = 48;
// One vector of every target: SgemmFilledB's column blocks of a narrow product.
constexpr int64_t kNarrowColUnit = 16;
// The widest of `chunks` chunks of `size` split in `units` whole units of `unit` (the last chunk
// takes the remainder, as parallel::For's partition gives), over the even share size / chunks.
double ChunkImbalance(int64_t size, int64_t unit, int64_t units, int64_t chunks) {
  int64_t widest = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t begin = parallel::ChunkBegin(units, chunks, c) * unit;
    const int64_t end = c + 1 == chunks ? size : parallel::ChunkBegin(units, chunks, c + 1) * unit;
    widest = std::max(widest, end - begin);
  }
  return static_cast<double>(widest) * static_cast<double>(chunks) / static_cast<double>(size);
}
// How much more uneven a column split may be than the row split before rows are taken: rows
// cost every thread a fill of all of B (K x N of the product's 2 x M x N x K).
constexpr double kMaxExtraImbalance = 0.1;

// A column block's cost for few rows (a batch-1 layer) is its weight bytes, which then take
// longer to stream than its flops take to run: ~100 GFLOP/s of the threshold's scale against
// ~40 GB/s from L3. Counting flops only kept a batch-1 512 x 512 layer (0.5 MFLOP, 1 MiB of
// weight) on one thread.
constexpr double kFlopsPerWeightByte = 2.5;

HWY_EXPORT(SgemmImpl);
HWY_EXPORT(DgemmImpl);
HWY_EXPORT(PackedBSizeImpl);
HWY_EXPORT(PackAllBImpl);
HWY_EXPORT(GemmPrepackedImpl);
HWY_EXPORT(MicroTileRowsImpl);
HWY_EXPORT(MicroTileColsImpl);
HWY_EXPORT(DotTailColumnsImpl);
HWY_EXPORT(SgemmFilledBImpl);
HWY_EXPORT(PackRowsOfBImpl);

// Splits one product across the current parallel scope (base/parallel.h) into row blocks or
// column blocks, whichever dimension offers more. Blocks are whole multiples of kRowUnit rows or
// kColUnit columns and hold more than 4 rows
// and columns, so each runs the path the whole product would: the summation order of every
// element, which only the path and K decide, is that of a serial call - bit-identical results
// for any thread count.
template <typename T, typename Serial>
void ParallelGemm(Serial serial, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                  T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C,
                  int64_t ldc) {
  constexpr int64_t kSmallDim = 4;
  const double flops =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const int64_t row_units = M > kSmallDim ? M / kRowUnit : 0;
  const int64_t col_units = N > kSmallDim || M <= kSmallDim ? N / kColUnit : 0;
  const bool by_rows = row_units >= col_units && M > kSmallDim;
  const int64_t units = by_rows ? row_units : col_units;
  const int64_t size = by_rows ? M : N;
  const int64_t unit = by_rows ? kRowUnit : kColUnit;
  double unit_flops = flops * static_cast<double>(unit) / static_cast<double>(size);
  if (!by_rows) {
    unit_flops = std::max(unit_flops, kFlopsPerWeightByte * static_cast<double>(unit) *
                                          static_cast<double>(K) * sizeof(T));
  }
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

std::unique_ptr<const PackedB> PackB(bool trans_b, int64_t K, int64_t N, const float* B,
                                     int64_t ldb) {
  auto packed = std::make_unique<PackedB>();
  packed->k = K;
  packed->n = N;
  if (K > 0 && N > 0) {
    packed->data.resize(HWY_DYNAMIC_DISPATCH(PackedBSizeImpl)(N, K));
    HWY_DYNAMIC_DISPATCH(PackAllBImpl)(trans_b, K, N, B, ldb, packed->data.data());
  }
  return packed;
}

void SgemmPackedB(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda,
                  const PackedB& b, float beta, float* C, int64_t ldc, const float* col_bias) {
  const int64_t N = b.n, K = b.k;
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == 0.0f) {  // C = beta * C (+ col_bias), as Sgemm
    Sgemm(trans_a, false, M, N, K, alpha, A, lda, nullptr, N, beta, C, ldc);
    if (col_bias != nullptr) {
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = col_bias[j] + C[i * ldc + j];
      }
    }
    return;
  }
  // Rows split across threads in blocks of this target's micro-tile rows (B is packed already,
  // so a row split costs no packing; whole tiles of 24 rows split 64 rows 24:40); a product of
  // too few rows splits by the packed panels of this target's micro-tile columns instead (not by
  // the packed column blocks: a 1024-wide B has three, which two threads split 2:1). Either way
  // each element is computed as in a serial call.
  static const int64_t row_unit = static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(MicroTileRowsImpl)());
  // Not cached: the packed layout's panels are those of the target running now.
  const int64_t col_unit = static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(MicroTileColsImpl)());
  const int64_t row_units = M / row_unit;
  const double unit_flops = 2.0 * static_cast<double>(row_unit) * N * K;
  const int64_t row_chunks =
      parallel::ChunkCount(row_units, parallel::MinChunk(unit_flops, parallel::kMinChunkFlops));
  const int64_t panels = (N + col_unit - 1) / col_unit;
  // A panel's cost: its flops, or its weight bytes (kFlopsPerWeightByte).
  const double panel_flops =
      std::max(2.0 * static_cast<double>(M) * static_cast<double>(col_unit) * K,
               kFlopsPerWeightByte * static_cast<double>(col_unit) * K * sizeof(float));
  if (row_chunks < 2 && panels >= 2 &&
      parallel::ChunkCount(panels, parallel::MinChunk(panel_flops, parallel::kMinChunkFlops)) >=
          2) {
    parallel::For(panels, parallel::MinChunk(panel_flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    HWY_DYNAMIC_DISPATCH(GemmPrepackedImpl)
                    (trans_a, M, N, K, alpha, A, lda, b.data.data(), beta, C, ldc, begin * col_unit,
                     std::min(N, end * col_unit), col_bias);
                  });
    return;
  }
  const int64_t units = std::max<int64_t>(1, row_units);
  parallel::For(units, parallel::MinChunk(unit_flops, parallel::kMinChunkFlops),
                [&](int64_t begin, int64_t end) {
                  const int64_t lo = begin * row_unit, hi = end == units ? M : end * row_unit;
                  HWY_DYNAMIC_DISPATCH(GemmPrepackedImpl)
                  (trans_a, hi - lo, N, K, alpha, trans_a ? A + lo : A + lo * lda, lda,
                   b.data.data(), beta, C + lo * ldc, ldc, 0, N, col_bias);
                });
}

void PackRowsOfB(const float* B, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t w,
                 int64_t pw, float* dst) {
  HWY_DYNAMIC_DISPATCH(PackRowsOfBImpl)(B, ldb, k0, kc, j0, w, pw, dst);
}

void SgemmFilledB(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, BPanelFiller fill,
                  const float* row_bias, float beta, float* C, int64_t ldc,
                  const Epilogue* epilogue) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // C = row_bias + beta * C (callers give no epilogue then)
    for (int64_t i = 0; i < M; ++i) {
      float* c = C + i * ldc;
      const float b = row_bias != nullptr ? row_bias[i] : 0.0f;
      for (int64_t j = 0; j < N; ++j) c[j] = beta == 0.0f ? b : b + beta * c[j];
    }
    return;
  }
  // Column blocks, so that each thread fills only its own columns of B: of kColUnit (whole
  // micro-tiles of every target), or for a product too narrow for two of those (a late layer's
  // 8x8 image: 64 columns) of kNarrowColUnit (a vector of every target; a column's sums do not
  // depend on its panel's width, except in the dot-product tail, which gets a call of its own).
  // Narrower still, or when the column blocks would split unevenly, rows split in whole micro-tiles
  // of this target, every thread filling all of B: that copy is K * N of the product's 2 * M * N *
  // K. Either way every element's path and bits are the serial call's.
  static const int64_t row_unit = static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(MicroTileRowsImpl)());
  const int64_t row_units = std::max<int64_t>(1, M / row_unit);
  const int64_t row_min_units = parallel::MinChunk(
      2.0 * static_cast<double>(N) * static_cast<double>(K) * static_cast<double>(row_unit),
      parallel::kMinChunkFlops);
  const int64_t row_chunks = parallel::ChunkCount(row_units, row_min_units);
  auto split_columns = [&](int64_t unit) {
    const int64_t units = std::max<int64_t>(1, N / unit);
    const int64_t min_units = parallel::MinChunk(
        2.0 * static_cast<double>(M) * static_cast<double>(K) * static_cast<double>(unit),
        parallel::kMinChunkFlops);
    const int64_t chunks = parallel::ChunkCount(units, min_units);
    if (chunks < 2) return false;
    // Few units leave one chunk much wider than the rest (a 7x7 image's 49 columns at 2 threads:
    // 32 against 17): rows split evenly instead when there are enough of them.
    if (row_chunks >= chunks &&
        ChunkImbalance(N, unit, units, chunks) >
            ChunkImbalance(M, row_unit, row_units, chunks) + kMaxExtraImbalance) {
      return false;
    }
    // The serial call's dot-product tail columns go to a call of their own: a block that ends
    // at N but does not start on one of this target's panels (16 of AVX-512's 48 columns) would
    // otherwise take them through the micro-kernel, in another summation order.
    const int64_t dot_tail = static_cast<int64_t>(HWY_DYNAMIC_DISPATCH(DotTailColumnsImpl)(N, K));
    auto run = [&](int64_t lo, int64_t hi) {
      if (lo >= hi) return;
      HWY_DYNAMIC_DISPATCH(SgemmFilledBImpl)
      (
          M, hi - lo, K, A, lda,
          [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) {
            fill(k0, kc, lo + j0, w, pw, dst);
          },
          row_bias, beta, C + lo, ldc, epilogue);
    };
    parallel::For(units, min_units, [&](int64_t begin, int64_t end) {
      const int64_t lo = begin * unit, hi = end == units ? N : end * unit;
      if (hi == N && dot_tail > 0) {
        run(lo, N - dot_tail);
        run(std::max(lo, N - dot_tail), N);
      } else {
        run(lo, hi);
      }
    });
    return true;
  };
  if (split_columns(kColUnit) || split_columns(kNarrowColUnit)) return;
  parallel::For(row_units, row_min_units, [&](int64_t begin, int64_t end) {
    const int64_t lo = begin * row_unit, hi = end == row_units ? M : end * row_unit;
    HWY_DYNAMIC_DISPATCH(SgemmFilledBImpl)
    (hi - lo, N, K, A + lo * lda, lda, fill, row_bias != nullptr ? row_bias + lo : nullptr, beta,
     C + lo * ldc, ldc, epilogue);
  });
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
