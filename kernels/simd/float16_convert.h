// float16 <-> float32 conversion of whole rows with Highway (F16C's vcvtph2ps / vcvtps2ph on
// AVX2 and AVX-512), dispatched at run time: the kernels that compute a float16 tensor in float32
// (Conv, MatMul, Gemm, and every op that reads through DenseInput / writes through DenseOutput)
// convert their inputs and outputs with these instead of one scalar conversion per element.
//
// The bits are base/float16.h's, the one conversion the rest of Anvil uses: float to float16
// rounds to nearest even (overflow to inf, subnormals exact, a NaN becomes the quiet NaN of its
// sign with no payload), float16 to float is exact (a NaN keeps its payload, signaling or not).
// Targets without F16C convert with base/float16.h one element at a time.
#ifndef ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_H_
#define ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_H_

#include <cstddef>
#include <cstdint>

namespace anvil::simd {

// out[i] = the float value of the float16 bits h[i], for i < n.
void HalfToFloat(const uint16_t* h, float* out, size_t n);

// out[i] = the float16 bits of x[i] rounded to nearest even, for i < n.
void FloatToHalf(const float* x, uint16_t* out, size_t n);

}  // namespace anvil::simd

#endif  // ANVIL_KERNELS_SIMD_FLOAT16_CONVERT_H_
