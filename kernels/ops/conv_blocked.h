// Conv's blocked direct path: strided dense 2-D float convolutions with a constant weight of few
// input channels and at least twice as many outputs (a detector's downsampling layers: 16 -> 32,
// 32 -> 64 at stride 2; a 7x7 stride-2 stem on RGB outside a blocked chain) run the blocked
// layout's planar-input kernel (simd::BlockedConvFromPlanar: a vector holds one pixel of B output
// channels, each input value broadcast once for up to four blocks) into scratch, then reorder to
// NCHW, instead of im2col + GEMM, whose column matrix costs most per multiply-add at few channels.
//
// Measured on Zen 5 (AVX-512, one thread, a Conv model alone, best of alternating runs): 3x3
// stride 2, 32 -> 64 channels at 40x40, 0.096 against 0.119 ms; 7x7 stride 2 on RGB 224x224,
// 1.26 against 1.37; 16 -> 32 at 80x80 within the machine's noise of im2col (0.117-0.142 against
// 0.127-0.130). It lost to im2col with more input channels (64 -> 128 at 20x20: 0.115 against
// 0.097) and, inside UNet, to Winograd at stride 1 (16 -> 32 at 64x64: 0.33 against 0.20-0.31
// ms), which keep those.
//
// Results: each output adds its terms in (input channel, kh, kw) order with fused multiply-adds
// from 0, skipping window rows in the padding, then the bias, then the epilogue; they differ
// from im2col's by rounding only, and do not depend on the thread count.
#ifndef ANVIL_KERNELS_OPS_CONV_BLOCKED_H_
#define ANVIL_KERNELS_OPS_CONV_BLOCKED_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/ir.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/activation.h"

namespace anvil::compute_ops {

// A Conv weight [M, C, KH, KW] packed for simd::BlockedConvFromPlanar.
struct BlockedConvWeights {
  int64_t out_channels = 0, in_channels = 0, kernel_h = 0, kernel_w = 0;
  std::vector<float> packed;  // simd::PackBlockedPlanarWeights' layout
  int64_t OwnedBytes() const { return static_cast<int64_t>(packed.size() * sizeof(float)); }
};

// The packed weight of a Conv node whose weight (input 1) is a finite float initializer (or a
// 16-bit one, widened) [M, C, KH, KW] that a run cannot override, with group 1, unit dilations,
// strides of at least 2, more than 32 channel-taps (C * KH * KW; fewer run conv_direct.h), at
// most 32 input channels and M >= 2 * C; null otherwise. A weight with an inf or NaN keeps the
// other paths, whose padding taps multiply it by 0.
std::unique_ptr<const BlockedConvWeights> PrepareBlockedConvWeights(const Node& node);

// Whether BlockedConv2D runs a convolution of geometry `g` with these weights: 2-D, the weight's
// window, unit dilations.
bool BlockedConvApplies(const WindowGeometry& g, const BlockedConvWeights& w);

// y [N, M, OH, OW] = epilogue(conv(x [N, C, H, W], the weight) + bias (M values, or null)).
void BlockedConv2D(const WindowGeometry& g, int64_t N, const BlockedConvWeights& w, const float* x,
                   const float* bias, const simd::Epilogue& epilogue, float* y);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_BLOCKED_H_
