// `fuse-attention`: multi-head scaled dot-product attention spelled out in primitives (as
// PyTorch exports a transformer's self-attention, and as testdata's transformer block writes it)
// becomes one com.microsoft MultiHeadAttention (ONNX Runtime's contrib op, so the fused model
// still runs there):
//
//   qh = Transpose<perm = [0, 2, 1, 3]>(Reshape(q, ...))         q [B, S, H * d] -> [B, H, S, d]
//   kt = Transpose<perm = [0, 2, 3, 1]>(Reshape(k, ...))         k [B, L, H * d] -> [B, H, d, L]
//        (or Transpose<[0, 1, 3, 2]> of Transpose<[0, 2, 1, 3]>: k.transpose(-2, -1))
//   vh = Transpose<perm = [0, 2, 1, 3]>(Reshape(v, ...))         v [B, L, H * dv] -> [B, H, L, dv]
//   p  = Softmax<axis = -1>(Mul(MatMul(qh, kt), c))              or Div by c, or no scaling
//   y  = Reshape(Transpose<perm = [0, 2, 1, 3]>(MatMul(p, vh)), ...)       [B, S, H * dv]
//     -> y = com.microsoft.MultiHeadAttention<num_heads = H, scale = c (1 / c; 1)>(q, k, v)
//
// The scale may also (or instead) be a Mul or Div by a scalar constant of qh, of kt or of the
// per-head k between its two transposes (scaled_dot_product_attention exports sqrt(c) on each
// side): the op's scale is the product of them all.
//
// An Add of a mask or bias m to the scaled scores, Softmax(Add(Mul(MatMul(qh, kt), c), m)) (BERT's
// additive attention mask), becomes the op's attention_bias input (input 5): m must be float with a
// known rank-4 shape [B or 1, H or 1, S or 1, L]. ONNX Runtime wants all S rows there, so a
// [., ., 1, L] mask is expanded to them by inserted nodes,
// Expand(m, Concat([1, 1], Gather(Shape(q), [1]), [1])), which cost a copy of B * S * L values.
//
// The Reshapes are recognized by the shapes shape inference gave their outputs (each splits or
// joins the last axis with the leading two kept), so the pass needs those types: it runs after
// `shape-inference` (the runtime's load pipeline does). q, k and v must be float with known
// rank 3 shapes, one batch dim B for all three, one L for k and v; c a scalar float constant
// (not 0). Applies where every value the rewrite removes has its one reader in the pattern and
// is not a graph output; y keeps its name. Not matched (left as it is): a mask added before the
// scaling, causal masks (Where), masks of other shapes, packed QKV.
// Subgraphs are rewritten too (a pattern partly in the enclosing graph is left alone). The model
// gains the com.microsoft opset import (version 1) when it lacks one; a model importing another
// version is left alone.
//
// Numerics: the kernel scales the products inside the GEMM (alpha), where the graph multiplied
// (or divided) afterwards, and may sum in another order: results differ by rounding.
//
// Statistics: attention.
#ifndef ANVIL_GRAPH_PASSES_FUSE_ATTENTION_H_
#define ANVIL_GRAPH_PASSES_FUSE_ATTENTION_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FuseAttentionPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-attention"; }
  std::string_view description() const override {
    return "Recognizes multi-head attention written in primitives as com.microsoft "
           "MultiHeadAttention.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_ATTENTION_H_
