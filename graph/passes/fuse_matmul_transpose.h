// `fuse-matmul-transpose`: a product by a transposed constant weight reads the weight as it is
// stored, with the consumer's own transposed-operand flag, instead of through a Transpose that
// constprop would fold into a second, transposed copy (a tied LM head: logits =
// MatMul(h, Transpose(embedding)) while Gather reads the embedding for the inputs).
//
//   MatMul(A, Transpose(W))  ->  com.microsoft FusedMatMul(A, W, transB = 1)
//   Gemm(A, Transpose(W))    ->  Gemm(A, W) with transB flipped
//
// Applies where W is a float initializer no run can override (match::RunConstant), the
// Transpose (default domain, in the same graph) swaps exactly the last two dims of W (rank 2:
// any perm that swaps them, or none), and for MatMul, A has a known rank of at least 2 and is not
// the Transpose's output itself (FusedMatMul is ONNX Runtime's op for this rewrite; its CPU
// kernel is float only). The Transpose stays while another node reads it; otherwise it is
// erased. FusedMatMul keeps MatMul's node name and output. Subgraphs are rewritten too.
//
// With `shared-only` (the default pipeline's setting), only where another node also reads W:
// there folding the Transpose would copy the weight, elsewhere constprop folds it into a
// standard MatMul at no cost, and the output keeps to ONNX ops. The runtime's load pipeline runs
// the pass without it: it folds no constants, so a Transpose left there would run every time.
//
// Statistics: matmul, gemm.
#ifndef ANVIL_GRAPH_PASSES_FUSE_MATMUL_TRANSPOSE_H_
#define ANVIL_GRAPH_PASSES_FUSE_MATMUL_TRANSPOSE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FuseMatMulTransposePass : public Pass {
 public:
  std::string_view name() const override { return "fuse-matmul-transpose"; }
  std::string_view description() const override {
    return "Reads a transposed constant weight of MatMul/Gemm in place (FusedMatMul transB, "
           "Gemm transB) instead of through a Transpose.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<bool> shared_only_{
      this, "shared-only", false,
      "Only where another node also reads the weight (where folding the Transpose copies it)."};
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_MATMUL_TRANSPOSE_H_
