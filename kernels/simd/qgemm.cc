// Runtime dispatch of simd/qgemm.h: the micro-kernel and the panel packing compiled for every
// Highway target; packing (once per weight, or per call for an activation) is plain C++ on the
// layout of the target running.
#include "kernels/simd/qgemm.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "base/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/qgemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/masked_load-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

// int32 lanes of a vector (the scalar target: one), a panel's columns (two vectors of them), and
// the rows of a register tile: 2 x kTileRows accumulators plus two B vectors and the broadcast
// pairs must fit the register file with room to spare (8 + 6 of AVX2's and SSE4's 16: GCC spilled
// accumulators of 6 rows to the stack in the loop, at a third of the speed; 16 + 10 of AVX-512's
// 32).
#if HWY_TARGET == HWY_SCALAR
constexpr size_t kLanes = 1;
#else
constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<int32_t>());
#endif
constexpr size_t kWidth = 2 * kLanes;
constexpr size_t kTileRows = kLanes >= 16 ? 8 : 4;

// c[r * ldc + j] (+= when `accumulate`: a later slice of k) for kRows rows (their pairs at
// a + r * lda2) and the n <= kWidth columns of one panel `b`, over k2 pairs.
template <size_t kRows>
HWY_NOINLINE void MicroKernel(size_t k2, const int32_t* HWY_RESTRICT a, size_t lda2,
                              const int16_t* HWY_RESTRICT b, int32_t* HWY_RESTRICT c, size_t ldc,
                              size_t n, bool accumulate) {
#if HWY_TARGET == HWY_SCALAR
  // One int16 per lane: the pairs are taken apart here (wrapping as int32 does: in uint32).
  uint32_t acc[kRows][kWidth] = {};
  for (size_t p = 0; p < k2; ++p) {
    for (size_t r = 0; r < kRows; ++r) {
      const uint32_t pair = static_cast<uint32_t>(a[r * lda2 + p]);
      const int32_t lo = static_cast<int16_t>(pair & 0xFFFF);
      const int32_t hi = static_cast<int16_t>(pair >> 16);
      for (size_t j = 0; j < kWidth; ++j) {
        acc[r][j] += static_cast<uint32_t>(lo * b[j * 2] + hi * b[j * 2 + 1]);
      }
    }
    b += 2 * kWidth;
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t j = 0; j < n; ++j) {
      const uint32_t before = accumulate ? static_cast<uint32_t>(c[r * ldc + j]) : 0u;
      c[r * ldc + j] = static_cast<int32_t>(before + acc[r][j]);
    }
  }
#else
  const hn::ScalableTag<int32_t> d32;
  const hn::Repartition<int16_t, decltype(d32)> d16;
  using V = hn::Vec<decltype(d32)>;
  V acc[kRows][2], odd[kRows][2];
  HWY_UNROLL(8)
  for (size_t r = 0; r < kRows; ++r) {
    acc[r][0] = acc[r][1] = odd[r][0] = odd[r][1] = hn::Zero(d32);
  }
  for (size_t p = 0; p < k2; ++p) {
    const auto b0 = hn::LoadU(d16, b);
    const auto b1 = hn::LoadU(d16, b + 2 * kLanes);
    HWY_UNROLL(8)
    for (size_t r = 0; r < kRows; ++r) {
      const auto ar = hn::BitCast(d16, hn::Set(d32, a[r * lda2 + p]));
      acc[r][0] = hn::ReorderWidenMulAccumulate(d32, ar, b0, acc[r][0], odd[r][0]);
      acc[r][1] = hn::ReorderWidenMulAccumulate(d32, ar, b1, acc[r][1], odd[r][1]);
    }
    b += 4 * kLanes;
  }
  HWY_UNROLL(8)
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < 2; ++v) {
      if (v * kLanes >= n) break;
      // Lane j: the pairs of columns 2j and 2j + 1 of the int16 vector, summed.
      V sum = hn::RearrangeToOddPlusEven(acc[r][v], odd[r][v]);
      int32_t* dst = c + r * ldc + v * kLanes;
      if (n - v * kLanes >= kLanes) {
        if (accumulate) sum = hn::Add(hn::LoadU(d32, dst), sum);
        hn::StoreU(sum, d32, dst);
      } else {
        const auto mask = hn::FirstN(d32, n - v * kLanes);
        if (accumulate) sum = hn::Add(SafeMaskedLoad(mask, d32, dst), sum);
        hn::BlendedStore(sum, mask, d32, dst);
      }
    }
  }
#endif
}

template <size_t... kRows>
void RunTile(size_t rows, std::index_sequence<kRows...>, size_t k2, const int32_t* a, size_t lda2,
             const int16_t* b, int32_t* c, size_t ldc, size_t n, bool accumulate) {
  ((rows == kRows + 1 ? MicroKernel<kRows + 1>(k2, a, lda2, b, c, ldc, n, accumulate) : void()),
   ...);
}

// Pairs of k per slice: a tile's rows (kTileRows x kSlice pairs, 6 KiB on AVX2) stay in L1 while
// the slice of every panel of the block (kSlice x width pairs each) stays in L2.
constexpr int64_t kSlice = 256;

}  // namespace

int64_t QPanelWidthImpl() { return static_cast<int64_t>(kWidth); }

void QGemmPanelsImpl(const int32_t* a, int64_t lda2, int64_t rows, int64_t k2,
                     const int16_t* panels, int64_t n, int32_t* c, int64_t ldc) {
  const size_t panel_size = static_cast<size_t>(k2) * kWidth * 2;
  // One pass when k2 is 0: the zeros of an empty sum.
  for (int64_t p0 = 0; p0 < std::max<int64_t>(k2, 1); p0 += kSlice) {
    const size_t kc = static_cast<size_t>(std::min(kSlice, k2 - p0));
    for (int64_t i0 = 0; i0 < rows; i0 += kTileRows) {
      const size_t tile = static_cast<size_t>(std::min<int64_t>(kTileRows, rows - i0));
      for (int64_t j0 = 0; j0 < n; j0 += kWidth) {
        const int16_t* b = panels + static_cast<size_t>(j0 / kWidth) * panel_size +
                           static_cast<size_t>(p0) * kWidth * 2;
        const size_t w = static_cast<size_t>(std::min<int64_t>(kWidth, n - j0));
        RunTile(tile, std::make_index_sequence<kTileRows>(), kc, a + i0 * lda2 + p0,
                static_cast<size_t>(lda2), b, c + i0 * ldc + j0, static_cast<size_t>(ldc), w,
                p0 > 0);
      }
    }
  }
}

// The panels of k rows of n values of T (8- or 16-bit) less `zero`. A pair is one int32 lane
// (the lower k in the low half): a whole-vector zip of the two rows, which InterleaveLower
// (within 128-bit blocks) is not.
template <typename T>
void PackTypedPanels(const T* rows, int64_t ld, int32_t zero, int64_t k, int64_t n,
                     int16_t* panels) {
  const int64_t k2 = (k + 1) / 2;
  const int64_t panel_size = k2 * static_cast<int64_t>(kWidth) * 2;
  for (int64_t p = 0; p < k2; ++p) {
    const T* r0 = rows + 2 * p * ld;
    const T* r1 = 2 * p + 1 < k ? r0 + ld : nullptr;
    int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<int32_t> d32;
    const hn::Rebind<T, decltype(d32)> dt;
    const auto low = hn::Set(d32, 0xFFFF);
    const auto vz = hn::Set(d32, zero);
    for (; j + static_cast<int64_t>(kLanes) <= n; j += static_cast<int64_t>(kLanes)) {
      const auto lo = hn::And(hn::Sub(hn::PromoteTo(d32, hn::LoadU(dt, r0 + j)), vz), low);
      const auto hi =
          r1 != nullptr ? hn::ShiftLeft<16>(hn::Sub(hn::PromoteTo(d32, hn::LoadU(dt, r1 + j)), vz))
                        : hn::Zero(d32);
      int16_t* dst = panels + (j / kWidth) * panel_size + (p * kWidth + j % kWidth) * 2;
      hn::StoreU(hn::Or(lo, hi), d32, reinterpret_cast<int32_t*>(dst));
    }
#endif
    for (; j < n; ++j) {
      int16_t* dst = panels + (j / kWidth) * panel_size + (p * kWidth + j % kWidth) * 2;
      dst[0] = static_cast<int16_t>(r0[j] - zero);
      dst[1] = r1 != nullptr ? static_cast<int16_t>(r1[j] - zero) : int16_t{0};
    }
    for (int64_t e = n; e % static_cast<int64_t>(kWidth) != 0; ++e) {
      int16_t* dst = panels + (e / kWidth) * panel_size + (p * kWidth + e % kWidth) * 2;
      dst[0] = dst[1] = 0;
    }
  }
}

void PackPanelsImpl(const int16_t* rows, int64_t ld, int64_t k, int64_t n, int16_t* panels) {
  PackTypedPanels(rows, ld, 0, k, n, panels);
}

void PackPanelsFromBytesImpl(const void* bytes, bool is_signed, int64_t ld, int32_t zero, int64_t k,
                             int64_t n, int16_t* panels) {
  if (is_signed) {
    PackTypedPanels(static_cast<const int8_t*>(bytes), ld, zero, k, n, panels);
  } else {
    PackTypedPanels(static_cast<const uint8_t*>(bytes), ld, zero, k, n, panels);
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {
namespace {

HWY_EXPORT(QPanelWidthImpl);
HWY_EXPORT(QGemmPanelsImpl);
HWY_EXPORT(PackPanelsImpl);
HWY_EXPORT(PackPanelsFromBytesImpl);

// Element i of 8-bit data as int32.
int32_t Byte(const void* data, bool is_signed, int64_t i) {
  return is_signed ? static_cast<const int8_t*>(data)[i] : static_cast<const uint8_t*>(data)[i];
}

// Rows split across threads in blocks of this many (a multiple of every target's tile rows).
constexpr int64_t kRowUnit = 24;

}  // namespace

int64_t QPanelWidth() { return HWY_DYNAMIC_DISPATCH(QPanelWidthImpl)(); }

QRows PackQRows(const void* a, bool is_signed, int64_t lda, int64_t m, int64_t k,
                const int32_t* a_zero, bool zero_per_row) {
  QRows rows;
  rows.m = m;
  rows.k = k;
  const int64_t k2 = rows.k2();
  rows.pairs.assign(static_cast<size_t>(m * k2), 0);
  for (int64_t i = 0; i < m; ++i) {
    const int32_t zero = a_zero == nullptr ? 0 : a_zero[zero_per_row ? i : 0];
    for (int64_t t = 0; t < k; ++t) {
      const uint32_t v = static_cast<uint16_t>(Byte(a, is_signed, i * lda + t) - zero);
      rows.pairs[i * k2 + t / 2] |= static_cast<int32_t>(t % 2 == 0 ? v : v << 16);
    }
  }
  return rows;
}

QColumns PackQColumns(const void* b, bool is_signed, int64_t ldb, int64_t k, int64_t n,
                      const int32_t* b_zero, bool zero_per_column) {
  QColumns cols;
  cols.k = k;
  cols.n = n;
  cols.width = QPanelWidth();
  const int64_t w = cols.width, k2 = cols.k2();
  const int64_t panels = (n + w - 1) / w;
  cols.panels.resize(static_cast<size_t>(panels * k2 * w * 2));
  std::vector<int16_t> rows(static_cast<size_t>(k * n));
  for (int64_t t = 0; t < k; ++t) {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t zero = b_zero == nullptr ? 0 : b_zero[zero_per_column ? j : 0];
      rows[t * n + j] = static_cast<int16_t>(Byte(b, is_signed, t * ldb + j) - zero);
    }
  }
  PackPanels(rows.data(), n, k, n, cols.panels.data());
  return cols;
}

void PackPanels(const int16_t* rows, int64_t ld, int64_t k, int64_t n, int16_t* panels) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(PackPanelsImpl)(rows, ld, k, n, panels);
}

void PackPanelsFromBytes(const void* bytes, bool is_signed, int64_t ld, int32_t zero, int64_t k,
                         int64_t n, int16_t* panels) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(PackPanelsFromBytesImpl)(bytes, is_signed, ld, zero, k, n, panels);
}

void QGemmPanels(const QRows& a, int64_t row_begin, int64_t row_end, const int16_t* panels,
                 int64_t n, int32_t* c, int64_t ldc) {
  if (row_end <= row_begin || n <= 0) return;
  const int64_t k2 = a.k2();
  HWY_DYNAMIC_DISPATCH(QGemmPanelsImpl)
  (a.pairs.data() + row_begin * k2, k2, row_end - row_begin, k2, panels, n, c, ldc);
}

void QGemm(const QRows& a, const QColumns& b, int32_t* c, int64_t ldc) {
  const int64_t M = a.m, N = b.n, w = b.width;
  if (M <= 0 || N <= 0) return;
  const int64_t k2 = b.k2();
  const int64_t panels = (N + w - 1) / w;
  const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * b.k;
  // Panels (columns) split when there are enough of them for every thread; else rows.
  const int64_t panel_min =
      parallel::MinChunk(flops / static_cast<double>(panels), parallel::kMinChunkFlops);
  if (parallel::ChunkCount(panels, panel_min) >= std::min(parallel::CurrentThreads(), 4) ||
      M < 2 * kRowUnit) {
    parallel::For(panels, panel_min, [&](int64_t begin, int64_t end) {
      const int64_t j0 = begin * w, j1 = std::min(N, end * w);
      QGemmPanels(a, 0, M, b.panels.data() + begin * k2 * w * 2, j1 - j0, c + j0, ldc);
    });
    return;
  }
  const int64_t units = M / kRowUnit;
  parallel::For(
      units,
      parallel::MinChunk(flops * kRowUnit / static_cast<double>(M), parallel::kMinChunkFlops),
      [&](int64_t begin, int64_t end) {
        const int64_t lo = begin * kRowUnit, hi = end == units ? M : end * kRowUnit;
        QGemmPanels(a, lo, hi, b.panels.data(), N, c + lo * ldc, ldc);
      });
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
