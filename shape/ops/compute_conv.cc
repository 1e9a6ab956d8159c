// Compute ops, part 2: sliding windows (Conv, ConvInteger, QLinearConv, ConvTranspose, the
// pools, MaxUnpool), global pools, RoI pooling and GridSample.
//
// Spatial output sizes are exact IndexExprs, so a dynamic H gives `floor((H - 1) / 2) + 1`
// rather than a fresh unknown:
//   explicit pads (NOTSET), VALID (pads 0):  floor((in + pb + pe - ((k - 1)*d + 1)) / s) + 1,
//                                            ceil(...) + 1 for pools with ceil_mode
//   SAME_UPPER, SAME_LOWER:                  ceil(in / s)
// ceil_mode follows the formula of the opset <= 17 spec text (and ONNX 1.12's inference): no
// correction for a last window that would start in the end padding. With auto_pad other than
// NOTSET, `pads` is ignored, as ONNX Runtime does (the spec forbids giving both).
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"

namespace anvil::shape_ops::compute {
namespace {

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

absl::StatusOr<AutoPad> ReadAutoPad(const ShapeContext& ctx) {
  const std::string s = ctx.node().GetString("auto_pad", "NOTSET");
  // Some old exporters write an empty string for the default.
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "VALID") return AutoPad::kValid;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  return ctx.Error(
      absl::StrCat("auto_pad '", s, "' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER"));
}

// An ints attribute holding `n` values, each >= `min_value`; `n` copies of `fill` when absent.
absl::StatusOr<std::vector<int64_t>> ReadInts(const ShapeContext& ctx, std::string_view name,
                                              size_t n, int64_t fill, int64_t min_value) {
  if (ctx.node().FindAttribute(name) == nullptr) return std::vector<int64_t>(n, fill);
  std::vector<int64_t> values = ctx.node().GetInts(name);
  if (values.size() != n) {
    return ctx.Error(absl::StrCat("attribute '", AsAbsl(name), "' has ", values.size(),
                                  " values, expected ", n));
  }
  // Window sizes beyond the int32 range are never meant, and products of them with dims could
  // overflow the kernels' index arithmetic (found by //fuzz:model_fuzzer: pads of INT64_MAX).
  constexpr int64_t kLimit = std::numeric_limits<int32_t>::max();
  for (int64_t v : values) {
    if (v < min_value) {
      return ctx.Error(absl::StrCat("attribute '", AsAbsl(name), "' [", absl::StrJoin(values, ", "),
                                    "] must be >= ", min_value));
    }
    if (v > kLimit || v < -kLimit) {
      return ctx.Error(absl::StrCat("attribute '", AsAbsl(name), "' [", absl::StrJoin(values, ", "),
                                    "] must be within the int32 range"));
    }
  }
  return values;
}

// The attributes of a sliding window over `spatial` dims.
struct Window {
  DimsExpr kernel;  // symbolic when read from a dynamic W
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // begins, then ends
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;
};

// `w_kernel` is the kernel W implies (Conv), checked against kernel_shape when both are given;
// without either the kernel is unknown (questionmarks) unless `kernel_required` (pools).
absl::StatusOr<Window> ReadWindow(const ShapeContext& ctx, size_t spatial,
                                  const std::optional<DimsExpr>& w_kernel, bool kernel_required) {
  Window w;
  if (ctx.node().FindAttribute("kernel_shape") != nullptr) {
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> k, ReadInts(ctx, "kernel_shape", spatial, 1, 1));
    for (size_t i = 0; i < spatial; ++i) {
      w.kernel.push_back(k[i]);
      if (w_kernel && ProvablyDifferent((*w_kernel)[i], k[i])) {
        return ctx.Error(absl::StrCat("kernel_shape [", absl::StrJoin(k, ", "),
                                      "] differs from W's spatial dims ", DimsToString(*w_kernel)));
      }
    }
  } else if (kernel_required) {
    return ctx.Error("attribute 'kernel_shape' is required");
  } else {
    w.kernel = w_kernel ? *w_kernel : UnknownDims(static_cast<int64_t>(spatial));
  }
  ANVIL_ASSIGN_OR_RETURN(w.strides, ReadInts(ctx, "strides", spatial, 1, 1));
  ANVIL_ASSIGN_OR_RETURN(w.dilations, ReadInts(ctx, "dilations", spatial, 1, 1));
  // Negative pads are outside the spec, but the formula stays meaningful (a crop), so they are
  // not rejected here.
  ANVIL_ASSIGN_OR_RETURN(
      w.pads, ReadInts(ctx, "pads", 2 * spatial, 0, std::numeric_limits<int64_t>::min()));
  ANVIL_ASSIGN_OR_RETURN(w.auto_pad, ReadAutoPad(ctx));
  return w;
}

// Output size of spatial dim `i` for input size `in`.
absl::StatusOr<IndexExpr> WindowOutputDim(const ShapeContext& ctx, const Window& w, size_t i,
                                          const IndexExpr& in) {
  const int64_t s = w.strides[i];
  if (w.auto_pad == AutoPad::kSameUpper || w.auto_pad == AutoPad::kSameLower) {
    return CeilDiv(in, s);
  }
  const IndexExpr effective_kernel = (w.kernel[i] - 1) * w.dilations[i] + 1;
  IndexExpr padded = in;
  // auto_pad VALID means no padding whatever `pads` says.
  if (w.auto_pad == AutoPad::kNotSet) padded = in + (w.pads[i] + w.pads[i + w.kernel.size()]);
  const IndexExpr span = padded - effective_kernel;
  if (span.IsLiteral() && span.literal() < 0) {
    return ctx.Error(absl::StrCat("spatial dim ", i, ": the window (effective size ",
                                  effective_kernel.ToString(), ") exceeds the padded input (",
                                  padded.ToString(), ")"));
  }
  return (w.ceil_mode ? CeilDiv(span, s) : FloorDiv(span, s)) + 1;
}

// [N, C, out...] from X's dims (`x` may be nullopt: N, C and the spatial dims unknown, except
// that SAME needs only the input).
absl::StatusOr<DimsExpr> WindowOutputDims(const ShapeContext& ctx, const Window& w,
                                          const std::optional<DimsExpr>& x,
                                          const IndexExpr& channels) {
  DimsExpr out = {x ? (*x)[0] : IndexExpr::Questionmark(), channels};
  for (size_t i = 0; i < w.kernel.size(); ++i) {
    if (!x) {
      out.push_back(IndexExpr::Questionmark());
      continue;
    }
    ANVIL_ASSIGN_OR_RETURN(IndexExpr d, WindowOutputDim(ctx, w, i, (*x)[i + 2]));
    out.push_back(std::move(d));
  }
  return out;
}

absl::Status CheckMinRank(const ShapeContext& ctx, const std::optional<DimsExpr>& dims,
                          size_t min_rank, std::string_view what) {
  if (dims && dims->size() < min_rank) {
    return ctx.Error(
        absl::StrCat(AsAbsl(what), " must have rank >= ", min_rank, ", got ", DimsToString(*dims)));
  }
  return absl::OkStatus();
}

// The window of a convolution (Conv-like or ConvTranspose) with X [N, C, in...] and W
// [., ., k...], after checking that both have rank >= 2 and the same rank. Its spatial rank is
// X's, else W's, else kernel_shape's length; nullopt when none of them is known.
absl::StatusOr<std::optional<Window>> ReadConvWindow(const ShapeContext& ctx,
                                                     const std::optional<DimsExpr>& x,
                                                     const std::optional<DimsExpr>& w) {
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, x, 2, "X"));
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, w, 2, "W"));
  if (x && w && x->size() != w->size()) {
    return ctx.Error(
        absl::StrCat("X ", DimsToString(*x), " and W ", DimsToString(*w), " have different ranks"));
  }
  int64_t spatial = -1;
  if (x) {
    spatial = static_cast<int64_t>(x->size()) - 2;
  } else if (w) {
    spatial = static_cast<int64_t>(w->size()) - 2;
  } else if (ctx.node().FindAttribute("kernel_shape") != nullptr) {
    spatial = static_cast<int64_t>(ctx.node().GetInts("kernel_shape").size());
  }
  if (spatial < 0) return std::optional<Window>();
  std::optional<DimsExpr> w_kernel;
  if (w) w_kernel = DimsExpr(w->begin() + 2, w->end());
  ANVIL_ASSIGN_OR_RETURN(Window window,
                         ReadWindow(ctx, spatial, w_kernel, /*kernel_required=*/false));
  return std::optional<Window>(std::move(window));
}

// The `group` attribute of a convolution, at least 1.
absl::StatusOr<int64_t> ReadGroup(const ShapeContext& ctx) {
  const int64_t group = ctx.node().GetInt("group", 1);
  if (group < 1) return ctx.Error(absl::StrCat("group ", group, " must be >= 1"));
  return group;
}

// The spatial rank of a pool with X [N, C, in...], whose kernel_shape is required: X's, else
// kernel_shape's length.
absl::StatusOr<size_t> PoolSpatialRank(const ShapeContext& ctx, const std::optional<DimsExpr>& x) {
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, x, 2, "X"));
  if (ctx.node().FindAttribute("kernel_shape") == nullptr) {
    return ctx.Error("attribute 'kernel_shape' is required");
  }
  return x ? x->size() - 2 : ctx.node().GetInts("kernel_shape").size();
}

// Appends spatial output dim `i`, `d`, of an op that undoes a window (ConvTranspose,
// MaxUnpool) to `out`: an error when it is negative, the pads exceeding the input `x`.
absl::Status AppendUnpaddedDim(const ShapeContext& ctx, size_t i, IndexExpr d, const DimsExpr& x,
                               DimsExpr* out) {
  if (d.IsLiteral() && d.literal() < 0) {
    return ctx.Error(absl::StrCat("spatial dim ", i, " of the output is negative (", d.literal(),
                                  "): the pads exceed the input ", DimsToString(x)));
  }
  out->push_back(std::move(d));
  return absl::OkStatus();
}

// Conv, ConvInteger, QLinearConv: X [N, C, in...], W [M, C/group, k...] -> [N, M, out...].
absl::Status ConvLike(ShapeContext& ctx, int x_index, int w_index, ElementType type) {
  const std::optional<DimsExpr>& x = ctx.InputDims(x_index);
  const std::optional<DimsExpr>& w = ctx.InputDims(w_index);
  ANVIL_ASSIGN_OR_RETURN(const std::optional<Window> window, ReadConvWindow(ctx, x, w));
  if (!window) {
    ctx.SetOutput(0, type, std::nullopt);
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(const int64_t group, ReadGroup(ctx));
  if (x && w && ProvablyDifferent((*x)[1], (*w)[1] * group)) {
    return ctx.Error(absl::StrCat("X ", DimsToString(*x), " has ", (*x)[1].ToString(),
                                  " channels but W ", DimsToString(*w), " with group ", group,
                                  " expects ", ((*w)[1] * group).ToString()));
  }
  const IndexExpr m = w ? (*w)[0] : IndexExpr::Questionmark();
  if (m.IsLiteral() && m.literal() % group != 0) {
    return ctx.Error(absl::StrCat("W ", DimsToString(*w), ": ", m.literal(),
                                  " output channels are not divisible by group ", group));
  }
  ANVIL_ASSIGN_OR_RETURN(DimsExpr out, WindowOutputDims(ctx, *window, x, m));
  ctx.SetOutput(0, type, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status InferConv(ShapeContext& ctx) { return ConvLike(ctx, 0, 1, ctx.InputType(0)); }

// The channel block of a com.anvil.nchwc op (attribute `block`, >= 1).
absl::StatusOr<int64_t> ReadBlock(const ShapeContext& ctx) {
  const int64_t block = ctx.node().GetInt("block", 0);
  if (block < 1) return ctx.Error(absl::StrCat("block ", block, " must be >= 1"));
  return block;
}

// `c` rounded up to a multiple of `block`: the channels of a blocked tensor.
IndexExpr BlockedChannels(const IndexExpr& c, int64_t block) {
  return CeilDiv(c, IndexExpr::Literal(block)) * IndexExpr::Literal(block);
}

// com.anvil.nchwc Conv: X blocked [N, ceil(C / B) * B, in...] (with planar_input = 1: NCHW
// [N, C, in...]), W [M, C / group, k...] (ONNX's layout) -> Y blocked [N, ceil(M / B) * B, out...].
absl::Status InferNchwcConv(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const int64_t block, ReadBlock(ctx));
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& w = ctx.InputDims(1);
  ANVIL_ASSIGN_OR_RETURN(const std::optional<Window> window, ReadConvWindow(ctx, x, w));
  if (!window) {
    ctx.SetOutput(0, ctx.InputType(0), std::nullopt);
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(const int64_t group, ReadGroup(ctx));
  // With planar_input = 1, X is NCHW (not blocked): a first layer's few channels.
  const bool planar = ctx.node().GetInt("planar_input", 0) == 1;
  if (planar && x && w && ProvablyDifferent((*x)[1], (*w)[1] * group)) {
    return ctx.Error(absl::StrCat("X ", DimsToString(*x), " and W ", DimsToString(*w),
                                  " do not match for group ", group));
  }
  if (!planar && x && w && ProvablyDifferent((*x)[1], BlockedChannels((*w)[1] * group, block))) {
    return ctx.Error(absl::StrCat("blocked X ", DimsToString(*x), " does not hold the ",
                                  ((*w)[1] * group).ToString(), " channels of W ", DimsToString(*w),
                                  " (group ", group, ") in blocks of ", block));
  }
  const IndexExpr m = w ? BlockedChannels((*w)[0], block) : IndexExpr::Questionmark();
  ANVIL_ASSIGN_OR_RETURN(DimsExpr out, WindowOutputDims(ctx, *window, x, m));
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// com.anvil.nchwc ReorderInput: [N, C, spatial...] -> blocked [N, ceil(C / B) * B, spatial...];
// ReorderOutput (attribute `channels`): back to [N, channels, spatial...].
absl::Status InferNchwcReorder(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const int64_t block, ReadBlock(ctx));
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, dims, 2, "X"));
  if (dims) {
    if (ctx.node().op_type() == "ReorderInput") {
      (*dims)[1] = BlockedChannels((*dims)[1], block);
    } else {
      const int64_t channels = ctx.node().GetInt("channels", -1);
      if (channels < 0) return ctx.Error("attribute 'channels' (>= 0) is required");
      if (ProvablyDifferent((*dims)[1], BlockedChannels(IndexExpr::Literal(channels), block))) {
        return ctx.Error(absl::StrCat("blocked X ", DimsToString(*dims), " does not hold ",
                                      channels, " channels in blocks of ", block));
      }
      (*dims)[1] = IndexExpr::Literal(channels);
    }
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(dims));
  return absl::OkStatus();
}

// com.anvil.nchwc Pad <channels>: X blocked [N, Cp, spatial...] -> [N, ceil(channels / B) * B,
// spatial...] (zero channels appended).
absl::Status InferNchwcPad(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const int64_t block, ReadBlock(ctx));
  std::optional<DimsExpr> dims = ctx.InputDims(0);
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, dims, 2, "X"));
  const int64_t channels = ctx.node().GetInt("channels", -1);
  if (channels < 0) return ctx.Error("attribute 'channels' (>= 0) is required");
  if (dims) (*dims)[1] = BlockedChannels(IndexExpr::Literal(channels), block);
  ctx.SetOutput(0, ctx.InputType(0), std::move(dims));
  return absl::OkStatus();
}

// com.anvil.nchwc Mul: X blocked [N, Cp, spatial...] scaled per channel by S blocked [N, Cp, 1,
// ...] -> X's dims.
absl::Status InferNchwcScale(ShapeContext& ctx) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& s = ctx.InputDims(1);
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, x, 2, "X"));
  if (x && s) {
    bool ok = s->size() == x->size() && !ProvablyDifferent((*s)[0], (*x)[0]) &&
              !ProvablyDifferent((*s)[1], (*x)[1]);
    for (size_t i = 2; ok && i < s->size(); ++i) {
      ok = !ProvablyDifferent((*s)[i], IndexExpr::Literal(1));
    }
    if (!ok) {
      return ctx.Error(
          absl::StrCat("S ", DimsToString(*s), " must be [N, C, 1, ...] for X ", DimsToString(*x)));
    }
  }
  ctx.SetOutput(0, ctx.InputType(0), x);
  return absl::OkStatus();
}

// ConvInteger-10: x, w, x_zero_point, w_zero_point; accumulates in int32.
absl::Status InferConvInteger(ShapeContext& ctx) {
  return ConvLike(ctx, 0, 1, ElementType::kInt32);
}

// QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B;
// the result is quantized like y_zero_point.
absl::Status InferQLinearConv(ShapeContext& ctx) { return ConvLike(ctx, 0, 3, ctx.InputType(7)); }

// ConvTranspose: X [N, C, in...], W [C, M/group, k...] -> [N, M, out...] with
//   out = s*(in - 1) + output_padding + ((k - 1)*d + 1) - pb - pe   (explicit pads; VALID: 0)
//   out = in*s                                                       (SAME_UPPER, SAME_LOWER)
// or the `output_shape` attribute (spatial dims, or all dims as some exporters write it).
absl::Status InferConvTranspose(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const ElementType type = ctx.InputType(0);
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& w = ctx.InputDims(1);
  ANVIL_ASSIGN_OR_RETURN(const std::optional<Window> window, ReadConvWindow(ctx, x, w));
  if (!window) {
    ctx.SetOutput(0, type, std::nullopt);
    return absl::OkStatus();
  }
  const int64_t spatial = static_cast<int64_t>(window->strides.size());
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> output_padding,
                         ReadInts(ctx, "output_padding", spatial, 0, 0));

  ANVIL_ASSIGN_OR_RETURN(const int64_t group, ReadGroup(ctx));
  if (x && w && ProvablyDifferent((*x)[1], (*w)[0])) {
    return ctx.Error(absl::StrCat("X ", DimsToString(*x), " has ", (*x)[1].ToString(),
                                  " channels but W ", DimsToString(*w), " expects ",
                                  (*w)[0].ToString()));
  }
  DimsExpr out = {x ? (*x)[0] : IndexExpr::Questionmark(),
                  w ? (*w)[1] * group : IndexExpr::Questionmark()};
  if (node.FindAttribute("output_shape") != nullptr) {
    const std::vector<int64_t> output_shape = node.GetInts("output_shape");
    const size_t n = output_shape.size();
    if (n != static_cast<size_t>(spatial) && n != static_cast<size_t>(spatial) + 2) {
      return ctx.Error(absl::StrCat("output_shape [", absl::StrJoin(output_shape, ", "), "] has ",
                                    n, " values for ", spatial, " spatial dims"));
    }
    for (size_t i = n - spatial; i < n; ++i) out.push_back(output_shape[i]);
    ctx.SetOutput(0, type, std::move(out));
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < spatial; ++i) {
    if (!x) {
      out.push_back(IndexExpr::Questionmark());
      continue;
    }
    const IndexExpr& in = (*x)[i + 2];
    const int64_t s = window->strides[i];
    if (window->auto_pad == AutoPad::kSameUpper || window->auto_pad == AutoPad::kSameLower) {
      out.push_back(in * s);
      continue;
    }
    IndexExpr d =
        (in - 1) * s + output_padding[i] + ((window->kernel[i] - 1) * window->dilations[i] + 1);
    if (window->auto_pad == AutoPad::kNotSet) {
      d = d - (window->pads[i] + window->pads[i + spatial]);
    }
    ANVIL_RETURN_IF_ERROR(AppendUnpaddedDim(ctx, i, std::move(d), *x, &out));
  }
  ctx.SetOutput(0, type, std::move(out));
  return absl::OkStatus();
}

// AveragePool, MaxPool, LpPool: X [N, C, in...] -> [N, C, out...]; kernel_shape is required.
// ceil_mode exists from opset 10 (absent before: floor); MaxPool's optional Indices (opset 8)
// has Y's dims and is int64.
absl::Status InferPool(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const ElementType type = ctx.InputType(0);
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  ANVIL_ASSIGN_OR_RETURN(const size_t spatial, PoolSpatialRank(ctx, x));
  ANVIL_ASSIGN_OR_RETURN(Window window,
                         ReadWindow(ctx, spatial, std::nullopt, /*kernel_required=*/true));
  window.ceil_mode = node.GetInt("ceil_mode", 0) != 0;
  ANVIL_ASSIGN_OR_RETURN(DimsExpr out,
                         WindowOutputDims(ctx, window, x, x ? (*x)[1] : IndexExpr::Questionmark()));
  ctx.SetOutput(0, type, out);
  if (node.op_type() == "MaxPool") ctx.SetOutput(1, ElementType::kInt64, std::move(out));
  return absl::OkStatus();
}

// MaxUnpool: X [N, C, in...], I, optional output_shape -> output_shape's values, else
// [N, C, (in - 1)*s - pb - pe + k...].
absl::Status InferMaxUnpool(ShapeContext& ctx) {
  const ElementType type = ctx.InputType(0);
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  ANVIL_ASSIGN_OR_RETURN(const size_t spatial, PoolSpatialRank(ctx, x));
  if (ctx.HasInput(2)) {
    std::optional<DimsExpr> out;
    if (const std::optional<IndexExprList>& values = ctx.InputValues(2)) {
      out = DimsExpr(values->begin(), values->end());
    } else if (std::optional<DimsExpr> shape_dims = ctx.InputDims(2);
               shape_dims && shape_dims->size() == 1 && (*shape_dims)[0].IsLiteral() &&
               (*shape_dims)[0].literal() <= kMaxDerivedRank) {
      out = ctx.UnboundedDims((*shape_dims)[0].literal());
    } else {
      out = ctx.UnboundedDims(static_cast<int64_t>(spatial) + 2);
    }
    if (out->size() != spatial + 2) {
      return ctx.Error(absl::StrCat("output_shape ", DimsToString(*out), " has ", out->size(),
                                    " values for an input of rank ", spatial + 2));
    }
    if (x) {
      for (size_t i = 0; i < 2; ++i) {
        ANVIL_ASSIGN_OR_RETURN(IndexExpr d, UnifyDims(ctx, (*out)[i], (*x)[i],
                                                      i == 0 ? "output_shape and X batch"
                                                             : "output_shape and X channels"));
        (*out)[i] = std::move(d);
      }
    }
    ctx.SetOutput(0, type, std::move(out));
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(Window window,
                         ReadWindow(ctx, spatial, std::nullopt, /*kernel_required=*/true));
  DimsExpr out = {x ? (*x)[0] : IndexExpr::Questionmark(), x ? (*x)[1] : IndexExpr::Questionmark()};
  for (size_t i = 0; i < spatial; ++i) {
    if (!x) {
      out.push_back(IndexExpr::Questionmark());
      continue;
    }
    IndexExpr d = ((*x)[i + 2] - 1) * window.strides[i] + window.kernel[i] -
                  (window.pads[i] + window.pads[i + spatial]);
    ANVIL_RETURN_IF_ERROR(AppendUnpaddedDim(ctx, i, std::move(d), *x, &out));
  }
  ctx.SetOutput(0, type, std::move(out));
  return absl::OkStatus();
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, in...] -> [N, C, 1...].
absl::Status InferGlobalPool(ShapeContext& ctx) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, x, 2, "X"));
  std::optional<DimsExpr> out;
  if (x) {
    out = DimsExpr(x->begin(), x->begin() + 2);
    out->resize(x->size(), IndexExpr(1));
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// MaxRoiPool: X [N, C, H, W], rois [num_rois, 5] -> [num_rois, C, pooled_h, pooled_w].
absl::Status InferMaxRoiPool(ShapeContext& ctx) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& rois = ctx.InputDims(1);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, x, 4, "X"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, rois, 2, "rois"));
  if (rois && ProvablyDifferent((*rois)[1], 5)) {
    return ctx.Error(absl::StrCat("rois ", DimsToString(*rois),
                                  " must be [num_rois, 5] (batch_id, x1, y1, x2, y2)"));
  }
  if (ctx.node().FindAttribute("pooled_shape") == nullptr) {
    return ctx.Error("attribute 'pooled_shape' is required");
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> pooled, ReadInts(ctx, "pooled_shape", 2, 1, 1));
  ctx.SetOutput(0, ctx.InputType(0),
                DimsExpr{rois ? (*rois)[0] : IndexExpr::Questionmark(),
                         x ? (*x)[1] : IndexExpr::Questionmark(), pooled[0], pooled[1]});
  return absl::OkStatus();
}

// RoiAlign: X [N, C, H, W], rois [num_rois, 4], batch_indices [num_rois] ->
// [num_rois, C, output_height, output_width].
absl::Status InferRoiAlign(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& rois = ctx.InputDims(1);
  const std::optional<DimsExpr>& batch_indices = ctx.InputDims(2);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, x, 4, "X"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, rois, 2, "rois"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, batch_indices, 1, "batch_indices"));
  if (rois && ProvablyDifferent((*rois)[1], 4)) {
    return ctx.Error(
        absl::StrCat("rois ", DimsToString(*rois), " must be [num_rois, 4] (x1, y1, x2, y2)"));
  }
  ANVIL_ASSIGN_OR_RETURN(IndexExpr num_rois,
                         UnifyDims(ctx, rois ? (*rois)[0] : IndexExpr::Questionmark(),
                                   batch_indices ? (*batch_indices)[0] : IndexExpr::Questionmark(),
                                   "num_rois of rois and batch_indices"));
  const int64_t height = node.GetInt("output_height", 1);
  const int64_t width = node.GetInt("output_width", 1);
  if (height < 1 || width < 1) {
    return ctx.Error(
        absl::StrCat("output_height ", height, " and output_width ", width, " must be >= 1"));
  }
  ctx.SetOutput(0, ctx.InputType(0),
                DimsExpr{num_rois, x ? (*x)[1] : IndexExpr::Questionmark(), height, width});
  return absl::OkStatus();
}

// GridSample-16: X [N, C, H, W], grid [N, H_out, W_out, 2] -> [N, C, H_out, W_out]. (Written
// for any number of spatial dims: grid [N, out..., rank - 2].)
absl::Status InferGridSample(ShapeContext& ctx) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& grid = ctx.InputDims(1);
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, x, 3, "X"));
  ANVIL_RETURN_IF_ERROR(CheckMinRank(ctx, grid, 3, "grid"));
  if (x && grid && x->size() != grid->size()) {
    return ctx.Error(absl::StrCat("X ", DimsToString(*x), " and grid ", DimsToString(*grid),
                                  " have different ranks"));
  }
  if (grid && ProvablyDifferent(grid->back(), static_cast<int64_t>(grid->size()) - 2)) {
    return ctx.Error(absl::StrCat("grid ", DimsToString(*grid), " must end in ", grid->size() - 2,
                                  " coordinates"));
  }
  if (!x && !grid) {
    ctx.SetOutput(0, ctx.InputType(0), std::nullopt);
    return absl::OkStatus();
  }
  const size_t rank = x ? x->size() : grid->size();
  ANVIL_ASSIGN_OR_RETURN(
      IndexExpr n, UnifyDims(ctx, x ? (*x)[0] : IndexExpr::Questionmark(),
                             grid ? (*grid)[0] : IndexExpr::Questionmark(), "batch of X and grid"));
  DimsExpr out = {n, x ? (*x)[1] : IndexExpr::Questionmark()};
  for (size_t i = 1; i + 1 < rank; ++i) {
    out.push_back(grid ? (*grid)[i] : IndexExpr::Questionmark());
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute
