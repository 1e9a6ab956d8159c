// `dce`: dead-code elimination.
//
// Erases, in the main graph and every subgraph:
//  - nodes none of whose outputs is used (by any node, including nodes of
//    nested subgraphs that capture it) or is a graph output (of its graph, or
//    of a subgraph returning it directly). Graphs are swept in reverse order,
//    so a whole dead chain goes in one run, and a subgraph is cleaned before
//    the values it captures are judged;
//  - initializers that end up unused and are neither graph inputs (an input
//    with a default value is part of the interface) nor graph outputs;
//  - the value_info entries of everything erased (the IR drops them with the
//    values).
// Graph inputs and outputs are never touched, so the signatures of the model
// and of subgraphs (Loop bodies) stay as they are.
//
// Side effects: ONNX gives operators none, so nodes of the standard domains
// ("", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training") are pure, random
// ones included (an unused random draw is unobservable). Nodes of other
// (custom) domains are pure when they have at least one output: a runtime only
// runs a custom op for its results. A custom-domain node with no output at all
// can only exist for a side effect and is always kept;
// `keep-custom-domains=true` keeps every custom-domain node.
//
// Statistics: nodes-erased, initializers-erased.
#ifndef ANVIL_GRAPH_PASSES_DCE_H_
#define ANVIL_GRAPH_PASSES_DCE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class DcePass : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  std::string_view description() const override {
    return "Removes unused nodes and initializers, subgraphs included.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<bool> keep_custom_domains_{this, "keep-custom-domains", false,
                                        "Keep unused nodes of non-ONNX domains "
                                        "too (they might have side effects)."};
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_DCE_H_
