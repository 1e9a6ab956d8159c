// Highway SIMD routines for float32 element-wise kernels (the hot cases of kernels/ops/
// elementwise*.cc): binary arithmetic over two contiguous rows or a row and a broadcast scalar,
// and the common unary math and activations over a contiguous row. The best target for the CPU
// is picked at run time (HWY_DYNAMIC_DISPATCH); bodies are in elementwise-inl.h.
//
// Semantics match the scalar paths of the kernels (which handle strided rows and other types):
//  - Max/Min propagate NaN (numpy's maximum/minimum), whichever operand it is.
//  - Relu, Clip and LeakyRelu keep NaN; Clip(x, lo, hi) = min(max(x, lo), hi), so lo > hi gives
//    hi everywhere.
//  - Exp, Log, Tanh, Sigmoid handle NaN, infinities, 0 and negatives as libm does (Highway
//    1.0.3's contrib math does not: the routines guard those values).
//  - Erf is a rational approximation with relative error below 1e-6 over all floats.
//  - Softplus and ExpLinear use Highway's Exp/Log1p/Expm1 (about 1e-7 relative error).
// `out` may alias an input (in-place), but must not partially overlap one.
#ifndef ANVIL_KERNELS_SIMD_ELEMENTWISE_H_
#define ANVIL_KERNELS_SIMD_ELEMENTWISE_H_

#include <cstddef>
#include <cstdint>

namespace anvil::simd {

enum class BinaryOp : int { kAdd, kSub, kMul, kDiv, kMax, kMin };

enum class UnaryOp : int {
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kNeg,
  kAbs,
  kErf,
  kSoftplus,   // log(1 + e^x), as max(x, 0) + log1p(e^-|x|)
  kHardSwish,  // x * min(max(x / 6 + 0.5, 0), 1)
  kGelu,       // x * 0.5 * (1 + erf(x * (1 / sqrt(2)))), com.microsoft Gelu
};

// out[i] = a[i] op b[i].
void BinaryVectorVector(BinaryOp op, const float* a, const float* b, float* out, size_t n);
// out[i] = a[i] op b.
void BinaryVectorScalar(BinaryOp op, const float* a, float b, float* out, size_t n);
// out[i] = a op b[i].
void BinaryScalarVector(BinaryOp op, float a, const float* b, float* out, size_t n);

// out[i] = op(x[i]).
void Unary(UnaryOp op, const float* x, float* out, size_t n);
// out[i] = min(max(x[i], lo), hi).
void Clip(const float* x, float lo, float hi, float* out, size_t n);
// out[i] = x[i] < 0 ? alpha * x[i] : x[i].
void LeakyRelu(const float* x, float alpha, float* out, size_t n);
// out[i] = x[i] * Sigmoid(alpha * x[i]) (com.microsoft QuickGelu; SiLU when alpha is 1).
void QuickGelu(const float* x, float alpha, float* out, size_t n);
// The exponential linear units: out[i] = x > 0 ? gamma * x : gamma * alpha * expm1(beta * x).
// Elu is (alpha, 1, 1), Selu (alpha, 1, gamma), Celu (alpha, 1 / alpha, 1).
void ExpLinear(const float* x, float alpha, float beta, float gamma, float* out, size_t n);

// even[j] = x[2j] and odd[j] = x[2j + 1] for the n values of x (a stride-2 row split into its
// two column phases).
void Deinterleave(const float* x, float* even, float* odd, size_t n);

// dst[2i] += a[i] and dst[2i + 1] += b[i] for i < n (two taps of a stride-2 transposed
// convolution scattered into one output row).
void AddInterleaved2(const float* a, const float* b, float* dst, size_t n);

// dst[x] = (0 + w0[x] * row[o0[x]]) + w1[x] * row[o1[x]] for x < n, each operation rounded
// (no fused multiply-add): two-tap linear interpolation along a row of `len` values. The
// offsets are in [0, len) and never decrease along x (o0[x] <= o1[x]), as Resize's are.
void Interpolate2(const float* row, size_t len, const int32_t* o0, const int32_t* o1,
                  const float* w0, const float* w1, float* dst, size_t n);

// ONNX Runtime's bilinear blend of one output row, every operation rounded (no fused
// multiply-add): dst[x] = (((d2[x] * e2) * top[i1[x]] + (d1[x] * e2) * top[i2[x]]) +
// (d2[x] * e1) * bottom[i1[x]]) + (d1[x] * e1) * bottom[i2[x]] for x < n, where top and bottom
// are the two input rows (y1, y2), e1 / e2 their weights' distances (dy1, dy2), i1 / i2 the
// left and right columns (in [0, len), non-decreasing along x) and d1 / d2 theirs.
void BlendBilinearRow(const float* top, const float* bottom, size_t len, const int32_t* i1,
                      const int32_t* i2, const float* d1, const float* d2, float e1, float e2,
                      float* dst, size_t n);

// y[i] = y[i] + w * x[i] for i < n, the product rounded before the sum (no fused multiply-add).
void AddScaled(const float* x, float w, float* y, size_t n);

// Max pooling over a plane: output columns [col_begin, col_end) of each output row oh <
// out_rows of y (out_w wide) fold, from y's values (accumulate) or from -inf, the row_count[oh]
// tap rows b (input row row_first[oh] + b * row_dilation of the in_w-wide plane x) in order,
// each read from column col_offset (the first tap of output col_begin): y[j] = the fold over b,
// then c < taps, of (v > m ? v : m) with v row b's value at (j - col_begin) * stride +
// c * dilation (NaN inputs are skipped, as the scalar pool does). Each output is stored once.
// The windows must lie inside the rows; strides 1 and 2 are vectorized.
void MaxPoolRows(const float* x, int64_t in_w, const int64_t* row_first, const int64_t* row_count,
                 int64_t row_dilation, int64_t out_rows, int64_t col_offset, int64_t stride,
                 int64_t taps, int64_t dilation, bool accumulate, float* y, int64_t out_w,
                 int64_t col_begin, int64_t col_end);

// Max pooling with 2x2 windows at stride 2, no padding: for each of `planes` consecutive
// in_h x in_w planes of x, y's out_h x out_w plane gets y[oh][ow] = the fold of
// (v > m ? v : m) from m = -inf over x[2oh][2ow], x[2oh][2ow + 1], x[2oh + 1][2ow],
// x[2oh + 1][2ow + 1] (NaN skipped): MaxPoolRows' values for that window, bit for bit.
// Requires 2 * out_h <= in_h and 2 * out_w <= in_w (the rest of an odd plane is ignored, as
// floor mode does). The commonest pooling of CNNs, without MaxPoolRows' per-row setup.
void MaxPool2x2Planes(const float* x, int64_t planes, int64_t in_h, int64_t in_w, float* y,
                      int64_t out_h, int64_t out_w);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_ELEMENTWISE_H_
