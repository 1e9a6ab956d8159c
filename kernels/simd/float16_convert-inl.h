// Per-target body of simd/float16_convert.h (included once per target by float16_convert.cc).
#if defined(ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_INL_H_
#undef ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_INL_H_
#else
#define ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "base/float16.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// F16C (every x86 target from AVX2 up) converts in hardware; older targets emulate it in
// Highway with rounding that differs, so they take the scalar conversion.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define ANVIL_F16C_VECTORS 1
#else
#define ANVIL_F16C_VECTORS 0
#endif

HWY_NOINLINE void HalfToFloatImpl(const uint16_t* h, float* out, size_t n) {
  size_t i = 0;
#if ANVIL_F16C_VECTORS
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const hn::Rebind<uint16_t, decltype(df)> dh_bits;
  const size_t L = hn::Lanes(df);
  for (; i + L <= n; i += L) {
    const auto v = hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(h + i)));
    const auto nan = hn::IsNaN(v);
    if (HWY_UNLIKELY(!hn::AllFalse(df, nan))) {
      // A NaN keeps its payload as base/float16.h widens it (the hardware sets the quiet bit).
      const auto bits = hn::PromoteTo(du, hn::LoadU(dh_bits, h + i));
      const auto wide = hn::Or(
          hn::Or(hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u))), hn::Set(du, 0x7f800000u)),
          hn::ShiftLeft<13>(hn::And(bits, hn::Set(du, 0x3ffu))));
      hn::StoreU(hn::IfThenElse(nan, hn::BitCast(df, wide), v), df, out + i);
    } else {
      hn::StoreU(v, df, out + i);
    }
  }
#endif
  for (; i < n; ++i) out[i] = fp16::HalfToFloat(h[i]);
}

HWY_NOINLINE void FloatToHalfImpl(const float* x, uint16_t* out, size_t n) {
  size_t i = 0;
#if ANVIL_F16C_VECTORS
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t L = hn::Lanes(df);
  for (; i + L <= n; i += L) {
    const auto v = hn::LoadU(df, x + i);
    // NaN lanes go the scalar way (the quiet NaN without payload); the rest round in hardware.
    if (HWY_UNLIKELY(!hn::AllFalse(df, hn::IsNaN(v)))) {
      for (size_t j = i; j < i + L; ++j) out[j] = fp16::FloatToHalf(x[j]);
      continue;
    }
    hn::StoreU(hn::DemoteTo(dh, v), dh, reinterpret_cast<hwy::float16_t*>(out + i));
  }
#endif
  for (; i < n; ++i) out[i] = fp16::FloatToHalf(x[i]);
}

#undef ANVIL_F16C_VECTORS

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
