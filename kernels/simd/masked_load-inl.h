// SafeMaskedLoad: Highway's MaskedLoad without its hazard below AVX2. Highway 1.0.3 implements
// MaskedLoad on SSE4 and older x86 targets (and for 8- and 16-bit lanes on AVX2) as a full
// *aligned* Load and a blend: it faults on a pointer that is not vector-aligned and reads past
// the end of the data (GemmTest.EveryTargetTakesUnalignedTails crashed on SSE4 in a C row's tail).
// Those targets, and non-x86 ones, copy the masked lanes through an aligned stack buffer; AVX2
// (32- and 64-bit lanes) and AVX-512 keep the hardware masked load, which neither faults nor
// touches lanes the mask leaves out. Lanes the mask leaves out are zero either way.
#if defined(ANVIL_KERNELS_SIMD_MASKED_LOAD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_MASKED_LOAD_INL_H_
#undef ANVIL_KERNELS_SIMD_MASKED_LOAD_INL_H_
#else
#define ANVIL_KERNELS_SIMD_MASKED_LOAD_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> SafeMaskedLoad(hwy::HWY_NAMESPACE::Mask<D> mask, D d,
                                                     const hwy::HWY_NAMESPACE::TFromD<D>* p) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if constexpr (HWY_TARGET <= HWY_AVX3 || sizeof(T) >= 4) return hn::MaskedLoad(mask, d, p);
#endif
  constexpr size_t kMaxLanes = hn::MaxLanes(D());
  HWY_ALIGN T lanes[kMaxLanes] = {};
  uint8_t bits[(kMaxLanes + 7) / 8 + 8] = {};
  hn::StoreMaskBits(d, mask, bits);
  const size_t count = hn::Lanes(d);
  for (size_t i = 0; i < count; ++i) {
    if ((bits[i / 8] >> (i % 8)) & 1) lanes[i] = p[i];
  }
  return hn::Load(d, lanes);
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ANVIL_KERNELS_SIMD_MASKED_LOAD_INL_H_
