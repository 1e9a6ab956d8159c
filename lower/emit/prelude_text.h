// The helpers every emitted C++ unit starts with, as the text the emitter writes: prelude.inc
// (with base/float16.inc) and vector_prelude.inc (with the kernels' vector math,
// kernels/simd/vector_math.inc), embedded at build time by embed_text.awk. The .inc files are
// ordinary sources that prelude_test.cc compiles and checks; see their opening comments.
#ifndef ANVIL_LOWER_EMIT_PRELUDE_TEXT_H_
#define ANVIL_LOWER_EMIT_PRELUDE_TEXT_H_

namespace anvil::lower {

// Scalar helpers of every unit: wrapping and checked integer arithmetic, checked division,
// saturating casts, f16/bf16 conversion and rounding, NaN-propagating min/max, loop trips,
// parallel chunks and local allocations. Needs <cmath>, <cstdint>, <cstring>, <limits>,
// <type_traits> and the ABI (abi.inc) before it.
extern const char kCcPrelude[];

// Helpers of units with vector loops: the kernels' vector ops (ExpOp, ...) and vector min, max
// and division. Needs Highway's headers (hwy/highway.h, hwy/contrib/math/math-inl.h) and follows
// kCcPrelude.
extern const char kCcVectorPrelude[];

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_PRELUDE_TEXT_H_
