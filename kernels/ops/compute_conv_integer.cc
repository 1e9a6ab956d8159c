// The integer convolutions: ConvInteger-10 and QLinearConv-10. 1-D and 2-D windows run the int8
// GEMM path (conv_int8.h) on the 8-bit values less their zero points, a constant weight packed
// once when the kernel is made; other ranks subtract the zero points into int32 and run
// ConvForward (conv_internal.h), in floating point where that is exact (IntegerConvForward).
// Either way the zero padding is the zero point, as the spec says. QLinearConv then requantizes
// the int32 sums (simd::Requantize).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_int8.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/simd/quantize.h"

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

// A weight's zero points: none (empty), one, or one per output channel of M.
absl::StatusOr<std::vector<int32_t>> WeightZeros(const KernelContext& ctx, int zp_index,
                                                 int64_t M) {
  if (!ctx.HasInput(zp_index) || ctx.input(zp_index).NumElements() == 0)
    return std::vector<int32_t>{};
  ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> zps, ReadInt64s(ctx, zp_index));
  if (zps.size() != 1 && static_cast<int64_t>(zps.size()) != M) {
    return ctx.Error(absl::StrCat("w_zero_point has ", zps.size(), " values for ", M,
                                  " output channels (one, or one per channel)"));
  }
  return std::vector<int32_t>(zps.begin(), zps.end());
}

// Whether the node's inferred output [N, M, spatial...] has literal spatial dims of few enough
// positions that QConvForward multiplies them as rows (then the weights are packed as columns
// too; other layers do not pay that memory).
bool FewInferredPositions(const Node& node) {
  const Value* y = node.num_outputs() > 0 ? node.output(0) : nullptr;
  if (y == nullptr || !y->type().is_tensor() || y->type().rank() < 3) return false;
  int64_t positions = 1;
  const auto& shape = y->type().shape();
  for (size_t d = 2; d < shape.size(); ++d) {
    if (!shape[d].is_literal()) return false;
    positions *= *shape[d].value;
  }
  return QConvTransposes(positions);
}

// The weight (input `w_index`) packed for the int8 path when it and its zero points (input
// `zp_index`, absent or constant) are constants of a 1-D or 2-D convolution; null otherwise
// (packed on each run).
std::unique_ptr<const QConvWeights> PackConstantWeights(const Node& node, int64_t group,
                                                        int w_index, int zp_index) {
  const Elements* constant = ConstantInput(node, w_index);
  if (constant == nullptr) return nullptr;
  const auto dims = constant->dims();
  if ((dims.size() != 3 && dims.size() != 4) || dims[0] <= 0 || group <= 0 ||
      dims[0] % group != 0) {
    return nullptr;
  }
  const int64_t M = dims[0];
  std::optional<ConstantQuantizedWeight> w =
      ReadConstantQuantizedWeight(node, w_index, zp_index, M, false);
  if (!w.has_value()) return nullptr;
  return std::make_unique<const QConvWeights>(
      PackQConvWeights(w->bytes.data(), w->type == ElementType::kInt8, M, Product(w->dims) / M,
                       group, w->zeros.empty() ? nullptr : w->zeros.data(), w->zeros.size() > 1,
                       FewInferredPositions(node)));
}

// The kernels of the integer convolutions: their attributes and how they read their operands.
class IntegerConvKernel : public OpKernel {
 public:
  IntegerConvKernel(const Node& node, ConvAttrs attrs, int w_index, int w_zp_index)
      : attrs_(std::move(attrs)),
        w_index_(w_index),
        w_zp_index_(w_zp_index),
        packed_(PackConstantWeights(node, attrs_.group, w_index, w_zp_index)) {}
  bool KeepsOwnCopyOf(int input) const override { return input == w_index_ && packed_ != nullptr; }

 protected:
  int64_t group() const { return attrs_.group; }

  // X (input 0) and W (input w_index_) of `op` are 8-bit integers.
  absl::Status CheckTypes(const KernelContext& ctx, const char* op) const {
    for (const ElementType type : {ctx.input(0).type, ctx.input(w_index_).type}) {
      if (!IsQuantized(type)) return UnsupportedType(op, type);
    }
    return absl::OkStatus();
  }

  // The window of X against W, both checked.
  absl::StatusOr<WindowGeometry> Geometry(KernelContext& ctx) const {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(w_index_);
    ANVIL_RETURN_IF_ERROR(CheckConvShapes(ctx, x, w, attrs_.group));
    return ConvGeometry(ctx, attrs_.window, x, w, ctx.output(0));
  }

  // The int32 sums conv(x - x_zero, w - w_zero) of output channel m, output positions
  // [j0, j0 + count) of image n, handed to `store` block by block: the int8 path for 1-D and
  // 2-D windows, else int32 sums of the whole output first.
  absl::Status Sums(
      KernelContext& ctx, const WindowGeometry& g,
      absl::FunctionRef<void(int64_t n, int64_t m, int64_t j0, int64_t count, int32_t* acc)> store)
      const {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(w_index_);
    const int64_t N = x.dims[0], C = x.dims[1], M = w.dims[0];
    if (QConvSupports(g)) {
      const int32_t x_zero = ctx.HasInput(2) && ctx.input(2).NumElements() > 0
                                 ? static_cast<int32_t>(ReadDouble(ctx.input(2), 0))
                                 : 0;
      QConvWeights per_run;
      const QConvWeights* weights = packed_.get();
      if (weights == nullptr) {
        ANVIL_ASSIGN_OR_RETURN(const std::vector<int32_t> zeros, WeightZeros(ctx, w_zp_index_, M));
        const bool w_signed = w.type == ElementType::kInt8;
        Tensor dense_w;
        const void* w_bytes = w.data;
        if (!w.Contiguous()) {
          dense_w = Tensor::CopyOf(w);
          w_bytes = dense_w.view().data;
        }
        per_run =
            PackQConvWeights(w_bytes, w_signed, M, M > 0 ? w.NumElements() / M : 0, attrs_.group,
                             zeros.empty() ? nullptr : zeros.data(), zeros.size() > 1,
                             QConvTransposes(g.out_size) && !QDepthwiseSupports(g, C, group()));
        weights = &per_run;
      }
      Tensor dense_x;
      const void* x_bytes = x.data;
      if (!x.Contiguous()) {
        dense_x = Tensor::CopyOf(x);
        x_bytes = dense_x.view().data;
      }
      const int64_t Mg = M / attrs_.group;
      const bool depthwise = QDepthwiseSupports(g, C, attrs_.group);
      (depthwise ? QDepthwiseForward : QConvForward)(
          g, N, C, x_bytes, x.type == ElementType::kInt8, x_zero, *weights,
          [&](int64_t n, int64_t gi, int64_t r0, int64_t r1, int64_t j0, int64_t count,
              int32_t* acc, int64_t ld) {
            for (int64_t r = r0; r < r1; ++r) {
              store(n, gi * Mg + r, j0, count, acc + (r - r0) * ld);
            }
          });
      return absl::OkStatus();
    }
    ShiftedConv conv;
    conv.g = g;
    conv.x = ShiftedInput(x, ctx, 2);
    ANVIL_ASSIGN_OR_RETURN(conv.w, ShiftedWeights(w, ctx, w_zp_index_));
    std::vector<int32_t> acc(static_cast<size_t>(N * M * g.out_size));
    IntegerConvForward(g, N, C, M, attrs_.group, conv.x, conv.w, nullptr, acc.data());
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m)
        store(n, m, 0, g.out_size, acc.data() + (n * M + m) * g.out_size);
    }
    return absl::OkStatus();
  }

 private:
  ConvAttrs attrs_;
  int w_index_, w_zp_index_;
  std::unique_ptr<const QConvWeights> packed_;  // W less its zero points, when constant
};

// ConvInteger-10: int32 Y = conv(x - x_zero_point, w - w_zero_point).
class ConvIntegerKernel final : public IntegerConvKernel {
 public:
  ConvIntegerKernel(const Node& node, ConvAttrs attrs)
      : IntegerConvKernel(node, std::move(attrs), 1, 3) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_RETURN_IF_ERROR(CheckTypes(ctx, "ConvInteger"));
    ANVIL_ASSIGN_OR_RETURN(const WindowGeometry g, Geometry(ctx));
    TensorView& y = ctx.output(0);
    int32_t* out = y.As<int32_t>();
    const int64_t M = ctx.input(1).dims[0];
    return Sums(ctx, g, [&](int64_t n, int64_t m, int64_t j0, int64_t count, int32_t* acc) {
      std::copy(acc, acc + count, out + (n * M + m) * g.out_size + j0);
    });
  }
};

// QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// optional int32 bias. y = saturate(round_half_even((acc + bias) * x_scale * w_scale[m] /
// y_scale) + y_zero_point), the multiplier in float as ONNX Runtime computes it.
class QLinearConvKernel final : public IntegerConvKernel {
 public:
  QLinearConvKernel(const Node& node, ConvAttrs attrs)
      : IntegerConvKernel(node, std::move(attrs), 3, 5) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& w = ctx.input(3);
    TensorView& y = ctx.output(0);
    ANVIL_RETURN_IF_ERROR(CheckTypes(ctx, "QLinearConv"));
    if (!IsQuantized(y.type)) return UnsupportedType("QLinearConv", y.type);
    for (const auto& [index, name] :
         {std::pair(1, "x_scale"), std::pair(6, "y_scale"), std::pair(7, "y_zero_point")}) {
      if (!ctx.HasInput(index) || ctx.input(index).NumElements() != 1) {
        return ctx.Error(absl::StrCat(
            name, " must hold one value, is ",
            ctx.HasInput(index) ? ctx.input(index).DebugString() : std::string("missing")));
      }
    }
    ANVIL_ASSIGN_OR_RETURN(const WindowGeometry g, Geometry(ctx));
    const int64_t M = w.dims[0];
    ANVIL_RETURN_IF_ERROR(CheckConvBias(ctx, M, 8));
    DenseInput<int32_t> bias;
    if (ctx.HasInput(8)) bias.Reset(ctx.input(8));

    const float x_scale = static_cast<float>(ReadDouble(ctx.input(1), 0));
    const float y_scale = static_cast<float>(ReadDouble(ctx.input(6), 0));
    const int32_t y_zero = static_cast<int32_t>(ReadDouble(ctx.input(7), 0));
    const TensorView& w_scale = ctx.input(4);
    const int64_t n_scales = w_scale.NumElements();
    if (n_scales != 1 && n_scales != M) {
      return ctx.Error(absl::StrCat("w_scale has ", n_scales, " values for ", M, " channels"));
    }
    std::vector<float> multiplier(static_cast<size_t>(M));
    for (int64_t m = 0; m < M; ++m) {
      multiplier[m] =
          x_scale * static_cast<float>(ReadDouble(w_scale, n_scales == 1 ? 0 : m)) / y_scale;
    }
    const bool y_signed = y.type == ElementType::kInt8;
    uint8_t* out = static_cast<uint8_t*>(y.data);
    const int32_t* bias_values = ctx.HasInput(8) ? bias.data() : nullptr;
    return Sums(ctx, g, [&](int64_t n, int64_t m, int64_t j0, int64_t count, int32_t* acc) {
      simd::Requantize(acc, count, bias_values != nullptr ? bias_values[m] : 0, &multiplier[m],
                       &y_zero, false, y_signed, out + (n * M + m) * g.out_size + j0);
    });
  }
};

template <class Kernel>
KernelOr MakeIntegerConv(const Node& node) {
  ANVIL_ASSIGN_OR_RETURN(ConvAttrs attrs, ReadConvAttrs(node));
  return std::unique_ptr<OpKernel>(new Kernel(node, std::move(attrs)));
}

}  // namespace

KernelOr CreateConvInteger(const Node& node, int64_t) {
  return MakeIntegerConv<ConvIntegerKernel>(node);
}

KernelOr CreateQLinearConv(const Node& node, int64_t) {
  return MakeIntegerConv<QLinearConvKernel>(node);
}

}  // namespace anvil::compute_ops
