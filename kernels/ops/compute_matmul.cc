// Matrix products: MatMul, Gemm, MatMulInteger, QLinearMatMul. All reduce to simd/gemm.h (float,
// double; float16/bfloat16 through float), the int8 GEMM of simd/qgemm.h (a 2-D quantized B), or
// the integer GEMM of compute_util.h, reading strided operands in place whenever one of their
// matrix dims has unit stride.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/passes/match.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/qgemm.h"
#include "kernels/simd/quantize.h"

namespace anvil::compute_ops {
namespace {

// numpy.matmul on views: a 1-D `a` is a row [1, K], a 1-D `b` a column [K, 1]; batch dims
// broadcast. `out_dims` are the output's dims (which drop the promoted dims); `out` is dense.
template <typename T>
void MatMulViews(TensorView a, TensorView b, const Shape& out_dims, T* out) {
  Tensor a_copy, b_copy;
  if (a.rank() == 1) {
    a.dims.insert(a.dims.begin(), 1);
    a.strides.insert(a.strides.begin(), 0);
  }
  if (b.rank() == 1) {
    b.dims.push_back(1);
    b.strides.push_back(1);
  }
  const int64_t batch_rank = std::max(a.rank(), b.rank()) - 2;
  Shape a_dims(out_dims.begin(), out_dims.begin() + batch_rank);
  Shape b_dims = a_dims;
  const int64_t M = a.dims[a.rank() - 2], K = a.dims[a.rank() - 1], N = b.dims[b.rank() - 1];
  a_dims.push_back(M);
  a_dims.push_back(K);
  b_dims.push_back(K);
  b_dims.push_back(N);
  a = MatrixOperand(a, &a_copy).BroadcastTo(a_dims);
  b = MatrixOperand(b, &b_copy).BroadcastTo(b_dims);
  BatchedMatMul<T>(a, b, out);
}

// y[i] *= alpha (FusedMatMul's alpha, on products the GEMM could not scale).
template <typename T>
void ScaleInPlace(T alpha, T* y, int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    simd::BinaryVectorScalar(simd::BinaryOp::kMul, y, alpha, y, static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] *= alpha;
  }
}

// Y = op(A) op(B) on views that are already op(A) and op(B), times alpha.
absl::Status MatMulCompute(const TensorView& a, const TensorView& b, float alpha, TensorView& y) {
  return DispatchArithmetic(a.type, "MatMul", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (kIsHalfLike<T>) {
      DenseInput<float> fa(a), fb(b);
      DenseOutput<float> fy(y);
      MatMulViews<float>(
          TensorView::Dense(ElementType::kFloat, const_cast<float*>(fa.data()), a.dims),
          TensorView::Dense(ElementType::kFloat, const_cast<float*>(fb.data()), b.dims), y.dims,
          fy.data());
      if (alpha != 1.0f) ScaleInPlace(alpha, fy.data(), y.NumElements());
      fy.Commit();
    } else {
      MatMulViews<T>(a, b, y.dims, y.As<T>());
      if (alpha != 1.0f) ScaleInPlace(static_cast<T>(alpha), y.As<T>(), y.NumElements());
    }
    return absl::OkStatus();
  });
}

// A float weight input packed once (simd::PackB) when it is an initializer of the graph that
// a run cannot override (not also a graph input) and 2-D; null otherwise. op(B) = B, or B^T
// with trans_b. A float16 or bfloat16 weight is packed widened: its products run in float32, as
// every product of those types does (the kernels widen them), without widening it per run.
// A float32 weight that another node also reads (a tied embedding: Gather and the LM head's
// MatMul) is not packed: the GEMM reads it in place, strided or not, so that it stays the one
// resident copy (a packed copy could not be shared, and the plan keeps the initializer for the
// other reader).
std::unique_ptr<const simd::PackedB> PackConstantWeight(const Node& node, int input, bool trans_b) {
  const Elements* constant = ConstantInput(node, input);
  if (constant != nullptr && constant->element_type() == ElementType::kFloat &&
      node.input(input)->uses().size() != 1) {
    return nullptr;
  }
  const std::optional<ConstantFloats> w = ReadConstantFloats(node, input);
  if (!w.has_value() || w->dims.size() != 2) return nullptr;
  const int64_t rows = w->dims[0], cols = w->dims[1];
  if (rows <= 0 || cols <= 0) return nullptr;
  const float* data = w->data;
  // PackB takes (K, N) of op(B): B stored N x K with trans_b, else K x N.
  return trans_b ? simd::PackB(true, cols, rows, data, cols)
                 : simd::PackB(false, rows, cols, data, cols);
}

// Bytes of a packed weight (0 for none).
int64_t PackedBytes(const simd::PackedB* packed) {
  return packed == nullptr ? 0 : static_cast<int64_t>(packed->data.size() * sizeof(float));
}

// Reports a product on the kernel's packed weight to the caller that asked (KernelStats).
void CountPackedProduct(KernelContext& ctx) {
  if (ctx.stats() != nullptr) ++ctx.stats()->packed_weight_products;
}

// `v` with its last two dims (and strides) swapped: a transposed operand, read in place.
TensorView TransposedLastTwo(TensorView v) {
  const size_t r = v.dims.size();
  std::swap(v.dims[r - 2], v.dims[r - 1]);
  std::swap(v.strides[r - 2], v.strides[r - 1]);
  return v;
}

// MatMul, and com.microsoft FusedMatMul: Y = alpha * op(A) op(B), op transposing the last two
// dims (transA, transB) as a strided view, never a copy. A constant 2-D float weight B is packed
// once at kernel creation (PackConstantWeight), so each run skips packing it: then A [..., M, K]
// is one product of (batch * M) rows. Anything else takes the general path.
class MatMulKernel final : public OpKernel {
 public:
  MatMulKernel(const Node& node, bool trans_a, bool trans_b, float alpha)
      : trans_a_(trans_a),
        trans_b_(trans_b),
        alpha_(alpha),
        packed_(PackConstantWeight(node, 1, trans_b)) {}
  bool KeepsOwnCopyOf(int input) const override { return input == 1 && packed_ != nullptr; }
  int64_t OwnedBytes() const override { return PackedBytes(packed_.get()); }

  absl::Status Compute(KernelContext& ctx) override {
    TensorView a = ctx.input(0);
    TensorView b = ctx.input(1);
    TensorView& y = ctx.output(0);
    if ((trans_a_ && a.rank() < 2) || (trans_b_ && b.rank() < 2)) {
      return ctx.Error(absl::StrCat("a transposed operand needs rank >= 2: A ", a.DebugString(),
                                    ", B ", b.DebugString()));
    }
    if (trans_a_) a = TransposedLastTwo(a);
    if (trans_b_) b = TransposedLastTwo(b);
    const bool packed_b = packed_ != nullptr && b.rank() == 2 && b.dims[0] == packed_->k &&
                          b.dims[1] == packed_->n && a.rank() >= 1 && a.dims.back() == packed_->k;
    if (packed_b && a.type == ElementType::kFloat && y.type == ElementType::kFloat &&
        y.Contiguous()) {
      // A strided A is made dense: the weight's own bytes may have been released.
      Tensor a_dense;
      const float* ad = a.As<float>();
      if (!a.Contiguous()) {
        a_dense = Tensor::CopyOf(a);
        ad = a_dense.As<float>();
      }
      const int64_t rows = packed_->k > 0 ? a.NumElements() / packed_->k : 0;
      CountPackedProduct(ctx);
      simd::SgemmPackedB(false, rows, alpha_, ad, packed_->k, *packed_, 0.0f, y.As<float>(),
                         packed_->n);
      return absl::OkStatus();
    }
    if (packed_b && (a.type == ElementType::kFloat16 || a.type == ElementType::kBfloat16) &&
        y.type == a.type) {
      // A 16-bit float product on the widened, packed weight: A widened, the float32 product
      // rounded into Y (the general path's float computation without widening B per run).
      DenseInput<float> fa(a);
      DenseOutput<float> fy(y);
      const int64_t rows = packed_->k > 0 ? a.NumElements() / packed_->k : 0;
      CountPackedProduct(ctx);
      simd::SgemmPackedB(false, rows, alpha_, fa.data(), packed_->k, *packed_, 0.0f, fy.data(),
                         packed_->n);
      fy.Commit();
      return absl::OkStatus();
    }
    if (b.data == nullptr)
      return ctx.Error("B's bytes were released for a packed copy it cannot use");
    return MatMulCompute(a, b, alpha_, y);
  }

 private:
  bool trans_a_, trans_b_;
  float alpha_;
  std::unique_ptr<const simd::PackedB> packed_;
};

// Where element (i, k) of a matrix with element strides (si, sk) can be read by GEMM without a
// copy: returns false when neither stride is unit.
bool GemmLayout(int64_t rows, int64_t cols, int64_t si, int64_t sk, bool* trans, int64_t* ld) {
  if (sk == 1 || cols == 1) {
    *trans = false;
    *ld = si;
    return true;
  }
  if (si == 1 || rows == 1) {
    *trans = true;
    *ld = sk;
    return true;
  }
  return false;
}

class GemmKernel final : public OpKernel {
 public:
  GemmKernel(const Node& node, int64_t opset)
      : alpha_(node.GetFloat("alpha", 1.0f)),
        beta_(node.GetFloat("beta", 1.0f)),
        trans_a_(node.GetInt("transA", 0) != 0),
        trans_b_(node.GetInt("transB", 0) != 0),
        packed_(PackConstantWeight(node, 1, trans_b_)) {}
  bool KeepsOwnCopyOf(int input) const override { return input == 1 && packed_ != nullptr; }
  int64_t OwnedBytes() const override { return PackedBytes(packed_.get()); }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& a = ctx.input(0);
    return DispatchArithmetic(a.type, "Gemm", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      using C = ComputeType<T>;
      if constexpr (kIsHalfLike<T>) {
        // Widened to float32; a packed (constant) B is not read: its bytes may be released.
        DenseInput<float> fa(a), fb;
        if (packed_ == nullptr) fb.Reset(ctx.input(1));
        DenseOutput<float> fy(ctx.output(0));
        Run<float>(ctx,
                   TensorView::Dense(ElementType::kFloat, const_cast<float*>(fa.data()), a.dims),
                   TensorView::Dense(ElementType::kFloat, const_cast<float*>(fb.data()),
                                     ctx.input(1).dims),
                   fy.data());
        fy.Commit();
      } else {
        Run<C>(ctx, a, ctx.input(1), ctx.output(0).As<C>());
      }
      return absl::OkStatus();
    });
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx, TensorView a, TensorView b, T* y) {
    const Shape& y_dims = ctx.output(0).dims;
    const int64_t M = y_dims[0], N = y_dims[1];
    const int64_t K = trans_a_ ? a.dims[0] : a.dims[1];
    Tensor a_copy, b_copy;
    bool ta, tb;
    int64_t lda, ldb;
    // op(A)(i, k) is at i * si + k * sk.
    if (!GemmLayout(M, K, a.strides[trans_a_ ? 1 : 0], a.strides[trans_a_ ? 0 : 1], &ta, &lda)) {
      a_copy = Tensor::CopyOf(a);
      a = a_copy.view();
      GemmLayout(M, K, a.strides[trans_a_ ? 1 : 0], a.strides[trans_a_ ? 0 : 1], &ta, &lda);
    }
    if (!GemmLayout(K, N, b.strides[trans_b_ ? 1 : 0], b.strides[trans_b_ ? 0 : 1], &tb, &ldb)) {
      b_copy = Tensor::CopyOf(b);
      b = b_copy.view();
      GemmLayout(K, N, b.strides[trans_b_ ? 1 : 0], b.strides[trans_b_ ? 0 : 1], &tb, &ldb);
    }
    if constexpr (std::is_same_v<T, float>) {
      // A bias row C ([N] or [1, N], float) onto a packed weight goes in the GEMM's store
      // instead of a pass filling Y with it: the same bits (bias + product).
      if (packed_ != nullptr && packed_->k == K && packed_->n == N && ctx.HasInput(2) &&
          beta_ == 1.0f) {
        const TensorView& c = ctx.input(2);
        if (c.type == ElementType::kFloat && c.NumElements() == N && c.Contiguous() &&
            (c.rank() == 1 || (c.rank() == 2 && c.dims[0] == 1))) {
          CountPackedProduct(ctx);
          simd::SgemmPackedB(ta, M, alpha_, a.As<float>(), lda, *packed_, 0.0f, y, N,
                             c.As<float>());
          return;
        }
      }
    }
    T beta = T(0);
    if (ctx.HasInput(2) && beta_ != 0.0f) {
      // Y starts as C broadcast to [M, N]; GEMM then accumulates beta * Y onto alpha * A * B.
      const TensorView c = ctx.input(2).BroadcastTo(y_dims);
      (void)DispatchNumeric(c.type, "Gemm", [&](auto ctag) -> absl::Status {
        CopyConvert<decltype(ctag), T>(c, y);
        return absl::OkStatus();
      });
      beta = static_cast<T>(beta_);
    }
    if constexpr (std::is_same_v<T, float>) {
      if (packed_ != nullptr && packed_->k == K && packed_->n == N) {
        CountPackedProduct(ctx);
        simd::SgemmPackedB(ta, M, alpha_, a.As<float>(), lda, *packed_, beta, y, N);
        return;
      }
    }
    Gemm<T>(ta, tb, M, N, K, static_cast<T>(alpha_), a.As<T>(), lda, b.As<T>(), ldb, beta, y, N);
  }

  float alpha_, beta_;
  bool trans_a_, trans_b_;
  std::unique_ptr<const simd::PackedB> packed_;  // B when it is a constant weight
};

// ---------------------------------------------------------------------------------------------
// Quantized products
// ---------------------------------------------------------------------------------------------

// `x` minus its zero point as dense int32. The zero point is a scalar, or per row of a matrix
// operand (`per_row`: [M] or [..., M, 1]) or per column ([N] or [..., 1, N]).
absl::StatusOr<std::vector<int32_t>> SubtractZeroPoint(KernelContext& ctx, const char* name,
                                                       const TensorView& x,
                                                       const TensorView* zero_point, bool per_row) {
  DenseInput<int32_t> values(x);
  std::vector<int32_t> result(values.data(), values.data() + values.size());
  if (zero_point == nullptr || zero_point->NumElements() == 0) return result;
  if (zero_point->NumElements() == 1) {
    const int32_t zp = static_cast<int32_t>(ReadDouble(*zero_point, 0));
    for (int32_t& v : result) v -= zp;
    return result;
  }
  TensorView zp = *zero_point;
  if (zp.rank() == 1 && per_row) {  // [M] -> [M, 1]
    zp.dims.push_back(1);
    zp.strides.push_back(0);
  }
  // A zero point whose dims do not fit was read past its end (the model fuzzer fed B's [3, 2]
  // as a_zero_point).
  if (!zp.BroadcastsTo(x.dims)) {
    return ctx.Error(
        absl::StrCat(name, " ", zero_point->DebugString(), " does not fit ", x.DebugString(),
                     per_row ? " (a scalar or one per row)" : " (a scalar or one per column)"));
  }
  std::vector<int32_t> zps(result.size());
  CopyConvertAny(zp.BroadcastTo(x.dims), zps.data());
  for (size_t i = 0; i < result.size(); ++i) result[i] -= zps[i];
  return result;
}

// int32 [.., M, N] = (A - a_zero_point) x (B - b_zero_point).
absl::Status IntegerMatMul(KernelContext& ctx, const TensorView& a, const TensorView* a_zp,
                           const TensorView& b, const TensorView* b_zp, const Shape& out_dims,
                           int32_t* out) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<int32_t> a32,
                         SubtractZeroPoint(ctx, "a_zero_point", a, a_zp, /*per_row=*/true));
  ANVIL_ASSIGN_OR_RETURN(std::vector<int32_t> b32,
                         SubtractZeroPoint(ctx, "b_zero_point", b, b_zp, /*per_row=*/false));
  MatMulViews<int32_t>(TensorView::Dense(ElementType::kInt32, a32.data(), a.dims),
                       TensorView::Dense(ElementType::kInt32, b32.data(), b.dims), out_dims, out);
  return absl::OkStatus();
}

bool IsQuantizedType(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

absl::Status MatMulIntegerCompute(KernelContext& ctx) {
  const TensorView& a = ctx.input(0);
  const TensorView& b = ctx.input(1);
  if (!IsQuantizedType(a.type)) return UnsupportedType("MatMulInteger", a.type);
  if (!IsQuantizedType(b.type)) return UnsupportedType("MatMulInteger", b.type);
  TensorView& y = ctx.output(0);
  ANVIL_RETURN_IF_ERROR(IntegerMatMul(ctx, a, ctx.HasInput(2) ? &ctx.input(2) : nullptr, b,
                                      ctx.HasInput(3) ? &ctx.input(3) : nullptr, y.dims,
                                      y.As<int32_t>()));
  return absl::OkStatus();
}

// y = saturate(round_half_even(acc * a_scale * b_scale / y_scale) + y_zero_point), with the
// multiplier in float as ONNX Runtime computes it. Scales and zero points of A are scalars or per
// row, those of B and Y scalars or per column.
absl::Status QLinearMatMulCompute(KernelContext& ctx) {
  const TensorView& a = ctx.input(0);
  const TensorView& b = ctx.input(3);
  TensorView& y = ctx.output(0);
  if (!IsQuantizedType(a.type)) return UnsupportedType("QLinearMatMul", a.type);
  if (!IsQuantizedType(b.type)) return UnsupportedType("QLinearMatMul", b.type);
  if (!IsQuantizedType(y.type)) return UnsupportedType("QLinearMatMul", y.type);
  const int64_t n_out = y.NumElements();
  std::vector<int32_t> acc(n_out);
  ANVIL_RETURN_IF_ERROR(IntegerMatMul(ctx, a, &ctx.input(2), b, &ctx.input(5), y.dims, acc.data()));
  if (n_out == 0) return absl::OkStatus();

  const int64_t M = a.rank() >= 2 ? a.dims[a.rank() - 2] : 1;
  const int64_t N = b.rank() >= 2 ? b.dims[b.rank() - 1] : 1;
  std::vector<float> a_scale = ReadFloats(ctx.input(1)), b_scale = ReadFloats(ctx.input(4)),
                     y_scale = ReadFloats(ctx.input(6));
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> y_zp, ReadInt64s(ctx, 7));
  for (const auto* v : {&a_scale, &b_scale, &y_scale}) {
    if (v->empty()) return ctx.Error("a scale input is empty");
  }
  if (y_zp.empty()) return ctx.Error("y_zero_point is empty");
  const int64_t lo = y.type == ElementType::kUint8 ? 0 : -128;
  const int64_t hi = y.type == ElementType::kUint8 ? 255 : 127;
  auto pick = [](const auto& v, int64_t i) { return v.size() == 1 ? v[0] : v[i % v.size()]; };
  for (int64_t e = 0; e < n_out; ++e) {
    const int64_t j = e % N, i = (e / N) % M;
    const float multiplier = pick(a_scale, i) * pick(b_scale, j) / pick(y_scale, j);
    const float scaled = std::nearbyint(static_cast<float>(acc[e]) * multiplier);
    const int64_t q = std::clamp<int64_t>(static_cast<int64_t>(scaled) + pick(y_zp, j), lo, hi);
    if (y.type == ElementType::kUint8) {
      y.As<uint8_t>()[e] = static_cast<uint8_t>(q);
    } else {
      y.As<int8_t>()[e] = static_cast<int8_t>(q);
    }
  }
  return absl::OkStatus();
}

// A 2-D 8-bit weight B [K, N] less its zero point (absent, one value, or [N] per column), packed
// for simd::QGemm once when the kernel is made, when both are constants.
std::unique_ptr<const simd::QColumns> PackConstantQuantizedWeight(const Node& node, int b_index,
                                                                  int zp_index) {
  const Elements* constant = ConstantInput(node, b_index);
  if (constant == nullptr || constant->dims().size() != 2) return nullptr;
  const int64_t K = constant->dims()[0], N = constant->dims()[1];
  std::optional<ConstantQuantizedWeight> b =
      ReadConstantQuantizedWeight(node, b_index, zp_index, N, true);
  if (!b.has_value()) return nullptr;
  return std::make_unique<const simd::QColumns>(
      simd::PackQColumns(b->bytes.data(), b->type == ElementType::kInt8, N, K, N,
                         b->zeros.empty() ? nullptr : b->zeros.data(), b->zeros.size() > 1));
}

// MatMulInteger and QLinearMatMul by the int8 GEMM (simd/qgemm.h) when B is 2-D with a zero
// point of one value or one per column, A's zero point (and for QLinearMatMul A's scale and Y's
// scale and zero point) one value and B's scale one or one per column; else the general
// int32 path above, which also takes a per-row A and batched B.
class QuantizedMatMulKernel final : public OpKernel {
 public:
  QuantizedMatMulKernel(const Node& node, bool requantize)
      : requantize_(requantize),
        b_index_(requantize ? 3 : 1),
        b_zp_index_(requantize ? 5 : 3),
        packed_(PackConstantQuantizedWeight(node, b_index_, b_zp_index_)),
        always_packed_(packed_ != nullptr && ParametersFitThePackedPath(node)) {}
  // B's bytes may go only when every run takes the packed path: a run whose A zero point is per
  // row (or, for QLinearMatMul, whose scales are not all one value) takes the general path,
  // which reads B.
  bool KeepsOwnCopyOf(int input) const override { return input == b_index_ && always_packed_; }
  int64_t OwnedBytes() const override {
    return packed_ == nullptr ? 0 : static_cast<int64_t>(packed_->panels.size() * sizeof(int16_t));
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& a = ctx.input(0);
    const TensorView& b = ctx.input(b_index_);
    TensorView& y = ctx.output(0);
    const char* op = requantize_ ? "QLinearMatMul" : "MatMulInteger";
    if (!IsQuantizedType(a.type)) return UnsupportedType(op, a.type);
    if (!IsQuantizedType(b.type)) return UnsupportedType(op, b.type);
    if (requantize_ && !IsQuantizedType(y.type)) return UnsupportedType(op, y.type);
    auto one = [&](int i) { return !ctx.HasInput(i) || ctx.input(i).NumElements() == 1; };
    auto one_or_columns = [&](int i, int64_t n) {
      return one(i) || (ctx.input(i).rank() == 1 && ctx.input(i).dims[0] == n);
    };
    const bool fits = b.rank() == 2 && a.rank() >= 1 && a.dims.back() == b.dims[0] &&
                      y.Contiguous() && one(2) && one_or_columns(b_zp_index_, b.dims[1]) &&
                      (!requantize_ || (one(1) && one_or_columns(4, b.dims[1]) && one(6) &&
                                        one(7) && ctx.HasInput(6) && ctx.HasInput(7)));
    if (!fits) {
      if (b.data == nullptr) {
        return ctx.Error("B's bytes were released for a packed copy it cannot use");
      }
      return requantize_ ? QLinearMatMulCompute(ctx) : MatMulIntegerCompute(ctx);
    }
    const int64_t K = b.dims[0], N = b.dims[1];
    const int64_t M = K > 0 ? a.NumElements() / K : 0;
    simd::QColumns per_run;
    const simd::QColumns* cols = packed_.get();
    if (cols == nullptr) {
      std::vector<int32_t> zeros;
      if (ctx.HasInput(b_zp_index_)) {
        ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> z, ReadInt64s(ctx, b_zp_index_));
        zeros.assign(z.begin(), z.end());
      }
      Tensor dense_b;
      const void* b_bytes = b.data;
      if (!b.Contiguous()) {
        dense_b = Tensor::CopyOf(b);
        b_bytes = dense_b.view().data;
      }
      per_run = simd::PackQColumns(b_bytes, b.type == ElementType::kInt8, N, K, N,
                                   zeros.empty() ? nullptr : zeros.data(), zeros.size() > 1);
      cols = &per_run;
    }
    Tensor dense_a;
    const void* a_bytes = a.data;
    if (!a.Contiguous()) {
      dense_a = Tensor::CopyOf(a);
      a_bytes = dense_a.view().data;
    }
    const int32_t a_zero = ctx.HasInput(2) ? static_cast<int32_t>(ReadDouble(ctx.input(2), 0)) : 0;
    const simd::QRows rows =
        simd::PackQRows(a_bytes, a.type == ElementType::kInt8, K, M, K, &a_zero, false);
    if (!requantize_) {
      CountPackedProduct(ctx);
      simd::QGemm(rows, *cols, y.As<int32_t>(), N);
      return absl::OkStatus();
    }
    // y = saturate(round(acc * (a_scale * b_scale[j] / y_scale)) + y_zero): the multiplier in
    // float in that order, as QLinearMatMulCompute (and ONNX Runtime) computes it.
    const float a_scale = static_cast<float>(ReadDouble(ctx.input(1), 0));
    const float y_scale = static_cast<float>(ReadDouble(ctx.input(6), 0));
    const TensorView& b_scale = ctx.input(4);
    std::vector<float> multiplier(static_cast<size_t>(N));
    for (int64_t j = 0; j < N; ++j) {
      multiplier[j] = a_scale *
                      static_cast<float>(ReadDouble(b_scale, b_scale.NumElements() == 1 ? 0 : j)) /
                      y_scale;
    }
    const std::vector<int32_t> y_zero(static_cast<size_t>(N),
                                      static_cast<int32_t>(ReadDouble(ctx.input(7), 0)));
    std::vector<int32_t> acc(static_cast<size_t>(M * N));
    CountPackedProduct(ctx);
    simd::QGemm(rows, *cols, acc.data(), N);
    const bool y_signed = y.type == ElementType::kInt8;
    for (int64_t i = 0; i < M; ++i) {
      simd::Requantize(acc.data() + i * N, N, 0, multiplier.data(), y_zero.data(), true, y_signed,
                       static_cast<uint8_t*>(y.data) + i * N);
    }
    return absl::OkStatus();
  }

 private:
  // Whether the parameters the packed path needs as one value hold one value in every run:
  // constants of one value, values whose inferred dims are literals of one element (a
  // DynamicQuantizeLinear's scale and zero point), or absent where they may be.
  bool ParametersFitThePackedPath(const Node& node) const {
    auto one = [&](int i, bool optional) {
      if (i >= node.num_inputs() || node.input(i) == nullptr) return optional;
      if (const Elements* e = ConstantInput(node, i); e != nullptr) return e->NumElements() == 1;
      return match::OneElement(node.input(i));
    };
    if (!requantize_) return one(2, true);
    const Elements* b_scale = ConstantInput(node, 4);
    return one(1, false) && one(2, true) && one(6, false) && one(7, false) && b_scale != nullptr &&
           (b_scale->NumElements() == 1 ||
            (b_scale->dims().size() == 1 && b_scale->NumElements() == packed_->n));
  }

  bool requantize_;
  int b_index_, b_zp_index_;
  std::unique_ptr<const simd::QColumns> packed_;  // B less its zero point, when constant
  bool always_packed_;                            // every run takes the packed path
};

}  // namespace

KernelOr CreateMatMul(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new MatMulKernel(node, false, false, 1.0f));
}

KernelOr CreateFusedMatMul(const Node& node, int64_t) {
  for (const char* attr : {"transBatchA", "transBatchB"}) {
    if (node.GetInt(attr, 0) != 0) {
      return absl::UnimplementedError(
          absl::StrCat(node.Describe(), ": FusedMatMul with ", attr, " = 1 is not implemented"));
    }
  }
  return std::unique_ptr<OpKernel>(new MatMulKernel(node, node.GetInt("transA", 0) != 0,
                                                    node.GetInt("transB", 0) != 0,
                                                    node.GetFloat("alpha", 1.0f)));
}

KernelOr CreateGemm(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new GemmKernel(node, opset));
}

KernelOr CreateMatMulInteger(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new QuantizedMatMulKernel(node, false));
}

KernelOr CreateQLinearMatMul(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new QuantizedMatMulKernel(node, true));
}

}  // namespace anvil::compute_ops
