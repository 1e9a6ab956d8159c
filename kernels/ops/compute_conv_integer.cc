// The integer convolutions: ConvInteger-10 and QLinearConv-10. Both run ConvForward
// (conv_internal.h) after subtracting the zero points, so the zero padding is the zero point, as
// the spec says - in double where that is exact (IntegerConvForward) - and QLinearConv then
// requantizes the int32 sums.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_internal.h"

namespace anvil::compute_ops {
namespace {

bool IsQuantized(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

// x - x_zero_point (a scalar) as dense int32.
std::vector<int32_t> ShiftedInput(const TensorView& x, const KernelContext& ctx, int zp_index) {
  DenseInput<int32_t> xd(x);
  std::vector<int32_t> v(xd.data(), xd.data() + xd.size());
  if (ctx.HasInput(zp_index) && ctx.input(zp_index).NumElements() > 0) {
    const int32_t zp = static_cast<int32_t>(ReadDouble(ctx.input(zp_index), 0));
    for (int32_t& e : v) e -= zp;
  }
  return v;
}

// w - w_zero_point (a scalar or one per output channel) as dense int32.
absl::StatusOr<std::vector<int32_t>> ShiftedWeights(const TensorView& w, const KernelContext& ctx,
                                                    int zp_index) {
  DenseInput<int32_t> wd(w);
  std::vector<int32_t> v(wd.data(), wd.data() + wd.size());
  if (ctx.HasInput(zp_index) && ctx.input(zp_index).NumElements() > 0) {
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> zps, ReadInt64s(ctx, zp_index));
    const int64_t per_channel = w.dims[0] > 0 ? static_cast<int64_t>(v.size()) / w.dims[0] : 0;
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] -= static_cast<int32_t>(zps.size() == 1 ? zps[0] : zps[i / per_channel]);
    }
  }
  return v;
}

// conv(x, w) + bias into int32 `y`, for x and w shifted 8-bit values (|v| <= 255), in floating
// point where that is exact: every term is an integer, and when the sum of their magnitudes
// (bounded by taps x max|x| x max|w| + max|bias|) stays under 2^24, every partial sum in any order
// is an exact float - the float convolution paths (direct, implicit GEMM; never Winograd, whose
// transforms are not exact); under 2^53, in double (the packed SIMD double GEMM); else in the
// int32 loops. The int32 loops were 90% of a dynamically quantized CNN's time. A sum past int32
// wraps as int32 accumulation does.
void IntegerConvForward(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                        const std::vector<int32_t>& x, const std::vector<int32_t>& w,
                        const int32_t* bias, int32_t* y) {
  if (N <= 0 || M <= 0 || g.out_size <= 0) return;
  auto max_abs = [](const int32_t* v, size_t n) {
    int64_t m = 0;
    for (size_t i = 0; i < n; ++i) m = std::max<int64_t>(m, std::abs(int64_t{v[i]}));
    return static_cast<double>(m);
  };
  const double taps = static_cast<double>(w.size() / M);
  const double bound = taps * max_abs(x.data(), x.size()) * max_abs(w.data(), w.size()) +
                       (bias != nullptr ? max_abs(bias, static_cast<size_t>(M)) : 0.0);
  const size_t out_size = static_cast<size_t>(N * M * g.out_size);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> xt(x.begin(), x.end()), wt(w.begin(), w.end());
    std::vector<T> bt;
    if (bias != nullptr) bt.assign(bias, bias + M);
    std::vector<T> yt(out_size);
    ConvForward<T>(g, N, C, M, group, xt.data(), wt.data(), bias != nullptr ? bt.data() : nullptr,
                   yt.data());
    for (size_t i = 0; i < out_size; ++i) {
      y[i] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int64_t>(yt[i])));
    }
  };
  if (bound < 0x1p24) {
    run(0.0f);
  } else if (bound < 0x1p53) {
    run(0.0);
  } else {
    ConvForward<int32_t>(g, N, C, M, group, x.data(), w.data(), bias, y);
  }
}

// The operands of an integer convolution, less their zero points.
struct ShiftedConv {
  WindowGeometry g;
  std::vector<int32_t> x, w;  // less their zero points
};

// The kernels of the integer convolutions: their attributes and how they read their operands.
class IntegerConvKernel : public OpKernel {
 public:
  explicit IntegerConvKernel(ConvAttrs attrs) : attrs_(std::move(attrs)) {}

 protected:
  int64_t group() const { return attrs_.group; }

  // X (input 0) and W (input `w_index`) of `op` are 8-bit integers.
  static absl::Status CheckTypes(const KernelContext& ctx, const char* op, int w_index) {
    for (const ElementType type : {ctx.input(0).type, ctx.input(w_index).type}) {
      if (!IsQuantized(type)) return UnsupportedType(op, type);
    }
    return absl::OkStatus();
  }

  // X (input 0) and W (input `w_index`) checked against each other, the window, and both
  // shifted by their zero points (inputs 2 and `w_zp_index`). The types are checked before.
  absl::StatusOr<ShiftedConv> Operands(KernelContext& ctx, int w_index, int w_zp_index) const {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(w_index);
    ANVIL_RETURN_IF_ERROR(CheckConvShapes(ctx, x, w, attrs_.group));
    ShiftedConv conv;
    ANVIL_ASSIGN_OR_RETURN(conv.g, ConvGeometry(ctx, attrs_.window, x, w, ctx.output(0)));
    conv.x = ShiftedInput(x, ctx, 2);
    ANVIL_ASSIGN_OR_RETURN(conv.w, ShiftedWeights(w, ctx, w_zp_index));
    return conv;
  }

 private:
  ConvAttrs attrs_;
};

// ConvInteger-10: int32 Y = conv(x - x_zero_point, w - w_zero_point).
class ConvIntegerKernel final : public IntegerConvKernel {
 public:
  using IntegerConvKernel::IntegerConvKernel;

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_RETURN_IF_ERROR(CheckTypes(ctx, "ConvInteger", 1));
    ANVIL_ASSIGN_OR_RETURN(const ShiftedConv conv, Operands(ctx, 1, 3));
    const Shape& x_dims = ctx.input(0).dims;
    IntegerConvForward(conv.g, x_dims[0], x_dims[1], ctx.input(1).dims[0], group(), conv.x, conv.w,
                       nullptr, ctx.output(0).As<int32_t>());
    return absl::OkStatus();
  }
};

// QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// optional int32 bias. y = saturate(round_half_even((acc + bias) * x_scale * w_scale[m] /
// y_scale) + y_zero_point), the multiplier in float as ONNX Runtime computes it.
class QLinearConvKernel final : public IntegerConvKernel {
 public:
  using IntegerConvKernel::IntegerConvKernel;

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(3);
    TensorView& y = ctx.output(0);
    ANVIL_RETURN_IF_ERROR(CheckTypes(ctx, "QLinearConv", 3));
    if (!IsQuantized(y.type)) return UnsupportedType("QLinearConv", y.type);
    for (const auto& [index, name] :
         {std::pair(1, "x_scale"), std::pair(6, "y_scale"), std::pair(7, "y_zero_point")}) {
      if (!ctx.HasInput(index) || ctx.input(index).NumElements() != 1) {
        return ctx.Error(absl::StrCat(
            name, " must hold one value, is ",
            ctx.HasInput(index) ? ctx.input(index).DebugString() : std::string("missing")));
      }
    }
    ANVIL_ASSIGN_OR_RETURN(const ShiftedConv conv, Operands(ctx, 3, 5));
    ANVIL_RETURN_IF_ERROR(CheckConvBias(ctx, w.dims[0], 8));
    DenseInput<int32_t> bias;
    if (ctx.HasInput(8)) bias.Reset(ctx.input(8));
    std::vector<int32_t> acc(y.NumElements());
    const int64_t N = x.dims[0], M = w.dims[0];
    IntegerConvForward(conv.g, N, x.dims[1], M, group(), conv.x, conv.w,
                       ctx.HasInput(8) ? bias.data() : nullptr, acc.data());

    const float x_scale = static_cast<float>(ReadDouble(ctx.input(1), 0));
    const float y_scale = static_cast<float>(ReadDouble(ctx.input(6), 0));
    const int64_t y_zp = static_cast<int64_t>(ReadDouble(ctx.input(7), 0));
    const TensorView& w_scale = ctx.input(4);
    const int64_t n_scales = w_scale.NumElements();
    if (n_scales != 1 && n_scales != M) {
      return ctx.Error(absl::StrCat("w_scale has ", n_scales, " values for ", M, " channels"));
    }
    const int64_t lo = y.type == ElementType::kUint8 ? 0 : -128;
    const int64_t hi = y.type == ElementType::kUint8 ? 255 : 127;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        const float multiplier =
            x_scale * static_cast<float>(ReadDouble(w_scale, n_scales == 1 ? 0 : m)) / y_scale;
        const int64_t base = (n * M + m) * conv.g.out_size;
        for (int64_t p = 0; p < conv.g.out_size; ++p) {
          const float scaled = std::nearbyint(static_cast<float>(acc[base + p]) * multiplier);
          const int64_t q = std::clamp<int64_t>(static_cast<int64_t>(scaled) + y_zp, lo, hi);
          if (y.type == ElementType::kUint8) {
            y.As<uint8_t>()[base + p] = static_cast<uint8_t>(q);
          } else {
            y.As<int8_t>()[base + p] = static_cast<int8_t>(q);
          }
        }
      }
    }
    return absl::OkStatus();
  }
};

template <class Kernel>
KernelOr MakeIntegerConv(const Node& node) {
  ANVIL_ASSIGN_OR_RETURN(ConvAttrs attrs, ReadConvAttrs(node));
  return std::unique_ptr<OpKernel>(new Kernel(std::move(attrs)));
}

}  // namespace

KernelOr CreateConvInteger(const Node& node, int64_t) {
  return MakeIntegerConv<ConvIntegerKernel>(node);
}

KernelOr CreateQLinearConv(const Node& node, int64_t) {
  return MakeIntegerConv<QLinearConvKernel>(node);
}

}  // namespace anvil::compute_ops
