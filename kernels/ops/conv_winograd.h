// Conv's Winograd path: 2-D float convolutions with a constant 3x3 weight, unit strides and
// dilations and one group (the body of VGG/ResNet-style networks) run as Winograd F(4x4, 3x3)
// (simd/winograd.h): a quarter of the multiplies of im2col + GEMM; or, for few tiles of a large
// weight (a batch-1 late layer), F(2x2, 3x3), whose transformed weight is 16/36 of F(4x4)'s. The
// weight is transformed once, on the first run that uses it; the input and output transforms run
// per block of tiles sized so that the transformed block and its 36 products stay in L2, and
// threads split the blocks.
//
// Results differ from the im2col path by about 1e-6 of the sum of |terms| (simd/winograd.h);
// they do not depend on the thread count.
#ifndef ANVIL_KERNELS_OPS_CONV_WINOGRAD_H_
#define ANVIL_KERNELS_OPS_CONV_WINOGRAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/call_once.h"
#include "graph/ir.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/gemm.h"

namespace anvil::compute_ops {

// A Conv weight [K, C, 3, 3] as the 36 K x C matrices of the Winograd products.
struct WinogradWeights {
  int64_t out_channels = 0, in_channels = 0;
  ConstantFloats source;  // the weight: the node's float32 constant or its widened copy

  // The 36 K x C matrices (simd::WinogradTransformWeights's layout, four times the weight's
  // bytes), made on the first call that runs Winograd: a convolution whose images are too small
  // for it (a batch-1 late layer) never holds them. Safe to call concurrently.
  const std::vector<float>& U() const;

  // The 36 U[xi]^T (C x K) packed as GEMM B operands, for the products of a block of few tiles
  // (WinogradConv2D), made on the first such call: a network that never has one does not pay
  // for the second copy. Safe to call concurrently.
  const std::vector<std::unique_ptr<const simd::PackedB>>& TransposedPacked() const;

  // The 16 F(2x2, 3x3) matrices, transposed and packed as TransposedPacked's, for few tiles
  // of a weight too large to stream in its F(4x4) form (WinogradConv2D); made on the first such
  // call. Safe to call concurrently.
  const std::vector<std::unique_ptr<const simd::PackedB>>& TransposedPacked2() const;

  // Bytes held of its own: a widened source, and the transforms made so far.
  int64_t OwnedBytes() const {
    return static_cast<int64_t>(source.widened.size() * sizeof(float)) + transform_bytes_.load();
  }

 private:
  mutable std::atomic<int64_t> transform_bytes_{0};
  mutable absl::once_flag u_once_, packed_once_, packed2_once_;
  mutable std::vector<float> u_;
  mutable std::vector<std::unique_ptr<const simd::PackedB>> packed_, packed2_;
};

// The transformed weight of a Conv node whose weight (input 1) is a float32 initializer
// [K, C, 3, 3] that a run cannot override, with group 1, unit strides and dilations and 8 to
// 4096 channels on either side (enough for the products to run at GEMM speed), unless its
// output's dims are literals for which WinogradApplies is false; null otherwise. The transform
// itself waits for the first run that needs it (WinogradWeights::U).
std::unique_ptr<const WinogradWeights> PrepareWinogradWeights(const Node& node);

// Whether WinogradConv2D pays for a convolution of geometry `g` over `images` images with
// these weights: 2-D, 3x3, unit strides and dilations, and at least 16 output tiles, or fewer
// from a transformed weight of at most 8 MiB (a block's products read the whole transformed
// weight, four times the bytes of im2col's, so a large one streamed for few tiles loses).
bool WinogradApplies(const WindowGeometry& g, int64_t images, const WinogradWeights& w);

// y [N, K, out...] = epilogue(conv(x [N, C, in...], the weight `w` was made from) + bias (K
// values, or null)), for a geometry WinogradApplies to. Returns whether it ran F(2x2, 3x3)
// (few tiles of a weight whose F(4x4) form would be streamed from memory) rather than F(4x4).
bool WinogradConv2D(const WindowGeometry& g, int64_t images, const WinogradWeights& w,
                    const float* x, const float* bias, const simd::Epilogue& epilogue, float* y);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_WINOGRAD_H_
