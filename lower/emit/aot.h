// Ahead-of-time compilation: a lowered module as a C library — model.cc (the emitted code, a
// host for it and a C API), model.h (the API) and model.weights (the globals, embedded into the
// library by the assembler's .incbin when model.cc is compiled with `-Wa,-I,<dir>`).
//
// The C API (model.h), thread-safe for concurrent runs on separate contexts:
//   AnvilModel* anvil_model_create(void);
//   void anvil_model_destroy(AnvilModel*);
//   int anvil_model_run(AnvilModel*, const AnvilArg* inputs, AnvilArg* outputs,
//                       char* error, size_t error_size);   // 0 on success
//   void anvil_model_free_output(AnvilArg*);
// with inputs and outputs in the graph's order (names, element types and ranks in model.h);
// outputs are allocated by the run (malloc) with their dims filled in.
//
// Limits of this first version: every node must lower to loops or gemm (a model that calls a
// runtime kernel — convolutions, pooling, ops without a lowering rule — is Unimplemented naming
// them, since the library links nothing of Anvil); gemm is a plain loop nest the compiler
// vectorizes; the workspace gives every intermediate its own bytes (no MemoryPlanner sharing).
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
};

// `weights_name`: the file name model.cc embeds (the weights are written under it).
absl::StatusOr<AotSources> EmitAot(const tir::Module& module,
                                   const std::string& weights_name = "model.weights");

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_AOT_H_
