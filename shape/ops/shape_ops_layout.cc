// Shape-op family, layout ops: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, DepthToSpace,
// SpaceToDepth, Tile, Expand, Pad, Resize, Upsample. Row-major contents do not change under
// Reshape/Flatten/Squeeze/Unsqueeze, so their values pass through.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/axes.h"
#include "base/status_macros.h"
#include "shape/ops/op_util.h"
#include "shape/ops/shape_ops_internal.h"

namespace anvil::shape_ops::shape_family {
namespace {

// floor(dim * scale), the dim Resize and Upsample produce. On literal values the product is a
// float product, as ONNX's own shape inference and ONNX Runtime compute it (30 x 1.3f is 39.0f,
// and 39 rows, where a double product would floor 38.99999857 to 38); a symbolic dim stays exact
// when the scale is a whole number, and is unknown otherwise.
IndexExpr ScaleDim(const IndexExpr& dim, double scale) {
  if (dim.IsLiteral()) {
    const double scaled = std::floor(
        static_cast<double>(static_cast<float>(dim.literal()) * static_cast<float>(scale)));
    if (!(scaled < 0x1p62)) return IndexExpr::Undefined("scaled dim overflows int64");
    return static_cast<int64_t>(scaled);
  }
  if (scale >= 0 && scale < 1e9 && std::floor(scale) == scale) {
    return dim * static_cast<int64_t>(scale);
  }
  return IndexExpr::Questionmark();
}

absl::StatusOr<DimsExpr> ScaleDims(const ShapeContext& ctx, const DimsExpr& dims,
                                   const std::vector<double>& scales) {
  if (scales.size() != dims.size()) {
    return ctx.Error(absl::StrCat(scales.size(), " scales for input ", DimsToString(dims)));
  }
  DimsExpr out;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!(scales[k] > 0)) return ctx.Error(absl::StrCat("scale ", scales[k], " is not positive"));
    out.push_back(ScaleDim(dims[k], scales[k]));
    if (out.back().IsUndefined()) {
      return ctx.Error(absl::StrCat("dim ", k, " of ", DimsToString(dims), " times ", scales[k],
                                    " overflows int64"));
    }
  }
  return out;
}

// Checks `dim` is a multiple of `block` when both are known.
absl::Status CheckDivisible(const ShapeContext& ctx, const IndexExpr& dim, int64_t block,
                            std::string_view what, const DimsExpr& dims) {
  if (dim.IsLiteral() && dim.literal() % block != 0) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " ", dim.literal(), " of ", DimsToString(dims),
                                  " is not a multiple of ", block));
  }
  return absl::OkStatus();
}

// Output 0 of a layout op, of input 0's element type. An op that keeps the elements' row-major
// order (Reshape, Flatten, Squeeze, Unsqueeze: `same_order`) keeps input 0's values too.
TensorInfo& LayoutOutput(ShapeContext& ctx, bool same_order) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = ctx.output(0);
  out.type = in.type;
  if (same_order) out.values = in.values;
  return out;
}

// Squeeze's and Unsqueeze's axes: attribute before opset 13, input 1 after.
IntList ReadAxes(const ShapeContext& ctx) {
  return ReadIntList(ctx, "axes", ctx.opset() >= 13 ? 1 : -1);
}

// How many axes Squeeze's or Unsqueeze's axes input holds, when its values are unknown but its
// length is known.
std::optional<int64_t> AxesLength(const ShapeContext& ctx) {
  return ctx.opset() >= 13 ? InputLength(ctx, 1) : std::nullopt;
}

// DepthToSpace's and SpaceToDepth's operands: the positive `blocksize` and the input's dims, 4-D
// (nullopt when unknown).
struct BlockOperands {
  int64_t b = 0;
  std::optional<DimsExpr> dims;
};

absl::StatusOr<BlockOperands> ReadBlockOperands(const ShapeContext& ctx) {
  BlockOperands in;
  in.b = ctx.node().GetInt("blocksize", 0);
  if (in.b <= 0) return ctx.Error(absl::StrCat("blocksize ", in.b, " is not positive"));
  // b*b must not overflow (a blocksize of 2^40 divided by zero, found by //fuzz:model_fuzzer).
  if (in.b > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("blocksize ", in.b, " is beyond the int32 range"));
  }
  in.dims = ctx.InputDims(0);
  if (in.dims && in.dims->size() != 4) {
    return ctx.Error(absl::StrCat("input must be 4-D, is ", DimsToString(*in.dims)));
  }
  return in;
}

// `e` with symbol `name` set to 0, or nullopt when `e` holds a questionmark (whose identity a
// rebuilt expression would lose).
std::optional<IndexExpr> WithSymbolZero(const IndexExpr& e, const std::string& name) {
  std::optional<IndexExprStructure> s = Decompose(e);
  if (!s) return std::nullopt;
  IndexExpr sum = s->constant;
  for (const IndexTerm& t : s->terms) {
    IndexExpr product = t.coeff;
    for (const IndexAtom& a : t.factors) {
      std::vector<IndexExpr> args;
      for (const IndexExpr& arg : a.args) {
        std::optional<IndexExpr> x = WithSymbolZero(arg, name);
        if (!x) return std::nullopt;
        args.push_back(*x);
      }
      switch (a.kind) {
        case IndexAtom::Kind::kSymbol:
          product = product * (a.name == name ? IndexExpr(0) : IndexExpr::Symbol(a.name));
          break;
        case IndexAtom::Kind::kQuestionmark:
          return std::nullopt;
        case IndexAtom::Kind::kFloorDiv:
          product = product * FloorDiv(args[0], args[1]);
          break;
        case IndexAtom::Kind::kMin:
          product = product * Min(args);
          break;
        case IndexAtom::Kind::kMax:
          product = product * Max(args);
          break;
      }
    }
    sum = sum + product;
  }
  return sum;
}

// Whether `zero` being 0 makes `dim` 0 as well: `zero` is c * (a product of symbols) and `dim`
// is 0 whichever of them is 0 ([B*S, H] -> [B, ...] copies a 0 for B = 0; so does a broadcast
// dim max(B, C) * min(B, C, 1)).
bool ZeroMakesZero(const IndexExpr& zero, const IndexExpr& dim) {
  std::optional<IndexExprStructure> z = Decompose(zero);
  if (!z || z->constant != 0 || z->terms.size() != 1) return false;
  for (const IndexAtom& a : z->terms[0].factors) {
    if (a.kind != IndexAtom::Kind::kSymbol) return false;
    std::optional<IndexExpr> d = WithSymbolZero(dim, a.name);
    if (!d || !d->IsLiteral() || d->literal() != 0) return false;
  }
  return true;
}

// The output dim of a symbolic Reshape target value `v` at axis `k` (no allowzero): `v`, except
// that a `v` of 0 at run time copies input dim k (and a negative one is -1 or an error). Exact as
// `v` when it is provably positive, or equals input dim k, or its being 0 makes that dim 0.
// Otherwise, for a `v` >= 0 in a target without -1, the exact v + dim * (1 - min(v, 1))
// (LayerNormalization's expansion reshapes [A*B, 1] to Shape(X)[:2] ++ [1, 1], whose B = 0 copies
// the 1). Next to a -1 that dim would be a divisor whose canonical form is negative, so unknown.
IndexExpr ReshapeTargetDim(const IndexExpr& v, const TensorInfo& in, size_t k,
                           bool target_has_minus_one) {
  if (IsTrue(Ge(v, 1))) return v;
  if (!in.dims) return IndexExpr::Questionmark();
  if (k >= in.dims->size()) return v;  // 0 would copy no dim: an error at run time
  const IndexExpr& dim = (*in.dims)[k];
  if (dim == v || ZeroMakesZero(v, dim)) return v;
  if (!target_has_minus_one && !dim.IsQuestionmark() && IsTrue(Ge(v, 0))) {
    return v + dim * (1 - Min(v, 1));
  }
  return IndexExpr::Questionmark();
}

}  // namespace

// DepthToSpace: [N, C, H, W] -> [N, C / (b*b), H*b, W*b].
absl::Status InferDepthToSpace(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const BlockOperands in, ReadBlockOperands(ctx));
  const int64_t b = in.b;
  std::optional<DimsExpr> out;
  if (in.dims) {
    const DimsExpr& dims = *in.dims;
    ANVIL_RETURN_IF_ERROR(CheckDivisible(ctx, dims[1], b * b, "channels", dims));
    out = DimsExpr{dims[0], FloorDiv(dims[1], b * b), dims[2] * b, dims[3] * b};
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// Expand: numpy broadcast of the input's dims with the shape input's values.
absl::Status InferExpand(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  std::optional<IndexExprList> shape = IntValues(ctx, 1);
  if (shape && in.dims) {
    ANVIL_ASSIGN_OR_RETURN(DimsExpr dims, BroadcastDims(ctx, {*in.dims, *shape}));
    out.dims = dims;
    std::optional<std::vector<int64_t>> in_dims = LiteralDims(*in.dims);
    std::optional<std::vector<int64_t>> out_dims = LiteralDims(dims);
    if (in.values && in_dims && out_dims) {
      int64_t count = 1;
      for (int64_t d : *out_dims) count *= d;
      if (count <= kMaxValues) out.values = BroadcastValues(*in.values, *in_dims, *out_dims);
    }
    return absl::OkStatus();
  }
  // Unknown target values of known length: the rank is known, and an input dim other than 1
  // survives (the target may only be 1 or that dim there).
  std::optional<int64_t> length = InputLength(ctx, 1);
  if (in.dims && length) {
    const int64_t rank = std::max<int64_t>(in.rank(), *length);
    DimsExpr dims = ctx.UnboundedDims(rank);
    for (int64_t k = 0; k < in.rank(); ++k) {
      const IndexExpr& d = (*in.dims)[k];
      if (d.IsLiteral() && d.literal() != 1) dims[rank - in.rank() + k] = d;
    }
    out.dims = std::move(dims);
  }
  return absl::OkStatus();
}

// Flatten: [prod(dims[:axis]), prod(dims[axis:])]; always 2-D.
absl::Status InferFlatten(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/true);
  if (!in.dims) {
    out.dims = UnknownDims(2);
    return absl::OkStatus();
  }
  const int64_t rank = in.rank();
  int64_t axis = ctx.node().GetInt("axis", 1);
  if (axis < -rank || axis > rank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  out.dims = DimsExpr{NumElements(DimsExpr(in.dims->begin(), in.dims->begin() + axis)),
                      NumElements(DimsExpr(in.dims->begin() + axis, in.dims->end()))};
  return absl::OkStatus();
}

// Pad: dim + pad_begin + pad_end; pads as attribute `paddings` (opset 1), `pads` (2-10), then
// input 1 (whose values may be symbolic), for the dims of input 3 `axes` when given (opset 18).
absl::Status InferPad(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  std::optional<IndexExprList> pads;
  std::optional<int64_t> length;
  if (ctx.opset() < 11) {
    const char* name = ctx.opset() < 2 ? "paddings" : "pads";
    if (ctx.node().FindAttribute(name) == nullptr) {
      return ctx.Error(absl::StrCat("missing attribute ", name));
    }
    const std::vector<int64_t> p = ctx.node().GetInts(name);
    pads = IndexExprList(p.begin(), p.end());
  } else {
    pads = IntValues(ctx, 1);
    length = InputLength(ctx, 1);
  }
  if (pads) length = static_cast<int64_t>(pads->size());
  if (length && *length % 2 != 0) return ctx.Error(absl::StrCat("odd number of pads: ", *length));
  const bool has_axes = ctx.opset() >= 18 && ctx.HasInput(3);
  if (!in.dims) {
    if (length && !has_axes) out.dims = UnknownDims(*length / 2);
    return absl::OkStatus();
  }
  const int64_t rank = in.rank();
  if (has_axes) {
    // Opset 18: the pads apply to the dims `axes` names (begins, then ends); the rest get none.
    const std::optional<IndexExprList> axes = IntValues(ctx, 3);
    if (!axes || !pads) {
      out.dims = ctx.UnboundedDims(rank);
      return absl::OkStatus();
    }
    const int64_t n = static_cast<int64_t>(axes->size());
    if (static_cast<int64_t>(pads->size()) != 2 * n) {
      return ctx.Error(absl::StrCat(pads->size(), " pads for ", n, " axes"));
    }
    std::vector<int64_t> normalized;
    for (int64_t j = 0; j < n; ++j) {
      if (!(*axes)[j].IsLiteral()) {
        out.dims = ctx.UnboundedDims(rank);
        return absl::OkStatus();
      }
      ANVIL_ASSIGN_OR_RETURN(int64_t a,
                             ctx.NormalizeAxis((*axes)[j].literal(), rank, "axes value"));
      normalized.push_back(a);
    }
    const std::vector<IndexExpr> full =
        SpreadOverAxes<IndexExpr>(*pads, normalized, rank, {IndexExpr(0), IndexExpr(0)});
    pads.emplace(full.begin(), full.end());
    length = 2 * rank;
  }
  if (length && *length != 2 * rank) {
    return ctx.Error(absl::StrCat(*length, " pads for input ", DimsToString(*in.dims), " (need ",
                                  2 * rank, ")"));
  }
  if (!pads) {
    out.dims = ctx.UnboundedDims(rank);
    return absl::OkStatus();
  }
  if (ShapeFacts* facts = ctx.facts()) facts->starts.assign(pads->begin(), pads->begin() + rank);
  DimsExpr dims;
  for (int64_t k = 0; k < rank; ++k) {
    IndexExpr d = (*in.dims)[k] + (*pads)[k] + (*pads)[k + rank];
    if (d.IsLiteral() && d.literal() < 0) {
      return ctx.Error(absl::StrCat("pads ", DimsToString(*pads), " remove more than dim ", k,
                                    " of ", DimsToString(*in.dims)));
    }
    dims.push_back(d);
  }
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// Reshape: the target's values (attribute `shape` before opset 5), where 0 copies the input dim
// (unless allowzero, opset 14) and one -1 takes the remaining elements: floor(total / known),
// exact for valid models.
absl::Status InferReshape(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/true);
  std::optional<IndexExprList> target;
  if (ctx.opset() < 5) {
    if (ctx.node().FindAttribute("shape") != nullptr) {
      const std::vector<int64_t> shape = ctx.node().GetInts("shape");
      target = IndexExprList(shape.begin(), shape.end());
    }
  } else {
    if (const int64_t rank = ctx.InputRank(1); rank >= 0 && rank != 1) {
      return ctx.Error(absl::StrCat("the shape input must be 1-D, is rank ", rank));
    }
    target = IntValues(ctx, 1);
    if (!target) {
      // Dims only the run knows. Of an input with at least one element, each is at most the
      // element count (a 0 copies an input dim, no larger); an empty input bounds nothing.
      if (std::optional<int64_t> length = InputLength(ctx, 1)) {
        IndexExpr most = IndexExpr::Questionmark();
        if (in.dims && RangeOf(NumElements(*in.dims)).lo.value_or(0) >= 1) {
          most = NumElements(*in.dims);
        }
        out.dims = ctx.DataDependentDims(*length, 0, most);
      }
      return absl::OkStatus();
    }
  }
  if (!target) return absl::OkStatus();

  const bool allow_zero = ctx.opset() >= 14 && ctx.node().GetInt("allowzero", 0) != 0;
  // Only for error messages: formatting costs more than the whole rule otherwise.
  auto target_text = [&] { return DimsToString(*target); };
  DimsExpr dims;
  int64_t inferred = -1;
  // Symbolic target values that may be 0 and then copy another dim: made unknown below unless
  // the element count settles them.
  std::vector<size_t> ambiguous;
  const bool target_has_minus_one = std::ranges::any_of(
      *target, [](const IndexExpr& v) { return v.IsLiteral() && v.literal() == -1; });
  // A symbolic target value (a dim read by Shape) is the dim itself, unless it may be 0 (which
  // copies the input dim: ReshapeTargetDim) or negative.
  for (size_t k = 0; k < target->size(); ++k) {
    const IndexExpr& v = (*target)[k];
    if (!v.IsLiteral()) {
      if (allow_zero) {
        dims.push_back(IsTrue(Ge(v, 0)) || v.IsQuestionmark() ? v : IndexExpr::Questionmark());
      } else {
        dims.push_back(ReshapeTargetDim(v, in, k, target_has_minus_one));
        if (dims.back() != v && IsTrue(Ge(v, 0))) ambiguous.push_back(k);
      }
    } else if (v.literal() > 0 || (v.literal() == 0 && allow_zero)) {
      dims.push_back(v);
    } else if (v.literal() == 0) {
      if (in.dims && static_cast<int64_t>(k) >= in.rank()) {
        return ctx.Error(absl::StrCat("shape ", target_text(), " copies dim ", k, " of input ",
                                      DimsToString(*in.dims), ", which has no such dim"));
      }
      dims.push_back(in.dims ? (*in.dims)[k] : IndexExpr::Questionmark());
    } else if (v.literal() == -1) {
      if (inferred >= 0)
        return ctx.Error(absl::StrCat("shape ", target_text(), " has two -1 dims"));
      inferred = static_cast<int64_t>(k);
      dims.push_back(1);  // placeholder, excluded from the product below
    } else {
      return ctx.Error(absl::StrCat("shape ", target_text(), " has invalid dim ", v.literal()));
    }
  }
  if (!in.dims) {
    if (inferred >= 0) dims[inferred] = IndexExpr::Questionmark();
    out.dims = std::move(dims);
    return absl::OkStatus();
  }
  const IndexExpr total = NumElements(*in.dims);
  if (inferred < 0 && !ambiguous.empty()) {
    // Without a -1 the run checks the element count: when the target's values multiply to the
    // input's count, a value 0 means a count of 0, so the dim it copies instead must be 0 too if
    // the other dims are provably positive ([B, S] -> [B*S] through Size is [B*S]).
    DimsExpr taken = dims;
    for (size_t k : ambiguous) taken[k] = (*target)[k];
    if (IsTrue(Eq(total, NumElements(taken)))) {
      for (size_t k : ambiguous) {
        DimsExpr others = taken;
        others.erase(others.begin() + k);
        if (IsTrue(Ge(NumElements(others), 1))) dims[k] = taken[k];
      }
    }
  }
  const IndexExpr known = NumElements(dims);
  if (inferred >= 0) {
    if (known.IsLiteral() && known.literal() == 0) {
      return ctx.Error(absl::StrCat("cannot reshape ", DimsToString(*in.dims), " into ",
                                    target_text(), ": the -1 dim is ambiguous next to a 0 dim"));
    }
    // Dims the target copies (often via Shape -> Gather -> Concat) cancel before dividing, so
    // [N, S, H, D] -> [N, S, -1] gives H*D without relying on polynomial division. (Were a
    // cancelled dim 0, the -1 would be ambiguous, an error at run time anyway.)
    DimsExpr numerator = *in.dims;
    DimsExpr denominator;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (static_cast<int64_t>(k) == inferred) continue;
      auto same = std::find(numerator.begin(), numerator.end(), dims[k]);
      if (same != numerator.end()) {
        numerator.erase(same);
      } else {
        denominator.push_back(dims[k]);
      }
    }
    const IndexExpr rest = NumElements(numerator);
    const IndexExpr divisor = NumElements(denominator);
    if (rest.IsLiteral() && divisor.IsLiteral() && rest.literal() % divisor.literal() != 0) {
      return ctx.Error(absl::StrCat("cannot reshape ", DimsToString(*in.dims), " (",
                                    total.ToString(), " elements) into ", target_text(), ": ",
                                    rest.literal(), " is not a multiple of ", divisor.literal()));
    }
    dims[inferred] = FloorDiv(rest, divisor);
  } else if (IsFalse(Eq(total, known))) {
    return ctx.Error(absl::StrCat("cannot reshape ", DimsToString(*in.dims), " (", total.ToString(),
                                  " elements) into ", target_text(), " (", known.ToString(),
                                  " elements)"));
  }
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// Resize: `sizes` when given (opset 11+), else floor(dim * scale) with the constant scales
// (input 1 in opset 10, input 2 after).
absl::Status InferResize(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  // Resize-18: `axes` names the dims that scales and sizes (and roi) give; the rest keep theirs.
  std::optional<std::vector<int64_t>> axes;
  if (ctx.opset() >= 18) {
    const std::string policy = ctx.node().GetString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") {
      return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(),
                                                   ": keep_aspect_ratio_policy '", policy,
                                                   "' is not supported (stretch is)"));
    }
    if (const Attribute* a = ctx.node().FindAttribute("axes")) {
      if (!in.dims) return absl::OkStatus();  // nothing to place the given dims in
      axes.emplace();
      for (int64_t v : a->ints) {
        ANVIL_ASSIGN_OR_RETURN(int64_t axis, ctx.NormalizeAxis(v, in.rank(), "axes value"));
        axes->push_back(axis);
      }
    }
  }
  const int scales_index = ctx.opset() < 11 ? 1 : 2;
  std::optional<std::vector<double>> scales = DoubleValues(ctx, scales_index);
  if (scales && !scales->empty()) {
    if (!in.dims) {
      out.dims = UnknownDims(static_cast<int64_t>(scales->size()));
      return absl::OkStatus();
    }
    if (axes) {
      if (scales->size() != axes->size()) {
        return ctx.Error(absl::StrCat(scales->size(), " scales for ", axes->size(), " axes"));
      }
      scales = SpreadOverAxes<double>(*scales, *axes, in.rank(), {1.0});
    }
    ANVIL_ASSIGN_OR_RETURN(out.dims, ScaleDims(ctx, *in.dims, *scales));
    return absl::OkStatus();
  }
  // `sizes`; an empty one (present only to fill the slot) does not count.
  std::optional<int64_t> sizes_length = ctx.opset() >= 11 ? InputLength(ctx, 3) : std::nullopt;
  if (ctx.opset() >= 11 && ctx.HasInput(3) && sizes_length != 0) {
    if (std::optional<IndexExprList> sizes = IntValues(ctx, 3)) {
      const size_t wanted = axes ? axes->size() : in.dims ? in.dims->size() : sizes->size();
      if (sizes->size() != wanted) {
        return ctx.Error(absl::StrCat(
            "sizes ", DimsToString(*sizes), " for ",
            axes ? absl::StrCat(axes->size(), " axes of input ") : std::string("input "),
            in.dims ? DimsToString(*in.dims) : "?"));
      }
      if (axes) {
        DimsExpr full = *in.dims;
        for (size_t j = 0; j < axes->size(); ++j) full[(*axes)[j]] = (*sizes)[j];
        out.dims = std::move(full);
      } else {
        out.dims = *sizes;
      }
      return absl::OkStatus();
    }
    if (sizes_length && !axes) {
      out.dims = ctx.UnboundedDims(*sizes_length);
      return absl::OkStatus();
    }
  }
  if (in.dims) out.dims = ctx.UnboundedDims(in.rank());
  return absl::OkStatus();
}

// SpaceToDepth: [N, C, H, W] -> [N, C*b*b, H / b, W / b].
absl::Status InferSpaceToDepth(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const BlockOperands in, ReadBlockOperands(ctx));
  const int64_t b = in.b;
  std::optional<DimsExpr> out;
  if (in.dims) {
    const DimsExpr& dims = *in.dims;
    for (int k : {2, 3}) {
      ANVIL_RETURN_IF_ERROR(CheckDivisible(ctx, dims[k], b, k == 2 ? "height" : "width", dims));
    }
    out = DimsExpr{dims[0], dims[1] * (b * b), FloorDiv(dims[2], b), FloorDiv(dims[3], b)};
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// Squeeze: removes the `axes` dims (attribute before opset 13, input after), which must be 1;
// without axes every dim that is 1, which needs every dim known.
absl::Status InferSqueeze(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/true);
  const IntList axes = ReadAxes(ctx);
  if (!in.dims) return absl::OkStatus();
  if (!axes.present) {
    DimsExpr dims;
    for (const IndexExpr& d : *in.dims) {
      if (!d.IsLiteral()) return absl::OkStatus();  // a symbol may be 1: rank unknown
      if (d.literal() != 1) dims.push_back(d);
    }
    out.dims = std::move(dims);
    return absl::OkStatus();
  }
  if (!axes.known) {
    // Which dims go is unknown, how many is known with the axes' length.
    // Each dim that stays is one of the input's.
    const std::optional<int64_t> length = AxesLength(ctx);
    if (length && *length <= in.rank()) {
      const IndexExpr most = in.dims->empty() ? IndexExpr(0) : Max(absl::MakeConstSpan(*in.dims));
      out.dims = ctx.DataDependentDims(in.rank() - *length, 0, most);
    }
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> normalized,
                         NormalizeAxes(ctx, axes.values, in.rank()));
  DimsExpr dims;
  for (int64_t k = 0; k < in.rank(); ++k) {
    const IndexExpr& d = (*in.dims)[k];
    if (std::find(normalized.begin(), normalized.end(), k) == normalized.end()) {
      dims.push_back(d);
    } else if (d.IsLiteral() && d.literal() != 1) {
      return ctx.Error(absl::StrCat("cannot squeeze dim ", k, " of ", DimsToString(*in.dims),
                                    ": it is ", d.literal(), ", not 1"));
    }
  }
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// Tile: dims[i] * repeats[i] (opset 6+); opset 1 repeats one axis: inputs (input, tiles, axis).
absl::Status InferTile(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  if (ctx.opset() < 6) {
    std::optional<IndexExprList> tiles = IntValues(ctx, 1);
    std::optional<std::vector<int64_t>> axis = ctx.InputLiteralValues(2);
    if (!in.dims) return absl::OkStatus();
    DimsExpr dims = *in.dims;
    if (!tiles || tiles->size() != 1 || !axis || axis->size() != 1) {
      out.dims = ctx.UnboundedDims(in.rank());
      return absl::OkStatus();
    }
    ANVIL_ASSIGN_OR_RETURN(int64_t a, ctx.NormalizeAxis((*axis)[0], in.rank(), "axis"));
    dims[a] = dims[a] * (*tiles)[0];
    out.dims = std::move(dims);
    return absl::OkStatus();
  }
  std::optional<IndexExprList> repeats = IntValues(ctx, 1);
  if (!repeats) {
    std::optional<int64_t> length = InputLength(ctx, 1);
    if (in.dims || length) out.dims = ctx.UnboundedDims(in.dims ? in.rank() : *length);
    return absl::OkStatus();
  }
  if (!in.dims) {
    out.dims = UnknownDims(static_cast<int64_t>(repeats->size()));
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(repeats->size()) != in.rank()) {
    return ctx.Error(
        absl::StrCat("repeats ", DimsToString(*repeats), " for input ", DimsToString(*in.dims)));
  }
  DimsExpr dims;
  for (int64_t k = 0; k < in.rank(); ++k) {
    const IndexExpr& r = (*repeats)[k];
    if (r.IsLiteral() && r.literal() < 0) {
      return ctx.Error(absl::StrCat("negative repeats ", DimsToString(*repeats)));
    }
    dims.push_back((*in.dims)[k] * r);
  }
  out.dims = std::move(dims);
  // 1-D values repeat whole (Tile of a shape vector).
  if (in.values && in.rank() == 1 && (*repeats)[0].IsLiteral() &&
      static_cast<int64_t>(in.values->size()) * (*repeats)[0].literal() <= kMaxValues) {
    IndexExprList values;
    for (int64_t t = 0; t < (*repeats)[0].literal(); ++t) {
      values.insert(values.end(), in.values->begin(), in.values->end());
    }
    out.values = std::move(values);
  }
  return absl::OkStatus();
}

// Transpose: out[i] = dims[perm[i]], perm defaulting to the reverse.
absl::Status InferTranspose(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  const Attribute* perm_attr = ctx.node().FindAttribute("perm");
  const bool has_perm = perm_attr != nullptr;
  absl::InlinedVector<int64_t, 8> perm;
  if (has_perm) perm.assign(perm_attr->ints.begin(), perm_attr->ints.end());
  if (!in.dims) {
    if (has_perm) out.dims = UnknownDims(static_cast<int64_t>(perm.size()));
    return absl::OkStatus();
  }
  const int64_t rank = in.rank();
  if (!has_perm) {
    for (int64_t k = rank - 1; k >= 0; --k) perm.push_back(k);
  }
  absl::InlinedVector<int64_t, 8> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool is_permutation = sorted.size() == static_cast<size_t>(rank);
  for (int64_t k = 0; is_permutation && k < rank; ++k) is_permutation = sorted[k] == k;
  if (!is_permutation) {
    return ctx.Error(absl::StrCat("perm [", absl::StrJoin(perm, ", "),
                                  "] is not a permutation of the dims of ",
                                  DimsToString(*in.dims)));
  }
  DimsExpr dims;
  for (int64_t p : perm) dims.push_back((*in.dims)[p]);
  out.dims = std::move(dims);
  if (ShapeFacts* facts = ctx.facts()) facts->axes.assign(perm.begin(), perm.end());
  // Values of small tensors with literal dims move with their elements.
  std::optional<std::vector<int64_t>> literal = LiteralDims(*in.dims);
  if (in.values && literal) {
    std::vector<int64_t> strides(rank, 1);
    for (int64_t k = rank - 1; k > 0; --k) strides[k - 1] = strides[k] * (*literal)[k];
    std::vector<int64_t> index(rank, 0);
    IndexExprList values;
    for (size_t n = 0; n < in.values->size(); ++n) {
      int64_t offset = 0;
      for (int64_t k = 0; k < rank; ++k) offset += index[k] * strides[perm[k]];
      values.push_back((*in.values)[offset]);
      for (int64_t k = rank; k-- > 0;) {  // odometer over the output's dims
        if (++index[k] < (*literal)[perm[k]]) break;
        index[k] = 0;
      }
    }
    out.values = std::move(values);
  }
  return absl::OkStatus();
}

// Unsqueeze: inserts 1s at `axes` (attribute before opset 13, input after), which index the
// output.
absl::Status InferUnsqueeze(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/true);
  const IntList axes = ReadAxes(ctx);
  if (!axes.present) return ctx.Error("missing axes");
  if (!in.dims) return absl::OkStatus();
  if (!axes.known) {
    // Each dim is an inserted 1 or one of the input's.
    const std::optional<int64_t> length = AxesLength(ctx);
    if (length) {
      DimsExpr all = *in.dims;
      all.push_back(1);
      out.dims = ctx.DataDependentDims(in.rank() + *length, 0, Max(absl::MakeConstSpan(all)));
    }
    return absl::OkStatus();
  }
  const int64_t rank = in.rank() + static_cast<int64_t>(axes.values.size());
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> normalized, NormalizeAxes(ctx, axes.values, rank));
  DimsExpr dims;
  auto next = in.dims->begin();
  for (int64_t k = 0; k < rank; ++k) {
    const bool inserted = std::find(normalized.begin(), normalized.end(), k) != normalized.end();
    dims.push_back(inserted ? IndexExpr(1) : *next++);
  }
  out.dims = std::move(dims);
  return absl::OkStatus();
}

// Upsample: floor(dim * scale); scales as attributes height_scale/width_scale on 4-D input
// (opset 1), attribute `scales` (7), input 1 (9+).
absl::Status InferUpsample(ShapeContext& ctx) {
  const TensorInfo& in = ctx.Input(0);
  TensorInfo& out = LayoutOutput(ctx, /*same_order=*/false);
  std::optional<std::vector<double>> scales;
  if (ctx.opset() < 7) {
    scales = std::vector<double>{1, 1, ctx.node().GetFloat("height_scale", 1),
                                 ctx.node().GetFloat("width_scale", 1)};
  } else if (ctx.opset() < 9) {
    const Attribute* a = ctx.node().FindAttribute("scales");
    if (a == nullptr) return ctx.Error("missing attribute scales");
    scales = std::vector<double>(a->floats.begin(), a->floats.end());
  } else {
    scales = DoubleValues(ctx, 1);
  }
  if (!in.dims) {
    if (scales) out.dims = UnknownDims(static_cast<int64_t>(scales->size()));
    return absl::OkStatus();
  }
  if (!scales) {
    out.dims = ctx.UnboundedDims(in.rank());
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(out.dims, ScaleDims(ctx, *in.dims, *scales));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::shape_family
