// Unary math kernels: Abs, Neg, Sign, Reciprocal, Sqrt, Exp, Log, Erf, Ceil, Floor, Round, the
// trigonometric and hyperbolic functions, IsInf, IsNaN.
//
// float32 Abs, Neg, Sqrt, Exp, Log and Erf run through the Highway routines; everything else is
// libm on the compute type (float for float16/bfloat16). Integer inputs, where ONNX allows them:
// Abs and Neg wrap (|INT_MIN| = INT_MIN), Sign is -1/0/1, Erf is erf of the value truncated
// back to the integer type. Round is half to even (the default floating-point environment's
// nearbyint).

// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; the loops here (any
// length, rows that may alias) need its dynamic cost model, which is what -O3 uses. Set before
// any include so that the templates of elementwise_internal.h and the lambdas they inline are
// compiled alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <cmath>
#include <cstdint>
#include <memory>

#include "kernels/ops/elementwise_internal.h"

namespace anvil::elementwise {
namespace {

// A float function applied to any type in kTypes: integers go through double and truncate.
template <typename C, typename F>
inline C ViaFloat(C v, const F& f) {
  if constexpr (std::is_integral_v<C>) {
    return FloatToInt<C>(f(static_cast<double>(v)));
  } else {
    return f(v);
  }
}

absl::Status AbsCompute(KernelContext& ctx) {
  return ApplyUnary<kNumericTypes>(
      ctx,
      [](auto v) {
        using C = decltype(v);
        if constexpr (std::is_unsigned_v<C>) {
          return v;
        } else if constexpr (std::is_integral_v<C>) {
          return v < 0 ? WrapSub(C(0), v) : v;
        } else {
          return std::abs(v);
        }
      },
      simd::UnaryOp::kAbs);
}

absl::Status NegCompute(KernelContext& ctx) {
  return ApplyUnary<kSignedTypes>(
      ctx,
      [](auto v) {
        using C = decltype(v);
        if constexpr (std::is_integral_v<C>) {
          return WrapSub(C(0), v);
        } else {
          return -v;
        }
      },
      simd::UnaryOp::kNeg);
}

absl::Status SignCompute(KernelContext& ctx) {
  return ApplyUnary<kNumericTypes>(ctx, [](auto v) {
    using C = decltype(v);
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(v)) return v;
    }
    return v > C(0) ? C(1) : (v < C(0) ? static_cast<C>(-1) : C(0));
  });
}

absl::Status ReciprocalCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return decltype(v)(1) / v; });
}

absl::Status SqrtCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return std::sqrt(v); }, simd::UnaryOp::kSqrt);
}

absl::Status ExpCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return std::exp(v); }, simd::UnaryOp::kExp);
}

absl::Status LogCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(
      ctx, [](auto v) { return std::log(v); }, simd::UnaryOp::kLog);
}

absl::Status ErfCompute(KernelContext& ctx) {
  return ApplyUnary<kNumericTypes>(
      ctx, [](auto v) { return ViaFloat(v, [](auto f) { return std::erf(f); }); },
      simd::UnaryOp::kErf);
}

absl::Status CeilCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return std::ceil(v); });
}

absl::Status FloorCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return std::floor(v); });
}

absl::Status RoundCompute(KernelContext& ctx) {
  return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return std::nearbyint(v); });
}

// Trigonometric and hyperbolic: float16, float, double in ONNX; bfloat16 costs nothing more.
#define ANVIL_EW_LIBM_KERNEL(Name, fn)                                      \
  absl::Status Name##Compute(KernelContext& ctx) {                          \
    return ApplyUnary<kFloatTypes>(ctx, [](auto v) { return std::fn(v); }); \
  }
ANVIL_EW_LIBM_KERNEL(Acos, acos)
ANVIL_EW_LIBM_KERNEL(Acosh, acosh)
ANVIL_EW_LIBM_KERNEL(Asin, asin)
ANVIL_EW_LIBM_KERNEL(Asinh, asinh)
ANVIL_EW_LIBM_KERNEL(Atan, atan)
ANVIL_EW_LIBM_KERNEL(Atanh, atanh)
ANVIL_EW_LIBM_KERNEL(Cos, cos)
ANVIL_EW_LIBM_KERNEL(Cosh, cosh)
ANVIL_EW_LIBM_KERNEL(Sin, sin)
ANVIL_EW_LIBM_KERNEL(Sinh, sinh)
ANVIL_EW_LIBM_KERNEL(Tan, tan)
#undef ANVIL_EW_LIBM_KERNEL

// ---------------------------------------------------------------------------------------------
// Predicates
// ---------------------------------------------------------------------------------------------

template <typename Pred>
absl::Status Predicate(KernelContext& ctx, const Pred& pred) {
  const TensorView& x = ctx.input(0);
  const TensorView& y = ctx.output(0);
  if (x.dims != y.dims) return ctx.Error("input and output differ in shape");
  return DispatchTypes<kFloatTypes>(x.type, ctx.node().op_type(), [&](auto tag) {
    using T = decltype(tag);
    MapUnary<T, bool>(x, y, [&pred](T v) { return pred(Widen(v)); });
    return absl::OkStatus();
  });
}

absl::Status IsNaNCompute(KernelContext& ctx) {
  return Predicate(ctx, [](auto v) { return std::isnan(v); });
}

class IsInfKernel final : public OpKernel {
 public:
  explicit IsInfKernel(const Node& node)
      : negative_(node.GetInt("detect_negative", 1) != 0),
        positive_(node.GetInt("detect_positive", 1) != 0) {}

  absl::Status Compute(KernelContext& ctx) override {
    const bool negative = negative_, positive = positive_;
    return Predicate(ctx, [negative, positive](auto v) {
      return std::isinf(v) && (v < 0 ? negative : positive);
    });
  }

 private:
  bool negative_;
  bool positive_;
};

}  // namespace

#define ANVIL_EW_STATELESS(Name)                                                            \
  absl::StatusOr<std::unique_ptr<OpKernel>> Create##Name(const Node& node, int64_t opset) { \
    return Stateless<&Name##Compute>(node, opset);                                          \
  }
ANVIL_EW_STATELESS(Abs)
ANVIL_EW_STATELESS(Acos)
ANVIL_EW_STATELESS(Acosh)
ANVIL_EW_STATELESS(Asin)
ANVIL_EW_STATELESS(Asinh)
ANVIL_EW_STATELESS(Atan)
ANVIL_EW_STATELESS(Atanh)
ANVIL_EW_STATELESS(Ceil)
ANVIL_EW_STATELESS(Cos)
ANVIL_EW_STATELESS(Cosh)
ANVIL_EW_STATELESS(Erf)
ANVIL_EW_STATELESS(Exp)
ANVIL_EW_STATELESS(Floor)
ANVIL_EW_STATELESS(IsNaN)
ANVIL_EW_STATELESS(Log)
ANVIL_EW_STATELESS(Neg)
ANVIL_EW_STATELESS(Reciprocal)
ANVIL_EW_STATELESS(Round)
ANVIL_EW_STATELESS(Sign)
ANVIL_EW_STATELESS(Sin)
ANVIL_EW_STATELESS(Sinh)
ANVIL_EW_STATELESS(Sqrt)
ANVIL_EW_STATELESS(Tan)
#undef ANVIL_EW_STATELESS

absl::StatusOr<std::unique_ptr<OpKernel>> CreateIsInf(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new IsInfKernel(node));
}

}  // namespace anvil::elementwise
