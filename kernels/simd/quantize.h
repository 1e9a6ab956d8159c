// Per-tensor quantization of float32 data to 8 bits and back, and the requantization of int32
// sums to 8 bits, with Highway, dispatched at runtime to the best SIMD target of the CPU: the hot
// loops of QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear and the QLinear ops' outputs,
// computed as ONNX Runtime's CPU kernels compute them (so that a dynamic quantizer downstream
// derives the same scale from the same bits).
#ifndef ANVIL_KERNELS_SIMD_QUANTIZE_H_
#define ANVIL_KERNELS_SIMD_QUANTIZE_H_

#include <cstdint>

namespace anvil::simd {

// The least and greatest of x[0, n) into *lo and *hi, which hold the starting values (a range
// that must include 0 starts at 0, 0). With NaNs in x the result is unspecified (as ONNX
// Runtime's is).
void MinMax(const float* x, int64_t n, float* lo, float* hi);

// y[i] = saturate(round_half_even(x[i] / scale) + zero) into uint8, or int8 when is_signed. The
// division is a float division (as ONNX and ONNX Runtime compute it, not a reciprocal
// multiply); a NaN gives the type's lowest value.
void QuantizeLinear(const float* x, int64_t n, float scale, int32_t zero, bool is_signed, void* y);

// y[i] = float(x[i] - zero) * scale for uint8 x, or int8 when is_signed.
void DequantizeLinear(const void* x, bool is_signed, int64_t n, float scale, int32_t zero,
                      float* y);

// The requantization of ONNX's QLinear ops as ONNX Runtime computes it:
//   y[j] = saturate(round_half_even(float(acc[j] + bias) * multiplier[j]) + zero[j])
// into uint8 (or int8 when `is_signed`), with multiplier and zero either one value each
// (per_column false) or n values. acc + bias wraps as int32; float() rounds as a static_cast.
void Requantize(const int32_t* acc, int64_t n, int32_t bias, const float* multiplier,
                const int32_t* zero, bool per_column, bool is_signed, void* y);

// com.microsoft QLinearAdd over n elements, as ONNX Runtime's AVX2 kernel computes them (its
// MLAS QLinearAdd): with the ratios rv = v_scale / y_scale, ro = o_scale / y_scale and
//   fixed = y_zero - fma(rv, v_zero, ro * o_zero)                    (the caller's part),
//   y[i] = saturate(round_half_even(fma(v[i], rv, fma(o[i], ro, fixed))))
// where `o_one` says o is one value for all n (its part then computed once, with the same bits).
// v and o are 8-bit (uint8, or int8 when is_signed), as is y. Fused multiply-adds where the SIMD
// target has them (x86 from AVX2, Arm); a rounded product and sum on SSE4, as ORT's SSE2 kernel.
void QLinearAdd(const void* v, const void* o, bool o_one, int64_t n, float rv, float ro,
                float fixed, bool is_signed, void* y);

// com.microsoft QLinearMul over n elements, as ONNX Runtime's MLAS QLinearMul computes them:
//   y[i] = saturate(round_half_even(float((a[i] - a_zero) * (b[i] - b_zero)) * ratio + y_zero))
// with ratio = a_scale * b_scale / y_scale, the product and the sum each rounded to float.
// `a_one` / `b_one`: that operand is one value for all n.
void QLinearMul(const void* a, bool a_one, int32_t a_zero, const void* b, bool b_one,
                int32_t b_zero, int64_t n, float ratio, int32_t y_zero, bool is_signed, void* y);

// DynamicQuantizeLinear's parameters for x[0, n), as ONNX Runtime computes them (its
// DynamicQuantizeLinear, DynamicQuantizeMatMul and dynamically quantized attention share them):
//   scale = (max(0, max x) - min(0, min x)) / 255, or 1 when that range is empty (all zeros);
//   zero = round_half_even(clamp(0 - min / scale, 0, 255)), in float.
// (ONNX's formula divides by a zero scale for an all-zero x; its reference gives 1/255.)
struct DynamicQuantization {
  float scale = 1.0f;
  int32_t zero = 0;  // a uint8 value
};
DynamicQuantization DynamicQuantizationOf(const float* x, int64_t n);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_QUANTIZE_H_
