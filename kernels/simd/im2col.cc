// simd/im2col.h: per-target code (Highway's foreach_target includes this file once per target)
// and its runtime dispatch.
#include "kernels/simd/im2col.h"

#include <algorithm>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/im2col.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void FillIm2ColRowsImpl(const Im2ColPlane& plane, const float* x, const Im2ColTap* taps,
                        int64_t rows, const Im2ColRun* runs, int64_t run_count, int64_t pw,
                        float* dst) {
  const hn::ScalableTag<float> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  // Masked loads and stores that never touch masked-off lanes (so a vector may start before the
  // plane or end past the panel): AVX2 and AVX-512. Older targets copy element by element.
  constexpr bool kMaskedAccess = HWY_TARGET <= HWY_AVX2;
  for (int64_t k = 0; k < rows; ++k) {
    const Im2ColTap& tap = taps[k];
    float* row = dst + k * pw;
    for (int64_t r = 0; r < run_count; ++r) {
      const Im2ColRun& run = runs[r];
      float* out = row + run.j - run.ow;  // indexed by the output column
      const int64_t ih = run.ih_base + tap.ih_offset;
      const bool inside = ih >= 0 && ih < plane.height;
      const float* src = x + run.image_offset + tap.offset + ih * plane.width;
      // Output columns [a, b) read the input; the rest of the run is padding.
      const int64_t a = inside ? std::clamp(tap.lo, run.ow, run.end) : run.end;
      const int64_t b = inside ? std::clamp(tap.hi, a, run.end) : run.end;
      if (kMaskedAccess && plane.stride_w == 1 && a == run.ow && b == run.end) {
        // No padding in the run (the common case): plain copies and one masked tail.
        int64_t q = run.ow;
        for (; q + L <= run.end; q += L) hn::StoreU(hn::LoadU(d, src + q), d, out + q);
        if (q < run.end) {
          const auto tail = hn::FirstN(d, static_cast<size_t>(run.end - q));
          hn::BlendedStore(hn::MaskedLoad(tail, d, src + q), tail, d, out + q);
        }
        continue;
      }
      if (kMaskedAccess && plane.stride_w == 1) {
        for (int64_t q = run.ow; q < run.end; q += L) {
          const auto valid =
              hn::AndNot(hn::FirstN(d, static_cast<size_t>(std::clamp(a - q, int64_t{0}, L))),
                         hn::FirstN(d, static_cast<size_t>(std::clamp(b - q, int64_t{0}, L))));
          const auto v = hn::MaskedLoad(valid, d, src + q);
          if (q + L <= run.end) {
            hn::StoreU(v, d, out + q);
          } else {
            hn::BlendedStore(v, hn::FirstN(d, static_cast<size_t>(run.end - q)), d, out + q);
          }
        }
        continue;
      }
      std::fill(out + run.ow, out + a, 0.0f);
      for (int64_t ow = a; ow < b; ++ow) out[ow] = src[ow * plane.stride_w];
      std::fill(out + b, out + run.end, 0.0f);
    }
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(FillIm2ColRowsImpl);

void FillIm2ColRows(const Im2ColPlane& plane, const float* x, const Im2ColTap* taps, int64_t rows,
                    const Im2ColRun* runs, int64_t run_count, int64_t pw, float* dst) {
  HWY_DYNAMIC_DISPATCH(FillIm2ColRowsImpl)(plane, x, taps, rows, runs, run_count, pw, dst);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
