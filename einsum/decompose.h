// The einsum-decompose pass: every Einsum node (in every graph, subgraphs included) becomes
// standard ops — Transpose, Reshape, MatMul, Mul, ReduceSum, and a strided Slice for diagonals —
// that every ONNX runtime and Anvil's own kernels run fast. The equation is parsed once
// (equation.h), the contraction order chosen by cost (planner.h), the operand layouts by a
// search that avoids Transposes (program.h), and the program written into the graph
// (emit_graph.h) with the semantics of the Einsum, for every size of its dynamic dims.
//
// Needs each operand's rank (run shape-inference first; dims may be symbolic). An Einsum stays
// as it is, with a remark in the statistics report, when an operand's rank is unknown, when its
// element type is one that an op of the program does not accept at the model's opset (MatMul has
// no int8 or uint16, Mul no int8 before opset 14 ...). An invalid equation is an error naming the
// node. Symbolic dims are assumed non-zero (as IndexExpr's broadcasting assumes); a literal 0
// size makes the result a ConstantOfShape of zeros.
//
// Options: strategy (auto|optimal|greedy|left-to-right), size-hint (the value a symbolic dim
// takes when costs are compared; the result is correct for every size), optimal-limit (auto:
// exhaustive order search up to this many operands), beam-width (layouts kept per step).
// Statistics: einsums-rewritten, einsums-kept, and nodes-<op> per emitted op type.
#ifndef ANVIL_EINSUM_DECOMPOSE_H_
#define ANVIL_EINSUM_DECOMPOSE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class EinsumDecomposePass : public Pass {
 public:
  std::string_view name() const override { return "einsum-decompose"; }
  std::string_view description() const override {
    return "rewrites every Einsum into Transpose/Reshape/MatMul/Mul/ReduceSum, cost-ordered";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<std::string> strategy_{this, "strategy", "auto",
                                    "contraction order: auto, optimal, greedy or left-to-right"};
  PassOption<int64_t> size_hint_{this, "size-hint", 64,
                                 "value of a symbolic dim when comparing costs", 1};
  PassOption<int64_t> optimal_limit_{this, "optimal-limit", 6,
                                     "auto: exhaustive order search up to this many operands", 1};
  PassOption<int64_t> beam_width_{this, "beam-width", 4, "operand layouts kept per step", 1};
};

}  // namespace anvil

#endif  // ANVIL_EINSUM_DECOMPOSE_H_
