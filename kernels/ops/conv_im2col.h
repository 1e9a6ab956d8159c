// Convolution by im2col + GEMM, and the col2im ConvTranspose scatters with (private to
// //kernels; conv_internal.h lists the convolution files).
//
// Conv is im2col + GEMM per (image, group): Y_g[Mg, out] = W_g[Mg, Cg * k] x col[Cg * k, out],
// where column p of `col` holds the input window of output position p (zeros in the padding).
// Float 2-D convolutions never store `col`: the GEMM's packed B panels are filled from the
// images directly (simd/im2col.h) and the bias is added in the GEMM's epilogue. Other types and
// ranks store it in chunks of output positions so that `col` stays a few MB whatever the image
// size; a 1x1 convolution with unit strides and no padding multiplies X directly. Small outputs
// go several images to one GEMM. These are the reference bits the other paths reproduce.
#ifndef ANVIL_KERNELS_OPS_CONV_IM2COL_H_
#define ANVIL_KERNELS_OPS_CONV_IM2COL_H_

#include <cstdint>

#include "kernels/ops/compute_util.h"

namespace anvil::compute_ops {

// Columns of `col` per chunk for a matrix of `rows` rows and `total` columns: a few MB of
// `col`, but not so few columns that the GEMM runs below full speed; in [1, total].
int64_t ChunkColumns(int64_t rows, int64_t total);

// y[m, window position of input p] += col[(m * k + kidx), p - p0] for input positions [p0, p1)
// of `channels` output planes (the adjoint of im2col, with `g.in` the transpose's input and
// `g.out` its output). For T = float and double.
template <typename T>
void Col2Im(const WindowGeometry& g, const T* col, int64_t channels, int64_t p0, int64_t p1, T* y);

// ConvForward (conv_internal.h) by im2col + GEMM. `epilogue` (float only; null: none) is
// applied in the GEMM's registers when every product of the call takes the packed path that
// fills B from the images (simd::SgemmFilledB); returns whether it was (else the caller applies
// it). For T = float, double and int32_t.
template <typename T>
bool Im2ColGemmConv(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                    const T* x, const T* w, const T* bias, T* y,
                    const simd::Epilogue* epilogue = nullptr);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_CONV_IM2COL_H_
