// Loop marking: the attributes the code generator acts on, set where they are legal.
//
//  - parallel: the outermost loop of each top-level nest of the entry function, when its
//    iterations are independent — every tensor the body stores to is accessed (loads and
//    stores) at the loop's variable on one axis, the same axis for all of them, and every
//    variable the body assigns is defined inside it. Nests that call gemm or a kernel are left
//    sequential (the extent of what an intrinsic writes is not visible).
//  - vectorize(lanes): each innermost loop (no loop inside) with step 1 whose iterations are
//    independent by the same test and whose stores are unit-stride (the last subscript is the
//    loop variable itself); lanes fill 512 bits of the widest element stored. A reduction loop
//    (it assigns an accumulator defined outside) is not marked: vectorizing it reassociates.
// Marks never change results; the evaluator ignores them.
#ifndef ANVIL_LOWER_PASSES_MARK_LOOPS_H_
#define ANVIL_LOWER_PASSES_MARK_LOOPS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

struct MarkStats {
  int64_t parallel = 0;
  int64_t vectorized = 0;
};

tir::Function MarkLoops(const tir::Function& f, MarkStats* stats = nullptr);

// Pass `mark-loops`: MarkLoops() on the module's entry function. Statistics: parallel-loops,
// vectorized-loops.
class MarkLoopsPass : public tir::Pass {
 public:
  std::string_view name() const override { return "mark-loops"; }
  std::string_view description() const override {
    return "mark parallel and vectorizable loops (mark_loops.h)";
  }
  absl::StatusOr<bool> Run(tir::Module& module, PassContext& ctx) override;

  // What this instance's runs did, summed.
  const MarkStats& stats() const { return stats_; }

 private:
  MarkStats stats_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_MARK_LOOPS_H_
