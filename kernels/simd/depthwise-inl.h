// Per-target body of simd/depthwise.h (included once per target by depthwise.cc).
#if defined(ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#undef ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#else
#define ANVIL_KERNELS_SIMD_DEPTHWISE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/simd/depthwise.h"
#include "kernels/simd/masked_load-inl.h"
#include "kernels/simd/vector_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Where kernel row kh reads for the output rows [oh0, oh0 + rows): block rows [lo, hi) are
// inside the input, and block row 0 would read at `offset` of its plane.
struct RowTap {
  int64_t offset, lo, hi;
};
HWY_INLINE RowTap RowTapAt(const DepthwiseTaps& t, int64_t kh, int64_t oh0, int64_t rows) {
  return {t.row_offset[kh] + (oh0 - t.row_lo[kh]) * t.row_step,
          t.row_lo[kh] > oh0 ? t.row_lo[kh] - oh0 : 0,
          t.row_hi[kh] - oh0 < rows ? t.row_hi[kh] - oh0 : rows};
}

// Where kernel column kw reads for the output columns [c0, c1): lanes [lo, hi) are inside the
// input, and lane 0 would read at `offset` of its row.
struct ColumnTap {
  int64_t offset, lo, hi;
};
HWY_INLINE ColumnTap ColumnTapAt(const DepthwiseTaps& t, int64_t kw, int64_t c0, int64_t c1) {
  return {t.col_offset[kw] + (c0 - t.col_lo[kw]), (t.col_lo[kw] > c0 ? t.col_lo[kw] : c0) - c0,
          (t.col_hi[kw] < c1 ? t.col_hi[kw] : c1) - c0};
}

// The lanes [ct.lo, ct.hi) a column tap reaches.
template <class D>
HWY_INLINE hn::Mask<D> ColumnMask(D d, const ColumnTap& ct) {
  return hn::AndNot(hn::FirstN(d, static_cast<size_t>(ct.lo)),
                    hn::FirstN(d, static_cast<size_t>(ct.hi)));
}

// Kernel rows and columns up to which a block's taps are computed once before its channel loop
// (every real kernel; a larger one computes them per channel).
constexpr int64_t kMaxCachedTaps = 32;

// kOuts output channels (k0...) x four output rows x one vector of columns: each input vector a
// tap reads feeds kOuts fused multiply-adds, with the weights broadcast. Where each tap reads
// depends on the block, not the channel, so it is worked out once per block.
template <int64_t kOuts>
HWY_INLINE void DirectConvBlock(const DepthwiseTaps& t, const float* planes, int64_t plane_stride,
                                int64_t channels, const float* w, int64_t k0, const float* bias,
                                const Epilogue& epilogue, float* y, int64_t out_plane) {
  constexpr int64_t kRows = 4;
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t taps = t.kernel_h * t.kernel_w;
  const int64_t w_stride = channels * taps;  // between output channels
  const bool cache_rows = t.kernel_h <= kMaxCachedTaps, cache_cols = t.kernel_w <= kMaxCachedTaps;
  RowTap row_taps[kMaxCachedTaps];
  ColumnTap col_taps[kMaxCachedTaps];
  hn::Mask<decltype(d)> col_masks[kMaxCachedTaps];
  for (int64_t oh0 = 0; oh0 < t.out_h; oh0 += kRows) {
    const int64_t rows = t.out_h - oh0 < kRows ? t.out_h - oh0 : kRows;
    if (cache_rows) {
      for (int64_t kh = 0; kh < t.kernel_h; ++kh) row_taps[kh] = RowTapAt(t, kh, oh0, rows);
    }
    for (int64_t c0 = 0; c0 < t.out_w; c0 += L) {
      const int64_t c1 = c0 + L < t.out_w ? c0 + L : t.out_w;
      if (cache_cols) {
        for (int64_t kw = 0; kw < t.kernel_w; ++kw) {
          col_taps[kw] = ColumnTapAt(t, kw, c0, c1);
          col_masks[kw] = ColumnMask(d, col_taps[kw]);
        }
      }
      // Every loop over rows and outputs has constant bounds and is unrolled, so the
      // accumulators are registers (a row range known only at run time would put them in memory).
      V acc[kRows][kOuts];
      HWY_UNROLL(4)
      for (int64_t r = 0; r < kRows; ++r) {
        HWY_UNROLL(4)
        for (int64_t k = 0; k < kOuts; ++k) acc[r][k] = hn::Zero(d);
      }
      // One tap: rows [r_lo, r_hi) of the block (all four when all_rows is true_type) read at src,
      // its columns masked (columns the tap does not reach load as zeros: MaskedLoad does not touch
      // them), times the kOuts weights at wk.
      auto tap = [&](auto all_rows, int64_t r_lo, int64_t r_hi, const float* src,
                     const hn::Mask<decltype(d)> mask, const float* wk) HWY_ATTR {
        V wv[kOuts];
        HWY_UNROLL(4)
        for (int64_t k = 0; k < kOuts; ++k) wv[k] = hn::Set(d, wk[k * w_stride]);
        HWY_UNROLL(4)
        for (int64_t r = 0; r < kRows; ++r) {
          if (!decltype(all_rows)::value && (r < r_lo || r >= r_hi)) continue;
          const V v = SafeMaskedLoad(mask, d, src + r * t.row_step);
          HWY_UNROLL(4)
          for (int64_t k = 0; k < kOuts; ++k) acc[r][k] = hn::MulAdd(wv[k], v, acc[r][k]);
        }
      };
      for (int64_t c = 0; c < channels; ++c) {
        const float* plane = planes + c * plane_stride;
        const float* wc = w + (k0 * channels + c) * taps;
        for (int64_t kh = 0; kh < t.kernel_h; ++kh) {
          const RowTap rt = cache_rows ? row_taps[kh] : RowTapAt(t, kh, oh0, rows);
          if (rt.lo >= rt.hi) continue;
          const float* row = plane + rt.offset;
          const float* wr = wc + kh * t.kernel_w;
          if (cache_cols && rt.lo == 0 && rt.hi == kRows) {  // the common case, test-free
            for (int64_t kw = 0; kw < t.kernel_w; ++kw) {
              if (col_taps[kw].lo >= col_taps[kw].hi) continue;
              tap(std::true_type(), 0, kRows, row + col_taps[kw].offset, col_masks[kw], wr + kw);
            }
            continue;
          }
          for (int64_t kw = 0; kw < t.kernel_w; ++kw) {
            const ColumnTap ct = cache_cols ? col_taps[kw] : ColumnTapAt(t, kw, c0, c1);
            if (ct.lo >= ct.hi) continue;
            tap(std::false_type(), rt.lo, rt.hi, row + ct.offset, ColumnMask(d, ct), wr + kw);
          }
        }
      }
      const auto store = hn::FirstN(d, static_cast<size_t>(c1 - c0));
      HWY_UNROLL(4)
      for (int64_t k = 0; k < kOuts; ++k) {
        float* yk = y + (k0 + k) * out_plane;
        const V b = hn::Set(d, bias != nullptr ? bias[k0 + k] : 0.0f);
        HWY_UNROLL(4)
        for (int64_t r = 0; r < kRows; ++r) {
          if (r >= rows) continue;
          const V v =
              ApplyEpilogue(d, epilogue, bias != nullptr ? hn::Add(b, acc[r][k]) : acc[r][k]);
          hn::BlendedStore(v, store, d, yk + (oh0 + r) * t.out_w + c0);
        }
      }
    }
  }
}

// A depthwise plane is the one-input, one-output case: four accumulators (one per output row)
// stay in registers across all taps (independent chains, so the FMA latency overlaps) and are
// stored once (storing partial sums between taps and reloading them would stall on masked
// store-to-load forwarding). Columns a tap does not reach load as zeros (MaskedLoad does not
// touch them), adding w * 0 = nothing, as in the GEMM.
HWY_NOINLINE void DepthwisePlaneImpl(const DepthwiseTaps& t, const float* plane, const float* w,
                                     const float* bias, const Epilogue& epilogue, float* y) {
  DirectConvBlock<1>(t, plane, 0, 1, w, 0, bias, epilogue, y, 0);
}

HWY_NOINLINE void DirectConvPlanesImpl(const DepthwiseTaps& t, const float* planes,
                                       int64_t plane_stride, int64_t channels, const float* w,
                                       int64_t out_channels, const float* bias,
                                       const Epilogue& epilogue, float* y, int64_t out_plane) {
  int64_t k0 = 0;
  for (; k0 + 4 <= out_channels; k0 += 4) {
    DirectConvBlock<4>(t, planes, plane_stride, channels, w, k0, bias, epilogue, y, out_plane);
  }
  for (; k0 < out_channels; ++k0) {
    DirectConvBlock<1>(t, planes, plane_stride, channels, w, k0, bias, epilogue, y, out_plane);
  }
}

// kRows output rows x kOuts output channels of a convolution over zero-padded, phase-split input
// planes (DepthwisePaddedPlane, DirectConvPaddedPlanes), one vector of columns at a time. Input
// row i of the block (padded row oh0 * kStride + i) serves output row r with kernel row
// kh = i - kStride * r: each loaded vector feeds every output row and channel that reads it,
// and each output still takes its taps in (channel, kh, kw) order from 0, then the bias. All
// bounds but the channel count are constants, so the loops unroll completely and the
// accumulators stay in registers.
template <int kKernel, int kStride, int kRows, int kOuts, bool kOneChannel>
HWY_INLINE void PaddedConvRows(const float* planes, int64_t plane_stride, int64_t channels,
                               int64_t ld, int64_t phase_stride, const float* w, int64_t w_stride,
                               const float* bias, const Epilogue& epilogue, float* y,
                               int64_t out_plane, int64_t oh0, int64_t out_w) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  constexpr int kInRows = kStride * (kRows - 1) + kKernel;
  constexpr int kTaps = kKernel * kKernel;
  for (int64_t ow0 = 0; ow0 < out_w; ow0 += L) {
    V acc[kRows][kOuts];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int k = 0; k < kOuts; ++k) acc[r][k] = hn::Zero(d);
    }
    // One channel (depthwise) is a constant bound: the weights' broadcasts leave the loop.
    const int64_t channel_count = kOneChannel ? 1 : channels;
    for (int64_t c = 0; c < channel_count; ++c) {
      const float* block = planes + c * plane_stride + oh0 * kStride * ld + ow0;
      const float* wc = w + c * kTaps;
#pragma GCC unroll 16
      for (int i = 0; i < kInRows; ++i) {
#pragma GCC unroll 8
        for (int kw = 0; kw < kKernel; ++kw) {
          const V v = hn::LoadU(d, block + i * ld + (kw % kStride) * phase_stride + kw / kStride);
#pragma GCC unroll 8
          for (int r = 0; r < kRows; ++r) {
            const int kh = i - kStride * r;
            if (kh < 0 || kh >= kKernel) continue;
#pragma GCC unroll 8
            for (int k = 0; k < kOuts; ++k) {
              acc[r][k] =
                  hn::MulAdd(hn::Set(d, wc[k * w_stride + kh * kKernel + kw]), v, acc[r][k]);
            }
          }
        }
      }
    }
    const int64_t n = out_w - ow0;
#pragma GCC unroll 8
    for (int k = 0; k < kOuts; ++k) {
      const V b = hn::Set(d, bias != nullptr ? bias[k] : 0.0f);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
        const V v = ApplyEpilogue(d, epilogue, bias != nullptr ? hn::Add(b, acc[r][k]) : acc[r][k]);
        float* out = y + k * out_plane + (oh0 + r) * out_w + ow0;
        if (n >= L) {
          hn::StoreU(v, d, out);
        } else {
          hn::BlendedStore(v, hn::FirstN(d, static_cast<size_t>(n)), d, out);
        }
      }
    }
  }
}

// Every output row of kOuts channels: blocks of kRows rows, then single rows.
template <int kKernel, int kStride, int kRows, int kOuts, bool kOneChannel>
HWY_INLINE void PaddedConvPlanes(const float* planes, int64_t plane_stride, int64_t channels,
                                 int64_t ld, const float* w, int64_t w_stride, const float* bias,
                                 const Epilogue& epilogue, float* y, int64_t out_plane,
                                 int64_t out_h, int64_t out_w) {
  const int64_t phase_stride = ((out_h - 1) * kStride + kKernel) * ld;
  int64_t oh0 = 0;
  for (; oh0 + kRows <= out_h; oh0 += kRows) {
    PaddedConvRows<kKernel, kStride, kRows, kOuts, kOneChannel>(planes, plane_stride, channels, ld,
                                                                phase_stride, w, w_stride, bias,
                                                                epilogue, y, out_plane, oh0, out_w);
  }
  for (; oh0 < out_h; ++oh0) {
    PaddedConvRows<kKernel, kStride, 1, kOuts, kOneChannel>(planes, plane_stride, channels, ld,
                                                            phase_stride, w, w_stride, bias,
                                                            epilogue, y, out_plane, oh0, out_w);
  }
}

// Calls f(integral_constant kernel, integral_constant stride) for the (kernel, stride) pairs the
// padded kernels have (DepthwisePaddedSupports).
template <class F>
HWY_INLINE void WithPaddedShape(int64_t kernel, int64_t stride, const F& f) {
  if (kernel == 3 && stride == 1)
    f(std::integral_constant<int, 3>(), std::integral_constant<int, 1>());
  if (kernel == 3 && stride == 2)
    f(std::integral_constant<int, 3>(), std::integral_constant<int, 2>());
  if (kernel == 5 && stride == 1)
    f(std::integral_constant<int, 5>(), std::integral_constant<int, 1>());
  if (kernel == 5 && stride == 2)
    f(std::integral_constant<int, 5>(), std::integral_constant<int, 2>());
}

// One plane in, one plane out, two rows at a time: with four, the accumulators, loaded rows and
// the hoisted weight broadcasts spill AVX2's sixteen registers (measured twice as slow).
HWY_NOINLINE void DepthwisePaddedPlaneImpl(const float* padded, int64_t ld, int64_t kernel,
                                           int64_t stride, const float* w, const float* bias,
                                           const Epilogue& epilogue, float* y, int64_t out_h,
                                           int64_t out_w) {
  WithPaddedShape(kernel, stride, [&](auto k, auto s) HWY_ATTR {
    PaddedConvPlanes<decltype(k)::value, decltype(s)::value, 2, 1, true>(
        padded, 0, 1, ld, w, 0, bias, epilogue, y, 0, out_h, out_w);
  });
}

// Few input channels, many outputs: four output channels x two rows share each loaded vector
// (eight accumulators: the sixteen of AVX2 hold them with the loads and weights).
HWY_NOINLINE void DirectConvPaddedPlanesImpl(const float* padded, int64_t plane_stride, int64_t ld,
                                             int64_t channels, int64_t kernel, int64_t stride,
                                             const float* w, int64_t out_channels,
                                             const float* bias, const Epilogue& epilogue, float* y,
                                             int64_t out_plane, int64_t out_h, int64_t out_w) {
  WithPaddedShape(kernel, stride, [&](auto k, auto s) HWY_ATTR {
    constexpr int kK = decltype(k)::value, kS = decltype(s)::value;
    const int64_t w_stride = channels * kK * kK;  // between output channels
    int64_t k0 = 0;
    for (; k0 + 4 <= out_channels; k0 += 4) {
      PaddedConvPlanes<kK, kS, 2, 4, false>(padded, plane_stride, channels, ld, w + k0 * w_stride,
                                            w_stride, bias != nullptr ? bias + k0 : nullptr,
                                            epilogue, y + k0 * out_plane, out_plane, out_h, out_w);
    }
    for (; k0 < out_channels; ++k0) {
      PaddedConvPlanes<kK, kS, 4, 1, false>(padded, plane_stride, channels, ld, w + k0 * w_stride,
                                            w_stride, bias != nullptr ? bias + k0 : nullptr,
                                            epilogue, y + k0 * out_plane, out_plane, out_h, out_w);
    }
  });
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
