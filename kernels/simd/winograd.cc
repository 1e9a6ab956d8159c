// Runtime dispatch of simd/winograd.h over the Highway targets compiled from winograd-inl.h, and
// the weight transform (once per constant weight, so plain scalar code).
#include "kernels/simd/winograd.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/winograd.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/winograd-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(WinogradInputImpl);
HWY_EXPORT(WinogradOutputImpl);
HWY_EXPORT(WinogradOutputByChannelsImpl);
HWY_EXPORT(WinogradInputByChannelsImpl);
HWY_EXPORT(Winograd2InputByChannelsImpl);
HWY_EXPORT(Winograd2OutputByChannelsImpl);

namespace {

// u[((a * n + b) * K + k) * C + c] = (G g G^T)[a][b] for the n x 3 matrix G (row-major), each
// of the K x C 3x3 kernels g, computed in double and rounded once.
void TransformWeightsWith(const double* G, int n, const float* w, int64_t K, int64_t C, float* u) {
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t c = 0; c < C; ++c) {
      const float* g = w + (k * C + c) * 9;
      double gt[6][3];  // G g
      for (int a = 0; a < n; ++a) {
        for (int s = 0; s < 3; ++s) {
          gt[a][s] = G[a * 3] * g[s] + G[a * 3 + 1] * g[3 + s] + G[a * 3 + 2] * g[6 + s];
        }
      }
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          const double value =
              gt[a][0] * G[b * 3] + gt[a][1] * G[b * 3 + 1] + gt[a][2] * G[b * 3 + 2];
          u[((a * n + b) * K + k) * C + c] = static_cast<float>(value);
        }
      }
    }
  }
}

}  // namespace

void WinogradTransformWeights(const float* w, int64_t K, int64_t C, float* u) {
  static constexpr double kG[6 * 3] = {
      1.0 / 4,  0,        0,       -1.0 / 6, -1.0 / 6,  -1.0 / 6, -1.0 / 6, 1.0 / 6, -1.0 / 6,
      1.0 / 24, 1.0 / 12, 1.0 / 6, 1.0 / 24, -1.0 / 12, 1.0 / 6,  0,        0,       1,
  };
  TransformWeightsWith(kG, 6, w, K, C, u);
}

void Winograd2TransformWeights(const float* w, int64_t K, int64_t C, float* u) {
  static constexpr double kG[4 * 3] = {1, 0, 0, 0.5, 0.5, 0.5, 0.5, -0.5, 0.5, 0, 0, 1};
  TransformWeightsWith(kG, 4, w, K, C, u);
}

void WinogradTransformInput(const float* in, int64_t channels, const WinogradTiles& tiles, float* v,
                            int64_t ldv, int64_t point_stride) {
  HWY_DYNAMIC_DISPATCH(WinogradInputImpl)(in, channels, tiles, v, ldv, point_stride);
}

void WinogradTransformOutput(const float* products, int64_t ldm, int64_t point_stride, int64_t K,
                             const float* bias, const Epilogue& epilogue,
                             const WinogradTiles& tiles, float* out) {
  HWY_DYNAMIC_DISPATCH(WinogradOutputImpl)
  (products, ldm, point_stride, K, bias, epilogue, tiles, out);
}

void WinogradTransformInputByChannels(const float* in, int64_t channels, const WinogradTiles& tiles,
                                      float* v, int64_t ldv, int64_t point_stride) {
  HWY_DYNAMIC_DISPATCH(WinogradInputByChannelsImpl)(in, channels, tiles, v, ldv, point_stride);
}

void WinogradTransformOutputByChannels(const float* products, int64_t ldm, int64_t point_stride,
                                       int64_t K, const float* bias, const Epilogue& epilogue,
                                       const WinogradTiles& tiles, float* out) {
  HWY_DYNAMIC_DISPATCH(WinogradOutputByChannelsImpl)
  (products, ldm, point_stride, K, bias, epilogue, tiles, out);
}

void Winograd2TransformInputByChannels(const float* in, int64_t channels,
                                       const WinogradTiles& tiles, float* v, int64_t ldv,
                                       int64_t point_stride) {
  HWY_DYNAMIC_DISPATCH(Winograd2InputByChannelsImpl)(in, channels, tiles, v, ldv, point_stride);
}

void Winograd2TransformOutputByChannels(const float* products, int64_t ldm, int64_t point_stride,
                                        int64_t K, const float* bias, const Epilogue& epilogue,
                                        const WinogradTiles& tiles, float* out) {
  HWY_DYNAMIC_DISPATCH(Winograd2OutputByChannelsImpl)
  (products, ldm, point_stride, K, bias, epilogue, tiles, out);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
