#include "kernels/ops/compute_util.h"

#include <algorithm>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/float16.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "graph/passes/match.h"

namespace anvil::compute_ops {

namespace {

// Element offset (from v.data) of row-major element `i` of `v`.
int64_t OffsetOf(const TensorView& v, int64_t i) {
  int64_t offset = 0;
  for (int64_t k = v.rank() - 1; k >= 0; --k) {
    offset += (i % v.dims[k]) * v.strides[k];
    i /= v.dims[k];
  }
  return offset;
}

}  // namespace

double ReadDouble(const TensorView& v, int64_t i) {
  double value = 0;
  if (i < 0 || i >= v.NumElements()) return value;
  (void)DispatchNumeric(v.type, "", [&](auto tag) -> absl::Status {
    using S = decltype(tag);
    value = ConvertElement<double>(v.As<S>()[OffsetOf(v, i)]);
    return absl::OkStatus();
  });
  return value;
}

absl::Status CheckOutputSize(KernelContext& ctx, int i, int64_t n) {
  if (ctx.output(i).NumElements() == n) return absl::OkStatus();
  return ctx.Error(absl::StrCat("output ", i, " ", ctx.output(i).DebugString(), " should hold ", n,
                                " elements"));
}

absl::StatusOr<TensorView> NormalizationParameter(KernelContext& ctx, int i,
                                                  absl::Span<const int64_t> norm_dims) {
  TensorView v = ctx.input(i);
  const int64_t rank = static_cast<int64_t>(norm_dims.size());
  // Leading 1s past the normalized rank ([1, 1, H] for an axis of -1) say nothing more.
  int64_t extra = std::max<int64_t>(0, v.rank() - rank);
  for (int64_t k = 0; k < extra; ++k) {
    if (v.dims[k] != 1) {
      return absl::UnimplementedError(absl::StrCat(
          ctx.node().Describe(), ": input ", i, " ", v.DebugString(),
          " varies over dims before the normalized ones; only broadcasting to the normalized "
          "dims is supported"));
    }
  }
  v.dims.erase(v.dims.begin(), v.dims.begin() + extra);
  v.strides.erase(v.strides.begin(), v.strides.begin() + extra);
  if (!v.BroadcastsTo(norm_dims)) {
    return ctx.Error(absl::StrCat("input ", i, " ", ctx.input(i).DebugString(),
                                  " does not broadcast to the normalized dims [",
                                  absl::StrJoin(norm_dims, ","), "]"));
  }
  return v.BroadcastTo(norm_dims);
}

void WidenHalves(const uint16_t* h, float* out, int64_t n) {
  parallel::For(n, static_cast<int64_t>(parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  simd::HalfToFloat(h + begin, out + begin, static_cast<size_t>(end - begin));
                });
}

void NarrowToHalves(const float* x, uint16_t* out, int64_t n) {
  parallel::For(n, static_cast<int64_t>(parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  simd::FloatToHalf(x + begin, out + begin, static_cast<size_t>(end - begin));
                });
}

const Elements* ConstantInput(const Node& node, int input) {
  return input < node.num_inputs() ? match::RunConstant(node.input(input)) : nullptr;
}

std::optional<ConstantQuantizedWeight> ReadConstantQuantizedWeight(const Node& node, int input,
                                                                   int zp_index, int64_t per_index,
                                                                   bool per_index_rank_1) {
  const Elements* w = ConstantInput(node, input);
  if (w == nullptr ||
      (w->element_type() != ElementType::kUint8 && w->element_type() != ElementType::kInt8)) {
    return std::nullopt;
  }
  ConstantQuantizedWeight out;
  out.type = w->element_type();
  out.dims.assign(w->dims().begin(), w->dims().end());
  auto widen = [&](const std::vector<uint8_t>& bytes, std::vector<int32_t>* values) {
    for (uint8_t b : bytes) {
      values->push_back(out.type == ElementType::kInt8 ? static_cast<int8_t>(b) : b);
    }
  };
  if (zp_index < node.num_inputs() && node.input(zp_index) != nullptr) {
    const Elements* zp = ConstantInput(node, zp_index);
    if (zp == nullptr || zp->element_type() != out.type) return std::nullopt;
    const int64_t count = zp->NumElements();
    if (count > 1 && (count != per_index || (per_index_rank_1 && zp->dims().size() != 1))) {
      return std::nullopt;  // the run reports it
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(count));
    zp->CopyTo(bytes.data());
    widen(bytes, &out.zeros);
  }
  out.bytes.resize(static_cast<size_t>(w->NumElements()));
  w->CopyTo(out.bytes.data());
  return out;
}

std::optional<ConstantFloats> ReadConstantFloats(const Node& node, int input, bool float32_too) {
  const Elements* constant = ConstantInput(node, input);
  if (constant == nullptr) return std::nullopt;
  const Elements& e = *constant;
  const ElementType type = e.element_type();
  if ((type != ElementType::kFloat || !float32_too) && type != ElementType::kFloat16 &&
      type != ElementType::kBfloat16) {
    return std::nullopt;
  }
  ConstantFloats out;
  out.type = type;
  out.dims.assign(e.dims().begin(), e.dims().end());
  const int64_t n = e.NumElements();
  if (type == ElementType::kFloat) {
    out.data = reinterpret_cast<const float*>(e.ContiguousData());
    if (out.data == nullptr) {
      out.widened.resize(n);
      e.CopyTo(reinterpret_cast<uint8_t*>(out.widened.data()));
      out.data = out.widened.data();
    }
    return out;
  }
  out.widened.resize(n);
  std::vector<uint16_t> bits(n);
  e.CopyTo(reinterpret_cast<uint8_t*>(bits.data()));
  if (type == ElementType::kFloat16) {
    WidenHalves(bits.data(), out.widened.data(), n);
  } else {
    for (int64_t i = 0; i < n; ++i) out.widened[i] = fp16::Bfloat16ToFloat(bits[i]);
  }
  out.data = out.widened.data();
  return out;
}

std::vector<float> ReadFloats(const TensorView& v) {
  std::vector<float> values(v.NumElements());
  CopyConvertAny(v, values.data());
  return values;
}

absl::StatusOr<WindowAttrs> ReadWindowAttrs(const Node& node) {
  WindowAttrs attrs;
  attrs.kernel_shape = node.GetInts("kernel_shape");
  attrs.strides = node.GetInts("strides");
  attrs.dilations = node.GetInts("dilations");
  attrs.pads = node.GetInts("pads");
  const std::string auto_pad = node.GetString("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    attrs.auto_pad = AutoPad::kNotSet;
  } else if (auto_pad == "VALID") {
    attrs.auto_pad = AutoPad::kValid;
  } else if (auto_pad == "SAME_UPPER") {
    attrs.auto_pad = AutoPad::kSameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    attrs.auto_pad = AutoPad::kSameLower;
  } else {
    return NodeError(node, absl::StrCat("auto_pad '", auto_pad, "' is not supported"));
  }
  for (int64_t v : attrs.strides) {
    if (v < 1) return NodeError(node, "strides must be >= 1");
  }
  for (int64_t v : attrs.dilations) {
    if (v < 1) return NodeError(node, "dilations must be >= 1");
  }
  return attrs;
}

absl::StatusOr<WindowGeometry> ResolveWindow(const Node& node, const WindowAttrs& attrs,
                                             absl::Span<const int64_t> in,
                                             absl::Span<const int64_t> out,
                                             absl::Span<const int64_t> kernel) {
  WindowGeometry g;
  const size_t s = in.size();
  g.spatial = static_cast<int64_t>(s);
  auto check = [&](const std::vector<int64_t>& v, size_t n, const char* name) -> absl::Status {
    if (!v.empty() && v.size() != n) {
      return NodeError(
          node, absl::StrCat("attribute '", name, "' has ", v.size(), " values, expected ", n));
    }
    return absl::OkStatus();
  };
  for (auto [v, n, name] :
       {std::tuple(&attrs.strides, s, "strides"), std::tuple(&attrs.dilations, s, "dilations"),
        std::tuple(&attrs.pads, 2 * s, "pads")}) {
    ANVIL_RETURN_IF_ERROR(check(*v, n, name));
  }
  if (out.size() != s || kernel.size() != s) {
    return NodeError(node, "input, output and kernel have different numbers of spatial dims");
  }
  for (size_t i = 0; i < s; ++i) {
    g.in.push_back(in[i]);
    g.out.push_back(out[i]);
    g.kernel.push_back(kernel[i]);
    g.strides.push_back(attrs.strides.empty() ? 1 : attrs.strides[i]);
    g.dilations.push_back(attrs.dilations.empty() ? 1 : attrs.dilations[i]);
    int64_t begin = 0, end = 0;
    switch (attrs.auto_pad) {
      case AutoPad::kNotSet:
        if (!attrs.pads.empty()) {
          begin = attrs.pads[i];
          end = attrs.pads[i + s];
        }
        break;
      case AutoPad::kValid:
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        const int64_t total = std::max<int64_t>(
            0, (out[i] - 1) * g.strides[i] + (kernel[i] - 1) * g.dilations[i] + 1 - in[i]);
        begin = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
        end = total - begin;
        break;
      }
    }
    g.pad_begin.push_back(begin);
    g.pad_end.push_back(end);
    g.in_size *= in[i];
    g.out_size *= out[i];
    g.kernel_size *= kernel[i];
  }
  return g;
}

TensorView MatrixOperand(const TensorView& v, Tensor* holder) {
  const int64_t r = v.rank();
  if (r < 2) return v;
  if (v.strides[r - 1] == 1 || v.dims[r - 1] == 1 || v.strides[r - 2] == 1 || v.dims[r - 2] == 1) {
    return v;
  }
  *holder = Tensor::CopyOf(v);
  return holder->view();
}

namespace {

// How simd/gemm.h reads the matrix in the last two dims of `v`: transposed or not, and the
// leading dimension.
void MatrixLayout(const TensorView& v, bool* trans, int64_t* ld) {
  const int64_t r = v.rank();
  if (v.strides[r - 1] == 1 || v.dims[r - 1] == 1) {
    *trans = false;
    *ld = v.strides[r - 2];
  } else {
    *trans = true;  // unit stride (or a single row) in dim r - 2, see MatrixOperand
    *ld = v.strides[r - 1];
  }
}

}  // namespace

template <typename T>
void BatchedMatMul(const TensorView& a, const TensorView& b, T* out) {
  const int64_t rank = a.rank();
  const int64_t batch_rank = rank - 2;
  const int64_t M = a.dims[rank - 2], K = a.dims[rank - 1], N = b.dims[rank - 1];
  int64_t batch = 1;
  for (int64_t k = 0; k < batch_rank; ++k) batch *= a.dims[k];
  if (batch == 0 || M == 0 || N == 0) return;
  bool trans_a, trans_b;
  int64_t lda, ldb;
  MatrixLayout(a, &trans_a, &lda);
  MatrixLayout(b, &trans_b, &ldb);
  const T* pa = a.As<T>();
  const T* pb = b.As<T>();

  // B shared by every batch and A's batch dims continuing its row dim ([B, S, K] x [K, N], the
  // common linear layer): one GEMM with batch * M rows.
  bool b_shared = true;
  for (int64_t k = 0; k < batch_rank; ++k) b_shared &= b.strides[k] == 0 || b.dims[k] == 1;
  if (b_shared && !trans_a && batch > 1) {
    // Dims 0..rank-2 of A (size-1 dims ignored) must form one evenly strided run of rows.
    bool merge = true;
    int64_t row_stride = lda;
    int64_t inner_dim = 0, inner_stride = 0;  // the next non-1 dim inward
    for (int64_t k = rank - 2; k >= 0 && merge; --k) {
      if (a.dims[k] == 1) continue;
      if (inner_dim == 0) {
        row_stride = a.strides[k];
      } else {
        merge = a.strides[k] == inner_dim * inner_stride;
      }
      inner_dim = a.dims[k];
      inner_stride = a.strides[k];
    }
    if (merge) {
      Gemm<T>(false, trans_b, batch * M, N, K, T(1), pa, row_stride, pb, ldb, T(0), out, N);
      return;
    }
  }

  // Batches split across threads when each product is too small to split by itself (a product
  // inside a chunk runs serially); otherwise each GEMM splits its own rows or columns.
  const double flops =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  parallel::For(batch, parallel::MinChunk(flops, parallel::kMinChunkFlops),
                [&](int64_t begin, int64_t end) {
                  // The odometer starts at batch `begin` (a and b share their broadcast batch
                  // dims).
                  Shape index(batch_rank, 0);
                  int64_t oa = 0, ob = 0;
                  for (int64_t k = batch_rank - 1, rest = begin; k >= 0; --k) {
                    index[k] = rest % a.dims[k];
                    rest /= a.dims[k];
                    oa += index[k] * a.strides[k];
                    ob += index[k] * b.strides[k];
                  }
                  for (int64_t i = begin; i < end; ++i) {
                    Gemm<T>(trans_a, trans_b, M, N, K, T(1), pa + oa, lda, pb + ob, ldb, T(0),
                            out + i * M * N, N);
                    for (int64_t k = batch_rank - 1; k >= 0; --k) {
                      if (++index[k] < a.dims[k]) {
                        oa += a.strides[k];
                        ob += b.strides[k];
                        break;
                      }
                      oa -= a.strides[k] * (a.dims[k] - 1);
                      ob -= b.strides[k] * (b.dims[k] - 1);
                      index[k] = 0;
                    }
                  }
                });
}

template void BatchedMatMul<float>(const TensorView&, const TensorView&, float*);
template void BatchedMatMul<double>(const TensorView&, const TensorView&, double*);
template void BatchedMatMul<int8_t>(const TensorView&, const TensorView&, int8_t*);
template void BatchedMatMul<int16_t>(const TensorView&, const TensorView&, int16_t*);
template void BatchedMatMul<int32_t>(const TensorView&, const TensorView&, int32_t*);
template void BatchedMatMul<int64_t>(const TensorView&, const TensorView&, int64_t*);
template void BatchedMatMul<uint8_t>(const TensorView&, const TensorView&, uint8_t*);
template void BatchedMatMul<uint16_t>(const TensorView&, const TensorView&, uint16_t*);
template void BatchedMatMul<uint32_t>(const TensorView&, const TensorView&, uint32_t*);
template void BatchedMatMul<uint64_t>(const TensorView&, const TensorView&, uint64_t*);

}  // namespace anvil::compute_ops
