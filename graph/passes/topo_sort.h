// `topo-sort`: puts the nodes of the main graph and of every subgraph in
// topological order.
//
// Stable: where the existing order is already valid it is kept, and among nodes
// that are ready at the same time the earlier one goes first
// (Graph::TopologicalSort), so sorting a sorted model changes nothing and
// reports no change. A node's dependencies include the values its subgraphs
// capture from the graph being sorted.
//
// A cycle is an error (FailedPrecondition) naming the graph and a node that
// cannot be scheduled, e.g. `graph 'main' has a cycle through node #0 (Relu,
// output 'a')`; the graph is then left in its original order.
//
// Statistics: graphs-reordered.
#ifndef ANVIL_GRAPH_PASSES_TOPO_SORT_H_
#define ANVIL_GRAPH_PASSES_TOPO_SORT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class TopoSortPass : public Pass {
 public:
  std::string_view name() const override { return "topo-sort"; }
  std::string_view description() const override {
    return "Orders nodes topologically (stable), subgraphs included.";
  }
  std::vector<std::string> Establishes() const override { return {"topologically-sorted"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_TOPO_SORT_H_
