// Per-target body of simd/depthwise.h (included once per target by depthwise.cc).
#if defined(ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#undef ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#else
#define ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/simd/depthwise.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Four output rows at a time, one vector of columns at a time: the four accumulators stay in
// registers across all taps (independent chains, so the FMA latency overlaps) and are stored
// once (storing partial sums between taps and reloading them would stall on masked
// store-to-load forwarding). Columns a tap does not reach load as zeros (MaskedLoad does not
// touch them), adding w * 0 = nothing, as in the GEMM.
HWY_NOINLINE void DepthwisePlaneImpl(const DepthwiseTaps& t, const float* plane, const float* w,
                                     const float* bias, float* y) {
  constexpr int64_t kRows = 4;
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const V b = hn::Set(d, bias != nullptr ? *bias : 0.0f);
  for (int64_t oh0 = 0; oh0 < t.out_h; oh0 += kRows) {
    const int64_t rows = t.out_h - oh0 < kRows ? t.out_h - oh0 : kRows;
    for (int64_t c0 = 0; c0 < t.out_w; c0 += L) {
      const int64_t c1 = c0 + L < t.out_w ? c0 + L : t.out_w;
      V acc[kRows];
      for (int64_t r = 0; r < kRows; ++r) acc[r] = hn::Zero(d);
      for (int64_t kh = 0; kh < t.kernel_h; ++kh) {
        const int64_t r_lo = t.row_lo[kh] > oh0 ? t.row_lo[kh] - oh0 : 0;
        const int64_t r_hi = t.row_hi[kh] - oh0 < rows ? t.row_hi[kh] - oh0 : rows;
        if (r_lo >= r_hi) continue;
        const float* row0 = plane + t.row_offset[kh] + (oh0 - t.row_lo[kh]) * t.row_step;
        for (int64_t kw = 0; kw < t.kernel_w; ++kw) {
          // Lanes j with c0 + j in [col_lo, col_hi) and [c0, c1).
          const int64_t lo = t.col_lo[kw] > c0 ? t.col_lo[kw] : c0;
          const int64_t hi = t.col_hi[kw] < c1 ? t.col_hi[kw] : c1;
          if (lo >= hi) continue;
          const float* src = row0 + t.col_offset[kw] + (c0 - t.col_lo[kw]);
          const V wv = hn::Set(d, w[kh * t.kernel_w + kw]);
          const auto mask = hn::AndNot(hn::FirstN(d, static_cast<size_t>(lo - c0)),
                                       hn::FirstN(d, static_cast<size_t>(hi - c0)));
          if (r_lo == 0 && r_hi == kRows) {
            HWY_UNROLL(4)
            for (int64_t r = 0; r < kRows; ++r) {
              acc[r] = hn::MulAdd(wv, hn::MaskedLoad(mask, d, src + r * t.row_step), acc[r]);
            }
          } else {
            for (int64_t r = r_lo; r < r_hi; ++r) {
              acc[r] = hn::MulAdd(wv, hn::MaskedLoad(mask, d, src + r * t.row_step), acc[r]);
            }
          }
        }
      }
      const auto store = hn::FirstN(d, static_cast<size_t>(c1 - c0));
      for (int64_t r = 0; r < rows; ++r) {
        const V v = bias != nullptr ? hn::Add(b, acc[r]) : acc[r];
        hn::BlendedStore(v, store, d, y + (oh0 + r) * t.out_w + c0);
      }
    }
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
