// ShapeHelpers of the sequence and optional ops (SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceAt, SequenceErase, SequenceLength, SplitToSequence, ConcatFromSequence,
// Optional, OptionalHasElement, OptionalGetElement). A sequence's TensorInfo carries the union of
// its elements (shape/shape_helper.h): what every element shares, so that SequenceAt and
// ConcatFromSequence know their element type and whatever dims all elements agree on.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/elementwise.h"
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

// A sequence of exactly `items` (values dropped): their union as the element, the items kept.
absl::StatusOr<TensorInfo> KnownSequence(const ShapeContext& ctx, ElementType type,
                                         std::vector<TensorInfo> items) {
  TensorInfo elem;
  elem.type = type;
  for (size_t k = 0; k < items.size(); ++k) {
    items[k].values.reset();
    if (k == 0) {
      elem.type = items[0].type != ElementType::kUndefined ? items[0].type : type;
      elem.dims = items[0].dims;
    } else {
      ANVIL_ASSIGN_OR_RETURN(elem, Union(ctx, elem, items[k]));
    }
  }
  TensorInfo seq = TensorInfo::Sequence(std::move(elem));
  seq.elements = std::make_shared<const std::vector<TensorInfo>>(std::move(items));
  return seq;
}

// The known elements of sequence input `i`, or nullptr.
const std::vector<TensorInfo>* KnownElements(const ShapeContext& ctx, int i) {
  const TensorInfo& s = ctx.Input(i);
  return s.kind == TensorInfo::Kind::kSequence ? s.elements.get() : nullptr;
}

// A literal position input `i` in [-n, n) (or [-n, n] with `end_ok`), made non-negative; nullopt
// when not literal. An out-of-range literal is an error.
absl::StatusOr<std::optional<int64_t>> LiteralPosition(const ShapeContext& ctx, int i, int64_t n,
                                                       bool end_ok) {
  std::optional<std::vector<int64_t>> values = ctx.InputLiteralValues(i);
  if (!values || values->size() != 1) return std::optional<int64_t>();
  const int64_t p = (*values)[0];
  if (p < -n || p > (end_ok ? n : n - 1)) {
    return ctx.Error(absl::StrCat("position ", p, " is out of range for a sequence of ", n,
                                  " tensors"));
  }
  return std::optional<int64_t>(p < 0 ? p + n : p);
}

TensorInfo Tensor(ElementType type, std::optional<DimsExpr> dims) {
  TensorInfo t;
  t.type = type;
  t.dims = std::move(dims);
  return t;
}

absl::Status SequenceEmptyShape(ShapeContext& ctx) {
  const int64_t dtype = ctx.node().GetInt("dtype", static_cast<int64_t>(ElementType::kFloat));
  const std::optional<ElementType> type = shape_ops::elementwise::ElementTypeFromAttr(dtype);
  if (!type) return ctx.Error(absl::StrCat("dtype ", dtype, " is not an ONNX data type"));
  ANVIL_ASSIGN_OR_RETURN(ctx.output(0), KnownSequence(ctx, *type, {}));
  return absl::OkStatus();
}

absl::Status SequenceConstructShape(ShapeContext& ctx) {
  if (ctx.num_inputs() == 0) return ctx.Error("needs at least one input");
  std::vector<TensorInfo> items;
  for (int i = 0; i < ctx.num_inputs(); ++i) items.push_back(Tensor(ctx.Input(i).type, ctx.Input(i).dims));
  ANVIL_ASSIGN_OR_RETURN(ctx.output(0), KnownSequence(ctx, ctx.Input(0).type, std::move(items)));
  return absl::OkStatus();
}

absl::Status SequenceInsertShape(ShapeContext& ctx) {
  if (const std::vector<TensorInfo>* known = KnownElements(ctx, 0)) {
    const int64_t n = static_cast<int64_t>(known->size());
    std::optional<int64_t> at = n;
    if (ctx.HasInput(2)) {
      ANVIL_ASSIGN_OR_RETURN(at, LiteralPosition(ctx, 2, n, /*end_ok=*/true));
    }
    if (at) {
      std::vector<TensorInfo> items = *known;
      items.insert(items.begin() + *at, Tensor(ctx.Input(1).type, ctx.Input(1).dims));
      ANVIL_ASSIGN_OR_RETURN(ctx.output(0),
                             KnownSequence(ctx, ctx.Input(0).element().type, std::move(items)));
      return absl::OkStatus();
    }
  }
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
  if (const std::vector<TensorInfo>* known = KnownElements(ctx, 0)) {
    ANVIL_ASSIGN_OR_RETURN(
        const std::optional<int64_t> at,
        LiteralPosition(ctx, 1, static_cast<int64_t>(known->size()), /*end_ok=*/false));
    if (at) {
      ctx.SetOutput(0, (*known)[*at].type, (*known)[*at].dims);
      return absl::OkStatus();
    }
  }
  ANVIL_ASSIGN_OR_RETURN(const TensorInfo elem, SequenceElement(ctx, 0));
  ctx.SetOutput(0, elem.type, elem.dims);
  return absl::OkStatus();
}

absl::Status SameSequenceShape(ShapeContext& ctx) {  // SequenceErase
  if (const std::vector<TensorInfo>* known = KnownElements(ctx, 0)) {
    const int64_t n = static_cast<int64_t>(known->size());
    if (n == 0) return ctx.Error("cannot erase from an empty sequence");
    std::optional<int64_t> at = n - 1;
    if (ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(at, LiteralPosition(ctx, 1, n, /*end_ok=*/false));
    }
    if (at) {
      std::vector<TensorInfo> items = *known;
      items.erase(items.begin() + *at);
      ANVIL_ASSIGN_OR_RETURN(ctx.output(0),
                             KnownSequence(ctx, ctx.Input(0).element().type, std::move(items)));
      return absl::OkStatus();
    }
  }
  ANVIL_ASSIGN_OR_RETURN(TensorInfo elem, SequenceElement(ctx, 0));
  ctx.output(0) = TensorInfo::Sequence(std::move(elem));
  return absl::OkStatus();
}

absl::Status SequenceLengthShape(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(SequenceElement(ctx, 0).status());
  ctx.SetOutput(0, ElementType::kInt64, DimsExpr{});
  if (const std::vector<TensorInfo>* known = KnownElements(ctx, 0)) {
    ctx.output(0).values = IndexExprList{IndexExpr(static_cast<int64_t>(known->size()))};
  }
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
    elem.dims = dims;
    // The pieces themselves when the axis length and the split are literals: the length known.
    const IndexExpr& length = (*x.dims)[axis];
    std::optional<std::vector<int64_t>> sizes;
    if (length.IsLiteral()) {
      if (!ctx.HasInput(1)) {
        sizes.emplace(length.literal(), 1);
      } else if (std::optional<std::vector<int64_t>> split = ctx.InputLiteralValues(1)) {
        if (ctx.InputRank(1) == 0 && split->size() == 1 && (*split)[0] > 0) {
          sizes.emplace();
          for (int64_t at = 0; at < length.literal(); at += (*split)[0]) {
            sizes->push_back(std::min((*split)[0], length.literal() - at));
          }
        } else if (ctx.InputRank(1) == 1) {
          sizes = *split;
        }
      }
    }
    if (sizes && sizes->size() <= static_cast<size_t>(kMaxTrackedValues)) {
      std::vector<TensorInfo> items;
      for (int64_t size : *sizes) {
        DimsExpr piece = *x.dims;
        if (!ctx.HasInput(1) && ctx.node().GetInt("keepdims", 1) == 0) {
          piece.erase(piece.begin() + axis);
        } else {
          piece[axis] = IndexExpr(size);
        }
        items.push_back(Tensor(x.type, std::move(piece)));
      }
      ANVIL_ASSIGN_OR_RETURN(ctx.output(0), KnownSequence(ctx, x.type, std::move(items)));
      return absl::OkStatus();
    }
  }
  ctx.output(0) = TensorInfo::Sequence(std::move(elem));
  return absl::OkStatus();
}

// One tensor: the elements joined along `axis` (the sum of their dims there when every element
// is known, else a questionmark: the count is data), or stacked along a new one with
// new_axis = 1.
absl::Status ConcatFromSequenceShape(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const TensorInfo elem, SequenceElement(ctx, 0));
  std::optional<DimsExpr> dims;
  if (elem.dims) {
    const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
    const int64_t rank = elem.rank() + (new_axis ? 1 : 0);
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                           ctx.NormalizeAxis(ctx.node().GetInt("axis", 0), rank, "axis"));
    dims = *elem.dims;
    const std::vector<TensorInfo>* known = KnownElements(ctx, 0);
    bool ranks_known = known != nullptr && !known->empty();
    for (size_t k = 0; ranks_known && k < known->size(); ++k) {
      ranks_known = (*known)[k].rank() == elem.rank();
    }
    if (new_axis) {
      dims->insert(dims->begin() + axis,
                   ranks_known ? IndexExpr(static_cast<int64_t>(known->size()))
                               : IndexExpr::Questionmark());
    } else if (ranks_known) {
      IndexExpr total(0);
      for (const TensorInfo& e : *known) total = total + (*e.dims)[axis];
      (*dims)[axis] = total;
    } else {
      (*dims)[axis] = IndexExpr::Questionmark();
    }
  }
  ctx.SetOutput(0, elem.type, std::move(dims));
  return absl::OkStatus();
}

// Optional(x) holds x; Optional<type>() is empty (its element type is the attribute's, which
// analysis does not read: the element is unknown).
// Optional(x), or an empty optional whose element has the `type` attribute's type (the
// element's type, as the spec says; an optional type there is taken as the optional's own).
absl::Status OptionalShape(ShapeContext& ctx) {
  TensorInfo elem;
  if (ctx.HasInput(0)) {
    elem = ctx.Input(0);
  } else if (const Attribute* a = ctx.node().FindAttribute("type");
             a != nullptr && a->types.size() == 1) {
    const Type& type = a->types[0];
    elem = InfoFromType(type.is_optional() ? type.elem() : type);
  }
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
