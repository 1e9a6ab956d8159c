#include "shape/einsum_dims.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace anvil {

absl::StatusOr<std::vector<IndexExpr>> EinsumLabelSizes(const einsum::BoundEquation& eq,
                                                        absl::Span<const DimsExpr* const> dims) {
  const int n = eq.num_labels();
  std::vector<std::optional<IndexExpr>> sizes(n);
  std::vector<int> first_column(n, 0);
  std::vector<bool> occurs(n, false);
  for (size_t i = 0; i < eq.operands.size(); ++i) {
    const einsum::BoundEquation::Operand& op = eq.operands[i];
    for (int l : op.labels) occurs[l] = true;
    if (i >= dims.size() || dims[i] == nullptr || !op.rank_known) continue;
    const DimsExpr& d = *dims[i];
    if (d.size() != op.labels.size()) {
      return eq.Error(0, absl::StrCat("operand ", i, " ", DimsToString(d), " does not have the ",
                                      op.labels.size(), " dims its term binds"));
    }
    // Within this operand, a repeated label must have one size (a diagonal).
    std::vector<std::optional<IndexExpr>> own(n);
    std::vector<int> own_column(n, 0);
    for (size_t k = 0; k < d.size(); ++k) {
      const int l = op.labels[k];
      if (own[l].has_value()) {
        const IndexExpr& a = *own[l];
        if (a.IsLiteral() && d[k].IsLiteral() && a.literal() != d[k].literal()) {
          return eq.Error(
              op.columns[k],
              absl::StrCat("label '", einsum::LabelName(l), "' of operand ", i, " has size ",
                           d[k].literal(), " here but ", a.literal(), " at column ", own_column[l],
                           " (a diagonal needs equal dims)"));
        }
        if (!a.IsLiteral()) own[l] = d[k];  // a literal is the more precise fact
        continue;
      }
      own[l] = d[k];
      own_column[l] = op.columns[k];
    }
    for (int l = 0; l < n; ++l) {
      if (!own[l].has_value()) continue;
      if (!sizes[l].has_value()) {
        sizes[l] = own[l];
        first_column[l] = own_column[l];
        continue;
      }
      std::optional<IndexExpr> merged = BroadcastDim(*sizes[l], *own[l]);
      if (!merged) {
        const bool ellipsis = l >= einsum::kFirstEllipsisLabel;
        return eq.Error(
            own_column[l],
            absl::StrCat(ellipsis ? "the dims of '...' do not broadcast: dim " : "label '",
                         ellipsis
                             ? absl::StrCat(l - einsum::kFirstEllipsisLabel, " (from the left)")
                             : einsum::LabelName(l) + "'",
                         " has size ", own[l]->literal(), " in operand ", i, " but ",
                         sizes[l]->literal(), " at column ", first_column[l]));
      }
      sizes[l] = *std::move(merged);
    }
  }
  std::vector<IndexExpr> result;
  result.reserve(n);
  for (int l = 0; l < n; ++l) {
    if (sizes[l].has_value()) {
      result.push_back(*std::move(sizes[l]));
    } else {
      result.push_back(occurs[l] ? IndexExpr::Questionmark() : IndexExpr());
    }
  }
  return result;
}

DimsExpr EinsumOutputDims(const einsum::BoundEquation& eq, absl::Span<const IndexExpr> sizes) {
  DimsExpr out;
  for (int l : eq.output) out.push_back(sizes[l]);
  return out;
}

}  // namespace anvil
