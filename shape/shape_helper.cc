#include "shape/shape_helper.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "graph/node_errors.h"

namespace anvil {

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

DimsExpr ShapeContext::DataDependentDims(int64_t rank, const IndexExpr& lo,
                                         const IndexExpr& hi) const {
  DimsExpr dims;
  dims.reserve(rank);
  for (int64_t k = 0; k < rank; ++k) dims.push_back(DataDependentDim(absl::StrCat("d", k), lo, hi));
  return dims;
}

absl::Status ShapeContext::Error(std::string_view what) const { return NodeError(node_, what); }

absl::StatusOr<int64_t> ShapeContext::NormalizeAxis(int64_t axis, int64_t rank,
                                                    std::string_view what) const {
  return ::anvil::NormalizeAxis(node_, axis, rank, what);
}

}  // namespace anvil
