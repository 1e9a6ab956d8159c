// com.microsoft MatMulNBits (ONNX Runtime's contrib op for LLM weights quantized to 4 bits in
// blocks along K): Y[..., N] = A[..., K] x W^T + bias, W [N, K] from
//
//   B            uint8 [N, ceil(K / block_size), block_size / 2]: two 4-bit values per byte
//   scales       [N * ceil(K / block_size)] of A's type
//   zero_points  uint8, two 4-bit values per byte ([N * ceil(ceil(K / block_size) / 2)]), or of
//                A's type ([N * ceil(K / block_size)]); absent: 8
//   g_idx        int32 [K], the block of each k: only the plain order k / block_size
//   bias         [N]
//
// (simd/nbits.h has the layout and both arithmetics.) With accuracy_level 4 a constant B and its
// scales are packed at load into simd/nbits.h's interleaved layout (4 columns' blocks in one
// stream), and the model's bytes are released: one resident copy, in the kernel. Otherwise B is
// read where the model holds it (an initializer, mapped from external data), never copied. Rows
// of A go one at a time through the matrix-vector kernel, dequantizing in registers, up to
// kMatVecRows rows; more rows (a prompt) take, with accuracy_level 4 where the CPU has byte
// products, the int8 GEMM (A quantized once, as ONNX Runtime does there), else the float GEMM over
// slices of W's rows dequantized into a thread's scratch (for short prompts the product
// transposed, so that the slices need no packing). float and float16 (computed in float), as
// ONNX Runtime's CPU kernel; bits other than 4 are Unimplemented.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/node_errors.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/nbits.h"

namespace anvil::compute_ops {
namespace {

// Rows of A up to which each row streams W once through the matrix-vector kernel; past it, the
// GEMM, whose dequantized panels serve every row.
constexpr int64_t kMatVecRows = 4;
// Rows of W per dequantized slice of the GEMM paths (a thread's unit of work).
constexpr int64_t kSliceRows = 64;
// Prompts whose rows of A take at most this many bytes (half a 512 KiB L2) run the GEMM
// transposed: A^T packed once stays in L2 for every slice. Longer ones read A in place per slice
// (A^T from L3 made a 512-token prompt 11% slower).
constexpr int64_t kTransposedPromptBytes = 256 * 1024;

class MatMulNBitsKernel final : public OpKernel {
 public:
  MatMulNBitsKernel(int64_t k, int64_t n, int64_t block, bool int8,
                    std::optional<simd::Int4Interleaved> packed)
      : k_(k), n_(n), block_(block), int8_(int8), packed_(std::move(packed)) {}

  // B and scales, when packed at creation (their bytes are then released: one resident copy).
  bool KeepsOwnCopyOf(int input) const override {
    return packed_.has_value() && (input == 1 || input == 2);
  }
  int64_t OwnedBytes() const override {
    return packed_.has_value()
               ? static_cast<int64_t>(packed_->q.size() + packed_->scales.size() * sizeof(float))
               : 0;
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& a = ctx.input(0);
    if (a.rank() < 1 || a.dims.back() != k_) {
      return ctx.Error(absl::StrCat("A ", a.DebugString(), " must end in K = ", k_));
    }
    if (a.type != ElementType::kFloat && a.type != ElementType::kFloat16) {
      return ctx.Error(absl::StrCat("A ", a.DebugString(), ": float or float16 only"));
    }
    const int64_t blocks = (k_ + block_ - 1) / block_;
    const TensorView& b = ctx.input(1);
    if (b.type != ElementType::kUint8 || b.NumElements() != n_ * blocks * (block_ / 2)) {
      return ctx.Error(absl::StrCat("B ", b.DebugString(), " must be uint8 [", n_, ", ", blocks,
                                    ", ", block_ / 2, "] for N = ", n_, ", K = ", k_,
                                    ", block_size = ", block_));
    }
    const TensorView& s = ctx.input(2);
    if (s.NumElements() != n_ * blocks || s.type != a.type) {
      return ctx.Error(absl::StrCat("scales ", s.DebugString(), " must hold N * blocks = ",
                                    n_ * blocks, " values of A's type"));
    }
    DenseInput<float> scales, float_zeros, bias;
    std::optional<DenseBytes> b_bytes;
    simd::Int4Weights w;
    if (packed_) {
      w.q = packed_->q.data();
      w.scales = packed_->scales.data();
      w.interleaved = true;
    } else {
      scales.Reset(s);
      b_bytes.emplace(b);
      w.q = b_bytes->data();
      w.scales = scales.data();
    }
    w.n = n_;
    w.k = k_;
    w.block = block_;
    std::optional<DenseBytes> packed_zeros;
    if (ctx.HasInput(3)) {
      const TensorView& z = ctx.input(3);
      if (z.type == ElementType::kUint8 && z.NumElements() == n_ * ((blocks + 1) / 2)) {
        packed_zeros.emplace(z);
        w.packed_zeros = packed_zeros->data();
      } else if (z.type == a.type && z.NumElements() == n_ * blocks) {
        float_zeros.Reset(z);
        w.float_zeros = float_zeros.data();
      } else {
        return ctx.Error(absl::StrCat("zero_points ", z.DebugString(), " must be uint8 with ",
                                      n_ * ((blocks + 1) / 2), " bytes (4-bit pairs) or hold ",
                                      n_ * blocks, " values of A's type"));
      }
    }
    if (ctx.HasInput(4)) ANVIL_RETURN_IF_ERROR(CheckPlainGroups(ctx, ctx.input(4)));
    if (ctx.HasInput(5)) {
      const TensorView& bv = ctx.input(5);
      if (bv.NumElements() != n_ || bv.type != a.type) {
        return ctx.Error(
            absl::StrCat("bias ", bv.DebugString(), " must hold N = ", n_, " values of A's type"));
      }
      bias.Reset(bv);
    }
    ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, a.NumElements() / std::max<int64_t>(k_, 1) * n_));
    const int64_t m = a.NumElements() / std::max<int64_t>(k_, 1);
    DenseInput<float> ad(a);
    DenseOutput<float> y(ctx.output(0));
    if (m <= kMatVecRows || k_ == 0) {
      const int64_t scratch_bytes = simd::Int4MatVecScratchBytes(w);
      // Float zero points take the float arithmetic, as in ONNX Runtime.
      const bool int8 = int8_ && w.float_zeros == nullptr;
      // Chunks of whole column groups (4), each worth a thread's while.
      const int64_t groups = (n_ + 3) / 4;
      parallel::For(groups, parallel::MinChunk(8.0 * k_, parallel::kMinChunkFlops),
                    [&](int64_t begin, int64_t end) {
                      ScratchBuffers scratch;
                      void* buffer = scratch.Get<uint8_t>(0, static_cast<size_t>(scratch_bytes));
                      const int64_t n0 = begin * 4, n1 = std::min(n_, end * 4);
                      for (int64_t r = 0; r < m; ++r) {
                        simd::Int4MatVec(ad.data() + r * k_, w, int8, n0, n1, buffer,
                                         y.data() + r * n_ + n0);
                      }
                    });
    } else if (int8_ && simd::Int4GemmInt8Supported(w)) {
      // The int8 arithmetic: A quantized once, then slices of kSliceRows columns.
      simd::Int4QuantizedRows rows = simd::Int4QuantizedRowsFor(w, m);
      parallel::For(m, parallel::MinChunk(4.0 * k_, parallel::kMinChunkElements),
                    [&](int64_t begin, int64_t end) {
                      simd::QuantizeRowsInt8(ad.data(), w, begin, end, rows);
                    });
      const int64_t scratch_bytes = simd::Int4GemmInt8ScratchBytes(w);
      const int64_t slices = (n_ + kSliceRows - 1) / kSliceRows;
      parallel::For(slices, 1, [&](int64_t begin, int64_t end) {
        ScratchBuffers scratch;
        void* buffer = scratch.Get<uint8_t>(0, static_cast<size_t>(scratch_bytes));
        const int64_t n0 = begin * kSliceRows, n1 = std::min(n_, end * kSliceRows);
        simd::Int4GemmInt8(rows, w, n0, n1, buffer, y.data() + n0, n_);
      });
    } else {
      // Slices of kSliceRows rows of W, dequantized into a thread's scratch (~K * 256 bytes): W
      // read once. A long prompt: each slice is the B of Y = A W^T, A (~K * M * 4 bytes) read in
      // place once per slice from cache. A short one: Y^T = W A^T, the slice the GEMM's A (read
      // in place) and A^T its B, packed once per call (L2-resident), the slice's [rows, M] result
      // transposed into Y; W is then never packed (packing each slice as a transposed B took a
      // fifth of a 64-token prompt).
      const bool transposed =
          m * k_ * static_cast<int64_t>(sizeof(float)) <= kTransposedPromptBytes;
      const std::unique_ptr<const simd::PackedB> a_t =
          transposed ? simd::PackB(true, k_, m, ad.data(), k_) : nullptr;
      const int64_t slices = (n_ + kSliceRows - 1) / kSliceRows;
      parallel::For(slices, 1, [&](int64_t begin, int64_t end) {
        ScratchBuffers scratch;
        float* slice = scratch.Get<float>(0, static_cast<size_t>(kSliceRows * k_));
        float* y_t =
            transposed ? scratch.Get<float>(1, static_cast<size_t>(kSliceRows * m)) : nullptr;
        for (int64_t i = begin; i < end; ++i) {
          const int64_t n0 = i * kSliceRows, n1 = std::min(n_, n0 + kSliceRows);
          simd::DequantizeInt4Rows(w, n0, n1, slice);
          if (!transposed) {
            simd::Sgemm(false, true, m, n1 - n0, k_, 1.0f, ad.data(), k_, slice, k_, 0.0f,
                        y.data() + n0, n_);
            continue;
          }
          simd::SgemmPackedB(false, n1 - n0, 1.0f, slice, k_, *a_t, 0.0f, y_t, m);
          for (int64_t r = 0; r < m; ++r) {
            float* out = y.data() + r * n_ + n0;
            for (int64_t j = 0; j < n1 - n0; ++j) out[j] = y_t[j * m + r];
          }
        }
      });
    }
    if (bias.data() != nullptr) {
      for (int64_t r = 0; r < m; ++r) {
        float* row = y.data() + r * n_;
        for (int64_t j = 0; j < n_; ++j) row[j] += bias.data()[j];
      }
    }
    y.Commit();
    return absl::OkStatus();
  }

 private:
  // g_idx maps k to its block; only the plain order (k / block_size) is what B's layout already
  // says. act-order (GPTQ) permutations are not supported.
  absl::Status CheckPlainGroups(KernelContext& ctx, const TensorView& g) const {
    if (g.NumElements() != k_ || g.type != ElementType::kInt32) {
      return ctx.Error(absl::StrCat("g_idx ", g.DebugString(), " must be int32 [K = ", k_, "]"));
    }
    const int32_t* v = g.As<int32_t>();
    for (int64_t i = 0; i < k_; ++i) {
      if (v[i] != i / block_) {
        return absl::UnimplementedError(absl::StrCat(
            ctx.node().Describe(), ": MatMulNBits with g_idx other than k / block_size (g_idx[", i,
            "] = ", v[i], ") is not supported"));
      }
    }
    return absl::OkStatus();
  }

  int64_t k_, n_, block_;
  bool int8_;
  std::optional<simd::Int4Interleaved> packed_;
};

// B and scales in the interleaved layout when both are constants, the int8 arithmetic reads them
// (accuracy_level 4, integer or no zero points) and this CPU's target runs it; nullopt otherwise.
std::optional<simd::Int4Interleaved> PackConstantWeights(const Node& node, int64_t k, int64_t n,
                                                         int64_t block) {
  const Elements* b = ConstantInput(node, 1);
  const Elements* s = ConstantInput(node, 2);
  const int64_t blocks = (k + block - 1) / block;
  if (b == nullptr || s == nullptr || b->element_type() != ElementType::kUint8 ||
      s->element_type() != ElementType::kFloat || b->NumElements() != n * blocks * (block / 2) ||
      s->NumElements() != n * blocks) {
    return std::nullopt;
  }
  if (node.num_inputs() > 3 && node.input(3) != nullptr &&
      node.input(3)->type().element_type() != ElementType::kUint8) {
    return std::nullopt;  // float zero points: the float arithmetic
  }
  if (node.num_inputs() > 4 && node.input(4) != nullptr) return std::nullopt;  // g_idx
  simd::Int4Weights w;
  w.n = n;
  w.k = k;
  w.block = block;
  if (!simd::Int4InterleavedSupported(w)) return std::nullopt;
  std::vector<uint8_t> b_copy;
  std::vector<float> s_copy(static_cast<size_t>(n * blocks));
  w.q = b->ContiguousData();
  if (w.q == nullptr) {
    b_copy.resize(static_cast<size_t>(b->NumElements()));
    b->CopyTo(b_copy.data());
    w.q = b_copy.data();
  }
  s->CopyTo(reinterpret_cast<uint8_t*>(s_copy.data()));
  w.scales = s_copy.data();
  return simd::PackInt4Interleaved(w);
}

}  // namespace

KernelOr CreateMatMulNBits(const Node& node, int64_t) {
  const int64_t k = node.GetInt("K", -1), n = node.GetInt("N", -1);
  const int64_t bits = node.GetInt("bits", 4), block = node.GetInt("block_size", 0);
  if (k < 0 || n < 0) return NodeError(node, "attributes K and N are required (>= 0)");
  if (bits != 4) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": MatMulNBits with bits = ", bits, " (only 4)"));
  }
  if (block < 16 || (block & (block - 1)) != 0) {
    return NodeError(node, absl::StrCat("block_size ", block, " must be a power of 2, >= 16"));
  }
  if (block > 256) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": MatMulNBits with block_size ", block, " (at most 256)"));
  }
  const bool int8 = node.GetInt("accuracy_level", 0) == 4;
  return std::unique_ptr<OpKernel>(new MatMulNBitsKernel(
      k, n, block, int8, int8 ? PackConstantWeights(node, k, n, block) : std::nullopt));
}

}  // namespace anvil::compute_ops
