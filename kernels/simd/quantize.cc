// Runtime dispatch of simd/quantize.h: each loop compiled for every Highway target, with a
// scalar tail that computes what a vector lane does.
#include "kernels/simd/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/quantize.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Stores int32 values already within the 8-bit type's range as uint8, or int8 when is_signed.
HWY_INLINE void StoreEightBit(int32_t q, bool is_signed, void* y, int64_t i) {
  if (is_signed) {
    static_cast<int8_t*>(y)[i] = static_cast<int8_t>(q);
  } else {
    static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(q);
  }
}

#if HWY_TARGET != HWY_SCALAR
// The vector form of StoreEightBit: a vector of int32 lanes (of tag D32) at y[i, i + lanes).
template <class D32, class V>
HWY_INLINE void StoreEightBit(D32 /*d32*/, V q, bool is_signed, void* y, int64_t i) {
  if (is_signed) {
    const hn::Rebind<int8_t, D32> d8;
    hn::StoreU(hn::DemoteTo(d8, q), d8, static_cast<int8_t*>(y) + i);
  } else {
    const hn::Rebind<uint8_t, D32> d8;
    hn::StoreU(hn::DemoteTo(d8, q), d8, static_cast<uint8_t*>(y) + i);
  }
}
#endif

void MinMaxImpl(const float* x, int64_t n, float* lo, float* hi) {
  float l = *lo, h = *hi;
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  if (n >= 2 * L) {
    auto vl0 = hn::Set(d, l), vh0 = hn::Set(d, h), vl1 = vl0, vh1 = vh0;
    for (; i + 2 * L <= n; i += 2 * L) {
      const auto a = hn::LoadU(d, x + i), b = hn::LoadU(d, x + i + L);
      vl0 = hn::Min(vl0, a);
      vh0 = hn::Max(vh0, a);
      vl1 = hn::Min(vl1, b);
      vh1 = hn::Max(vh1, b);
    }
    l = hn::GetLane(hn::MinOfLanes(d, hn::Min(vl0, vl1)));
    h = hn::GetLane(hn::MaxOfLanes(d, hn::Max(vh0, vh1)));
  }
#endif
  for (; i < n; ++i) {
    l = std::min(l, x[i]);
    h = std::max(h, x[i]);
  }
  *lo = l;
  *hi = h;
}

void QuantizeLinearImpl(const float* x, int64_t n, float scale, int32_t zero, bool is_signed,
                        void* y) {
  const int32_t qlo = is_signed ? -128 : 0, qhi = is_signed ? 127 : 255;
  // Clamped in float to the integer range less the zero point, then rounded: the bounds are
  // integers, so this is saturate(round(q) + zero), and no conversion overflows.
  const float flo = static_cast<float>(qlo - zero), fhi = static_cast<float>(qhi - zero);
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, scale), vlo = hn::Set(df, flo), vhi = hn::Set(df, fhi);
  const auto vz = hn::Set(di, zero);
  for (; i + L <= n; i += L) {
    // Max(v, lo) takes lo for a NaN v (maxps returns its second operand then).
    const auto f = hn::Min(hn::Max(hn::Div(hn::LoadU(df, x + i), vs), vlo), vhi);
    StoreEightBit(di, hn::Add(hn::NearestInt(f), vz), is_signed, y, i);
  }
#endif
  for (; i < n; ++i) {
    const float v = x[i] / scale;
    const float f = std::min(fhi, (v > flo) ? v : flo);  // NaN: flo, as the vectors do
    StoreEightBit(static_cast<int32_t>(std::nearbyint(f)) + zero, is_signed, y, i);
  }
}

void DequantizeLinearImpl(const void* x, bool is_signed, int64_t n, float scale, int32_t zero,
                          float* y) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> du8;
  const hn::Rebind<int8_t, decltype(df)> di8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, scale);
  const auto vz = hn::Set(di, zero);
  for (; i + L <= n; i += L) {
    const auto v = is_signed
                       ? hn::PromoteTo(di, hn::LoadU(di8, static_cast<const int8_t*>(x) + i))
                       : hn::PromoteTo(di, hn::LoadU(du8, static_cast<const uint8_t*>(x) + i));
    hn::StoreU(hn::Mul(hn::ConvertTo(df, hn::Sub(v, vz)), vs), df, y + i);
  }
#endif
  for (; i < n; ++i) {
    const int32_t v =
        is_signed ? static_cast<const int8_t*>(x)[i] : static_cast<const uint8_t*>(x)[i];
    y[i] = static_cast<float>(v - zero) * scale;
  }
}

// An 8-bit value as int32: uint8, or int8 when is_signed.
HWY_INLINE int32_t EightBit(const void* x, bool is_signed, int64_t i) {
  return is_signed ? static_cast<const int8_t*>(x)[i] : static_cast<const uint8_t*>(x)[i];
}

// fma(a, b, c) as hn::MulAdd computes it on this target: fused where the target has FMA, a
// rounded product and sum where it has not (SSE4), so that the scalar tails match the vectors.
HWY_INLINE float TargetMulAdd(float a, float b, float c) {
#if HWY_NATIVE_FMA
  return std::fma(a, b, c);
#else
  return a * b + c;  // -ffp-contract=off: two roundings
#endif
}

// round_half_even(r) saturated to the 8-bit range, r clamped to +-2^16 first (beyond which
// everything saturates) so that the conversion cannot overflow.
HWY_INLINE int32_t SaturateRounded(float r, int32_t lo, int32_t hi) {
  r = std::min(std::max(r, -65536.0f), 65536.0f);
  return std::clamp(static_cast<int32_t>(std::nearbyint(r)), lo, hi);
}

#if HWY_TARGET != HWY_SCALAR
// The vector of int32 lanes (of tag D32) holding the 8-bit values at x[i, i + lanes).
template <class D32>
HWY_INLINE hn::Vec<D32> LoadEightBit(D32 di, const void* x, bool is_signed, int64_t i) {
  if (is_signed) {
    const hn::Rebind<int8_t, D32> d8;
    return hn::PromoteTo(di, hn::LoadU(d8, static_cast<const int8_t*>(x) + i));
  }
  const hn::Rebind<uint8_t, D32> d8;
  return hn::PromoteTo(di, hn::LoadU(d8, static_cast<const uint8_t*>(x) + i));
}

// The vector form of SaturateRounded.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<int32_t, DF>> SaturateRounded(DF df, hn::Vec<DF> r, int32_t lo,
                                                            int32_t hi) {
  const hn::Rebind<int32_t, DF> di;
  r = hn::Min(hn::Max(r, hn::Set(df, -65536.0f)), hn::Set(df, 65536.0f));
  return hn::Min(hn::Max(hn::NearestInt(r), hn::Set(di, lo)), hn::Set(di, hi));
}
#endif

void QLinearAddImpl(const void* v, const void* o, bool o_one, int64_t n, float rv, float ro,
                    float fixed, bool is_signed, void* y) {
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  // With one `o`, its part is added into the fixed part once (as ONNX Runtime does).
  const float base =
      o_one ? TargetMulAdd(static_cast<float>(EightBit(o, is_signed, 0)), ro, fixed) : fixed;
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vrv = hn::Set(df, rv), vro = hn::Set(df, ro), vbase = hn::Set(df, base);
  for (; i + L <= n; i += L) {
    auto part = vbase;
    if (!o_one) part = hn::MulAdd(hn::ConvertTo(df, LoadEightBit(di, o, is_signed, i)), vro, vbase);
    const auto r = hn::MulAdd(hn::ConvertTo(df, LoadEightBit(di, v, is_signed, i)), vrv, part);
    StoreEightBit(di, SaturateRounded(df, r, lo, hi), is_signed, y, i);
  }
#endif
  for (; i < n; ++i) {
    const float part =
        o_one ? base : TargetMulAdd(static_cast<float>(EightBit(o, is_signed, i)), ro, base);
    const float r = TargetMulAdd(static_cast<float>(EightBit(v, is_signed, i)), rv, part);
    StoreEightBit(SaturateRounded(r, lo, hi), is_signed, y, i);
  }
}

void QLinearMulImpl(const void* a, bool a_one, int32_t a_zero, const void* b, bool b_one,
                    int32_t b_zero, int64_t n, float ratio, int32_t y_zero, bool is_signed,
                    void* y) {
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  const float fzero = static_cast<float>(y_zero);
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vratio = hn::Set(df, ratio), vzero = hn::Set(df, fzero);
  const auto va_zero = hn::Set(di, a_zero), vb_zero = hn::Set(di, b_zero);
  const auto va_one = hn::Set(di, EightBit(a, is_signed, 0) - a_zero);
  const auto vb_one = hn::Set(di, EightBit(b, is_signed, 0) - b_zero);
  for (; i + L <= n; i += L) {
    const auto da = a_one ? va_one : hn::Sub(LoadEightBit(di, a, is_signed, i), va_zero);
    const auto db = b_one ? vb_one : hn::Sub(LoadEightBit(di, b, is_signed, i), vb_zero);
    // A product of two 8-bit differences is at most 2^16: exact in int32 and in float.
    const auto r = hn::Add(hn::Mul(hn::ConvertTo(df, hn::Mul(da, db)), vratio), vzero);
    StoreEightBit(di, SaturateRounded(df, r, lo, hi), is_signed, y, i);
  }
#endif
  for (; i < n; ++i) {
    const int32_t da = EightBit(a, is_signed, a_one ? 0 : i) - a_zero;
    const int32_t db = EightBit(b, is_signed, b_one ? 0 : i) - b_zero;
    const float r = static_cast<float>(da * db) * ratio + fzero;
    StoreEightBit(SaturateRounded(r, lo, hi), is_signed, y, i);
  }
}

void RequantizeImpl(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                    const int32_t* zero, bool per_column, bool is_signed, void* y) {
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  // Products beyond +-2^16 saturate whatever the zero point; clamping first keeps the int32
  // conversion and the zero point's addition in range.
  constexpr float kLimit = 65536.0f;
  int64_t j = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<int32_t> di;
  const hn::Rebind<float, decltype(di)> df;
  const size_t L = hn::Lanes(di);
  const auto vlo = hn::Set(di, lo), vhi = hn::Set(di, hi);
  const auto flimit = hn::Set(df, kLimit), fneg = hn::Set(df, -kLimit);
  const auto vbias = hn::Set(di, bias);
  for (; j + static_cast<int64_t>(L) <= n; j += static_cast<int64_t>(L)) {
    const auto m = per_column ? hn::LoadU(df, multiplier + j) : hn::Set(df, multiplier[0]);
    auto f = hn::Mul(hn::ConvertTo(df, hn::Add(hn::LoadU(di, acc + j), vbias)), m);
    f = hn::Min(hn::Max(f, fneg), flimit);
    auto q =
        hn::Add(hn::NearestInt(f), per_column ? hn::LoadU(di, zero + j) : hn::Set(di, zero[0]));
    StoreEightBit(di, hn::Min(hn::Max(q, vlo), vhi), is_signed, y, j);
  }
#endif
  for (; j < n; ++j) {
    const int32_t sum =
        static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + static_cast<uint32_t>(bias));
    float f = static_cast<float>(sum) * multiplier[per_column ? j : 0];
    f = std::min(std::max(f, -kLimit), kLimit);
    StoreEightBit(
        std::clamp(static_cast<int32_t>(std::nearbyint(f)) + zero[per_column ? j : 0], lo, hi),
        is_signed, y, j);
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(MinMaxImpl);
HWY_EXPORT(QuantizeLinearImpl);
HWY_EXPORT(DequantizeLinearImpl);
HWY_EXPORT(RequantizeImpl);
HWY_EXPORT(QLinearAddImpl);
HWY_EXPORT(QLinearMulImpl);

void QLinearAdd(const void* v, const void* o, bool o_one, int64_t n, float rv, float ro,
                float fixed, bool is_signed, void* y) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(QLinearAddImpl)(v, o, o_one, n, rv, ro, fixed, is_signed, y);
}

void QLinearMul(const void* a, bool a_one, int32_t a_zero, const void* b, bool b_one,
                int32_t b_zero, int64_t n, float ratio, int32_t y_zero, bool is_signed, void* y) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(QLinearMulImpl)
  (a, a_one, a_zero, b, b_one, b_zero, n, ratio, y_zero, is_signed, y);
}

void MinMax(const float* x, int64_t n, float* lo, float* hi) {
  HWY_DYNAMIC_DISPATCH(MinMaxImpl)(x, n, lo, hi);
}

void QuantizeLinear(const float* x, int64_t n, float scale, int32_t zero, bool is_signed, void* y) {
  HWY_DYNAMIC_DISPATCH(QuantizeLinearImpl)(x, n, scale, zero, is_signed, y);
}

void DequantizeLinear(const void* x, bool is_signed, int64_t n, float scale, int32_t zero,
                      float* y) {
  HWY_DYNAMIC_DISPATCH(DequantizeLinearImpl)(x, is_signed, n, scale, zero, y);
}

void Requantize(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                const int32_t* zero, bool per_column, bool is_signed, void* y) {
  if (n <= 0) return;
  HWY_DYNAMIC_DISPATCH(RequantizeImpl)(acc, n, bias, multiplier, zero, per_column, is_signed, y);
}

DynamicQuantization DynamicQuantizationOf(const float* x, int64_t n) {
  float lo = 0.0f, hi = 0.0f;
  MinMax(x, n, &lo, &hi);
  DynamicQuantization q;
  q.scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  q.zero = static_cast<int32_t>(std::nearbyint(std::clamp(0.0f - lo / q.scale, 0.0f, 255.0f)));
  return q;
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
