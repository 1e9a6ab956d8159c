// ONNX Runtime's com.microsoft quantized operators: the QOperator format its quantizer writes
// (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearWhere,
// QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat, QGemm) and its dynamically quantized
// products (DynamicQuantizeMatMul, MatMulIntegerToFloat). Each computes what ONNX Runtime 1.30's
// x86-64 CPU kernel computes, in the same float operations and order, so that outputs are
// bit-identical to it where its kernels are exact:
//  - QLinearAdd: MLAS's AVX2 kernel (fused multiply-adds of scale ratios; simd::QLinearAdd);
//    an operand that is one value over a run of the output (a per-channel [1, C, 1, 1] operand
//    over each channel's plane, a scalar) has its part folded into the constant once, as ORT's
//    broadcast looper does.
//  - QLinearMul: MLAS's integer product times one float ratio (simd::QLinearMul).
//  - QLinearSigmoid, QLinearLeakyRelu, QLinearConcat: a 256-entry table per op (per input for
//    Concat) of quantize(f(dequantize(byte))); Sigmoid's f is MLAS's rational approximation of the
//    logistic function with fused multiply-adds, not 1 / (1 + exp(-x)).
//  - QLinearWhere: the selected operand's byte through its requantization table.
//  - QLinearSoftmax: ORT's table of exponentials of byte differences from the row's maximum and
//    its integer-scaled division (with its quirks: x_zero_point ignored, int8 results wrapped).
//  - QLinearGlobalAveragePool: an exact int32 sum, requantized once (simd::Requantize); so is
//    QLinearAveragePool when its window is the whole image without pads (ORT takes the global
//    path then); otherwise a float average of dequantized values in window order.
//  - QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul: exact int32 products (simd::QGemm: ORT's
//    u8 x s8 path without VNNI saturates pairs of products at 2^15 and may differ there), then
//    ORT's float epilogue.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/node_errors.h"
#include "kernels/dispatch.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/op_util.h"
#include "kernels/simd/qgemm.h"
#include "kernels/simd/quantize.h"

namespace anvil::compute_ops {
namespace {

bool IsEightBit(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

int32_t Lowest(bool is_signed) { return is_signed ? -128 : 0; }
int32_t Highest(bool is_signed) { return is_signed ? 127 : 255; }

// The scale at input `i`: required, float, one value (these ops quantize per tensor).
absl::StatusOr<float> OneScale(const KernelContext& ctx, int i, const char* name) {
  if (!ctx.HasInput(i)) return ctx.Error(absl::StrCat(name, " is required"));
  const TensorView& v = ctx.input(i);
  if (v.type != ElementType::kFloat) {
    return ctx.Error(absl::StrCat(name, " must be float, got ", AsAbsl(ElementTypeName(v.type))));
  }
  if (v.NumElements() != 1) {
    return ctx.Error(absl::StrCat(name, " ", v.DebugString(), " must hold one value"));
  }
  return static_cast<float>(ReadDouble(v, 0));
}

// The zero point at input `i` of 8-bit `type`: one value, 0 when absent.
absl::StatusOr<int32_t> OneZero(const KernelContext& ctx, int i, const char* name,
                                ElementType type) {
  if (!ctx.HasInput(i)) return 0;
  const TensorView& v = ctx.input(i);
  if (v.type != type) {
    return ctx.Error(absl::StrCat(name, " is ", AsAbsl(ElementTypeName(v.type)), ", its data is ",
                                  AsAbsl(ElementTypeName(type))));
  }
  if (v.NumElements() != 1) {
    return ctx.Error(absl::StrCat(name, " ", v.DebugString(), " must hold one value"));
  }
  return static_cast<int32_t>(ReadDouble(v, 0));
}

// A byte's value as int32: uint8, or int8 when is_signed.
int32_t ByteValue(uint8_t b, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(b)) : b;
}

// Quantizes one float as ONNX Runtime's QuantizeLinear does (a float division, clamped to the
// range less the zero point, then rounded half to even; NaN to the lowest value).
uint8_t QuantizeByte(float v, float scale, int32_t zero, bool is_signed) {
  uint8_t q = 0;
  simd::QuantizeLinear(&v, 1, scale, zero, is_signed, &q);
  return q;
}

// ---------------------------------------------------------------------------------------------
// QLinearAdd, QLinearMul
// ---------------------------------------------------------------------------------------------

// How ONNX Runtime's broadcast looper cuts a binary op's output into runs: the innermost dims
// (size-1 output dims skipped) over which each operand either advances or stays, the same way
// throughout. Within a run an operand that stays is one value.
struct BinaryRuns {
  int64_t length = 1;  // output elements per run
  bool a_one = false;  // A is one value within a run
  bool b_one = false;
  Shape a_strides, b_strides;  // per output dim; 0 where the operand broadcasts
};

BinaryRuns CutIntoRuns(const Shape& a_dims, const Shape& b_dims, const Shape& out) {
  const size_t rank = out.size();
  BinaryRuns runs;
  runs.a_strides.assign(rank, 0);
  runs.b_strides.assign(rank, 0);
  auto strides = [&](const Shape& dims, Shape& s) {
    int64_t stride = 1;
    for (size_t k = dims.size(); k-- > 0;) {
      const size_t o = rank - dims.size() + k;
      s[o] = dims[k] == 1 ? 0 : stride;
      stride *= dims[k];
    }
  };
  strides(a_dims, runs.a_strides);
  strides(b_dims, runs.b_strides);
  int kind = -1;  // bit 0: A advances, bit 1: B advances
  for (size_t k = rank; k-- > 0;) {
    if (out[k] == 1) continue;
    const int dim_kind = (runs.a_strides[k] != 0 ? 1 : 0) | (runs.b_strides[k] != 0 ? 2 : 0);
    if (kind >= 0 && dim_kind != kind) break;
    kind = dim_kind;
    runs.length *= out[k];
  }
  runs.a_one = kind >= 0 && (kind & 1) == 0;
  runs.b_one = kind >= 0 && (kind & 2) == 0;
  return runs;
}

// Element offsets of A and B at output element `e`.
void OffsetsAt(const BinaryRuns& runs, const Shape& out, int64_t e, int64_t* a, int64_t* b) {
  *a = 0;
  *b = 0;
  for (size_t k = out.size(); k-- > 0;) {
    const int64_t i = e % out[k];
    e /= out[k];
    *a += i * runs.a_strides[k];
    *b += i * runs.b_strides[k];
  }
}

template <bool kMul>
absl::Status QLinearBinaryCompute(KernelContext& ctx) {
  const char* op = kMul ? "QLinearMul" : "QLinearAdd";
  const TensorView& a = ctx.input(0);
  const TensorView& b = ctx.input(3);
  TensorView& y = ctx.output(0);
  if (!IsEightBit(a.type)) return UnsupportedType(op, a.type);
  if (b.type != a.type || y.type != a.type) {
    return ctx.Error(
        absl::StrCat("A, B and C must have one 8-bit type, got ", AsAbsl(ElementTypeName(a.type)),
                     ", ", AsAbsl(ElementTypeName(b.type)), ", ", AsAbsl(ElementTypeName(y.type))));
  }
  if (!a.BroadcastsTo(y.dims) || !b.BroadcastsTo(y.dims) || !y.Contiguous()) {
    return ctx.Error(absl::StrCat("A ", a.DebugString(), " and B ", b.DebugString(),
                                  " do not broadcast to C ", y.DebugString()));
  }
  ANVIL_ASSIGN_OR_RETURN(const float a_scale, OneScale(ctx, 1, "A_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t a_zero, OneZero(ctx, 2, "A_zero_point", a.type));
  ANVIL_ASSIGN_OR_RETURN(const float b_scale, OneScale(ctx, 4, "B_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t b_zero, OneZero(ctx, 5, "B_zero_point", a.type));
  ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 6, "C_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 7, "C_zero_point", a.type));
  const bool is_signed = a.type == ElementType::kInt8;
  const DenseBytes ad(a), bd(b);
  const BinaryRuns runs = CutIntoRuns(a.dims, b.dims, y.dims);
  const int64_t n = y.NumElements();
  uint8_t* out = static_cast<uint8_t*>(y.data);

  // QLinearAdd's constants, as MLAS computes them: the ratios, then the fixed part
  // y_zero - (ra * a_zero + rb * b_zero) with the first product fused into the sum (GCC
  // contracts that expression in ORT's AVX2 kernel).
  const float ra = a_scale / y_scale, rb = b_scale / y_scale;
  const float fixed = static_cast<float>(y_zero) -
                      std::fma(ra, static_cast<float>(a_zero), rb * static_cast<float>(b_zero));
  const float ratio = a_scale * b_scale / y_scale;
  for (int64_t e = 0; e < n; e += runs.length) {
    int64_t ao = 0, bo = 0;
    OffsetsAt(runs, y.dims, e, &ao, &bo);
    const uint8_t* ap = ad.data() + ao;
    const uint8_t* bp = bd.data() + bo;
    if constexpr (kMul) {
      simd::QLinearMul(ap, runs.a_one, a_zero, bp, runs.b_one, b_zero, runs.length, ratio, y_zero,
                       is_signed, out + e);
    } else if (runs.a_one) {
      // ORT: B is the vector operand, A's part is folded into the fixed part first.
      simd::QLinearAdd(bp, ap, true, runs.length, rb, ra, fixed, is_signed, out + e);
    } else {
      simd::QLinearAdd(ap, bp, runs.b_one, runs.length, ra, rb, fixed, is_signed, out + e);
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Table ops: QLinearSigmoid, QLinearLeakyRelu
// ---------------------------------------------------------------------------------------------

// MLAS's logistic function (its FMA3 kernel): a rational approximation on [-18, 18], clamped to
// [0, 1].
float MlasLogistic(float v) {
  constexpr float kA1 = 2.48287947061529e-01f, kA3 = 8.51377133304701e-03f,
                  kA5 = 6.08574864600143e-05f, kA7 = 1.15627324459942e-07f,
                  kA9 = 4.37031012579801e-11f;
  constexpr float kB0 = 9.93151921023180e-01f, kB2 = 1.16817656904453e-01f,
                  kB4 = 1.70198817374094e-03f, kB6 = 6.29106785017040e-06f,
                  kB8 = 5.76102136993427e-09f, kB10 = 6.10247389755681e-13f;
  v = std::min(std::max(v, -18.0f), 18.0f);
  const float v2 = v * v;
  float p = std::fma(kA9, v2, kA7);
  p = std::fma(p, v2, kA5);
  p = std::fma(p, v2, kA3);
  p = std::fma(p, v2, kA1);
  p = p * v;
  float q = std::fma(kB10, v2, kB8);
  q = std::fma(q, v2, kB6);
  q = std::fma(q, v2, kB4);
  q = std::fma(q, v2, kB2);
  q = std::fma(q, v2, kB0);
  return std::min(std::max(p / q + 0.5f, 0.0f), 1.0f);
}

// ORT's lookup table for x -> quantize(f(dequantize(x))): entry b is for the byte b.
template <typename F>
std::array<uint8_t, 256> BuildTable(bool is_signed, float x_scale, int32_t x_zero, float y_scale,
                                    int32_t y_zero, F f) {
  std::array<uint8_t, 256> table;
  for (int b = 0; b < 256; ++b) {
    const float x =
        x_scale * static_cast<float>(ByteValue(static_cast<uint8_t>(b), is_signed) - x_zero);
    table[b] = QuantizeByte(f(x), y_scale, y_zero, is_signed);
  }
  return table;
}

// X (input 0) is 8-bit and Y (output 0) dense of its type and dims.
absl::Status CheckUnaryIo(KernelContext& ctx, const char* op) {
  const TensorView& x = ctx.input(0);
  const TensorView& y = ctx.output(0);
  if (!IsEightBit(x.type)) return UnsupportedType(op, x.type);
  if (y.type != x.type || y.dims != x.dims || !y.Contiguous()) {
    return ctx.Error("Y must have X's type and shape");
  }
  return absl::OkStatus();
}

void ApplyTable(const std::array<uint8_t, 256>& table, const uint8_t* x, int64_t n, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

class QLinearTableKernel final : public OpKernel {
 public:
  QLinearTableKernel(bool sigmoid, float alpha) : sigmoid_(sigmoid), alpha_(alpha) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    ANVIL_RETURN_IF_ERROR(CheckUnaryIo(ctx, sigmoid_ ? "QLinearSigmoid" : "QLinearLeakyRelu"));
    ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, 1, "X_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t x_zero, OneZero(ctx, 2, "X_zero_point", x.type));
    ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 3, "Y_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 4, "Y_zero_point", x.type));
    const bool is_signed = x.type == ElementType::kInt8;
    const float alpha = alpha_;
    const std::array<uint8_t, 256> table =
        sigmoid_ ? BuildTable(is_signed, x_scale, x_zero, y_scale, y_zero, MlasLogistic)
                 : BuildTable(is_signed, x_scale, x_zero, y_scale, y_zero,
                              [alpha](float v) { return v >= 0.0f ? v : alpha * v; });
    const DenseBytes xd(x);
    ApplyTable(table, xd.data(), x.NumElements(), static_cast<uint8_t*>(y.data));
    return absl::OkStatus();
  }

 private:
  bool sigmoid_;
  float alpha_;
};

// ---------------------------------------------------------------------------------------------
// QLinearSoftmax
// ---------------------------------------------------------------------------------------------

// ONNX Runtime's quantized softmax over rows of d elements: a table of
//   E[k] = float(exp((k - 255 + b) * x_scale)), b = max(0, log(float(FLT_MAX / d)) - 5) / x_scale
// (in double, so that a row's sum of 256 entries cannot overflow), per row e_j = E[255 -
// (max - x_j)] (x_zero_point cancels and is ignored), sum = the e_j added in order, then
//   y_j = round_half_even(e_j * floor(1 / y_scale) / sum) + y_zero,
// saturated above at 255 for uint8 and, as ONNX Runtime does, wrapped for int8 (a quirk: 128
// becomes -128).
class QLinearSoftmaxKernel final : public OpKernel {
 public:
  QLinearSoftmaxKernel(int64_t axis, int64_t opset) : axis_(axis), opset_(opset) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    ANVIL_RETURN_IF_ERROR(CheckUnaryIo(ctx, "QLinearSoftmax"));
    ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, 1, "X_scale"));
    ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 3, "y_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 4, "y_zero_point", x.type));
    const int64_t rank = x.rank();
    const bool flatten = opset_ < 13;  // the 2-D split at axis, before opset 13
    const int64_t a = axis_ < 0 ? axis_ + rank : axis_;
    if (a < 0 || a > rank || (!flatten && a == rank)) {
      return ctx.Error(absl::StrCat("axis ", axis_, " is out of range for rank ", rank));
    }
    // Rows of d elements at stride `inner`, `outer` x `inner` of them.
    const int64_t d = flatten ? Product(x.dims, static_cast<size_t>(a)) : x.dims[a];
    const int64_t inner = flatten ? 1 : Product(x.dims, static_cast<size_t>(a) + 1);
    const int64_t outer = d * inner == 0 ? 0 : x.NumElements() / (d * inner);
    if (d == 0 || outer == 0) return absl::OkStatus();
    const bool is_signed = x.type == ElementType::kInt8;
    std::array<float, 256> table;
    double bias =
        std::log(static_cast<double>(std::numeric_limits<float>::max() / static_cast<float>(d)));
    bias = std::max(0.0, bias - 5.0) / static_cast<double>(x_scale);
    for (int k = 0; k < 256; ++k) {
      table[k] = static_cast<float>(
          std::exp((static_cast<double>(k) - 255.0 + bias) * static_cast<double>(x_scale)));
    }
    const float y_range = std::floor(1.0f / y_scale);
    const DenseBytes xd(x);
    uint8_t* out = static_cast<uint8_t*>(y.data);
    std::vector<float> e(static_cast<size_t>(d));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * d * inner + i;
        int32_t max = ByteValue(xd.data()[base], is_signed);
        for (int64_t j = 1; j < d; ++j) {
          max = std::max(max, ByteValue(xd.data()[base + j * inner], is_signed));
        }
        float sum = 0.0f;
        for (int64_t j = 0; j < d; ++j) {
          e[j] = table[255 - (max - ByteValue(xd.data()[base + j * inner], is_signed))];
          sum += e[j];
        }
        for (int64_t j = 0; j < d; ++j) {
          const float q = std::nearbyint(e[j] * y_range / sum);
          uint8_t v;
          if (is_signed) {
            const int32_t r = static_cast<int32_t>(q) + y_zero;
            v = static_cast<uint8_t>(r > 255 ? 255 : r);  // wraps as ORT's int8 cast does
          } else {
            const uint32_t r = static_cast<uint32_t>(q) + static_cast<uint32_t>(y_zero);
            v = static_cast<uint8_t>(std::min<uint32_t>(r, 255));
          }
          out[base + j * inner] = v;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_, opset_;
};

// ---------------------------------------------------------------------------------------------
// QLinearConcat
// ---------------------------------------------------------------------------------------------

absl::Status QLinearConcatCompute(KernelContext& ctx) {
  TensorView& y = ctx.output(0);
  if (!IsEightBit(y.type)) return UnsupportedType("QLinearConcat", y.type);
  if (!y.Contiguous()) return ctx.Error("Y must be dense");
  const bool is_signed = y.type == ElementType::kInt8;
  ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 0, "Y_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 1, "Y_zero_point", y.type));
  const int64_t rank = y.rank();
  int64_t axis = ctx.node().GetInt("axis", 0);
  if (axis < -rank || axis >= rank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  const int64_t outer = Product(y.dims, 0, static_cast<size_t>(axis));
  const int64_t y_chunk = Product(y.dims, static_cast<size_t>(axis));
  uint8_t* out = static_cast<uint8_t*>(y.data);
  int64_t at = 0;  // the current input's first element within a y chunk
  for (int i = 2; i + 2 < ctx.num_inputs(); i += 3) {
    const TensorView& x = ctx.input(i);
    if (x.type != y.type) {
      return ctx.Error(absl::StrCat("input ", i, " is ", AsAbsl(ElementTypeName(x.type)), ", Y is ",
                                    AsAbsl(ElementTypeName(y.type))));
    }
    ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, i + 1, "X_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t x_zero, OneZero(ctx, i + 2, "X_zero_point", x.type));
    if (x.rank() != rank) return ctx.Error(absl::StrCat("input ", i, " has another rank"));
    const int64_t chunk = Product(x.dims, static_cast<size_t>(axis));
    if (at + chunk > y_chunk || Product(x.dims, 0, static_cast<size_t>(axis)) != outer) {
      return ctx.Error(
          absl::StrCat("input ", i, " ", x.DebugString(), " does not fit Y ", y.DebugString()));
    }
    const DenseBytes xd(x);
    // ORT copies when the parameters are equal (the scales compared as floats), else maps each
    // byte through a requantization table.
    const bool same = x_scale == y_scale && x_zero == y_zero;
    std::array<uint8_t, 256> table{};
    if (!same) {
      table = BuildTable(is_signed, x_scale, x_zero, y_scale, y_zero, [](float v) { return v; });
    }
    for (int64_t o = 0; o < outer; ++o) {
      const uint8_t* src = xd.data() + o * chunk;
      uint8_t* dst = out + o * y_chunk + at;
      if (same) {
        if (chunk > 0) std::memcpy(dst, src, static_cast<size_t>(chunk));
      } else {
        ApplyTable(table, src, chunk, dst);
      }
    }
    at += chunk;
  }
  if (at != y_chunk) return ctx.Error("the inputs do not fill Y");
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// QLinearWhere
// ---------------------------------------------------------------------------------------------

// Z = condition ? X : Y, broadcast, each selected byte requantized to Z's parameters by its
// input's table (copied when that input's scale and zero point equal Z's), as ORT does.
absl::Status QLinearWhereCompute(KernelContext& ctx) {
  const TensorView& c = ctx.input(0);
  const TensorView& x = ctx.input(1);
  const TensorView& y = ctx.input(4);
  TensorView& z = ctx.output(0);
  if (c.type != ElementType::kBool) return UnsupportedType("QLinearWhere condition", c.type);
  if (!IsEightBit(x.type)) return UnsupportedType("QLinearWhere", x.type);
  if (y.type != x.type || z.type != x.type || !z.Contiguous()) {
    return ctx.Error("X, Y and Z must have one 8-bit type");
  }
  for (const TensorView* v : {&c, &x, &y}) {
    if (!v->BroadcastsTo(z.dims)) {
      return ctx.Error(
          absl::StrCat(v->DebugString(), " does not broadcast to Z ", z.DebugString()));
    }
  }
  ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, 2, "x_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t x_zero, OneZero(ctx, 3, "x_zero_point", x.type));
  ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 5, "y_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 6, "y_zero_point", x.type));
  ANVIL_ASSIGN_OR_RETURN(const float z_scale, OneScale(ctx, 7, "z_scale"));
  ANVIL_ASSIGN_OR_RETURN(const int32_t z_zero, OneZero(ctx, 8, "z_zero_point", x.type));
  const bool is_signed = x.type == ElementType::kInt8;
  auto table_for = [&](float scale, int32_t zero) {
    std::array<uint8_t, 256> table;
    if (scale == z_scale && zero == z_zero) {
      for (int b = 0; b < 256; ++b) table[b] = static_cast<uint8_t>(b);
    } else {
      table = BuildTable(is_signed, scale, zero, z_scale, z_zero, [](float v) { return v; });
    }
    return table;
  };
  const std::array<uint8_t, 256> tx = table_for(x_scale, x_zero), ty = table_for(y_scale, y_zero);
  // The three operands broadcast to Z's dims, as bytes (the condition's bools are bytes too).
  const int64_t n = z.NumElements();
  std::vector<uint8_t> cb(static_cast<size_t>(n)), xb(cb.size()), yb(cb.size());
  TensorView c_bytes = c;
  c_bytes.type = ElementType::kUint8;
  TensorView x_bytes = x, y_bytes = y;
  x_bytes.type = y_bytes.type = ElementType::kUint8;
  CopyConvertAny(c_bytes.BroadcastTo(z.dims), cb.data());
  CopyConvertAny(x_bytes.BroadcastTo(z.dims), xb.data());
  CopyConvertAny(y_bytes.BroadcastTo(z.dims), yb.data());
  uint8_t* out = static_cast<uint8_t*>(z.data);
  for (int64_t e = 0; e < n; ++e) out[e] = cb[e] != 0 ? tx[xb[e]] : ty[yb[e]];
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// QLinearGlobalAveragePool, QLinearAveragePool
// ---------------------------------------------------------------------------------------------

// The global average of [outer, image, inner] bytes (NCHW: inner 1; NHWC: inner = channels) as
// MLAS computes it: acc = sum - x_zero * image exactly in int32, then
// requantize(acc, x_scale / (y_scale * image)).
absl::Status GlobalAverage(const KernelContext& ctx, const uint8_t* x, int64_t outer, int64_t image,
                           int64_t inner, bool is_signed, float x_scale, int32_t x_zero,
                           float y_scale, int32_t y_zero, uint8_t* y) {
  if (image >= (int64_t{1} << 24)) {
    return ctx.Error(absl::StrCat("an image of ", image,
                                  " elements is too large (ORT's limit is "
                                  "2^24)"));
  }
  const float multiplier = x_scale / (y_scale * static_cast<float>(image));
  std::vector<int32_t> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), -x_zero * static_cast<int32_t>(image));
    const uint8_t* plane = x + o * image * inner;
    for (int64_t p = 0; p < image; ++p) {
      for (int64_t c = 0; c < inner; ++c) acc[c] += ByteValue(plane[p * inner + c], is_signed);
    }
    simd::Requantize(acc.data(), inner, 0, &multiplier, &y_zero, false, is_signed, y + o * inner);
  }
  return absl::OkStatus();
}

class QLinearGlobalAveragePoolKernel final : public OpKernel {
 public:
  explicit QLinearGlobalAveragePoolKernel(bool channels_last) : channels_last_(channels_last) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    if (!IsEightBit(x.type)) return UnsupportedType("QLinearGlobalAveragePool", x.type);
    if (y.type != x.type || x.rank() < 3 || !y.Contiguous()) {
      return ctx.Error(absl::StrCat("X ", x.DebugString(), " and Y ", y.DebugString(),
                                    " must share an 8-bit type, rank >= 3"));
    }
    ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, 1, "x_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t x_zero, OneZero(ctx, 2, "x_zero_point", x.type));
    ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 3, "y_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 4, "y_zero_point", x.type));
    const int64_t n = x.dims[0];
    const int64_t c = channels_last_ ? x.dims.back() : x.dims[1];
    const int64_t image = c > 0 && n > 0 ? x.NumElements() / (n * c) : 0;
    if (image == 0) return ctx.Error("X has no elements to average");
    const DenseBytes xd(x);
    return channels_last_
               ? GlobalAverage(ctx, xd.data(), n, image, c, x.type == ElementType::kInt8, x_scale,
                               x_zero, y_scale, y_zero, static_cast<uint8_t*>(y.data))
               : GlobalAverage(ctx, xd.data(), n * c, image, 1, x.type == ElementType::kInt8,
                               x_scale, x_zero, y_scale, y_zero, static_cast<uint8_t*>(y.data));
  }

 private:
  bool channels_last_;
};

class QLinearAveragePoolKernel final : public OpKernel {
 public:
  QLinearAveragePoolKernel(WindowAttrs attrs, bool count_include_pad)
      : attrs_(std::move(attrs)), count_include_pad_(count_include_pad) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    if (!IsEightBit(x.type)) return UnsupportedType("QLinearAveragePool", x.type);
    const int64_t S = x.rank() - 2;
    if (S < 1 || S > 3) {
      return absl::UnimplementedError(absl::StrCat(
          ctx.node().Describe(), ": QLinearAveragePool over ", S, " spatial dims (1 to 3)"));
    }
    if (y.type != x.type || !y.Contiguous()) return ctx.Error("Y must be dense, of X's type");
    ANVIL_ASSIGN_OR_RETURN(const float x_scale, OneScale(ctx, 1, "x_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t x_zero, OneZero(ctx, 2, "x_zero_point", x.type));
    ANVIL_ASSIGN_OR_RETURN(const float y_scale, OneScale(ctx, 3, "y_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t y_zero, OneZero(ctx, 4, "y_zero_point", x.type));
    const Shape in(x.dims.begin() + 2, x.dims.end());
    const Shape out(y.dims.begin() + 2, y.dims.end());
    ANVIL_ASSIGN_OR_RETURN(WindowGeometry g,
                           ResolveWindow(ctx.node(), attrs_, in, out, attrs_.kernel_shape));
    const bool is_signed = x.type == ElementType::kInt8;
    const DenseBytes xd(x);
    uint8_t* yd = static_cast<uint8_t*>(y.data);
    const int64_t planes = x.dims[0] * x.dims[1];
    const bool no_pads =
        std::all_of(g.pad_begin.begin(), g.pad_begin.end(), [](int64_t p) { return p == 0; }) &&
        std::all_of(g.pad_end.begin(), g.pad_end.end(), [](int64_t p) { return p == 0; });
    if (g.kernel == g.in && no_pads && g.out_size == 1) {
      // ORT runs the global average's integer arithmetic for a window that is the image.
      return GlobalAverage(ctx, xd.data(), planes, g.in_size, 1, is_signed, x_scale, x_zero,
                           y_scale, y_zero, yd);
    }
    // Dequantized once per byte value; then sums in float, window order.
    std::array<float, 256> dq;
    for (int b = 0; b < 256; ++b) {
      dq[b] = x_scale * static_cast<float>(ByteValue(static_cast<uint8_t>(b), is_signed) - x_zero);
    }
    const int32_t lo = Lowest(is_signed), hi = Highest(is_signed);
    // Spatial dims padded to 3 at the front.
    int64_t ind[3], outd[3], k[3], s[3], pb[3];
    for (int d = 0; d < 3; ++d) {
      const int64_t sd = d - (3 - S);
      ind[d] = sd < 0 ? 1 : g.in[sd];
      outd[d] = sd < 0 ? 1 : g.out[sd];
      k[d] = sd < 0 ? 1 : g.kernel[sd];
      s[d] = sd < 0 ? 1 : g.strides[sd];
      pb[d] = sd < 0 ? 0 : g.pad_begin[sd];
    }
    const int64_t kernel_size = k[0] * k[1] * k[2];
    for (int64_t p = 0; p < planes; ++p) {
      const uint8_t* plane = xd.data() + p * g.in_size;
      uint8_t* yp = yd + p * g.out_size;
      for (int64_t o0 = 0; o0 < outd[0]; ++o0) {
        for (int64_t o1 = 0; o1 < outd[1]; ++o1) {
          for (int64_t o2 = 0; o2 < outd[2]; ++o2) {
            int64_t lo_i[3], hi_i[3];
            const int64_t o[3] = {o0, o1, o2};
            for (int d = 0; d < 3; ++d) {
              const int64_t start = o[d] * s[d] - pb[d];
              hi_i[d] = std::min(start + k[d], ind[d]);
              lo_i[d] = std::max<int64_t>(start, 0);
            }
            float sum = 0.0f;
            for (int64_t i0 = lo_i[0]; i0 < hi_i[0]; ++i0) {
              for (int64_t i1 = lo_i[1]; i1 < hi_i[1]; ++i1) {
                for (int64_t i2 = lo_i[2]; i2 < hi_i[2]; ++i2) {
                  sum += dq[plane[(i0 * ind[1] + i1) * ind[2] + i2]];
                }
              }
            }
            const int64_t count = count_include_pad_ ? kernel_size
                                                     : std::max<int64_t>(hi_i[0] - lo_i[0], 0) *
                                                           std::max<int64_t>(hi_i[1] - lo_i[1], 0) *
                                                           std::max<int64_t>(hi_i[2] - lo_i[2], 0);
            const float avg = count > 0 ? sum / static_cast<float>(count) : 0.0f;
            const float q = std::nearbyint(avg / y_scale + static_cast<float>(y_zero));
            const int32_t v = std::isnan(q)
                                  ? lo
                                  : static_cast<int32_t>(std::clamp(q, static_cast<float>(lo),
                                                                    static_cast<float>(hi)));
            yp[(o0 * outd[1] + o1) * outd[2] + o2] = static_cast<uint8_t>(v);
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  WindowAttrs attrs_;
  bool count_include_pad_;
};

// ---------------------------------------------------------------------------------------------
// QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul
// ---------------------------------------------------------------------------------------------

// A scale or zero point of one value or one per column of an N-column product, as floats.
absl::StatusOr<std::vector<float>> PerColumnFloats(const KernelContext& ctx, int i,
                                                   const char* name, int64_t n) {
  const TensorView& v = ctx.input(i);
  if (v.NumElements() != 1 && v.NumElements() != n) {
    return ctx.Error(absl::StrCat(name, " ", v.DebugString(), " must hold one value or ", n));
  }
  return ReadFloats(v);
}

// B [K, N] (or [N, K] with trans_b; row-major bytes) less b_zero (one value or N; empty: 0),
// packed for simd::QGemm.
simd::QColumns PackColumns(const uint8_t* b, bool is_signed, int64_t K, int64_t N, bool trans_b,
                           const std::vector<int32_t>& b_zero) {
  std::vector<uint8_t> transposed;
  if (trans_b) {
    transposed.resize(static_cast<size_t>(K * N));
    Transpose(b, N, K, transposed.data());
    b = transposed.data();
  }
  return simd::PackQColumns(b, is_signed, N, K, N, b_zero.empty() ? nullptr : b_zero.data(),
                            b_zero.size() > 1);
}

// A constant 2-D B (input b_index, zero points at zp_index) packed once at kernel creation;
// null when B or its zero points are not constants.
std::unique_ptr<const simd::QColumns> PackConstantColumns(const Node& node, int b_index,
                                                          int zp_index, bool trans_b) {
  const Elements* constant = ConstantInput(node, b_index);
  if (constant == nullptr || constant->dims().size() != 2) return nullptr;
  const int64_t K = constant->dims()[trans_b ? 1 : 0], N = constant->dims()[trans_b ? 0 : 1];
  std::optional<ConstantQuantizedWeight> b =
      ReadConstantQuantizedWeight(node, b_index, zp_index, N, true);
  if (!b.has_value()) return nullptr;
  return std::make_unique<const simd::QColumns>(
      PackColumns(b->bytes.data(), b->type == ElementType::kInt8, K, N, trans_b, b->zeros));
}

// int32 acc [M, N] = (A - a_zero) x (B - b_zero[j]) for A [M, K] (row i at a[i * lda]) and a 2-D
// B [K, N] ([N, K] with trans_b) by the int8 GEMM, on `packed` when the kernel packed B at
// creation (its bytes are kept: these kernels do not release them).
absl::Status EightBitProduct(const KernelContext& ctx, const uint8_t* a, bool a_signed, int64_t lda,
                             int64_t M, int64_t K, int32_t a_zero, const TensorView& b,
                             bool trans_b, const std::vector<int32_t>& b_zero,
                             const simd::QColumns* packed, int32_t* acc) {
  const int64_t N = trans_b ? b.dims[0] : b.dims[1];
  if ((trans_b ? b.dims[1] : b.dims[0]) != K) {
    return ctx.Error(absl::StrCat("B ", b.DebugString(), " does not fit K = ", K));
  }
  simd::QColumns per_run;
  if (packed == nullptr || packed->k != K || packed->n != N) {
    const DenseBytes bd(b);
    per_run = PackColumns(bd.data(), b.type == ElementType::kInt8, K, N, trans_b, b_zero);
    packed = &per_run;
  }
  const simd::QRows rows = simd::PackQRows(a, a_signed, lda, M, K, &a_zero, false);
  simd::QGemm(rows, *packed, acc, N);
  return absl::OkStatus();
}

// The zero points of B: empty when absent, else one value or N (of B's type).
absl::StatusOr<std::vector<int32_t>> ColumnZeros(const KernelContext& ctx, int i, const char* name,
                                                 ElementType type, int64_t n) {
  if (!ctx.HasInput(i)) return std::vector<int32_t>();
  const TensorView& z = ctx.input(i);
  if (z.type != type) return ctx.Error(absl::StrCat(name, " and B differ in type"));
  if (z.NumElements() != 1 && z.NumElements() != n) {
    return ctx.Error(absl::StrCat(name, " ", z.DebugString(), " must hold one value or ", n));
  }
  ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> v, ReadInt64s(ctx, i));
  return std::vector<int32_t>(v.begin(), v.end());
}

class QGemmKernel final : public OpKernel {
 public:
  explicit QGemmKernel(const Node& node)
      : trans_a_(node.GetInt("transA", 0) != 0),
        trans_b_(node.GetInt("transB", 0) != 0),
        alpha_(node.GetFloat("alpha", 1.0f)),
        packed_(PackConstantColumns(node, 3, 5, trans_b_)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& a = ctx.input(0);
    const TensorView& b = ctx.input(3);
    TensorView& y = ctx.output(0);
    if (!IsEightBit(a.type)) return UnsupportedType("QGemm", a.type);
    if (!IsEightBit(b.type)) return UnsupportedType("QGemm", b.type);
    if (a.rank() != 2 || b.rank() != 2 || y.rank() != 2 || !y.Contiguous()) {
      return ctx.Error("A, B and Y must be 2-D");
    }
    const int64_t M = trans_a_ ? a.dims[1] : a.dims[0];
    const int64_t K = trans_a_ ? a.dims[0] : a.dims[1];
    const int64_t N = trans_b_ ? b.dims[0] : b.dims[1];
    if (y.dims[0] != M || y.dims[1] != N) return ctx.Error("Y is not [M, N]");
    ANVIL_ASSIGN_OR_RETURN(const float a_scale, OneScale(ctx, 1, "a_scale"));
    ANVIL_ASSIGN_OR_RETURN(const int32_t a_zero, OneZero(ctx, 2, "a_zero_point", a.type));
    ANVIL_ASSIGN_OR_RETURN(const std::vector<float> b_scale, PerColumnFloats(ctx, 4, "b_scale", N));
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int32_t> b_zero,
                           ColumnZeros(ctx, 5, "b_zero_point", b.type, N));
    const bool quantized = ctx.HasInput(7) && ctx.HasInput(8);
    float y_scale = 1.0f;
    int32_t y_zero = 0;
    if (ctx.HasInput(7)) {
      ANVIL_ASSIGN_OR_RETURN(y_scale, OneScale(ctx, 7, "y_scale"));
    }
    if (quantized) {
      if (!IsEightBit(y.type)) return UnsupportedType("QGemm", y.type);
      ANVIL_ASSIGN_OR_RETURN(y_zero, OneZero(ctx, 8, "y_zero_point", y.type));
    } else if (y.type != ElementType::kFloat) {
      return ctx.Error("Y must be float without y_zero_point");
    }
    // A as [M, K] rows.
    const DenseBytes ad(a);
    std::vector<uint8_t> at;
    const uint8_t* ak = ad.data();
    if (trans_a_) {
      at.resize(static_cast<size_t>(M * K));
      Transpose(ad.data(), K, M, at.data());
      ak = at.data();
    }
    std::vector<int32_t> acc(static_cast<size_t>(M * N));
    ANVIL_RETURN_IF_ERROR(EightBitProduct(ctx, ak, a.type == ElementType::kInt8, K, M, K, a_zero, b,
                                          trans_b_, b_zero, packed_.get(), acc.data()));
    if (ctx.HasInput(6)) {  // C: int32 at the product's scale, added as it is
      const TensorView& c = ctx.input(6);
      if (c.type != ElementType::kInt32) return UnsupportedType("QGemm C", c.type);
      const Shape out = {M, N};
      if (!c.BroadcastsTo(out)) {
        return ctx.Error(
            absl::StrCat("C ", c.DebugString(), " does not broadcast to [", M, ", ", N, "]"));
      }
      std::vector<int32_t> cb(static_cast<size_t>(M * N));
      CopyConvertAny(c.BroadcastTo(out), cb.data());
      for (size_t e = 0; e < acc.size(); ++e) {
        acc[e] = static_cast<int32_t>(static_cast<uint32_t>(acc[e]) + static_cast<uint32_t>(cb[e]));
      }
    }
    // ORT's multiplier per column: (alpha * a_scale) * b_scale[j], then / y_scale.
    std::vector<float> multiplier(static_cast<size_t>(N));
    for (int64_t j = 0; j < N; ++j) {
      float s = alpha_ * a_scale * b_scale[b_scale.size() == 1 ? 0 : j];
      if (ctx.HasInput(7)) s = s / y_scale;
      multiplier[j] = s;
    }
    if (quantized) {
      const std::vector<int32_t> zeros(static_cast<size_t>(N), y_zero);
      for (int64_t i = 0; i < M; ++i) {
        simd::Requantize(acc.data() + i * N, N, 0, multiplier.data(), zeros.data(), true,
                         y.type == ElementType::kInt8, static_cast<uint8_t*>(y.data) + i * N);
      }
      return absl::OkStatus();
    }
    float* out = y.As<float>();
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        out[i * N + j] = static_cast<float>(acc[i * N + j]) * multiplier[j];
      }
    }
    return absl::OkStatus();
  }

 private:
  bool trans_a_, trans_b_;
  float alpha_;
  std::unique_ptr<const simd::QColumns> packed_;  // B less its zero points, when constant
};

// The float epilogue of MatMulIntegerToFloat and DynamicQuantizeMatMul:
//   y[i, j] = float(acc) * (a_scale * b_scale[j]) + bias[j]
// each step rounded to float, as ONNX Runtime computes it.
absl::Status ScaleToFloat(const KernelContext& ctx, const int32_t* acc, int64_t rows, int64_t N,
                          float a_scale, const std::vector<float>& b_scale, int bias_input,
                          float* y) {
  std::vector<float> bias;
  if (ctx.HasInput(bias_input)) {
    const TensorView& v = ctx.input(bias_input);
    if (v.type != ElementType::kFloat || v.NumElements() != N) {
      return ctx.Error(absl::StrCat("bias ", v.DebugString(), " must be float [", N, "]"));
    }
    bias = ReadFloats(v);
  }
  std::vector<float> multiplier(static_cast<size_t>(N));
  for (int64_t j = 0; j < N; ++j) multiplier[j] = a_scale * b_scale[b_scale.size() == 1 ? 0 : j];
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      float v = static_cast<float>(acc[i * N + j]) * multiplier[j];
      if (!bias.empty()) v = v + bias[j];
      y[i * N + j] = v;
    }
  }
  return absl::OkStatus();
}

// MatMulIntegerToFloat (A 8-bit with a_scale and a_zero_point inputs 2 and 4) and
// DynamicQuantizeMatMul (A float, quantized here as DynamicQuantizeLinear does): A [..., K]
// times a 2-D B [K, N] with per-tensor or per-column b_scale and b_zero_point, plus bias.
class IntegerToFloatKernel final : public OpKernel {
 public:
  IntegerToFloatKernel(const Node& node, bool dynamic)
      : dynamic_(dynamic), packed_(PackConstantColumns(node, 1, dynamic ? 3 : 5, false)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const char* op = dynamic_ ? "DynamicQuantizeMatMul" : "MatMulIntegerToFloat";
    const TensorView& a = ctx.input(0);
    const TensorView& b = ctx.input(1);
    TensorView& y = ctx.output(0);
    const int b_scale_input = dynamic_ ? 2 : 3, b_zero_input = dynamic_ ? 3 : 5;
    const int bias_input = dynamic_ ? 4 : 6;
    if (!IsEightBit(b.type)) return UnsupportedType(op, b.type);
    if (y.type != ElementType::kFloat || !y.Contiguous()) return UnsupportedType(op, y.type);
    if (b.rank() != 2) {
      return absl::UnimplementedError(
          absl::StrCat(ctx.node().Describe(), ": ", op, " with a ", b.rank(), "-D B (2-D only)"));
    }
    const int64_t K = b.dims[0], N = b.dims[1];
    if (a.rank() < 1 || a.dims.back() != K) {
      return ctx.Error(absl::StrCat("A ", a.DebugString(), " does not fit B ", b.DebugString()));
    }
    const int64_t M = K > 0 ? a.NumElements() / K : y.NumElements() / std::max<int64_t>(N, 1);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<float> b_scale,
                           PerColumnFloats(ctx, b_scale_input, "b_scale", N));
    if (K == 0) {  // empty sums: y is the bias (or 0)
      const std::vector<int32_t> zeros(static_cast<size_t>(M * N), 0);
      return ScaleToFloat(ctx, zeros.data(), M, N, 1.0f, b_scale, bias_input, y.As<float>());
    }
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int32_t> b_zero,
                           ColumnZeros(ctx, b_zero_input, "b_zero_point", b.type, N));
    float a_scale = 1.0f;
    int32_t a_zero = 0;
    bool a_signed = false;
    std::vector<uint8_t> quantized;
    const uint8_t* a_bytes = nullptr;
    std::optional<DenseBytes> ad;
    if (dynamic_) {
      if (a.type != ElementType::kFloat) return UnsupportedType(op, a.type);
      Tensor dense;
      const float* af = a.As<float>();
      if (!a.Contiguous()) {
        dense = Tensor::CopyOf(a);
        af = dense.As<float>();
      }
      const int64_t n = a.NumElements();
      const simd::DynamicQuantization q = simd::DynamicQuantizationOf(af, n);
      a_scale = q.scale;
      a_zero = q.zero;
      quantized.resize(static_cast<size_t>(n));
      simd::QuantizeLinear(af, n, q.scale, q.zero, false, quantized.data());
      a_bytes = quantized.data();
    } else {
      if (!IsEightBit(a.type)) return UnsupportedType(op, a.type);
      a_signed = a.type == ElementType::kInt8;
      ANVIL_ASSIGN_OR_RETURN(a_scale, OneScale(ctx, 2, "a_scale"));
      ANVIL_ASSIGN_OR_RETURN(a_zero, OneZero(ctx, 4, "a_zero_point", a.type));
      ad.emplace(a);
      a_bytes = ad->data();
    }
    std::vector<int32_t> acc(static_cast<size_t>(M * N));
    ANVIL_RETURN_IF_ERROR(EightBitProduct(ctx, a_bytes, a_signed, K, M, K, a_zero, b, false, b_zero,
                                          packed_.get(), acc.data()));
    return ScaleToFloat(ctx, acc.data(), M, N, a_scale, b_scale, bias_input, y.As<float>());
  }

 private:
  bool dynamic_;
  std::unique_ptr<const simd::QColumns> packed_;  // B less its zero points, when constant
};

}  // namespace

KernelOr CreateQLinearAdd(const Node& node, int64_t opset) {
  return Stateless<&QLinearBinaryCompute<false>>(node, opset);
}
KernelOr CreateQLinearMul(const Node& node, int64_t opset) {
  return Stateless<&QLinearBinaryCompute<true>>(node, opset);
}
KernelOr CreateQLinearSigmoid(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new QLinearTableKernel(true, 0.0f));
}
KernelOr CreateQLinearLeakyRelu(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new QLinearTableKernel(false, node.GetFloat("alpha", 0.01f)));
}
KernelOr CreateQLinearSoftmax(const Node& node, int64_t) {
  const Attribute* opset = node.FindAttribute("opset");
  if (opset == nullptr) return NodeError(node, "attribute 'opset' is required");
  return std::unique_ptr<OpKernel>(
      new QLinearSoftmaxKernel(node.GetInt("axis", opset->i < 13 ? 1 : -1), opset->i));
}
KernelOr CreateQLinearWhere(const Node& node, int64_t opset) {
  return Stateless<&QLinearWhereCompute>(node, opset);
}
KernelOr CreateQLinearConcat(const Node& node, int64_t opset) {
  if (node.FindAttribute("axis") == nullptr) return NodeError(node, "attribute 'axis' is required");
  return Stateless<&QLinearConcatCompute>(node, opset);
}
KernelOr CreateQLinearGlobalAveragePool(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(
      new QLinearGlobalAveragePoolKernel(node.GetInt("channels_last", 0) != 0));
}
KernelOr CreateQLinearAveragePool(const Node& node, int64_t) {
  if (node.GetInt("channels_last", 0) != 0) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": QLinearAveragePool with channels_last = 1"));
  }
  ANVIL_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(node));
  if (attrs.kernel_shape.empty()) return NodeError(node, "attribute 'kernel_shape' is required");
  for (int64_t k : attrs.kernel_shape) {
    if (k < 1) return NodeError(node, "kernel_shape values must be >= 1");
  }
  return std::unique_ptr<OpKernel>(
      new QLinearAveragePoolKernel(std::move(attrs), node.GetInt("count_include_pad", 0) != 0));
}
KernelOr CreateQGemm(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new QGemmKernel(node));
}
KernelOr CreateMatMulIntegerToFloat(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new IntegerToFloatKernel(node, false));
}
KernelOr CreateDynamicQuantizeMatMul(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new IntegerToFloatKernel(node, true));
}

}  // namespace anvil::compute_ops
