// The kernel host of AOT libraries: Anvil's kernels for the nodes a library compiled by
// anvil-compile (emit/aot.h) calls instead of lowering them to loops — convolutions, pooling,
// ops without a lowering rule — Anvil's SGEMM/DGEMM for its gemm calls (constant weights packed
// once), and Anvil's threads for its parallel loops, kernels and gemm.
//
// A library that needs it embeds the graph it was lowered from (the prepared model, serialized
// ONNX) and a table saying, per kernel call, which node it runs and what each operand is; it
// links this library (//lower:aot_host in Bazel; libanvil_aot_host.so next to libmodel.so from
// `anvil-compile --shared`). The API is C (aot_host_api.inc), called from the library's model.cc:
//
//   anvil_aot_packed_weights_create(weights, num_weights)
//   anvil_aot_packed_weights_destroy(packed)
//       the library's constant gemm weights packed (lower/jit/host_support.h): the library
//       makes one with its first context's host and destroys it with the last (its own state,
//       under its own lock), so its contexts share one packed copy of each weight and nothing
//       outlives the library's use of it. Hosts hold the copies they were given: destroying the
//       packed weights before a host is safe.
//   anvil_aot_host_create(model, bytes, tensors, num_tensors, kernels, count, packed, error,
//                         error_size)
//       imports the graph and checks every table entry against its node (position in range, op
//       type as recorded, operand slots within the node's inputs and outputs, captured names
//       defined); null with a one-line message in `error` otherwise. `tensors` give the bytes of
//       initializers the embedded graph left empty because the library holds them already (its
//       globals): each weight is in the library once. Kernels are created on their first call.
//       A library with gemm calls but no kernel calls passes no graph (null, 0). `packed` (or
//       null) gives the packed gemm weights, which the host shares.
//   anvil_aot_host_begin_run(host, threads)   the run's intra-op threads (<= 0: every CPU),
//       for its parallel loops, kernels and gemm, until
//   anvil_aot_host_end_run(host)   which also frees what kernels allocated during the run.
//   anvil_aot_host_kernel(host, id, operands, count, ctx, fail)
//       runs call `id` (lower/jit/kernel_call.h: the JIT's semantics); on failure calls
//       fail(ctx, message) and returns nonzero.
//   anvil_aot_host_gemm(host, ctx, fail, ...)      AnvilHost's gemm, as the JIT's host does it.
//   anvil_aot_host_parallel_for(...)               AnvilHost's parallel_for, likewise.
//   anvil_aot_host_plan(host, count, lifetimes, sizes, offsets)
//       places a run's `count` workspace buffers (lifetimes: count pairs [first, last] of
//       top-level steps, the same every call; sizes: this run's bytes) with the runtime's
//       MemoryPlanner, as the JIT does: buffers whose lifetimes overlap never share bytes.
//       Writes offsets (64-byte aligned) and returns the workspace's bytes; re-plans only when a
//       size changed. -1 for a lifetime whose last step precedes its first, a negative size, sizes
//       whose sum overflows or a count other than the first call's.
//   anvil_aot_host_destroy(host)
//
// A host serves one run at a time (a library makes one per AnvilModel context: separate contexts
// run concurrently).
#ifndef ANVIL_LOWER_EMIT_AOT_HOST_H_
#define ANVIL_LOWER_EMIT_AOT_HOST_H_

#include <stdint.h>

#include "lower/emit/abi.h"

#define ANVIL_AOT_HOST_API(...) __VA_ARGS__
extern "C" {
#include "lower/emit/aot_host_api.inc"
}
#undef ANVIL_AOT_HOST_API

#endif  // ANVIL_LOWER_EMIT_AOT_HOST_H_
