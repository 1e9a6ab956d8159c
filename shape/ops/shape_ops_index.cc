// Shape-op family, indexing ops: Concat, Split, Slice, Gather, GatherElements, GatherND,
// Compress, OneHot, and the ops whose output is shaped like their data (Scatter*,
// ReverseSequence). Concat, Split, Slice and Gather also move values, since they are how models
// take shape vectors apart and put them back together.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "shape/ops/op_util.h"
#include "shape/ops/shape_ops_internal.h"

namespace anvil::shape_ops::shape_family {
namespace {

// One dim of a Concat's other axes: equal dims stay; a literal beats a symbol and a symbol a
// questionmark (valid models have them equal); two different literals are a contradiction.
bool MergeDim(const IndexExpr& a, const IndexExpr& b, IndexExpr* out) {
  if (a == b || b.IsQuestionmark()) {
    *out = a;
  } else if (a.IsQuestionmark()) {
    *out = b;
  } else if (a.IsLiteral() && b.IsLiteral()) {
    return false;
  } else {
    *out = b.IsLiteral() ? b : a;
  }
  return true;
}

// A negative start or end counts from the back of the dim.
IndexExpr FromBack(const IndexExpr& v, const IndexExpr& dim) {
  if (v.IsLiteral()) return v.literal() < 0 ? v + dim : v;
  return Select(Lt(v, 0), v + dim, v);
}

// The number of elements Slice takes from a dim, with the spec's clamping: start into
// [0, dim] and end into [0, dim] for a positive step, start into [0, dim - 1] and end into
// [-1, dim - 1] for a negative one; count = max(ceil((end - start) / step), 0). A clamp that the
// final max(·, 0) makes redundant (start above dim, end below 0 for positive steps; end above
// dim - 1 for negative ones) is applied only when decided: the count is the same, and symbolic
// results stay simple (x[1:] of N is max(N - 1, 0), not max(N - min(N, 1), 0)) while huge
// literal bounds (INT_MIN + N) are still cut back and cannot overflow. Also returns the
// effective start, for slicing values.
IndexExpr SliceCount(const IndexExpr& dim, const IndexExpr& start, const IndexExpr& end,
                     int64_t step, IndexExpr* first) {
  // INT_MAX / INT_MIN bounds ("to the end") are cut to +-2^62 first: the same for every dim
  // below 2^62, and comparing them with a symbolic dim (INT_MAX - (N - 1)) cannot overflow.
  static constexpr int64_t kHuge = int64_t{1} << 62;
  auto cut = [](const IndexExpr& v) {
    return v.IsLiteral() ? IndexExpr(std::clamp(v.literal(), -kHuge, kHuge)) : v;
  };
  IndexExpr s = FromBack(cut(start), dim);
  IndexExpr e = FromBack(cut(end), dim);
  // Likewise a step beyond 2^62 takes one element of any dim, and -INT64_MIN would overflow.
  step = std::clamp(step, -kHuge, kHuge);
  if (step > 0) {
    if (IsTrue(Gt(s, dim))) s = dim;
    e = Min(e, dim);
    if (IsTrue(Lt(e, 0))) e = 0;
    const IndexExpr clamped = Max(s, 0);
    *first = clamped;
    // e - max(s, 0) == min(e - s, e): x[-3:] of N is min(N, 3), not N - max(N - 3, 0).
    const IndexExpr diff = clamped.IsLiteral() || clamped == s ? e - clamped : Min(e - s, e);
    return Max(CeilDiv(diff, step), 0);
  }
  const IndexExpr last = dim - 1;
  // start >= dim - 1 clamps to dim - 1 also on an empty dim, where [0, -1] is empty.
  s = IsTrue(Ge(s, last)) ? last : Min(Max(s, 0), last);
  e = Max(e, -1);
  if (IsTrue(Gt(e, last))) e = last;
  *first = s;
  return Max(CeilDiv(s - e, -step), 0);
}

// Reads Slice's starts/ends (possibly symbolic values), axes and steps (literals).
struct SliceArgs {
  std::optional<IndexExprList> starts, ends;
  std::optional<std::vector<int64_t>> axes, steps;  // nullopt: given but unknown
  bool axes_given = false;
  bool steps_given = false;  // else all 1
};

SliceArgs ReadSliceArgs(const ShapeContext& ctx) {
  SliceArgs args;
  const Node& node = ctx.node();
  if (ctx.opset() < 10) {
    const std::vector<int64_t> starts = node.GetInts("starts");
    const std::vector<int64_t> ends = node.GetInts("ends");
    args.starts = IndexExprList(starts.begin(), starts.end());
    args.ends = IndexExprList(ends.begin(), ends.end());
    args.axes_given = node.FindAttribute("axes") != nullptr;
    if (args.axes_given) args.axes = node.GetInts("axes");
    return args;
  }
  args.starts = IntValues(ctx, 1);
  args.ends = IntValues(ctx, 2);
  args.axes_given = ctx.HasInput(3);
  if (args.axes_given) args.axes = ctx.InputLiteralValues(3);
  args.steps_given = ctx.HasInput(4);
  if (args.steps_given) args.steps = ctx.InputLiteralValues(4);
  return args;
}

}  // namespace

// Compress: the selected slices along `axis`, or the selected elements of the flattened input
// (1-D) without one. The count is data-dependent, in [0, min(extent, condition length)], unless
// the condition is a known constant.
absl::Status InferCompress(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = ctx.output(0);
  out.type = in.type;
  const Attribute* axis_attr = ctx.node().FindAttribute("axis");
  // The extent along which the condition selects: the axis dim, or the element count.
  std::optional<IndexExpr> extent;
  int64_t axis = 0;
  if (in.dims) {
    if (axis_attr != nullptr) {
      ANVIL_ASSIGN_OR_RETURN(axis, ctx.NormalizeAxis(axis_attr->i, in.rank(), "axis"));
      extent = (*in.dims)[axis];
    } else {
      extent = NumElements(*in.dims);
    }
  }
  IndexExpr count;
  std::optional<std::vector<double>> condition = DoubleValues(ctx, 1);
  if (condition) {
    int64_t selected = 0;
    for (size_t k = 0; k < condition->size(); ++k) {
      if ((*condition)[k] == 0) continue;
      if (extent && extent->IsLiteral() && static_cast<int64_t>(k) >= extent->literal()) {
        return ctx.Error(absl::StrCat("condition selects index ", k, " beyond dim ",
                                      extent->literal(), " of ", DimsToString(*in.dims)));
      }
      ++selected;
    }
    count = selected;
  } else {
    IndexExpr most = extent.value_or(IndexExpr::Questionmark());
    if (const std::optional<DimsExpr>& c = ctx.InputDims(1); c && c->size() == 1) {
      most = most.IsQuestionmark() ? (*c)[0] : Min(most, (*c)[0]);
    }
    count = ctx.DataDependentDim("n", 0, most);
  }
  if (axis_attr == nullptr) {
    out.dims = DimsExpr{count};
  } else if (in.dims) {
    DimsExpr dims = *in.dims;
    dims[axis] = count;
    out.dims = std::move(dims);
  }
  return absl::OkStatus();
}

// Concat: dims sum along `axis` (default 1 in opset 1, required from 4); the other dims agree.
absl::Status InferConcat(ShapeContext& ctx) {
  const Attribute* axis_attr = ctx.node().FindAttribute("axis");
  if (axis_attr == nullptr && ctx.opset() >= 4) return ctx.Error("missing attribute axis");
  return ConcatLike(ctx, 0, 1, ElementType::kUndefined, axis_attr != nullptr ? axis_attr->i : 1);
}

absl::Status ConcatLike(ShapeContext& ctx, int first_input, int stride, ElementType type,
                        int64_t axis_value) {
  TensorInfo& out = ctx.output(0);
  out.type = type;
  // (input index, its info): errors name the input.
  absl::InlinedVector<std::pair<int, const TensorInfo*>, 4> inputs;
  for (int i = first_input; i < ctx.num_inputs(); i += stride) {
    if (!ctx.HasInput(i)) continue;
    inputs.push_back({i, &ctx.Input(i)});
    if (out.type == ElementType::kUndefined) out.type = inputs.back().second->type;
  }
  if (inputs.empty()) return ctx.Error("no inputs");
  int rank_input = -1;  // the first input of known rank
  int64_t rank = -1;
  for (const auto& [i, input] : inputs) {
    const TensorInfo& in = *input;
    if (in.rank() < 0) continue;
    if (rank >= 0 && in.rank() != rank) {
      return ctx.Error(absl::StrCat("input ", i, " ", DimsToString(*in.dims), " has rank ",
                                    in.rank(), ", input ", rank_input, " ",
                                    DimsToString(*ctx.Input(rank_input).dims), " has rank ", rank));
    }
    if (rank < 0) rank_input = i;
    rank = in.rank();
  }
  if (rank < 0) return absl::OkStatus();
  ANVIL_ASSIGN_OR_RETURN(int64_t axis, ctx.NormalizeAxis(axis_value, rank, "axis"));
  if (ShapeFacts* facts = ctx.facts()) facts->axes = {axis};

  DimsExpr dims(rank);                  // every non-axis dim is set from the first input with dims
  std::vector<int> dim_from(rank, -1);  // the input dims[k] took its literal (or value) from
  IndexExpr sum = 0;
  bool first = true;
  for (const auto& [i, input] : inputs) {
    const TensorInfo& in = *input;
    if (!in.dims) {
      sum = IndexExpr::Questionmark();
      continue;
    }
    sum = sum + (*in.dims)[axis];
    for (int64_t k = 0; k < rank; ++k) {
      if (k == axis) continue;
      const bool was_literal = dims[k].IsLiteral();
      if (first) {
        dims[k] = (*in.dims)[k];
        dim_from[k] = i;
      } else if (!MergeDim(dims[k], (*in.dims)[k], &dims[k])) {
        // Both literal: say which inputs disagree, with both dims.
        const int j = dim_from[k];
        return ctx.Error(absl::StrCat("input ", i, " ", DimsToString(*in.dims), " has dim ", k,
                                      " = ", (*in.dims)[k].ToString(), ", input ", j, " ",
                                      DimsToString(*ctx.Input(j).dims), " has ", dims[k].ToString(),
                                      " (concatenating along axis ", axis, ")"));
      } else if (!was_literal && dims[k].IsLiteral()) {
        dim_from[k] = i;
      }
    }
    first = false;
  }
  dims[axis] = sum;
  out.dims = std::move(dims);
  // Concatenated shape vectors.
  if (rank == 1) {
    IndexExprList values;
    for (const auto& input : inputs) {
      const TensorInfo* in = input.second;
      if (!in->values) return absl::OkStatus();
      values.insert(values.end(), in->values->begin(), in->values->end());
    }
    SetValues(out, std::move(values));
  }
  return absl::OkStatus();
}

// Gather: data dims [:axis] + indices dims + data dims [axis + 1:]; values gathered when the
// indices are literal (negative ones count from the back).
absl::Status InferGather(ShapeContext& ctx) {
  const TensorInfo& data = ctx.Input(0);
  const TensorInfo& indices = ctx.Input(1);
  TensorInfo& out = ctx.output(0);
  out.type = data.type;
  if (!data.dims || !indices.dims) return absl::OkStatus();
  ANVIL_ASSIGN_OR_RETURN(int64_t axis,
                         ctx.NormalizeAxis(ctx.node().GetInt("axis", 0), data.rank(), "axis"));
  if (ShapeFacts* facts = ctx.facts()) facts->axes = {axis};
  DimsExpr dims(data.dims->begin(), data.dims->begin() + axis);
  dims.insert(dims.end(), indices.dims->begin(), indices.dims->end());
  dims.insert(dims.end(), data.dims->begin() + axis + 1, data.dims->end());
  out.dims = std::move(dims);

  const IndexExpr& n = (*data.dims)[axis];
  std::optional<std::vector<int64_t>> index = ctx.InputLiteralValues(1);
  if (!index) return absl::OkStatus();
  for (int64_t& i : *index) {
    if (n.IsLiteral() && (i < -n.literal() || i >= n.literal())) {
      return ctx.Error(absl::StrCat("index ", i, " is out of range for dim ", axis, " of ",
                                    DimsToString(*data.dims)));
    }
    if (i < 0 && n.IsLiteral()) i += n.literal();
  }
  std::optional<std::vector<int64_t>> literal = LiteralDims(*data.dims);
  if (!data.values || !literal) return absl::OkStatus();
  // Row-major: data is [outer, n, inner], the output [outer, indices, inner].
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < axis; ++k) outer *= (*literal)[k];
  for (int64_t k = axis + 1; k < data.rank(); ++k) inner *= (*literal)[k];
  if (outer * static_cast<int64_t>(index->size()) * inner > kMaxValues) return absl::OkStatus();
  IndexExprList values;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : *index) {
      for (int64_t r = 0; r < inner; ++r) {
        values.push_back((*data.values)[(o * n.literal() + i) * inner + r]);
      }
    }
  }
  out.values = std::move(values);
  return absl::OkStatus();
}

// GatherElements: shaped like the indices, which have the data's rank.
absl::Status InferGatherElements(ShapeContext& ctx) {
  const TensorInfo& data = ctx.Input(0);
  const TensorInfo& indices = ctx.Input(1);
  if (data.dims && indices.dims && data.rank() != indices.rank()) {
    return ctx.Error(absl::StrCat("indices ", DimsToString(*indices.dims),
                                  " must have the rank of data ", DimsToString(*data.dims)));
  }
  ctx.SetOutput(0, data.type, indices.dims);
  return absl::OkStatus();
}

// GatherND: indices dims [:-1] + data dims [batch_dims + indices dims[-1]:].
absl::Status InferGatherND(ShapeContext& ctx) {
  const TensorInfo& data = ctx.Input(0);
  const TensorInfo& indices = ctx.Input(1);
  TensorInfo& out = ctx.output(0);
  out.type = data.type;
  const int64_t batch_dims = ctx.opset() >= 12 ? ctx.node().GetInt("batch_dims", 0) : 0;
  if (!data.dims || !indices.dims) return absl::OkStatus();
  if (indices.rank() < 1) return ctx.Error("indices must have rank >= 1");
  const IndexExpr& last = indices.dims->back();
  if (!last.IsLiteral()) return absl::OkStatus();  // the output rank depends on it
  if (batch_dims < 0 || batch_dims >= std::min(data.rank(), indices.rank()) ||
      batch_dims + last.literal() > data.rank()) {
    return ctx.Error(absl::StrCat("indices ", DimsToString(*indices.dims), " with batch_dims ",
                                  batch_dims, " do not index data ", DimsToString(*data.dims)));
  }
  DimsExpr dims(indices.dims->begin(), indices.dims->end() - 1);
  dims.insert(dims.end(), data.dims->begin() + batch_dims + last.literal(), data.dims->end());
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// OneHot: the indices' dims with `depth` inserted at `axis` (default -1, the innermost); the
// element type of `values`.
absl::Status InferOneHot(ShapeContext& ctx) {
  const TensorInfo& indices = ctx.Input(0);
  TensorInfo& out = ctx.output(0);
  out.type = ctx.InputType(2);
  IndexExpr depth = IndexExpr::Questionmark();
  if (std::optional<IndexExprList> v = IntValues(ctx, 1); v && v->size() == 1) {
    depth = (*v)[0];
  } else if (std::optional<std::vector<double>> d = DoubleValues(ctx, 1); d && d->size() == 1) {
    depth = static_cast<int64_t>((*d)[0]);  // a non-integer depth is cast to int64
  }
  if (depth.IsQuestionmark()) depth = ctx.DataDependentDim("depth", 1, IndexExpr::Questionmark());
  if (depth.IsLiteral() && depth.literal() < 1) {
    return ctx.Error(absl::StrCat("depth ", depth.literal(), " is not positive"));
  }
  if (!indices.dims) return absl::OkStatus();
  const int64_t rank = indices.rank() + 1;
  ANVIL_ASSIGN_OR_RETURN(int64_t axis,
                         ctx.NormalizeAxis(ctx.node().GetInt("axis", -1), rank, "axis"));
  DimsExpr dims = *indices.dims;
  dims.insert(dims.begin() + axis, depth);
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// Scatter, ScatterElements, ScatterND, ReverseSequence: type and dims of the data input.
absl::Status InferSameAsData(ShapeContext& ctx) {
  const TensorInfo& data = ctx.Input(0);
  ctx.SetOutput(0, data.type, data.dims);
  return absl::OkStatus();
}

// Slice: attributes starts/ends/axes (opset 1), inputs starts, ends, axes, steps (10+).
absl::Status InferSlice(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = ctx.output(0);
  out.type = in.type;
  if (!in.dims) return absl::OkStatus();
  const int64_t rank = in.rank();
  if (ctx.opset() < 10) {
    for (const char* name : {"starts", "ends"}) {
      if (ctx.node().FindAttribute(name) == nullptr) {
        return ctx.Error(absl::StrCat("missing attribute ", name));
      }
    }
  }
  SliceArgs args = ReadSliceArgs(ctx);
  DimsExpr dims = *in.dims;
  // A dim sliced by bounds only the run knows: at most the input's.
  auto sliced = [&](int64_t axis) {
    return ctx.DataDependentDim(absl::StrCat("d", axis), 0, (*in.dims)[axis]);
  };
  if (args.axes_given && !args.axes) {  // which dims change is unknown
    for (int64_t axis = 0; axis < rank; ++axis) dims[axis] = sliced(axis);
    out.dims = std::move(dims);
    return absl::OkStatus();
  }
  // How many axes are sliced, from whichever argument tells.
  std::optional<size_t> count;
  if (args.axes) count = args.axes->size();
  if (!count && args.starts) count = args.starts->size();
  if (!count && args.ends) count = args.ends->size();
  if (!count && args.steps) count = args.steps->size();
  if (!count && ctx.opset() >= 10) {
    if (std::optional<int64_t> n = InputLength(ctx, 1)) count = static_cast<size_t>(*n);
  }
  if (!count) {
    for (int64_t axis = 0; axis < rank; ++axis) dims[axis] = sliced(axis);
    out.dims = std::move(dims);
    return absl::OkStatus();
  }
  if (!args.steps_given) args.steps = std::vector<int64_t>(*count, 1);
  auto check_length = [&](const char* what, size_t n) {
    return n == *count ? absl::OkStatus()
                       : ctx.Error(absl::StrCat(n, " ", what, " for ", *count, " sliced axes"));
  };
  for (absl::Status s : {check_length("starts", args.starts ? args.starts->size() : *count),
                         check_length("ends", args.ends ? args.ends->size() : *count),
                         check_length("steps", args.steps ? args.steps->size() : *count)}) {
    if (!s.ok()) return s;
  }
  std::vector<int64_t> axes;
  if (args.axes) {
    ANVIL_ASSIGN_OR_RETURN(axes, NormalizeAxes(ctx, *args.axes, rank));
  } else {
    if (static_cast<int64_t>(*count) > rank) {
      return ctx.Error(absl::StrCat(*count, " starts for input ", DimsToString(*in.dims)));
    }
    for (size_t k = 0; k < *count; ++k) axes.push_back(static_cast<int64_t>(k));
  }
  // Where each sliced axis starts, for slicing values.
  IndexExprList firsts(rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t axis = axes[k];
    if (!args.starts || !args.ends || !args.steps) {
      dims[axis] = sliced(axis);
      continue;
    }
    const int64_t step = (*args.steps)[k];
    if (step == 0) return ctx.Error(absl::StrCat("step of axis ", axis, " is 0"));
    dims[axis] =
        SliceCount((*in.dims)[axis], (*args.starts)[k], (*args.ends)[k], step, &firsts[axis]);
  }
  out.dims = dims;
  if (ShapeFacts* facts = ctx.facts()) {
    facts->starts = firsts;
    facts->steps.assign(rank, 1);
    for (size_t k = 0; k < axes.size(); ++k) {
      if (args.steps) facts->steps[axes[k]] = (*args.steps)[k];
    }
  }
  // A slice of a shape vector.
  if (rank == 1 && in.values && dims[0].IsLiteral() && firsts[0].IsLiteral()) {
    const int64_t step = axes.empty() ? 1 : (*args.steps)[0];
    const int64_t size = static_cast<int64_t>(in.values->size());
    IndexExprList values;
    for (int64_t k = 0; k < dims[0].literal(); ++k) {
      const int64_t i = firsts[0].literal() + k * step;
      if (i < 0 || i >= size) return absl::OkStatus();  // values inconsistent with dims
      values.push_back((*in.values)[i]);
    }
    out.values = std::move(values);
  }
  return absl::OkStatus();
}

// Split: along `axis` into the `split` lengths (attribute before opset 13, also input 1 in
// opset 1, input 1 from 13), into `num_outputs` pieces (opset 18), or into equal parts, one per
// output.
absl::Status InferSplit(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  const int outputs = ctx.num_outputs();
  for (int i = 0; i < outputs; ++i) ctx.output(i).type = in.type;
  if (!in.dims) return absl::OkStatus();
  ANVIL_ASSIGN_OR_RETURN(int64_t axis,
                         ctx.NormalizeAxis(ctx.node().GetInt("axis", 0), in.rank(), "axis"));
  const IndexExpr& dim = (*in.dims)[axis];
  const int split_input = ctx.opset() < 2 || ctx.opset() >= 13 ? 1 : -1;
  const IntList split = ReadIntList(ctx, "split", split_input);
  IndexExprList parts;
  if (split.present && !split.known) {
    // Lengths only the run knows: each at most the dim.
    for (int i = 0; i < outputs; ++i) {
      parts.push_back(ctx.DataDependentDim(absl::StrCat("o", i), 0, dim));
    }
  } else if (split.present) {
    if (static_cast<int>(split.values.size()) != outputs) {
      return ctx.Error(absl::StrCat("split [", absl::StrJoin(split.values, ", "), "] has ",
                                    split.values.size(), " parts for ", outputs, " outputs"));
    }
    int64_t sum = 0;
    for (int64_t p : split.values) {
      if (p < 0)
        return ctx.Error(
            absl::StrCat("negative length in split [", absl::StrJoin(split.values, ", "), "]"));
      sum += p;
      parts.push_back(p);
    }
    if (dim.IsLiteral() && dim.literal() != sum) {
      return ctx.Error(absl::StrCat("split [", absl::StrJoin(split.values, ", "), "] sums to ", sum,
                                    ", but dim ", axis, " of ", DimsToString(*in.dims), " is ",
                                    dim.literal()));
    }
  } else if (const Attribute* n =
                 ctx.opset() >= 18 ? ctx.node().FindAttribute("num_outputs") : nullptr;
             n != nullptr) {
    // Opset 18: pieces of ceil(dim / n), the last one what remains.
    if (n->i < 1 || n->i != outputs) {
      return ctx.Error(absl::StrCat("num_outputs ", n->i, " for ", outputs, " outputs"));
    }
    const IndexExpr piece = CeilDiv(dim, n->i);
    const IndexExpr last = dim - piece * (n->i - 1);
    if (last.IsLiteral() && last.literal() < 0) {
      return ctx.Error(absl::StrCat("dim ", axis, " of ", DimsToString(*in.dims),
                                    " is too short for ", n->i, " pieces of ", piece.literal()));
    }
    for (int i = 0; i + 1 < outputs; ++i) parts.push_back(piece);
    parts.push_back(last);
  } else {
    if (outputs == 0) return ctx.Error("no outputs");
    if (dim.IsLiteral() && dim.literal() % outputs != 0) {
      return ctx.Error(absl::StrCat("dim ", axis, " of ", DimsToString(*in.dims),
                                    " does not split into ", outputs, " equal parts"));
    }
    for (int i = 0; i < outputs; ++i) parts.push_back(FloorDiv(dim, outputs));
  }
  int64_t offset = 0;
  for (int i = 0; i < outputs; ++i) {
    DimsExpr dims = *in.dims;
    dims[axis] = parts[i];
    TensorInfo& out = ctx.output(i);
    out.dims = std::move(dims);
    // Pieces of a shape vector.
    if (in.rank() == 1 && in.values && parts[i].IsLiteral() && offset >= 0 &&
        offset + parts[i].literal() <= static_cast<int64_t>(in.values->size())) {
      out.values = IndexExprList(in.values->begin() + offset,
                                 in.values->begin() + offset + parts[i].literal());
      offset += parts[i].literal();
    } else {
      offset = -1;
    }
  }
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::shape_family
