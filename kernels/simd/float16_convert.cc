// Dynamic dispatch of simd/float16_convert.h over the Highway targets compiled from
// float16_convert-inl.h.
#include "kernels/simd/float16_convert.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/float16_convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/float16_convert-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(HalfToFloatImpl);
HWY_EXPORT(FloatToHalfImpl);

void HalfToFloat(const uint16_t* h, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(HalfToFloatImpl)(h, out, n);
}

void FloatToHalf(const float* x, uint16_t* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(FloatToHalfImpl)(x, out, n);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
