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
HWY_EXPORT(DepthwisePaddedPlaneImpl);
HWY_EXPORT(DirectConvPaddedPlanesImpl);

bool DepthwisePaddedSupports(int64_t kernel, int64_t stride) {
  return (kernel == 3 || kernel == 5) && (stride == 1 || stride == 2);
}

void DepthwisePaddedPlane(const float* padded, int64_t ld, int64_t kernel, int64_t stride,
                          const float* w, const float* bias, const Epilogue& epilogue, float* y,
                          int64_t out_h, int64_t out_w) {
  HWY_DYNAMIC_DISPATCH(DepthwisePaddedPlaneImpl)
  (padded, ld, kernel, stride, w, bias, epilogue, y, out_h, out_w);
}

void DirectConvPaddedPlanes(const float* padded, int64_t plane_stride, int64_t ld, int64_t channels,
                            int64_t kernel, int64_t stride, const float* w, int64_t out_channels,
                            const float* bias, const Epilogue& epilogue, float* y,
                            int64_t out_plane, int64_t out_h, int64_t out_w) {
  HWY_DYNAMIC_DISPATCH(DirectConvPaddedPlanesImpl)
  (padded, plane_stride, ld, channels, kernel, stride, w, out_channels, bias, epilogue, y,
   out_plane, out_h, out_w);
}

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
