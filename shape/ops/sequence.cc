// ShapeHelpers of the sequence and optional ops (SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceAt, SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence,
// Optional, OptionalHasElement, OptionalGetElement). A sequence's TensorInfo carries the union of
// its elements (shape/shape_helper.h): what every element shares, so that SequenceAt and
// ConcatFromSequence know their element type and whatever dims all elements agree on.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/op_util.h"
#include "shape/shape_rules.h"
#include "shape/tensor_info.h"

namespace anvil::shape_ops::sequence {
namespace {

// What two elements share: the type (they must agree when both are known), each dim both have
// alike, the rank when both have it.
absl::StatusOr<TensorInfo> Union(const ShapeContext& ctx, const TensorInfo& a, const TensorInfo& b) {
  if (a.type != ElementType::kUndefined && b.type != ElementType::kUndefined && a.type != b.type) {
    return ctx.Error(absl::StrCat("sequence elements must have one element type, not ",
                                  AsAbsl(ElementTypeName(a.type)), " and ",
                                  AsAbsl(ElementTypeName(b.type))));
  }
  TensorInfo out;
  out.type = a.type != ElementType::kUndefined ? a.type : b.type;
  if (a.dims && b.dims && a.dims->size() == b.dims->size()) {
    DimsExpr dims;
    for (size_t k = 0; k < a.dims->size(); ++k) {
      const IndexExpr& x = (*a.dims)[k];
      dims.push_back(x == (*b.dims)[k] && !x.IsQuestionmark() ? x : IndexExpr::Questionmark());
    }
    out.dims = std::move(dims);
  }
  return out;
}

// The sequence input `i`: its element info; an error when the input is known to be no sequence.
absl::StatusOr<TensorInfo> SequenceElement(const ShapeContext& ctx, int i) {
  const TensorInfo& s = ctx.Input(i);
  if (s.kind == TensorInfo::Kind::kSequence) return s.element();
  if (s.is_tensor() && (s.type != ElementType::kUndefined || s.dims)) {
    return ctx.Error(absl::StrCat("input ", i, " must be a sequence, is a tensor"));
  }
  return TensorInfo{};  // nothing known yet
}

TensorInfo Tensor(ElementType type, std::optional<DimsExpr> dims) {
  TensorInfo t;
  t.type = type;
  t.dims = std::move(dims);
  return t;
}

absl::Status SequenceEmptyShape(ShapeContext& ctx) {
  const auto type = static_cast<ElementType>(
      ctx.node().GetInt("dtype", static_cast<int64_t>(ElementType::kFloat)));
  ctx.output(0) = TensorInfo::Sequence(Tensor(type, std::nullopt));
  return absl::OkStatus();
}

absl::Status SequenceConstructShape(ShapeContext& ctx) {
  if (ctx.num_inputs() == 0) return ctx.Error("needs at least one input");
  TensorInfo elem = Tensor(ctx.Input(0).type, ctx.Input(0).dims);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    ANVIL_ASSIGN_OR_RETURN(elem, Union(ctx, elem, ctx.Input(i)));
  }
  ctx.output(0) = TensorInfo::Sequence(std::move(elem));
  return absl::OkStatus();
}

absl::Status SequenceInsertShape(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(TensorInfo elem, SequenceElement(ctx, 0));
  const TensorInfo& tensor = ctx.Input(1);
  // An empty sequence's element has no dims yet: the inserted tensor's are all there is.
  const bool had_dims = elem.dims.has_value() || ctx.Input(0).kind != TensorInfo::Kind::kSequence;
  ANVIL_ASSIGN_OR_RETURN(TensorInfo joined, Union(ctx, elem, tensor));
  if (!had_dims) joined.dims.reset();
  ctx.output(0) = TensorInfo::Sequence(std::move(joined));
  return absl::OkStatus();
}

absl::Status SequenceAtShape(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const TensorInfo elem, SequenceElement(ctx, 0));
  ctx.SetOutput(0, elem.type, elem.dims);
  return absl::OkStatus();
}

absl::Status SameSequenceShape(ShapeContext& ctx) {  // SequenceErase
  ANVIL_ASSIGN_OR_RETURN(TensorInfo elem, SequenceElement(ctx, 0));
  ctx.output(0) = TensorInfo::Sequence(std::move(elem));
  return absl::OkStatus();
}

absl::Status SequenceLengthShape(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(SequenceElement(ctx, 0).status());
  ctx.SetOutput(0, ElementType::kInt64, DimsExpr{});
  return absl::OkStatus();
}

// Pieces of `input` along `axis`: of the split's size when it is one literal (a scalar split, or
// equal sizes), else a questionmark; without a split, pieces of 1, dropped when keepdims = 0.
absl::Status SplitToSequenceShape(ShapeContext& ctx) {
  const TensorInfo& x = ctx.Input(0);
  TensorInfo elem = Tensor(x.type, std::nullopt);
  if (x.dims) {
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                           ctx.NormalizeAxis(ctx.node().GetInt("axis", 0), x.rank(), "axis"));
    DimsExpr dims = *x.dims;
    if (!ctx.HasInput(1)) {
      if (ctx.node().GetInt("keepdims", 1) == 0) {
        dims.erase(dims.begin() + axis);
      } else {
        dims[axis] = IndexExpr(1);
      }
    } else {
      std::optional<std::vector<int64_t>> split = ctx.InputLiteralValues(1);
      bool one_size = split && !split->empty();
      for (size_t k = 1; one_size && k < split->size(); ++k) one_size = (*split)[k] == (*split)[0];
      // A scalar split's last piece may be smaller: only equal sizes say every piece's dim.
      const bool scalar = ctx.InputRank(1) == 0;
      if (one_size && scalar && x.dims && (*x.dims)[axis].IsLiteral() &&
          (*x.dims)[axis].literal() % (*split)[0] != 0) {
        one_size = false;
      }
      dims[axis] = one_size ? IndexExpr((*split)[0]) : IndexExpr::Questionmark();
    }
    elem.dims = std::move(dims);
  }
  ctx.output(0) = TensorInfo::Sequence(std::move(elem));
  return absl::OkStatus();
}

// One tensor: the elements joined along `axis` (its dim a questionmark: the count is data), or
// stacked along a new one with new_axis = 1.
absl::Status ConcatFromSequenceShape(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const TensorInfo elem, SequenceElement(ctx, 0));
  std::optional<DimsExpr> dims;
  if (elem.dims) {
    const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
    const int64_t rank = elem.rank() + (new_axis ? 1 : 0);
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                           ctx.NormalizeAxis(ctx.node().GetInt("axis", 0), rank, "axis"));
    dims = *elem.dims;
    if (new_axis) {
      dims->insert(dims->begin() + axis, IndexExpr::Questionmark());
    } else {
      (*dims)[axis] = IndexExpr::Questionmark();
    }
  }
  ctx.SetOutput(0, elem.type, std::move(dims));
  return absl::OkStatus();
}

// Optional(x) holds x; Optional<type>() is empty (its element type is the attribute's, which
// analysis does not read: the element is unknown).
absl::Status OptionalShape(ShapeContext& ctx) {
  TensorInfo elem = ctx.HasInput(0) ? ctx.Input(0) : TensorInfo{};
  ctx.output(0) = TensorInfo::Optional(std::move(elem));
  return absl::OkStatus();
}

absl::Status OptionalHasElementShape(ShapeContext& ctx) {
  ctx.SetOutput(0, ElementType::kBool, DimsExpr{});
  return absl::OkStatus();
}

// The optional's value; a bare tensor or sequence (a present optional may be given as its value)
// passes as it is.
absl::Status OptionalGetElementShape(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  ctx.output(0) = in.kind == TensorInfo::Kind::kOptional ? in.element() : in;
  return absl::OkStatus();
}

}  // namespace
}  // namespace anvil::shape_ops::sequence

namespace anvil::shape_rules {

namespace sq = shape_ops::sequence;

// Sorted by op_type.
const ShapeRule kSequenceRules[] = {
    {"", "ConcatFromSequence", sq::ConcatFromSequenceShape},
    {"", "Optional", sq::OptionalShape},
    {"", "OptionalGetElement", sq::OptionalGetElementShape},
    {"", "OptionalHasElement", sq::OptionalHasElementShape},
    {"", "SequenceAt", sq::SequenceAtShape},
    {"", "SequenceConstruct", sq::SequenceConstructShape},
    {"", "SequenceEmpty", sq::SequenceEmptyShape},
    {"", "SequenceErase", sq::SameSequenceShape},
    {"", "SequenceInsert", sq::SequenceInsertShape},
    {"", "SequenceLength", sq::SequenceLengthShape},
    {"", "SplitToSequence", sq::SplitToSequenceShape},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::shape_rules
