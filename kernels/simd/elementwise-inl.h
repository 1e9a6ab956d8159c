// Per-target bodies of simd/elementwise.h, compiled once per Highway target by elementwise.cc
// (foreach_target.h re-includes this file; the toggle below resets the include guard).
#if defined(ANVIL_KERNELS_SIMD_ELEMENTWISE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_ELEMENTWISE_INL_H_
#undef ANVIL_KERNELS_SIMD_ELEMENTWISE_INL_H_
#else
#define ANVIL_KERNELS_SIMD_ELEMENTWISE_INL_H_
#endif

#include <cstddef>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/simd/elementwise.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// The largest vector of any target this file is compiled for, in floats: tail buffers.
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// ---------------------------------------------------------------------------------------------
// Loops. Full vectors use unaligned loads; the last partial vector goes through a zero-padded
// stack buffer, because Highway 1.0.3's MaskedLoad is a full aligned Load on SSE4 (it would read
// past the end of the row, and fault on an unaligned row).
// ---------------------------------------------------------------------------------------------

template <class Fn>
HWY_INLINE void MapUnary(const float* x, float* out, size_t n, const Fn& fn) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if (n >= 2 * lanes) {
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      const V v0 = hn::LoadU(d, x + i);
      const V v1 = hn::LoadU(d, x + i + lanes);
      hn::StoreU(fn(d, v0), d, out + i);
      hn::StoreU(fn(d, v1), d, out + i + lanes);
    }
  }
  for (; i + lanes <= n; i += lanes) hn::StoreU(fn(d, hn::LoadU(d, x + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN float buf[kMaxLanes] = {};
    const size_t rest = n - i;
    for (size_t k = 0; k < rest; ++k) buf[k] = x[i + k];
    hn::Store(fn(d, hn::Load(d, buf)), d, buf);
    for (size_t k = 0; k < rest; ++k) out[i + k] = buf[k];
  }
}

template <class Fn>
HWY_INLINE void MapBinary(const float* a, const float* b, float* out, size_t n, const Fn& fn) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  if (n >= 2 * lanes) {
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      const V a0 = hn::LoadU(d, a + i);
      const V a1 = hn::LoadU(d, a + i + lanes);
      const V b0 = hn::LoadU(d, b + i);
      const V b1 = hn::LoadU(d, b + i + lanes);
      hn::StoreU(fn(d, a0, b0), d, out + i);
      hn::StoreU(fn(d, a1, b1), d, out + i + lanes);
    }
  }
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(fn(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  }
  if (i < n) {
    HWY_ALIGN float buf_a[kMaxLanes] = {};
    HWY_ALIGN float buf_b[kMaxLanes] = {};
    const size_t rest = n - i;
    for (size_t k = 0; k < rest; ++k) {
      buf_a[k] = a[i + k];
      buf_b[k] = b[i + k];
    }
    hn::Store(fn(d, hn::Load(d, buf_a), hn::Load(d, buf_b)), d, buf_a);
    for (size_t k = 0; k < rest; ++k) out[i + k] = buf_a[k];
  }
}

// ---------------------------------------------------------------------------------------------
// Binary operations
// ---------------------------------------------------------------------------------------------

struct AddOp {
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Add(a, b); }
};
struct SubOp {
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Sub(a, b); }
};
struct MulOp {
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Mul(a, b); }
};
struct DivOp {
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Div(a, b); }
};
// hn::Max/Min return one operand or the other for NaN depending on the target (x86 returns the
// second): select explicitly so that a NaN in either operand is the result.
struct MaxOp {
  HWY_INLINE V operator()(D, V a, V b) const {
    const V m = hn::IfThenElse(hn::Lt(a, b), b, a);  // a when a is NaN
    return hn::IfThenElse(hn::IsNaN(b), b, m);
  }
};
struct MinOp {
  HWY_INLINE V operator()(D, V a, V b) const {
    const V m = hn::IfThenElse(hn::Gt(a, b), b, a);
    return hn::IfThenElse(hn::IsNaN(b), b, m);
  }
};

// Binds a broadcast scalar as the second (kScalarFirst = false) or first operand.
template <class Op, bool kScalarFirst>
struct WithScalar {
  float s;
  HWY_INLINE V operator()(D d, V v) const {
    return kScalarFirst ? Op()(d, hn::Set(d, s), v) : Op()(d, v, hn::Set(d, s));
  }
};

template <class Op>
HWY_INLINE void Binary(int kind, const float* a, const float* b, float a_scalar, float b_scalar,
                       float* out, size_t n) {
  switch (kind) {
    case 0:
      MapBinary(a, b, out, n, Op());
      break;
    case 1:
      MapUnary(a, out, n, WithScalar<Op, false>{b_scalar});
      break;
    default:
      MapUnary(b, out, n, WithScalar<Op, true>{a_scalar});
      break;
  }
}

// kind: 0 vector-vector, 1 vector-scalar, 2 scalar-vector.
HWY_NOINLINE void BinaryImpl(int op, int kind, const float* a, const float* b, float a_scalar,
                             float b_scalar, float* out, size_t n) {
  switch (static_cast<BinaryOp>(op)) {
    case BinaryOp::kAdd:
      return Binary<AddOp>(kind, a, b, a_scalar, b_scalar, out, n);
    case BinaryOp::kSub:
      return Binary<SubOp>(kind, a, b, a_scalar, b_scalar, out, n);
    case BinaryOp::kMul:
      return Binary<MulOp>(kind, a, b, a_scalar, b_scalar, out, n);
    case BinaryOp::kDiv:
      return Binary<DivOp>(kind, a, b, a_scalar, b_scalar, out, n);
    case BinaryOp::kMax:
      return Binary<MaxOp>(kind, a, b, a_scalar, b_scalar, out, n);
    case BinaryOp::kMin:
      return Binary<MinOp>(kind, a, b, a_scalar, b_scalar, out, n);
  }
}

// ---------------------------------------------------------------------------------------------
// Unary operations
// ---------------------------------------------------------------------------------------------

HWY_INLINE V Infinity(D d) { return hn::Set(d, std::numeric_limits<float>::infinity()); }

// x < 0 ? 0 : x, so NaN stays NaN (unlike Max(x, 0) on x86).
struct ReluOp {
  HWY_INLINE V operator()(D d, V x) const { return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x); }
};
struct NegOp {
  HWY_INLINE V operator()(D, V x) const { return hn::Neg(x); }
};
struct AbsOp {
  HWY_INLINE V operator()(D, V x) const { return hn::Abs(x); }
};
struct SqrtOp {
  HWY_INLINE V operator()(D, V x) const { return hn::Sqrt(x); }
};

// contrib Exp returns 0 for NaN and garbage above the overflow threshold.
struct ExpOp {
  HWY_INLINE V operator()(D d, V x) const {
    // The largest float whose exp is finite is 88.7228391; above it, +inf.
    const V y =
        hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283935546875f)), Infinity(d), hn::Exp(d, x));
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  }
};

// contrib Log is undefined for 0, negatives, +inf and NaN.
struct LogOp {
  HWY_INLINE V operator()(D d, V x) const {
    const V zero = hn::Zero(d);
    const V inf = Infinity(d);
    V y = hn::Log(d, x);
    y = hn::IfThenElse(hn::Eq(x, inf), inf, y);
    y = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), y);
    // Negatives and NaN: NaN (x - x is NaN for NaN; 0/0 makes one for negatives).
    return hn::IfThenElse(hn::Lt(x, zero), hn::NaN(d), hn::IfThenElse(hn::IsNaN(x), x, y));
  }
};

// contrib Tanh: Expm1 of NaN is not NaN.
struct TanhOp {
  HWY_INLINE V operator()(D d, V x) const {
    return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x));
  }
};

// 1 / (1 + e^-x) without overflow: with e = exp(-|x|) <= 1, sigmoid(x) is 1 / (1 + e) for
// x >= 0 and e / (1 + e) for x < 0.
struct SigmoidOp {
  HWY_INLINE V operator()(D d, V x) const {
    const V one = hn::Set(d, 1.0f);
    const V e = hn::Exp(d, hn::Neg(hn::Abs(x)));  // in (0, 1]; 0 far below -87
    const V r = hn::Div(one, hn::Add(one, e));
    const V y = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(e, r), r);
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  }
};

// erf(x) = x * P(x^2) / Q(x^2) on [-4, 4] (outside, erf rounds to +-1 in float): the rational
// approximation Eigen and XLA use. Max relative error vs. double-precision erf, evaluated in
// float: 4e-7.
struct ErfOp {
  HWY_INLINE V operator()(D d, V v) const {
    const V x = hn::Min(hn::Max(v, hn::Set(d, -4.0f)), hn::Set(d, 4.0f));
    const V x2 = hn::Mul(x, x);
    V p = hn::Set(d, -2.72614225801306e-10f);
    p = hn::MulAdd(p, x2, hn::Set(d, 2.77068142495902e-08f));
    p = hn::MulAdd(p, x2, hn::Set(d, -2.10102402082508e-06f));
    p = hn::MulAdd(p, x2, hn::Set(d, -5.69250639462346e-05f));
    p = hn::MulAdd(p, x2, hn::Set(d, -7.34990630326855e-04f));
    p = hn::MulAdd(p, x2, hn::Set(d, -2.95459980854025e-03f));
    p = hn::MulAdd(p, x2, hn::Set(d, -1.60960333262415e-02f));
    p = hn::Mul(p, x);
    V q = hn::Set(d, -1.45660718464996e-05f);
    q = hn::MulAdd(q, x2, hn::Set(d, -2.13374055278905e-04f));
    q = hn::MulAdd(q, x2, hn::Set(d, -1.68282697438203e-03f));
    q = hn::MulAdd(q, x2, hn::Set(d, -7.37332916720468e-03f));
    q = hn::MulAdd(q, x2, hn::Set(d, -1.42647390514189e-02f));
    // Min/Max above may drop a NaN (target dependent): put it back.
    return hn::IfThenElse(hn::IsNaN(v), v, hn::Div(p, q));
  }
};

// max(x, 0) + log1p(exp(-|x|)): neither overflows. NaN: Exp gives 0 for it, so put it back.
struct SoftplusOp {
  HWY_INLINE V operator()(D d, V x) const {
    const V e = hn::Exp(d, hn::Neg(hn::Abs(x)));
    const V y = hn::Add(hn::Max(x, hn::Zero(d)), hn::Log1p(d, e));
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  }
};

HWY_NOINLINE void UnaryImpl(int op, const float* x, float* out, size_t n) {
  switch (static_cast<UnaryOp>(op)) {
    case UnaryOp::kRelu:
      return MapUnary(x, out, n, ReluOp());
    case UnaryOp::kSigmoid:
      return MapUnary(x, out, n, SigmoidOp());
    case UnaryOp::kTanh:
      return MapUnary(x, out, n, TanhOp());
    case UnaryOp::kExp:
      return MapUnary(x, out, n, ExpOp());
    case UnaryOp::kLog:
      return MapUnary(x, out, n, LogOp());
    case UnaryOp::kSqrt:
      return MapUnary(x, out, n, SqrtOp());
    case UnaryOp::kNeg:
      return MapUnary(x, out, n, NegOp());
    case UnaryOp::kAbs:
      return MapUnary(x, out, n, AbsOp());
    case UnaryOp::kErf:
      return MapUnary(x, out, n, ErfOp());
    case UnaryOp::kSoftplus:
      return MapUnary(x, out, n, SoftplusOp());
  }
}

// Comparisons rather than Min/Max so that NaN passes through on every target.
struct ClipOp {
  float lo, hi;
  HWY_INLINE V operator()(D d, V x) const {
    const V vlo = hn::Set(d, lo);
    const V vhi = hn::Set(d, hi);
    const V y = hn::IfThenElse(hn::Lt(x, vlo), vlo, x);
    return hn::IfThenElse(hn::Gt(y, vhi), vhi, y);
  }
};

HWY_NOINLINE void ClipImpl(const float* x, float lo, float hi, float* out, size_t n) {
  MapUnary(x, out, n, ClipOp{lo, hi});
}

struct LeakyReluOp {
  float alpha;
  HWY_INLINE V operator()(D d, V x) const {
    return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Mul(x, hn::Set(d, alpha)), x);
  }
};

HWY_NOINLINE void LeakyReluImpl(const float* x, float alpha, float* out, size_t n) {
  MapUnary(x, out, n, LeakyReluOp{alpha});
}

// x > 0 ? gamma * x : gamma * alpha * expm1(beta * x). Expm1 is 0 below its lower bound
// (-104), -1 is what it should be there; NaN takes the x > 0 branch's comparison false, so
// select it explicitly.
struct ExpLinearOp {
  float alpha, beta, gamma;
  HWY_INLINE V operator()(D d, V x) const {
    const V t = hn::Mul(x, hn::Set(d, beta));
    const V em1 = hn::IfThenElse(hn::Lt(t, hn::Set(d, -88.0f)), hn::Set(d, -1.0f), hn::Expm1(d, t));
    const V negative = hn::Mul(hn::Set(d, gamma * alpha), em1);
    const V y = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Mul(hn::Set(d, gamma), x), negative);
    return hn::IfThenElse(hn::IsNaN(x), x, y);
  }
};

HWY_NOINLINE void ExpLinearImpl(const float* x, float alpha, float beta, float gamma, float* out,
                                size_t n) {
  MapUnary(x, out, n, ExpLinearOp{alpha, beta, gamma});
}

}  // namespace HWY_NAMESPACE
}  // namespace anvil::simd
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
