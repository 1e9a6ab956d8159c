// Helpers shared by the compute kernel family (ops/compute*.cc): dense access to strided inputs
// in a compute type (float for float16/bfloat16), GEMM over any element type, batched matrix
// products with broadcast batch dims, axis handling, and the factories the kComputeKernels
// table (compute.cc) lists. Private to kernels/ops.
#ifndef ANVIL_KERNELS_OPS_COMPUTE_UTIL_H_
#define ANVIL_KERNELS_OPS_COMPUTE_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/scratch.h"
#include "base/status_macros.h"
#include "graph/ir.h"
#include "graph/node_errors.h"
#include "kernels/dispatch.h"
#include "kernels/op_kernel.h"
#include "kernels/ops/op_util.h"
#include "kernels/simd/float16_convert.h"
#include "kernels/simd/gemm.h"
#include "kernels/tensor.h"
#include "kernels/tensor_view.h"

namespace anvil::compute_ops {

using KernelOr = absl::StatusOr<std::unique_ptr<OpKernel>>;

inline int64_t Product(absl::Span<const int64_t> dims, size_t begin = 0,
                       size_t end = static_cast<size_t>(-1)) {
  int64_t n = 1;
  for (size_t k = begin; k < dims.size() && k < end; ++k) n *= dims[k];
  return n;
}

// dst[c * rows + r] = src[r * cols + c]: the row-major rows x cols matrix at src, transposed.
template <typename T>
void Transpose(const T* src, int64_t rows, int64_t cols, T* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
  }
}

// Calls fn(offset, count, stride) for each innermost row of `v` (offsets and strides in elements
// from v.data), rows in row-major order. A rank-0 view is one row of one element.
template <typename Fn>
void ForEachRow(const TensorView& v, Fn&& fn) {
  const int64_t rank = v.rank();
  if (v.NumElements() == 0) return;
  if (rank == 0) {
    fn(int64_t{0}, int64_t{1}, int64_t{1});
    return;
  }
  const int64_t inner = v.dims[rank - 1];
  const int64_t inner_stride = v.strides[rank - 1];
  Shape index(rank - 1, 0);
  int64_t offset = 0;
  for (;;) {
    fn(offset, inner, inner_stride);
    int64_t k = rank - 2;
    for (; k >= 0; --k) {
      if (++index[k] < v.dims[k]) {
        offset += v.strides[k];
        break;
      }
      offset -= v.strides[k] * (v.dims[k] - 1);
      index[k] = 0;
    }
    if (k < 0) return;
  }
}

// Dense float16 <-> float32 rows with F16C (simd/float16_convert.h), split across the threads of
// the caller's parallel scope: the widening and rounding passes of float16 ops computed in float32.
void WidenHalves(const uint16_t* h, float* out, int64_t n);
void NarrowToHalves(const float* x, uint16_t* out, int64_t n);

// Copies the (possibly strided) view `v` whose storage type is S into dense `dst` of type C.
template <typename S, typename C>
void CopyConvert(const TensorView& v, C* dst) {
  const S* src = v.As<S>();
  if constexpr (std::is_same_v<S, Half> && std::is_same_v<C, float>) {
    if (v.Contiguous()) {  // one call, not one per row
      WidenHalves(reinterpret_cast<const uint16_t*>(src), dst, v.NumElements());
      return;
    }
  }
  ForEachRow(v, [&](int64_t offset, int64_t n, int64_t stride) {
    const S* p = src + offset;
    if constexpr (std::is_same_v<S, C>) {
      if (stride == 1) {
        std::memcpy(dst, p, n * sizeof(C));
        dst += n;
        return;
      }
    }
    if constexpr (std::is_same_v<S, Half> && std::is_same_v<C, float>) {
      if (stride == 1) {
        simd::HalfToFloat(reinterpret_cast<const uint16_t*>(p), dst, static_cast<size_t>(n));
        dst += n;
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) *dst++ = ConvertElement<C>(p[i * stride]);
  });
}

// CopyConvert from any numeric element type (dispatching on v.type).
template <typename C>
void CopyConvertAny(const TensorView& v, C* dst) {
  (void)DispatchNumeric(v.type, "", [&](auto tag) -> absl::Status {
    CopyConvert<decltype(tag), C>(v, dst);
    return absl::OkStatus();
  });
}

// The ElementType stored as C++ type T (kUndefined for others).
template <typename T>
constexpr ElementType ElementTypeOf() {
  if constexpr (std::is_same_v<T, float>) return ElementType::kFloat;
  if constexpr (std::is_same_v<T, double>) return ElementType::kDouble;
  if constexpr (std::is_same_v<T, Half>) return ElementType::kFloat16;
  if constexpr (std::is_same_v<T, BFloat16>) return ElementType::kBfloat16;
  if constexpr (std::is_same_v<T, int8_t>) return ElementType::kInt8;
  if constexpr (std::is_same_v<T, int16_t>) return ElementType::kInt16;
  if constexpr (std::is_same_v<T, int32_t>) return ElementType::kInt32;
  if constexpr (std::is_same_v<T, int64_t>) return ElementType::kInt64;
  if constexpr (std::is_same_v<T, uint8_t>) return ElementType::kUint8;
  if constexpr (std::is_same_v<T, uint16_t>) return ElementType::kUint16;
  if constexpr (std::is_same_v<T, uint32_t>) return ElementType::kUint32;
  if constexpr (std::is_same_v<T, uint64_t>) return ElementType::kUint64;
  if constexpr (std::is_same_v<T, bool>) return ElementType::kBool;
  return ElementType::kUndefined;
}

// An input as dense row-major data of compute type C: the input's own memory when it already is
// that, else a converted or compacted copy in a scratch lease (base/scratch.h) this object holds.
template <typename C>
class DenseInput {
 public:
  DenseInput() = default;
  explicit DenseInput(const TensorView& v) { Reset(v); }
  DenseInput(const DenseInput&) = delete;
  DenseInput& operator=(const DenseInput&) = delete;

  void Reset(const TensorView& v) {
    dims_ = v.dims;
    if (v.type == ElementTypeOf<C>() && v.Contiguous()) {
      data_ = v.As<C>();
      return;
    }
    // Leased: a run's steady state reuses these buffers (no fresh pages per call).
    if (!lease_.has_value()) lease_.emplace();
    C* storage = lease_->Get<C>(0, static_cast<size_t>(std::max<int64_t>(1, v.NumElements())));
    CopyConvertAny<C>(v, storage);
    data_ = storage;
  }
  const C* data() const { return data_; }
  const Shape& dims() const { return dims_; }
  int64_t size() const { return Product(dims_); }

 private:
  const C* data_ = nullptr;
  Shape dims_;
  std::optional<ScratchLease> lease_;
};

// A dense output written as compute type C: the output's memory when it stores C, else a scratch
// buffer converted into the output by Commit().
template <typename C>
class DenseOutput {
 public:
  explicit DenseOutput(const TensorView& out) : out_(out) {
    if (out.type == ElementTypeOf<C>()) {
      data_ = out.As<C>();
    } else {
      size_ = out.NumElements();
      lease_.emplace();
      storage_ = lease_->Get<C>(0, static_cast<size_t>(std::max<int64_t>(1, size_)));
      data_ = storage_;
    }
  }
  DenseOutput(const DenseOutput&) = delete;
  DenseOutput& operator=(const DenseOutput&) = delete;
  C* data() const { return data_; }
  void Commit() {
    if (storage_ == nullptr) return;
    // (Outside the dispatch's lambda: a branch there is checked for every C by clang.)
    if constexpr (std::is_same_v<C, float>) {
      if (out_.type == ElementType::kFloat16) {
        NarrowToHalves(storage_, out_.As<uint16_t>(), size_);
        return;
      }
    }
    (void)DispatchNumeric(out_.type, "", [&](auto tag) -> absl::Status {
      using S = decltype(tag);
      S* dst = out_.As<S>();
      for (int64_t i = 0; i < size_; ++i) dst[i] = ConvertElement<S>(storage_[i]);
      return absl::OkStatus();
    });
  }

 private:
  TensorView out_;
  C* data_ = nullptr;
  int64_t size_ = 0;
  std::optional<ScratchLease> lease_;
  C* storage_ = nullptr;
};

// A byte tensor's bytes (8-bit data, packed 4-bit weights), dense: copied only when strided.
class DenseBytes {
 public:
  explicit DenseBytes(const TensorView& v) {
    if (v.Contiguous()) {
      data_ = static_cast<const uint8_t*>(v.data);
    } else {
      copy_ = Tensor::CopyOf(v);
      data_ = static_cast<const uint8_t*>(copy_.view().data);
    }
  }
  const uint8_t* data() const { return data_; }

 private:
  Tensor copy_;
  const uint8_t* data_ = nullptr;
};

// InvalidArgument unless output `i` holds `n` elements: guards kernels whose own reading of the
// attributes decides how much they write against disagreeing with the ShapeHelper.
absl::Status CheckOutputSize(KernelContext& ctx, int i, int64_t n);

// Input i of a normalization (its scale or bias) seen with the normalized dims `norm_dims` (X's
// dims from the axis on): equal to them or broadcasting to them one way (numpy rules; leading 1s
// past their rank dropped), as LayerNormalization and RMSNormalization allow. A shape that does
// not broadcast is an error naming the node; one that broadcasts to X but not to the normalized
// dims (a scale per row) is Unimplemented.
absl::StatusOr<TensorView> NormalizationParameter(KernelContext& ctx, int i,
                                                  absl::Span<const int64_t> norm_dims);

// Reads any numeric tensor element `i` (row-major) as double (scales, scalar parameters); 0 when
// `i` is outside the tensor (callers check counts first and report them; this only keeps a
// missed check from dividing by an empty dim).
double ReadDouble(const TensorView& v, int64_t i);
// Reads any numeric tensor as float values.
std::vector<float> ReadFloats(const TensorView& v);

// The values of input `input` of `node` when it is a constant a kernel may keep its own copy of:
// an initializer that is not also a graph input, so that no run replaces it; null otherwise.
const Elements* ConstantInput(const Node& node, int input);

// An 8-bit constant weight (input `input` of `node`, ConstantInput) and the zero points of input
// `zp_index` (absent, or a constant of the weight's type with 1 or `per_index` values; a 1-D
// tensor when `per_index_rank_1`), as the int8 kernels pack them once at creation: nullopt
// when either is not such a constant.
struct ConstantQuantizedWeight {
  ElementType type = ElementType::kUndefined;  // kUint8 or kInt8
  Shape dims;
  std::vector<uint8_t> bytes;
  std::vector<int32_t> zeros;  // empty: none; else 1 or per_index values
};
std::optional<ConstantQuantizedWeight> ReadConstantQuantizedWeight(const Node& node, int input,
                                                                   int zp_index, int64_t per_index,
                                                                   bool per_index_rank_1);

// Input `input` of `node` as float32 values, when it is a constant a kernel may keep its own
// copy of (an initializer that is not also a graph input, so no run replaces it) of a float type
// (float32, float16 or bfloat16, widened exactly); nullopt otherwise, and for float32 unless
// `float32_too`. Kernels prepare their weights from it once at creation (packed, transformed, or
// just widened from float16) instead of converting them on every run. A dense float32 initializer
// is read in place (no copy: the caller's packed copy is the only other), so `data` lives as long
// as the initializer's bytes or the `widened` values it points into (moves keep it; no copies).
struct ConstantFloats {
  ConstantFloats() = default;
  ConstantFloats(ConstantFloats&&) = default;
  ConstantFloats& operator=(ConstantFloats&&) = default;
  ConstantFloats(const ConstantFloats&) = delete;
  ConstantFloats& operator=(const ConstantFloats&) = delete;

  ElementType type = ElementType::kUndefined;  // the initializer's own type
  Shape dims;
  const float* data = nullptr;  // the values: the initializer's bytes or `widened`
  std::vector<float> widened;   // converted (or gathered) values, when needed
};
std::optional<ConstantFloats> ReadConstantFloats(const Node& node, int input,
                                                 bool float32_too = true);

// The type integer arithmetic on T wraps around in without UB: its unsigned counterpart.
template <typename T, bool = std::is_integral_v<T> && !std::is_same_v<T, bool>>
struct WrapAround {
  using type = T;
};
template <typename T>
struct WrapAround<T, true> {
  using type = std::make_unsigned_t<T>;
};

// C = alpha * op(A) * op(B) + beta * C (BLAS row-major conventions of simd/gemm.h) for any
// arithmetic T: SIMD for float and double, a cache-friendly scalar loop otherwise (integers
// wrap around as two's complement).
template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    simd::Sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    simd::Dgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    // Integer arithmetic in the unsigned type of the same width: wrap-around, no UB.
    using U = typename WrapAround<T>::type;
    std::vector<U> row(N);
    for (int64_t i = 0; i < M; ++i) {
      std::fill(row.begin(), row.end(), U(0));
      for (int64_t k = 0; k < K; ++k) {
        const U a = static_cast<U>(trans_a ? A[k * lda + i] : A[i * lda + k]);
        if (a == U(0)) continue;
        if (!trans_b) {
          const T* b = B + k * ldb;
          for (int64_t j = 0; j < N; ++j) row[j] += a * static_cast<U>(b[j]);
        } else {
          for (int64_t j = 0; j < N; ++j) row[j] += a * static_cast<U>(B[j * ldb + k]);
        }
      }
      T* c = C + i * ldc;
      for (int64_t j = 0; j < N; ++j) {
        const U v = static_cast<U>(alpha) * row[j];
        c[j] = beta == T(0) ? static_cast<T>(v)
                            : static_cast<T>(v + static_cast<U>(beta) * static_cast<U>(c[j]));
      }
    }
  }
}

// out[batch..., M, N] (dense) = a[batch..., M, K] x b[batch..., K, N], where `a` and `b` are
// views of storage type T already broadcast to the output's batch dims (stride 0 where they
// repeat), each with unit stride in one of its two matrix dims (see MatrixOperand).
// Instantiated for float, double and the integer types.
template <typename T>
void BatchedMatMul(const TensorView& a, const TensorView& b, T* out);

// Returns `v` if one of its last two dims has unit stride (or size 1), else a dense copy held
// in `holder`: what BatchedMatMul needs.
TensorView MatrixOperand(const TensorView& v, Tensor* holder);

// ---- Sliding windows (Conv*, ConvTranspose, pools) ----

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

// Window attributes as written on the node (empty vectors: the defaults, known once the number
// of spatial dims is).
struct WindowAttrs {
  std::vector<int64_t> kernel_shape;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // begins, then ends
  AutoPad auto_pad = AutoPad::kNotSet;
};
absl::StatusOr<WindowAttrs> ReadWindowAttrs(const Node& node);

// A window over concrete spatial dims: output position o reads input positions
// o * stride - pad_begin + k * dilation for k < kernel.
struct WindowGeometry {
  int64_t spatial = 0;
  Shape in, out, kernel, strides, dilations, pad_begin, pad_end;
  int64_t in_size = 1, out_size = 1, kernel_size = 1;  // products
};

// Resolves `attrs` for input spatial dims `in`, output spatial dims `out` (from the ShapeHelper)
// and kernel dims `kernel`. SAME_* pads are derived from the output size as the ShapeHelper
// derived the output size from them: total = (out - 1) * stride + (kernel - 1) * dilation + 1 -
// in, SAME_UPPER putting the odd one at the end. InvalidArgument for attribute lists of the
// wrong length.
absl::StatusOr<WindowGeometry> ResolveWindow(const Node& node, const WindowAttrs& attrs,
                                             absl::Span<const int64_t> in,
                                             absl::Span<const int64_t> out,
                                             absl::Span<const int64_t> kernel);

// The Softmax kernel's float row: y[i] = exp(x[i] - max) / sum over the n contiguous values (y
// may be x). Shared with MultiHeadAttention, which normalizes its score rows with it.
void SoftmaxRowFloat(const float* x, float* y, int64_t n);

// Attention's soft cap of n scores in place, before masks and softmax: x = cap * tanh(x / cap)
// (ONNX Attention-23 and ONNX Runtime's GroupQueryAttention; cap > 0, or nothing to do).
void SoftcapScores(float* x, int64_t n, float cap);

// Rotates the first rotary_dim values of one head (of `head` values) by the angles whose cosines
// and sines are cos[0, rotary_dim / 2) and sin[...]: pairs (x[i], x[i + rotary_dim / 2]), or
// (x[2i], x[2i + 1]) when interleaved; copies the rest (y may be x). RotaryEmbedding's and
// GroupQueryAttention's rotation (compute_rotary.cc).
void RotateHead(const float* x, const float* cos, const float* sin, int64_t rotary_dim,
                int64_t head, bool interleaved, float* y);

// ---- Factories listed in compute.cc ----
KernelOr CreateArgMinMax(const Node& node, int64_t opset);
KernelOr CreateBatchNormalization(const Node& node, int64_t opset);
KernelOr CreateConv(const Node& node, int64_t opset);
KernelOr CreateFusedConv(const Node& node, int64_t opset);
KernelOr CreateFusedMatMul(const Node& node, int64_t opset);  // com.microsoft
KernelOr CreateConvInteger(const Node& node, int64_t opset);
KernelOr CreateConvTranspose(const Node& node, int64_t opset);
KernelOr CreateCumSum(const Node& node, int64_t opset);
KernelOr CreateDet(const Node& node, int64_t opset);
KernelOr CreateEinsum(const Node& node, int64_t opset);
KernelOr CreateGemm(const Node& node, int64_t opset);
KernelOr CreateGlobalPool(const Node& node, int64_t opset);
KernelOr CreateGroupNormalization(const Node& node, int64_t opset);
KernelOr CreateOnnxAttention(const Node& node, int64_t opset);
KernelOr CreateInstanceNormalization(const Node& node, int64_t opset);
KernelOr CreateLayerNormalization(const Node& node, int64_t opset);
KernelOr CreateLrn(const Node& node, int64_t opset);
KernelOr CreateMatMul(const Node& node, int64_t opset);
KernelOr CreateMatMulInteger(const Node& node, int64_t opset);
KernelOr CreateMaxUnpool(const Node& node, int64_t opset);
KernelOr CreateMeanVarianceNormalization(const Node& node, int64_t opset);
KernelOr CreateMatMulNBits(const Node& node, int64_t opset);
KernelOr CreateGroupQueryAttention(const Node& node, int64_t opset);
KernelOr CreateRotaryEmbedding(const Node& node, int64_t opset);
KernelOr CreateSimplifiedLayerNormalization(const Node& node, int64_t opset);
KernelOr CreateSkipLayerNormalization(const Node& node, int64_t opset);
KernelOr CreateSkipSimplifiedLayerNormalization(const Node& node, int64_t opset);
KernelOr CreateMultiHeadAttention(const Node& node, int64_t opset);
KernelOr CreatePool(const Node& node, int64_t opset);
KernelOr CreateQLinearConv(const Node& node, int64_t opset);
KernelOr CreateQLinearMatMul(const Node& node, int64_t opset);
KernelOr CreateReduce(const Node& node, int64_t opset);
// compute_quantized.cc: ONNX Runtime's com.microsoft quantized ops.
KernelOr CreateDynamicQuantizeMatMul(const Node& node, int64_t opset);
KernelOr CreateMatMulIntegerToFloat(const Node& node, int64_t opset);
KernelOr CreateQGemm(const Node& node, int64_t opset);
KernelOr CreateQLinearAdd(const Node& node, int64_t opset);
KernelOr CreateQLinearAveragePool(const Node& node, int64_t opset);
KernelOr CreateQLinearConcat(const Node& node, int64_t opset);
KernelOr CreateQLinearGlobalAveragePool(const Node& node, int64_t opset);
KernelOr CreateQLinearLeakyRelu(const Node& node, int64_t opset);
KernelOr CreateQLinearMul(const Node& node, int64_t opset);
KernelOr CreateQLinearSigmoid(const Node& node, int64_t opset);
KernelOr CreateQLinearSoftmax(const Node& node, int64_t opset);
KernelOr CreateQLinearWhere(const Node& node, int64_t opset);
KernelOr CreateSoftmax(const Node& node, int64_t opset);

}  // namespace anvil::compute_ops

#endif  // ANVIL_KERNELS_OPS_COMPUTE_UTIL_H_
