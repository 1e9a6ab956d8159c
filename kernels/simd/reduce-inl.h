// Per-target body of simd/reduce.h (included once per target by reduce.cc).
//
// Horizontal reductions keep four independent vector accumulators: that hides the FMA/add
// latency and, for sums, behaves like numpy's pairwise summation closely enough (the error grows
// with n / (4 * lanes) rather than n). Tails use masked loads, so no scalar epilogue.
#if defined(ANVIL_KERNELS_SIMD_REDUCE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_REDUCE_INL_H_
#undef ANVIL_KERNELS_SIMD_REDUCE_INL_H_
#else
#define ANVIL_KERNELS_SIMD_REDUCE_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "kernels/simd/masked_load-inl.h"
#include "kernels/simd/vector_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace reduce_internal {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// A horizontal reduction: `op` combines vectors (the accumulators start at `identity`, masked
// tail lanes read as `identity` too), `f` maps each loaded vector first.
template <class Op, class F>
HWY_INLINE float Reduce(const float* HWY_RESTRICT x, size_t n, float identity, Op op, F f,
                        bool nan_propagating) {
  const D d;
  const size_t L = hn::Lanes(d);
  const V id = hn::Set(d, identity);
  V a0 = id, a1 = id, a2 = id, a3 = id;
  auto nan = hn::MaskFromVec(hn::Zero(d));  // any NaN seen (only tracked when propagating)
  size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    const V v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + L);
    const V v2 = hn::LoadU(d, x + i + 2 * L), v3 = hn::LoadU(d, x + i + 3 * L);
    if (nan_propagating) {
      nan = hn::Or(
          nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
    }
    a0 = op(a0, f(v0));
    a1 = op(a1, f(v1));
    a2 = op(a2, f(v2));
    a3 = op(a3, f(v3));
  }
  for (; i < n; i += L) {
    const size_t count = n - i < L ? n - i : L;
    const auto mask = hn::FirstN(d, count);
    const V v = hn::IfThenElse(mask, SafeMaskedLoad(mask, d, x + i), id);
    if (nan_propagating) nan = hn::Or(nan, hn::IsNaN(v));
    // f(identity) must not disturb the result: mask again after f.
    a0 = op(a0, hn::IfThenElse(mask, f(v), id));
  }
  if (nan_propagating && !hn::AllFalse(d, nan)) return std::numeric_limits<float>::quiet_NaN();
  return hn::GetLane(op.Fold(d, op(op(a0, a1), op(a2, a3))));
}

// Combine two vectors lane-wise; Fold combines the lanes of one (result in every lane).
struct AddOp {
  V operator()(V a, V b) const { return hn::Add(a, b); }
  V Fold(D d, V v) const { return hn::SumOfLanes(d, v); }
};
struct MaxOp {
  V operator()(V a, V b) const { return hn::Max(a, b); }
  V Fold(D d, V v) const { return hn::MaxOfLanes(d, v); }
};
struct MinOp {
  V operator()(V a, V b) const { return hn::Min(a, b); }
  V Fold(D d, V v) const { return hn::MinOfLanes(d, v); }
};
struct Identity {
  V operator()(V v) const { return v; }
};
struct Square {
  V operator()(V v) const { return hn::Mul(v, v); }
};
struct AbsValue {
  V operator()(V v) const { return hn::Abs(v); }
};

// Element-wise acc[i] = op(acc[i], x[i]), tails masked.
template <class Op>
HWY_INLINE void Accumulate(float* HWY_RESTRICT acc, const float* HWY_RESTRICT x, size_t n, Op op) {
  const D d;
  const size_t L = hn::Lanes(d);
  size_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(op(hn::LoadU(d, acc + i), hn::LoadU(d, x + i)), d, acc + i);
  if (i < n) {
    const auto mask = hn::FirstN(d, n - i);
    const V r = op(SafeMaskedLoad(mask, d, acc + i), SafeMaskedLoad(mask, d, x + i));
    hn::BlendedStore(r, mask, d, acc + i);
  }
}

// NaN-propagating max/min: x86 max/min return the second operand when either is NaN.
struct MaxNanOp {
  V operator()(V a, V b) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), hn::Max(a, b));
  }
};
struct MinNanOp {
  V operator()(V a, V b) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), hn::Min(a, b));
  }
};

// exp(t) for the softmax family's arguments (x - max <= 0). On AVX-512, vector_math's exp (the
// Exp kernel's and compiled code's): 11 operations with vscalefps, within 1 ulp of exp over
// [-104, 88.73] with subnormals kept, +inf above (Softmax over [8, 4, 128, 128] on one Emerald
// Rapids core: 0.396 -> 0.361 ms against the form below). Elsewhere 15 operations where Highway's
// Exp takes about 25: the XNNPACK-style reduction t = n ln2 + r (ln2 split in two), 2^n built in
// the exponent bits by a magic-bias add, and a degree-5 polynomial; within 2 ulp of exp for t in
// [-87.34, 88.37] (checked over every float there; 3 ulp without FMA), 0 below (where exp is
// subnormal), +inf above (exp's true overflow is at 88.72: these routines see t <= 0). NaN t gives
// an unspecified value: callers check the row's max first.
HWY_INLINE V SoftmaxExp(D d, V t) {
  if constexpr (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) return ExpAnyRange(d, t);
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, 0x1.8000FEp23f);  // 1.5 * 2^23 + 127: n + 127 lands in the low bits
  V n = hn::MulAdd(t, hn::Set(d, 0x1.715476p+0f), magic);
  const V s = hn::BitCast(d, hn::ShiftLeft<23>(hn::BitCast(di, n)));  // 2^n
  n = hn::Sub(n, magic);
  V r = hn::MulAdd(n, hn::Set(d, -0x1.62E400p-1f), t);
  r = hn::MulAdd(n, hn::Set(d, -0x1.7F7D1Cp-20f), r);
  V p = hn::MulAdd(hn::Set(d, 0x1.0F9F9Cp-7f), r, hn::Set(d, 0x1.573A1Ap-5f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.555A80p-3f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.FFFDC6p-2f));
  p = hn::MulAdd(p, r, hn::Set(d, 0x1.FFFFF6p-1f));
  const V y = hn::MulAdd(hn::Mul(r, s), p, s);
  const V zeroed = hn::IfThenZeroElse(hn::Lt(t, hn::Set(d, -0x1.5D589Ep6f)), y);
  return hn::IfThenElse(hn::Gt(t, hn::Set(d, 88.3762626647949f)),
                        hn::Set(d, std::numeric_limits<float>::infinity()), zeroed);
}

}  // namespace reduce_internal

namespace ri = reduce_internal;
namespace hn = hwy::HWY_NAMESPACE;

float ReduceSumImpl(const float* x, int64_t n) {
  return ri::Reduce(x, n, 0.0f, ri::AddOp(), ri::Identity(), false);
}
float ReduceSumSquaresImpl(const float* x, int64_t n) {
  return ri::Reduce(x, n, 0.0f, ri::AddOp(), ri::Square(), false);
}
float ReduceSumAbsImpl(const float* x, int64_t n) {
  return ri::Reduce(x, n, 0.0f, ri::AddOp(), ri::AbsValue(), false);
}
float ReduceMaxImpl(const float* x, int64_t n) {
  return ri::Reduce(x, n, -std::numeric_limits<float>::infinity(), ri::MaxOp(), ri::Identity(),
                    true);
}
float ReduceMinImpl(const float* x, int64_t n) {
  return ri::Reduce(x, n, std::numeric_limits<float>::infinity(), ri::MinOp(), ri::Identity(),
                    true);
}
float ReduceSumSquaredDiffImpl(const float* x, float mean, int64_t n) {
  const ri::D d;
  const ri::V m = hn::Set(d, mean);
  return ri::Reduce(
      x, n, 0.0f, ri::AddOp(),
      [m](ri::V v) {
        const ri::V t = hn::Sub(v, m);
        return hn::Mul(t, t);
      },
      false);
}

void AccumulateSumImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, ri::AddOp());
}
void AccumulateSumSquaresImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, [](ri::V a, ri::V v) { return hn::MulAdd(v, v, a); });
}
void AccumulateSumAbsImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, [](ri::V a, ri::V v) { return hn::Add(a, hn::Abs(v)); });
}
void AccumulateMaxImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, ri::MaxNanOp());
}
void AccumulateMinImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, ri::MinNanOp());
}
void AccumulateProdImpl(float* acc, const float* x, int64_t n) {
  ri::Accumulate(acc, x, n, [](ri::V a, ri::V v) { return hn::Mul(a, v); });
}

// exp(x * scale - shift): with scale 1, x * 1 - shift in one rounding is x - shift.
float ExpShiftSumImpl(const float* x, float scale, float shift, float* y, int64_t n) {
  const ri::D d;
  const size_t L = hn::Lanes(d);
  const ri::V a = hn::Set(d, scale);
  const ri::V s = hn::Set(d, -shift);
  ri::V sum0 = hn::Zero(d), sum1 = hn::Zero(d);
  size_t i = 0;
  const size_t count = static_cast<size_t>(n);
  for (; i + 2 * L <= count; i += 2 * L) {
    const ri::V e0 = ri::SoftmaxExp(d, hn::MulAdd(hn::LoadU(d, x + i), a, s));
    const ri::V e1 = ri::SoftmaxExp(d, hn::MulAdd(hn::LoadU(d, x + i + L), a, s));
    if (y != nullptr) {
      hn::StoreU(e0, d, y + i);
      hn::StoreU(e1, d, y + i + L);
    }
    sum0 = hn::Add(sum0, e0);
    sum1 = hn::Add(sum1, e1);
  }
  for (; i < count; i += L) {
    const auto mask = hn::FirstN(d, count - i < L ? count - i : L);
    const ri::V e = hn::IfThenElseZero(
        mask, ri::SoftmaxExp(d, hn::MulAdd(SafeMaskedLoad(mask, d, x + i), a, s)));
    if (y != nullptr) hn::BlendedStore(e, mask, d, y + i);
    sum0 = hn::Add(sum0, e);
  }
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(sum0, sum1)));
}

// y = f(x, s) element-wise over vectors, tails masked.
template <class F>
HWY_INLINE void Binary(const float* x, const float* s, float* y, int64_t n, F f) {
  const ri::D d;
  const size_t L = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  size_t i = 0;
  for (; i + L <= count; i += L)
    hn::StoreU(f(d, hn::LoadU(d, x + i), hn::LoadU(d, s + i)), d, y + i);
  if (i < count) {
    const auto mask = hn::FirstN(d, count - i);
    hn::BlendedStore(f(d, SafeMaskedLoad(mask, d, x + i), SafeMaskedLoad(mask, d, s + i)), mask, d,
                     y + i);
  }
}

void ExpSubImpl(const float* x, const float* shift, float* y, int64_t n) {
  Binary(x, shift, y, n,
         [](ri::D d, ri::V a, ri::V b) { return ri::SoftmaxExp(d, hn::Sub(a, b)); });
}
void MultiplyImpl(const float* x, const float* s, float* y, int64_t n) {
  Binary(x, s, y, n, [](ri::D, ri::V a, ri::V b) { return hn::Mul(a, b); });
}
void SubtractImpl(const float* x, const float* s, float* y, int64_t n) {
  Binary(x, s, y, n, [](ri::D, ri::V a, ri::V b) { return hn::Sub(a, b); });
}

void ScaleShiftImpl(const float* x, float a, float b, float* y, int64_t n) {
  const ri::D d;
  const size_t L = hn::Lanes(d);
  const ri::V va = hn::Set(d, a), vb = hn::Set(d, b);
  size_t i = 0;
  const size_t count = static_cast<size_t>(n);
  for (; i + L <= count; i += L) hn::StoreU(hn::MulAdd(hn::LoadU(d, x + i), va, vb), d, y + i);
  if (i < count) {
    const auto mask = hn::FirstN(d, count - i);
    hn::BlendedStore(hn::MulAdd(SafeMaskedLoad(mask, d, x + i), va, vb), mask, d, y + i);
  }
}

// Every row's maximum first (kept in inv_sums), then every row's exps: a row's exps wait for
// its maximum, a horizontal reduction, and rows taken one at a time leave that wait exposed,
// while the rows of each pass are independent and overlap in the core (32 x 128 rows of 128,
// one core: 0.20 -> 0.15 ms).
int64_t ExpScaledRowsImpl(float* x, int64_t rows, int64_t n, int64_t ld, float scale,
                          float* inv_sums) {
  for (int64_t i = 0; i < rows; ++i) {
    inv_sums[i] = scale >= 0 ? ReduceMaxImpl(x + i * ld, n) : ReduceMinImpl(x + i * ld, n);
  }
  int64_t skipped = 0;
  for (int64_t i = 0; i < rows; ++i) {
    float* row = x + i * ld;
    const float m = inv_sums[i];
    if (!std::isfinite(m) || !std::isfinite(scale)) {
      inv_sums[i] = 0.0f;
      ++skipped;
      continue;
    }
    inv_sums[i] = 1.0f / ExpShiftSumImpl(row, scale, scale * m, row, n);
  }
  return skipped;
}

void ScaleRowsImpl(float* x, int64_t rows, int64_t n, int64_t ld, const float* scales) {
  const ri::D d;
  const size_t L = hn::Lanes(d);
  const size_t count = static_cast<size_t>(n);
  for (int64_t r = 0; r < rows; ++r) {
    float* row = x + r * ld;
    const ri::V s = hn::Set(d, scales[r]);
    size_t i = 0;
    for (; i + L <= count; i += L) hn::StoreU(hn::Mul(hn::LoadU(d, row + i), s), d, row + i);
    if (i < count) {
      const auto mask = hn::FirstN(d, count - i);
      hn::BlendedStore(hn::Mul(SafeMaskedLoad(mask, d, row + i), s), mask, d, row + i);
    }
  }
}

void NormalizeImpl(const float* x, float mean, float inv_std, const float* scale, const float* bias,
                   float* y, int64_t n) {
  const ri::D d;
  const size_t L = hn::Lanes(d);
  const ri::V vm = hn::Set(d, mean), vi = hn::Set(d, inv_std);
  const size_t count = static_cast<size_t>(n);
  for (size_t i = 0; i < count; i += L) {
    const auto mask = hn::FirstN(d, count - i < L ? count - i : L);
    ri::V v = hn::Mul(hn::Sub(SafeMaskedLoad(mask, d, x + i), vm), vi);
    if (scale != nullptr) v = hn::Mul(v, SafeMaskedLoad(mask, d, scale + i));
    if (bias != nullptr) v = hn::Add(v, SafeMaskedLoad(mask, d, bias + i));
    hn::BlendedStore(v, mask, d, y + i);
  }
}

void LayerNormRowsImpl(const float* x, int64_t rows, int64_t n, float epsilon, const float* scale,
                       const float* bias, float* y, float* means, float* inv_stds) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    float mean = 0.0f, var = 0.0f;
    if (n > 0) {
      mean = ReduceSumImpl(xr, n) / static_cast<float>(n);
      var = ReduceSumSquaredDiffImpl(xr, mean, n) / static_cast<float>(n);
    }
    const float inv = 1.0f / std::sqrt(var + epsilon);
    means[r] = mean;
    inv_stds[r] = inv;
    NormalizeImpl(xr, mean, inv, scale, bias, y + r * n, n);
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ANVIL_KERNELS_SIMD_REDUCE_INL_H_
