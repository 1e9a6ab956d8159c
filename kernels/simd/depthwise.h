// One plane of a depthwise 2-D convolution (float32), with Highway, dispatched at run time: the
// kernel loops of ops/conv_direct.cc's depthwise path in per-target code, so that a plane costs
// one dispatch however small it is (MobileNet-style networks have hundreds of 8x8 planes).
//
// y (out_h x out_w, dense) = bias + sum over taps (kh, kw), in that order, of w[kh * kw_count +
// kw] * the input block the tap reaches. Each output accumulates its taps with fused
// multiply-adds starting from 0, then adds the bias: the GEMM path's sequence of operations on
// the im2col column, so both give the same bits.
#ifndef ANVIL_KERNELS_SIMD_DEPTHWISE_H_
#define ANVIL_KERNELS_SIMD_DEPTHWISE_H_

#include <cstdint>

#include "kernels/simd/activation.h"

namespace anvil::simd {

// Where each tap reads. For kernel row kh, outputs rows [row_lo[kh], row_hi[kh]) are inside the
// input and output row row_lo[kh] reads at row_offset[kh] (in elements of `plane`); consecutive
// output rows are row_step elements apart in `plane`. For kernel column kw, output columns
// [col_lo[kw], col_hi[kw]) are inside, and output column col_lo[kw] reads at col_offset[kw].
struct DepthwiseTaps {
  int64_t kernel_h = 0, kernel_w = 0, out_h = 0, out_w = 0, row_step = 0;
  const int64_t* row_lo = nullptr;
  const int64_t* row_hi = nullptr;
  const int64_t* row_offset = nullptr;
  const int64_t* col_lo = nullptr;
  const int64_t* col_hi = nullptr;
  const int64_t* col_offset = nullptr;
};

// `bias` may be null (no bias); `epilogue` is applied to each result before it is stored.
void DepthwisePlane(const DepthwiseTaps& taps, const float* plane, const float* w,
                    const float* bias, const Epilogue& epilogue, float* y);

// Whether DepthwisePaddedPlane has a kernel for square windows of `kernel` taps a side with
// `stride` in both dims (3 and 5; 1 and 2): the depthwise layers of MobileNet, EfficientNet and
// BlazeFace-style networks.
bool DepthwisePaddedSupports(int64_t kernel, int64_t stride);

// One depthwise output plane (out_h x out_w, dense at y) from its input plane zero-padded and
// split into `stride` column phases: element (r, j) of phase p, at padded[(p * rows + r) * ld + j]
// with rows = (out_h - 1) * stride + kernel, is the padded input's row r, column j * stride + p.
// Output (oh, ow) = bias + sum over taps (kh, kw), in that order, of w[kh * kernel + kw] * phase
// kw % stride's (oh * stride + kh, ow + kw / stride): DepthwisePlane's sequence of fused
// operations (a padding tap adds w * 0), so the same bits, without a mask or a bounds test in
// the loop (every tap of every output is an unmasked load). The kernel reads whole vectors of
// columns past out_w: ld must be at least RoundUp(out_w, 16) + (kernel - 1) / stride, and those
// columns hold any finite value. Needs DepthwisePaddedSupports(kernel, stride).
void DepthwisePaddedPlane(const float* padded, int64_t ld, int64_t kernel, int64_t stride,
                          const float* w, const float* bias, const Epilogue& epilogue, float* y,
                          int64_t out_h, int64_t out_w);

// DirectConvPlanes' convolution (its weight layout, order of operations and bits) from input
// planes padded and split as DepthwisePaddedPlane takes them, one every plane_stride floats:
// every tap an unmasked load, each shared by four output channels and two rows. Needs
// DepthwisePaddedSupports(kernel, stride).
void DirectConvPaddedPlanes(const float* padded, int64_t plane_stride, int64_t ld, int64_t channels,
                            int64_t kernel, int64_t stride, const float* w, int64_t out_channels,
                            const float* bias, const Epilogue& epilogue, float* y,
                            int64_t out_plane, int64_t out_h, int64_t out_w);

// A dense convolution with few input channels (a network's first layer: 3 channels of 3x3), all
// its output planes for one image: y[k] (out_h x out_w, planes out_plane apart) = bias[k] + sum
// over input channels c, then taps (kh, kw), of w[(k * channels + c) * kh_count * kw_count +
// kh * kw_count + kw] * the block of plane c (planes + c * plane_stride) the tap reaches, in the
// geometry `taps` describes (every input plane alike). Four output channels and four output rows
// at a time keep 16 accumulators in registers: the im2col GEMM's sequence of fused operations
// down each column (K = channels x taps, one slice), so both give the same bits, without
// writing the im2col matrix or packing it. `bias` may be null; `epilogue` is applied to each
// result before it is stored.
void DirectConvPlanes(const DepthwiseTaps& taps, const float* planes, int64_t plane_stride,
                      int64_t channels, const float* w, int64_t out_channels, const float* bias,
                      const Epilogue& epilogue, float* y, int64_t out_plane);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_DEPTHWISE_H_
