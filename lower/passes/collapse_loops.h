// Loop collapsing: a perfect pair of loops over the last two axes of every tensor they touch
// becomes one loop, so that the loop the code generator vectorizes runs over a whole plane (or
// more) instead of one row of it.
//
//   for a in (0, A, 1) { for b in (0, B, 1) { body } }  ->  for ab in (0, A * B, 1) { body' }
//
// Legal when the inner loop holds no loop, the body defines no tensor and hands no tensor to an
// intrinsic, and each of its loads and stores either subscripts its tensor's last two axes with
// exactly a and b over dims A and B (a dense plane) or mentions neither (a value broadcast over
// the plane: a bias or a per-channel scale); a and b appear nowhere else. Such a tensor is then
// read through a view (a Define with `view_of`) whose last two dims are merged, subscripted
// [..., ab]. The iteration order is the same, so every result, reductions included, keeps its
// bits. Pairs collapse from the inside out: an element-wise nest over [N, C, H, W] becomes one
// loop over N * C * H * W, and the SE block's x * s[n, c] one loop over N * C and one over H * W.
// Only the entry function's top-level nests are rewritten, before mark-loops.
#ifndef ANVIL_LOWER_PASSES_COLLAPSE_LOOPS_H_
#define ANVIL_LOWER_PASSES_COLLAPSE_LOOPS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

struct CollapseStats {
  int64_t collapsed = 0;  // pairs of loops made one
  int64_t views = 0;      // tensor views defined for them
};

tir::Function CollapseLoops(const tir::Function& f, CollapseStats* stats = nullptr);

// Pass `collapse-loops`: CollapseLoops() on the module's entry function. Statistics:
// collapsed-loops, views.
class CollapseLoopsPass : public tir::Pass {
 public:
  std::string_view name() const override { return "collapse-loops"; }
  std::string_view description() const override {
    return "make loop pairs over tensors' last two axes one loop (collapse_loops.h)";
  }
  absl::StatusOr<bool> Run(tir::Module& module, PassContext& ctx) override;

  // What this instance's runs did, summed.
  const CollapseStats& stats() const { return stats_; }

 private:
  CollapseStats stats_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_COLLAPSE_LOOPS_H_
