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

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_QUANTIZE_H_
