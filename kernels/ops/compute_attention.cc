// com.microsoft MultiHeadAttention (ONNX Runtime's contrib op, which the fuse-attention pass
// makes of a spelled-out attention block), in its unpacked form:
//
//   query [B, S, H * d], key [B, L, H * d], value [B, L, H * dv] -> output [B, S, H * dv]
//   output[b, s, h, :] = softmax_l(scale * query[b, s, h, :] . key[b, l, h, :]) . value[b, :, h, :]
//
// with num_heads = H and scale defaulting (absent or 0, as in ONNX Runtime) to 1 / sqrt(d). Each
// (batch, head) pair takes blocks of query rows: the block's scores (at most ~128 KiB of them) go
// from one GEMM (Q K^T, unscaled: no packed copy of Q) through the softmax family's exp (which
// applies the scale) into the second GEMM while they are in cache, and each output row is then
// divided by its row's sum (dv values, not L). The unfused graph wrote the whole [B, H, S, L]
// score tensor to memory and read it back three times (scale, softmax, product). Query, key and
// value are read in place through their row strides: the per-head transposes of the unfused graph
// are not done at all.
//
// attention_bias (input 5, [B or 1, H or 1, S, L]) is added to the scaled scores before the softmax
// (how the fusion passes BERT's additive mask). Not supported (Unimplemented, at load): the packed
// QKV and KV forms, bias, key_padding_mask, past/present key and value, the qk output,
// unidirectional = 1. float and float16 (computed in float), as ONNX Runtime's CPU kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

constexpr const char* kOptionalInputs[] = {
    "query",          "key",      "value",     "bias", "key_padding_mask",
    "attention_bias", "past_key", "past_value"};

constexpr int kAttentionBias = 5;

// Score rows per block: the block's scores stay within about 128 KiB (an L2-resident working
// set next to the packed key panel), and at least 8 rows (the GEMM micro-kernel's height) unless
// S is shorter.
int64_t RowsPerBlock(int64_t s, int64_t l) {
  const int64_t rows = std::max<int64_t>((int64_t{32} << 10) / std::max<int64_t>(l, 1), 8);
  return std::min(rows, std::max<int64_t>(s, 1));
}

// Score scratch per chunk over this is refused (a key length in the tens of millions).
constexpr int64_t kMaxScratchBytes = int64_t{1} << 30;

// Replaces the n scores of a row by exp(scale * x - max over the row of scale * x) and returns the
// reciprocal of their sum, by which the row's output is multiplied (16 or so values, where
// normalizing the row would touch all n). A row with an infinite or NaN score, or a non-finite
// scale, takes the Softmax kernel's own row routine (its NaN and infinity rules) and returns 1.
float ExpRow(float scale, float* row, int64_t n) {
  const float m = scale >= 0 ? simd::ReduceMax(row, n) : simd::ReduceMin(row, n);
  if (std::isfinite(m) && std::isfinite(scale)) {
    return 1.0f / simd::ExpScaledShiftSum(row, scale, scale * m, row, n);
  }
  simd::ScaleShift(row, scale, 0.0f, row, n);
  SoftmaxRowFloat(row, row, n);
  return 1.0f;
}

class MultiHeadAttentionKernel final : public OpKernel {
 public:
  MultiHeadAttentionKernel(int64_t heads, std::optional<float> scale)
      : heads_(heads), scale_(scale) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& q = ctx.input(0);
    const TensorView& k = ctx.input(1);
    const TensorView& v = ctx.input(2);
    for (const auto& [t, name] :
         {std::pair(&q, "query"), std::pair(&k, "key"), std::pair(&v, "value")}) {
      if (t->rank() != 3) {
        return ctx.Error(
            absl::StrCat(name, " must be 3-D [batch, sequence, hidden] (the packed and",
                         " per-head forms are not supported): got ", t->DebugString()));
      }
      if (t->type != ElementType::kFloat && t->type != ElementType::kFloat16) {
        return ctx.Error(absl::StrCat(name, " ", t->DebugString(), ": float or float16 only"));
      }
    }
    const int64_t batch = q.dims[0], s = q.dims[1], hidden = q.dims[2];
    const int64_t l = k.dims[1], v_hidden = v.dims[2];
    if (k.dims[0] != batch || v.dims[0] != batch || v.dims[1] != l || k.dims[2] != hidden ||
        hidden % heads_ != 0 || v_hidden % heads_ != 0) {
      return ctx.Error(absl::StrCat(
          "query ", q.DebugString(), ", key ", k.DebugString(), " and value ", v.DebugString(),
          " do not fit [B, S, D], [B, L, D], [B, L, Dv] with num_heads = ", heads_,
          " dividing D and Dv"));
    }
    const int64_t d = hidden / heads_, dv = v_hidden / heads_;
    const float scale = scale_ ? *scale_ : 1.0f / std::sqrt(static_cast<float>(d));
    DenseInput<float> qd(q), kd(k), vd(v), bias;
    // attention_bias [B or 1, H or 1, S, L], added to the scaled scores: the bias row of (b, h).
    int64_t bias_batch_stride = 0, bias_head_stride = 0;
    const bool has_bias = ctx.HasInput(kAttentionBias);
    if (has_bias) {
      const TensorView& a = ctx.input(kAttentionBias);
      if (a.rank() != 4 || (a.dims[0] != batch && a.dims[0] != 1) ||
          (a.dims[1] != heads_ && a.dims[1] != 1) || a.dims[2] != s || a.dims[3] != l ||
          (a.type != ElementType::kFloat && a.type != ElementType::kFloat16)) {
        return ctx.Error(absl::StrCat("attention_bias ", a.DebugString(), " is not a float [",
                                      batch, " or 1, ", heads_, " or 1, ", s, ", ", l, "]"));
      }
      bias.Reset(a);
      bias_head_stride = a.dims[1] == 1 ? 0 : s * l;
      bias_batch_stride = a.dims[0] == 1 ? 0 : a.dims[1] * s * l;
    }
    DenseOutput<float> out(ctx.output(0));
    const int64_t rows = RowsPerBlock(s, l);
    const int64_t scratch_bytes = rows * (l + 1) * static_cast<int64_t>(sizeof(float));
    if (scratch_bytes > kMaxScratchBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          ctx.node().Describe(), ": MultiHeadAttention would need ", scratch_bytes,
          " bytes of scores per thread for key length ", l, " (limit ", kMaxScratchBytes, ")"));
    }
    const double flops =
        2.0 * static_cast<double>(s) * static_cast<double>(l) * static_cast<double>(d + dv);
    parallel::For(batch * heads_, parallel::MinChunk(flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    // The chunk's own score rows, freed when it ends.
                    ScratchBuffers scratch;
                    float* scores = scratch.Get<float>(0, static_cast<size_t>(rows * (l + 1)));
                    float* inv_sums = scores + rows * l;
                    for (int64_t bh = begin; bh < end; ++bh) {
                      const int64_t b = bh / heads_, h = bh % heads_;
                      const float* kh = kd.data() + b * l * hidden + h * d;
                      const float* vh = vd.data() + b * l * v_hidden + h * dv;
                      for (int64_t r0 = 0; r0 < s; r0 += rows) {
                        const int64_t m = std::min(rows, s - r0);
                        const float* qh = qd.data() + (b * s + r0) * hidden + h * d;
                        float* oh = out.data() + (b * s + r0) * v_hidden + h * dv;
                        simd::Sgemm(false, true, m, l, d, 1.0f, qh, hidden, kh, hidden, 0.0f,
                                    scores, l);
                        // With a bias the scores are scaled and biased first, and the exps
                        // then take them as they are.
                        float exp_scale = scale;
                        if (has_bias) {
                          const float* bias_rows =
                              bias.data() + b * bias_batch_stride + h * bias_head_stride + r0 * l;
                          for (int64_t i = 0; i < m; ++i) {
                            simd::ScaleShift(scores + i * l, scale, 0.0f, scores + i * l, l);
                            simd::AccumulateSum(scores + i * l, bias_rows + i * l, l);
                          }
                          exp_scale = 1.0f;
                        }
                        if (simd::ExpScaledRows(scores, m, l, l, exp_scale, inv_sums) > 0) {
                          for (int64_t i = 0; i < m; ++i) {
                            if (inv_sums[i] == 0.0f) {
                              inv_sums[i] = ExpRow(exp_scale, scores + i * l, l);
                            }
                          }
                        }
                        simd::Sgemm(false, false, m, dv, l, 1.0f, scores, l, vh, v_hidden, 0.0f, oh,
                                    v_hidden);
                        simd::ScaleRows(oh, m, dv, v_hidden, inv_sums);
                      }
                    }
                  });
    out.Commit();
    return absl::OkStatus();
  }

 private:
  int64_t heads_;
  std::optional<float> scale_;
};

}  // namespace

KernelOr CreateMultiHeadAttention(const Node& node, int64_t) {
  const int64_t heads = node.GetInt("num_heads", 0);
  if (heads < 1) return NodeError(node, "attribute 'num_heads' must be >= 1");
  if (node.num_inputs() < 3 || node.input(1) == nullptr || node.input(2) == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        node.Describe(), ": MultiHeadAttention without separate key and value (packed QKV or KV)",
        " is not supported"));
  }
  for (int i = 3; i < node.num_inputs(); ++i) {
    if (node.input(i) == nullptr || i == kAttentionBias) continue;
    return absl::UnimplementedError(absl::StrCat(
        node.Describe(), ": MultiHeadAttention input ", i, " (",
        i < static_cast<int>(std::size(kOptionalInputs)) ? kOptionalInputs[i] : "extra",
        ") is not supported"));
  }
  for (int i = 1; i < node.num_outputs(); ++i) {
    if (node.output(i) == nullptr) continue;
    return absl::UnimplementedError(absl::StrCat(node.Describe(), ": MultiHeadAttention output ", i,
                                                 " (present key and value, qk) is not supported"));
  }
  if (node.GetInt("unidirectional", 0) != 0) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": MultiHeadAttention with unidirectional = 1 (a causal",
                     " mask) is not supported"));
  }
  // As ONNX Runtime: scale = 0 (or absent) means 1 / sqrt(head size).
  std::optional<float> scale;
  if (const float given = node.GetFloat("scale", 0.0f); given != 0.0f) scale = given;
  return std::unique_ptr<OpKernel>(new MultiHeadAttentionKernel(heads, scale));
}

}  // namespace anvil::compute_ops
