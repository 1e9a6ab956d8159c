// The C ABI between code emitted by emit_cc.h and the host that runs it: buffers (data, dims,
// rank), the host's callbacks (kernel table, gemm, allocation of local tensors, failure) and the
// entry function's type. Kernel operands whose data is null are outputs the host allocates
// (filling data and dims); every callback returns 0 on success, else nonzero after calling fail.
#ifndef ANVIL_LOWER_EMIT_ABI_H_
#define ANVIL_LOWER_EMIT_ABI_H_

#include <stdint.h>

#define ANVIL_CC_ABI(...) __VA_ARGS__
extern "C" {
#include "lower/emit/abi.inc"
}
#undef ANVIL_CC_ABI

#endif  // ANVIL_LOWER_EMIT_ABI_H_
