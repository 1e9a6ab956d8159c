// Producer-consumer fusion on the entry function of a lowered module, in three steps over its
// top-level statements (each lowered node is a loop nest over a tensor it defines there):
//
//  1. Inline: a producer that is a perfect loop nest storing one expression f(i...) into an
//     intermediate tensor T, whose every other use is an element load, is substituted into its
//     consumers (T[e...] becomes f(e...)) and disappears with T — element-wise chains collapse
//     into one loop, element-wise producers of a reduction move into its inner loop. A producer
//     is duplicated only when it is cheap (no transcendental call, a few loads): an expensive
//     one is inlined only into a single load site that reads each element once.
//  2. Fuse loops: two adjacent nests (only Defines and dim Asserts between) with the same outer
//     loop range merge into one when every tensor one writes and the other reads is accessed at
//     the loop's own index on one axis in both (iteration i of the second reads only what
//     iteration i of the first wrote); then their inner loops, recursively. Reductions over rows
//     and the element-wise work on the same rows (layer norm, softmax) become one nest.
//  3. Contract: an intermediate whose every access sits inside one nest, indexed on an axis by a
//     loop variable of that nest, loses that axis and is defined inside the loop: a row buffer
//     or, with no axis left, a scalar variable. It no longer needs memory of its own.
//
// Tensors with views, parameters, globals, and anything a kernel or gemm intrinsic touches are
// left alone (their extent is opaque). The result is bit-identical to the input when evaluated:
// the same operations on the same values in the same order per element.
#ifndef ANVIL_LOWER_PASSES_FUSE_H_
#define ANVIL_LOWER_PASSES_FUSE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"
#include "lower/passes/tir_pass.h"

namespace anvil::lower {

struct FuseStats {
  int64_t inlined = 0;     // producers substituted into their consumers
  int64_t fused = 0;       // loop pairs merged
  int64_t contracted = 0;  // intermediates shrunk to a row or a scalar
};

tir::Function Fuse(const tir::Function& f, FuseStats* stats = nullptr);

// Pass `fuse`: Fuse() on the module's entry function. Statistics: inlined-producers,
// fused-loops, contracted-intermediates.
class FusePass : public tir::Pass {
 public:
  std::string_view name() const override { return "fuse"; }
  std::string_view description() const override {
    return "producer-consumer fusion of loops (fuse.h)";
  }
  absl::StatusOr<bool> Run(tir::Module& module, PassContext& ctx) override;

  // What this instance's runs did, summed.
  const FuseStats& stats() const { return stats_; }

 private:
  FuseStats stats_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_FUSE_H_
