// `widen-float16`: float16 regions of a model computed in float32, with one Cast at each edge,
// as ONNX Runtime's CPU provider does (its InsertCastTransformer). Anvil's kernels compute a
// float16 op in float32 and round its output to float16 (kernels/README.md), so a chain of them
// widened and narrowed every intermediate value: a float16 UNet spent 10% more than its float32
// network, ONNX Runtime 1%. Rounding only at the region's edges, results are nearer the float32
// network's than a per-op float16 run (a few float16 ulps apart from it), as the nchwc pass's
// float16 chains already are.
//
// Rewrites, in the main graph in node order, a node whose op is one the kernels compute in
// float32 (convolutions, products, pooling, Resize, normalizations, Softmax, element-wise
// arithmetic and activations: kWidened in the .cc) and that reads or writes float16 tensors,
// or a data-movement op (Concat, Reshape, Transpose, Slice, Split, Pad, Flatten, Squeeze,
// Unsqueeze, Identity) whose float16 data input a rewritten node produces: each float16 input
// and output becomes float32. An input from outside the region is a float32 copy of a float16
// constant, or a Cast to float32 (one per value); an output read outside the region (another
// node, a subgraph, a graph output; Shape and Size read it as it is) is narrowed by one Cast to
// float16, which takes over its name where it is a graph output.
// Nodes with subgraphs are left alone. A single op is unchanged in value: widened, computed in
// float32 and rounded once, as its kernel does; the pass runs before nchwc, whose chains then
// need no float16 edges of their own inside a region.
//
// Statistics: nodes (rewritten), casts (inserted), constants (widened copies).
#ifndef ANVIL_KERNELS_WIDEN_FLOAT16_H_
#define ANVIL_KERNELS_WIDEN_FLOAT16_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class WidenFloat16Pass : public Pass {
 public:
  std::string_view name() const override { return "widen-float16"; }
  std::string_view description() const override {
    return "Computes float16 regions in float32 with one Cast at each edge (what the kernels do "
           "per op anyway).";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_KERNELS_WIDEN_FLOAT16_H_
