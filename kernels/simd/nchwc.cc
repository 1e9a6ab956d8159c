// Runtime dispatch of simd/nchwc.h over the Highway targets compiled from nchwc-inl.h.
#include "kernels/simd/nchwc.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/nchwc.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/nchwc-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(NchwcBlockImpl);
HWY_EXPORT(ReorderToBlockedImpl);
HWY_EXPORT(ReorderFromBlockedImpl);
HWY_EXPORT(BlockedDepthwiseConvImpl);
HWY_EXPORT(BlockedPointwiseConvImpl);
HWY_EXPORT(BlockedConvFromPlanarImpl);
HWY_EXPORT(BlockedGlobalAveragePoolImpl);
HWY_EXPORT(BlockedPadChannelsImpl);
HWY_EXPORT(BlockedMaxPoolImpl);
HWY_EXPORT(BlockedScaleChannelsImpl);

int64_t NchwcBlock() {
  static const int64_t block = HWY_DYNAMIC_DISPATCH(NchwcBlockImpl)();
  return block;
}

void ReorderToBlocked(const float* x, int64_t channels, int64_t pixels, float* out) {
  HWY_DYNAMIC_DISPATCH(ReorderToBlockedImpl)(x, channels, pixels, out);
}

void ReorderFromBlocked(const float* x, int64_t channels, int64_t pixels, float* out) {
  HWY_DYNAMIC_DISPATCH(ReorderFromBlockedImpl)(x, channels, pixels, out);
}

void PackBlockedDepthwiseWeights(const float* w, const float* bias, int64_t channels, int64_t taps,
                                 float* packed_w, float* packed_bias) {
  const int64_t B = NchwcBlock();
  const int64_t blocks = (channels + B - 1) / B;
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t j = 0; j < B; ++j) {
      const int64_t c = b * B + j;
      for (int64_t t = 0; t < taps; ++t) {
        packed_w[(b * taps + t) * B + j] = c < channels ? w[c * taps + t] : 0.0f;
      }
      if (packed_bias != nullptr) {
        packed_bias[b * B + j] = c < channels && bias != nullptr ? bias[c] : 0.0f;
      }
    }
  }
}

bool BlockedDepthwiseSupports(int64_t kernel, int64_t stride) {
  return (kernel == 3 || kernel == 5) && (stride == 1 || stride == 2);
}

bool DepthwiseCopiesPadded(int64_t kernel, int64_t stride) { return kernel == 5 && stride == 1; }

int64_t BlockedDepthwiseScratchSize(int64_t kernel, int64_t stride, int64_t out_h, int64_t out_w) {
  if (!DepthwiseCopiesPadded(kernel, stride)) return 0;
  return ((out_h - 1) * stride + kernel) * ((out_w - 1) * stride + kernel) * NchwcBlock();
}

void BlockedDepthwiseConv(const float* x, int64_t blocks, int64_t h, int64_t w, int64_t kernel,
                          int64_t stride, int64_t pad_top, int64_t pad_left, const float* packed_w,
                          const float* packed_bias, const Epilogue& epilogue, float* y,
                          int64_t out_h, int64_t out_w, float* scratch) {
  HWY_DYNAMIC_DISPATCH(BlockedDepthwiseConvImpl)
  (x, blocks, h, w, kernel, stride, pad_top, pad_left, packed_w, packed_bias, epilogue, y, out_h,
   out_w, scratch);
}

int64_t BlockedPointwiseWeightsSize(int64_t out_channels, int64_t in_channels) {
  const int64_t B = NchwcBlock();
  return (out_channels + B - 1) / B * ((in_channels + B - 1) / B * B) * B;
}

void PackBlockedPointwiseWeights(const float* w, int64_t out_channels, int64_t in_channels,
                                 float* packed) {
  const int64_t B = NchwcBlock();
  const int64_t out_blocks = (out_channels + B - 1) / B;
  const int64_t in_padded = (in_channels + B - 1) / B * B;
  for (int64_t ob = 0; ob < out_blocks; ++ob) {
    for (int64_t c = 0; c < in_padded; ++c) {
      for (int64_t j = 0; j < B; ++j) {
        const int64_t m = ob * B + j;
        packed[(ob * in_padded + c) * B + j] =
            m < out_channels && c < in_channels ? w[m * in_channels + c] : 0.0f;
      }
    }
  }
}

void BlockedPointwiseConv(const float* x, int64_t in_channels, int64_t pixels,
                          const float* packed_w, const float* packed_bias, const float* sum,
                          const Epilogue& epilogue, float* y, int64_t out_blocks,
                          int64_t pixel_begin, int64_t pixel_end) {
  HWY_DYNAMIC_DISPATCH(BlockedPointwiseConvImpl)
  (x, in_channels, pixels, packed_w, packed_bias, sum, epilogue, y, out_blocks, pixel_begin,
   pixel_end < 0 ? pixels : pixel_end);
}

int64_t BlockedPlanarWeightsSize(int64_t out_channels, int64_t in_channels, int64_t taps) {
  const int64_t B = NchwcBlock();
  return (out_channels + B - 1) / B * in_channels * taps * B;
}

void PackBlockedPlanarWeights(const float* w, int64_t out_channels, int64_t in_channels,
                              int64_t taps, float* packed) {
  const int64_t B = NchwcBlock();
  const int64_t out_blocks = (out_channels + B - 1) / B;
  for (int64_t ob = 0; ob < out_blocks; ++ob) {
    for (int64_t c = 0; c < in_channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) {
        for (int64_t j = 0; j < B; ++j) {
          const int64_t m = ob * B + j;
          packed[((ob * in_channels + c) * taps + t) * B + j] =
              m < out_channels ? w[(m * in_channels + c) * taps + t] : 0.0f;
        }
      }
    }
  }
}

void BlockedConvFromPlanar(const float* x, int64_t channels, int64_t h, int64_t w, int64_t kernel_h,
                           int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_top,
                           int64_t pad_left, const float* packed_w, const float* packed_bias,
                           const Epilogue& epilogue, float* y, int64_t out_blocks, int64_t out_h,
                           int64_t out_w, int64_t row_begin, int64_t row_end) {
  HWY_DYNAMIC_DISPATCH(BlockedConvFromPlanarImpl)
  (x, channels, h, w, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, packed_w,
   packed_bias, epilogue, y, out_blocks, out_h, out_w, row_begin, row_end < 0 ? out_h : row_end);
}

void BlockedPadChannels(const float* x, int64_t channels, int64_t pixels, float* y,
                        int64_t out_blocks) {
  HWY_DYNAMIC_DISPATCH(BlockedPadChannelsImpl)(x, channels, pixels, y, out_blocks);
}

void BlockedMaxPool(const float* x, int64_t blocks, int64_t h, int64_t w, int64_t kernel_h,
                    int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_top,
                    int64_t pad_left, float* y, int64_t out_h, int64_t out_w) {
  HWY_DYNAMIC_DISPATCH(BlockedMaxPoolImpl)
  (x, blocks, h, w, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, y, out_h, out_w);
}

void BlockedGlobalAveragePool(const float* x, int64_t blocks, int64_t pixels, float* y) {
  HWY_DYNAMIC_DISPATCH(BlockedGlobalAveragePoolImpl)(x, blocks, pixels, y);
}

void BlockedScaleChannels(const float* x, const float* scale, int64_t blocks, int64_t pixels,
                          float* y) {
  HWY_DYNAMIC_DISPATCH(BlockedScaleChannelsImpl)(x, scale, blocks, pixels, y);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
