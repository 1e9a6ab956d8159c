// Rotary position embeddings: the rotation of one head (RotateHead, shared with
// GroupQueryAttention's do_rotary), com.microsoft RotaryEmbedding (ONNX Runtime's contrib op) and
// ONNX's RotaryEmbedding-23 (inputs X, cos_cache, sin_cache, position_ids?; without ids the
// caches are [B, S, rotary_dim / 2], a row per token):
//
//   input [B, S, hidden] or [B, N, S, H], position_ids (int64: one offset, pos = offset + s, or
//   [B, S]), cos_cache and sin_cache [max_position, rotary_dim / 2] -> output of input's shape
//
// Each head's first rotary_dim values turn by the angles of its position's cache row, as pairs
// (x[i], x[i + rotary_dim / 2]), or (x[2i], x[2i + 1]) with interleaved = 1:
//   y0 = x0 cos - x1 sin, y1 = x0 sin + x1 cos
// and the rest of the head is copied. As ONNX Runtime: rotary_embedding_dim 0 means the whole head,
// whose size then comes from the cache (2 * its width) unless num_heads is given; the scale
// attribute is not used. float and float16 (computed in float).
#include <algorithm>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/node_errors.h"
#include "kernels/ops/compute_util.h"

namespace anvil::compute_ops {

void RotateHead(const float* x, const float* cos, const float* sin, int64_t rotary_dim,
                int64_t head, bool interleaved, float* y) {
  const int64_t half = rotary_dim / 2;
  if (interleaved) {
    for (int64_t i = 0; i < half; ++i) {
      const float x0 = x[2 * i], x1 = x[2 * i + 1];
      y[2 * i] = x0 * cos[i] - x1 * sin[i];
      y[2 * i + 1] = x0 * sin[i] + x1 * cos[i];
    }
  } else {
    for (int64_t i = 0; i < half; ++i) {
      const float x0 = x[i], x1 = x[i + half];
      y[i] = x0 * cos[i] - x1 * sin[i];
      y[i + half] = x0 * sin[i] + x1 * cos[i];
    }
  }
  if (y != x) std::copy(x + rotary_dim, x + head, y + rotary_dim);
}

namespace {

class RotaryEmbeddingKernel final : public OpKernel {
 public:
  RotaryEmbeddingKernel(bool onnx, bool interleaved, int64_t rotary_dim, int64_t heads)
      : onnx_(onnx), interleaved_(interleaved), rotary_dim_(rotary_dim), heads_(heads) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    // ONNX's form: X, cos_cache, sin_cache, position_ids?; without ids the caches are
    // [B, S, rotary_dim / 2], a row per token.
    const bool has_pos = !onnx_ || ctx.HasInput(3);
    TensorView no_positions;
    const TensorView& pos = !onnx_ ? ctx.input(1) : has_pos ? ctx.input(3) : no_positions;
    const TensorView& cos = ctx.input(onnx_ ? 1 : 2);
    const TensorView& sin = ctx.input(onnx_ ? 2 : 3);
    if (x.type != ElementType::kFloat && x.type != ElementType::kFloat16) {
      return ctx.Error(absl::StrCat("input ", x.DebugString(), ": float or float16 only"));
    }
    if (x.rank() != 3 && x.rank() != 4) {
      return ctx.Error(absl::StrCat("input ", x.DebugString(),
                                    " must be [batch, sequence, hidden] or [batch, heads, "
                                    "sequence, head_size]"));
    }
    const bool bnsh = x.rank() == 4;
    const int64_t batch = x.dims[0], seq = bnsh ? x.dims[2] : x.dims[1];
    const int64_t hidden = bnsh ? x.dims[1] * x.dims[3] : x.dims[2];
    if (cos.rank() != (has_pos ? 2 : 3) || sin.dims != cos.dims || cos.type != x.type ||
        sin.type != x.type || (!has_pos && (cos.dims[0] != batch || cos.dims[1] != seq))) {
      return ctx.Error(absl::StrCat(
          "cos_cache ", cos.DebugString(), " and sin_cache ", sin.DebugString(), " must be ",
          has_pos ? "[max_position, rotary_dim / 2]" : "[batch, sequence, rotary_dim / 2]",
          " of input's type"));
    }
    const int64_t max_pos = has_pos ? cos.dims[0] : batch * seq, half = cos.dims.back();
    int64_t head = 0;
    if (bnsh) {
      head = x.dims[3];
    } else if (rotary_dim_ == 0 && heads_ == 0) {
      head = 2 * half;
    } else if (heads_ > 0) {
      head = hidden % heads_ == 0 ? hidden / heads_ : 0;
    }
    if (head <= 0 || hidden % head != 0) {
      return ctx.Error(absl::StrCat("cannot split hidden size ", hidden, " into heads (num_heads ",
                                    heads_, ", cache width ", half, ")"));
    }
    const int64_t heads = hidden / head;
    const int64_t rotary = rotary_dim_ > 0 ? rotary_dim_ : head;
    if (rotary > head || rotary % 2 != 0 || half * 2 < rotary) {
      return ctx.Error(absl::StrCat("rotary dim ", rotary, " must be even, at most the head size ",
                                    head, " and at most twice the cache width ", half));
    }
    if (has_pos && pos.type != ElementType::kInt64) {
      return ctx.Error(absl::StrCat("position_ids ", pos.DebugString(), " must be int64"));
    }
    // The offset form is ONNX Runtime's; ONNX's ids are always [B, S].
    const bool offset_form = has_pos && !onnx_ && pos.NumElements() == 1;
    if (has_pos && !offset_form &&
        (pos.rank() != 2 || pos.dims[0] != batch || pos.dims[1] != seq)) {
      return ctx.Error(absl::StrCat("position_ids ", pos.DebugString(), " must ",
                                    onnx_ ? "" : "hold one offset or ", "be [", batch, ", ", seq,
                                    "]"));
    }
    DenseInput<int64_t> given_positions;
    if (has_pos) given_positions.Reset(pos);
    const int64_t* position_data = given_positions.data();
    for (int64_t i = 0; has_pos && i < (offset_form ? 1 : batch * seq); ++i) {
      const int64_t p = position_data[i];
      const int64_t last = offset_form ? p + seq - 1 : p;
      if (p < 0 || last >= max_pos) {
        return ctx.Error(absl::StrCat("position ", last, " (position_ids[", i,
                                      "]) is outside the caches' ", max_pos, " rows"));
      }
    }
    DenseInput<float> xd(x), cd(cos), sd(sin);
    DenseOutput<float> y(ctx.output(0));
    const int64_t seq_stride = bnsh ? head : hidden, head_stride = bnsh ? seq * head : head;
    parallel::For(batch * seq,
                  parallel::MinChunk(static_cast<double>(hidden), parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t bs = begin; bs < end; ++bs) {
                      const int64_t b = bs / seq, s = bs % seq;
                      // Without ids, token (b, s) reads its own cache row b * seq + s.
                      const int64_t p = !has_pos      ? bs
                                        : offset_form ? position_data[0] + s
                                                      : position_data[bs];
                      for (int64_t n = 0; n < heads; ++n) {
                        const int64_t at = b * seq * hidden + s * seq_stride + n * head_stride;
                        RotateHead(xd.data() + at, cd.data() + p * half, sd.data() + p * half,
                                   rotary, head, interleaved_, y.data() + at);
                      }
                    }
                  });
    y.Commit();
    return absl::OkStatus();
  }

 private:
  bool onnx_;
  bool interleaved_;
  int64_t rotary_dim_, heads_;
};

}  // namespace

KernelOr CreateRotaryEmbedding(const Node& node, int64_t) {
  const int64_t rotary_dim = node.GetInt("rotary_embedding_dim", 0);
  const int64_t heads = node.GetInt("num_heads", 0);
  if (rotary_dim < 0 || heads < 0) {
    return NodeError(node, "rotary_embedding_dim and num_heads must be >= 0");
  }
  const bool onnx = node.domain().empty();  // RotaryEmbedding-23
  if (!onnx && rotary_dim > 0 && heads == 0) {
    return NodeError(node, "rotary_embedding_dim > 0 needs num_heads");
  }
  return std::unique_ptr<OpKernel>(
      new RotaryEmbeddingKernel(onnx, node.GetInt("interleaved", 0) != 0, rotary_dim, heads));
}

}  // namespace anvil::compute_ops
