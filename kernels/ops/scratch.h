// The scratch memory of the kernels' paths (im2col, padded planes, batched products, Winograd's
// transformed blocks, attention's score rows): a lease (base/scratch.h) of the pool whoever runs
// the kernels installed (a Session's, a compiled model's), reused across calls and freed with that
// owner; with none installed, buffers of the lease's own, freed when it ends. Nothing is held per
// thread or per process.
//
// Make one per call, or one per chunk of a parallel loop inside the chunk (leases alive at once
// never share bytes), and keep pointers from it no longer than it lives.
#ifndef ANVIL_KERNELS_OPS_SCRATCH_H_
#define ANVIL_KERNELS_OPS_SCRATCH_H_

#include "base/scratch.h"

namespace anvil::compute_ops {

using ScratchBuffers = ScratchLease;

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_SCRATCH_H_
