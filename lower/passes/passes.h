// The passes on the Tensor IR that lowering runs after building a module, in order:
//   fuse          producer-consumer fusion (fuse.h)
//   tile-rows     gemm calls and their row-wise neighbours as one loop over row tiles
//                 (row_tiles.h)
//   plan-buffers  the workspace plan of the surviving intermediates (plan_buffers.h)
//   collapse-loops  loop pairs over tensors' last two axes made one (collapse_loops.h)
//   mark-loops    parallel and vectorize marks (mark_loops.h)
// each followed by the simplifier; and the counts the lower-to-tir statistics report.
#ifndef ANVIL_LOWER_PASSES_PASSES_H_
#define ANVIL_LOWER_PASSES_PASSES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/collapse_loops.h"
#include "lower/passes/fuse.h"
#include "lower/passes/mark_loops.h"
#include "lower/passes/plan_buffers.h"
#include "lower/passes/row_tiles.h"

namespace anvil::lower {

struct ModulePassOptions {
  bool fuse = true;
  bool tile_rows = true;
  RowTileOptions row_tiles;
  bool plan_buffers = true;
  bool collapse_loops = true;
  bool mark_loops = true;
};

struct ModulePassStats {
  FuseStats fuse;
  RowTileStats row_tiles;
  PlanStats plan;
  CollapseStats collapse;
  MarkStats mark;
};

// Runs the passes `options` enables on the entry function; the module is verified after each.
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
