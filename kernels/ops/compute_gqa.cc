// com.microsoft GroupQueryAttention (ONNX Runtime's contrib op of decoder LLMs): causal attention
// of N query heads over Nkv key/value heads (query head h reads kv head h / (N / Nkv)), with a
// key/value cache:
//
//   query [B, S, N*H] (or packed [B, S, (N + 2 Nkv) H] with key and value absent), key and value
//   [B, S, Nkv*H], past_key and past_value [B, Nkv, P, H], seqlens_k int32 [B] (each batch's total
//   length - 1), total_sequence_length int32 (T, the longest), cos_cache and sin_cache
//   [max_position, rotary_dim / 2] with do_rotary, position_ids?, attention_bias?, head_sink?
//   -> output [B, S, N*H], present_key and present_value [B, Nkv, max(T, P), H]
//
// Semantics of ONNX Runtime 1.30's CPU kernel: batch b holds t = seqlens_k[b] + 1 keys, of which
// the S new ones come last (p = t - S are past; p = 0 for the first prompt, S == T). The new
// keys, rotated when do_rotary (as the queries, at positions p + s), are written at rows [p, p + S)
// of present; the past rows come from past. When present_key is past_key's own buffer (a caller
// that binds the cache as both input and output: Session::Run's bound outputs) nothing is copied
// and only the S new rows are written: a decode step's cost does not grow with a copy of the cache.
// Otherwise present is zeroed, then filled. Query s attends keys [start, p + s + 1): start = 0, or
// with local_window_size W >= 0 the last W keys. Scores are scale * q.k (scale 0 or absent:
// 1 / sqrt(H)), then softcap * tanh(x / softcap) when softcap > 0, then + attention_bias; the
// softmax runs over the window, with an extra sink term (head_sink[h], or 0 with smooth_softmax)
// in its denominator. float only; the output_qk output is Unimplemented.
//
// The G = N / Nkv query heads of a kv head are one GEMM's rows: the cache's keys and values are
// read once per group, not once per head.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/node_errors.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

enum Input {
  kQuery,
  kKey,
  kValue,
  kPastKey,
  kPastValue,
  kSeqlensK,
  kTotalLength,
  kCos,
  kSin,
  kPositionIds,
  kAttentionBias,
  kHeadSink,
};

struct GqaAttrs {
  int64_t heads = 0, kv_heads = 0;
  float scale = 0.0f, softcap = 0.0f;
  int64_t local_window = -1;
  bool rotary = false, interleaved = false, smooth_softmax = false;
};

// Query rows of one GEMM block: (s, g) pairs, s-major, so that a block's causal limit is its last
// query's and scores stay within ~128 KiB.
int64_t RowsPerBlock(int64_t groups, int64_t keys) {
  const int64_t rows = std::max<int64_t>((int64_t{32} << 10) / std::max<int64_t>(keys, 1), groups);
  return rows - rows % groups;
}

class GroupQueryAttentionKernel final : public OpKernel {
 public:
  explicit GroupQueryAttentionKernel(GqaAttrs attrs) : a_(attrs) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& q = ctx.input(kQuery);
    if (q.rank() != 3 || q.type != ElementType::kFloat) {
      return ctx.Error(absl::StrCat("query ", q.DebugString(),
                                    " must be float [batch, sequence, hidden]",
                                    " (float16 is not supported)"));
    }
    const bool packed = !ctx.HasInput(kKey);
    if (packed == ctx.HasInput(kValue)) {
      return ctx.Error("key and value must be both present or both absent (packed QKV)");
    }
    const int64_t batch = q.dims[0], seq = q.dims[1];
    const int64_t n = a_.heads, nkv = a_.kv_heads, groups = n / nkv;
    const int64_t width = packed ? n + 2 * nkv : n;
    if (q.dims[2] % width != 0) {
      return ctx.Error(absl::StrCat("query ", q.DebugString(), " hidden size is not a multiple of ",
                                    width, " heads"));
    }
    const int64_t h = q.dims[2] / width;
    const int64_t q_stride = q.dims[2];  // floats between tokens of query
    DenseInput<float> qd(q), kd, vd;
    int64_t kv_stride = q_stride;  // between tokens of key and value
    const float* k_new = nullptr;
    const float* v_new = nullptr;
    if (packed) {
      k_new = qd.data() + n * h;
      v_new = qd.data() + (n + nkv) * h;
    } else {
      const TensorView& k = ctx.input(kKey);
      const TensorView& v = ctx.input(kValue);
      for (const TensorView* t : {&k, &v}) {
        if (t->rank() != 3 || t->dims[0] != batch || t->dims[1] != seq || t->dims[2] != nkv * h ||
            t->type != ElementType::kFloat) {
          return ctx.Error(absl::StrCat("key ", k.DebugString(), " and value ", v.DebugString(),
                                        " must be float [", batch, ", ", seq, ", ", nkv * h, "]"));
        }
      }
      kd.Reset(k);
      vd.Reset(v);
      k_new = kd.data();
      v_new = vd.data();
      kv_stride = nkv * h;
    }

    // Lengths.
    const TensorView& seqlens = ctx.input(kSeqlensK);
    const TensorView& total = ctx.input(kTotalLength);
    if (seqlens.type != ElementType::kInt32 || seqlens.NumElements() != batch ||
        total.type != ElementType::kInt32 || total.NumElements() != 1) {
      return ctx.Error(absl::StrCat("seqlens_k ", seqlens.DebugString(), " must be int32 [", batch,
                                    "] and total_sequence_length ", total.DebugString(),
                                    " one int32"));
    }
    DenseInput<int32_t> lens(seqlens), total_d(total);
    const int64_t t_max = total_d.data()[0];
    const bool has_past = ctx.HasInput(kPastKey);
    if (has_past != ctx.HasInput(kPastValue)) {
      return ctx.Error("past_key and past_value must be both present or both absent");
    }
    int64_t past_len = 0;
    if (has_past) {
      const TensorView& pk = ctx.input(kPastKey);
      const TensorView& pv = ctx.input(kPastValue);
      for (const TensorView* t : {&pk, &pv}) {
        if (t->rank() != 4 || t->dims[0] != batch || t->dims[1] != nkv || t->dims[3] != h ||
            t->dims[2] != pk.dims[2] || t->type != ElementType::kFloat || !t->Contiguous()) {
          return ctx.Error(absl::StrCat("past_key ", pk.DebugString(), " and past_value ",
                                        pv.DebugString(), " must be dense float [", batch, ", ",
                                        nkv, ", P, ", h, "]"));
        }
      }
      past_len = pk.dims[2];
    }
    const int64_t present_len = std::max(t_max, past_len);
    const bool first_prompt = seq == t_max;
    if (!first_prompt && seq > 1 && batch != 1) {
      return ctx.Error(
          absl::StrCat("a prompt of ", seq, " tokens after a past needs batch 1, got ", batch));
    }
    std::vector<int64_t> totals(batch), pasts(batch);
    for (int64_t b = 0; b < batch; ++b) {
      totals[b] = int64_t{lens.data()[b]} + 1;
      pasts[b] = first_prompt ? 0 : totals[b] - seq;
      const int64_t rows_written = pasts[b] + seq;
      if (totals[b] < 1 || totals[b] > present_len || pasts[b] < 0 || rows_written > present_len ||
          (!first_prompt && pasts[b] > past_len)) {
        return ctx.Error(absl::StrCat("seqlens_k[", b, "] = ", lens.data()[b], " does not fit ",
                                      seq, " new tokens, total_sequence_length ", t_max,
                                      " and a past of ", past_len));
      }
    }

    // Rotary.
    DenseInput<float> cos_d, sin_d;
    DenseInput<int64_t> pos_d;
    int64_t half = 0;
    if (a_.rotary) {
      if (!ctx.HasInput(kCos) || !ctx.HasInput(kSin)) {
        return ctx.Error("do_rotary = 1 needs cos_cache and sin_cache");
      }
      const TensorView& c = ctx.input(kCos);
      const TensorView& s = ctx.input(kSin);
      if (c.rank() != 2 || s.dims != c.dims || c.type != ElementType::kFloat ||
          s.type != ElementType::kFloat || 2 * c.dims[1] > h) {
        return ctx.Error(absl::StrCat("cos_cache ", c.DebugString(), " and sin_cache ",
                                      s.DebugString(), " must be float [max_position, <= ", h / 2,
                                      "]"));
      }
      half = c.dims[1];
      cos_d.Reset(c);
      sin_d.Reset(s);
      if (ctx.HasInput(kPositionIds)) {
        const TensorView& p = ctx.input(kPositionIds);
        if (p.type != ElementType::kInt64 || p.NumElements() < (first_prompt ? 1 : batch * seq)) {
          return ctx.Error(absl::StrCat("position_ids ", p.DebugString(), " must be int64 [", batch,
                                        ", ", seq, "]"));
        }
        pos_d.Reset(p);
      }
    }
    auto position = [&](int64_t b, int64_t s) -> int64_t {
      if (pos_d.data() != nullptr) {
        return first_prompt ? pos_d.data()[0] + s : pos_d.data()[b * seq + s];
      }
      return pasts[b] + s;
    };
    if (a_.rotary) {
      const int64_t rows = ctx.input(kCos).dims[0];
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t s = 0; s < seq; ++s) {
          const int64_t p = position(b, s);
          if (p < 0 || p >= rows) {
            return ctx.Error(absl::StrCat("rotary position ", p, " of batch ", b, " token ", s,
                                          " is outside the caches' ", rows, " rows"));
          }
        }
      }
    }
    auto rotate = [&](const float* x, int64_t b, int64_t s, float* y) {
      const int64_t p = position(b, s);
      RotateHead(x, cos_d.data() + p * half, sin_d.data() + p * half, 2 * half, h, a_.interleaved,
                 y);
    };

    // attention_bias [B or 1, N or 1, S, T] and head_sink [N].
    DenseInput<float> bias_d, sink_d;
    int64_t bias_b = 0, bias_h = 0;
    if (ctx.HasInput(kAttentionBias)) {
      const TensorView& ab = ctx.input(kAttentionBias);
      if (ab.rank() != 4 || (ab.dims[0] != batch && ab.dims[0] != 1) ||
          (ab.dims[1] != n && ab.dims[1] != 1) || ab.dims[2] != seq || ab.dims[3] != t_max ||
          ab.type != ElementType::kFloat) {
        return ctx.Error(absl::StrCat("attention_bias ", ab.DebugString(), " is not float [", batch,
                                      " or 1, ", n, " or 1, ", seq, ", ", t_max, "]"));
      }
      bias_d.Reset(ab);
      bias_h = ab.dims[1] == 1 ? 0 : seq * t_max;
      bias_b = ab.dims[0] == 1 ? 0 : ab.dims[1] * seq * t_max;
    }
    if (ctx.HasInput(kHeadSink)) {
      const TensorView& hs = ctx.input(kHeadSink);
      if (hs.NumElements() != n || hs.type != ElementType::kFloat) {
        return ctx.Error(absl::StrCat("head_sink ", hs.DebugString(), " must be float [", n, "]"));
      }
      sink_d.Reset(hs);
    }

    // The cache: present (or, when the graph does not use it, scratch of its shape).
    const int64_t cache_elems = batch * nkv * present_len * h;
    ScratchBuffers cache_scratch;
    float* present[2];
    bool shared = has_past;
    for (int i = 0; i < 2; ++i) {
      if (ctx.HasOutput(1 + i)) {
        ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 1 + i, cache_elems));
        present[i] = ctx.output(1 + i).As<float>();
      } else {
        present[i] =
            cache_scratch.Get<float>(i, static_cast<size_t>(std::max<int64_t>(cache_elems, 1)));
      }
      if (!has_past || present[i] != ctx.input(kPastKey + i).As<float>() ||
          past_len != present_len) {
        shared = false;
      }
    }
    // Past rows and the new (rotated) keys and values into the cache, per (b, kv head).
    parallel::For(
        batch * nkv,
        parallel::MinChunk(static_cast<double>(present_len * h * 2), parallel::kMinChunkElements),
        [&](int64_t begin, int64_t end) {
          for (int64_t bj = begin; bj < end; ++bj) {
            const int64_t b = bj / nkv, j = bj % nkv;
            for (int i = 0; i < 2; ++i) {
              float* dst = present[i] + bj * present_len * h;
              if (!shared) {
                const int64_t keep = has_past ? pasts[b] : 0;
                if (keep > 0) {
                  const float* src = ctx.input(kPastKey + i).As<float>() + bj * past_len * h;
                  std::memcpy(dst, src, static_cast<size_t>(keep * h) * sizeof(float));
                }
                std::fill(dst + keep * h, dst + present_len * h, 0.0f);
              }
              const float* src = i == 0 ? k_new : v_new;
              for (int64_t s = 0; s < seq; ++s) {
                const float* x = src + (b * seq + s) * kv_stride + j * h;
                float* row = dst + (pasts[b] + s) * h;
                if (i == 0 && a_.rotary) {
                  rotate(x, b, s, row);
                } else {
                  std::copy(x, x + h, row);
                }
              }
            }
          }
        });

    // Attention, per (b, kv head, block of query rows).
    const float scale = a_.scale != 0.0f ? a_.scale : 1.0f / std::sqrt(static_cast<float>(h));
    int64_t longest = 0;
    for (int64_t t : totals) longest = std::max(longest, t);
    const int64_t rows_all = seq * groups;
    DenseOutput<float> out(ctx.output(0));
    if (rows_all == 0 || batch == 0 || h == 0) {  // no query rows: nothing to attend with
      out.Commit();
      return absl::OkStatus();
    }
    const int64_t block = std::min(RowsPerBlock(groups, longest), rows_all);
    const int64_t blocks = (rows_all + block - 1) / block;
    const double flops_per_unit = 4.0 * static_cast<double>(block * longest * h);
    parallel::For(
        batch * nkv * blocks, parallel::MinChunk(flops_per_unit, parallel::kMinChunkFlops),
        [&](int64_t begin, int64_t end) {
          ScratchBuffers scratch;
          float* qs = scratch.Get<float>(0, static_cast<size_t>(block * h));
          float* scores = scratch.Get<float>(1, static_cast<size_t>(block * longest));
          float* os = scratch.Get<float>(2, static_cast<size_t>(block * h));
          for (int64_t unit = begin; unit < end; ++unit) {
            const int64_t bj = unit / blocks, r0 = unit % blocks * block;
            const int64_t b = bj / nkv, j = bj % nkv;
            const int64_t m = std::min(block, rows_all - r0);
            // Rows r = s * G + g: query head j * G + g of token s, rotated.
            for (int64_t r = 0; r < m; ++r) {
              const int64_t s = (r0 + r) / groups, g = (r0 + r) % groups;
              const float* x = qd.data() + (b * seq + s) * q_stride + (j * groups + g) * h;
              if (a_.rotary) {
                rotate(x, b, s, qs + r * h);
              } else {
                std::copy(x, x + h, qs + r * h);
              }
            }
            const int64_t s_last = (r0 + m - 1) / groups;
            const int64_t cols = std::min(totals[b], pasts[b] + s_last + 1);
            const float* keys = present[0] + bj * present_len * h;
            const float* values = present[1] + bj * present_len * h;
            simd::Sgemm(false, true, m, cols, h, scale, qs, h, keys, h, 0.0f, scores, cols);
            for (int64_t r = 0; r < m; ++r) {
              const int64_t s = (r0 + r) / groups, head = j * groups + (r0 + r) % groups;
              float* row = scores + r * cols;
              const int64_t limit = std::min(cols, pasts[b] + s + 1);
              const int64_t start =
                  a_.local_window >= 0 ? std::max<int64_t>(0, limit - a_.local_window) : 0;
              const float* bias_row = bias_d.data() != nullptr
                                          ? bias_d.data() + b * bias_b + head * bias_h + s * t_max
                                          : nullptr;
              std::optional<float> sink;
              if (sink_d.data() != nullptr) {
                sink = sink_d.data()[head];
              } else if (a_.smooth_softmax) {
                sink = 0.0f;
              }
              SoftmaxWindow(row, start, limit, cols, bias_row, sink);
            }
            simd::Sgemm(false, false, m, h, cols, 1.0f, scores, cols, values, h, 0.0f, os, h);
            for (int64_t r = 0; r < m; ++r) {
              const int64_t s = (r0 + r) / groups, g = (r0 + r) % groups;
              std::copy(os + r * h, os + (r + 1) * h,
                        out.data() + (b * seq + s) * n * h + (j * groups + g) * h);
            }
          }
        });
    out.Commit();
    return absl::OkStatus();
  }

 private:
  // row[0, cols) holds scale * q.k; leaves softmax probabilities over [start, limit) (after softcap
  // and bias) and zeros elsewhere.
  void SoftmaxWindow(float* row, int64_t start, int64_t limit, int64_t cols, const float* bias,
                     std::optional<float> sink) const {
    std::fill(row, row + start, 0.0f);
    std::fill(row + limit, row + cols, 0.0f);
    const int64_t len = limit - start;
    if (len <= 0) return;
    float* x = row + start;
    SoftcapScores(x, len, a_.softcap);
    if (bias != nullptr) simd::AccumulateSum(x, bias + start, len);
    float m = simd::ReduceMax(x, len);
    if (sink) m = std::max(m, *sink);
    if (!std::isfinite(m)) {
      SoftmaxRowFloat(x, x, len);
      return;
    }
    float sum = simd::ExpShiftSum(x, m, x, len);
    if (sink) sum += std::exp(*sink - m);
    simd::ScaleShift(x, 1.0f / sum, 0.0f, x, len);
  }

  GqaAttrs a_;
};

}  // namespace

KernelOr CreateGroupQueryAttention(const Node& node, int64_t) {
  GqaAttrs a;
  a.heads = node.GetInt("num_heads", 0);
  a.kv_heads = node.GetInt("kv_num_heads", 0);
  if (a.heads < 1 || a.kv_heads < 1 || a.heads % a.kv_heads != 0) {
    return NodeError(node, absl::StrCat("num_heads (", a.heads, ") must be a positive multiple of",
                                        " kv_num_heads (", a.kv_heads, ")"));
  }
  a.scale = node.GetFloat("scale", 0.0f);
  a.softcap = node.GetFloat("softcap", 0.0f);
  a.local_window = node.GetInt("local_window_size", -1);
  a.rotary = node.GetInt("do_rotary", 0) != 0;
  a.interleaved = node.GetInt("rotary_interleaved", 0) != 0;
  a.smooth_softmax = node.GetInt("smooth_softmax", -1) == 1;
  if (node.GetInt("qk_output", 0) != 0 || (node.num_outputs() > 3 && node.output(3) != nullptr)) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": GroupQueryAttention's output_qk is not supported"));
  }
  return std::unique_ptr<OpKernel>(new GroupQueryAttentionKernel(a));
}

}  // namespace anvil::compute_ops
