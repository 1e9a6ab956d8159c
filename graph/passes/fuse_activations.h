// `fuse-activations`: element-wise activations written as chains, or following a convolution,
// turned into the single ops the runtime computes faster.
//
//  1. HardSigmoid and HardSwish spelled out (as PyTorch exports them before opset 14):
//       Div(Clip(Add(x, 3), 0, 6), 6)          -> HardSigmoid<alpha = 1/6, beta = 0.5>(x)
//       Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6)  -> HardSwish(x)            (opset >= 14)
//       Mul(x, HardSigmoid<1/6, 0.5>(x))        -> HardSwish(x)            (opset >= 14)
//     Add and Mul operands in either order; Clip bounds as inputs or (before opset 11)
//     attributes; Mul by 1/6 in place of Div by 6. Constants are scalar float initializers or
//     Constant nodes.
//  2. GELU spelled out, 0.5 * x * (1 + erf(x / sqrt(2))), as PyTorch exports nn.GELU:
//       Mul(Mul(x, Add(Erf(Div(x, sqrt(2))), 1)), 0.5)  -> com.microsoft Gelu(x)
//     (ONNX Runtime's contrib op; ONNX has Gelu only from opset 20), the three factors in any
//     order and association, Mul by 1/sqrt(2) in place of the Div, Add operands either way.
//     SiLU (Swish) and its scaled form, operands either way round:
//       Mul(x, Sigmoid(x))                -> com.microsoft QuickGelu<alpha = 1>(x)
//       Mul(x, Sigmoid(Mul(x, alpha)))    -> com.microsoft QuickGelu<alpha>(x)
//  3. Conv followed by Relu, LeakyRelu, Sigmoid, Tanh, Clip or HardSigmoid -> one
//     com.microsoft FusedConv (ONNX Runtime's contrib op: the Conv's inputs and attributes plus
//     `activation` and `activation_params`), whose kernel applies the activation - the same
//     kernel the standalone node runs - to the Conv's output in place, while it is in cache.
//     The model gains the com.microsoft opset import (version 1) when it lacks one.
//
// Applies where each value the rewrite removes has its one reader in the pattern and is not a
// graph output; the pattern's last value keeps its name (it may be a graph output). HardSwish,
// HardSigmoid, Gelu and QuickGelu need x's type known to be float, float16 or double, and x and
// the value replaced known, equal ranks (after shape inference; a one-element constant of higher
// rank would broadcast the chain). Numerics: a FusedConv, and a QuickGelu on contiguous float32,
// give the bits of what they replace; a recognized HardSigmoid or HardSwish computes x / 6 + 0.5
// where the chain computed (x + 3) / 6, and Gelu multiplies by 1/sqrt(2) where the chain may
// divide by sqrt(2), so results differ by rounding. Subgraphs are rewritten too (a pattern whose
// nodes are partly in the enclosing graph is left alone). A model that imports com.microsoft at
// another version than 1 gets no com.microsoft op.
//
// Statistics: hardsigmoid, hardswish, gelu, quick-gelu, fused-conv.
#ifndef ANVIL_GRAPH_PASSES_FUSE_ACTIVATIONS_H_
#define ANVIL_GRAPH_PASSES_FUSE_ACTIVATIONS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FuseActivationsPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-activations"; }
  std::string_view description() const override {
    return "Recognizes HardSigmoid/HardSwish/GELU/SiLU chains and fuses Conv + activation into "
           "FusedConv.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_ACTIVATIONS_H_
