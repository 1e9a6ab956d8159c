#include "graph/passes/topo_sort.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/excerpt.h"
#include "graph/pass_registry.h"

namespace anvil {

absl::StatusOr<bool> TopoSortPass::Run(Model& model, PassContext& ctx) {
  absl::Status status;
  int64_t reordered = 0;
  // ForEachGraph visits a graph before its subgraphs: sorting one graph only
  // moves its own nodes, so the walk into the subgraphs stays valid.
  model.graph().ForEachGraph([&](Graph& graph) {
    if (!status.ok()) return;
    const std::vector<Node*> before = graph.NodesSnapshot();
    std::string cycle_node;
    if (!graph.TopologicalSort(&cycle_node)) {
      status = absl::FailedPreconditionError(
          absl::StrCat("graph ", Quoted(graph.name()), " has a cycle through ", cycle_node));
      return;
    }
    if (graph.NodesSnapshot() != before) ++reordered;
  });
  if (!status.ok()) return status;
  ctx.AddStatistic("graphs-reordered", reordered);
  return reordered > 0;
}

ANVIL_REGISTER_PASS(TopoSortPass);

}  // namespace anvil
