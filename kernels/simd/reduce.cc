// Runtime dispatch of simd/reduce.h over the Highway targets compiled from reduce-inl.h.
#include "kernels/simd/reduce.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/reduce.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/reduce-inl.h"

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(ReduceSumImpl);
HWY_EXPORT(ReduceSumSquaresImpl);
HWY_EXPORT(ReduceSumAbsImpl);
HWY_EXPORT(ReduceMaxImpl);
HWY_EXPORT(ReduceMinImpl);
HWY_EXPORT(ReduceSumSquaredDiffImpl);
HWY_EXPORT(AccumulateSumImpl);
HWY_EXPORT(AccumulateSumSquaresImpl);
HWY_EXPORT(AccumulateSumAbsImpl);
HWY_EXPORT(AccumulateMaxImpl);
HWY_EXPORT(AccumulateMinImpl);
HWY_EXPORT(AccumulateProdImpl);
HWY_EXPORT(ExpShiftSumImpl);
HWY_EXPORT(ExpSubImpl);
HWY_EXPORT(MultiplyImpl);
HWY_EXPORT(SubtractImpl);
HWY_EXPORT(ScaleShiftImpl);
HWY_EXPORT(NormalizeImpl);
HWY_EXPORT(ExpScaledRowsImpl);
HWY_EXPORT(ScaleRowsImpl);
HWY_EXPORT(LayerNormRowsImpl);

float ReduceSum(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceSumImpl)(x, n); }
float ReduceSumSquares(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceSumSquaresImpl)(x, n);
}
float ReduceSumAbs(const float* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceSumAbsImpl)(x, n);
}
float ReduceMax(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceMaxImpl)(x, n); }
float ReduceMin(const float* x, int64_t n) { return HWY_DYNAMIC_DISPATCH(ReduceMinImpl)(x, n); }
float ReduceSumSquaredDiff(const float* x, float mean, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceSumSquaredDiffImpl)(x, mean, n);
}
void AccumulateSum(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateSumImpl)(acc, x, n);
}
void AccumulateSumSquares(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateSumSquaresImpl)(acc, x, n);
}
void AccumulateSumAbs(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateSumAbsImpl)(acc, x, n);
}
void AccumulateMax(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateMaxImpl)(acc, x, n);
}
void AccumulateMin(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateMinImpl)(acc, x, n);
}
void AccumulateProd(float* acc, const float* x, int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateProdImpl)(acc, x, n);
}
float ExpShiftSum(const float* x, float shift, float* y, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftSumImpl)(x, 1.0f, shift, y, n);
}
float ExpScaledShiftSum(const float* x, float scale, float shift, float* y, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftSumImpl)(x, scale, shift, y, n);
}
void ExpSub(const float* x, const float* shift, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ExpSubImpl)(x, shift, y, n);
}
int64_t ExpScaledRows(float* x, int64_t rows, int64_t n, int64_t ld, float scale, float* inv_sums) {
  return HWY_DYNAMIC_DISPATCH(ExpScaledRowsImpl)(x, rows, n, ld, scale, inv_sums);
}
void ScaleRows(float* x, int64_t rows, int64_t n, int64_t ld, const float* scales) {
  HWY_DYNAMIC_DISPATCH(ScaleRowsImpl)(x, rows, n, ld, scales);
}
void LayerNormRows(const float* x, int64_t rows, int64_t n, float epsilon, const float* scale,
                   const float* bias, float* y, float* means, float* inv_stds) {
  HWY_DYNAMIC_DISPATCH(LayerNormRowsImpl)(x, rows, n, epsilon, scale, bias, y, means, inv_stds);
}
void Multiply(const float* x, const float* s, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(MultiplyImpl)(x, s, y, n);
}
void Subtract(const float* x, const float* s, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SubtractImpl)(x, s, y, n);
}
void ScaleShift(const float* x, float a, float b, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(ScaleShiftImpl)(x, a, b, y, n);
}
void Normalize(const float* x, float mean, float inv_std, const float* scale, const float* bias,
               float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(NormalizeImpl)(x, mean, inv_std, scale, bias, y, n);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
