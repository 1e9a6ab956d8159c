// The direct 2-D float convolutions (private to //kernels; conv_internal.h lists the convolution
// files): depthwise convolutions and dense ones with few input channels, without im2col, by the
// kernels of simd/depthwise.h. Each output accumulates its taps in the order the im2col GEMM
// runs down its column, with the same fused multiply-adds, so the results are the im2col +
// GEMM path's bits (padding taps add w * 0, which changes nothing for finite weights) at a
// fraction of its cost, and the epilogue is applied in registers.
//
// Layouts as in conv_internal.h; `g` is a 2-D window.
#ifndef ANVIL_KERNELS_OPS_CONV_DIRECT_H_
#define ANVIL_KERNELS_OPS_CONV_DIRECT_H_

#include <cstdint>

#include "kernels/ops/compute_util.h"
#include "kernels/simd/activation.h"

namespace anvil::compute_ops {

// Depthwise: one input channel per group (C == group), any number of outputs per group.
void DepthwiseConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                     const float* x, const float* w, const float* bias,
                     const simd::Epilogue& epilogue, float* y);

// Input channels x taps up to which a dense 2-D convolution runs the direct kernel
// (simd::DirectConvPlanes) instead of im2col + GEMM: a 3-channel 3x3 first layer (27) fills too
// short a GEMM K to amortize the panel fill (measured 0.236 -> 0.197 ms on [16, 3, 32, 32] ->
// 16 channels, 3x3).
inline constexpr int64_t kMaxDirectDepth = 32;

// Whether a convolution with `Cg` input channels per group runs DirectConv2D: 2-D, one group,
// a kernel larger than 1x1 and few input channels x taps (too short a GEMM K to pay for
// packing).
bool UsesDirectConv(const WindowGeometry& g, int64_t Cg, int64_t group);

// A dense 2-D convolution (one group) that UsesDirectConv. Threads split (image, block of output
// channels) pairs.
void DirectConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, const float* x,
                  const float* w, const float* bias, const simd::Epilogue& epilogue, float* y);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_DIRECT_H_
