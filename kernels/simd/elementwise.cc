// Dynamic dispatch for simd/elementwise.h: compiles elementwise-inl.h for every Highway target
// and calls the best one the CPU supports.
#include "kernels/simd/elementwise.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/elementwise.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/elementwise-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(BinaryImpl);
HWY_EXPORT(UnaryImpl);
HWY_EXPORT(ClipImpl);
HWY_EXPORT(LeakyReluImpl);
HWY_EXPORT(QuickGeluImpl);
HWY_EXPORT(ExpLinearImpl);
HWY_EXPORT(DeinterleaveImpl);
HWY_EXPORT(MaxPoolRowsImpl);
HWY_EXPORT(MaxPool2x2PlanesImpl);
HWY_EXPORT(AddInterleaved2Impl);
HWY_EXPORT(Interpolate2Impl);
HWY_EXPORT(BlendBilinearRowImpl);
HWY_EXPORT(AddScaledImpl);

void BinaryVectorVector(BinaryOp op, const float* a, const float* b, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryImpl)(static_cast<int>(op), 0, a, b, 0.0f, 0.0f, out, n);
}

void BinaryVectorScalar(BinaryOp op, const float* a, float b, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryImpl)(static_cast<int>(op), 1, a, nullptr, 0.0f, b, out, n);
}

void BinaryScalarVector(BinaryOp op, float a, const float* b, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(BinaryImpl)(static_cast<int>(op), 2, nullptr, b, a, 0.0f, out, n);
}

void Unary(UnaryOp op, const float* x, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryImpl)(static_cast<int>(op), x, out, n);
}

void Clip(const float* x, float lo, float hi, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(ClipImpl)(x, lo, hi, out, n);
}

void LeakyRelu(const float* x, float alpha, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(LeakyReluImpl)(x, alpha, out, n);
}

void QuickGelu(const float* x, float alpha, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(QuickGeluImpl)(x, alpha, out, n);
}

void ExpLinear(const float* x, float alpha, float beta, float gamma, float* out, size_t n) {
  HWY_DYNAMIC_DISPATCH(ExpLinearImpl)(x, alpha, beta, gamma, out, n);
}

void Deinterleave(const float* x, float* even, float* odd, size_t n) {
  HWY_DYNAMIC_DISPATCH(DeinterleaveImpl)(x, even, odd, n);
}

void AddInterleaved2(const float* a, const float* b, float* dst, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddInterleaved2Impl)(a, b, dst, n);
}

void Interpolate2(const float* row, size_t len, const int32_t* o0, const int32_t* o1,
                  const float* w0, const float* w1, float* dst, size_t n) {
  HWY_DYNAMIC_DISPATCH(Interpolate2Impl)(row, len, o0, o1, w0, w1, dst, n);
}

void BlendBilinearRow(const float* top, const float* bottom, size_t len, const int32_t* i1,
                      const int32_t* i2, const float* d1, const float* d2, float e1, float e2,
                      float* dst, size_t n) {
  HWY_DYNAMIC_DISPATCH(BlendBilinearRowImpl)(top, bottom, len, i1, i2, d1, d2, e1, e2, dst, n);
}

void AddScaled(const float* x, float w, float* y, size_t n) {
  HWY_DYNAMIC_DISPATCH(AddScaledImpl)(x, w, y, n);
}

void MaxPoolRows(const float* x, int64_t in_w, const int64_t* row_first, const int64_t* row_count,
                 int64_t row_dilation, int64_t out_rows, int64_t col_offset, int64_t stride,
                 int64_t taps, int64_t dilation, bool accumulate, float* y, int64_t out_w,
                 int64_t col_begin, int64_t col_end) {
  HWY_DYNAMIC_DISPATCH(MaxPoolRowsImpl)
  (x, in_w, row_first, row_count, row_dilation, out_rows, col_offset, stride, taps, dilation,
   accumulate, y, out_w, col_begin, col_end);
}

void MaxPool2x2Planes(const float* x, int64_t planes, int64_t in_h, int64_t in_w, float* y,
                      int64_t out_h, int64_t out_w) {
  HWY_DYNAMIC_DISPATCH(MaxPool2x2PlanesImpl)(x, planes, in_h, in_w, y, out_h, out_w);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
