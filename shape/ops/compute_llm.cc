// Compute ops, part 7: the ops of decoder LLMs as ONNX Runtime's model builder writes them:
// com.microsoft MatMulNBits, GroupQueryAttention, RotaryEmbedding, SkipLayerNormalization and
// SkipSimplifiedLayerNormalization, and SimplifiedLayerNormalization (ONNX Runtime's RMS norm in
// the ONNX domain); and their opset-23 standard forms Attention, RotaryEmbedding and
// RMSNormalization. ONNX's schema checker knows none of the contrib ones but the last (from
// Anvil's own schema), so these rules check what ONNX Runtime's schemas require.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"

namespace anvil::shape_ops::compute {
namespace {

absl::string_view TypeName(ElementType t) { return AsAbsl(ElementTypeName(t)); }

bool IsFloatingType(ElementType t) {
  return t == ElementType::kFloat || t == ElementType::kFloat16 || t == ElementType::kBfloat16 ||
         t == ElementType::kDouble;
}

// Input i, when its type is known, is a floating type (T of these schemas).
absl::Status CheckFloating(const ShapeContext& ctx, int i, std::string_view name) {
  const ElementType t = ctx.InputType(i);
  if (ctx.HasInput(i) && t != ElementType::kUndefined && !IsFloatingType(t)) {
    return ctx.Error(absl::StrCat(AsAbsl(name), " must be a floating type, got ", TypeName(t)));
  }
  return absl::OkStatus();
}

absl::Status CheckType(const ShapeContext& ctx, int i, ElementType want, std::string_view name) {
  const ElementType t = ctx.InputType(i);
  if (ctx.HasInput(i) && t != ElementType::kUndefined && t != want) {
    return ctx.Error(
        absl::StrCat(AsAbsl(name), " must be ", TypeName(want), ", got ", TypeName(t)));
  }
  return absl::OkStatus();
}

// The input's dims with those from `axis` on set to 1: a norm's statistics.
std::optional<DimsExpr> StatisticsDims(const std::optional<DimsExpr>& dims, int64_t axis) {
  if (!dims) return std::nullopt;
  DimsExpr out = *dims;
  for (size_t i = static_cast<size_t>(axis); i < out.size(); ++i) out[i] = IndexExpr::Literal(1);
  return out;
}

}  // namespace

// MatMulNBits: A [..., K], B uint8, scales, zero_points?, g_idx?, bias? -> Y [..., N] of A's type.
absl::Status InferMatMulNBits(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const int64_t k = node.GetInt("K", -1), n = node.GetInt("N", -1);
  const int64_t block = node.GetInt("block_size", 0), bits = node.GetInt("bits", 4);
  if (k < 0 || n < 0) return ctx.Error("attributes K and N are required (>= 0)");
  if (block < 16 || (block & (block - 1)) != 0) {
    return ctx.Error(absl::StrCat("block_size ", block, " must be a power of 2, >= 16"));
  }
  if (bits < 1 || bits > 8) return ctx.Error(absl::StrCat("bits ", bits, " must be in [1, 8]"));
  if (ctx.num_inputs() < 3 || !ctx.HasInput(1) || !ctx.HasInput(2)) {
    return ctx.Error("needs A, B and scales");
  }
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 0, "A"));
  ANVIL_RETURN_IF_ERROR(CheckType(ctx, 1, ElementType::kUint8, "B"));
  ANVIL_RETURN_IF_ERROR(CheckType(ctx, 2, ctx.InputType(0), "scales (A's type)"));
  ANVIL_RETURN_IF_ERROR(CheckType(ctx, 4, ElementType::kInt32, "g_idx"));
  const std::optional<DimsExpr>& a = ctx.InputDims(0);
  if (!a) {
    ctx.SetOutput(0, ctx.InputType(0), std::nullopt);
    return absl::OkStatus();
  }
  if (a->empty()) return ctx.Error("A must have rank >= 1");
  if (ProvablyDifferent(a->back(), IndexExpr::Literal(k))) {
    return ctx.Error(absl::StrCat("A ", DimsToString(*a), " must end in K = ", k));
  }
  DimsExpr out = *a;
  out.back() = IndexExpr::Literal(n);
  ctx.SetOutput(0, ctx.InputType(0), std::move(out));
  return absl::OkStatus();
}

// RotaryEmbedding: input [B, S, hidden] or [B, N, S, H], position_ids int64, cos_cache,
// sin_cache -> output of input's shape and type.
absl::Status InferRotaryEmbedding(ShapeContext& ctx) {
  // ONNX's RotaryEmbedding-23 orders its inputs X, cos_cache, sin_cache, position_ids?; without
  // position ids its caches are per token, [B, S, rotary_dim / 2].
  const bool onnx = ctx.node().domain().empty();
  const int pos = onnx ? 3 : 1, cos = onnx ? 1 : 2, sin = onnx ? 2 : 3;
  if (onnx ? ctx.num_inputs() < 3 : ctx.num_inputs() < 4) {
    return ctx.Error(onnx ? "needs X, cos_cache and sin_cache"
                          : "needs input, position_ids, cos_cache and sin_cache");
  }
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 0, "input"));
  const bool has_pos = ctx.HasInput(pos);
  if (has_pos) ANVIL_RETURN_IF_ERROR(CheckType(ctx, pos, ElementType::kInt64, "position_ids"));
  for (int i : {cos, sin}) {
    ANVIL_RETURN_IF_ERROR(CheckType(ctx, i, ctx.InputType(0), "the caches"));
  }
  const int64_t rank = ctx.InputRank(0);
  if (rank >= 0 && rank != 3 && rank != 4) {
    return ctx.Error(absl::StrCat("input must be 3-D or 4-D, got rank ", rank));
  }
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, ctx.InputDims(cos), has_pos ? 2 : 3, "cos_cache"));
  ctx.SetOutput(0, ctx.InputType(0), ctx.InputDims(0));
  return absl::OkStatus();
}

// SimplifiedLayerNormalization: X, scale -> Y (X's dims, scale's type), inv_std_var? (float, X's
// dims with [axis, rank) set to 1).
absl::Status InferSimplifiedLayerNormalization(ShapeContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 0, "X"));
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 1, "scale"));
  ElementType y_type = ctx.InputType(1);
  if (y_type == ElementType::kUndefined) y_type = ctx.InputType(0);
  ctx.SetOutput(0, y_type, ctx.InputDims(0));
  if (ctx.num_outputs() > 1) {
    std::optional<DimsExpr> stats;
    if (const std::optional<DimsExpr>& x = ctx.InputDims(0)) {
      ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                             ctx.NormalizeAxis(ctx.node().GetInt("axis", -1),
                                               static_cast<int64_t>(x->size()), "axis"));
      stats = StatisticsDims(x, axis);
    }
    ctx.SetOutput(1, ElementType::kFloat, std::move(stats));
  }
  return absl::OkStatus();
}

// SkipLayerNormalization, SkipSimplifiedLayerNormalization: input [B, S, H] or [T, H], skip,
// gamma, ... -> output (input's), mean? and inv_std_var? (float, last dim 1),
// input_skip_bias_sum? (input's).
absl::Status InferSkipLayerNormalization(ShapeContext& ctx) {
  if (ctx.num_inputs() < 3 || !ctx.HasInput(1) || !ctx.HasInput(2)) {
    return ctx.Error("needs input, skip and gamma");
  }
  const ElementType t = ctx.InputType(0);
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 0, "input"));
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    ANVIL_RETURN_IF_ERROR(CheckType(ctx, i, t, absl::StrCat("input ", i, " (the input's type)")));
  }
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const int64_t rank = ctx.InputRank(0);
  if (rank >= 0 && rank != 2 && rank != 3) {
    return ctx.Error(absl::StrCat("input must be 2-D or 3-D, got ", DimsText(x)));
  }
  if (const std::optional<DimsExpr>& skip = ctx.InputDims(1); skip && x) {
    if (skip->size() < 2 || skip->size() > 3 || ProvablyDifferent(skip->back(), x->back()) ||
        ProvablyDifferent((*skip)[skip->size() - 2], (*x)[x->size() - 2])) {
      return ctx.Error(absl::StrCat("skip ", DimsToString(*skip), " does not fit input ",
                                    DimsToString(*x), ": [B, S, H], [1, S, H] or [S, H]"));
    }
  }
  ctx.SetOutput(0, t, x);
  for (int i : {1, 2}) {
    if (i < ctx.num_outputs()) {
      ctx.SetOutput(i, ElementType::kFloat, x ? StatisticsDims(x, x->size() - 1) : std::nullopt);
    }
  }
  if (ctx.num_outputs() > 3) ctx.SetOutput(3, t, x);
  return absl::OkStatus();
}

// GroupQueryAttention: query [B, S, N*H] (packed: [B, S, (N + 2 Nkv) H]), key?, value?,
// past_key?, past_value? [B, Nkv, P, H], seqlens_k, total_sequence_length (T), ... -> output
// [B, S, N*H], present_key and present_value [B, Nkv, max(T, P), H].
absl::Status InferGroupQueryAttention(ShapeContext& ctx) {
  const int64_t n = ctx.node().GetInt("num_heads", 0), nkv = ctx.node().GetInt("kv_num_heads", 0);
  if (n < 1 || nkv < 1 || n % nkv != 0) {
    return ctx.Error(absl::StrCat("num_heads (", n,
                                  ") must be a positive multiple of kv_num_heads (", nkv, ")"));
  }
  if (ctx.num_inputs() < 7 || !ctx.HasInput(5) || !ctx.HasInput(6)) {
    return ctx.Error("needs seqlens_k (input 5) and total_sequence_length (input 6)");
  }
  const ElementType t = ctx.InputType(0);
  ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, 0, "query"));
  for (int i : {1, 2, 3, 4, 7, 8}) {
    ANVIL_RETURN_IF_ERROR(CheckType(ctx, i, t, absl::StrCat("input ", i, " (query's type)")));
  }
  ANVIL_RETURN_IF_ERROR(CheckType(ctx, 5, ElementType::kInt32, "seqlens_k"));
  ANVIL_RETURN_IF_ERROR(CheckType(ctx, 6, ElementType::kInt32, "total_sequence_length"));
  if (ctx.HasInput(1) != ctx.HasInput(2)) {
    return ctx.Error("key and value must be both present or both absent (packed QKV)");
  }
  const bool packed = !ctx.HasInput(1);
  const std::optional<DimsExpr>& q = ctx.InputDims(0);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, q, 3, "query"));
  IndexExpr batch = IndexExpr::Questionmark(), seq = IndexExpr::Questionmark();
  IndexExpr head = IndexExpr::Questionmark();
  if (q) {
    batch = (*q)[0];
    seq = (*q)[1];
    const int64_t width = packed ? n + 2 * nkv : n;
    const IndexExpr& hidden = (*q)[2];
    if (hidden.IsLiteral()) {
      if (hidden.literal() % width != 0) {
        return ctx.Error(absl::StrCat("query hidden size ", hidden.literal(),
                                      " is not a multiple of ", width, " heads"));
      }
      head = IndexExpr::Literal(hidden.literal() / width);
    }
  }
  IndexExpr past = IndexExpr::Questionmark();
  bool has_past = false;
  if (ctx.HasInput(3)) {
    const std::optional<DimsExpr>& pk = ctx.InputDims(3);
    ANVIL_RETURN_IF_ERROR(CheckRank(ctx, pk, 4, "past_key"));
    if (pk) {
      has_past = true;
      ANVIL_ASSIGN_OR_RETURN(batch, UnifyDims(ctx, batch, (*pk)[0], "query and past_key batches"));
      if (ProvablyDifferent((*pk)[1], IndexExpr::Literal(nkv))) {
        return ctx.Error(absl::StrCat("past_key ", DimsToString(*pk),
                                      " must have kv_num_heads = ", nkv, " heads"));
      }
      ANVIL_ASSIGN_OR_RETURN(head,
                             UnifyDims(ctx, head, (*pk)[3], "head sizes of query and past_key"));
      past = (*pk)[2];
    }
  }
  ANVIL_ASSIGN_OR_RETURN(IndexExpr total, ScalarInputValue(ctx, 6, "total_sequence_length"));
  IndexExpr present = total;
  if (ctx.HasInput(3)) {
    present = has_past && !total.IsQuestionmark() && !past.IsQuestionmark()
                  ? Max({total, past})
                  : IndexExpr::Questionmark();
  }
  const IndexExpr out_hidden =
      head.IsLiteral() ? IndexExpr::Literal(head.literal() * n) : IndexExpr::Questionmark();
  ctx.SetOutput(0, t, q ? std::optional<DimsExpr>(DimsExpr{batch, seq, out_hidden}) : std::nullopt);
  for (int i : {1, 2}) {
    if (i < ctx.num_outputs()) {
      ctx.SetOutput(i, t, DimsExpr{batch, IndexExpr::Literal(nkv), present, head});
    }
  }
  if (ctx.num_outputs() > 3 && ctx.node().output(3) != nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.node().Describe(), ": GroupQueryAttention's output_qk is not supported"));
  }
  return absl::OkStatus();
}

// ONNX's Attention-23: Q [B, Hq, S, D], K [B, Hkv, L, D], V [B, Hkv, L, Dv] (or 3-D [B, S, H*d]
// with q_num_heads and kv_num_heads), attn_mask?, past_key? [B, Hkv, P, D], past_value? ->
// Y [B, Hq, S, Dv] (3-D: [B, S, Hq*Dv]), present_key [B, Hkv, P+L, D], present_value
// [B, Hkv, P+L, Dv], qk_matmul_output [B, Hq, S, P+L].
absl::Status InferOnnxAttention(ShapeContext& ctx) {
  const Node& node = ctx.node();
  for (int i = 0; i < 3; ++i) {
    if (!ctx.HasInput(i)) return ctx.Error("needs Q, K and V");
    ANVIL_RETURN_IF_ERROR(CheckFloating(ctx, i, i == 0 ? "Q" : i == 1 ? "K" : "V"));
  }
  if (ctx.HasInput(4) != ctx.HasInput(5)) {
    return ctx.Error("past_key and past_value come together");
  }
  const ElementType t = ctx.InputType(0), tv = ctx.InputType(2);
  const int64_t rank = ctx.InputRank(0);
  for (int i = 1; i < 3; ++i) {
    if (rank >= 0 && ctx.InputRank(i) >= 0 && ctx.InputRank(i) != rank) {
      return ctx.Error("Q, K and V must have the same rank");
    }
  }
  if (rank >= 0 && rank != 3 && rank != 4) {
    return ctx.Error(absl::StrCat("Q must be 3-D or 4-D, got rank ", rank));
  }
  const int64_t hq = node.GetInt("q_num_heads", 0), hkv = node.GetInt("kv_num_heads", 0);
  if (rank == 3 && (hq < 1 || hkv < 1)) {
    return ctx.Error("3-D Q, K and V need q_num_heads and kv_num_heads");
  }
  const std::optional<DimsExpr>& q = ctx.InputDims(0);
  const std::optional<DimsExpr>& k = ctx.InputDims(1);
  const std::optional<DimsExpr>& v = ctx.InputDims(2);
  const std::optional<DimsExpr>& past = ctx.HasInput(4) ? ctx.InputDims(4) : std::nullopt;
  std::optional<DimsExpr> y, present_k, present_v, qk;
  if (q && k && v && (past || !ctx.HasInput(4))) {
    const bool three = rank == 3;
    const IndexExpr b = (*q)[0];
    const IndexExpr heads_q = three ? IndexExpr(hq) : (*q)[1];
    const IndexExpr heads_kv = three ? IndexExpr(hkv) : (*k)[1];
    const IndexExpr s = three ? (*q)[1] : (*q)[2];
    const IndexExpr d = three ? FloorDiv((*q)[2], hq) : (*q)[3];
    const IndexExpr dv = three ? FloorDiv((*v)[2], hkv) : (*v)[3];
    const IndexExpr l = three ? (*k)[1] : (*k)[2];
    if (past && past->size() != 4) {
      return ctx.Error(absl::StrCat("past_key must be 4-D, got ", DimsToString(*past)));
    }
    const IndexExpr total = past ? (*past)[2] + l : l;
    y = three ? DimsExpr{b, s, heads_q * dv} : DimsExpr{b, heads_q, s, dv};
    present_k = DimsExpr{b, heads_kv, total, d};
    present_v = DimsExpr{b, heads_kv, total, dv};
    qk = DimsExpr{b, heads_q, s, total};
  }
  ctx.SetOutput(0, t, std::move(y));
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, t, std::move(present_k));
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, tv, std::move(present_v));
  if (ctx.num_outputs() > 3) ctx.SetOutput(3, t, std::move(qk));
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute
