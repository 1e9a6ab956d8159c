// Dense matrix products (BLAS-style GEMM, row-major) with Highway, dispatched at runtime to the
// best SIMD target of the CPU:
//
//   C[M, N] = alpha * op(A)[M, K] * op(B)[K, N] + beta * C
//
// op(A) = A (stored M x K, element (i, k) at A[i * lda + k]) or, with trans_a, A^T (A stored
// K x M, element (i, k) at A[k * lda + i]); likewise B with trans_b (stored N x K). C's rows are
// ldc elements apart. With beta == 0, C is not read (it may hold garbage or NaNs), as in BLAS.
// Single-threaded; buffers are thread-local, so concurrent calls from different threads are safe.
//
// Large products pack panels of A and B (so that strides which are multiples of 4 KiB cannot
// thrash L1, and transposes cost nothing in the inner loop) and run a register-tiled
// micro-kernel; products with M or N <= 4 (matrix-vector-like) skip packing and stream the big
// operand once.
#ifndef ANVIL_KERNELS_SIMD_GEMM_H_
#define ANVIL_KERNELS_SIMD_GEMM_H_

#include <cstdint>

namespace anvil::simd {

void Sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

void Dgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
           const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
           int64_t ldc);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_GEMM_H_
