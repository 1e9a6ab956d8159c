// float <-> float16 and bfloat16 bits for Anvil's C++: the one conversion (base/float16.inc) that
// the graph's constants, the kernels' Half and BFloat16, the evaluator and emitted code share.
// Float to 16 bits rounds to nearest even (NaN stays a quiet NaN, overflow becomes inf); 16 bits
// to float is exact.
#ifndef ANVIL_BASE_FLOAT16_H_
#define ANVIL_BASE_FLOAT16_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace anvil::fp16 {
namespace internal {
#include "base/float16.inc"
}  // namespace internal

inline uint16_t FloatToHalf(float f) { return internal::anvil_f2h(f); }
inline float HalfToFloat(uint16_t h) { return internal::anvil_h2f(h); }
inline uint16_t FloatToBfloat16(float f) { return internal::anvil_f2bf(f); }
inline float Bfloat16ToFloat(uint16_t h) { return internal::anvil_bf2f(h); }

}  // namespace anvil::fp16

#endif  // ANVIL_BASE_FLOAT16_H_
