// The per-family KernelRule tables CreateKernel searches (op_kernel_registry.cc). Each family file
// in kernels/ops/ defines one table, sorted by op_type, ending with a {nullptr} row. Private.
#ifndef ANVIL_KERNELS_KERNEL_RULES_H_
#define ANVIL_KERNELS_KERNEL_RULES_H_

#include "kernels/op_kernel.h"

namespace anvil::kernel_rules {

extern const KernelRule kElementwiseKernels[];  // ops/elementwise*.cc
extern const KernelRule kComputeKernels[];      // ops/compute*.cc: matmul, conv, pool, reduce, norm
extern const KernelRule kDataKernels[];         // ops/data*.cc: reshape, slice, gather, resize, ...
extern const KernelRule kMiscKernels[];         // ops/misc*.cc: rnn, signal, detection, random, ...
extern const KernelRule kControlFlowKernels[];  // ops/control_flow.cc: If, Loop, Scan
extern const KernelRule kSequenceKernels[];     // ops/sequence.cc: Sequence*, Optional*
extern const KernelRule kNchwcKernels[];        // ops/nchwc.cc: com.anvil.nchwc (blocked layout)

}  // namespace anvil::kernel_rules

#endif  // ANVIL_KERNELS_KERNEL_RULES_H_
