// The int8 path of the integer convolutions (ConvInteger, QLinearConv; private to //kernels):
// im2col + the int8 GEMM of simd/qgemm.h per (image, group, block of output positions),
//   acc_g[Mg, out] = (W_g - w_zero)[Mg, Cg * k] x col[Cg * k, out],
// where column p of `col` holds the window of output position p less x_zero (zero in the
// padding: the padding is the zero point, as the spec says). Exact integer sums, wrapping as
// int32 does; the same for any thread count. For 1-D and 2-D windows.
#ifndef ANVIL_KERNELS_OPS_CONV_INT8_H_
#define ANVIL_KERNELS_OPS_CONV_INT8_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/qgemm.h"

namespace anvil::compute_ops {

// W [M, C / group, k...] of 8-bit values less w_zero (one value, or one per output channel when
// per_channel; null: zero), as each group's GEMM rows; with `with_columns` also as each group's
// GEMM columns (W_g^T [Cg * k, Mg] in panels), for layers with few output positions, which
// QConvForward multiplies the other way round (positions as rows: a 7 x 7 image is 49 rows of
// 4-row tiles, where as columns it fills 64 of 16-column panels).
struct QConvWeights {
  int64_t M = 0, K = 0;  // output channels; Cg x taps per row
  std::vector<simd::QRows> groups;
  std::vector<simd::QColumns> columns;  // empty unless packed with_columns
};
QConvWeights PackQConvWeights(const void* w, bool is_signed, int64_t M, int64_t K, int64_t group,
                              const int32_t* w_zero, bool per_channel, bool with_columns);

// Whether QConvForward multiplies a layer of `out_size` output positions per image with the
// positions as GEMM rows (when the weights have columns): at most 64 positions.
bool QConvTransposes(int64_t out_size);

// Whether QConvForward takes windows of `g`'s rank.
bool QConvSupports(const WindowGeometry& g);

// Receives the sums of image n, group gi, output positions [j0, j0 + w) for the group's rows
// [r0, r1) (output channels gi * Mg + r): acc[(r - r0) * ld + j], which the receiver may change.
// Called from the caller's parallel scope's threads on disjoint blocks.
using QConvStore = absl::FunctionRef<void(int64_t n, int64_t gi, int64_t r0, int64_t r1, int64_t j0,
                                          int64_t w, int32_t* acc, int64_t ld)>;

// Whether QDepthwiseForward takes `g` with `C` input channels in `group` groups: one input
// channel per group, a 2-D window of fewer than 258 taps (so that every partial sum of 8-bit
// products is an exact float).
bool QDepthwiseSupports(const WindowGeometry& g, int64_t C, int64_t group);

// QConvForward's sums for a depthwise convolution, by the float depthwise kernels
// (conv_direct.h) on X - x_zero and W - w_zero converted exactly: the sums are exact integers.
// Cheaper than GEMMs of K = taps per channel. Calls `store` once per output plane.
void QDepthwiseForward(const WindowGeometry& g, int64_t N, int64_t C, const void* x, bool x_signed,
                       int32_t x_zero, const QConvWeights& w, QConvStore store);

// The sums of conv(X - x_zero, W) for X [N, C, in...] of 8-bit values (`x_signed`: int8).
void QConvForward(const WindowGeometry& g, int64_t N, int64_t C, const void* x, bool x_signed,
                  int32_t x_zero, const QConvWeights& w, QConvStore store);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_INT8_H_
