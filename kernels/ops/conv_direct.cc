#include "kernels/ops/conv_direct.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "base/parallel.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/depthwise.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/nchwc.h"

namespace anvil::compute_ops {
namespace {

// Where each tap of a 2-D window reads, for the direct kernels (simd/depthwise.h), which read
// input planes in place, or, with a column stride, split into their column phases (phase p
// holds columns p, p + sw, ...: plane_w = ceil(W / sw) wide) so that every tap reads
// contiguous runs.
class DirectTaps {
 public:
  explicit DirectTaps(const WindowGeometry& g)
      : H_(g.in[0]), W_(g.in[1]), sw_(g.strides[1]), plane_w_((W_ + sw_ - 1) / sw_) {
    const int64_t OH = g.out[0], OW = g.out[1], sh = g.strides[0];
    const int64_t dh = g.dilations[0], dw = g.dilations[1];
    const int64_t KH = g.kernel[0], KW = g.kernel[1];
    // Per kernel column: the valid output columns [lo, hi) and where the first one reads.
    lo_.resize(KW);
    hi_.resize(KW);
    col_offset_.resize(KW);
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t off = kw * dw - g.pad_begin[1];
      std::tie(lo_[kw], hi_[kw]) = InsideRange(OW, W_, off, sw_);
      const int64_t col = off + lo_[kw] * sw_;  // the first valid input column (when any)
      col_offset_[kw] = sw_ == 1 ? col : (col % sw_) * H_ * plane_w_ + col / sw_;
    }
    // Per kernel row: the valid output rows [row_lo, row_hi) (0 <= oh * sh - ph + kh * dh < H).
    row_lo_.resize(KH);
    row_hi_.resize(KH);
    row_offset_.resize(KH);
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t first = kh * dh - g.pad_begin[0];  // input row of output row 0
      std::tie(row_lo_[kh], row_hi_[kh]) = InsideRange(OH, H_, first, sh);
      row_offset_[kh] = (row_lo_[kh] * sh + first) * plane_w_;
    }
    taps_.kernel_h = KH;
    taps_.kernel_w = KW;
    taps_.out_h = OH;
    taps_.out_w = OW;
    taps_.row_step = sh * plane_w_;
    taps_.row_lo = row_lo_.data();
    taps_.row_hi = row_hi_.data();
    taps_.row_offset = row_offset_.data();
    taps_.col_lo = lo_.data();
    taps_.col_hi = hi_.data();
    taps_.col_offset = col_offset_.data();
  }

  const simd::DepthwiseTaps& taps() const { return taps_; }
  // Floats of one plane as the kernels read it (its phases with a column stride).
  int64_t PhasedSize() const { return sw_ * H_ * plane_w_; }
  bool NeedsPhases() const { return sw_ != 1; }

  // Splits the input plane x (H x W) into its column phases at `phases` (PhasedSize() floats).
  void SplitPhases(const float* x, float* phases) const {
    for (int64_t ih = 0; ih < H_; ++ih) {
      const float* src = x + ih * W_;
      if (sw_ == 2) {
        simd::Deinterleave(src, phases + ih * plane_w_, phases + (H_ + ih) * plane_w_,
                           static_cast<size_t>(W_));
        continue;
      }
      for (int64_t p = 0; p < sw_; ++p) {
        float* dst = phases + (p * H_ + ih) * plane_w_;
        for (int64_t j = 0; p + j * sw_ < W_; ++j) dst[j] = src[p + j * sw_];
      }
    }
  }

 private:
  int64_t H_, W_, sw_, plane_w_;
  std::vector<int64_t> lo_, hi_, col_offset_, row_lo_, row_hi_, row_offset_;
  simd::DepthwiseTaps taps_;
};

// Zero-padded, column-phase-split copies of input planes in the layout of
// simd::DepthwisePaddedPlane, for square windows whose kernel it has.
class PaddedPhases {
 public:
  // Whether the geometry is one DepthwisePaddedPlane takes: 2-D, a square 3x3 or 5x5 window,
  // equal strides of 1 or 2, no dilation, and pads under the window (a larger pad, which only a
  // hostile model has, would make the padded copy larger than the plane by any factor).
  static bool Applies(const WindowGeometry& g) {
    if (g.spatial != 2 || g.kernel[0] != g.kernel[1] || g.strides[0] != g.strides[1] ||
        g.dilations[0] != 1 || g.dilations[1] != 1 ||
        !simd::DepthwisePaddedSupports(g.kernel[0], g.strides[0])) {
      return false;
    }
    for (int d = 0; d < 2; ++d) {
      if (g.pad_begin[d] >= g.kernel[d] || g.pad_end[d] >= g.kernel[d]) return false;
    }
    return true;
  }

  explicit PaddedPhases(const WindowGeometry& g)
      : g_(g),
        stride_(g.strides[0]),
        rows_((g.out[0] - 1) * stride_ + g.kernel[0]),
        // Whole vectors (up to 16 lanes) past the last output column, plus the widest tap shift.
        ld_((g.out[1] + 15) / 16 * 16 + 16) {}

  int64_t ld() const { return ld_; }
  // Floats of one padded plane, and of the row buffer Fill needs.
  int64_t Size() const { return stride_ * rows_ * ld_; }
  int64_t RowBufferSize() const { return stride_ * ld_; }

  // Writes the padded phases of plane x (H x W) to dst, with `row` (RowBufferSize() floats) as
  // the buffer of one padded row when the columns are split. With `borders_written`, dst and row
  // hold an earlier Fill's planes of this geometry: their zeros (the padding, the columns past
  // the input) are in place and only the input's own values are written.
  void Fill(const float* x, float* dst, float* row, bool borders_written) const {
    const int64_t H = g_.in[0], W = g_.in[1], pt = g_.pad_begin[0];
    const int64_t width = stride_ * ld_;  // padded columns kept
    const int64_t left = std::min(g_.pad_begin[1], width);
    const int64_t copied = std::clamp<int64_t>(width - left, 0, W);
    for (int64_t r = 0; r < rows_; ++r) {
      const int64_t ih = r - pt;
      const bool inside = ih >= 0 && ih < H;
      float* out = stride_ == 1 ? dst + r * ld_ : row;
      if (!inside) {
        if (borders_written) continue;
        std::fill(out, out + width, 0.0f);
      } else {
        if (!borders_written) {
          std::fill(out, out + left, 0.0f);
          std::fill(out + left + copied, out + width, 0.0f);
        }
        std::copy(x + ih * W, x + ih * W + copied, out + left);
      }
      if (stride_ == 2) {
        simd::Deinterleave(row, dst + r * ld_, dst + (rows_ + r) * ld_, static_cast<size_t>(width));
      }
    }
  }

 private:
  const WindowGeometry& g_;
  int64_t stride_, rows_, ld_;
};

// Output planes up to which a depthwise convolution of at least a block of channels runs in the
// blocked layout (simd/nchwc.h), reordered in and out per call, instead of plane by plane.
// Measured (one thread, best of 5 x 200 runs): [576, 14, 14] stride 2 -> 7x7 0.176 -> 0.083 ms,
// [960, 7, 7] 0.108 -> 0.092; but [384, 14, 14] 0.147 -> 0.173 and [192, 28, 28] 0.217 ->
// 0.227, where the reorders cost more than the planes' setup they save.
constexpr int64_t kMaxBlockedDepthwisePlane = 8 * 8;

}  // namespace

// Depthwise 2-D convolution (one input channel per group, any number of outputs per group)
// without im2col: each output row accumulates, tap by tap, a fused multiply-add of the shifted
// (for strides > 1, gathered) input row. That is the sequence of fused operations, in the same
// tap order, that the GEMM runs down the im2col column (padding taps add w * 0, which changes
// nothing for finite weights), so results are the GEMM path's bits at a fraction of its cost.
void DepthwiseConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                     const float* x, const float* w, const float* bias,
                     const simd::Epilogue& epilogue, float* y) {
  const int64_t Mg = M / group;
  const double plane_work = static_cast<double>(g.out_size * g.kernel_size);
  const int64_t B = simd::NchwcBlock();
  if (Mg == 1 && C == M && C >= B && g.out_size <= kMaxBlockedDepthwisePlane &&
      PaddedPhases::Applies(g)) {
    // Small planes of many channels (MobileNet's last 7x7 layers) go through the blocked layout
    // (simd/nchwc.h), reordered in and out for the call: a vector holds a pixel of B channels,
    // where a padded plane's setup per channel would cost more than its taps. The same bits.
    const int64_t blocks = (C + B - 1) / B, taps = g.kernel_size;
    ScratchBuffers scratch;
    float* xb = scratch.Get<float>(0, blocks * B * g.in_size);
    float* yb = scratch.Get<float>(1, blocks * B * g.out_size);
    float* wb = scratch.Get<float>(2, blocks * (taps + 1) * B);  // the weights, then the bias
    float* bb = wb + blocks * taps * B;
    simd::PackBlockedDepthwiseWeights(w, bias, C, taps, wb, bias != nullptr ? bb : nullptr);
    for (int64_t n = 0; n < N; ++n) {
      parallel::For(
          blocks, parallel::MinChunk(plane_work * B, parallel::kMinChunkElements),
          [&](int64_t b0, int64_t b1) {
            const int64_t c0 = b0 * B, count = std::min(C, b1 * B) - c0;
            simd::ReorderToBlocked(x + (n * C + c0) * g.in_size, count, g.in_size,
                                   xb + c0 * g.in_size);
            ScratchBuffers chunk_scratch;
            simd::BlockedDepthwiseConv(
                xb + c0 * g.in_size, b1 - b0, g.in[0], g.in[1], g.kernel[0], g.strides[0],
                g.pad_begin[0], g.pad_begin[1], wb + b0 * taps * B,
                bias != nullptr ? bb + c0 : nullptr, epilogue, yb + c0 * g.out_size, g.out[0],
                g.out[1],
                chunk_scratch.Get<float>(0, simd::BlockedDepthwiseScratchSize(
                                                g.kernel[0], g.strides[0], g.out[0], g.out[1])));
            simd::ReorderFromBlocked(yb + c0 * g.out_size, count, g.out_size,
                                     y + (n * M + c0) * g.out_size);
          });
    }
    return;
  }
  if (PaddedPhases::Applies(g)) {
    const PaddedPhases padded(g);
    parallel::For(N * M, parallel::MinChunk(plane_work, parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    ScratchBuffers scratch;
                    float* plane = scratch.Get<float>(0, padded.Size());
                    float* row = scratch.Get<float>(1, padded.RowBufferSize());
                    for (int64_t nm = begin; nm < end; ++nm) {
                      const int64_t n = nm / M, m = nm % M;
                      if (nm == begin || m % Mg == 0) {
                        padded.Fill(x + (n * C + m / Mg) * g.in_size, plane, row, nm != begin);
                      }
                      simd::DepthwisePaddedPlane(plane, padded.ld(), g.kernel[0], g.strides[0],
                                                 w + m * g.kernel_size,
                                                 bias != nullptr ? bias + m : nullptr, epilogue,
                                                 y + nm * g.out_size, g.out[0], g.out[1]);
                    }
                  });
    return;
  }
  const DirectTaps direct(g);
  parallel::For(N * M, parallel::MinChunk(plane_work, parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  ScratchBuffers scratch;
                  float* phases =
                      direct.NeedsPhases() ? scratch.Get<float>(0, direct.PhasedSize()) : nullptr;
                  for (int64_t nm = begin; nm < end; ++nm) {
                    const int64_t n = nm / M, m = nm % M;
                    const float* xc = x + (n * C + m / Mg) * g.in_size;
                    if (phases != nullptr && (nm == begin || m % Mg == 0)) {
                      direct.SplitPhases(xc, phases);
                    }
                    simd::DepthwisePlane(
                        direct.taps(), phases != nullptr ? phases : xc, w + m * g.kernel_size,
                        bias != nullptr ? bias + m : nullptr, epilogue, y + nm * g.out_size);
                  }
                });
}

bool UsesDirectConv(const WindowGeometry& g, int64_t Cg, int64_t group) {
  // 1x1 kernels stay with the GEMM, which reads X itself (measured: MobileNet's 1x1
  // squeeze-excitation and expansion layers of 16-32 channels are slower direct).
  return g.spatial == 2 && group == 1 && g.kernel_size > 1 && Cg * g.kernel_size <= kMaxDirectDepth;
}

// A dense 2-D convolution with few input channels, by the direct kernel: the im2col GEMM's bits
// (see simd/depthwise.h). Threads split (image, block of output channels) pairs.
void DirectConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, const float* x,
                  const float* w, const float* bias, const simd::Epilogue& epilogue, float* y) {
  constexpr int64_t kOutBlock = 4;  // the kernel's output channels at a time
  const int64_t blocks = (M + kOutBlock - 1) / kOutBlock;
  const double pair_flops = 2.0 * static_cast<double>(g.out_size * g.kernel_size * C * kOutBlock);
  if (PaddedPhases::Applies(g)) {
    const PaddedPhases padded(g);
    parallel::For(N * blocks, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    ScratchBuffers scratch;
                    float* planes = scratch.Get<float>(0, C * padded.Size());
                    float* row = scratch.Get<float>(1, padded.RowBufferSize());
                    for (int64_t pair = begin; pair < end; ++pair) {
                      const int64_t n = pair / blocks, k0 = pair % blocks * kOutBlock;
                      if (pair == begin || k0 == 0) {
                        for (int64_t c = 0; c < C; ++c) {
                          padded.Fill(x + (n * C + c) * g.in_size, planes + c * padded.Size(), row,
                                      pair != begin);
                        }
                      }
                      simd::DirectConvPaddedPlanes(
                          planes, padded.Size(), padded.ld(), C, g.kernel[0], g.strides[0],
                          w + k0 * C * g.kernel_size, std::min(kOutBlock, M - k0),
                          bias != nullptr ? bias + k0 : nullptr, epilogue,
                          y + (n * M + k0) * g.out_size, g.out_size, g.out[0], g.out[1]);
                    }
                  });
    return;
  }
  const DirectTaps direct(g);
  parallel::For(N * blocks, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
                [&](int64_t begin, int64_t end) {
                  const int64_t plane = direct.NeedsPhases() ? direct.PhasedSize() : g.in_size;
                  ScratchBuffers scratch;
                  float* phases = direct.NeedsPhases() ? scratch.Get<float>(0, C * plane) : nullptr;
                  for (int64_t pair = begin; pair < end; ++pair) {
                    const int64_t n = pair / blocks, k0 = pair % blocks * kOutBlock;
                    const float* xn = x + n * C * g.in_size;
                    if (phases != nullptr && (pair == begin || k0 == 0)) {
                      for (int64_t c = 0; c < C; ++c)
                        direct.SplitPhases(xn + c * g.in_size, phases + c * plane);
                    }
                    const int64_t outs = std::min(kOutBlock, M - k0);
                    simd::DirectConvPlanes(direct.taps(), phases != nullptr ? phases : xn, plane, C,
                                           w + k0 * C * g.kernel_size, outs,
                                           bias != nullptr ? bias + k0 : nullptr, epilogue,
                                           y + (n * M + k0) * g.out_size, g.out_size);
                  }
                });
}

}  // namespace anvil::compute_ops
