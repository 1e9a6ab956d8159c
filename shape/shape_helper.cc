#include "shape/shape_helper.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/node_errors.h"
#include "graph/op_table.h"
#include "shape/shape_rules.h"

namespace anvil {
namespace {

// Every family's rules, bound to the op table's rows once.
const std::vector<ShapeFn>& ShapeFns() {
  static const auto* fns = new std::vector<ShapeFn>(
      BindToOps<ShapeRule>({shape_rules::kElementwiseRules, shape_rules::kShapeOpRules,
                            shape_rules::kComputeRules, shape_rules::kControlFlowRules,
                            shape_rules::kSequenceRules}));
  return *fns;
}

}  // namespace

ShapeContext::ShapeContext(const Node& node, int64_t opset, const IndexExprBuilder& builder)
    : node_(node),
      opset_(opset),
      builder_(builder),
      outputs_(node.num_outputs()),
      inputs_(node.num_inputs()) {}

const TensorInfo& ShapeContext::ReadInput(int i) const {
  static const TensorInfo* const kAbsent = new TensorInfo();
  if (!HasInput(i)) return *kAbsent;
  std::optional<TensorInfo>& cached = inputs_[i];
  if (!cached) builder_.FillInput(i, &cached.emplace());
  return *cached;
}

std::optional<std::vector<int64_t>> ShapeContext::InputLiteralValues(int i) const {
  const std::optional<IndexExprList>& values = InputValues(i);
  if (!values) return std::nullopt;
  std::vector<int64_t> result;
  result.reserve(values->size());
  for (const IndexExpr& v : *values) {
    if (!v.IsLiteral()) return std::nullopt;
    result.push_back(v.literal());
  }
  return result;
}

void ShapeContext::SetOutput(int i, ElementType type, std::optional<DimsExpr> dims) {
  if (i >= num_outputs()) return;  // optional output not requested
  outputs_[i].type = type;
  outputs_[i].dims = std::move(dims);
}

absl::Status ShapeContext::Error(std::string_view what) const { return NodeError(node_, what); }

absl::StatusOr<int64_t> ShapeContext::NormalizeAxis(int64_t axis, int64_t rank,
                                                    std::string_view what) const {
  return ::anvil::NormalizeAxis(node_, axis, rank, what);
}

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
