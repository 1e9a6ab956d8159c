// Compute ops, part 3: reductions (the ten Reduce* ops, ArgMax, ArgMin), TopK, the
// data-dependent index ops (NonZero, Unique, NonMaxSuppression), Det and the loss ops.
//
// Data-dependent counts are questionmarks, except where a constant input makes them cheap to
// compute exactly (NonZero, Unique of an initializer; NonMaxSuppression selecting nothing).
#include <cmath>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/op_table.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"

namespace anvil::shape_ops::compute {
namespace {

// Constants with more elements are not scanned (their counts stay questionmarks): the scan is a
// slow per-element read meant for small tensors.
constexpr int64_t kMaxScannedElements = int64_t{1} << 18;

bool IsFloatType(ElementType t) {
  return t == ElementType::kFloat || t == ElementType::kDouble || t == ElementType::kFloat16 ||
         t == ElementType::kBfloat16;
}

// Elements of these types can be read by Elements::GetDouble / GetInt64 exactly enough to
// compare them (complex values would lose their imaginary part).
bool IsScannableType(ElementType t) {
  return t != ElementType::kUndefined && t != ElementType::kComplex64 &&
         t != ElementType::kComplex128;
}

// A key that compares two elements as numpy.unique does: by value, -0.0 == 0.0, NaNs equal.
std::string ElementKey(const Elements& e, int64_t i) {
  const ElementType t = e.element_type();
  if (t == ElementType::kString) return absl::StrCat("s", e.strings()[i]);
  if (!IsFloatType(t)) return absl::StrCat("i", e.GetInt64(i));
  double v = e.GetDouble(i);
  if (std::isnan(v)) return "nan";
  if (v == 0) v = 0;  // folds -0.0
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return absl::StrCat("f", bits);
}

}  // namespace

// The ten Reduce* ops. `axes` is an attribute, or input 1 (ReduceSum from opset 13, the others
// from 18) with `noop_with_empty_axes` saying whether no axes means "reduce nothing" rather than
// "reduce everything".
absl::Status InferReduce(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const ElementType type = ctx.InputType(0);
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const bool keepdims = node.GetInt("keepdims", 1) != 0;
  const int axes_input = ReduceAxesInput(node.op_type(), ctx.opset());
  const bool noop_when_empty = axes_input >= 0 && node.GetInt("noop_with_empty_axes", 0) != 0;
  IntList axes = ReadIntList(ctx, "axes", axes_input);
  if (axes.present && !axes.known) {
    // An axes input of shape [0] is known to be empty even without its (absent) values.
    const std::optional<DimsExpr>& axes_dims = ctx.InputDims(axes_input);
    axes.known = axes_dims && axes_dims->size() == 1 && IsLiteralValue((*axes_dims)[0], 0);
  }

  if (axes.present && !axes.known) {
    // Which dims go is unknown; only the rank may be known.
    if (!x) {
      ctx.SetOutput(0, type, std::nullopt);
    } else if (keepdims) {
      // Each dim stays or becomes 1: a literal 1 is 1 either way.
      DimsExpr out;
      for (size_t k = 0; k < x->size(); ++k) {
        const IndexExpr& d = (*x)[k];
        out.push_back(IsLiteralValue(d, 1)
                          ? d
                          : ctx.DataDependentDim(absl::StrCat("d", k), Min(d, 1), Max(d, 1)));
      }
      ctx.SetOutput(0, type, std::move(out));
    } else {
      // The number of axes fixes the rank, unless it is 0 (then "all" or "none").
      std::optional<DimsExpr> axes_dims = ctx.InputDims(axes_input);
      if (axes_dims && axes_dims->size() == 1 && (*axes_dims)[0].IsLiteral() &&
          (*axes_dims)[0].literal() > 0) {
        const int64_t n = (*axes_dims)[0].literal();
        if (n > static_cast<int64_t>(x->size())) {
          return ctx.Error(absl::StrCat(n, " axes for input ", DimsToString(*x)));
        }
        // The dims that stay, each one of the input's.
        const IndexExpr most = x->empty() ? IndexExpr(0) : Max(absl::MakeConstSpan(*x));
        ctx.SetOutput(0, type, ctx.DataDependentDims(static_cast<int64_t>(x->size()) - n, 0, most));
      } else {
        ctx.SetOutput(0, type, std::nullopt);
      }
    }
    return absl::OkStatus();
  }

  if (axes.values.empty()) {
    if (ShapeFacts* facts = ctx.facts(); facts != nullptr && x && !noop_when_empty) {
      for (int64_t k = 0; k < static_cast<int64_t>(x->size()); ++k) facts->axes.push_back(k);
    }
    if (noop_when_empty) {
      ctx.SetOutput(0, type, x);
    } else if (!keepdims) {
      ctx.SetOutput(0, type, DimsExpr{});
    } else {
      ctx.SetOutput(0, type,
                    x ? std::optional<DimsExpr>(DimsExpr(x->size(), IndexExpr(1))) : std::nullopt);
    }
    return absl::OkStatus();
  }

  if (!x) {
    ctx.SetOutput(0, type, std::nullopt);
    return absl::OkStatus();
  }
  const int64_t rank = static_cast<int64_t>(x->size());
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes.values) {
    ANVIL_ASSIGN_OR_RETURN(int64_t a, ctx.NormalizeAxis(axis, rank, "axes value"));
    reduced[a] = true;  // a repeated axis reduces once
  }
  DimsExpr out;
  for (int64_t k = 0; k < rank; ++k) {
    if (!reduced[k]) {
      out.push_back((*x)[k]);
    } else if (keepdims) {
      out.push_back(1);
    }
    if (reduced[k]) {
      if (ShapeFacts* facts = ctx.facts()) facts->axes.push_back(k);
    }
  }
  ctx.SetOutput(0, type, std::move(out));
  return absl::OkStatus();
}

// ArgMax, ArgMin: int64 indices, the `axis` dim reduced (kept as 1 with keepdims).
absl::Status InferArgMinMax(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  if (!x) {
    ctx.SetOutput(0, ElementType::kInt64, std::nullopt);
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(int64_t axis, ctx.NormalizeAxis(node.GetInt("axis", 0),
                                                         static_cast<int64_t>(x->size()), "axis"));
  if (ShapeFacts* facts = ctx.facts()) facts->axes = {axis};
  DimsExpr out = *x;
  if (node.GetInt("keepdims", 1) != 0) {
    out[axis] = 1;
  } else {
    out.erase(out.begin() + axis);
  }
  ctx.SetOutput(0, ElementType::kInt64, std::move(out));
  return absl::OkStatus();
}

// TopK: Values and int64 Indices with the `axis` dim replaced by k (attribute before opset 10,
// a one-element input after; an unknown K is a data-dependent dim in [0, the axis dim]).
absl::Status InferTopK(ShapeContext& ctx) {
  const Node& node = ctx.node();
  IndexExpr k;
  if (ctx.opset() < 10) {
    if (node.FindAttribute("k") == nullptr) return ctx.Error("attribute 'k' is required");
    k = node.GetInt("k", 0);
  } else {
    ANVIL_ASSIGN_OR_RETURN(k, ScalarInputValue(ctx, 1, "K"));
  }
  if (k.IsLiteral() && k.literal() < 0) {
    return ctx.Error(absl::StrCat("k ", k.literal(), " is negative"));
  }
  std::optional<DimsExpr> out = ctx.InputDims(0);
  if (out) {
    ANVIL_ASSIGN_OR_RETURN(
        int64_t axis,
        ctx.NormalizeAxis(node.GetInt("axis", -1), static_cast<int64_t>(out->size()), "axis"));
    IndexExpr& d = (*out)[axis];
    if (k.IsLiteral() && d.IsLiteral() && k.literal() > d.literal()) {
      return ctx.Error(absl::StrCat("k ", k.literal(), " exceeds dim ", axis, " of ",
                                    DimsToString(*ctx.InputDims(0))));
    }
    d = k.IsQuestionmark() ? ctx.DataDependentDim("k", 0, d) : k;
  }
  ctx.SetOutput(0, ctx.InputType(0), out);
  ctx.SetOutput(1, ElementType::kInt64, std::move(out));
  return absl::OkStatus();
}

// NonZero: int64 [rank, count]; the count is data-dependent, in [0, the input's element count],
// unless the input is a known constant or has known values.
absl::Status InferNonZero(ShapeContext& ctx) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  IndexExpr rank = x ? IndexExpr(static_cast<int64_t>(x->size())) : IndexExpr::Questionmark();
  IndexExpr count;
  const std::shared_ptr<const Elements> c = ctx.InputConstant(0);
  if (c != nullptr && IsScannableType(c->element_type()) &&
      c->NumElements() <= kMaxScannedElements) {
    int64_t n = 0;
    const bool is_string = c->element_type() == ElementType::kString;
    for (int64_t i = 0; i < c->NumElements(); ++i) {
      // numpy: a string is "non-zero" when not empty; NaN is non-zero.
      if (is_string ? !c->strings()[i].empty() : c->GetDouble(i) != 0) ++n;
    }
    count = n;
    rank = static_cast<int64_t>(c->dims().size());
  } else if (std::optional<IndexExprList> values = ctx.InputValues(0)) {
    int64_t n = 0;
    bool all_known = true;
    for (const IndexExpr& v : *values) {
      if (!v.IsLiteral()) {
        all_known = false;
        break;
      }
      if (v.literal() != 0) ++n;
    }
    if (all_known) count = n;
  }
  if (count.IsUndefined()) {
    count = ctx.DataDependentDim("n", 0, x ? NumElements(*x) : IndexExpr::Questionmark());
  }
  ctx.SetOutput(0, ElementType::kInt64, DimsExpr{rank, count});
  return absl::OkStatus();
}

// Unique-11: Y (the unique values, or sub-tensors along `axis`), and int64 indices,
// inverse_indices and counts. The number of unique entries is one data-dependent dim shared by
// Y, indices and counts (they are equal), in [min(1, n), n] for n entries, or exact for a
// constant input.
absl::Status InferUnique(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const Attribute* axis_attr = node.FindAttribute("axis");
  std::optional<int64_t> axis;
  if (axis_attr != nullptr && x) {
    ANVIL_ASSIGN_OR_RETURN(
        axis, ctx.NormalizeAxis(axis_attr->i, static_cast<int64_t>(x->size()), "axis"));
  }

  IndexExpr unique;
  const std::shared_ptr<const Elements> c = ctx.InputConstant(0);
  if (c != nullptr && IsScannableType(c->element_type()) &&
      c->NumElements() <= kMaxScannedElements && (axis_attr == nullptr || axis)) {
    // Slices along the axis (single elements without one) compared by their element keys.
    const absl::Span<const int64_t> dims = c->dims();
    int64_t outer = 1;
    int64_t n = c->NumElements();
    int64_t inner = 1;
    if (axis) {
      n = dims[*axis];
      for (int64_t k = 0; k < *axis; ++k) outer *= dims[k];
      for (size_t k = *axis + 1; k < dims.size(); ++k) inner *= dims[k];
    }
    std::set<std::vector<std::string>> seen;
    for (int64_t j = 0; j < n; ++j) {
      std::vector<std::string> key;
      key.reserve(outer * inner);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) key.push_back(ElementKey(*c, (o * n + j) * inner + i));
      }
      seen.insert(std::move(key));
    }
    unique = static_cast<int64_t>(seen.size());
  }
  if (unique.IsUndefined()) {
    IndexExpr entries = IndexExpr::Questionmark();
    if (x && axis_attr == nullptr) entries = NumElements(*x);
    if (x && axis) entries = (*x)[*axis];
    unique = ctx.DataDependentDim("n", Min(entries, 1), entries);
  }

  std::optional<DimsExpr> y;
  IndexExpr inverse = IndexExpr::Questionmark();
  if (axis_attr == nullptr) {
    y = DimsExpr{unique};
    if (x) inverse = NumElements(*x);
  } else if (x) {
    y = *x;
    inverse = (*x)[*axis];
    (*y)[*axis] = unique;
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(y));
  ctx.SetOutput(1, ElementType::kInt64, DimsExpr{unique});
  ctx.SetOutput(2, ElementType::kInt64, DimsExpr{inverse});
  ctx.SetOutput(3, ElementType::kInt64, DimsExpr{unique});
  return absl::OkStatus();
}

// NonMaxSuppression: int64 [num_selected, 3]. The count depends on the boxes' values: at most
// num_batches * num_classes * min(max_output_boxes_per_class, spatial_dimension); nothing is
// selected when max_output_boxes_per_class is 0 (its default when omitted) or there are no
// boxes, batches or classes.
absl::Status InferNonMaxSuppression(ShapeContext& ctx) {
  const std::optional<DimsExpr>& boxes = ctx.InputDims(0);
  const std::optional<DimsExpr>& scores = ctx.InputDims(1);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, boxes, 3, "boxes"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, scores, 3, "scores"));
  if (boxes && ProvablyDifferent((*boxes)[2], 4)) {
    return ctx.Error(absl::StrCat("boxes ", DimsToString(*boxes),
                                  " must be [num_batches, spatial_dimension, 4]"));
  }
  if (boxes && scores &&
      (ProvablyDifferent((*boxes)[0], (*scores)[0]) ||
       ProvablyDifferent((*boxes)[1], (*scores)[2]))) {
    return ctx.Error(absl::StrCat("boxes ", DimsToString(*boxes), " and scores ",
                                  DimsToString(*scores),
                                  " disagree on num_batches or spatial_dimension"));
  }
  bool none = !ctx.HasInput(2);
  IndexExpr max_boxes = IndexExpr::Questionmark();
  if (!none) {
    ANVIL_ASSIGN_OR_RETURN(max_boxes, ScalarInputValue(ctx, 2, "max_output_boxes_per_class"));
    none = IsLiteralValue(max_boxes, 0);
  }
  for (const std::optional<DimsExpr>* dims : {&boxes, &scores}) {
    if (!*dims) continue;
    for (const IndexExpr& d : **dims) none |= IsLiteralValue(d, 0);
  }
  IndexExpr selected = 0;
  if (!none) {
    IndexExpr most = IndexExpr::Questionmark();
    if (scores) {
      // Per batch and class, at most the boxes there are, and at most max_boxes when known.
      const IndexExpr per_class =
          max_boxes.IsQuestionmark() ? (*scores)[2] : Min(max_boxes, (*scores)[2]);
      most = (*scores)[0] * (*scores)[1] * per_class;
    }
    selected = ctx.DataDependentDim("n", 0, most);
  }
  ctx.SetOutput(0, ElementType::kInt64, DimsExpr{selected, 3});
  return absl::OkStatus();
}

// Det-11: [*, M, M] -> [*].
absl::Status InferDet(ShapeContext& ctx) {
  std::optional<DimsExpr> x = ctx.InputDims(0);
  if (x) {
    if (x->size() < 2 || ProvablyDifferent((*x)[x->size() - 1], (*x)[x->size() - 2])) {
      return ctx.Error(
          absl::StrCat("input ", DimsToString(*x), " is not a batch of square matrices"));
    }
    x->resize(x->size() - 2);
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(x));
  return absl::OkStatus();
}

namespace {

// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss: input [N, C, d...], target [N, d...],
// optional weight [C] -> the per-element loss [N, d...] (reduction "none") or a scalar.
absl::Status LossShape(ShapeContext& ctx) {
  const std::optional<DimsExpr>& input = ctx.InputDims(0);
  const std::optional<DimsExpr>& target = ctx.InputDims(1);
  const std::string reduction = ctx.node().GetString("reduction", "mean");
  if (reduction != "none" && reduction != "mean" && reduction != "sum") {
    return ctx.Error(absl::StrCat("reduction '", reduction, "' is not none, mean or sum"));
  }
  if (input && input->size() < 2) {
    return ctx.Error(absl::StrCat("input ", DimsToString(*input), " must be [N, C, d...]"));
  }
  if (input && target && target->size() + 1 != input->size()) {
    return ctx.Error(absl::StrCat("target ", DimsToString(*target), " must be input ",
                                  DimsToString(*input), " without the class dim"));
  }
  if (target && target->empty()) {
    return ctx.Error(absl::StrCat("target ", DimsToString(*target), " must be [N, d...]"));
  }
  if (std::optional<DimsExpr> weight = ctx.HasInput(2) ? ctx.InputDims(2) : std::nullopt) {
    ANVIL_RETURN_IF_ERROR(CheckRank(ctx, weight, 1, "weight"));
    if (input && ProvablyDifferent((*weight)[0], (*input)[1])) {
      return ctx.Error(absl::StrCat("weight ", DimsToString(*weight), " does not match the ",
                                    (*input)[1].ToString(), " classes of input ",
                                    DimsToString(*input)));
    }
  }
  std::optional<DimsExpr> loss;
  if (input) {
    loss = *input;
    loss->erase(loss->begin() + 1);
  }
  if (target) {
    if (!loss) {
      loss = *target;
    } else {
      for (size_t k = 0; k < loss->size(); ++k) {
        ANVIL_ASSIGN_OR_RETURN(IndexExpr d,
                               UnifyDims(ctx, (*loss)[k], (*target)[k],
                                         absl::StrCat("dims of input ", DimsToString(*input),
                                                      " and target ", DimsToString(*target))));
        (*loss)[k] = std::move(d);
      }
    }
  }
  ctx.SetOutput(0, ctx.InputType(0), reduction == "none" ? loss : DimsExpr{});
  return absl::OkStatus();
}

}  // namespace

absl::Status InferNegativeLogLikelihoodLoss(ShapeContext& ctx) { return LossShape(ctx); }

// The optional second output log_prob has the scores' shape.
absl::Status InferSoftmaxCrossEntropyLoss(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(LossShape(ctx));
  ctx.SetOutput(1, ctx.InputType(0), ctx.InputDims(0));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute
