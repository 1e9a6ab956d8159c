// Compute ops, part 1: the kComputeRules table of the whole family, the helpers the compute*.cc
// files share, and the matrix products (MatMul, MatMulInteger, QLinearMatMul, Gemm, Einsum).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/einsum_dims.h"
#include "shape/einsum_equation.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"
#include "shape/shape_rules.h"

namespace anvil::shape_ops::compute {

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

bool ProvablyDifferent(const IndexExpr& a, const IndexExpr& b) {
  if (a.IsQuestionmark() || b.IsQuestionmark() || !a.IsDefined() || !b.IsDefined()) return false;
  if (a.IsLiteral() && b.IsLiteral()) return a.literal() != b.literal();
  const IndexExpr eq = Eq(a, b);
  return eq.IsKnown() && eq.literal() == 0;
}

absl::StatusOr<IndexExpr> UnifyDims(const ShapeContext& ctx, const IndexExpr& a, const IndexExpr& b,
                                    std::string_view what) {
  if (ProvablyDifferent(a, b)) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " differ: ", a.ToString(), " vs ", b.ToString()));
  }
  if (a.IsLiteral()) return a;
  if (b.IsLiteral()) return b;
  if (a.IsQuestionmark() || !a.IsDefined()) return b;
  return a;
}

absl::StatusOr<IndexExpr> ScalarInputValue(const ShapeContext& ctx, int i, std::string_view what) {
  if (!ctx.HasInput(i)) return IndexExpr::Questionmark();
  if (std::optional<DimsExpr> dims = ctx.InputDims(i)) {
    const IndexExpr n = NumElements(*dims);
    if (n.IsLiteral() && n.literal() != 1) {
      return ctx.Error(
          absl::StrCat(AsAbsl(what), " must hold one value, got shape ", DimsToString(*dims)));
    }
  }
  if (std::optional<IndexExprList> values = ctx.InputValues(i)) {
    if (values->size() == 1) return (*values)[0];
  }
  // Builders fill `values` for small integer tensors; a constant payload covers the rest (an
  // int32 size, say).
  if (std::shared_ptr<const Elements> c = ctx.InputConstant(i)) {
    const ElementType t = c->element_type();
    if (c->NumElements() == 1 && t != ElementType::kString && t != ElementType::kFloat &&
        t != ElementType::kDouble && t != ElementType::kFloat16 && t != ElementType::kBfloat16 &&
        t != ElementType::kComplex64 && t != ElementType::kComplex128) {
      return IndexExpr(c->GetInt64(0));
    }
  }
  return IndexExpr::Questionmark();
}

absl::Status CheckRank(const ShapeContext& ctx, const std::optional<DimsExpr>& dims, int64_t rank,
                       std::string_view what) {
  if (dims && static_cast<int64_t>(dims->size()) != rank) {
    return ctx.Error(
        absl::StrCat(AsAbsl(what), " must have rank ", rank, ", got ", DimsToString(*dims)));
  }
  return absl::OkStatus();
}

std::string DimsText(const std::optional<DimsExpr>& dims) {
  return dims ? DimsToString(*dims) : std::string("[unknown rank]");
}

// ---------------------------------------------------------------------------------------------
// MatMul family
// ---------------------------------------------------------------------------------------------
namespace {

// numpy.matmul: a 1-D operand is promoted to a matrix ([K] -> [1, K] on the left, [K, 1] on the
// right) and the promoted dim dropped from the result; leading dims broadcast.
absl::StatusOr<std::optional<DimsExpr>> MatMulDims(const ShapeContext& ctx,
                                                   const std::optional<DimsExpr>& a,
                                                   const std::optional<DimsExpr>& b) {
  if (a && a->empty()) return ctx.Error("the first operand is a scalar; MatMul needs rank >= 1");
  if (b && b->empty()) return ctx.Error("the second operand is a scalar; MatMul needs rank >= 1");
  // With either rank unknown, so is the result's: broadcasting may add batch dims.
  if (!a || !b) return std::optional<DimsExpr>();
  DimsExpr pa = *a;
  DimsExpr pb = *b;
  if (pa.size() == 1) pa.insert(pa.begin(), IndexExpr(1));
  if (pb.size() == 1) pb.push_back(IndexExpr(1));
  if (ProvablyDifferent(pa.back(), pb[pb.size() - 2])) {
    return ctx.Error(
        absl::StrCat("inner dims differ: ", DimsToString(*a), " x ", DimsToString(*b)));
  }
  const DimsExpr batch_a(pa.begin(), pa.end() - 2);
  const DimsExpr batch_b(pb.begin(), pb.end() - 2);
  absl::StatusOr<DimsExpr> out = BroadcastDims(ctx, {batch_a, batch_b});
  if (!out.ok()) {
    return ctx.Error(
        absl::StrCat("batch dims do not broadcast: ", DimsToString(*a), " x ", DimsToString(*b)));
  }
  if (a->size() >= 2) out->push_back(pa[pa.size() - 2]);
  if (b->size() >= 2) out->push_back(pb.back());
  return std::optional<DimsExpr>(*std::move(out));
}

}  // namespace

absl::Status MatMulLike(ShapeContext& ctx, int a_index, int b_index, ElementType out_type) {
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims,
                         MatMulDims(ctx, ctx.InputDims(a_index), ctx.InputDims(b_index)));
  ctx.SetOutput(0, out_type, std::move(dims));
  return absl::OkStatus();
}

// com.microsoft FusedMatMul (ONNX Runtime's MatMul + Transpose fusion): Y = alpha * op(A) op(B),
// op transposing the last two dims with transA / transB; otherwise MatMul's rule. transBatchA /
// transBatchB (batch dims moved to the end) are Unimplemented.
absl::Status InferFusedMatMul(ShapeContext& ctx) {
  for (const char* attr : {"transBatchA", "transBatchB"}) {
    if (ctx.node().GetInt(attr, 0) != 0) {
      return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": FusedMatMul with ",
                                                   attr, " = 1 is not implemented"));
    }
  }
  auto operand = [&](int i, const char* trans) -> absl::StatusOr<std::optional<DimsExpr>> {
    std::optional<DimsExpr> dims = ctx.InputDims(i);
    if (!dims || ctx.node().GetInt(trans, 0) == 0) return dims;
    if (dims->size() < 2) {
      return ctx.Error(
          absl::StrCat(trans, " = 1 needs an operand of rank >= 2, not ", DimsToString(*dims)));
    }
    std::swap((*dims)[dims->size() - 2], (*dims)[dims->size() - 1]);
    return dims;
  };
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> a, operand(0, "transA"));
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> b, operand(1, "transB"));
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims, MatMulDims(ctx, a, b));
  ElementType t = ctx.InputType(0);
  if (t == ElementType::kUndefined) t = ctx.InputType(1);
  ctx.SetOutput(0, t, std::move(dims));
  return absl::OkStatus();
}

absl::Status InferMatMul(ShapeContext& ctx) {
  ElementType t = ctx.InputType(0);
  if (t == ElementType::kUndefined) t = ctx.InputType(1);
  return MatMulLike(ctx, 0, 1, t);
}

// MatMulInteger-10: A, B, a_zero_point, b_zero_point; accumulates in int32.
absl::Status InferMatMulInteger(ShapeContext& ctx) {
  return MatMulLike(ctx, 0, 1, ElementType::kInt32);
}

// com.microsoft MultiHeadAttention (ONNX Runtime's contrib op): query [B, S, D], key [B, L, D],
// value [B, L, Dv] -> output [B, S, Dv], num_heads dividing D and Dv. Bias, masks and
// unidirectional leave that shape as it is (whether the kernel runs them is the kernel's
// business); the packed forms (no key and value) and the present / qk outputs, whose shapes
// differ, are Unimplemented.
absl::Status InferMultiHeadAttention(ShapeContext& ctx) {
  const int64_t heads = ctx.node().GetInt("num_heads", 0);
  if (heads < 1) return ctx.Error("attribute num_heads must be >= 1");
  auto unsupported = [&](std::string_view what) {
    return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": MultiHeadAttention ",
                                                 AsAbsl(what), " is not supported"));
  };
  if (!ctx.HasInput(1) || !ctx.HasInput(2)) {
    return unsupported("without key and value (packed QKV or KV)");
  }
  for (int i = 1; i < ctx.num_outputs(); ++i) {
    if (ctx.node().output(i) != nullptr) return unsupported(absl::StrCat("output ", i));
  }
  const ElementType type = ctx.InputType(0);
  for (int i = 1; i < 3; ++i) {
    if (type != ElementType::kUndefined && ctx.InputType(i) != ElementType::kUndefined &&
        ctx.InputType(i) != type) {
      return ctx.Error(absl::StrCat("query, key and value must have one element type"));
    }
  }
  const char* names[] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) ANVIL_RETURN_IF_ERROR(CheckRank(ctx, ctx.InputDims(i), 3, names[i]));
  const std::optional<DimsExpr>& q = ctx.InputDims(0);
  const std::optional<DimsExpr>& k = ctx.InputDims(1);
  const std::optional<DimsExpr>& v = ctx.InputDims(2);
  auto divisible = [&](const IndexExpr& hidden, std::string_view what) -> absl::Status {
    if (hidden.IsLiteral() && hidden.literal() % heads != 0) {
      return ctx.Error(absl::StrCat(AsAbsl(what), " hidden size ", hidden.literal(),
                                    " is not a multiple of num_heads = ", heads));
    }
    return absl::OkStatus();
  };
  IndexExpr batch = IndexExpr::Questionmark(), s = IndexExpr::Questionmark(),
            v_hidden = IndexExpr::Questionmark();
  if (q) {
    batch = (*q)[0];
    s = (*q)[1];
    ANVIL_RETURN_IF_ERROR(divisible((*q)[2], "query"));
  }
  if (k) {
    ANVIL_ASSIGN_OR_RETURN(batch, UnifyDims(ctx, batch, (*k)[0], "query and key batch sizes"));
    if (q)
      ANVIL_RETURN_IF_ERROR(
          UnifyDims(ctx, (*q)[2], (*k)[2], "query and key hidden sizes").status());
  }
  if (v) {
    ANVIL_ASSIGN_OR_RETURN(batch, UnifyDims(ctx, batch, (*v)[0], "batch sizes"));
    if (k)
      ANVIL_RETURN_IF_ERROR(UnifyDims(ctx, (*k)[1], (*v)[1], "key and value lengths").status());
    ANVIL_RETURN_IF_ERROR(divisible((*v)[2], "value"));
    v_hidden = (*v)[2];
  }
  if (!q || !v) {
    ctx.SetOutput(0, type, std::nullopt);
    return absl::OkStatus();
  }
  ctx.SetOutput(0, type, DimsExpr{batch, s, v_hidden});
  return absl::OkStatus();
}

// QLinearMatMul-10: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point;
// the result is quantized like y_zero_point.
absl::Status InferQLinearMatMul(ShapeContext& ctx) {
  return MatMulLike(ctx, 0, 3, ctx.InputType(7));
}

// Gemm: Y[M, N] = alpha * A'[M, K] * B'[K, N] + beta * C. C broadcasts unidirectionally to
// [M, N] from opset 7; before that it must be exactly [M, N] unless `broadcast` is set. C is
// optional from opset 11.
absl::Status InferGemm(ShapeContext& ctx) {
  ElementType t = ctx.InputType(0);
  if (t == ElementType::kUndefined) t = ctx.InputType(1);
  return GemmLike(ctx, 0, 1, 2, t);
}

absl::Status GemmLike(ShapeContext& ctx, int a_index, int b_index, int c_index, ElementType type) {
  const Node& node = ctx.node();
  const std::optional<DimsExpr>& a = ctx.InputDims(a_index);
  const std::optional<DimsExpr>& b = ctx.InputDims(b_index);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, a, 2, "A"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, b, 2, "B"));
  const bool trans_a = node.GetInt("transA", 0) != 0;
  const bool trans_b = node.GetInt("transB", 0) != 0;
  IndexExpr m = a ? (*a)[trans_a ? 1 : 0] : IndexExpr::Questionmark();
  const IndexExpr k_a = a ? (*a)[trans_a ? 0 : 1] : IndexExpr::Questionmark();
  const IndexExpr k_b = b ? (*b)[trans_b ? 1 : 0] : IndexExpr::Questionmark();
  IndexExpr n = b ? (*b)[trans_b ? 0 : 1] : IndexExpr::Questionmark();
  if (ProvablyDifferent(k_a, k_b)) {
    return ctx.Error(absl::StrCat("inner dims differ: ", DimsText(a), trans_a ? "^T" : "", " x ",
                                  DimsText(b), trans_b ? "^T" : ""));
  }

  if (ctx.HasInput(c_index)) {
    if (const std::optional<DimsExpr>& c = ctx.InputDims(c_index)) {
      const bool exact =
          node.op_type() == "Gemm" && ctx.opset() < 7 && node.GetInt("broadcast", 0) == 0;
      if (c->size() > 2 || (exact && c->size() != 2)) {
        return ctx.Error(absl::StrCat("C ", DimsToString(*c), " does not ",
                                      exact ? "match" : "broadcast to", " [", m.ToString(), ", ",
                                      n.ToString(), "]"));
      }
      // C's dims, right-aligned against [M, N]: each must be 1 or the target dim (exactly the
      // target dim without broadcasting), so a literal other than 1 pins a symbolic target.
      IndexExpr* targets[2] = {&m, &n};
      for (size_t k = 0; k < c->size(); ++k) {
        const IndexExpr& cd = (*c)[k];
        IndexExpr& target = *targets[2 - c->size() + k];
        if (!exact && IsLiteralValue(cd, 1)) continue;
        if (ProvablyDifferent(cd, target)) {
          return ctx.Error(absl::StrCat("C ", DimsToString(*c), " does not ",
                                        exact ? "match" : "broadcast to", " [", m.ToString(), ", ",
                                        n.ToString(), "]"));
        }
        if (target.IsLiteral()) continue;
        if (cd.IsLiteral() || (exact && target.IsQuestionmark())) target = cd;
      }
    }
  }
  ctx.SetOutput(0, type, DimsExpr{m, n});
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Einsum: the equation from shape/einsum_equation.h, label sizes from shape/einsum_dims.h.
// ---------------------------------------------------------------------------------------------
absl::Status InferEinsum(ShapeContext& ctx) {
  absl::StatusOr<einsum::Equation> eq =
      einsum::Equation::Parse(ctx.node().GetString("equation", ""));
  if (!eq.ok()) return ctx.Error(std::string(eq.status().message()));
  std::vector<int64_t> ranks;
  absl::InlinedVector<const DimsExpr*, 4> dims;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    ranks.push_back(ctx.InputRank(i));
    dims.push_back(ctx.InputDims(i) ? &*ctx.InputDims(i) : nullptr);
  }
  absl::StatusOr<einsum::BoundEquation> bound = eq->Bind(ranks);
  if (!bound.ok()) return ctx.Error(std::string(bound.status().message()));
  absl::StatusOr<std::vector<IndexExpr>> sizes = EinsumLabelSizes(*bound, dims);
  if (!sizes.ok()) return ctx.Error(std::string(sizes.status().message()));
  const ElementType type = ctx.InputType(0);
  if (!bound->output_known) {
    ctx.SetOutput(0, type, std::nullopt);
    return absl::OkStatus();
  }
  ctx.SetOutput(0, type, EinsumOutputDims(*bound, *sizes));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute

namespace anvil::shape_rules {

namespace ops = ::anvil::shape_ops::compute;

// Sorted by op_type. Versions: every ONNX version of the op up to opset 17 (see the ShapeFns for
// what differs between them).
const ShapeRule kComputeRules[] = {
    {"", "ArgMax", ops::InferArgMinMax},
    {"", "ArgMin", ops::InferArgMinMax},
    {"", "Attention", ops::InferOnnxAttention},
    {"", "AveragePool", ops::InferPool},
    {"", "BlackmanWindow", ops::InferWindow},
    {"", "Conv", ops::InferConv},
    {"com.anvil.nchwc", "Conv", ops::InferNchwcConv},
    {"", "ConvInteger", ops::InferConvInteger},
    {"", "ConvTranspose", ops::InferConvTranspose},
    {"", "DFT", ops::InferDft},
    {"", "Det", ops::InferDet},
    {"com.microsoft", "DynamicQuantizeMatMul", ops::InferDynamicQuantizeMatMul},
    {"", "Einsum", ops::InferEinsum},
    {"com.microsoft", "FusedConv", ops::InferConv},
    {"com.microsoft", "FusedMatMul", ops::InferFusedMatMul},
    {"", "GRU", ops::InferRecurrent},
    {"", "Gemm", ops::InferGemm},
    {"", "GlobalAveragePool", ops::InferGlobalPool},
    {"com.anvil.nchwc", "GlobalAveragePool", ops::InferGlobalPool},
    {"", "GlobalLpPool", ops::InferGlobalPool},
    {"", "GlobalMaxPool", ops::InferGlobalPool},
    {"", "GridSample", ops::InferGridSample},
    {"com.microsoft", "GroupQueryAttention", ops::InferGroupQueryAttention},
    {"", "HammingWindow", ops::InferWindow},
    {"", "HannWindow", ops::InferWindow},
    {"", "LSTM", ops::InferRecurrent},
    {"", "LpPool", ops::InferPool},
    {"", "MatMul", ops::InferMatMul},
    {"", "MatMulInteger", ops::InferMatMulInteger},
    {"com.microsoft", "MatMulIntegerToFloat", ops::InferMatMulIntegerToFloat},
    {"com.microsoft", "MatMulNBits", ops::InferMatMulNBits},
    {"", "MaxPool", ops::InferPool},
    {"com.anvil.nchwc", "MaxPool", ops::InferPool},
    {"", "MaxRoiPool", ops::InferMaxRoiPool},
    {"", "MaxUnpool", ops::InferMaxUnpool},
    {"", "MelWeightMatrix", ops::InferMelWeightMatrix},
    {"com.anvil.nchwc", "Mul", ops::InferNchwcScale},
    {"com.microsoft", "MultiHeadAttention", ops::InferMultiHeadAttention},
    {"", "NegativeLogLikelihoodLoss", ops::InferNegativeLogLikelihoodLoss},
    {"", "NonMaxSuppression", ops::InferNonMaxSuppression},
    {"", "NonZero", ops::InferNonZero},
    {"com.anvil.nchwc", "Pad", ops::InferNchwcPad},
    {"com.microsoft", "QGemm", ops::InferQGemm},
    {"com.microsoft", "QLinearAdd", ops::InferQLinearBinary},
    {"com.microsoft", "QLinearAveragePool", ops::InferQLinearAveragePool},
    {"com.microsoft", "QLinearConcat", ops::InferQLinearConcat},
    {"", "QLinearConv", ops::InferQLinearConv},
    {"com.microsoft", "QLinearGlobalAveragePool", ops::InferQLinearGlobalAveragePool},
    {"com.microsoft", "QLinearLeakyRelu", ops::InferQLinearUnary},
    {"", "QLinearMatMul", ops::InferQLinearMatMul},
    {"com.microsoft", "QLinearMul", ops::InferQLinearBinary},
    {"com.microsoft", "QLinearSigmoid", ops::InferQLinearUnary},
    {"com.microsoft", "QLinearSoftmax", ops::InferQLinearSoftmax},
    {"com.microsoft", "QLinearWhere", ops::InferQLinearWhere},
    {"", "RMSNormalization", ops::InferSimplifiedLayerNormalization},
    {"", "RNN", ops::InferRecurrent},
    {"", "ReduceL1", ops::InferReduce},
    {"", "ReduceL2", ops::InferReduce},
    {"", "ReduceLogSum", ops::InferReduce},
    {"", "ReduceLogSumExp", ops::InferReduce},
    {"", "ReduceMax", ops::InferReduce},
    {"", "ReduceMean", ops::InferReduce},
    {"", "ReduceMin", ops::InferReduce},
    {"", "ReduceProd", ops::InferReduce},
    {"", "ReduceSum", ops::InferReduce},
    {"", "ReduceSumSquare", ops::InferReduce},
    {"com.anvil.nchwc", "ReorderInput", ops::InferNchwcReorder},
    {"com.anvil.nchwc", "ReorderOutput", ops::InferNchwcReorder},
    {"", "RoiAlign", ops::InferRoiAlign},
    {"", "RotaryEmbedding", ops::InferRotaryEmbedding},
    {"com.microsoft", "RotaryEmbedding", ops::InferRotaryEmbedding},
    {"", "STFT", ops::InferStft},
    {"", "SimplifiedLayerNormalization", ops::InferSimplifiedLayerNormalization},
    {"com.microsoft", "SkipLayerNormalization", ops::InferSkipLayerNormalization},
    {"com.microsoft", "SkipSimplifiedLayerNormalization", ops::InferSkipLayerNormalization},
    {"", "SoftmaxCrossEntropyLoss", ops::InferSoftmaxCrossEntropyLoss},
    {"", "TopK", ops::InferTopK},
    {"", "Unique", ops::InferUnique},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::shape_rules
