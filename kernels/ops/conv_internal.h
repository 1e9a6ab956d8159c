// What the convolution kernels share (private to //kernels): compute_conv.cc (Conv, FusedConv),
// compute_conv_integer.cc (ConvInteger, QLinearConv), compute_conv_transpose.cc and the
// algorithms they run: conv_im2col.h (im2col + GEMM), conv_direct.h (direct 2-D kernels),
// conv_blocked.h (the blocked planar kernel), conv_winograd.h (Winograd F(4x4, 3x3)).
//
// Layouts: X [N, C, in...], W [M, C / group, k...] (ConvTranspose: W [C, M / group, k...]),
// Y [N, M, out...], dense row-major; bias has M values or is null.
#ifndef ANVIL_KERNELS_OPS_CONV_INTERNAL_H_
#define ANVIL_KERNELS_OPS_CONV_INTERNAL_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/activation.h"

namespace anvil::compute_ops {

// Whether every value of an attribute list is 1 (strides, dilations; an absent list is).
inline bool AllOnes(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 1; });
}

// The positions o in [0, count) whose window tap lands inside [0, length), where position o
// reads o * stride + off: the range [first, second).
inline std::pair<int64_t, int64_t> InsideRange(int64_t count, int64_t length, int64_t off,
                                               int64_t stride) {
  const int64_t lo = std::min(count, off >= 0 ? int64_t{0} : (-off + stride - 1) / stride);
  const int64_t hi =
      length - 1 - off < 0 ? lo : std::clamp((length - 1 - off) / stride + 1, lo, count);
  return {lo, hi};
}

// Y[N, M, out...] = conv(X[N, C, in...], W[M, C / group, k...]) + bias[M] (bias may be null),
// by the fastest path that gives the im2col + GEMM path's bits: output rows that read only
// padding filled directly, the direct kernels (float, 2-D, depthwise or few input channels),
// else im2col + GEMM. With an epilogue, the paths that apply it in registers (the direct
// kernels, and float im2col + GEMM when it takes the implicit packed path) do so and return
// true; the others leave Y without it and return false. For T = float, double and int32_t (the
// integer convolutions, on zero-point-shifted values).
template <typename T>
bool ConvForward(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                 const T* x, const T* w, const T* bias, T* y,
                 const simd::Epilogue* epilogue = nullptr);

// X and W of a Conv-like op: ranks >= 3 and equal, C = W's dim 1 x group, M divisible by group.
absl::Status CheckConvShapes(const KernelContext& ctx, const TensorView& x, const TensorView& w,
                             int64_t group);

// The optional bias B (input `index`: 2, or QLinearConv's 8) of a convolution with `channels`
// output channels: 1-D with one value per channel, as the kernels read it.
absl::Status CheckConvBias(const KernelContext& ctx, int64_t channels, int index = 2);

// The window of a Conv-like op from its attributes and the spatial dims of X, W and Y.
absl::StatusOr<WindowGeometry> ConvGeometry(const KernelContext& ctx, const WindowAttrs& attrs,
                                            const TensorView& x, const TensorView& w,
                                            const TensorView& y);

// The activation of a fused convolution (FusedConv, com.anvil.nchwc Conv): the attributes
// `activation` (Relu, LeakyRelu, Sigmoid, Tanh, Clip, HardSwish, HardSigmoid; none when absent) and
// `activation_params` (as ONNX Runtime orders them), as the epilogue the kernels apply in
// registers; nullopt for HardSigmoid, which has no vector epilogue. Unimplemented for another
// activation, InvalidArgument for a wrong number of params.
absl::StatusOr<std::optional<simd::Epilogue>> ReadFusedActivation(const Node& node);

// The attributes every convolution node has, read and checked when its kernel is made.
struct ConvAttrs {
  WindowAttrs window;
  int64_t group = 1;  // >= 1
};
absl::StatusOr<ConvAttrs> ReadConvAttrs(const Node& node);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_INTERNAL_H_
