// Type-changing kernels: Cast, CastLike, Identity, QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear.
//
// Cast converts between all numeric types (bool, integers, float16, bfloat16, float, double) and
// to and from string (elementwise_string.cc). The target type is output 0's, as the ShapeHelper
// decided it (from `to`, or from CastLike's second input). Narrowing to float16/bfloat16 rounds to
// nearest even; float to integer truncates toward zero and saturates (NaN -> 0), a choice ONNX
// leaves open; integer to narrower integer wraps; anything to bool is `!= 0`.
//
// Quantization follows ONNX: y = saturate(round_half_even(x / scale) + zero_point), x =
// (q - zero_point) * scale, per tensor or (opset 13+) per `axis` with a 1-D scale, uint8 or int8.

// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; the loops here (any
// length, rows that may alias) need its dynamic cost model, which is what -O3 uses. Set before
// any include so that the templates of elementwise_internal.h and the lambdas they inline are
// compiled alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/data_internal.h"
#include "kernels/ops/elementwise_internal.h"
#include "kernels/simd/quantize.h"
#include "kernels/tensor.h"

namespace anvil::elementwise {
namespace {

// Copies x into y (same dims and element size), whatever the strides.
absl::Status CopyView(const KernelContext& ctx, const TensorView& x, const TensorView& y) {
  if (x.dims != y.dims) return ctx.Error("input and output differ in shape");
  if (y.type == ElementType::kString) {
    data_ops::CopyView(y, x);
    return absl::OkStatus();
  }
  if (ElementSize(y.type) == 0) return UnsupportedType(ctx.node().op_type(), y.type);
  if (y.NumElements() == 0) return absl::OkStatus();
  if (x.Contiguous()) {
    std::memcpy(y.data, x.data, static_cast<size_t>(y.NumElements()) * y.ElementBytes());
    return absl::OkStatus();
  }
  return DispatchBySize(y.type, ctx.node().op_type(), [&](auto tag) {
    using U = decltype(tag);
    MapUnary<U, U>(x, y, [](U v) { return v; });
    return absl::OkStatus();
  });
}

absl::Status CastCompute(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  const TensorView& y = ctx.output(0);
  if (x.dims != y.dims) return ctx.Error("input and output differ in shape");
  const std::string_view op = ctx.node().op_type();
  if (x.type == ElementType::kString || y.type == ElementType::kString) {
    return CastWithStrings(ctx, x, y);
  }
  if (x.type == y.type) return CopyView(ctx, x, y);
  // float16 <-> float32, the casts at the edges of float16 models: F16C, a vector at a time.
  if (x.Contiguous() && y.Contiguous()) {
    const size_t n = static_cast<size_t>(y.NumElements());
    if (x.type == ElementType::kFloat16 && y.type == ElementType::kFloat) {
      compute_ops::WidenHalves(x.As<uint16_t>(), y.As<float>(), static_cast<int64_t>(n));
      return absl::OkStatus();
    }
    if (x.type == ElementType::kFloat && y.type == ElementType::kFloat16) {
      compute_ops::NarrowToHalves(x.As<float>(), y.As<uint16_t>(), static_cast<int64_t>(n));
      return absl::OkStatus();
    }
  }
  return DispatchTypes<kAllNumericTypes>(y.type, op, [&](auto to_tag) {
    using To = decltype(to_tag);
    return DispatchTypes<kAllNumericTypes>(x.type, op, [&](auto from_tag) {
      using From = decltype(from_tag);
      if constexpr (std::is_same_v<From, bool>) {
        MapUnary<uint8_t, To>(x, y, [](uint8_t v) { return Convert<To>(v != 0); });
      } else {
        MapUnary<From, To>(x, y, [](From v) { return Convert<To>(v); });
      }
      return absl::OkStatus();
    });
  });
}

absl::Status IdentityCompute(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  // A sequence or optional (Identity-14+) passes whole, sharing its tensors.
  if (!x.is_tensor()) return ctx.SetOutputValue(0, Tensor::CopyOf(x));
  const TensorView& y = ctx.output(0);
  if (x.type != y.type) return ctx.Error("input and output differ in type");
  return CopyView(ctx, x, y);
}

// ---------------------------------------------------------------------------------------------
// Quantization
// ---------------------------------------------------------------------------------------------

// A scale or zero point as a view of x's dims: one element repeats everywhere; a 1-D tensor
// (per-axis, opset 13+) runs along `axis`.
absl::StatusOr<TensorView> QuantParam(const KernelContext& ctx, const TensorView& param,
                                      const TensorView& x, int64_t axis, std::string_view what) {
  TensorView view = param;
  view.dims = x.dims;
  view.strides.assign(x.rank(), 0);
  if (param.NumElements() == 1) return view;
  // com.microsoft's versions (ONNX Runtime's contrib Q/DQ) quantize per axis as opset 13 does.
  const bool per_axis = ctx.opset() >= 13 || ctx.node().domain() == "com.microsoft";
  if (!per_axis || param.rank() != 1) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " must be a scalar", per_axis ? " or 1-D" : "",
                                  ", got ", param.DebugString()));
  }
  const int64_t a = axis < 0 ? axis + x.rank() : axis;
  if (a < 0 || a >= x.rank() || param.dims[0] != x.dims[a]) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " ", param.DebugString(), " does not match axis ",
                                  axis, " of x ", x.DebugString()));
  }
  view.strides[a] = param.strides[0];
  return view;
}

// A zero point of `type` that is all zeros, when the input is omitted.
TensorView ZeroPoint(ElementType type, const TensorView& x) {
  static const uint64_t kZero = 0;
  TensorView view;
  view.type = type;
  view.data = const_cast<uint64_t*>(&kZero);  // read only
  view.dims = x.dims;
  view.strides.assign(x.rank(), 0);
  return view;
}

constexpr uint32_t kQuantizedTypes = TypeBit(ElementType::kUint8) | TypeBit(ElementType::kInt8);

class QuantizeKernel final : public OpKernel {
 public:
  explicit QuantizeKernel(const Node& node) : axis_(node.GetInt("axis", 1)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& y = ctx.output(0);
    if (x.dims != y.dims) return ctx.Error("x and y differ in shape");
    if (ctx.input(1).type != ElementType::kFloat) {
      return UnsupportedType("QuantizeLinear y_scale", ctx.input(1).type);
    }
    ANVIL_ASSIGN_OR_RETURN(TensorView scale, QuantParam(ctx, ctx.input(1), x, axis_, "y_scale"));
    TensorView zero = ZeroPoint(y.type, x);
    if (ctx.HasInput(2)) {
      if (ctx.input(2).type != y.type) return ctx.Error("y_zero_point and y differ in type");
      ANVIL_ASSIGN_OR_RETURN(zero, QuantParam(ctx, ctx.input(2), x, axis_, "y_zero_point"));
    }
    if (x.type == ElementType::kFloat && x.Contiguous() && y.Contiguous() &&
        ctx.input(1).NumElements() == 1 && (!ctx.HasInput(2) || ctx.input(2).NumElements() == 1)) {
      // Per tensor: the SIMD loop, which computes what the element-wise one below does but for
      // NaN, which it takes to the type's lowest value as ONNX Runtime does (not to 0).
      const int32_t z =
          ctx.HasInput(2) ? static_cast<int32_t>(compute_ops::ReadDouble(ctx.input(2), 0)) : 0;
      simd::QuantizeLinear(x.As<float>(), x.NumElements(), *ctx.input(1).As<float>(), z,
                           y.type == ElementType::kInt8, y.data);
      return absl::OkStatus();
    }
    constexpr uint32_t kInputTypes = kFloatTypes | TypeBit(ElementType::kInt32);
    return DispatchTypes<kQuantizedTypes>(y.type, "QuantizeLinear", [&](auto y_tag) {
      using Q = decltype(y_tag);
      return DispatchTypes<kInputTypes>(x.type, "QuantizeLinear", [&](auto x_tag) {
        using X = decltype(x_tag);
        // float arithmetic as the reference (and ONNX Runtime) does it; double stays double.
        using F = std::conditional_t<std::is_same_v<X, double>, double, float>;
        MapTernary<X, float, Q, Q>(x, scale, zero, y, [](X v, float s, Q z) {
          const F q =
              std::nearbyint(static_cast<F>(Widen(v)) / static_cast<F>(s)) + static_cast<F>(z);
          return FloatToInt<Q>(q);  // q is integral: this only saturates
        });
        return absl::OkStatus();
      });
    });
  }

 private:
  int64_t axis_;
};

class DequantizeKernel final : public OpKernel {
 public:
  explicit DequantizeKernel(const Node& node) : axis_(node.GetInt("axis", 1)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& y = ctx.output(0);
    if (x.dims != y.dims) return ctx.Error("x and y differ in shape");
    if (ctx.input(1).type != ElementType::kFloat || y.type != ElementType::kFloat) {
      return UnsupportedType("DequantizeLinear x_scale", ctx.input(1).type);
    }
    ANVIL_ASSIGN_OR_RETURN(TensorView scale, QuantParam(ctx, ctx.input(1), x, axis_, "x_scale"));
    TensorView zero = ZeroPoint(x.type, x);
    if (ctx.HasInput(2)) {
      if (ctx.input(2).type != x.type) return ctx.Error("x_zero_point and x differ in type");
      ANVIL_ASSIGN_OR_RETURN(zero, QuantParam(ctx, ctx.input(2), x, axis_, "x_zero_point"));
    }
    if ((x.type == ElementType::kUint8 || x.type == ElementType::kInt8) && x.Contiguous() &&
        y.Contiguous() &&
        (!ctx.HasInput(2) || ctx.input(2).NumElements() == ctx.input(1).NumElements())) {
      // Per tensor, or per axis (a weight's channels): SIMD runs of the elements that share a
      // scale and zero point.
      const TensorView& s = ctx.input(1);
      const bool per_axis = s.NumElements() != 1;
      const int64_t a = !per_axis ? 0 : axis_ < 0 ? axis_ + x.rank() : axis_;
      const int64_t channels = per_axis ? x.dims[a] : 1;
      const int64_t inner =
          per_axis ? compute_ops::Product(x.dims, static_cast<size_t>(a) + 1) : x.NumElements();
      const int64_t outer = per_axis ? compute_ops::Product(x.dims, 0, static_cast<size_t>(a)) : 1;
      const uint8_t* in = static_cast<const uint8_t*>(x.data);
      float* out = y.As<float>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t at = (o * channels + c) * inner;
          const int32_t z =
              ctx.HasInput(2) ? static_cast<int32_t>(compute_ops::ReadDouble(ctx.input(2), c)) : 0;
          simd::DequantizeLinear(in + at, x.type == ElementType::kInt8, inner,
                                 static_cast<float>(compute_ops::ReadDouble(s, c)), z, out + at);
        }
      }
      return absl::OkStatus();
    }
    constexpr uint32_t kInputTypes = kQuantizedTypes | TypeBit(ElementType::kInt32);
    return DispatchTypes<kInputTypes>(x.type, "DequantizeLinear", [&](auto tag) {
      using X = decltype(tag);
      MapTernary<X, float, X, float>(x, scale, zero, y, [](X v, float s, X z) {
        return static_cast<float>(static_cast<int64_t>(v) - static_cast<int64_t>(z)) * s;
      });
      return absl::OkStatus();
    });
  }

 private:
  int64_t axis_;
};

// DynamicQuantizeLinear: uint8 with the range of x extended to include 0, the parameters as
// ONNX Runtime computes them (simd::DynamicQuantizationOf), then
//   y = saturate(round_half_even(x / scale) + zero_point).
absl::Status DynamicQuantizeLinearCompute(KernelContext& ctx) {
  const TensorView& x_in = ctx.input(0);
  if (x_in.type != ElementType::kFloat) return UnsupportedType("DynamicQuantizeLinear", x_in.type);
  Tensor dense;
  const float* x = x_in.As<float>();
  if (!x_in.Contiguous()) {
    dense = Tensor::CopyOf(x_in);
    x = dense.As<float>();
  }
  const int64_t n = x_in.NumElements();
  const simd::DynamicQuantization q = simd::DynamicQuantizationOf(x, n);
  if (ctx.HasOutput(0)) {
    const TensorView& y = ctx.output(0);
    if (y.dims != x_in.dims || y.type != ElementType::kUint8) {
      return ctx.Error("y must be uint8 of x's shape");
    }
    simd::QuantizeLinear(x, n, q.scale, q.zero, false, y.As<uint8_t>());
  }
  if (ctx.HasOutput(1)) *ctx.output(1).As<float>() = q.scale;
  if (ctx.HasOutput(2)) *ctx.output(2).As<uint8_t>() = static_cast<uint8_t>(q.zero);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateCast(const Node& node, int64_t opset) {
  return Stateless<&CastCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateCastLike(const Node& node, int64_t opset) {
  return Stateless<&CastCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateIdentity(const Node& node, int64_t opset) {
  return Stateless<&IdentityCompute>(node, opset);
}
namespace {

// Opset 21's blocked scales and opset 23's precision other than float are not implemented.
absl::Status CheckQuantizeAttributes(const Node& node, int64_t opset) {
  if (!node.domain().empty()) return absl::OkStatus();
  if (opset >= 21 && node.GetInt("block_size", 0) != 0) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": blocked quantization (block_size ",
                     node.GetInt("block_size", 0), ") is not supported"));
  }
  if (opset >= 23 && node.GetInt("precision", 0) != 0 &&
      node.GetInt("precision", 0) != static_cast<int64_t>(ElementType::kFloat)) {
    return absl::UnimplementedError(absl::StrCat(node.Describe(), ": precision ",
                                                 node.GetInt("precision", 0),
                                                 " is not supported (float is)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQuantizeLinear(const Node& node, int64_t opset) {
  ANVIL_RETURN_IF_ERROR(CheckQuantizeAttributes(node, opset));
  return std::unique_ptr<OpKernel>(new QuantizeKernel(node));
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateDequantizeLinear(const Node& node, int64_t opset) {
  ANVIL_RETURN_IF_ERROR(CheckQuantizeAttributes(node, opset));
  return std::unique_ptr<OpKernel>(new DequantizeKernel(node));
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateDynamicQuantizeLinear(const Node& node,
                                                                      int64_t opset) {
  return Stateless<&DynamicQuantizeLinearCompute>(node, opset);
}

}  // namespace anvil::elementwise
