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
  const hn::Rebind<uint8_t, decltype(df)> du8;
  const hn::Rebind<int8_t, decltype(df)> di8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const auto vs = hn::Set(df, scale), vlo = hn::Set(df, flo), vhi = hn::Set(df, fhi);
  const auto vz = hn::Set(di, zero);
  for (; i + L <= n; i += L) {
    // Max(v, lo) takes lo for a NaN v (maxps returns its second operand then).
    const auto f = hn::Min(hn::Max(hn::Div(hn::LoadU(df, x + i), vs), vlo), vhi);
    const auto q = hn::Add(hn::NearestInt(f), vz);
    if (is_signed) {
      hn::StoreU(hn::DemoteTo(di8, q), di8, static_cast<int8_t*>(y) + i);
    } else {
      hn::StoreU(hn::DemoteTo(du8, q), du8, static_cast<uint8_t*>(y) + i);
    }
  }
#endif
  for (; i < n; ++i) {
    const float v = x[i] / scale;
    const float f = std::min(fhi, (v > flo) ? v : flo);  // NaN: flo, as the vectors do
    const int32_t q = static_cast<int32_t>(std::nearbyint(f)) + zero;
    if (is_signed) {
      static_cast<int8_t*>(y)[i] = static_cast<int8_t>(q);
    } else {
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(q);
    }
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

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(MinMaxImpl);
HWY_EXPORT(QuantizeLinearImpl);
HWY_EXPORT(DequantizeLinearImpl);

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

}  // namespace anvil::simd
#endif  // HWY_ONCE
