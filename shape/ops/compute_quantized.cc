// Compute ops, part 6: ONNX Runtime's com.microsoft quantized operators, the QOperator format its
// quantizer writes (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
// QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat, QGemm) and its dynamically
// quantized products (DynamicQuantizeMatMul, MatMulIntegerToFloat).
//
// ONNX's schema checker does not know the com.microsoft domain, so these rules check what ONNX
// Runtime's schemas require: the operand count, 8-bit data of one type where the op quantizes,
// float scales, and zero points of the data's type.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"
#include "shape/ops/shape_ops_internal.h"

namespace anvil::shape_ops::compute {
namespace {

absl::string_view TypeName(ElementType t) { return AsAbsl(ElementTypeName(t)); }

bool IsEightBit(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

// At least `min` inputs, the ones at `required` present.
absl::Status CheckOperands(const ShapeContext& ctx, int min, std::initializer_list<int> required) {
  if (ctx.num_inputs() < min) {
    return ctx.Error(absl::StrCat("needs at least ", min, " inputs, got ", ctx.num_inputs()));
  }
  for (int i : required) {
    if (!ctx.HasInput(i)) return ctx.Error(absl::StrCat("input ", i, " is required"));
  }
  return absl::OkStatus();
}

// Input `data` is 8-bit (when its type is known); the scale at `scale` float, and the zero point
// at `zero` (when present and known) of the data's type.
absl::Status CheckQuantized(const ShapeContext& ctx, int data, int scale, int zero,
                            ElementType data_type) {
  if (data >= 0 && ctx.InputType(data) != ElementType::kUndefined &&
      !IsEightBit(ctx.InputType(data))) {
    return ctx.Error(absl::StrCat("input ", data, " must be uint8 or int8, got ",
                                  TypeName(ctx.InputType(data))));
  }
  if (ctx.HasInput(scale) && ctx.InputType(scale) != ElementType::kUndefined &&
      ctx.InputType(scale) != ElementType::kFloat) {
    return ctx.Error(absl::StrCat("scale input ", scale, " must be float, got ",
                                  TypeName(ctx.InputType(scale))));
  }
  if (zero >= 0 && ctx.HasInput(zero) && data_type != ElementType::kUndefined &&
      ctx.InputType(zero) != ElementType::kUndefined && ctx.InputType(zero) != data_type) {
    return ctx.Error(absl::StrCat("zero point input ", zero, " is ", TypeName(ctx.InputType(zero)),
                                  ", its data is ", TypeName(data_type)));
  }
  return absl::OkStatus();
}

// The common form of the unary and pooling ops: X, X_scale, X_zero_point?, Y_scale,
// Y_zero_point?, with Y of X's type.
absl::Status CheckUnaryOperands(const ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 4, {0, 1, 3}));
  const ElementType t = ctx.InputType(0);
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 0, 1, 2, t));
  return CheckQuantized(ctx, -1, 3, 4, t);
}

}  // namespace

// QLinearAdd, QLinearMul: A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale,
// C_zero_point? -> C of A's type, A and B broadcast.
absl::Status InferQLinearBinary(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 7, {0, 1, 3, 4, 6}));
  const ElementType t = ctx.InputType(0);
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 0, 1, 2, t));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 3, 4, 5, t));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, -1, 6, 7, t));
  if (t != ElementType::kUndefined && ctx.InputType(3) != ElementType::kUndefined &&
      ctx.InputType(3) != t) {
    return ctx.Error(absl::StrCat("A is ", TypeName(t), ", B is ", TypeName(ctx.InputType(3))));
  }
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims, BroadcastInputs(ctx, {0, 3}));
  ctx.SetOutput(0, t, std::move(dims));
  return absl::OkStatus();
}

// QLinearSigmoid, QLinearLeakyRelu: Y has X's type and dims.
absl::Status InferQLinearUnary(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckUnaryOperands(ctx));
  ctx.SetOutput(0, ctx.InputType(0), ctx.InputDims(0));
  return absl::OkStatus();
}

// QLinearSoftmax: Y has X's type and dims; `opset` (the float Softmax's, required) decides the
// axis's meaning and default as Softmax's opset does (before 13: the 2-D split at axis).
absl::Status InferQLinearSoftmax(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckUnaryOperands(ctx));
  const Attribute* opset = ctx.node().FindAttribute("opset");
  if (opset == nullptr) return ctx.Error("missing attribute opset");
  const int64_t rank = ctx.InputRank(0);
  if (rank >= 0) {
    const int64_t axis = ctx.node().GetInt("axis", opset->i < 13 ? 1 : -1);
    ANVIL_RETURN_IF_ERROR(
        ctx.NormalizeAxis(axis, opset->i < 13 ? rank + 1 : rank, "axis").status());
  }
  ctx.SetOutput(0, ctx.InputType(0), ctx.InputDims(0));
  return absl::OkStatus();
}

// QLinearWhere: condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale,
// z_zero_point (all required) -> Z of X's type, the three broadcast.
absl::Status InferQLinearWhere(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 9, {0, 1, 2, 3, 4, 5, 6, 7, 8}));
  if (ctx.InputType(0) != ElementType::kUndefined && ctx.InputType(0) != ElementType::kBool) {
    return ctx.Error(absl::StrCat("condition must be bool, got ", TypeName(ctx.InputType(0))));
  }
  const ElementType t = ctx.InputType(1);
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 1, 2, 3, t));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 4, 5, 6, t));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, -1, 7, 8, t));
  if (t != ElementType::kUndefined && ctx.InputType(4) != ElementType::kUndefined &&
      ctx.InputType(4) != t) {
    return ctx.Error(absl::StrCat("X is ", TypeName(t), ", Y is ", TypeName(ctx.InputType(4))));
  }
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims, BroadcastInputs(ctx, {0, 1, 4}));
  ctx.SetOutput(0, t, std::move(dims));
  return absl::OkStatus();
}

// QLinearGlobalAveragePool: [N, C, in...] -> [N, C, 1...]; channels_last: [N, in..., C] ->
// [N, 1..., C].
absl::Status InferQLinearGlobalAveragePool(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckUnaryOperands(ctx));
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const bool channels_last = ctx.node().GetInt("channels_last", 0) != 0;
  if (x && x->size() < 3) {
    return ctx.Error(absl::StrCat("X ", DimsToString(*x), " needs rank >= 3"));
  }
  std::optional<DimsExpr> out;
  if (x) {
    out = DimsExpr(x->size(), IndexExpr(1));
    (*out)[0] = (*x)[0];
    const size_t c = channels_last ? x->size() - 1 : 1;
    (*out)[c] = (*x)[c];
  }
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// QLinearAveragePool: AveragePool's window rule on X [N, C, in...]. channels_last (an NHWC
// layout ONNX Runtime's own layout transformer writes, not its quantizer) is Unimplemented.
absl::Status InferQLinearAveragePool(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckUnaryOperands(ctx));
  if (ctx.node().GetInt("channels_last", 0) != 0) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.node().Describe(), ": QLinearAveragePool with channels_last = 1"));
  }
  return InferPool(ctx);
}

// QLinearConcat: Y_scale, Y_zero_point, then (X_i, X_i_scale, X_i_zero_point) per input; Y has
// Y_zero_point's type, the X_i concatenated along `axis` (required).
absl::Status InferQLinearConcat(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 5, {0, 1}));
  if ((ctx.num_inputs() - 2) % 3 != 0) {
    return ctx.Error(
        absl::StrCat("inputs after Y_scale and Y_zero_point come in triples (X, "
                     "X_scale, X_zero_point), got ",
                     ctx.num_inputs() - 2));
  }
  const Attribute* axis = ctx.node().FindAttribute("axis");
  if (axis == nullptr) return ctx.Error("missing attribute axis");
  const ElementType t = ctx.InputType(1);
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, -1, 0, 1, t));
  for (int i = 2; i < ctx.num_inputs(); i += 3) {
    if (!ctx.HasInput(i) || !ctx.HasInput(i + 1) || !ctx.HasInput(i + 2)) {
      return ctx.Error(absl::StrCat("input ", i, " and its scale and zero point are required"));
    }
    ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, i, i + 1, i + 2, t));
    if (t != ElementType::kUndefined && ctx.InputType(i) != ElementType::kUndefined &&
        ctx.InputType(i) != t) {
      return ctx.Error(absl::StrCat("input ", i, " is ", TypeName(ctx.InputType(i)),
                                    ", Y_zero_point is ", TypeName(t)));
    }
  }
  return shape_family::ConcatLike(ctx, 2, 3, t, axis->i);
}

// QGemm: A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?, y_scale?, y_zero_point? ->
// Gemm's [M, N]; quantized like y_zero_point with y_scale, float without it.
absl::Status InferQGemm(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 6, {0, 1, 2, 3, 4, 5}));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 0, 1, 2, ctx.InputType(0)));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 3, 4, 5, ctx.InputType(3)));
  ElementType out = ElementType::kFloat;
  if (ctx.HasInput(7)) {
    out = ctx.HasInput(8) ? ctx.InputType(8) : ctx.InputType(0);
    ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, -1, 7, 8, out));
  } else if (ctx.HasInput(8)) {
    return ctx.Error("y_zero_point without y_scale");
  }
  return GemmLike(ctx, 0, 3, 6, out);
}

// DynamicQuantizeMatMul: A (float), B (8-bit), b_scale, b_zero_point?, bias? -> float matmul.
absl::Status InferDynamicQuantizeMatMul(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 3, {0, 1, 2}));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 1, 2, 3, ctx.InputType(1)));
  return MatMulLike(ctx, 0, 1, ElementType::kFloat);
}

// MatMulIntegerToFloat: A, B (8-bit), a_scale, b_scale, a_zero_point?, b_zero_point?, bias? ->
// matmul of a_scale's type.
absl::Status InferMatMulIntegerToFloat(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckOperands(ctx, 4, {0, 1, 2, 3}));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 0, 2, 4, ctx.InputType(0)));
  ANVIL_RETURN_IF_ERROR(CheckQuantized(ctx, 1, 3, 5, ctx.InputType(1)));
  return MatMulLike(ctx, 0, 1, ElementType::kFloat);
}

}  // namespace anvil::shape_ops::compute
