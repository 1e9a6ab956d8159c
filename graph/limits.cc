#include "graph/limits.h"

#include "absl/strings/str_cat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/ir.h"

namespace anvil {
namespace {

// `graph` sits `depth` levels below the main graph.
absl::Status CheckDepth(const Graph& graph, int depth) {
  for (const Node* node : graph.nodes()) {
    const std::vector<Graph*> subgraphs = node->Subgraphs();
    if (subgraphs.empty()) continue;
    if (depth + 1 > kMaxSubgraphDepth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "graph ", Quoted(graph.name()), ": ", node->Describe(), ": ", SubgraphDepthMessage()));
    }
    for (const Graph* sub : subgraphs) {
      ANVIL_RETURN_IF_ERROR(CheckDepth(*sub, depth + 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string SubgraphDepthMessage() {
  return absl::StrCat("subgraphs nested deeper than ", kMaxSubgraphDepth, " levels");
}

absl::Status CheckSubgraphDepth(const Graph& graph) { return CheckDepth(graph, 0); }

}  // namespace anvil
