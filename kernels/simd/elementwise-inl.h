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
#include "kernels/simd/vector_math-inl.h"

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

// The vector math (ReluOp, SigmoidOp, ClipOp, ...) comes from vector_math-inl.h.

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
    case UnaryOp::kHardSwish:
      return MapUnary(x, out, n, HardSwishOp());
    case UnaryOp::kGelu:
      return MapUnary(x, out, n, GeluOp());
  }
}

HWY_NOINLINE void ClipImpl(const float* x, float lo, float hi, float* out, size_t n) {
  MapUnary(x, out, n, ClipOp{lo, hi});
}

HWY_NOINLINE void LeakyReluImpl(const float* x, float alpha, float* out, size_t n) {
  MapUnary(x, out, n, LeakyReluOp{alpha});
}

HWY_NOINLINE void QuickGeluImpl(const float* x, float alpha, float* out, size_t n) {
  MapUnary(x, out, n, QuickGeluOp{alpha});
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

// even[j] = x[2j], odd[j] = x[2j + 1] for the n values of x.
HWY_NOINLINE void DeinterleaveImpl(const float* x, float* even, float* odd, size_t n) {
  const D d;
  const size_t L = hn::Lanes(d);
  size_t j = 0;
  for (; 2 * (j + L) <= n; j += L) {
    V e, o;
    hn::LoadInterleaved2(d, x + 2 * j, e, o);
    hn::StoreU(e, d, even + j);
    hn::StoreU(o, d, odd + j);
  }
  for (; 2 * j < n; ++j) {
    even[j] = x[2 * j];
    if (2 * j + 1 < n) odd[j] = x[2 * j + 1];
  }
}

HWY_NOINLINE void AddInterleaved2Impl(const float* a, const float* b, float* dst, size_t n) {
  const D d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    V even, odd;
    hn::LoadInterleaved2(d, dst + 2 * i, even, odd);
    hn::StoreInterleaved2(hn::Add(even, hn::LoadU(d, a + i)), hn::Add(odd, hn::LoadU(d, b + i)), d,
                          dst + 2 * i);
  }
  for (; i < n; ++i) {
    dst[2 * i] += a[i];
    dst[2 * i + 1] += b[i];
  }
}

HWY_NOINLINE void Interpolate2Impl(const float* row, size_t len, const int32_t* o0,
                                   const int32_t* o1, const float* w0, const float* w1, float* dst,
                                   size_t n) {
  const D d;
  const hn::RebindToSigned<D> di;
  const size_t L = hn::Lanes(d);
  const V zero = hn::Zero(d);
  size_t x = 0;
  for (; x + L <= n; x += L) {
    V a, b;
    const int32_t base = o0[x];
    // Upsampling: the vector's taps lie within L values from o0[x] (offsets never decrease), so
    // one load and two in-register permutes replace the gathers.
    if (base >= 0 && static_cast<size_t>(base) + L <= len &&
        o1[x + L - 1] - base < static_cast<int32_t>(L)) {
      const V window = hn::LoadU(d, row + base);
      const auto shift = hn::Set(di, base);
      a = hn::TableLookupLanes(window,
                               hn::IndicesFromVec(d, hn::Sub(hn::LoadU(di, o0 + x), shift)));
      b = hn::TableLookupLanes(window,
                               hn::IndicesFromVec(d, hn::Sub(hn::LoadU(di, o1 + x), shift)));
    } else {
      a = hn::GatherIndex(d, row, hn::LoadU(di, o0 + x));
      b = hn::GatherIndex(d, row, hn::LoadU(di, o1 + x));
    }
    // (0 + w0 * a) + w1 * b, unfused: the scalar loop's operations.
    const V sum =
        hn::Add(hn::Add(zero, hn::Mul(hn::LoadU(d, w0 + x), a)), hn::Mul(hn::LoadU(d, w1 + x), b));
    hn::StoreU(sum, d, dst + x);
  }
  for (; x < n; ++x) {
    float sum = 0;
    sum += w0[x] * row[o0[x]];
    sum += w1[x] * row[o1[x]];
    dst[x] = sum;
  }
}

HWY_NOINLINE void BlendBilinearRowImpl(const float* top, const float* bottom, size_t len,
                                       const int32_t* i1, const int32_t* i2, const float* d1,
                                       const float* d2, float e1, float e2, float* dst, size_t n) {
  const D d;
  const hn::RebindToSigned<D> di;
  const size_t L = hn::Lanes(d);
  const V ve1 = hn::Set(d, e1), ve2 = hn::Set(d, e2);
  size_t x = 0;
  for (; x + L <= n; x += L) {
    const auto c1 = hn::LoadU(di, i1 + x), c2 = hn::LoadU(di, i2 + x);
    V a11, a21, a12, a22;
    const int32_t base = i1[x];
    // Upsampling: the vector's columns lie within L values of i1[x], so one load per row and
    // in-register permutes replace the gathers.
    if (static_cast<size_t>(base) + L <= len && i2[x + L - 1] - base < static_cast<int32_t>(L)) {
      const auto shift = hn::Set(di, base);
      const auto k1 = hn::IndicesFromVec(d, hn::Sub(c1, shift));
      const auto k2 = hn::IndicesFromVec(d, hn::Sub(c2, shift));
      const V t = hn::LoadU(d, top + base), b = hn::LoadU(d, bottom + base);
      a11 = hn::TableLookupLanes(t, k1);
      a21 = hn::TableLookupLanes(t, k2);
      a12 = hn::TableLookupLanes(b, k1);
      a22 = hn::TableLookupLanes(b, k2);
    } else {
      a11 = hn::GatherIndex(d, top, c1);
      a21 = hn::GatherIndex(d, top, c2);
      a12 = hn::GatherIndex(d, bottom, c1);
      a22 = hn::GatherIndex(d, bottom, c2);
    }
    const V vd1 = hn::LoadU(d, d1 + x), vd2 = hn::LoadU(d, d2 + x);
    V sum = hn::Mul(hn::Mul(vd2, ve2), a11);
    sum = hn::Add(sum, hn::Mul(hn::Mul(vd1, ve2), a21));
    sum = hn::Add(sum, hn::Mul(hn::Mul(vd2, ve1), a12));
    sum = hn::Add(sum, hn::Mul(hn::Mul(vd1, ve1), a22));
    hn::StoreU(sum, d, dst + x);
  }
  for (; x < n; ++x) {
    float sum = d2[x] * e2 * top[i1[x]];
    sum = sum + d1[x] * e2 * top[i2[x]];
    sum = sum + d2[x] * e1 * bottom[i1[x]];
    dst[x] = sum + d1[x] * e1 * bottom[i2[x]];
  }
}

HWY_NOINLINE void AddScaledImpl(const float* x, float w, float* y, size_t n) {
  const D d;
  const size_t L = hn::Lanes(d);
  const V vw = hn::Set(d, w);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    hn::StoreU(hn::Add(hn::LoadU(d, y + i), hn::Mul(vw, hn::LoadU(d, x + i))), d, y + i);
  }
  for (; i < n; ++i) y[i] = y[i] + w * x[i];
}

// The pool's fold step, v > m ? v : m (NaN v skipped, the earlier of equal values kept): on x86
// one maxps, whose definition is exactly that (the second operand unless the first is greater).
template <class VV>
HWY_INLINE VV FoldMax(VV v, VV m) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  return hn::Max(v, m);
#else
  return hn::IfThenElse(hn::Gt(v, m), v, m);
#endif
}

// MaxPoolRowsImpl's vector loop over outputs [j, n) with the vectors of `d` while they fit in
// the rows: each vector of outputs folds all `rows` window rows (`row_step` apart from x) and
// their taps in registers, from y's values (accumulate) or from -inf, and is stored once. When
// outputs are left that a whole vector would overrun the rows to reach, the last vector is
// folded once more ending at n (each output takes the same maximum again: max is idempotent, so
// its bits do not change), which leaves nothing to the scalar loop on the common geometries.
template <class DV>
HWY_INLINE size_t MaxPoolRowVectors(DV d, const float* x, int64_t row_step, int64_t rows,
                                    int64_t len, int64_t stride, int64_t taps, int64_t dilation,
                                    bool accumulate, float* y, size_t j, size_t n) {
  using VV = hn::Vec<DV>;
  const size_t L = hn::Lanes(d);
  // Stride 2 and dilation 1 take taps in pairs from one interleaved load (even lanes: tap c, odd
  // lanes: tap c + 1), which reads 2 * L values from x + 2 * j + c; an odd last tap is the odd
  // lanes of the load one value earlier, so the loads end with the window.
  const bool pairs = stride == 2 && dilation == 1;
  // Vector loads reach x[(j + L) * stride + extra - 1] at most.
  const int64_t extra = pairs ? std::max<int64_t>(0, taps - 2) : (taps - 1) * dilation;
  const VV neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  auto fold = [&](size_t at) {
    VV m = accumulate ? hn::LoadU(d, y + at) : neg_inf;
    for (int64_t b = 0; b < rows; ++b) {
      const float* p = x + b * row_step + static_cast<int64_t>(at) * stride;
      if (stride == 1) {
        for (int64_t c = 0; c < taps; ++c) {
          const VV v = hn::LoadU(d, p + c * dilation);
          m = FoldMax(v, m);
        }
      } else if (pairs) {
        int64_t c = 0;
        for (; c + 1 < taps; c += 2) {
          VV even, odd;
          hn::LoadInterleaved2(d, p + c, even, odd);
          m = FoldMax(even, m);
          m = FoldMax(odd, m);
        }
        if (c < taps) {
          VV even, odd;
          if (c > 0) {
            hn::LoadInterleaved2(d, p + c - 1, even, odd);
            m = FoldMax(odd, m);
          } else {  // a single tap: the load starts at the window
            hn::LoadInterleaved2(d, p, even, odd);
            m = FoldMax(even, m);
          }
        }
      } else {
        for (int64_t c = 0; c < taps; ++c) {
          VV even, odd;
          hn::LoadInterleaved2(d, p + c * dilation, even, odd);
          m = FoldMax(even, m);
        }
      }
    }
    hn::StoreU(m, d, y + at);
  };
  auto fits = [&](size_t end) { return static_cast<int64_t>(end) * stride + extra <= len; };
  for (; j + L <= n && fits(j + L); j += L) fold(j);
  if (j < n && n >= L && j + L > n && fits(n)) {
    fold(n - L);
    j = n;
  }
  return j;
}

HWY_NOINLINE void MaxPoolRowsImpl(const float* x, int64_t in_w, const int64_t* row_first,
                                  const int64_t* row_count, int64_t row_dilation, int64_t out_rows,
                                  int64_t col_offset, int64_t stride, int64_t taps,
                                  int64_t dilation, bool accumulate, float* y, int64_t out_w,
                                  int64_t col_begin, int64_t col_end) {
  const D d;
  const size_t n = static_cast<size_t>(col_end - col_begin);
  const int64_t row_step = row_dilation * in_w, len = in_w - col_offset;
  for (int64_t oh = 0; oh < out_rows; ++oh) {
    float* yr = y + oh * out_w + col_begin;
    const float* rows = x + row_first[oh] * in_w + col_offset;
    const int64_t count = row_count[oh];
    size_t j = 0;
    if (stride == 1 || stride == 2) {
      j = MaxPoolRowVectors(d, rows, row_step, count, len, stride, taps, dilation, accumulate, yr,
                            j, n);
      if constexpr (hn::MaxLanes(D()) >= 8) {
        j = MaxPoolRowVectors(hn::Half<D>(), rows, row_step, count, len, stride, taps, dilation,
                              accumulate, yr, j, n);
      }
    }
    for (; j < n; ++j) {
      float m = accumulate ? yr[j] : -std::numeric_limits<float>::infinity();
      for (int64_t b = 0; b < count; ++b) {
        for (int64_t c = 0; c < taps; ++c) {
          const float v = rows[b * row_step + static_cast<int64_t>(j) * stride + c * dilation];
          m = v > m ? v : m;
        }
      }
      yr[j] = m;
    }
  }
}

// MaxPool2x2PlanesImpl's vector loop over outputs [j, n) of one row with the vectors of `d`: each
// window's four values folded in (row, column) order from -inf, NaN skipped, as the scalar fold.
template <class DV>
HWY_INLINE size_t MaxPool2x2RowVectors(DV d, const float* r0, const float* r1, float* y, size_t j,
                                       size_t n) {
  using VV = hn::Vec<DV>;
  const size_t L = hn::Lanes(d);
  const VV neg_inf = hn::Set(d, -std::numeric_limits<float>::infinity());
  for (; j + L <= n; j += L) {
    VV e0, o0, e1, o1;
    hn::LoadInterleaved2(d, r0 + 2 * j, e0, o0);
    hn::LoadInterleaved2(d, r1 + 2 * j, e1, o1);
    VV m = FoldMax(e0, neg_inf);
    m = FoldMax(o0, m);
    m = FoldMax(e1, m);
    m = FoldMax(o1, m);
    hn::StoreU(m, d, y + j);
  }
  return j;
}

HWY_NOINLINE void MaxPool2x2PlanesImpl(const float* x, int64_t planes, int64_t in_h, int64_t in_w,
                                       float* y, int64_t out_h, int64_t out_w) {
  const D d;
  const size_t n = static_cast<size_t>(out_w);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      const float* r0 = x + (p * in_h + 2 * oh) * in_w;
      const float* r1 = r0 + in_w;
      float* yr = y + (p * out_h + oh) * out_w;
      size_t j = MaxPool2x2RowVectors(d, r0, r1, yr, 0, n);
      // Narrow rows (8 or 4 outputs: the late layers of small images) in narrower vectors.
      if constexpr (hn::MaxLanes(D()) >= 8) {
        j = MaxPool2x2RowVectors(hn::Half<D>(), r0, r1, yr, j, n);
      }
      if constexpr (hn::MaxLanes(D()) >= 16) {
        j = MaxPool2x2RowVectors(hn::Half<hn::Half<D>>(), r0, r1, yr, j, n);
      }
      for (; j < n; ++j) {
        float m = -std::numeric_limits<float>::infinity();
        for (const float v : {r0[2 * j], r0[2 * j + 1], r1[2 * j], r1[2 * j + 1]}) {
          m = v > m ? v : m;
        }
        yr[j] = m;
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace anvil::simd
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
