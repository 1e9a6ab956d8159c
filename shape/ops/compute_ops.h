// The compute family of ShapeHelpers (MatMul, Gemm, Einsum, Conv, pools, reductions, RNNs,
// signal ops, losses, ...), split over compute*.cc by sub-family; compute.cc holds the one
// kComputeRules table that lists them all. Private to the shape package.
#ifndef ANVIL_SHAPE_OPS_COMPUTE_OPS_H_
#define ANVIL_SHAPE_OPS_COMPUTE_OPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"

namespace anvil::shape_ops::compute {

// ---- Helpers shared by the compute files (compute.cc) ----

inline bool IsLiteralValue(const IndexExpr& e, int64_t v) {
  return e.IsLiteral() && e.literal() == v;
}

// Whether two dims are provably different: both literal and unequal, or symbolic with a decided
// difference (N vs N + 1). Questionmarks are never provably different from anything.
bool ProvablyDifferent(const IndexExpr& a, const IndexExpr& b);

// Two dims the op requires to be equal (Gemm's K, a channel count, a batch shared by two
// operands): the better known of the two (a literal, else a symbol, else a questionmark). An
// error "<what> differ: a vs b" when they are provably different.
absl::StatusOr<IndexExpr> UnifyDims(const ShapeContext& ctx, const IndexExpr& a, const IndexExpr& b,
                                    std::string_view what);

// The value of a scalar or one-element integer input (TopK's K, STFT's frame_step, a window
// size): the exact expression when known (values, else a constant payload), a questionmark
// otherwise. An error when the input provably holds more than one element.
absl::StatusOr<IndexExpr> ScalarInputValue(const ShapeContext& ctx, int i, std::string_view what);

// An error when `dims` has a literal rank other than `rank` ("<what> must have rank R, got D").
absl::Status CheckRank(const ShapeContext& ctx, const std::optional<DimsExpr>& dims, int64_t rank,
                       std::string_view what);

// DimsToString, or "[unknown rank]".
std::string DimsText(const std::optional<DimsExpr>& dims);

// numpy.matmul of inputs a_index and b_index; output 0 gets `out_type`.
absl::Status MatMulLike(ShapeContext& ctx, int a_index, int b_index, ElementType out_type);
// Gemm of A, B and the optional C at these input indices (transA, transB); output 0 gets `type`.
absl::Status GemmLike(ShapeContext& ctx, int a_index, int b_index, int c_index, ElementType type);

// ---- ShapeFns (compute.cc: matrix products) ----
absl::Status InferEinsum(ShapeContext& ctx);
absl::Status InferGemm(ShapeContext& ctx);
absl::Status InferFusedMatMul(ShapeContext& ctx);  // com.microsoft
absl::Status InferMatMul(ShapeContext& ctx);
absl::Status InferMatMulInteger(ShapeContext& ctx);
absl::Status InferMultiHeadAttention(ShapeContext& ctx);  // com.microsoft
absl::Status InferQLinearMatMul(ShapeContext& ctx);

// ---- compute_conv.cc: convolutions, pools, RoI ops, GridSample ----
absl::Status InferConv(ShapeContext& ctx);
absl::Status InferConvInteger(ShapeContext& ctx);
absl::Status InferQLinearConv(ShapeContext& ctx);
absl::Status InferConvTranspose(ShapeContext& ctx);
absl::Status InferPool(ShapeContext& ctx);  // AveragePool, LpPool, MaxPool
absl::Status InferMaxUnpool(ShapeContext& ctx);
absl::Status InferGlobalPool(ShapeContext& ctx);
absl::Status InferMaxRoiPool(ShapeContext& ctx);
absl::Status InferRoiAlign(ShapeContext& ctx);
absl::Status InferGridSample(ShapeContext& ctx);
absl::Status InferNchwcConv(ShapeContext& ctx);     // com.anvil.nchwc Conv
absl::Status InferNchwcReorder(ShapeContext& ctx);  // com.anvil.nchwc ReorderInput/Output
absl::Status InferNchwcScale(ShapeContext& ctx);    // com.anvil.nchwc Mul
absl::Status InferNchwcPad(ShapeContext& ctx);      // com.anvil.nchwc Pad

// ---- compute_quantized.cc: ONNX Runtime's com.microsoft quantized ops (QOperator format) ----
absl::Status InferQLinearBinary(ShapeContext& ctx);  // QLinearAdd, QLinearMul
absl::Status InferQLinearUnary(ShapeContext& ctx);   // QLinearSigmoid, QLinearLeakyRelu
absl::Status InferQLinearSoftmax(ShapeContext& ctx);
absl::Status InferQLinearWhere(ShapeContext& ctx);
absl::Status InferQLinearGlobalAveragePool(ShapeContext& ctx);
absl::Status InferQLinearAveragePool(ShapeContext& ctx);
absl::Status InferQLinearConcat(ShapeContext& ctx);
absl::Status InferQGemm(ShapeContext& ctx);
absl::Status InferDynamicQuantizeMatMul(ShapeContext& ctx);
absl::Status InferMatMulIntegerToFloat(ShapeContext& ctx);

// ---- compute_llm.cc: ONNX Runtime's decoder LLM ops ----
absl::Status InferMatMulNBits(ShapeContext& ctx);
absl::Status InferGroupQueryAttention(ShapeContext& ctx);
absl::Status InferOnnxAttention(ShapeContext& ctx);
absl::Status InferRotaryEmbedding(ShapeContext& ctx);
absl::Status InferSimplifiedLayerNormalization(ShapeContext& ctx);
absl::Status InferSkipLayerNormalization(
    ShapeContext& ctx);  // and SkipSimplifiedLayerNormalization

// ---- compute_reduce.cc: reductions, index-producing ops, Det, losses ----
absl::Status InferReduce(ShapeContext& ctx);  // the ten Reduce* ops
absl::Status InferArgMinMax(ShapeContext& ctx);
absl::Status InferTopK(ShapeContext& ctx);
absl::Status InferNonZero(ShapeContext& ctx);
absl::Status InferUnique(ShapeContext& ctx);
absl::Status InferNonMaxSuppression(ShapeContext& ctx);
absl::Status InferDet(ShapeContext& ctx);
absl::Status InferNegativeLogLikelihoodLoss(ShapeContext& ctx);
absl::Status InferSoftmaxCrossEntropyLoss(ShapeContext& ctx);

// ---- compute_rnn.cc: RNN, GRU, LSTM ----
absl::Status InferRecurrent(ShapeContext& ctx);

// ---- compute_signal.cc: DFT, STFT, windows, MelWeightMatrix ----
absl::Status InferDft(ShapeContext& ctx);
absl::Status InferStft(ShapeContext& ctx);
absl::Status InferWindow(ShapeContext& ctx);  // HannWindow, HammingWindow, BlackmanWindow
absl::Status InferMelWeightMatrix(ShapeContext& ctx);

}  // namespace anvil::shape_ops::compute

#endif  // ANVIL_SHAPE_OPS_COMPUTE_OPS_H_
