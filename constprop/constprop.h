// The constprop pass: folds everything computable ahead of time into constants held in the
// disposable store (disposable.h), without blowing up memory.
//
//  - A node whose inputs are all constant is evaluated with the kernel registry (kernels/), the
//    same op semantics the runtime runs, into pool buffers. Layout ops compute nothing:
//    Transpose, Identity, Expand, Slice and Split become views of their input (no copy), as do
//    Reshape, Squeeze, Unsqueeze and Flatten wherever the strides allow; large results of the
//    other Reshapes and of Gathers (constant indices of any rank) become remaps (an index map
//    over their input, disposable.h) and large Concats selections from their inputs.
//    Elementwise ops (Cast, Mul/Add/... by a scalar or broadcast constant, unary math) on large
//    constants become lazy ops: nothing is computed until the elements are read, and a later
//    layout op (Slice, Reshape, Gather, Split, ...) makes only the elements it keeps ever be
//    computed. An elementwise fold that is computed writes over its input's buffer when nothing
//    else reads it.
//  - Shape and Size fold whenever the input's shape is static, even if its data is not constant.
//  - Algebraic identities: x+0, 0+x, x-0, x*1, 1*x, x/1 (the constant a splat that does not
//    change x's shape or type); Where with a constant splat condition; Add/Mul chains with
//    several constants are reassociated so their constants combine: (x + c1) + c2 -> x + (c1+c2).
//  - If with a constant condition is replaced by the taken branch.
//  - Random ops (RandomNormal/Uniform(Like), Multinomial, Bernoulli, Dropout in training) never
//    fold.
//  - Option `max-expansion=N` (default 0 = no limit) skips a fold whose output would be more than
//    N times its inputs' bytes; option `max-bytes=N` (default 1 GiB, 0 = no limit) skips a fold
//    whose output would be larger than N bytes and than its inputs, with a remark naming the
//    node, op and dims in the statistics report. An output whose byte size overflows int64 is
//    never folded (the runtime reports it).
// Runs to a fixed point with shape inference, so shapes that become static enable more folding.
// Results become initializers named like the values they replace (graph output names never
// change); constants a fold leaves unused (not graph inputs or outputs) are dropped at once, so
// their memory goes too. Needs nothing; establishes "shapes-inferred" (it runs inference itself).
// Statistics: nodes-folded, views, remaps, selections, lazy-ops, tiled, in-place, identities,
// shapes-folded, branches-inlined, skipped-expansion, skipped-size, iterations.
#ifndef ANVIL_CONSTPROP_CONSTPROP_H_
#define ANVIL_CONSTPROP_CONSTPROP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "constprop/constprop_options.h"
#include "constprop/disposable.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

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
  PassOption<double> max_expansion_{
      this, "max-expansion", 0.0, "skip folds whose output exceeds N x input bytes (0: off)", 0.0};
  PassOption<int64_t> max_bytes_{this, "max-bytes", int64_t{1} << 30,
                                 "skip folds whose output exceeds this many bytes and its "
                                 "inputs' (0: no limit)",
                                 0};
  PassOption<bool> views_{this, "views", true, "fold view ops without copying"};
  PassOption<bool> lazy_{this, "lazy", true,
                         "fold large elementwise ops lazily (computed when read)"};
  PassOption<int64_t> lazy_min_bytes_{this, "lazy-min-bytes", 64 << 10,
                                      "smallest elementwise result folded lazily", 0};
  PassOption<bool> in_place_{this, "in-place", true,
                             "compute elementwise folds over an input nothing else reads"};
  PassOption<bool> collect_{this, "collect", true,
                            "release unreachable constants after large folds inside the pass"};
  PassOption<bool> fold_dequantize_{
      this, "fold-dequantize", false,
      "fold DequantizeLinear of quantized constants into float ones (4x the weight bytes)"};
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_CONSTPROP_H_
