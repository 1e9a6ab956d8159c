#include "graph/node_errors.h"

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"

namespace anvil {

absl::Status NodeError(const Node& node, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": ", AsAbsl(what)));
}

absl::StatusOr<int64_t> NormalizeAxis(const Node& node, int64_t axis, int64_t rank,
                                      std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return NodeError(node,
                     absl::StrCat(AsAbsl(what), " ", axis, " is out of range for rank ", rank));
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace anvil
