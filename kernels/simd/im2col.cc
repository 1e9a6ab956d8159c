// simd/im2col.h: per-target code (Highway's foreach_target includes this file once per target)
// and its runtime dispatch.
#include "kernels/simd/im2col.h"

#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/im2col.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void FillIm2ColRowsImpl(const float* x, int64_t stride, const int64_t* taps, int64_t rows,
                        const Im2ColRun* runs, int64_t run_count, int64_t pw, float* dst) {
  const hn::ScalableTag<float> d;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  // Stores of part of a vector that never touch the other lanes (a run may end at the end of
  // the panel): AVX2 and AVX-512. Older targets store a run's tail element by element.
  constexpr bool kMaskedStore = HWY_TARGET <= HWY_AVX2;
  for (int64_t k = 0; k < rows; ++k) {
    float* row = dst + k * pw;
    const float* tap = x + taps[k];
    for (int64_t r = 0; r < run_count; ++r) {
      const Im2ColRun& run = runs[r];
      const float* src = tap + run.offset;
      float* out = row + run.j;
      if (stride == 1 || stride == 2) {
        auto load = [&](int64_t t) {
          if (stride == 1) return hn::LoadU(d, src + t);
          hn::Vec<decltype(d)> even, odd;
          hn::LoadInterleaved2(d, src + 2 * t, even, odd);
          return even;
        };
        int64_t t = 0;
        for (; t + L <= run.len; t += L) hn::StoreU(load(t), d, out + t);
        if (t < run.len) {
          if (kMaskedStore) {
            hn::BlendedStore(load(t), hn::FirstN(d, static_cast<size_t>(run.len - t)), d, out + t);
          } else {
            for (; t < run.len; ++t) out[t] = src[t * stride];
          }
        }
        continue;
      }
      for (int64_t t = 0; t < run.len; ++t) out[t] = src[t * stride];
    }
  }
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(FillIm2ColRowsImpl);

void FillIm2ColRows(const float* x, int64_t stride, const int64_t* taps, int64_t rows,
                    const Im2ColRun* runs, int64_t run_count, int64_t pw, float* dst) {
  HWY_DYNAMIC_DISPATCH(FillIm2ColRowsImpl)(x, stride, taps, rows, runs, run_count, pw, dst);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
