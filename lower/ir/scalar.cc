#include "lower/ir/scalar.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "kernels/dispatch.h"

namespace anvil::tir {

namespace {

bool IsU64(DataType t) { return t.kind() == ScalarKind::kU64; }

// A float operation in the type's precision: f32 (and f16/bf16, which compute in f32) in float.
template <typename F>
double FloatOp(DataType t, double a, double b, F op) {
  if (t.kind() == ScalarKind::kF64) return op(a, b);
  const float r = static_cast<float>(op(static_cast<float>(a), static_cast<float>(b)));
  return RoundToFloat(t.kind(), r);
}

Scalar Bool(bool v) { return Scalar{v ? 1 : 0, 0}; }
Scalar Int(DataType t, int64_t v) { return Scalar{WrapToInt(t.kind(), v), 0}; }
Scalar Float(DataType t, double v) { return Scalar{0, RoundToFloat(t.kind(), v)}; }

int64_t Wrapping(uint64_t v) { return static_cast<int64_t>(v); }

}  // namespace

absl::StatusOr<Scalar> ApplyBinary(ExprKind kind, DataType type, Scalar a, Scalar b) {
  const DataType t = type.element();
  if (t.is_float()) {
    const double x = a.f, y = b.f;
    switch (kind) {
      case ExprKind::kAdd:
        return Float(t, FloatOp(t, x, y, [](auto p, auto q) { return p + q; }));
      case ExprKind::kSub:
        return Float(t, FloatOp(t, x, y, [](auto p, auto q) { return p - q; }));
      case ExprKind::kMul:
        return Float(t, FloatOp(t, x, y, [](auto p, auto q) { return p * q; }));
      case ExprKind::kDiv:
        return Float(t, FloatOp(t, x, y, [](auto p, auto q) { return p / q; }));
      case ExprKind::kMin:
        if (std::isnan(x) || std::isnan(y))
          return Float(t, std::numeric_limits<double>::quiet_NaN());
        return Float(t, std::min(x, y));
      case ExprKind::kMax:
        if (std::isnan(x) || std::isnan(y))
          return Float(t, std::numeric_limits<double>::quiet_NaN());
        return Float(t, std::max(x, y));
      case ExprKind::kCmpEq:
        return Bool(x == y);
      case ExprKind::kCmpNe:
        return Bool(x != y);
      case ExprKind::kCmpLt:
        return Bool(x < y);
      case ExprKind::kCmpLe:
        return Bool(x <= y);
      case ExprKind::kCmpGt:
        return Bool(x > y);
      case ExprKind::kCmpGe:
        return Bool(x >= y);
      default:
        break;
    }
    return absl::InternalError(absl::StrCat("no ", AsAbsl(ExprKindName(kind)), " on floats"));
  }
  if (t.is_bool()) {
    switch (kind) {
      case ExprKind::kAnd:
        return Bool(a.i != 0 && b.i != 0);
      case ExprKind::kOr:
        return Bool(a.i != 0 || b.i != 0);
      case ExprKind::kCmpEq:
        return Bool(a.i == b.i);
      case ExprKind::kCmpNe:
        return Bool(a.i != b.i);
      case ExprKind::kCmpLt:
        return Bool(a.i < b.i);
      case ExprKind::kCmpLe:
        return Bool(a.i <= b.i);
      case ExprKind::kCmpGt:
        return Bool(a.i > b.i);
      case ExprKind::kCmpGe:
        return Bool(a.i >= b.i);
      default:
        return absl::InternalError(absl::StrCat("no ", AsAbsl(ExprKindName(kind)), " on bools"));
    }
  }
  const int64_t x = a.i, y = b.i;
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  const bool u64 = IsU64(t);
  auto less = [&](int64_t p, int64_t q) {
    return u64 ? static_cast<uint64_t>(p) < static_cast<uint64_t>(q) : p < q;
  };
  switch (kind) {
    case ExprKind::kAdd:
      return Int(t, Wrapping(ux + uy));
    case ExprKind::kSub:
      return Int(t, Wrapping(ux - uy));
    case ExprKind::kMul:
      return Int(t, Wrapping(ux * uy));
    case ExprKind::kDiv:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod: {
      if (y == 0) return absl::InvalidArgumentError("integer division by zero");
      if (u64 || t.is_unsigned_int()) {
        return Int(t, Wrapping(kind == ExprKind::kMod ? ux % uy : ux / uy));
      }
      if (x == std::numeric_limits<int64_t>::min() && y == -1) {
        return Int(t, kind == ExprKind::kMod ? 0 : x);  // wraps
      }
      int64_t q = x / y, r = x % y;
      if (kind == ExprKind::kDiv) return Int(t, q);
      if (r != 0 && ((r < 0) != (y < 0))) {
        --q;
        r += y;
      }
      return Int(t, kind == ExprKind::kFloorDiv ? q : r);
    }
    case ExprKind::kMin:
      return Int(t, less(x, y) ? x : y);
    case ExprKind::kMax:
      return Int(t, less(x, y) ? y : x);
    case ExprKind::kCmpEq:
      return Bool(x == y);
    case ExprKind::kCmpNe:
      return Bool(x != y);
    case ExprKind::kCmpLt:
      return Bool(less(x, y));
    case ExprKind::kCmpLe:
      return Bool(!less(y, x));
    case ExprKind::kCmpGt:
      return Bool(less(y, x));
    case ExprKind::kCmpGe:
      return Bool(!less(x, y));
    default:
      break;
  }
  return absl::InternalError(absl::StrCat("no ", AsAbsl(ExprKindName(kind)), " on integers"));
}

Scalar ApplyUnary(ExprKind kind, DataType type, Scalar a) {
  const DataType t = type.element();
  if (kind == ExprKind::kNot) return Bool(a.i == 0);
  if (t.is_float()) return Float(t, -a.f);
  return Int(t, Wrapping(0 - static_cast<uint64_t>(a.i)));
}

Scalar ApplyCast(DataType to, DataType from, Scalar a) {
  const DataType t = to.element(), f = from.element();
  if (t.is_bool()) return Bool(f.is_float() ? a.f != 0 : a.i != 0);
  if (t.is_float()) {
    if (f.is_float()) return Float(t, a.f);
    if (IsU64(f)) return Float(t, static_cast<double>(static_cast<uint64_t>(a.i)));
    // int64 -> float rounds once (not through double) where the target is narrower.
    if (t.kind() != ScalarKind::kF64) return Float(t, static_cast<float>(a.i));
    return Float(t, static_cast<double>(a.i));
  }
  // To an integer.
  if (!f.is_float()) return Int(t, a.i);
  const double v = a.f;
  if (std::isnan(v)) return Int(t, 0);
  // Saturate at the target's range, then truncate toward zero.
  double lo, hi;
  switch (t.kind()) {
    case ScalarKind::kS8:
      lo = INT8_MIN, hi = INT8_MAX;
      break;
    case ScalarKind::kS16:
      lo = INT16_MIN, hi = INT16_MAX;
      break;
    case ScalarKind::kS32:
      lo = INT32_MIN, hi = INT32_MAX;
      break;
    case ScalarKind::kU8:
      lo = 0, hi = UINT8_MAX;
      break;
    case ScalarKind::kU16:
      lo = 0, hi = UINT16_MAX;
      break;
    case ScalarKind::kU32:
      lo = 0, hi = UINT32_MAX;
      break;
    case ScalarKind::kU64:
      if (v <= 0) return Int(t, 0);
      if (v >= 18446744073709551616.0) return Int(t, -1);
      return Int(t, static_cast<int64_t>(static_cast<uint64_t>(v)));
    default:  // s64, index
      if (v <= -9223372036854775808.0) return Int(t, std::numeric_limits<int64_t>::min());
      if (v >= 9223372036854775808.0) return Int(t, std::numeric_limits<int64_t>::max());
      return Int(t, static_cast<int64_t>(v));
  }
  return Int(t, static_cast<int64_t>(std::trunc(std::min(std::max(v, lo), hi))));
}

absl::StatusOr<Scalar> ApplyIntrinsic(IntrinsicOp op, DataType type,
                                      absl::Span<const Scalar> args) {
  const DataType t = type.element();
  const bool f64 = t.kind() == ScalarKind::kF64;
  // One-operand float math: in float for f32 (and f16/bf16), in double for f64.
  auto math = [&](float (*ff)(float), double (*fd)(double)) {
    const double v = args[0].f;
    return Float(t, f64 ? fd(v) : ff(static_cast<float>(v)));
  };
  switch (op) {
    case IntrinsicOp::kAbs:
      if (t.is_float()) return Float(t, std::fabs(args[0].f));
      if (t.is_unsigned_int()) return args[0];
      return Int(t, args[0].i < 0 ? Wrapping(0 - static_cast<uint64_t>(args[0].i)) : args[0].i);
    case IntrinsicOp::kAcos:
      return math(std::acos, std::acos);
    case IntrinsicOp::kAcosh:
      return math(std::acosh, std::acosh);
    case IntrinsicOp::kAsin:
      return math(std::asin, std::asin);
    case IntrinsicOp::kAsinh:
      return math(std::asinh, std::asinh);
    case IntrinsicOp::kAtan:
      return math(std::atan, std::atan);
    case IntrinsicOp::kAtanh:
      return math(std::atanh, std::atanh);
    case IntrinsicOp::kCeil:
      return math(std::ceil, std::ceil);
    case IntrinsicOp::kCos:
      return math(std::cos, std::cos);
    case IntrinsicOp::kCosh:
      return math(std::cosh, std::cosh);
    case IntrinsicOp::kErf:
      return math(std::erf, std::erf);
    case IntrinsicOp::kExp:
      return math(std::exp, std::exp);
    case IntrinsicOp::kFloor:
      return math(std::floor, std::floor);
    case IntrinsicOp::kLog:
      return math(std::log, std::log);
    case IntrinsicOp::kRound:
      return math(std::nearbyint, std::nearbyint);  // default rounding: half to even
    case IntrinsicOp::kSin:
      return math(std::sin, std::sin);
    case IntrinsicOp::kSinh:
      return math(std::sinh, std::sinh);
    case IntrinsicOp::kSqrt:
      return math(std::sqrt, std::sqrt);
    case IntrinsicOp::kTan:
      return math(std::tan, std::tan);
    case IntrinsicOp::kTanh:
      return math(std::tanh, std::tanh);
    case IntrinsicOp::kIsInf:
      return Bool(std::isinf(args[0].f));
    case IntrinsicOp::kIsNaN:
      return Bool(std::isnan(args[0].f));
    case IntrinsicOp::kPow:
      if (f64) return Float(t, std::pow(args[0].f, args[1].f));
      return Float(t, std::pow(static_cast<float>(args[0].f), static_cast<float>(args[1].f)));
    case IntrinsicOp::kFma:
      if (f64) return Float(t, std::fma(args[0].f, args[1].f, args[2].f));
      return Float(t, std::fma(static_cast<float>(args[0].f), static_cast<float>(args[1].f),
                               static_cast<float>(args[2].f)));
    case IntrinsicOp::kFmod: {
      if (t.is_float()) {
        if (f64) return Float(t, std::fmod(args[0].f, args[1].f));
        return Float(t, std::fmod(static_cast<float>(args[0].f), static_cast<float>(args[1].f)));
      }
      const int64_t x = args[0].i, y = args[1].i;
      if (y == 0) return absl::InvalidArgumentError("integer division by zero");
      if (IsU64(t) || t.is_unsigned_int()) {
        return Int(t, Wrapping(static_cast<uint64_t>(x) % static_cast<uint64_t>(y)));
      }
      if (y == -1) return Int(t, 0);
      return Int(t, x % y);  // the sign of the dividend, like C and std::fmod
    }
    default:
      break;
  }
  return absl::InternalError(
      absl::StrCat("intrinsic ", AsAbsl(IntrinsicName(op)), " is not element-wise"));
}

Scalar LoadScalar(DataType type, const void* p) {
  switch (type.kind()) {
    case ScalarKind::kBool:
      return Scalar{*static_cast<const uint8_t*>(p) != 0 ? 1 : 0, 0};
    case ScalarKind::kS8:
      return Scalar{*static_cast<const int8_t*>(p), 0};
    case ScalarKind::kS16:
      return Scalar{*static_cast<const int16_t*>(p), 0};
    case ScalarKind::kS32:
      return Scalar{*static_cast<const int32_t*>(p), 0};
    case ScalarKind::kS64:
    case ScalarKind::kU64:
    case ScalarKind::kIndex:
      return Scalar{*static_cast<const int64_t*>(p), 0};
    case ScalarKind::kU8:
      return Scalar{*static_cast<const uint8_t*>(p), 0};
    case ScalarKind::kU16:
      return Scalar{*static_cast<const uint16_t*>(p), 0};
    case ScalarKind::kU32:
      return Scalar{*static_cast<const uint32_t*>(p), 0};
    case ScalarKind::kF16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      return Scalar{0, HalfBitsToFloat(bits)};
    }
    case ScalarKind::kBF16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      return Scalar{0, Bfloat16BitsToFloat(bits)};
    }
    case ScalarKind::kF32:
      return Scalar{0, *static_cast<const float*>(p)};
    case ScalarKind::kF64:
      return Scalar{0, *static_cast<const double*>(p)};
    default:
      return Scalar{};
  }
}

void StoreScalar(DataType type, void* p, Scalar v) {
  switch (type.kind()) {
    case ScalarKind::kBool:
      *static_cast<uint8_t*>(p) = v.i != 0;
      return;
    case ScalarKind::kS8:
    case ScalarKind::kU8:
      *static_cast<uint8_t*>(p) = static_cast<uint8_t>(v.i);
      return;
    case ScalarKind::kS16:
    case ScalarKind::kU16:
      *static_cast<uint16_t*>(p) = static_cast<uint16_t>(v.i);
      return;
    case ScalarKind::kS32:
    case ScalarKind::kU32:
      *static_cast<uint32_t*>(p) = static_cast<uint32_t>(v.i);
      return;
    case ScalarKind::kS64:
    case ScalarKind::kU64:
    case ScalarKind::kIndex:
      *static_cast<int64_t*>(p) = v.i;
      return;
    case ScalarKind::kF16: {
      const uint16_t bits = Half::FromFloat(static_cast<float>(v.f));
      std::memcpy(p, &bits, 2);
      return;
    }
    case ScalarKind::kBF16: {
      const uint16_t bits = BFloat16::FromFloat(static_cast<float>(v.f));
      std::memcpy(p, &bits, 2);
      return;
    }
    case ScalarKind::kF32:
      *static_cast<float*>(p) = static_cast<float>(v.f);
      return;
    case ScalarKind::kF64:
      *static_cast<double*>(p) = v.f;
      return;
    default:
      return;
  }
}

}  // namespace anvil::tir
