// Rows of a 2-D convolution's im2col matrix written straight into the packed-B panels of the
// GEMM (simd::SgemmFilledB), with Highway, dispatched at run time. The matrix is never stored:
// ops/compute_conv.cc describes each of its rows (a channel and kernel tap) and each panel's
// columns (runs along one output row of one image), and this fills the panel with masked
// vector copies - the runs are short (an output row), so scalar copies would cost more than the
// GEMM's FMAs.
#ifndef ANVIL_KERNELS_SIMD_IM2COL_H_
#define ANVIL_KERNELS_SIMD_IM2COL_H_

#include <cstdint>

namespace anvil::simd {

// One row of the matrix: channel c, kernel tap (kh, kw).
struct Im2ColTap {
  int64_t offset;     // of input column 0 of the tap's input row, from an image's channel 0
  int64_t ih_offset;  // input row = an output row's first input row + ih_offset
  int64_t lo, hi;     // output columns whose tap lies inside the input row
};

// Columns [j, j + end - ow) of a panel: output columns [ow, end) of one output row of an image.
struct Im2ColRun {
  int64_t image_offset;  // of the image's channel 0 in the input
  int64_t ih_base;       // output row * stride_h
  int64_t ow, end, j;
};

// Input plane size and column stride.
struct Im2ColPlane {
  int64_t height, width, stride_w;
};

// For each row k < rows: dst[k * pw + run.j + (ow - run.ow)] = x[run.image_offset +
// taps[k].offset + ih * width + ow * stride_w] (ih = run.ih_base + taps[k].ih_offset), or 0
// where that lies outside the plane, for every run and ow in [run.ow, run.end). Other columns
// of dst are not written.
void FillIm2ColRows(const Im2ColPlane& plane, const float* x, const Im2ColTap* taps, int64_t rows,
                    const Im2ColRun* runs, int64_t run_count, int64_t pw, float* dst);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_IM2COL_H_
