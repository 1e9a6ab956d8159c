// The constprop pass: folds everything computable ahead of time into constants held in the
// disposable store (disposable.h), without blowing up memory.
//
//  - A node whose inputs are all constant is evaluated with the kernel registry (kernels/), the
//    same op semantics the runtime runs, into pool buffers. Transpose, Reshape, Squeeze,
//    Unsqueeze, Flatten, Identity, Expand, Slice and Cast become views of their input: no copy.
//  - Shape and Size fold whenever the input's shape is static, even if its data is not constant.
//  - Algebraic identities: x+0, 0+x, x-0, x*1, 1*x, x/1 (the constant a splat that does not
//    change x's shape or type); Where with a constant splat condition; Add/Mul chains with
//    several constants are reassociated so their constants combine: (x + c1) + c2 -> x + (c1+c2).
//  - If with a constant condition is replaced by the taken branch.
//  - Random ops (RandomNormal/Uniform(Like), Multinomial, Bernoulli, Dropout in training) never
//    fold.
//  - Option `max-expansion=N` (default 0 = no limit) skips a fold whose output would be more than
//    N times its inputs' bytes.
// Runs to a fixed point with shape inference, so shapes that become static enable more folding.
// Results become initializers named like the values they replace (graph output names never
// change); constants a fold leaves unused (not graph inputs or outputs) are dropped at once, so
// their memory goes too. Needs nothing; establishes "shapes-inferred" (it runs inference itself).
// Statistics: nodes-folded, views, identities, shapes-folded, branches-inlined, skipped-expansion,
// iterations.
#ifndef ANVIL_CONSTPROP_CONSTPROP_H_
#define ANVIL_CONSTPROP_CONSTPROP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "constprop/disposable.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

struct ConstPropOptions {
  double max_expansion = 0;  // 0: no limit
  bool use_views = true;     // false: every fold materializes (for the memory benchmark)
  // Release unreachable pool buffers inside the pass after folds that materialized at least
  // `collect_bytes` (the between-pass collector in gc.h does the rest); false: never.
  bool collect = true;
  int64_t collect_bytes = 16 << 20;
};

absl::StatusOr<bool> PropagateConstants(Model& model, const ConstPropOptions& options,
                                        DisposablePool& pool, PassContext* ctx = nullptr);

class ConstPropPass : public Pass {
 public:
  std::string_view name() const override { return "constprop"; }
  std::string_view description() const override {
    return "folds constant subgraphs (views where possible), identities and constant branches";
  }
  std::vector<std::string> Establishes() const override { return {"shapes-inferred"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<double> max_expansion_{this, "max-expansion", 0.0,
                                    "skip folds whose output exceeds N x input bytes (0: off)"};
  PassOption<bool> views_{this, "views", true, "fold view ops without copying"};
  PassOption<bool> collect_{this, "collect", true,
                            "release unreachable constants after large folds inside the pass"};
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_CONSTPROP_H_
