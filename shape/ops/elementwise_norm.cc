// ShapeHelpers of the element-wise ops with extra outputs: BatchNormalization,
// LayerNormalization and Dropout. Their main output has the input's shape; the others are
// statistics or masks whose shapes follow from the input's and the op's version.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "shape/ops/elementwise.h"

namespace anvil::shape_ops::elementwise {

// Y has X's shape (N x C x D1 x ...). The optional training outputs (before opset 14 mean, var,
// saved_mean and saved_var; from 14 running_mean and running_var) hold one value per channel:
// [C], with C X's dim 1 (1 for a 1-D X) unified with the length of the per-channel inputs
// scale, B, mean and var. Before opset 9, spatial=0 normalized per element of C x D1 x ...
// instead: then the statistics have the mean input's dims.
absl::Status BatchNormalizationShape(ShapeContext& ctx) {
  const TensorInfo& x = ctx.Input(0);
  ctx.SetOutput(0, x.type, x.dims);

  std::optional<DimsExpr> stats;
  if (ctx.opset() < 9 && ctx.node().GetInt("spatial", 1) == 0) {
    stats = ctx.InputDims(3);
  } else {
    // The best known channel count and where it came from, for the error message.
    std::optional<IndexExpr> channels;
    std::string source;
    if (x.dims) {
      channels = x.dims->size() >= 2 ? (*x.dims)[1] : IndexExpr(1);
      source = absl::StrCat("X ", DimsToString(*x.dims));
    }
    static constexpr const char* kInputNames[] = {"X", "scale", "B", "mean", "var"};
    for (int i = 1; i <= 4; ++i) {
      const std::optional<DimsExpr>& dims = ctx.InputDims(i);
      if (!dims || dims->size() != 1) continue;
      const IndexExpr& c = (*dims)[0];
      if (channels && c.IsLiteral() && channels->IsLiteral() &&
          c.literal() != channels->literal()) {
        return ctx.Error(absl::StrCat("channel counts differ: ", source, " has ",
                                      channels->literal(), ", ", kInputNames[i], " ",
                                      DimsToString(*dims), " has ", c.literal()));
      }
      // Prefer a literal, then anything over a questionmark.
      if (!channels || (c.IsLiteral() && !channels->IsLiteral()) ||
          (channels->IsQuestionmark() && !c.IsQuestionmark())) {
        channels = c;
        source = absl::StrCat(kInputNames[i], " ", DimsToString(*dims));
      }
    }
    stats = DimsExpr{channels ? *channels : IndexExpr::Questionmark()};
  }

  if (ctx.opset() >= 14) {  // the statistics have their own type, the mean and var inputs'
    ctx.SetOutput(1, ctx.InputType(3), stats);
    ctx.SetOutput(2, ctx.InputType(4), stats);
  } else {
    for (int i = 1; i <= 4; ++i) ctx.SetOutput(i, x.type, stats);
  }
  return absl::OkStatus();
}

// Y has X's shape. Mean and InvStdDev reduce the axes from `axis` on, keeping them as 1s, in
// `stash_type` (float by default).
absl::Status LayerNormalizationShape(ShapeContext& ctx) {
  const TensorInfo& x = ctx.Input(0);
  ctx.SetOutput(0, x.type, x.dims);

  const int64_t stash_type = ctx.node().GetInt("stash_type", 1);
  const std::optional<ElementType> type = ElementTypeFromAttr(stash_type);
  if (!type) {
    return ctx.Error(
        absl::StrCat("attribute stash_type = ", stash_type, " is not an element type"));
  }
  std::optional<DimsExpr> stats;
  if (x.dims) {
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                           ctx.NormalizeAxis(ctx.node().GetInt("axis", -1),
                                             static_cast<int64_t>(x.dims->size()), "axis"));
    if (ShapeFacts* facts = ctx.facts()) facts->axes = {axis};
    stats = *x.dims;
    for (size_t k = axis; k < stats->size(); ++k) (*stats)[k] = 1;
  }
  ctx.SetOutput(1, *type, stats);
  ctx.SetOutput(2, *type, stats);
  return absl::OkStatus();
}

// The output is like the data; the optional mask has the data's shape, and is bool from opset
// 10 (before, it had the data's type).
absl::Status DropoutShape(ShapeContext& ctx) {
  const TensorInfo& x = ctx.Input(0);
  ctx.SetOutput(0, x.type, x.dims);
  ctx.SetOutput(1, ctx.opset() >= 10 ? ElementType::kBool : x.type, x.dims);
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::elementwise
