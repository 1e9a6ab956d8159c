// Compute ops, part 5: the opset-17 signal ops DFT, STFT, HannWindow, HammingWindow,
// BlackmanWindow and MelWeightMatrix. Their sizes come from the values of scalar inputs
// (dft_length, frame_step, a window size), kept as exact expressions when those values are
// symbolic (e.g. computed from a Shape).
//
// Real and complex tensors share one layout: a last dim of 1 (real) or 2 (real, imaginary). The
// outputs are always complex (last dim 2).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"

namespace anvil::shape_ops::compute {
namespace {

// The last dim of a signal: 1 (real) or 2 (complex).
absl::Status CheckComponentDim(const ShapeContext& ctx, const DimsExpr& dims,
                               std::string_view what) {
  if (ProvablyDifferent(dims.back(), 1) && ProvablyDifferent(dims.back(), 2)) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " ", DimsToString(dims),
                                  " must end in a dim of 1 (real) or 2 (complex)"));
  }
  return absl::OkStatus();
}

// A size read from a scalar input; an error when it is a literal below `min_value`. A size only
// the run knows is a data-dependent dim of at least `min_value` named after it (`frame_step`):
// what is computed from it stays exact and bounded where it can be (STFT's frame count is at
// most the signal length when the step is at least 1).
absl::StatusOr<IndexExpr> SizeInput(const ShapeContext& ctx, int i, std::string_view what,
                                    int64_t min_value) {
  absl::StatusOr<IndexExpr> v = ScalarInputValue(ctx, i, what);
  if (!v.ok()) return v.status();
  if (v->IsQuestionmark()) return ctx.DataDependentDim(what, min_value, IndexExpr::Questionmark());
  if (v->IsLiteral() && v->literal() < min_value) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " ", v->literal(), " must be >= ", min_value));
  }
  return v;
}

// An output_datatype attribute (default float).
absl::StatusOr<ElementType> OutputDatatype(const ShapeContext& ctx) {
  const int64_t t = ctx.node().GetInt("output_datatype", 1);
  if (t < 0 || t > std::numeric_limits<int32_t>::max() ||
      !IsValidElementType(static_cast<int32_t>(t))) {
    return ctx.Error(absl::StrCat("output_datatype ", t, " is not a tensor element type"));
  }
  return static_cast<ElementType>(t);
}

}  // namespace

// DFT-17: input [batch, signal..., 1|2]; the `axis` dim (counted over the whole input, default
// 1 = the first signal dim; DFT-20: input 2, default -2) becomes dft_length (input 1, default: the
// dim itself), then floor(n / 2) + 1 when onesided; the last dim becomes 2.
absl::Status InferDft(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const bool onesided = node.GetInt("onesided", 0) != 0;
  if (onesided && node.GetInt("inverse", 0) != 0) {
    return ctx.Error("onesided and inverse cannot both be set");
  }
  std::optional<DimsExpr> out = ctx.InputDims(0);
  // DFT-20 moves the axis to input 2, default -2 (the last signal dim).
  int64_t axis_value = node.GetInt("axis", 1);
  if (ctx.opset() >= 20) {
    axis_value = -2;
    if (ctx.HasInput(2)) {
      ANVIL_ASSIGN_OR_RETURN(const IndexExpr a, ScalarInputValue(ctx, 2, "axis"));
      if (!a.IsLiteral()) {
        if (out) out = ctx.UnboundedDims(static_cast<int64_t>(out->size()));
        ctx.SetOutput(0, ctx.InputType(0), std::move(out));
        return absl::OkStatus();
      }
      axis_value = a.literal();
    }
  }
  if (out) {
    const int64_t rank = static_cast<int64_t>(out->size());
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, ctx.NormalizeAxis(axis_value, rank, "axis"));
    if (axis == rank - 1) {
      return ctx.Error(absl::StrCat("axis ", axis, " of ", DimsToString(*out),
                                    " is the real/imaginary component dim"));
    }
    ANVIL_RETURN_IF_ERROR(CheckComponentDim(ctx, *out, "input"));
    if (onesided && IsLiteralValue(out->back(), 2)) {
      return ctx.Error(
          absl::StrCat("a complex input ", DimsToString(*out), " has no onesided DFT"));
    }
    IndexExpr n = (*out)[axis];
    if (ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(n, SizeInput(ctx, 1, "dft_length", 1));
    }
    (*out)[axis] = onesided ? FloorDiv(n, 2) + 1 : n;
    out->back() = 2;
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// STFT-17: signal [batch, length, 1|2], frame_step, optional window [frame_length], optional
// frame_length -> [batch, frames, bins, 2] with
//   frames = floor((length - frame_length) / frame_step) + 1,
//   bins   = onesided (default) ? floor(frame_length / 2) + 1 : frame_length.
absl::Status InferStft(ShapeContext& ctx) {
  const std::optional<DimsExpr>& signal = ctx.InputDims(0);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, signal, 3, "signal"));
  const bool onesided = ctx.node().GetInt("onesided", 1) != 0;
  if (signal) {
    ANVIL_RETURN_IF_ERROR(CheckComponentDim(ctx, *signal, "signal"));
    if (onesided && IsLiteralValue(signal->back(), 2)) {
      return ctx.Error(
          absl::StrCat("a complex signal ", DimsToString(*signal), " has no onesided STFT"));
    }
  }
  ANVIL_ASSIGN_OR_RETURN(IndexExpr step, SizeInput(ctx, 1, "frame_step", 1));

  const bool has_window = ctx.HasInput(2);
  const bool has_length = ctx.HasInput(3);
  if (!has_window && !has_length) return ctx.Error("needs a window or a frame_length");
  IndexExpr length = IndexExpr::Questionmark();
  if (has_length) {
    ANVIL_ASSIGN_OR_RETURN(length, SizeInput(ctx, 3, "frame_length", 1));
  }
  if (has_window) {
    const std::optional<DimsExpr>& window = ctx.InputDims(2);
    ANVIL_RETURN_IF_ERROR(CheckRank(ctx, window, 1, "window"));
    if (window) {
      ANVIL_ASSIGN_OR_RETURN(
          length, UnifyDims(ctx, length, (*window)[0], "frame_length and the window length"));
    }
  }

  IndexExpr frames = IndexExpr::Questionmark();
  if (signal) {
    const IndexExpr span = (*signal)[1] - length;
    if (span.IsLiteral() && span.literal() < 0) {
      return ctx.Error(absl::StrCat("frame_length ", length.ToString(),
                                    " exceeds the signal length of ", DimsToString(*signal)));
    }
    frames = FloorDiv(span, step) + 1;
  }
  const IndexExpr bins = onesided ? FloorDiv(length, 2) + 1 : length;
  ctx.SetOutput(0, ctx.InputType(0),
                DimsExpr{signal ? (*signal)[0] : IndexExpr::Questionmark(), frames, bins, 2});
  return absl::OkStatus();
}

// HannWindow, HammingWindow, BlackmanWindow: [size] of output_datatype.
absl::Status InferWindow(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(IndexExpr size, SizeInput(ctx, 0, "size", 0));
  ANVIL_ASSIGN_OR_RETURN(ElementType type, OutputDatatype(ctx));
  ctx.SetOutput(0, type, DimsExpr{size});
  return absl::OkStatus();
}

// MelWeightMatrix-17: [floor(dft_length / 2) + 1, num_mel_bins] of output_datatype.
absl::Status InferMelWeightMatrix(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(IndexExpr bins, SizeInput(ctx, 0, "num_mel_bins", 0));
  ANVIL_ASSIGN_OR_RETURN(IndexExpr dft_length, SizeInput(ctx, 1, "dft_length", 1));
  ANVIL_ASSIGN_OR_RETURN(ElementType type, OutputDatatype(ctx));
  ctx.SetOutput(0, type, DimsExpr{FloorDiv(dft_length, 2) + 1, bins});
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute
