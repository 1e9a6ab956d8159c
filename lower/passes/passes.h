// The Tensor IR pipeline lowering runs after building a module (lower-to-tir, in
// lower/lowering/lower_to_tir.h), and what it did. The default pipeline is
//   fuse,tile-rows,plan-buffers,collapse-loops,mark-loops
//   fuse            producer-consumer fusion (fuse.h)
//   tile-rows       gemm calls and their row-wise neighbours as one loop over row tiles
//                   (row_tiles.h)
//   plan-buffers    the workspace plan of the surviving intermediates (plan_buffers.h)
//   collapse-loops  loop pairs over tensors' last two axes made one (collapse_loops.h)
//   mark-loops      parallel and vectorize marks (mark_loops.h)
// ModulePassOptions spell it as switches (lower-to-tir's fuse=false, tile-bytes=..., ...) or
// as any pipeline text of registered Tensor IR passes (tir_pass_manager.h), which a
// tir::PassManager runs with the module verified after every pass.
#ifndef ANVIL_LOWER_PASSES_PASSES_H_
#define ANVIL_LOWER_PASSES_PASSES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/collapse_loops.h"
#include "lower/passes/fuse.h"
#include "lower/passes/mark_loops.h"
#include "lower/passes/plan_buffers.h"
#include "lower/passes/row_tiles.h"
#include "lower/passes/tir_pass_manager.h"

namespace anvil::lower {

struct ModulePassOptions {
  // The default pipeline's passes, each on or off; tile-rows with these options.
  bool fuse = true;
  bool tile_rows = true;
  RowTileOptions row_tiles;
  bool plan_buffers = true;
  bool collapse_loops = true;
  bool mark_loops = true;
  // When set, this pipeline runs instead of the one the switches above say.
  std::optional<std::string> pipeline;
  // Added to the pipeline's manager after its verifier (print-IR, statistics, timing); owned by
  // the caller, who reads their reports.
  std::vector<tir::PassInstrumentation*> instrumentations;
};

// The pipeline text `options` stand for: its `pipeline`, else the default pipeline without the
// passes switched off, tile-rows with its non-default options ("fuse,tile-rows{tile-bytes=4096},
// plan-buffers,collapse-loops,mark-loops").
std::string ModulePassPipeline(const ModulePassOptions& options);

struct ModulePassStats {
  FuseStats fuse;
  RowTileStats row_tiles;
  PlanStats plan;
  CollapseStats collapse;
  MarkStats mark;
};

// Runs the pipeline `options` say (ModulePassPipeline) on the module, verified after each pass;
// `stats` sums what the default pipeline's passes did (a pass that runs twice adds twice).
// InvalidArgument when the pipeline text does not parse; `failed after <pass>: ...` (Internal)
// when a pass leaves invalid IR.
absl::StatusOr<tir::Module> RunModulePasses(tir::Module module, const ModulePassOptions& options,
                                            ModulePassStats* stats = nullptr);

// Loop structure of a module's entry function.
struct ModuleCounts {
  int64_t nests = 0;                 // top-level loops (a loop nest each)
  int64_t loops = 0;                 // every loop
  int64_t stored_intermediates = 0;  // tensors defined at the top level of the entry (buffers
                                     // of their own; not views, not kernel-allocated)
  int64_t local_buffers = 0;         // tensors defined inside loops (rows fusion left)
  int64_t kernel_calls = 0;
};
ModuleCounts CountLoops(const tir::Module& module);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_PASSES_H_
