// How EmitCc (emit_cc.h) writes a module: the entry's symbol, and whether marked loops become
// vector and parallel code. Apart from emit_cc.h so that the emitter's parts (scalar_emitter.h,
// vector_emitter.h) need not include the API they implement.
#ifndef ANVIL_LOWER_EMIT_EMIT_OPTIONS_H_
#define ANVIL_LOWER_EMIT_EMIT_OPTIONS_H_

#include <string>

namespace anvil::lower {

struct EmitOptions {
  std::string entry_symbol = "anvil_entry";
  // Loops marked `vectorize` whose body is f32 arithmetic over unit-stride loads and stores
  // become Highway vector loops (with a scalar tail). Their exp, log, tanh and erf are the
  // kernels' vector ops (kernels/simd/vector_math.inc, embedded as text), so vector loops give the
  // interpreter's results, which may differ from the evaluator's (libm) in the last bits;
  // without vectorization the emitted code gives the evaluator's bits.
  bool vectorize = true;
  // Loops marked `parallel` hand their trips to the host's parallel_for (a lambda over a range
  // of trips); off: plain serial loops.
  bool parallel = true;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_EMIT_OPTIONS_H_
