// Errors about one node of a model, in one form everywhere (shape rules, kernels, passes): a line
// that names the node (Node::Describe(), e.g. "node 'mm' (MatMul)") and says what is wrong.
#ifndef ANVIL_GRAPH_NODE_ERRORS_H_
#define ANVIL_GRAPH_NODE_ERRORS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil {

// InvalidArgument "<node>: <what>".
absl::Status NodeError(const Node& node, std::string_view what);

// `axis` in [-rank, rank) made non-negative; otherwise NodeError "<what> <axis> is out of range
// for rank <rank>".
absl::StatusOr<int64_t> NormalizeAxis(const Node& node, int64_t axis, int64_t rank,
                                      std::string_view what = "axis");

}  // namespace anvil

#endif  // ANVIL_GRAPH_NODE_ERRORS_H_
