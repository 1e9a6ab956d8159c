// `fuse-layernorm`: layer normalization spelled out in primitives (as PyTorch exports
// nn.LayerNorm before opset 17, and as TensorFlow graphs write it) becomes one ONNX
// LayerNormalization (opset >= 17), whose kernel reads each row twice (statistics, then the
// normalized output) where the chain of eight or nine nodes made as many passes over the tensor:
//
//   mean = ReduceMean<axes = A>(x)                 A: the last k axes, keepdims = 1
//   d    = Sub(x, mean)
//   var  = ReduceMean<axes = A>(Mul(d, d))         or Pow(d, 2)
//   n    = Div(d, Sqrt(Add(var, epsilon)))         epsilon: a scalar float constant
//   y    = Add(Mul(n, scale), bias)                Mul and Add operands either way round
//     -> y = LayerNormalization<axis = -k, epsilon>(x, scale, bias)
//
// The bias Add is optional (LayerNormalization without B); the scale Mul is not (the op needs
// Scale). Scale and bias must have at most k dims (they broadcast to the normalized dims as
// LayerNormalization's inputs do) and x's element type; x's rank must be known. Applies where
// every value the rewrite removes has its readers in the pattern and is not a graph output; y
// keeps its name. Subgraphs are rewritten too (a pattern whose nodes are partly in the enclosing
// graph is left alone).
//
// Numerics: LayerNormalization multiplies by 1 / sqrt(var + epsilon) where the chain divides by
// sqrt(var + epsilon), and its sums may be ordered differently: results differ by rounding.
//
// Statistics: layernorm.
#ifndef ANVIL_GRAPH_PASSES_FUSE_LAYERNORM_H_
#define ANVIL_GRAPH_PASSES_FUSE_LAYERNORM_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FuseLayerNormPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-layernorm"; }
  std::string_view description() const override {
    return "Recognizes layer normalization written in primitives as LayerNormalization.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FUSE_LAYERNORM_H_
