// FindShapeFn, ListShapeOps, ShapeFnFor and InferNodeShapes (declared in shape_helper.h): the
// registry over the family tables of shape_rules.h, bound to the op table. Apart from
// shape_helper.cc because shape_rules.h includes shape_helper.h.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/op_table.h"
#include "shape/shape_helper.h"
#include "shape/shape_rules.h"

namespace anvil {
namespace {

// Every family's rules, bound to the op table's rows once.
const std::vector<ShapeFn>& ShapeFns() {
  static const auto* fns = new std::vector<ShapeFn>(BindToOps<ShapeRule>(
      {shape_rules::kElementwiseRules, shape_rules::kShapeOpRules, shape_rules::kComputeRules,
       shape_rules::kControlFlowRules, shape_rules::kSequenceRules}));
  return *fns;
}

}  // namespace

ShapeFn FindShapeFn(std::string_view domain, std::string_view op_type, int64_t opset) {
  const OpInfo* op = FindOp(domain, op_type, opset);
  return op == nullptr ? nullptr : ShapeFns()[OpIndex(*op)];
}

std::vector<std::pair<std::string, std::string>> ListShapeOps() {
  std::vector<std::pair<std::string, std::string>> ops;
  for (const OpInfo& op : AllOps()) {
    if (ShapeFns()[OpIndex(op)] != nullptr) ops.emplace_back(op.domain, op.op_type);
  }
  return ops;
}

absl::StatusOr<ShapeFn> ShapeFnFor(const Node& node, int64_t opset) {
  ShapeFn fn = FindShapeFn(node.domain(), node.op_type(), opset);
  if (fn == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": no shape rule for ",
                     node.domain().empty() ? "" : absl::StrCat(node.domain(), "."), node.op_type(),
                     " (opset ", opset, ")"));
  }
  return fn;
}

absl::Status InferNodeShapes(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(ShapeFn fn, ShapeFnFor(ctx.node(), ctx.opset()));
  return fn(ctx);
}

}  // namespace anvil
