// Integer matrix products of 8-bit operands with Highway, dispatched at runtime to the best SIMD
// target of the CPU: the int8 path of MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv.
//
//   C[i, j] (int32) = sum over k of (A[i, k] - a_zero[i]) * (B[k, j] - b_zero[j])
//
// Both operands are stored less their zero points as int16 (|v| <= 255 for any 8-bit value less
// any 8-bit zero point) in pairs along k, and the micro-kernel multiplies int16 pairs and adds
// them into int32 lanes (ReorderWidenMulAccumulate: vpmaddwd on x86). A pair's sum is at most
// 2 x 255^2, so nothing saturates (unlike vpmaddubsw's u8 x s8 pairs, which saturate at 2^15:
// ONNX Runtime's AVX2 path); the k sums wrap around as int32 accumulation does. The results are
// exact and the same on every target and for any thread count.
//
// Layouts (K2 = ceil(K / 2), an odd K padded with a zero k):
//   rows    (QRows):   row i's pairs at pairs[i * K2 + p]: int32 holding (A[i, 2p], A[i, 2p+1])
//                      as int16, the lower k in the low half.
//   columns (panels):  columns in panels of QPanelWidth() (W) columns; panel q's pair p of
//                      column q * W + j is panels[q * K2 * W * 2 + (p * W + j) * 2 + {0, 1}],
//                      columns past N zero. W depends on the SIMD target running (so a packed
//                      QColumns is only meaningful in the process that made it).
#ifndef ANVIL_KERNELS_SIMD_QGEMM_H_
#define ANVIL_KERNELS_SIMD_QGEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

namespace anvil::simd {

// Columns per packed panel on this CPU's SIMD target.
int64_t QPanelWidth();

// Row operand A [m, k] less its zero points.
struct QRows {
  int64_t m = 0, k = 0;
  std::vector<int32_t> pairs;  // m x k2()
  int64_t k2() const { return (k + 1) / 2; }
};

// Column operand B [k, n] less its zero points, in panels.
struct QColumns {
  int64_t k = 0, n = 0, width = 0;  // width: QPanelWidth() when packed
  std::vector<int16_t> panels;
  int64_t k2() const { return (k + 1) / 2; }
};

// A [m, k] (element (i, t) at a[i * lda + t]) less a_zero: one value, or one per row when
// zero_per_row (null: zero). `is_signed`: the bytes are int8, else uint8.
QRows PackQRows(const void* a, bool is_signed, int64_t lda, int64_t m, int64_t k,
                const int32_t* a_zero, bool zero_per_row);

// B [k, n] (element (t, j) at b[t * ldb + j]) less b_zero: one value, or one per column when
// zero_per_column (null: zero).
QColumns PackQColumns(const void* b, bool is_signed, int64_t ldb, int64_t k, int64_t n,
                      const int32_t* b_zero, bool zero_per_column);

// Packs k rows of n int16 values (row t at rows[t * ld], already less their zero points) into
// the ceil(n / QPanelWidth()) column panels at `panels` (the layout above; an odd k's last pair
// and the last panel's columns past n are zero).
void PackPanels(const int16_t* rows, int64_t ld, int64_t k, int64_t n, int16_t* panels);

// PackPanels of k rows of n 8-bit values (row t at bytes[t * ld], int8 when is_signed) less
// `zero`: a pointwise convolution's input planes packed without an int16 copy first.
void PackPanelsFromBytes(const void* bytes, bool is_signed, int64_t ld, int32_t zero, int64_t k,
                         int64_t n, int16_t* panels);

// C[i, j0 + j] for all rows of `a` and the n columns of `panels` (ceil(n / QPanelWidth()) panels
// of a.k2() pairs, columns counted from the first panel's), into c[i * ldc + j]. Serial: callers
// split columns (or rows, with a QRows per block) across threads.
void QGemmPanels(const QRows& a, int64_t row_begin, int64_t row_end, const int16_t* panels,
                 int64_t n, int32_t* c, int64_t ldc);

// C = A x B for a packed B, split across the threads of the caller's parallel scope
// (base/parallel.h) by rows or by panels. c has a.m rows of ldc.
void QGemm(const QRows& a, const QColumns& b, int32_t* c, int64_t ldc);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_QGEMM_H_
