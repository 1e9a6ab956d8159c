// ONNX's Attention-23 (the standard form of scaled dot-product attention that exporters write
// from opset 23): Q [B, Hq, S, D], K [B, Hkv, L, D], V [B, Hkv, L, Dv] (or 3-D [B, S, H*d] with
// q_num_heads and kv_num_heads), attn_mask?, past_key? [B, Hkv, P, D], past_value? [B, Hkv, P, Dv]
// -> Y [B, Hq, S, Dv] (3-D: [B, S, Hq*Dv]), present_key? [B, Hkv, T, D], present_value?
// [B, Hkv, T, Dv] (past then the new keys, T = P + L), qk_matmul_output? [B, Hq, S, T].
//
// Per query head h (kv head h / (Hq / Hkv)), in ONNX's order:
//   S0 = scale * Q K^T                (scale: attribute, else 1 / sqrt(D))
//   S1 = softcap * tanh(S0 / softcap) when softcap > 0
//   S2 = S1 + mask + causal           (bool mask: false is -inf; float mask added; is_causal:
//                                      query i sees key j <= i + P)
//   P  = softmax(S2) over T; a row whose bias is -inf everywhere is zeros (ONNX's erratum to
//        opset 23; ONNX Runtime 1.30 agrees)
//   Y  = P V
// qk_matmul_output_mode 0..3 captures S0, S1, S2 or P. softmax_precision is not used: scores are
// float (float16 inputs compute in float, as ONNX Runtime's CPU kernel does). Attention-24 adds
// input 6, nonpad_kv_seqlen (keys from each batch's length on are masked), and masks narrower than
// T (the keys past the mask are masked).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/node_errors.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

struct AttentionAttrs {
  bool causal = false;
  int64_t q_heads = 0, kv_heads = 0;
  int64_t qk_mode = 0;
  float scale = 0;  // 0: 1 / sqrt(D)
  float softcap = 0;
};

// The mask as a view of [B, Hq, S, T]: element strides of each dim (0 where it broadcasts).
struct MaskView {
  const float* add = nullptr;     // float mask
  const uint8_t* keep = nullptr;  // bool mask
  int64_t strides[4] = {0, 0, 0, 0};
  int64_t width = 0;                 // keys the mask covers; those past it are masked
  const int64_t* lengths = nullptr;  // nonpad_kv_seqlen: each batch's keys
};

class OnnxAttentionKernel final : public OpKernel {
 public:
  explicit OnnxAttentionKernel(AttentionAttrs a) : a_(a) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& qv = ctx.input(0);
    const TensorView& kv = ctx.input(1);
    const TensorView& vv = ctx.input(2);
    const bool three = qv.rank() == 3;
    if ((qv.rank() != 3 && qv.rank() != 4) || kv.rank() != qv.rank() || vv.rank() != qv.rank()) {
      return ctx.Error(absl::StrCat("Q ", qv.DebugString(), ", K ", kv.DebugString(), " and V ",
                                    vv.DebugString(), " must all be 3-D or all 4-D"));
    }
    for (const TensorView* t : {&qv, &kv, &vv}) {
      if (t->type != ElementType::kFloat && t->type != ElementType::kFloat16) {
        return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": ", t->DebugString(),
                                                     ": float and float16 only"));
      }
    }
    const int64_t batch = qv.dims[0];
    const int64_t hq = three ? a_.q_heads : qv.dims[1], hkv = three ? a_.kv_heads : kv.dims[1];
    if (hq < 1 || hkv < 1 || hq % hkv != 0) {
      return ctx.Error(absl::StrCat("q heads ", hq, " must be a multiple of kv heads ", hkv));
    }
    const int64_t seq = three ? qv.dims[1] : qv.dims[2];
    const int64_t len = three ? kv.dims[1] : kv.dims[2];
    if ((three && (qv.dims[2] % hq != 0 || kv.dims[2] % hkv != 0 || vv.dims[2] % hkv != 0)) ||
        kv.dims[0] != batch || vv.dims[0] != batch || (three ? vv.dims[1] : vv.dims[2]) != len ||
        (!three && (vv.dims[1] != hkv))) {
      return ctx.Error(absl::StrCat("Q ", qv.DebugString(), ", K ", kv.DebugString(), " and V ",
                                    vv.DebugString(), " do not fit ", hq, " query and ", hkv,
                                    " key/value heads"));
    }
    const int64_t d = three ? qv.dims[2] / hq : qv.dims[3];
    const int64_t dv = three ? vv.dims[2] / hkv : vv.dims[3];
    if ((three ? kv.dims[2] / hkv : kv.dims[3]) != d) {
      return ctx.Error(
          absl::StrCat("K ", kv.DebugString(), " has another head size than Q ", qv.DebugString()));
    }
    const bool has_past = ctx.HasInput(4) && ctx.HasInput(5);
    const int64_t past = has_past ? ctx.input(4).dims[2] : 0;
    if (has_past) {
      const TensorView& pk = ctx.input(4);
      const TensorView& pv = ctx.input(5);
      if (pk.rank() != 4 || pv.rank() != 4 || pk.dims != Shape{batch, hkv, past, d} ||
          pv.dims != Shape{batch, hkv, past, dv}) {
        return ctx.Error(absl::StrCat("past_key ", pk.DebugString(), " and past_value ",
                                      pv.DebugString(), " must be [", batch, ", ", hkv, ", P, ", d,
                                      "] and [", batch, ", ", hkv, ", P, ", dv, "]"));
      }
    }
    const int64_t total = past + len;

    // The keys and values of every kv head, past then new, as [B, Hkv, T, d]: present when it is
    // wanted, else scratch.
    DenseInput<float> qd(qv), kd(kv), vd(vv), pkd, pvd;
    if (has_past) {
      pkd.Reset(ctx.input(4));
      pvd.Reset(ctx.input(5));
    }
    Tensor own_k, own_v;
    auto cache = [&](int out, Tensor& own, int64_t width) -> float* {
      if (ctx.HasOutput(out) && ctx.output(out).type == ElementType::kFloat) {
        return ctx.output(out).As<float>();
      }
      own = Tensor(ElementType::kFloat, {batch, hkv, total, width});
      return own.As<float>();
    };
    float* keys = cache(1, own_k, d);
    float* values = cache(2, own_v, dv);
    for (int64_t bj = 0; bj < batch * hkv; ++bj) {
      const int64_t b = bj / hkv, j = bj % hkv;
      auto fill = [&](float* dst, const float* past_rows, const float* x, int64_t width) {
        if (past > 0) {
          std::copy(past_rows + bj * past * width, past_rows + (bj + 1) * past * width,
                    dst + bj * total * width);
        }
        for (int64_t t = 0; t < len; ++t) {
          const float* src =
              three ? x + (b * len + t) * hkv * width + j * width : x + (bj * len + t) * width;
          std::copy(src, src + width, dst + (bj * total + past + t) * width);
        }
      };
      fill(keys, pkd.data(), kd.data(), d);
      fill(values, pvd.data(), vd.data(), dv);
    }
    for (int out : {1, 2}) {
      if (ctx.HasOutput(out) && ctx.output(out).type != ElementType::kFloat) {
        // float16 present: converted from the float copy.
        const Tensor& own = out == 1 ? own_k : own_v;
        DenseOutput<float> o(ctx.output(out));
        std::copy(own.As<float>(), own.As<float>() + own.NumElements(), o.data());
        o.Commit();
      }
    }

    ANVIL_ASSIGN_OR_RETURN(MaskView m, ReadMask(ctx, batch, hq, seq, total));
    std::vector<int64_t> lengths;
    if (ctx.opset() >= 24 && ctx.HasInput(6)) {
      ANVIL_ASSIGN_OR_RETURN(lengths, ReadInt64s(ctx, 6));
      if (static_cast<int64_t>(lengths.size()) != batch) {
        return ctx.Error(absl::StrCat("nonpad_kv_seqlen ", ctx.input(6).DebugString(),
                                      " must hold ", batch, " lengths"));
      }
    }
    DenseInput<uint8_t> mask_keep;
    DenseInput<float> mask_add;
    if (!lengths.empty()) m.lengths = lengths.data();
    if (ctx.HasInput(3)) {
      if (ctx.input(3).type == ElementType::kBool) {
        mask_keep.Reset(ctx.input(3));
        m.keep = mask_keep.data();
      } else {
        mask_add.Reset(ctx.input(3));
        m.add = mask_add.data();
      }
    }

    const bool want_qk = ctx.HasOutput(3);
    std::optional<DenseOutput<float>> qk;
    if (want_qk) qk.emplace(ctx.output(3));
    DenseOutput<float> y(ctx.output(0));
    const float scale = a_.scale != 0 ? a_.scale : 1.0f / std::sqrt(static_cast<float>(d));
    const int64_t groups = hq / hkv;
    const int64_t q_row = three ? hq * d : d, y_row = three ? hq * dv : dv;
    constexpr int64_t kRows = 64;
    const int64_t blocks = (seq + kRows - 1) / kRows;
    const double flops = 2.0 * static_cast<double>(std::min(seq, kRows) * total * (d + dv));
    parallel::For(batch * hq * blocks, parallel::MinChunk(flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    ScratchBuffers scratch;
                    float* scores = scratch.Get<float>(0, static_cast<size_t>(kRows * total));
                    for (int64_t unit = begin; unit < end; ++unit) {
                      const int64_t bh = unit / blocks, s0 = unit % blocks * kRows;
                      const int64_t b = bh / hq, h = bh % hq, j = h / groups;
                      const int64_t rows = std::min(kRows, seq - s0);
                      const float* q = three ? qd.data() + (b * seq + s0) * q_row + h * d
                                             : qd.data() + (bh * seq + s0) * d;
                      const float* k = keys + (b * hkv + j) * total * d;
                      const float* v = values + (b * hkv + j) * total * dv;
                      simd::Sgemm(false, true, rows, total, d, scale, q, q_row, k, d, 0.0f, scores,
                                  total);
                      for (int64_t r = 0; r < rows; ++r) {
                        Scores(m, b, h, s0 + r, total, past, scores + r * total,
                               want_qk ? qk->data() + (bh * seq + s0 + r) * total : nullptr);
                      }
                      float* out = three ? y.data() + (b * seq + s0) * y_row + h * dv
                                         : y.data() + (bh * seq + s0) * dv;
                      simd::Sgemm(false, false, rows, dv, total, 1.0f, scores, total, v, dv, 0.0f,
                                  out, y_row);
                    }
                  });
    y.Commit();
    if (want_qk) qk->Commit();
    return absl::OkStatus();
  }

 private:
  // The mask's strides over [B, Hq, S, T], right-aligned (2-D [S, T], 3-D [Hq, S, T]); its last
  // dim must be T, as ONNX Runtime requires.
  absl::StatusOr<MaskView> ReadMask(const KernelContext& ctx, int64_t batch, int64_t hq,
                                    int64_t seq, int64_t total) const {
    MaskView m;
    m.width = total;
    if (!ctx.HasInput(3)) return m;
    const TensorView& mask = ctx.input(3);
    const int64_t full[4] = {batch, hq, seq, total};
    if (mask.rank() < 2 || mask.rank() > 4) {
      return ctx.Error(absl::StrCat("attn_mask ", mask.DebugString(), " must be 2-D to 4-D"));
    }
    if (mask.type != ElementType::kBool && mask.type != ElementType::kFloat &&
        mask.type != ElementType::kFloat16) {
      return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": attn_mask ",
                                                   mask.DebugString(), ": bool or float only"));
    }
    // From opset 24 the mask may cover fewer keys than T.
    const bool narrow = ctx.opset() >= 24 && mask.dims.back() < total;
    int64_t stride = 1;
    for (int64_t k = 3, i = mask.rank() - 1; k >= 0; --k, --i) {
      const int64_t dim = i >= 0 ? mask.dims[i] : 1;
      if (dim != 1 && dim != full[k] && !(k == 3 && narrow)) {
        return ctx.Error(absl::StrCat("attn_mask ", mask.DebugString(), " does not broadcast to [",
                                      batch, ", ", hq, ", ", seq, ", ", total, "]"));
      }
      m.strides[k] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
    if (mask.dims.back() != total && !narrow) {
      return ctx.Error(absl::StrCat("attn_mask ", mask.DebugString(), " must end in ", total,
                                    " (past and new keys)"));
    }
    m.width = mask.dims.back() == 1 ? total : mask.dims.back();
    return m;
  }

  // One row of scores (scale * q.k on entry) to softmax probabilities, capturing the row the
  // qk_matmul_output_mode asks for into `qk` (when wanted).
  void Scores(const MaskView& m, int64_t b, int64_t h, int64_t s, int64_t total, int64_t past,
              float* row, float* qk) const {
    if (qk != nullptr && a_.qk_mode == 0) std::copy(row, row + total, qk);
    SoftcapScores(row, total, a_.softcap);
    if (qk != nullptr && a_.qk_mode == 1) std::copy(row, row + total, qk);
    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    bool any = m.keep == nullptr && m.add == nullptr && !a_.causal && m.lengths == nullptr &&
               m.width == total;
    if (!any) {
      const int64_t base = b * m.strides[0] + h * m.strides[1] + s * m.strides[2];
      int64_t visible = a_.causal ? std::min(total, s + past + 1) : total;
      visible = std::min(visible, m.width);
      if (m.lengths != nullptr) visible = std::min(visible, m.lengths[b]);
      for (int64_t t = 0; t < total; ++t) {
        const bool masked =
            t >= visible || (m.keep != nullptr && m.keep[base + t * m.strides[3]] == 0);
        if (masked) {
          row[t] = kMasked;
          continue;
        }
        if (m.add != nullptr) row[t] += m.add[base + t * m.strides[3]];
        any |= row[t] != kMasked;
      }
    }
    if (qk != nullptr && a_.qk_mode == 2) std::copy(row, row + total, qk);
    if (!any) {
      std::fill(row, row + total, 0.0f);  // every key masked: a zero row
    } else {
      SoftmaxRowFloat(row, row, total);
    }
    if (qk != nullptr && a_.qk_mode == 3) std::copy(row, row + total, qk);
  }

  AttentionAttrs a_;
};

}  // namespace

KernelOr CreateOnnxAttention(const Node& node, int64_t) {
  AttentionAttrs a;
  a.causal = node.GetInt("is_causal", 0) != 0;
  a.q_heads = node.GetInt("q_num_heads", 0);
  a.kv_heads = node.GetInt("kv_num_heads", 0);
  a.qk_mode = node.GetInt("qk_matmul_output_mode", 0);
  a.scale = node.GetFloat("scale", 0.0f);
  a.softcap = node.GetFloat("softcap", 0.0f);
  if (a.qk_mode < 0 || a.qk_mode > 3) {
    return NodeError(node, absl::StrCat("qk_matmul_output_mode ", a.qk_mode, " is not 0 to 3"));
  }
  if (a.scale < 0 || a.softcap < 0) return NodeError(node, "scale and softcap must be >= 0");
  return std::unique_ptr<OpKernel>(new OnnxAttentionKernel(a));
}

}  // namespace anvil::compute_ops
