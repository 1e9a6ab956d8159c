// Per-target body of simd/nchwc.h (included once per target by nchwc.cc).
#if defined(ANVIL_KERNELS_SIMD_NCHWC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_NCHWC_INL_H_
#undef ANVIL_KERNELS_SIMD_NCHWC_INL_H_
#else
#define ANVIL_KERNELS_SIMD_NCHWC_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"
#include "kernels/simd/nchwc.h"
#include "kernels/simd/vector_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

HWY_NOINLINE int64_t NchwcBlockImpl() {
  return static_cast<int64_t>(hn::Lanes(hn::ScalableTag<float>()));
}

// Transposes the square tile v[0..n) (n = the vector's lanes, 4, 8 or 16 on AVX-512: lane i of
// v[r] becomes lane r of v[i]) in registers; false for other widths (the caller moves elements
// one by one).
template <class D>
HWY_INLINE bool TransposeTile(D d, hn::Vec<D>* v) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  (void)v;
  return false;
#else
  constexpr size_t kLanes = hn::MaxLanes(D());
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  constexpr bool kSixteen = kLanes == 16;
#else
  constexpr bool kSixteen = false;
#endif
  if constexpr (kLanes == 4 || kLanes == 8 || kSixteen) {
    const hn::Repartition<double, D> dd;
    const auto lo64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
      return hn::BitCast(d, hn::InterleaveLower(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
    };
    const auto hi64 = [&](hn::Vec<D> a, hn::Vec<D> b) {
      return hn::BitCast(d, hn::InterleaveUpper(dd, hn::BitCast(dd, a), hn::BitCast(dd, b)));
    };
    // Within each 128-bit block: 4x4 transposes of rows (0-3) and (4-7).
    hn::Vec<D> u[kLanes];
    for (size_t g = 0; g < kLanes; g += 4) {
      const auto t0 = hn::InterleaveLower(d, v[g], v[g + 1]);
      const auto t1 = hn::InterleaveUpper(d, v[g], v[g + 1]);
      const auto t2 = hn::InterleaveLower(d, v[g + 2], v[g + 3]);
      const auto t3 = hn::InterleaveUpper(d, v[g + 2], v[g + 3]);
      u[g] = lo64(t0, t2);
      u[g + 1] = hi64(t0, t2);
      u[g + 2] = lo64(t1, t3);
      u[g + 3] = hi64(t1, t3);
    }
    if constexpr (kLanes == 4) {
      for (size_t i = 0; i < 4; ++i) v[i] = u[i];
    } else if constexpr (kLanes == 16) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
      // Block k of u[4G + r] holds rows 4G..4G+3 of column 4k + r: a 4x4 transpose of 128-bit
      // blocks over u[r], u[4 + r], u[8 + r], u[12 + r] puts it in block G of v[4k + r]. First
      // adjacent blocks of pairs, then 256-bit halves.
      for (size_t r = 0; r < 4; ++r) {
        hn::Vec<D> b[4];
        for (size_t g = 0; g < 4; g += 2) {
          const hn::Vec<D> a0 = u[4 * g + r], a1 = u[4 * (g + 1) + r];
          b[g] = hn::OddEvenBlocks(hn::SwapAdjacentBlocks(a1), a0);
          b[g + 1] = hn::OddEvenBlocks(a1, hn::SwapAdjacentBlocks(a0));
        }
        v[r] = hn::ConcatLowerLower(d, b[2], b[0]);
        v[4 + r] = hn::ConcatLowerLower(d, b[3], b[1]);
        v[8 + r] = hn::ConcatUpperUpper(d, b[2], b[0]);
        v[12 + r] = hn::ConcatUpperUpper(d, b[3], b[1]);
      }
#endif
    } else {
      // Columns 0-3 sit in the lower blocks, 4-7 in the upper ones.
      for (size_t i = 0; i < 4; ++i) {
        v[i] = hn::ConcatLowerLower(d, u[i + 4], u[i]);
        v[i + 4] = hn::ConcatUpperUpper(d, u[i + 4], u[i]);
      }
    }
    return true;
  }
  return false;
#endif
}

// The output columns [first, second) of windows of `kernel` columns at `stride`, starting
// `pad_left` before the input, whose taps all lie inside the input's `w` columns:
// ow * stride - pad_left >= 0 and ow * stride - pad_left + kernel - 1 < w.
HWY_INLINE std::pair<int64_t, int64_t> InsideColumns(int64_t w, int64_t kernel, int64_t stride,
                                                     int64_t pad_left, int64_t out_w) {
  const int64_t lo = std::min(out_w, (pad_left + stride - 1) / stride);
  const int64_t hi =
      std::max(lo, std::min(out_w, w + pad_left - kernel >= 0 ? (w + pad_left - kernel) / stride + 1
                                                              : int64_t{0}));
  return {lo, hi};
}

// Both reorders move B x B tiles (B channels of B pixels) through TransposeTile; a partial block
// of channels or pixels, or a vector width it does not handle, goes element by element.
HWY_NOINLINE void ReorderToBlockedImpl(const float* x, int64_t channels, int64_t pixels,
                                       float* out) {
  const hn::ScalableTag<float> d;
  const int64_t B = NchwcBlockImpl();
  const int64_t blocks = (channels + B - 1) / B;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t lanes = std::min(B, channels - b * B);
    const float* src = x + b * B * pixels;
    float* dst = out + b * pixels * B;
    int64_t p = 0;
    if (lanes == B && B <= 16) {
      hn::Vec<decltype(d)> v[16];
      for (; p + B <= pixels; p += B) {
        for (int64_t j = 0; j < B; ++j) v[j] = hn::LoadU(d, src + j * pixels + p);
        if (!TransposeTile(d, v)) break;
        for (int64_t i = 0; i < B; ++i) hn::StoreU(v[i], d, dst + (p + i) * B);
      }
    }
    for (; p < pixels; ++p) {
      for (int64_t j = 0; j < lanes; ++j) dst[p * B + j] = src[j * pixels + p];
      for (int64_t j = lanes; j < B; ++j) dst[p * B + j] = 0.0f;
    }
  }
}

HWY_NOINLINE void ReorderFromBlockedImpl(const float* x, int64_t channels, int64_t pixels,
                                         float* out) {
  const hn::ScalableTag<float> d;
  const int64_t B = NchwcBlockImpl();
  const int64_t blocks = (channels + B - 1) / B;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t lanes = std::min(B, channels - b * B);
    const float* src = x + b * pixels * B;
    float* dst = out + b * B * pixels;
    int64_t p = 0;
    if (lanes == B && B <= 16) {
      hn::Vec<decltype(d)> v[16];
      for (; p + B <= pixels; p += B) {
        for (int64_t i = 0; i < B; ++i) v[i] = hn::LoadU(d, src + (p + i) * B);
        if (!TransposeTile(d, v)) break;
        for (int64_t j = 0; j < B; ++j) hn::StoreU(v[j], d, dst + j * pixels + p);
      }
    }
    for (; p < pixels; ++p) {
      for (int64_t j = 0; j < lanes; ++j) dst[j * pixels + p] = src[p * B + j];
    }
  }
}

// One output pixel of a depthwise window, every tap checked against the input's bounds.
HWY_INLINE hn::Vec<hn::ScalableTag<float>> DepthwiseEdgePixel(const float* x, int64_t h, int64_t w,
                                                              int64_t kernel, int64_t ih0,
                                                              int64_t iw0, const float* wk) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  // A tap outside the input adds 0 * w, as the NCHW kernels' padded planes do (the same bits,
  // a zero's sign and an infinite weight's NaN included).
  const auto zero = hn::Zero(d);
  auto acc = zero;
  for (int64_t kh = 0; kh < kernel; ++kh) {
    const int64_t ih = ih0 + kh;
    for (int64_t kw = 0; kw < kernel; ++kw) {
      const int64_t iw = iw0 + kw;
      const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < w;
      acc = hn::MulAdd(inside ? hn::LoadU(d, x + (ih * w + iw) * B) : zero,
                       hn::LoadU(d, wk + (kh * kernel + kw) * B), acc);
    }
  }
  return acc;
}

// kPixels output pixels from ow on (their windows inside the input), the input rows streamed:
// per kernel row, the row's kKernel weights stay in registers and each input column is loaded
// once and fed to every output whose window covers it (column j serves output (j - kw) / kStride
// through tap kw). A column per tap and output, as a first version did, made the 5x5 layers
// load-bound (2-3x ONNX Runtime's time on MobileNetV3's). Each output still adds its taps in
// (kh, kw) order.
template <int64_t kKernel, int64_t kStride, int64_t kPixels>
HWY_INLINE void DepthwiseTile(const float* x, int64_t w, int64_t ih0, int64_t iw0, const float* wk,
                              bool has_bias, hn::Vec<hn::ScalableTag<float>> bias,
                              const Epilogue& e, float* y) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  constexpr int64_t kColumns = (kPixels - 1) * kStride + kKernel;
  V acc[kPixels];
  HWY_UNROLL(8)
  for (int64_t i = 0; i < kPixels; ++i) acc[i] = hn::Zero(d);
  HWY_UNROLL(5)
  for (int64_t kh = 0; kh < kKernel; ++kh) {
    const float* row = x + ((ih0 + kh) * w + iw0) * B;
    V wv[kKernel];
    HWY_UNROLL(5)
    for (int64_t kw = 0; kw < kKernel; ++kw) wv[kw] = hn::LoadU(d, wk + (kh * kKernel + kw) * B);
    HWY_UNROLL(32)
    for (int64_t j = 0; j < kColumns; ++j) {
      const V xv = hn::LoadU(d, row + j * B);
      HWY_UNROLL(5)
      for (int64_t kw = 0; kw < kKernel; ++kw) {
        const int64_t t = j - kw;
        if (t >= 0 && t % kStride == 0 && t / kStride < kPixels) {
          acc[t / kStride] = hn::MulAdd(xv, wv[kw], acc[t / kStride]);
        }
      }
    }
  }
  HWY_UNROLL(8)
  for (int64_t i = 0; i < kPixels; ++i) {
    hn::StoreU(ApplyEpilogue(d, e, has_bias ? hn::Add(bias, acc[i]) : acc[i]), d, y + i * B);
  }
}

// The output columns [lo, hi) of one row whose whole window is inside the input (rows checked
// by the caller): tiles of 8 outputs (6 for 5x5 at stride 2: its 16 vector registers under
// AVX2 hold 6 sums, 5 weights and a column), then one at a time.
template <int64_t kKernel, int64_t kStride>
HWY_INLINE void DepthwiseInteriorRow(const float* x, int64_t w, int64_t ih0, int64_t pad_left,
                                     const float* wk, bool has_bias,
                                     hn::Vec<hn::ScalableTag<float>> bias, const Epilogue& e,
                                     float* y_row, int64_t lo, int64_t hi) {
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(hn::ScalableTag<float>()));
  constexpr int64_t kPixels = kKernel == 5 && kStride == 2 ? 6 : 8;
  int64_t ow = lo;
  for (; ow + kPixels <= hi; ow += kPixels) {
    DepthwiseTile<kKernel, kStride, kPixels>(x, w, ih0, ow * kStride - pad_left, wk, has_bias, bias,
                                             e, y_row + ow * B);
  }
  for (; ow < hi; ++ow) {
    DepthwiseTile<kKernel, kStride, 1>(x, w, ih0, ow * kStride - pad_left, wk, has_bias, bias, e,
                                       y_row + ow * B);
  }
}

// A block of a layer that DepthwiseCopiesPadded (nchwc.h): copied with its zero padding into
// `padded` ((out_h - 1) * s + k rows of (out_w - 1) * s + k pixels), then every output row in
// tiles from the copy, the last tile of a row overlapping the one before it rather than narrower
// (an output adds its taps in the same order whichever tile computes it).
template <int64_t kKernel, int64_t kStride>
HWY_INLINE void DepthwiseBlockPadded(const float* x, int64_t h, int64_t w, int64_t pad_top,
                                     int64_t pad_left, const float* wk, const float* bias_block,
                                     const Epilogue& e, float* y, int64_t out_h, int64_t out_w,
                                     float* padded) {
  const hn::ScalableTag<float> d;
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  const int64_t ph = (out_h - 1) * kStride + kKernel, pw = (out_w - 1) * kStride + kKernel;
  for (int64_t r = 0; r < ph; ++r) {
    const int64_t ih = r - pad_top;
    float* dst = padded + r * pw * B;
    for (int64_t c = 0; c < pw; ++c) {
      const int64_t iw = c - pad_left;
      const bool inside = ih >= 0 && ih < h && iw >= 0 && iw < w;
      hn::StoreU(inside ? hn::LoadU(d, x + (ih * w + iw) * B) : hn::Zero(d), d, dst + c * B);
    }
  }
  // Without a bias the sums are stored as they are (0 + -0 would turn a -0 into +0).
  const bool has_bias = bias_block != nullptr;
  const auto bias = has_bias ? hn::LoadU(d, bias_block) : hn::Zero(d);
  const auto tiles = [&](auto width, int64_t ih0, float* y_row) {
    constexpr int64_t kWidth = decltype(width)::value;
    for (int64_t ow = 0;; ow += kWidth) {
      const int64_t at = std::min(ow, out_w - kWidth);
      DepthwiseTile<kKernel, kStride, kWidth>(padded, pw, ih0, at * kStride, wk, has_bias, bias, e,
                                              y_row + at * B);
      if (at + kWidth >= out_w) return;
    }
  };
  for (int64_t oh = 0; oh < out_h; ++oh) {
    float* y_row = y + oh * out_w * B;
    if (out_w >= 8) {
      tiles(std::integral_constant<int64_t, 8>(), oh * kStride, y_row);
    } else if (out_w >= 4) {
      tiles(std::integral_constant<int64_t, 4>(), oh * kStride, y_row);
    } else {
      tiles(std::integral_constant<int64_t, 1>(), oh * kStride, y_row);
    }
  }
}

template <int64_t kKernel, int64_t kStride>
HWY_INLINE void DepthwiseBlock(const float* x, int64_t h, int64_t w, int64_t pad_top,
                               int64_t pad_left, const float* wk, const float* bias_block,
                               const Epilogue& e, float* y, int64_t out_h, int64_t out_w) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  // Without a bias the sums are stored as they are (0 + -0 would turn a -0 into +0).
  const bool has_bias = bias_block != nullptr;
  const auto bias = has_bias ? hn::LoadU(d, bias_block) : hn::Zero(d);
  const auto [col_lo, col_hi] = InsideColumns(w, kKernel, kStride, pad_left, out_w);
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const int64_t ih0 = oh * kStride - pad_top;
    float* y_row = y + oh * out_w * B;
    const bool rows_inside = ih0 >= 0 && ih0 + kKernel <= h;
    const int64_t lo = rows_inside ? col_lo : out_w, hi = rows_inside ? col_hi : out_w;
    for (int64_t ow = 0; ow < lo; ++ow) {
      const auto acc = DepthwiseEdgePixel(x, h, w, kKernel, ih0, ow * kStride - pad_left, wk);
      hn::StoreU(ApplyEpilogue(d, e, has_bias ? hn::Add(bias, acc) : acc), d, y_row + ow * B);
    }
    if (lo < hi) {
      DepthwiseInteriorRow<kKernel, kStride>(x, w, ih0, pad_left, wk, has_bias, bias, e, y_row, lo,
                                             hi);
    }
    for (int64_t ow = std::max(lo, hi); ow < out_w; ++ow) {
      const auto acc = DepthwiseEdgePixel(x, h, w, kKernel, ih0, ow * kStride - pad_left, wk);
      hn::StoreU(ApplyEpilogue(d, e, has_bias ? hn::Add(bias, acc) : acc), d, y_row + ow * B);
    }
  }
}

HWY_NOINLINE void BlockedDepthwiseConvImpl(const float* x, int64_t blocks, int64_t h, int64_t w,
                                           int64_t kernel, int64_t stride, int64_t pad_top,
                                           int64_t pad_left, const float* packed_w,
                                           const float* packed_bias, const Epilogue& epilogue,
                                           float* y, int64_t out_h, int64_t out_w, float* scratch) {
  const int64_t B = NchwcBlockImpl();
  const int64_t taps = kernel * kernel;
  for (int64_t b = 0; b < blocks; ++b) {
    const float* xb = x + b * h * w * B;
    const float* wk = packed_w + b * taps * B;
    const float* bias = packed_bias != nullptr ? packed_bias + b * B : nullptr;
    float* yb = y + b * out_h * out_w * B;
    auto run = [&](auto k, auto s) {
      constexpr int64_t kKernel = decltype(k)::value, kStride = decltype(s)::value;
      if (DepthwiseCopiesPadded(kKernel, kStride)) {
        DepthwiseBlockPadded<kKernel, kStride>(xb, h, w, pad_top, pad_left, wk, bias, epilogue, yb,
                                               out_h, out_w, scratch);
      } else {
        DepthwiseBlock<kKernel, kStride>(xb, h, w, pad_top, pad_left, wk, bias, epilogue, yb, out_h,
                                         out_w);
      }
    };
    if (kernel == 3 && stride == 1)
      run(std::integral_constant<int64_t, 3>(), std::integral_constant<int64_t, 1>());
    if (kernel == 3 && stride == 2)
      run(std::integral_constant<int64_t, 3>(), std::integral_constant<int64_t, 2>());
    if (kernel == 5 && stride == 1)
      run(std::integral_constant<int64_t, 5>(), std::integral_constant<int64_t, 1>());
    if (kernel == 5 && stride == 2)
      run(std::integral_constant<int64_t, 5>(), std::integral_constant<int64_t, 2>());
  }
}

// One input channel (lane j of the blocks at xp and wc) of a pointwise tile: kOuts weight
// vectors and kPixels broadcasts of the pixels' values feed kPixels * kOuts FMAs.
template <int64_t kPixels, int64_t kOuts>
HWY_INLINE void PointwiseChannel(const float* xp, const float* wc, int64_t w_block_stride,
                                 int64_t j,
                                 hn::Vec<hn::ScalableTag<float>> (&acc)[kPixels][kOuts]) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  V wv[kOuts];
  HWY_UNROLL(8)
  for (int64_t o = 0; o < kOuts; ++o) wv[o] = hn::LoadU(d, wc + o * w_block_stride + j * B);
  HWY_UNROLL(8)
  for (int64_t i = 0; i < kPixels; ++i) {
    const V xv = hn::Set(d, xp[i * B + j]);
    HWY_UNROLL(8)
    for (int64_t o = 0; o < kOuts; ++o) acc[i][o] = hn::MulAdd(xv, wv[o], acc[i][o]);
  }
}

// kPixels pixels x kOuts output blocks of a pointwise convolution over `in_channels` input
// channels: the padded lanes of the last input block are skipped (their products are zeros;
// MobileNets' 24, 40, 72 and 88 channels pad to 32, 48, 80 and 96 at 16 lanes).
template <int64_t kPixels, int64_t kOuts>
HWY_INLINE void PointwiseTile(const float* x, int64_t in_channels, int64_t pixels, int64_t p0,
                              const float* w0, int64_t w_block_stride, const float* bias,
                              const float* sum, const Epilogue& e, float* y, int64_t ob) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  // The block as a constant: the channel loop below unrolls (measured 10-20% on MobileNetV2's
  // layers against a run-time bound).
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  V acc[kPixels][kOuts];
  HWY_UNROLL(8)
  for (int64_t i = 0; i < kPixels; ++i) {
    HWY_UNROLL(8)
    for (int64_t o = 0; o < kOuts; ++o) acc[i][o] = hn::Zero(d);
  }
  const int64_t full_blocks = in_channels / B;
  for (int64_t cb = 0; cb < full_blocks; ++cb) {
    const float* xp = x + (cb * pixels + p0) * B;
    const float* wc = w0 + cb * B * B;
    HWY_UNROLL(8)
    for (int64_t j = 0; j < B; ++j) {
      PointwiseChannel<kPixels, kOuts>(xp, wc, w_block_stride, j, acc);
    }
  }
  const float* xp = x + (full_blocks * pixels + p0) * B;
  const float* wc = w0 + full_blocks * B * B;
  for (int64_t j = 0; j < in_channels - full_blocks * B; ++j) {
    PointwiseChannel<kPixels, kOuts>(xp, wc, w_block_stride, j, acc);
  }
  HWY_UNROLL(8)
  for (int64_t o = 0; o < kOuts; ++o) {
    const V bv = bias != nullptr ? hn::LoadU(d, bias + (ob + o) * B) : hn::Zero(d);
    float* yo = y + ((ob + o) * pixels + p0) * B;
    const float* so = sum != nullptr ? sum + ((ob + o) * pixels + p0) * B : nullptr;
    HWY_UNROLL(8)
    for (int64_t i = 0; i < kPixels; ++i) {
      V v = hn::Add(bv, acc[i][o]);
      if (so != nullptr) v = hn::Add(v, hn::LoadU(d, so + i * B));
      hn::StoreU(ApplyEpilogue(d, e, v), d, yo + i * B);
    }
  }
}

template <int64_t kOuts>
HWY_INLINE void PointwiseOutputs(const float* x, int64_t in_channels, int64_t pixels,
                                 int64_t pixel_begin, int64_t pixel_end, const float* w0,
                                 int64_t w_block_stride, const float* bias, const float* sum,
                                 const Epilogue& e, float* y, int64_t ob) {
  constexpr int64_t kPixels = kOuts == 2 ? 6 : 8;
  int64_t p = pixel_begin;
  for (; p + kPixels <= pixel_end; p += kPixels) {
    PointwiseTile<kPixels, kOuts>(x, in_channels, pixels, p, w0, w_block_stride, bias, sum, e, y,
                                  ob);
  }
  // The last pixels in one narrower tile (the weights read once more, not once per pixel: a
  // 14x14 plane ends in 4 pixels, which one pixel at a time cost ~8% of the layer).
  const auto tail = [&](auto count) {
    PointwiseTile<decltype(count)::value, kOuts>(x, in_channels, pixels, p, w0, w_block_stride,
                                                 bias, sum, e, y, ob);
  };
  const int64_t rest = pixel_end - p;
  if constexpr (kPixels > 7) {
    if (rest == 7) return tail(std::integral_constant<int64_t, 7>());
    if (rest == 6) return tail(std::integral_constant<int64_t, 6>());
  }
  if (rest == 5) return tail(std::integral_constant<int64_t, 5>());
  if (rest == 4) return tail(std::integral_constant<int64_t, 4>());
  if (rest == 3) return tail(std::integral_constant<int64_t, 3>());
  if (rest == 2) return tail(std::integral_constant<int64_t, 2>());
  if (rest == 1) return tail(std::integral_constant<int64_t, 1>());
}

HWY_NOINLINE void BlockedPointwiseConvImpl(const float* x, int64_t in_channels, int64_t pixels,
                                           const float* packed_w, const float* packed_bias,
                                           const float* sum, const Epilogue& epilogue, float* y,
                                           int64_t out_blocks, int64_t pixel_begin,
                                           int64_t pixel_end) {
  const int64_t B = NchwcBlockImpl();
  const int64_t in_blocks = (in_channels + B - 1) / B;
  const int64_t w_block_stride = in_blocks * B * B;  // one output block's packed weights
  int64_t ob = 0;
  for (; ob + 2 <= out_blocks; ob += 2) {
    PointwiseOutputs<2>(x, in_channels, pixels, pixel_begin, pixel_end,
                        packed_w + ob * w_block_stride, w_block_stride, packed_bias, sum, epilogue,
                        y, ob);
  }
  for (; ob < out_blocks; ++ob) {
    PointwiseOutputs<1>(x, in_channels, pixels, pixel_begin, pixel_end,
                        packed_w + ob * w_block_stride, w_block_stride, packed_bias, sum, epilogue,
                        y, ob);
  }
}

// kPixels outputs of one row of a planar-input convolution from column ow on, for kOuts output
// blocks, over the window rows [kh_lo, kh_hi) (the rows inside the input: a row of padding adds
// only zeros), every column tap inside the input (kInside) or checked: per tap kOuts weight
// vectors and one broadcast input per output, shared by the blocks (the broadcasts, not the
// FMAs, bound this kernel: more blocks at a time cut them per FMA).
template <int64_t kPixels, int64_t kOuts, bool kInside>
HWY_INLINE void PlanarTile(const float* x, int64_t channels, int64_t h, int64_t w, int64_t kernel_h,
                           int64_t kernel_w, int64_t stride_w, int64_t ih0, int64_t kh_lo,
                           int64_t kh_hi, int64_t iw0, const float* wb, int64_t w_block_stride,
                           const float* bias, const Epilogue& e, float* y, int64_t y_block_stride) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  V acc[kOuts][kPixels];
  HWY_UNROLL(4)
  for (int64_t o = 0; o < kOuts; ++o) {
    HWY_UNROLL(16)
    for (int64_t i = 0; i < kPixels; ++i) acc[o][i] = hn::Zero(d);
  }
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const float* row = x + (c * h + ih0 + kh) * w;
      const float* wk = wb + (c * kernel_h + kh) * kernel_w * B;
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        V wv[kOuts];
        HWY_UNROLL(4)
        for (int64_t o = 0; o < kOuts; ++o) wv[o] = hn::LoadU(d, wk + o * w_block_stride + kw * B);
        HWY_UNROLL(16)
        for (int64_t i = 0; i < kPixels; ++i) {
          const int64_t iw = iw0 + i * stride_w + kw;
          float v;
          if constexpr (kInside) {
            v = row[iw];
          } else {
            v = iw >= 0 && iw < w ? row[iw] : 0.0f;
          }
          const V xv = hn::Set(d, v);
          HWY_UNROLL(4)
          for (int64_t o = 0; o < kOuts; ++o) acc[o][i] = hn::MulAdd(xv, wv[o], acc[o][i]);
        }
      }
    }
  }
  HWY_UNROLL(4)
  for (int64_t o = 0; o < kOuts; ++o) {
    const V bv = bias != nullptr ? hn::LoadU(d, bias + o * B) : hn::Zero(d);
    HWY_UNROLL(16)
    for (int64_t i = 0; i < kPixels; ++i) {
      const V v = bias != nullptr ? hn::Add(bv, acc[o][i]) : acc[o][i];
      hn::StoreU(ApplyEpilogue(d, e, v), d, y + o * y_block_stride + i * B);
    }
  }
}

// Output blocks per planar tile, and pixels per tile for kOuts blocks: the accumulators take at
// most 12 of AVX2's 16 vector registers, and 24 of AVX-512's 32.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr int64_t kPlanarMaxOuts = 4;
constexpr int64_t kPlanarAccumulators = 24;
#else
constexpr int64_t kPlanarMaxOuts = 2;
constexpr int64_t kPlanarAccumulators = 12;
#endif

// One row of kOuts output blocks: edge columns one at a time (taps checked), the interior in
// tiles of kPlanarAccumulators / kOuts pixels.
template <int64_t kOuts>
HWY_INLINE void PlanarRow(const float* x, int64_t channels, int64_t h, int64_t w, int64_t kernel_h,
                          int64_t kernel_w, int64_t stride_w, int64_t ih0, int64_t pad_left,
                          const float* wb, int64_t w_block_stride, const float* bias,
                          const Epilogue& e, float* y_row, int64_t y_block_stride, int64_t out_w,
                          int64_t lo, int64_t hi) {
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(hn::ScalableTag<float>()));
  // One block takes half the accumulators: with all 24 (AVX-512), UNet's 16-channel layers ran
  // 2.3x slower than with 12 (nchwc_benchmark BM_PlanarDense/16/16/128: 1313 against 575 us).
  constexpr int64_t kPixels = kOuts == 1 ? kPlanarAccumulators / 2 : kPlanarAccumulators / kOuts;
  const int64_t kh_lo = std::max<int64_t>(0, -ih0);
  const int64_t kh_hi = std::max(kh_lo, std::min(kernel_h, h - ih0));
  const auto edge = [&](int64_t ow) {
    PlanarTile<1, kOuts, false>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0, kh_lo, kh_hi,
                                ow * stride_w - pad_left, wb, w_block_stride, bias, e,
                                y_row + ow * B, y_block_stride);
  };
  for (int64_t ow = 0; ow < lo; ++ow) edge(ow);
  int64_t ow = lo;
  for (; ow + kPixels <= hi; ow += kPixels) {
    PlanarTile<kPixels, kOuts, true>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0, kh_lo,
                                     kh_hi, ow * stride_w - pad_left, wb, w_block_stride, bias, e,
                                     y_row + ow * B, y_block_stride);
  }
  // The rest of the interior in one narrower tile when it is worth one (4 pixels or more).
  if constexpr (kPixels >= 8) {
    if (hi - ow >= kPixels / 2) {
      PlanarTile<kPixels / 2, kOuts, true>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0,
                                           kh_lo, kh_hi, ow * stride_w - pad_left, wb,
                                           w_block_stride, bias, e, y_row + ow * B, y_block_stride);
      ow += kPixels / 2;
    }
  }
  for (; ow < out_w; ++ow) edge(ow);
}

HWY_NOINLINE void BlockedConvFromPlanarImpl(const float* x, int64_t channels, int64_t h, int64_t w,
                                            int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                                            int64_t stride_w, int64_t pad_top, int64_t pad_left,
                                            const float* packed_w, const float* packed_bias,
                                            const Epilogue& e, float* y, int64_t out_blocks,
                                            int64_t out_h, int64_t out_w, int64_t row_begin,
                                            int64_t row_end) {
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(hn::ScalableTag<float>()));
  const auto [col_lo, col_hi] = InsideColumns(w, kernel_w, stride_w, pad_left, out_w);
  const int64_t weights = channels * kernel_h * kernel_w * B;  // one block's
  const int64_t plane = out_h * out_w * B;                     // one block's outputs
  for (int64_t ob = 0; ob < out_blocks;) {
    const int64_t left = out_blocks - ob;
    const int64_t outs = left >= kPlanarMaxOuts ? kPlanarMaxOuts : left >= 2 ? 2 : 1;
    const float* wb = packed_w + ob * weights;
    const float* bias = packed_bias != nullptr ? packed_bias + ob * B : nullptr;
    for (int64_t oh = row_begin; oh < row_end; ++oh) {
      const int64_t ih0 = oh * stride_h - pad_top;
      float* y_row = y + ob * plane + oh * out_w * B;
      if (outs == kPlanarMaxOuts) {
        PlanarRow<kPlanarMaxOuts>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0, pad_left,
                                  wb, weights, bias, e, y_row, plane, out_w, col_lo, col_hi);
      } else if (outs == 2) {
        PlanarRow<2>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0, pad_left, wb, weights,
                     bias, e, y_row, plane, out_w, col_lo, col_hi);
      } else {
        PlanarRow<1>(x, channels, h, w, kernel_h, kernel_w, stride_w, ih0, pad_left, wb, weights,
                     bias, e, y_row, plane, out_w, col_lo, col_hi);
      }
    }
    ob += outs;
  }
}

HWY_NOINLINE void BlockedPadChannelsImpl(const float* x, int64_t channels, int64_t pixels, float* y,
                                         int64_t out_blocks) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  const int64_t in_blocks = (channels + B - 1) / B;
  for (int64_t b = 0; b < out_blocks; ++b) {
    float* yb = y + b * pixels * B;
    const int64_t lanes = b < in_blocks ? std::min(B, channels - b * B) : 0;
    if (lanes == 0) {
      for (int64_t p = 0; p < pixels; ++p) hn::StoreU(hn::Zero(d), d, yb + p * B);
      continue;
    }
    const float* xb = x + b * pixels * B;
    const auto keep = hn::FirstN(d, static_cast<size_t>(lanes));
    for (int64_t p = 0; p < pixels; ++p) {
      hn::StoreU(hn::IfThenElseZero(keep, hn::LoadU(d, xb + p * B)), d, yb + p * B);
    }
  }
}

// kOut outputs of one row of a blocked max pool, adjacent columns from the window column iw0 on,
// window rows [kh_lo, kh_hi) and columns [kw_lo, kw_hi): kOut independent folds, so that the
// comparisons' latency overlaps (one fold at a time waited on each compare and blend).
template <int64_t kOut>
HWY_INLINE void MaxPoolOutputs(const float* xb, int64_t w, int64_t ih0, int64_t iw0,
                               int64_t stride_w, int64_t kh_lo, int64_t kh_hi, int64_t kw_lo,
                               int64_t kw_hi, float* y) {
  const hn::ScalableTag<float> d;
  constexpr int64_t B = static_cast<int64_t>(hn::MaxLanes(d));
  hn::Vec<decltype(d)> m[kOut];
  for (int64_t i = 0; i < kOut; ++i) m[i] = hn::Set(d, -std::numeric_limits<float>::infinity());
  for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
    const float* row = xb + ((ih0 + kh) * w + iw0) * B;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      HWY_UNROLL(4)
      for (int64_t i = 0; i < kOut; ++i) {
        const auto v = hn::LoadU(d, row + (i * stride_w + kw) * B);
        // NaN wins, as in the NCHW kernel's comparisons.
        m[i] = hn::IfThenElse(hn::Or(hn::Gt(v, m[i]), hn::IsNaN(v)), v, m[i]);
      }
    }
  }
  for (int64_t i = 0; i < kOut; ++i) hn::StoreU(m[i], d, y + i * B);
}

HWY_NOINLINE void BlockedMaxPoolImpl(const float* x, int64_t blocks, int64_t h, int64_t w,
                                     int64_t kernel_h, int64_t kernel_w, int64_t stride_h,
                                     int64_t stride_w, int64_t pad_top, int64_t pad_left, float* y,
                                     int64_t out_h, int64_t out_w) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  const auto [col_lo, col_hi] = InsideColumns(w, kernel_w, stride_w, pad_left, out_w);
  for (int64_t b = 0; b < blocks; ++b) {
    const float* xb = x + b * h * w * B;
    float* yb = y + b * out_h * out_w * B;
    for (int64_t oh = 0; oh < out_h; ++oh) {
      // The window's rows inside the input (the padding is not part of any max).
      const int64_t ih0 = oh * stride_h - pad_top;
      const int64_t kh_lo = std::max<int64_t>(0, -ih0);
      const int64_t kh_hi = std::min(kernel_h, h - ih0);
      float* y_row = yb + oh * out_w * B;
      const auto edge = [&](int64_t ow) {
        const int64_t iw0 = ow * stride_w - pad_left;
        MaxPoolOutputs<1>(xb, w, ih0, iw0, stride_w, kh_lo, kh_hi, std::max<int64_t>(0, -iw0),
                          std::min(kernel_w, w - iw0), y_row + ow * B);
      };
      for (int64_t ow = 0; ow < col_lo; ++ow) edge(ow);
      int64_t ow = col_lo;
      for (; ow + 4 <= col_hi; ow += 4) {
        MaxPoolOutputs<4>(xb, w, ih0, ow * stride_w - pad_left, stride_w, kh_lo, kh_hi, 0, kernel_w,
                          y_row + ow * B);
      }
      for (; ow < out_w; ++ow) edge(ow);
    }
  }
}

HWY_NOINLINE void BlockedGlobalAveragePoolImpl(const float* x, int64_t blocks, int64_t pixels,
                                               float* y) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  const auto count = hn::Set(d, static_cast<float>(pixels));
  for (int64_t b = 0; b < blocks; ++b) {
    const float* xb = x + b * pixels * B;
    auto sum = hn::Zero(d);
    for (int64_t p = 0; p < pixels; ++p) sum = hn::Add(sum, hn::LoadU(d, xb + p * B));
    hn::StoreU(hn::Div(sum, count), d, y + b * B);
  }
}

HWY_NOINLINE void BlockedScaleChannelsImpl(const float* x, const float* scale, int64_t blocks,
                                           int64_t pixels, float* y) {
  const hn::ScalableTag<float> d;
  const int64_t B = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t b = 0; b < blocks; ++b) {
    const auto s = hn::LoadU(d, scale + b * B);
    const float* xb = x + b * pixels * B;
    float* yb = y + b * pixels * B;
    for (int64_t p = 0; p < pixels; ++p) {
      hn::StoreU(hn::Mul(hn::LoadU(d, xb + p * B), s), d, yb + p * B);
    }
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
