// Runtime dispatch of simd/depthwise.h over the Highway targets compiled from depthwise-inl.h.
#include "kernels/simd/depthwise.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/depthwise.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/depthwise-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(DepthwisePlaneImpl);
HWY_EXPORT(DirectConvPlanesImpl);

void DepthwisePlane(const DepthwiseTaps& taps, const float* plane, const float* w,
                    const float* bias, const Epilogue& epilogue, float* y) {
  HWY_DYNAMIC_DISPATCH(DepthwisePlaneImpl)(taps, plane, w, bias, epilogue, y);
}

void DirectConvPlanes(const DepthwiseTaps& taps, const float* planes, int64_t plane_stride,
                      int64_t channels, const float* w, int64_t out_channels, const float* bias,
                      const Epilogue& epilogue, float* y, int64_t out_plane) {
  HWY_DYNAMIC_DISPATCH(DirectConvPlanesImpl)
  (taps, planes, plane_stride, channels, w, out_channels, bias, epilogue, y, out_plane);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
