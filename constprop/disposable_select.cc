// Selections along one axis (Concat of constants): building them, pushing layout ops into their
// operands, and reading them by runs of positions that come from one operand in order.
#include <algorithm>

#include "base/status_macros.h"
#include "constprop/disposable.h"

namespace anvil {

std::shared_ptr<const DisposableElements> DisposableElements::Select(
    ElementType type, std::vector<int64_t> dims, int64_t axis,
    std::vector<std::shared_ptr<const DisposableElements>> operands, std::vector<Pick> picks) {
  // Keep only the operands picked from (an unpicked one would hold its memory for nothing).
  std::vector<int32_t> renumber(operands.size(), -1);
  std::vector<std::shared_ptr<const DisposableElements>> used;
  for (Pick& pick : picks) {
    int32_t& n = renumber[pick.first];
    if (n < 0) {
      n = static_cast<int32_t>(used.size());
      used.push_back(operands[pick.first]);
    }
    pick.first = n;
  }
  // One operand's positions in order: that operand itself.
  if (used.size() == 1 && used[0]->dims()[axis] == static_cast<int64_t>(picks.size())) {
    bool identity = true;
    for (size_t p = 0; p < picks.size() && identity; ++p) {
      identity = picks[p].second == static_cast<int64_t>(p);
    }
    if (identity) return used[0];
  }
  auto select = std::make_shared<DisposableElements>(nullptr, type, std::move(dims),
                                                     std::vector<int64_t>{}, 0);
  select->kind_ = Kind::kSelect;
  select->axis_ = axis;
  for (const auto& operand : used) select->lazy_op_count_ += operand->lazy_op_count();
  select->operands_ = std::move(used);
  select->picks_ = std::make_shared<const std::vector<Pick>>(std::move(picks));
  return select;
}

std::shared_ptr<const DisposableElements> DisposableElements::SelectTranspose(
    absl::Span<const int64_t> perm) const {
  std::vector<int64_t> dims;
  int64_t axis = 0;
  for (size_t k = 0; k < perm.size(); ++k) {
    dims.push_back(dims_[perm[k]]);
    if (perm[k] == axis_) axis = static_cast<int64_t>(k);
  }
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) operands.push_back(operand->Transpose(perm));
  return Select(type_, std::move(dims), axis, std::move(operands), *picks_);
}

std::shared_ptr<const DisposableElements> DisposableElements::SelectBroadcast(
    absl::Span<const int64_t> target) const {
  const int64_t lead = static_cast<int64_t>(target.size() - dims_.size());
  const int64_t axis = axis_ + lead;
  std::vector<Pick> picks = *picks_;
  if (dims_[axis_] == 1 && target[axis] != 1) picks.assign(target[axis], picks[0]);
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) {
    std::vector<int64_t> dims(target.begin(), target.end());
    dims[axis] = operand->dims()[axis_];
    operands.push_back(operand->BroadcastTo(dims));
  }
  return Select(type_, {target.begin(), target.end()}, axis, std::move(operands), std::move(picks));
}

std::shared_ptr<const DisposableElements> DisposableElements::SelectSlice(
    absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
    absl::Span<const int64_t> dims) const {
  std::vector<Pick> picks;
  for (int64_t k = 0; k < dims[axis_]; ++k)
    picks.push_back((*picks_)[starts[axis_] + k * steps[axis_]]);
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) {
    // Other axes sliced alike; the whole selection axis kept (the picks choose from it).
    std::vector<int64_t> op_starts(starts.begin(), starts.end());
    std::vector<int64_t> op_steps(steps.begin(), steps.end());
    std::vector<int64_t> op_dims(dims.begin(), dims.end());
    op_starts[axis_] = 0;
    op_steps[axis_] = 1;
    op_dims[axis_] = operand->dims()[axis_];
    operands.push_back(operand->Slice(op_starts, op_steps, op_dims));
  }
  return Select(type_, {dims.begin(), dims.end()}, axis_, std::move(operands), std::move(picks));
}

std::shared_ptr<const DisposableElements> DisposableElements::SelectReshape(
    absl::Span<const int64_t> target, bool remap) const {
  // The axis stays one dim, of its size, after dims of the same product: each operand reshapes
  // alike around its own part of the axis.
  int64_t before = 1;
  for (int64_t k = 0; k < axis_; ++k) before *= dims_[k];
  int64_t product = 1;
  for (size_t j = 0; j < target.size(); ++j) {
    if (product == before && target[j] == dims_[axis_]) {
      std::vector<std::shared_ptr<const DisposableElements>> operands;
      for (const auto& operand : operands_) {
        std::vector<int64_t> dims(target.begin(), target.end());
        dims[j] = operand->dims()[axis_];
        operands.push_back(operand->Reshape(dims, remap));
        if (operands.back() == nullptr) return nullptr;
      }
      return Select(type_, {target.begin(), target.end()}, static_cast<int64_t>(j),
                    std::move(operands), *picks_);
    }
    product *= target[j];
  }
  // The reshape mixes the axis with others: a remap of the selection's elements in order.
  if (!remap) return nullptr;
  return Remap(shared(), IndexMap::RowMajor(target));
}

std::shared_ptr<const DisposableElements> DisposableElements::SelectGather(
    int64_t axis, absl::Span<const int64_t> indices) const {
  std::vector<int64_t> dims = dims_;
  dims[axis] = static_cast<int64_t>(indices.size());
  if (axis == axis_) {  // picks of the picks
    std::vector<Pick> picks;
    for (int64_t i : indices) picks.push_back((*picks_)[i]);
    return Select(type_, std::move(dims), axis_, operands_, std::move(picks));
  }
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) operands.push_back(operand->Gather(axis, indices));
  return Select(type_, std::move(dims), axis_, std::move(operands), *picks_);
}

absl::Status DisposableElements::EvaluateSelect(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                                uint8_t* dst, int64_t pitch) const {
  const std::vector<Pick>& picks = *picks_;
  const size_t size = ElementSize(type_);
  const int64_t rank = static_cast<int64_t>(dims_.size());
  if (axis_ == rank - 1) {
    // Columns: runs of consecutive indices of one operand.
    for (int64_t c = c0; c < c1;) {
      const Pick first = picks[c];
      int64_t n = 1;
      while (c + n < c1 && picks[c + n].first == first.first &&
             picks[c + n].second == first.second + n) {
        ++n;
      }
      ANVIL_RETURN_IF_ERROR(operands_[first.first]->Evaluate(r0, r1, first.second, first.second + n,
                                                             dst + (c - c0) * size, pitch));
      c += n;
    }
    return absl::OkStatus();
  }
  // Rows: row r is (outer, position along the axis, inner) with `inner_rows` rows per position.
  int64_t inner_rows = 1;
  for (int64_t k = axis_ + 1; k < rank - 1; ++k) inner_rows *= dims_[k];
  auto operand_row = [&](int64_t r, int32_t* operand) {
    const int64_t q = r / inner_rows, inner = r % inner_rows;
    const int64_t outer = q / dims_[axis_];
    const Pick& pick = picks[q % dims_[axis_]];
    *operand = pick.first;
    return (outer * operands_[pick.first]->dims()[axis_] + pick.second) * inner_rows + inner;
  };
  for (int64_t r = r0; r < r1;) {
    int32_t operand;
    const int64_t first = operand_row(r, &operand);
    int64_t n = 1;
    int32_t next_operand;
    while (r + n < r1 && operand_row(r + n, &next_operand) == first + n &&
           next_operand == operand) {
      ++n;
    }
    ANVIL_RETURN_IF_ERROR(operands_[operand]->Evaluate(first, first + n, c0, c1,
                                                       dst + (r - r0) * pitch * size, pitch));
    r += n;
  }
  return absl::OkStatus();
}

}  // namespace anvil
