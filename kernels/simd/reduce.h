// float32 row routines for reductions, softmax and normalization, with Highway (runtime
// dispatch to the CPU's best target). Each works on contiguous arrays of n elements; the kernels
// in ops/compute_*.cc call them for the innermost (contiguous) axis and for element-wise
// accumulation of whole rows when an outer axis is reduced.
//
// NaN: ReduceMax/ReduceMin and AccumulateMax/AccumulateMin propagate NaN (like numpy). The
// exp-based routines (ExpShiftSum, ExpSub: the softmax family's exp(x - max)) are, on AVX-512,
// the Exp kernel's exp (within 1 ulp, subnormals kept, +inf past 88.72); on other targets within
// 2 ulp of exp where it is a normal float (3 on SSE4, which has no FMA), 0 where exp(t) would be
// subnormal (t < -87.34) and +inf for t > 88.37 (softmax arguments are <= 0). They assume finite
// inputs: callers check the row's max first.
#ifndef ANVIL_KERNELS_SIMD_REDUCE_H_
#define ANVIL_KERNELS_SIMD_REDUCE_H_

#include <cstdint>

namespace anvil::simd {

// Horizontal reductions of x[0, n).
float ReduceSum(const float* x, int64_t n);
float ReduceSumSquares(const float* x, int64_t n);
float ReduceSumAbs(const float* x, int64_t n);
float ReduceMax(const float* x, int64_t n);  // -inf for n == 0
float ReduceMin(const float* x, int64_t n);  // +inf for n == 0
// sum((x - mean)^2), the numerically stable second pass of a variance.
float ReduceSumSquaredDiff(const float* x, float mean, int64_t n);

// Element-wise accumulation acc[i] = acc[i] (op) f(x[i]) for i < n.
void AccumulateSum(float* acc, const float* x, int64_t n);
void AccumulateSumSquares(float* acc, const float* x, int64_t n);
void AccumulateSumAbs(float* acc, const float* x, int64_t n);
void AccumulateMax(float* acc, const float* x, int64_t n);
void AccumulateMin(float* acc, const float* x, int64_t n);
void AccumulateProd(float* acc, const float* x, int64_t n);

// y[i] = exp(x[i] - shift) (y may be x, or nullptr to only sum); returns the sum of y.
float ExpShiftSum(const float* x, float shift, float* y, int64_t n);
// The same of exp(x[i] * scale - shift), the product and the difference rounded once (with FMA):
// a softmax of scale * x without scaling x first.
float ExpScaledShiftSum(const float* x, float scale, float shift, float* y, int64_t n);
// Softmax numerators of `rows` rows of n floats (rows ld apart), in one call (a call per row of
// an attention block's 16-wide rows cost as much as the row): row i becomes exp(scale * x -
// scale * m) with m its maximum (its minimum for a negative scale), as ExpScaledShiftSum computes
// it, and inv_sums[i] = 1 / its sum. A row whose m is not finite, or every row for a non-finite
// scale, is left as it was with inv_sums[i] = 0 (a real one is in (0, 1]: the maximum's term is
// 1): the caller takes those its own way. Returns how many rows were left.
int64_t ExpScaledRows(float* x, int64_t rows, int64_t n, int64_t ld, float scale, float* inv_sums);
// x[r * ld + i] *= scales[r] for `rows` rows of n floats.
void ScaleRows(float* x, int64_t rows, int64_t n, int64_t ld, const float* scales);
// LayerNormalization of `rows` dense rows of n floats in one call: per row, mean = ReduceSum / n,
// var = ReduceSumSquaredDiff(mean) / n (0 and 0 for n = 0), inv_std = 1 / sqrt(var + epsilon),
// then Normalize into y; means and inv_stds receive each row's mean and inv_std. The bits of those
// calls made per row (which cost three dispatches a row: a 64-wide row's whole work).
void LayerNormRows(const float* x, int64_t rows, int64_t n, float epsilon, const float* scale,
                   const float* bias, float* y, float* means, float* inv_stds);
// Element-wise y[i] = exp(x[i] - shift[i]), x[i] * s[i], x[i] - s[i] (y may alias x).
void ExpSub(const float* x, const float* shift, float* y, int64_t n);
void Multiply(const float* x, const float* s, float* y, int64_t n);
void Subtract(const float* x, const float* s, float* y, int64_t n);
// y[i] = x[i] * a + b (y may be x).
void ScaleShift(const float* x, float a, float b, float* y, int64_t n);
// y[i] = (x[i] - mean) * inv_std * scale[i] + bias[i]; scale and bias may be nullptr (1, 0).
void Normalize(const float* x, float mean, float inv_std, const float* scale, const float* bias,
               float* y, int64_t n);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_REDUCE_H_
