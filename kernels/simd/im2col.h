// Rows of a 2-D convolution's im2col matrix written straight into the packed-B panels of the
// GEMM (simd::SgemmFilledB), with Highway, dispatched at run time. The matrix is never stored:
// ops/conv_im2col.cc pads the input planes (so every tap reads inside them), describes each row
// of the matrix (a channel and kernel tap: an offset) and each panel's columns (runs along one
// output row of one image), and this copies the runs with vectors - they are short (an output
// row), so element-by-element copies would cost more than the GEMM's FMAs.
#ifndef ANVIL_KERNELS_SIMD_IM2COL_H_
#define ANVIL_KERNELS_SIMD_IM2COL_H_

#include <cstdint>

namespace anvil::simd {

// Readable floats the caller provides past the last element a run reads: whole vectors (and,
// for stride 2, interleaved pairs of them) are loaded and the excess discarded.
inline constexpr int64_t kIm2ColReadSlack = 256;

// Columns [j, j + len) of a panel: len consecutive output positions of one output row, whose
// first reads x[tap + offset] and the next ones stride apart.
struct Im2ColRun {
  int64_t offset, len, j;
};

// dst[k * pw + run.j + t] = x[taps[k] + run.offset + t * stride] for each row k < rows, run and
// t < run.len. Other columns of dst are not written.
void FillIm2ColRows(const float* x, int64_t stride, const int64_t* taps, int64_t rows,
                    const Im2ColRun* runs, int64_t run_count, int64_t pw, float* dst);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_IM2COL_H_
