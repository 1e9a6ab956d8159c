// Dense matrix products (BLAS-style GEMM, row-major) with Highway, dispatched at runtime to the
// best SIMD target of the CPU:
//
//   C[M, N] = alpha * op(A)[M, K] * op(B)[K, N] + beta * C
//
// op(A) = A (stored M x K, element (i, k) at A[i * lda + k]) or, with trans_a, A^T (A stored
// K x M, element (i, k) at A[k * lda + i]); likewise B with trans_b (stored N x K). C's rows are
// ldc elements apart. With beta == 0, C is not read (it may hold garbage or NaNs), as in BLAS.
// Each call splits its work across the threads of the caller's parallel scope (base/parallel.h),
// with the same bits for any thread count. Its scratch is the call's own: on the stack, or leased
// (base/scratch.h) from the pool of whoever runs the work and given back when it returns; so
// concurrent calls from different threads are safe and nothing is held per thread.
//
// Large products pack panels of A and B (so that strides which are multiples of 4 KiB cannot
// thrash L1, and transposes cost nothing in the inner loop) and run a register-tiled
// micro-kernel; products with M or N <= 4 (matrix-vector-like) skip packing and stream the big
// operand once.
#ifndef ANVIL_KERNELS_SIMD_GEMM_H_
#define ANVIL_KERNELS_SIMD_GEMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "kernels/simd/activation.h"

namespace anvil::simd {

void Sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

void Dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc);

// op(B) (K x N, float) packed once for many products with it - a constant weight: the panels
// the packed path's micro-kernel reads, laid out for the SIMD target this CPU runs (so a
// PackedB is only meaningful in the process that made it).
struct PackedB {
  int64_t k = 0, n = 0;
  std::vector<float> data;
};
std::unique_ptr<const PackedB> PackB(bool trans_b, int64_t K, int64_t N, const float* B,
                                     int64_t ldb);

// C[M, b.n] = alpha * op(A)[M, b.k] * B + beta * C, with B from PackB: Sgemm's contract without
// packing B on each call. Every M takes the packed micro-kernel path (results may differ from
// Sgemm's in the last bits where Sgemm takes its small-M or small-N path); threads split rows,
// or the packed panels (the micro-kernel's column width) when there are too few rows, and the
// result is the same for any thread count.
// col_bias (b.n values, or null) is added to every row: with beta = 0 the bits of a C filled
// with it and beta = 1.
void SgemmPackedB(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda,
                  const PackedB& b, float beta, float* C, int64_t ldc,
                  const float* col_bias = nullptr);

// Fills a panel of an implicit op(B) - one never stored whole, such as a convolution's im2col
// matrix: rows [k0, k0 + kc) x columns [j0, j0 + w) of it into dst[k * pw + j], and zeros into
// columns w <= j < pw.
using BPanelFiller =
    absl::FunctionRef<void(int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst)>;

// The BPanelFiller of a B stored row-major (rows ldb apart, not transposed): vector copies of
// whole rows of the panel, as the packed path packs them (a copy call per row of 16 floats was a
// pointwise convolution's biggest cost after its FMAs).
void PackRowsOfB(const float* B, int64_t ldb, int64_t k0, int64_t kc, int64_t j0, int64_t w,
                 int64_t pw, float* dst);

// C[M, N] = A[M, K] * B + row_bias + beta * C (A row-major with rows lda apart, not transposed;
// row_bias: M values added to row i, or null), with B's panels filled by `fill` as the packed
// path packs them: Sgemm's packed path and its bits (for M and N over 4, where Sgemm takes it;
// a row bias gives the bits of a C filled with it and beta = 1) without B in memory. Threads
// split columns (or rows, when column blocks of 16 give fewer than two chunks of work); `fill` is
// called concurrently, for disjoint or for the same column ranges, and must be safe for that.
// `epilogue` (null: none; K must be > 0 with one) activates each final result in registers
// before it is stored: the bits of its activation kernel run on C afterwards.
void SgemmFilledB(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, BPanelFiller fill,
                  const float* row_bias, float beta, float* C, int64_t ldc,
                  const Epilogue* epilogue = nullptr);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_GEMM_H_
