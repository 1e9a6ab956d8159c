// Ahead-of-time compilation: a lowered module as a C library — model.cc (the emitted code, a
// host for it and a C API), model.h (the API) and model.weights (the globals, embedded into the
// library by the assembler's .incbin when model.cc is compiled with `-Wa,-I,<dir>`).
//
// A module whose nodes call runtime kernels (convolutions, pooling, ops without a lowering rule)
// makes a library that links Anvil's kernel host (aot_host.h): model.weights then also holds the
// graph they were lowered from (serialized ONNX, with the initializers the globals already hold
// left empty, so each weight is in the library once), model.cc a table of its kernel calls, and
// each context creates its kernels on its first run. A module with gemm calls, or whose
// workspace buffers' sizes depend on dims, links the host too (unless AotOptions::kernel_host is
// false): gemm runs on Anvil's SGEMM with constant weights packed at the first context's first
// run, held by the library for its contexts and released with the last one;
// parallel loops, kernels and gemm on anvil_model_set_threads' threads; and the workspace is
// placed per run by the runtime's MemoryPlanner, re-planned when the dims change (buffers that
// are not live together share bytes: MobileNet-style at batch 8 needs 2.6 MB instead of 13.4).
// Otherwise the library is self-contained (libc, libstdc++), serial, with a plain gemm loop nest
// and, for dynamic dims, the workspace's buffers back to back. A workspace of constant size is
// planned at compile time either way.
//
// The C API (model.h), thread-safe for concurrent runs on separate contexts:
//   AnvilModel* anvil_model_create(void);
//   void anvil_model_destroy(AnvilModel*);
//   int anvil_model_run(AnvilModel*, const AnvilArg* inputs, AnvilArg* outputs,
//                       char* error, size_t error_size);   // 0 on success
//   void anvil_model_free_output(AnvilArg*);
//   void anvil_model_set_threads(AnvilModel*, int threads);  // with the kernel host; default 1
// with inputs and outputs in the graph's order (names, element types and ranks in model.h);
// outputs are allocated by the run (malloc) with their dims filled in.
//
// Limits: kernel calls of nodes inside subgraphs, and outputs whose dims only data decides, are
// Unimplemented; each context holds its own kernels (with the weights they pack) and workspace
// (the packed gemm weights are shared by the contexts).
#ifndef ANVIL_LOWER_EMIT_AOT_H_
#define ANVIL_LOWER_EMIT_AOT_H_

#include <string>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"

namespace anvil::lower {

struct AotSources {
  std::string cc;       // model.cc
  std::string header;   // model.h
  std::string weights;  // model.weights (bytes)
  // Kernel calls in the module: when nonzero, model.cc calls the kernel host (aot_host.h),
  // which the library must link, and `weights` ends with the graph they run (graph_bytes).
  size_t kernel_calls = 0;
  size_t graph_bytes = 0;
  // Whether the library links the kernel host: for kernel calls, or (allowed by
  // AotOptions::kernel_host) for its gemm calls and threads.
  bool kernel_host = false;
};

struct AotOptions {
  // The file name model.cc embeds (the weights are written under it).
  std::string weights_name = "model.weights";
  // Whether the library may link the kernel host (for kernel calls; and for gemm on Anvil's
  // SGEMM with packed constant weights, and threads, when it calls gemm); false: a
  // self-contained library, and a model that needs kernels is FailedPrecondition naming their
  // ops.
  bool kernel_host = true;
};

absl::StatusOr<AotSources> EmitAot(const tir::Module& module, const AotOptions& options = {});

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_AOT_H_
