// The passes on the Tensor IR that lowering runs after building a module, in order:
//   fuse          producer-consumer fusion (fuse.h)
//   plan-buffers  the workspace plan of the surviving intermediates (plan_buffers.h)
//   mark-loops    parallel and vectorize marks (mark_loops.h)
// each followed by the simplifier; and the counts the lower-to-tir statistics report.
#ifndef ANVIL_LOWER_PASSES_PASSES_H_
#define ANVIL_LOWER_PASSES_PASSES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"

namespace anvil::lower {

struct ModulePassOptions {
  bool fuse = true;
  bool plan_buffers = true;
  bool mark_loops = true;
};

absl::StatusOr<tir::Module> RunModulePasses(tir::Module module, const ModulePassOptions& options);

// Loop structure of a module's entry function.
struct ModuleCounts {
  int64_t nests = 0;                 // top-level loops (a loop nest each)
  int64_t loops = 0;                 // every loop
  int64_t stored_intermediates = 0;  // tensors defined in the body and stored to (not views,
                                     // not kernel-allocated)
  int64_t kernel_calls = 0;
};
ModuleCounts CountLoops(const tir::Module& module);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_PASSES_H_
