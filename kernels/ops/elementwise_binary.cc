// Binary arithmetic kernels: Add, Sub, Mul, Div, Mod, Pow, BitShift, PRelu.
//
// Integer semantics (one definition, here): Add/Sub/Mul wrap; Div truncates toward zero and
// INT_MIN / -1 wraps to INT_MIN; Mod with fmod=0 takes the divisor's sign (Python's %), with
// fmod=1 the dividend's (C's fmod / %); a zero divisor is an InvalidArgument from Compute, not a
// trap. Pow of integers is exact repeated multiplication (wrapping); an integer base with a
// negative integer exponent truncates 1 / base^-e (0 unless |base| = 1; base 0 is an error).

// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; the loops here (any
// length, rows that may alias) need its dynamic cost model, which is what -O3 uses. Set before
// any include so that the templates of elementwise_internal.h and the lambdas they inline are
// compiled alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/elementwise_internal.h"

namespace anvil::elementwise {
namespace {

enum class Arith { kAdd, kSub, kMul, kDiv, kMod };

// Data errors found while computing, reported after the loop (the loops stay branch-light).
// Atomic: the loop's chunks may run on several threads.
struct Errors {
  std::atomic<bool> division_by_zero{false};
  std::atomic<bool> zero_to_negative_power{false};
};

template <Arith kOp, typename C>
inline C ArithValue(C a, C b, bool fmod, Errors* errors) {
  if constexpr (std::is_integral_v<C>) {
    if constexpr (kOp == Arith::kAdd) return WrapAdd(a, b);
    if constexpr (kOp == Arith::kSub) return WrapSub(a, b);
    if constexpr (kOp == Arith::kMul) return WrapMul(a, b);
    if constexpr (kOp == Arith::kDiv || kOp == Arith::kMod) {
      if (b == 0) {
        errors->division_by_zero.store(true, std::memory_order_relaxed);
        return 0;
      }
      if constexpr (std::is_signed_v<C>) {
        // The one overflowing quotient (INT_MIN / -1) and its remainder.
        if (b == -1) return kOp == Arith::kDiv ? WrapSub(C(0), a) : C(0);
      }
      if constexpr (kOp == Arith::kDiv) {
        return static_cast<C>(a / b);
      } else {
        C r = static_cast<C>(a % b);
        if constexpr (std::is_signed_v<C>) {
          if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        }
        return r;
      }
    }
  } else {
    if constexpr (kOp == Arith::kAdd) return a + b;
    if constexpr (kOp == Arith::kSub) return a - b;
    if constexpr (kOp == Arith::kMul) return a * b;
    if constexpr (kOp == Arith::kDiv) return a / b;
    if constexpr (kOp == Arith::kMod) {
      C r = std::fmod(a, b);
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
}

constexpr const char* ArithName(Arith op) {
  switch (op) {
    case Arith::kAdd:
      return "Add";
    case Arith::kSub:
      return "Sub";
    case Arith::kMul:
      return "Mul";
    case Arith::kDiv:
      return "Div";
    case Arith::kMod:
      return "Mod";
  }
  return "";
}

absl::Status ReportErrors(const KernelContext& ctx, const Errors& errors) {
  if (errors.division_by_zero.load()) return ctx.Error("integer division by zero");
  if (errors.zero_to_negative_power.load())
    return ctx.Error("integer 0 raised to a negative power");
  return absl::OkStatus();
}

// Add, Sub, Mul, Div, Mod: inputs and output of one type T, numpy broadcasting (or the legacy
// broadcast attributes before opset 7).
template <Arith kOp>
class ArithmeticKernel final : public OpKernel {
 public:
  ArithmeticKernel(const Node& node, int64_t opset)
      : legacy_(ReadLegacyBroadcast(node, opset)), fmod_(node.GetInt("fmod", 0) != 0) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_RETURN_IF_ERROR(CheckSameTypes(ctx, {0, 1}));
    TensorView a, b;
    ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, legacy_, &a, &b));
    const TensorView& y = ctx.output(0);
    if constexpr (kOp != Arith::kMod) {
      if (RunsFloatRows(y.type)) {
        constexpr simd::BinaryOp kSimdOp = kOp == Arith::kAdd   ? simd::BinaryOp::kAdd
                                           : kOp == Arith::kSub ? simd::BinaryOp::kSub
                                           : kOp == Arith::kMul ? simd::BinaryOp::kMul
                                                                : simd::BinaryOp::kDiv;
        FloatBinary(kSimdOp, a, b, y);
        return absl::OkStatus();
      }
    }
    return DispatchTypes<kNumericTypes>(y.type, ArithName(kOp), [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      Errors errors;
      const bool fmod = fmod_;
      MapBinary<T, T, T>(a, b, y, [&errors, fmod](T x, T z) {
        return Narrow<T>(ArithValue<kOp>(Widen(x), Widen(z), fmod, &errors));
      });
      return ReportErrors(ctx, errors);
    });
  }

 private:
  LegacyBroadcast legacy_;
  bool fmod_;
};

template <Arith kOp>
absl::StatusOr<std::unique_ptr<OpKernel>> CreateArithmetic(const Node& node, int64_t opset) {
  if constexpr (kOp == Arith::kMod) {
    const int64_t fmod = node.GetInt("fmod", 0);
    if (fmod != 0 && fmod != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(node.Describe(), ": fmod must be 0 or 1, got ", fmod));
    }
  }
  return std::unique_ptr<OpKernel>(new ArithmeticKernel<kOp>(node, opset));
}

// ---------------------------------------------------------------------------------------------
// Pow
// ---------------------------------------------------------------------------------------------

// Base types: the spec's (int32, int64, float16, float, double, bfloat16). Exponent types: every
// numeric type.
constexpr uint32_t kPowBaseTypes =
    kFloatTypes | TypeBit(ElementType::kInt32) | TypeBit(ElementType::kInt64);

template <typename A, typename B>
inline A PowValue(A base, B exponent, Errors* errors) {
  using CA = ComputeType<A>;
  using CB = ComputeType<B>;
  const CA x = Widen(base);
  const CB e = Widen(exponent);
  if constexpr (std::is_floating_point_v<CA>) {
    if constexpr (std::is_floating_point_v<CB>) {
      // In the wider of the two float types (float ** double is computed in double).
      using P = std::conditional_t<(sizeof(CA) > sizeof(CB)), CA, CB>;
      return Narrow<A>(std::pow(static_cast<P>(x), static_cast<P>(e)));
    } else {
      // Integer exponent: double holds every exponent a finite result can have exactly.
      return Narrow<A>(std::pow(static_cast<double>(x), static_cast<double>(e)));
    }
  } else if constexpr (std::is_floating_point_v<CB>) {
    // Integer base, float exponent: the real power truncated (numpy's astype).
    return FloatToInt<A>(std::pow(static_cast<double>(x), static_cast<double>(e)));
  } else {
    if constexpr (std::is_signed_v<CB>) {
      if (e < 0) {
        if (x == 0) {
          errors->zero_to_negative_power.store(true, std::memory_order_relaxed);
          return 0;
        }
        if (x == 1) return 1;
        if (x == -1) return (e & 1) ? A(-1) : A(1);
        return 0;
      }
    }
    // Exponentiation by squaring, wrapping.
    A result = 1;
    A square = x;
    for (uint64_t n = static_cast<uint64_t>(e); n != 0; n >>= 1) {
      if (n & 1) result = WrapMul(result, square);
      if (n > 1) square = WrapMul(square, square);
    }
    return result;
  }
}

// Whether `v` is a single float equal to `value` (Pow's exponent fast paths).
bool IsScalarFloat(const TensorView& v, float value) {
  return v.type == ElementType::kFloat && v.NumElements() == 1 && *v.As<float>() == value;
}

class PowKernel final : public OpKernel {
 public:
  PowKernel(const Node& node, int64_t opset) : legacy_(ReadLegacyBroadcast(node, opset)) {}

  absl::Status Compute(KernelContext& ctx) override {
    TensorView a, b;
    ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, legacy_, &a, &b));
    const TensorView& y = ctx.output(0);
    if (a.type != y.type) {
      return ctx.Error(absl::StrCat("X is ", AsAbsl(ElementTypeName(a.type)), " but the output is ",
                                    AsAbsl(ElementTypeName(y.type))));
    }
    // x^2 is the common case in models (variance, squared error): one SIMD multiply.
    if (RunsFloatRows(y.type) && IsScalarFloat(ctx.input(1), 2.0f)) {
      FloatBinary(simd::BinaryOp::kMul, a, a, y);
      return absl::OkStatus();
    }
    Errors errors;
    ANVIL_RETURN_IF_ERROR(DispatchTypes<kPowBaseTypes>(a.type, "Pow", [&](auto base_tag) {
      using A = decltype(base_tag);
      return DispatchTypes<kNumericTypes>(b.type, "Pow", [&](auto exponent_tag) {
        using B = decltype(exponent_tag);
        MapBinary<A, B, A>(a, b, y, [&errors](A x, B e) { return PowValue(x, e, &errors); });
        return absl::OkStatus();
      });
    }));
    return ReportErrors(ctx, errors);
  }

 private:
  LegacyBroadcast legacy_;
};

// ---------------------------------------------------------------------------------------------
// BitShift
// ---------------------------------------------------------------------------------------------

// Shifting by the bit width or more gives 0 (C++ leaves it undefined; numpy gives 0).
class BitShiftKernel final : public OpKernel {
 public:
  explicit BitShiftKernel(bool left) : left_(left) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_RETURN_IF_ERROR(CheckSameTypes(ctx, {0, 1}));
    TensorView a, b;
    ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, LegacyBroadcast(), &a, &b));
    const TensorView& y = ctx.output(0);
    return DispatchTypes<kUnsignedIntTypes>(y.type, "BitShift", [&](auto tag) {
      using T = decltype(tag);
      constexpr T kBits = static_cast<T>(sizeof(T) * 8);
      if (left_) {
        MapBinary<T, T, T>(a, b, y, [](T x, T s) {
          return s >= kBits ? T(0) : static_cast<T>(static_cast<WrapType<T>>(x) << s);
        });
      } else {
        MapBinary<T, T, T>(a, b, y,
                           [](T x, T s) { return s >= kBits ? T(0) : static_cast<T>(x >> s); });
      }
      return absl::OkStatus();
    });
  }

 private:
  bool left_;
};

// BitwiseAnd, BitwiseOr, BitwiseXor (opset 18): integers of one type, numpy broadcasting.
enum class Bitwise { kAnd, kOr, kXor };

template <Bitwise kOp>
absl::Status BitwiseCompute(KernelContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckSameTypes(ctx, {0, 1}));
  TensorView a, b;
  ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, LegacyBroadcast(), &a, &b));
  const TensorView& y = ctx.output(0);
  return DispatchTypes<kIntTypes>(y.type, ctx.node().op_type(), [&](auto tag) {
    using T = decltype(tag);
    MapBinary<T, T, T>(a, b, y, [](T x, T z) {
      if constexpr (kOp == Bitwise::kAnd) return static_cast<T>(x & z);
      if constexpr (kOp == Bitwise::kOr) return static_cast<T>(x | z);
      return static_cast<T>(x ^ z);
    });
    return absl::OkStatus();
  });
}

absl::Status BitwiseNotCompute(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  const TensorView& y = ctx.output(0);
  if (x.type != y.type || x.dims != y.dims) return ctx.Error("X and Y differ in type or shape");
  return DispatchTypes<kIntTypes>(y.type, "BitwiseNot", [&](auto tag) {
    using T = decltype(tag);
    MapUnary<T, T>(x, y, [](T v) { return static_cast<T>(~v); });
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------------------------
// PRelu
// ---------------------------------------------------------------------------------------------

// y = x < 0 ? slope * x : x, slope broadcast to X's shape (unidirectionally). Before opset 7 a
// 1-D slope may also be per channel (axis 1), as Caffe-era models have it.
absl::Status PReluCompute(KernelContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckSameTypes(ctx, {0, 1}));
  const TensorView& y = ctx.output(0);
  const TensorView& x = ctx.input(0);
  const TensorView& slope_in = ctx.input(1);
  absl::StatusOr<TensorView> slope = BroadcastInput(ctx, slope_in, y.dims);
  if (!slope.ok() && ctx.opset() < 7 && slope_in.rank() == 1 && y.dims.size() >= 2) {
    TensorView dummy;
    TensorView per_channel;
    LegacyBroadcast legacy;
    legacy.has_axis = true;
    legacy.axis = 1;
    if (BinaryOperands(ctx, legacy, &dummy, &per_channel).ok()) slope = per_channel;
  }
  if (!slope.ok()) return slope.status();
  if (x.dims != y.dims) return ctx.Error("X and the output differ in shape");

  if (y.type == ElementType::kFloat) {
    const LoopPlan plan = PlanLoop(y.dims, {&x, &*slope});
    ForEachRow<2>(plan, y.data, sizeof(float), {x.data, slope->data}, [](const Row<2>& r) {
      const float* px = r.In<float>(0);
      const float* ps = r.In<float>(1);
      float* o = r.Out<float>();
      if (r.step[0] == 1 && r.step[1] == 0) {  // one slope for the row: LeakyRelu
        simd::LeakyRelu(px, *ps, o, static_cast<size_t>(r.n));
        return;
      }
      for (int64_t i = 0; i < r.n; ++i) {
        const float v = px[i * r.step[0]];
        o[i] = v < 0.0f ? v * ps[i * r.step[1]] : v;
      }
    });
    return absl::OkStatus();
  }
  return DispatchTypes<kNumericTypes>(y.type, "PRelu", [&](auto tag) {
    using T = decltype(tag);
    MapBinary<T, T, T>(x, *slope, y, [](T v, T s) {
      const ComputeType<T> cv = Widen(v);
      if constexpr (std::is_integral_v<T>) {
        return cv < 0 ? WrapMul(cv, Widen(s)) : cv;
      } else {
        return Narrow<T>(cv < 0 ? cv * Widen(s) : cv);
      }
    });
    return absl::OkStatus();
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateAdd(const Node& node, int64_t opset) {
  return CreateArithmetic<Arith::kAdd>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSub(const Node& node, int64_t opset) {
  return CreateArithmetic<Arith::kSub>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMul(const Node& node, int64_t opset) {
  return CreateArithmetic<Arith::kMul>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateDiv(const Node& node, int64_t opset) {
  return CreateArithmetic<Arith::kDiv>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMod(const Node& node, int64_t opset) {
  return CreateArithmetic<Arith::kMod>(node, opset);
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreatePow(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new PowKernel(node, opset));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateBitShift(const Node& node, int64_t) {
  const std::string direction = node.GetString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    return absl::InvalidArgumentError(absl::StrCat(
        node.Describe(), ": direction must be \"LEFT\" or \"RIGHT\", got \"", direction, "\""));
  }
  return std::unique_ptr<OpKernel>(new BitShiftKernel(direction == "LEFT"));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateBitwiseAnd(const Node& node, int64_t opset) {
  return Stateless<&BitwiseCompute<Bitwise::kAnd>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateBitwiseOr(const Node& node, int64_t opset) {
  return Stateless<&BitwiseCompute<Bitwise::kOr>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateBitwiseXor(const Node& node, int64_t opset) {
  return Stateless<&BitwiseCompute<Bitwise::kXor>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateBitwiseNot(const Node& node, int64_t opset) {
  return Stateless<&BitwiseNotCompute>(node, opset);
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreatePRelu(const Node& node, int64_t opset) {
  return Stateless<&PReluCompute>(node, opset);
}

}  // namespace anvil::elementwise
