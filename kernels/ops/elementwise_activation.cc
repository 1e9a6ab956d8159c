// Activation kernels: Relu, LeakyRelu, Sigmoid, Tanh, Clip, Elu, Selu, Celu, HardSigmoid,
// HardSwish, Softplus, Softsign, Shrink, ThresholdedRelu, and com.microsoft Gelu and QuickGelu.
//
// float32 Relu, LeakyRelu, Sigmoid, Tanh, Clip, Softplus, Elu, Selu, Celu, HardSwish, Gelu and
// QuickGelu run through the Highway routines; the rest are loops the compiler vectorizes. All are
// written to avoid overflow and cancellation (expm1 for Elu/Selu/Celu, Softplus as max(x, 0) +
// log1p(e^-|x|)). Attributes are read once, at kernel creation, with the defaults of the op's
// version (Selu's changed in opset 6).

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
#include <limits>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/elementwise_internal.h"

namespace anvil::elementwise {
namespace {

// Float attributes of an activation.
struct Attrs {
  float alpha = 0;
  float beta = 0;
  float gamma = 0;
};

// A kernel holding its node's float attributes; Compute runs `fn`.
class AttrKernel final : public OpKernel {
 public:
  using Fn = absl::Status (*)(KernelContext& ctx, const Attrs& attrs);
  AttrKernel(Fn fn, Attrs attrs) : fn_(fn), attrs_(attrs) {}
  absl::Status Compute(KernelContext& ctx) override { return fn_(ctx, attrs_); }

 private:
  Fn fn_;
  Attrs attrs_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeAttrKernel(AttrKernel::Fn fn, Attrs attrs) {
  return std::unique_ptr<OpKernel>(new AttrKernel(fn, attrs));
}

// ---------------------------------------------------------------------------------------------
// Highway-backed
// ---------------------------------------------------------------------------------------------

absl::Status ReluCompute(KernelContext& ctx) {
  return ApplyUnary<kSignedTypes>(
      ctx, [](auto v) { return v < decltype(v)(0) ? decltype(v)(0) : v; }, simd::UnaryOp::kRelu);
}

absl::Status SigmoidCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return SigmoidValue(v); }, simd::UnaryOp::kSigmoid);
}

absl::Status TanhCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return std::tanh(v); }, simd::UnaryOp::kTanh);
}

// An activation with one float parameter: float32 x shaped like the output through `rows` (a
// Highway routine over contiguous rows), anything else through `value` (generic over the compute
// type, float for float32).
template <typename Rows, typename Value>
absl::Status ParameterizedUnary(KernelContext& ctx, Rows rows, Value value) {
  const TensorView& x = ctx.input(0);
  if (RunsFloatRows(x.type) && x.type == ctx.output(0).type && x.dims == ctx.output(0).dims) {
    FloatUnaryRows(x, ctx.output(0), rows, [value](float v) { return value(v); });
    return absl::OkStatus();
  }
  return ApplyUnary<kFloatTypes>(ctx, value);
}

absl::Status LeakyReluCompute(KernelContext& ctx, const Attrs& attrs) {
  const float alpha = attrs.alpha;
  return ParameterizedUnary(
      ctx, [alpha](const float* in, float* out, size_t n) { simd::LeakyRelu(in, alpha, out, n); },
      [alpha](auto v) {
        using C = decltype(v);
        return v < C(0) ? v * static_cast<C>(alpha) : v;
      });
}

// com.microsoft QuickGelu: x * Sigmoid(alpha * x) (alpha = 1: SiLU, what fuse-activations makes
// of Mul(x, Sigmoid(x))).
absl::Status QuickGeluCompute(KernelContext& ctx, const Attrs& attrs) {
  const float alpha = attrs.alpha;
  return ParameterizedUnary(
      ctx, [alpha](const float* in, float* out, size_t n) { simd::QuickGelu(in, alpha, out, n); },
      [alpha](auto v) { return v * SigmoidValue(v * static_cast<decltype(v)>(alpha)); });
}

// Clip: bounds from attributes before opset 11, from optional scalar inputs of X's type after.
// An absent bound is no bound (also for infinities, rather than ONNX 6's float-max default).
// min > max gives max everywhere, as min(max(x, lo), hi) does.
class ClipKernel final : public OpKernel {
 public:
  ClipKernel(const Node& node, int64_t opset) : legacy_(opset < 11) {
    if (legacy_) {
      if (const Attribute* a = node.FindAttribute("min"); a != nullptr) attr_min_ = a->f;
      if (const Attribute* a = node.FindAttribute("max"); a != nullptr) attr_max_ = a->f;
    }
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& y = ctx.output(0);
    if (x.type != y.type || x.dims != y.dims) {
      return ctx.Error("input and output differ in type or shape");
    }
    return DispatchTypes<kNumericTypes>(x.type, "Clip", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      using C = ComputeType<T>;
      C lo, hi;
      if constexpr (std::is_floating_point_v<C>) {
        lo = -std::numeric_limits<C>::infinity();
        hi = std::numeric_limits<C>::infinity();
      } else {
        lo = std::numeric_limits<C>::lowest();
        hi = std::numeric_limits<C>::max();
      }
      if (legacy_) {
        if (attr_min_) lo = static_cast<C>(*attr_min_);
        if (attr_max_) hi = static_cast<C>(*attr_max_);
      } else {
        for (int i : {1, 2}) {
          if (!ctx.HasInput(i)) continue;
          ANVIL_ASSIGN_OR_RETURN(T bound, ScalarInput<T>(ctx, i, i == 1 ? "min" : "max", x.type));
          (i == 1 ? lo : hi) = Widen(bound);
        }
      }
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
        FloatUnaryRows(
            x, y,
            [lo, hi](const float* in, float* out, size_t n) { simd::Clip(in, lo, hi, out, n); },
            [lo, hi](float v) {
              v = v < lo ? lo : v;
              return v > hi ? hi : v;
            });
      } else {
        MapUnary<T, T>(x, y, [lo, hi](T v) {
          C c = Widen(v);
          c = c < lo ? lo : c;
          return Narrow<T>(c > hi ? hi : c);
        });
      }
      return absl::OkStatus();
    });
  }

 private:
  bool legacy_;
  std::optional<float> attr_min_;
  std::optional<float> attr_max_;
};

// ---------------------------------------------------------------------------------------------
// Scalar
// ---------------------------------------------------------------------------------------------

// Elu, Selu and Celu are one function: x > 0 ? gamma * x : gamma * alpha * expm1(beta * x).
absl::Status ExpLinear(KernelContext& ctx, float alpha, float beta, float gamma) {
  const TensorView& x = ctx.input(0);
  if (RunsFloatRows(x.type) && x.type == ctx.output(0).type && x.dims == ctx.output(0).dims) {
    FloatUnaryRows(
        x, ctx.output(0),
        [=](const float* in, float* out, size_t n) {
          simd::ExpLinear(in, alpha, beta, gamma, out, n);
        },
        [=](float v) { return v > 0.0f ? gamma * v : gamma * alpha * std::expm1(beta * v); });
    return absl::OkStatus();
  }
  return ApplyUnary<kFloatTypes>(ctx, [=](auto v) {
    using C = decltype(v);
    return v > C(0) ? static_cast<C>(gamma) * v
                    : static_cast<C>(gamma) * static_cast<C>(alpha) *
                          std::expm1(static_cast<C>(beta) * v);
  });
}

absl::Status EluCompute(KernelContext& ctx, const Attrs& attrs) {
  return ExpLinear(ctx, attrs.alpha, 1.0f, 1.0f);
}

absl::Status SeluCompute(KernelContext& ctx, const Attrs& attrs) {
  return ExpLinear(ctx, attrs.alpha, 1.0f, attrs.gamma);
}

absl::Status CeluCompute(KernelContext& ctx, const Attrs& attrs) {
  return ExpLinear(ctx, attrs.alpha, 1.0f / attrs.alpha, 1.0f);
}

absl::Status HardSigmoidCompute(KernelContext& ctx, const Attrs& attrs) {
  return ApplyUnary<kFloatTypes>(ctx, [alpha = attrs.alpha, beta = attrs.beta](auto v) {
    using C = decltype(v);
    const C t = static_cast<C>(alpha) * v + static_cast<C>(beta);
    return std::max(C(0), std::min(C(1), t));
  });
}

// x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
absl::Status HardSwishCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx,
      [](auto v) {
        using C = decltype(v);
        const C t = v / C(6) + C(0.5);
        return v * std::max(C(0), std::min(C(1), t));
      },
      simd::UnaryOp::kHardSwish);
}

// com.microsoft Gelu: 0.5 x (1 + erf(x / sqrt(2))) as x * 0.5 * (erf(x * (1 / sqrt(2))) + 1),
// float32 through the Highway routine with these operations.
absl::Status GeluCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx,
      [](auto v) {
        using C = decltype(v);
        return v * C(0.5) * (std::erf(v * C(0.707106781186547524)) + C(1));
      },
      simd::UnaryOp::kGelu);
}

// Gelu-20: the erf form (com.microsoft Gelu's), or with approximate = "tanh"
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
absl::Status GeluTanhCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) {
    using C = decltype(v);
    return C(0.5) * v * (C(1) + std::tanh(C(0.7978845608028654) * (v + C(0.044715) * v * v * v)));
  });
}

// Mish-18: x tanh(softplus(x)).
absl::Status MishCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return v * std::tanh(SoftplusValue(v)); });
}

absl::Status SoftplusCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return SoftplusValue(v); }, simd::UnaryOp::kSoftplus);
}

absl::Status SoftsignCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return v / (decltype(v)(1) + std::abs(v)); });
}

absl::Status ThresholdedReluCompute(KernelContext& ctx, const Attrs& attrs) {
  return ApplyUnary<kFloatTypes>(ctx, [alpha = attrs.alpha](auto v) {
    using C = decltype(v);
    return v > static_cast<C>(alpha) ? v : C(0);
  });
}

// Shrink on integers computes in double and truncates back (bias and lambd are floats).
absl::Status ShrinkCompute(KernelContext& ctx, const Attrs& attrs) {
  const double lambd = attrs.alpha, bias = attrs.beta;
  return ApplyUnary<kNumericTypes>(ctx, [lambd, bias](auto v) {
    using C = decltype(v);
    const double d = static_cast<double>(v);
    const double r = d < -lambd ? d + bias : (d > lambd ? d - bias : 0.0);
    if constexpr (std::is_integral_v<C>) {
      return FloatToInt<C>(r);
    } else {
      return static_cast<C>(r);
    }
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateRelu(const Node& node, int64_t opset) {
  return Stateless<&ReluCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSigmoid(const Node& node, int64_t opset) {
  return Stateless<&SigmoidCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateTanh(const Node& node, int64_t opset) {
  return Stateless<&TanhCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateHardSwish(const Node& node, int64_t opset) {
  return Stateless<&HardSwishCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateGelu(const Node& node, int64_t opset) {
  const std::string approximate =
      node.domain().empty() ? node.GetString("approximate", "none") : "none";
  if (approximate == "tanh") return Stateless<&GeluTanhCompute>(node, opset);
  if (approximate != "none") {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": approximate '", approximate, "' is not none or tanh"));
  }
  return Stateless<&GeluCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMish(const Node& node, int64_t opset) {
  return Stateless<&MishCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSoftplus(const Node& node, int64_t opset) {
  return Stateless<&SoftplusCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSoftsign(const Node& node, int64_t opset) {
  return Stateless<&SoftsignCompute>(node, opset);
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQuickGelu(const Node& node, int64_t) {
  return MakeAttrKernel(&QuickGeluCompute, {.alpha = node.GetFloat("alpha", 1.702f)});
}
// Swish-24 is QuickGelu with alpha 1 by default: x * Sigmoid(alpha * x).
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSwish(const Node& node, int64_t) {
  return MakeAttrKernel(&QuickGeluCompute, {.alpha = node.GetFloat("alpha", 1.0f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateLeakyRelu(const Node& node, int64_t) {
  return MakeAttrKernel(&LeakyReluCompute, {.alpha = node.GetFloat("alpha", 0.01f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateElu(const Node& node, int64_t) {
  return MakeAttrKernel(&EluCompute, {.alpha = node.GetFloat("alpha", 1.0f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSelu(const Node& node, int64_t opset) {
  // Opset 1 rounded the defaults to 5 significant digits.
  const bool v1 = opset < 6;
  return MakeAttrKernel(
      &SeluCompute, {.alpha = node.GetFloat("alpha", v1 ? 1.6732f : 1.67326319217681884765625f),
                     .gamma = node.GetFloat("gamma", v1 ? 1.0507f : 1.05070102214813232421875f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateCelu(const Node& node, int64_t) {
  const float alpha = node.GetFloat("alpha", 1.0f);
  if (alpha == 0.0f) {
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": alpha must not be 0"));
  }
  return MakeAttrKernel(&CeluCompute, {.alpha = alpha});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateHardSigmoid(const Node& node, int64_t) {
  return MakeAttrKernel(&HardSigmoidCompute, {.alpha = node.GetFloat("alpha", 0.2f),
                                              .beta = node.GetFloat("beta", 0.5f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateThresholdedRelu(const Node& node, int64_t) {
  return MakeAttrKernel(&ThresholdedReluCompute, {.alpha = node.GetFloat("alpha", 1.0f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateShrink(const Node& node, int64_t) {
  // alpha holds lambd, beta holds bias.
  return MakeAttrKernel(
      &ShrinkCompute, {.alpha = node.GetFloat("lambd", 0.5f), .beta = node.GetFloat("bias", 0.0f)});
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateClip(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new ClipKernel(node, opset));
}

}  // namespace anvil::elementwise
