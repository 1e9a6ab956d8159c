// Winograd F(4x4, 3x3) transforms (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016) for 2-D float convolutions with 3x3 kernels, unit strides and dilations:
// each 4x4 output tile of output channel k is
//
//   Y = A^T [ sum over input channels c of (G w[k, c] G^T) . (B^T d[c] B) ] A
//
// over the 6x6 input tile d[c] (`.` elementwise), so the convolution becomes 36 independent
// matrix products over channels, M[xi] = U[xi] (K x C) x V[xi] (C x tiles), with 36 multiplies
// per 16 outputs where the im2col GEMM does 144. The transforms are exact in real arithmetic;
// in float the transforms' coefficients (up to 8 and 1/24) round, so results differ from
// im2col + GEMM by about 1e-6 of the sum of |terms| (a simulation of 32 channels of values in
// [-1, 1]: 2e-5 on outputs up to 14; the points 0, +-1, +-1/2 measured no better).
// The transforms run in SIMD, one vector of tiles at a time (dispatched at run time).
#ifndef ANVIL_KERNELS_SIMD_WINOGRAD_H_
#define ANVIL_KERNELS_SIMD_WINOGRAD_H_

#include <cstdint>

#include "kernels/simd/activation.h"

namespace anvil::simd {

inline constexpr int64_t kWinogradOutTile = 4;  // outputs per tile side
inline constexpr int64_t kWinogradInTile = 6;   // inputs per tile side (4 + 3 - 1)
inline constexpr int64_t kWinogradPoints = 36;  // products per tile (6 x 6)

// F(2x2, 3x3), for few tiles of a large weight (a batch-1 late layer): 16 products per 4
// outputs where F(4x4, 3x3) has 36 per 16, but a transformed weight of 16 K x C matrices, not
// 36, which matters once it is streamed from memory for each run:
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1], G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2;
//   0 0 1], A^T = [1 1 1 0; 0 1 -1 -1]
// (exact in binary floating point: its results differ from im2col's by rounding order only).
// Only the channel-major layout has it (the few-tiles case it is for).
inline constexpr int64_t kWinograd2OutTile = 2;
inline constexpr int64_t kWinograd2InTile = 4;
inline constexpr int64_t kWinograd2Points = 16;

// u[(xi * K + k) * C + c] = (G w[k, c] G^T)[xi] for w [K, C, 3, 3] (dense): the weights as the
// 36 row-major K x C matrices the products read. u holds 36 * K * C floats. Computed in double
// and rounded once.
void WinogradTransformWeights(const float* w, int64_t K, int64_t C, float* u);

// Where the tiles of a block sit. Tile j's 6x6 input window in channel c starts at
// image_offset[j] + c * plane + row0[j] * width + col0[j] of the input (planes of
// height x width, dense); window elements outside the plane (row0 and col0 may be negative:
// the convolution's padding) read as zeros. Its 4x4 output tile goes to out_offset[j] +
// k * out_plane of the output (rows out_width apart), of which only the first out_rows[j] rows
// and out_cols[j] columns exist (edge tiles overhang outputs whose size is not a multiple of 4).
struct WinogradTiles {
  int64_t count = 0;
  const int64_t* image_offset = nullptr;
  const int64_t* row0 = nullptr;
  const int64_t* col0 = nullptr;
  int64_t height = 0, width = 0;
  const int64_t* out_offset = nullptr;
  const int64_t* out_rows = nullptr;
  const int64_t* out_cols = nullptr;
  int64_t out_plane = 0, out_width = 0;
};

// v[xi * point_stride + c * ldv + j] = (B^T d B)[xi] for channel c of tile j, for the
// `channels` input channels and tiles.count tiles (ldv >= tiles.count; columns past count are
// not written; point_stride >= channels * ldv). A point_stride that is not a multiple of 4 KiB
// keeps the 36 rows a step reads or writes out of one L1 set.
void WinogradTransformInput(const float* in, int64_t channels, const WinogradTiles& tiles, float* v,
                            int64_t ldv, int64_t point_stride);

// Output channel k of tile j = epilogue(A^T m A + bias[k]) (bias may be null) with m[xi] =
// products[xi * point_stride + k * ldm + j], written where `tiles` says. A vector of tiles is
// read whole: products must be readable 15 floats past each point's last row
// (point_stride >= K * ldm + 15).
void WinogradTransformOutput(const float* products, int64_t ldm, int64_t point_stride, int64_t K,
                             const float* bias, const Epilogue& epilogue,
                             const WinogradTiles& tiles, float* out);

// WinogradTransformInput into the channel-major layout, for blocks of few tiles (fewer than a
// vector holds, or a count that would leave tile vectors part empty):
// v[xi * point_stride + j * ldv + c] (tiles x channels per point, ldv >= channels; columns past
// `channels` are not written), a vector of channels per step. The same values, bit for bit.
// Channel c's plane starts c * height * width floats after `in`.
void WinogradTransformInputByChannels(const float* in, int64_t channels, const WinogradTiles& tiles,
                                      float* v, int64_t ldv, int64_t point_stride);

// WinogradTransformOutput for products laid out channel-major (the blocks of
// WinogradTransformInputByChannels): m[xi] = products[xi * point_stride + j * ldm + k]
// (tiles x K, the product V^T U^T), a vector of channels per step. The same values, bit for
// bit. products must be readable 15 floats past each point's last row.
void WinogradTransformOutputByChannels(const float* products, int64_t ldm, int64_t point_stride,
                                       int64_t K, const float* bias, const Epilogue& epilogue,
                                       const WinogradTiles& tiles, float* out);

// The F(2x2, 3x3) forms of WinogradTransformWeights (16 K x C matrices),
// WinogradTransformInputByChannels (4x4 windows, 16 points) and
// WinogradTransformOutputByChannels (2x2 output tiles): the same contracts, with the tiles'
// windows 4 x 4 and their outputs 2 x 2.
void Winograd2TransformWeights(const float* w, int64_t K, int64_t C, float* u);
void Winograd2TransformInputByChannels(const float* in, int64_t channels,
                                       const WinogradTiles& tiles, float* v, int64_t ldv,
                                       int64_t point_stride);
void Winograd2TransformOutputByChannels(const float* products, int64_t ldm, int64_t point_stride,
                                        int64_t K, const float* bias, const Epilogue& epilogue,
                                        const WinogradTiles& tiles, float* out);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_WINOGRAD_H_
