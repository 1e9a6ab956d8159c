// Tests of ONNX Runtime's com.microsoft quantized ops (kernels/ops/compute_quantized.cc): each op
// against a scalar reference of ONNX Runtime's arithmetic written out here, over broadcast
// shapes, uint8 and int8, and zero points at the edges; outputs ONNX Runtime 1.30 produced (a
// QLinearAdd near a rounding tie, where only fused multiply-adds give its byte; QLinearSigmoid's
// table; QLinearSoftmax and QLinearWhere); and the errors for parameters ONNX Runtime refuses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "exec/testing/kernel_test_util.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::Dims;
using kernel_testing::Floats;
using kernel_testing::MakeTensor;
using kernel_testing::RunText;
using kernel_testing::Values;

constexpr char kHeader[] = "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n";

std::vector<uint8_t> RandomBytes(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) absl::StrAppend(&s, i ? "," : "", dims[i]);
  return s + "]";
}

// A byte as the value of the 8-bit type.
int32_t ByteValue(uint8_t b, bool is_signed) {
  return is_signed ? static_cast<int32_t>(static_cast<int8_t>(b)) : b;
}

uint8_t Saturate(float r, bool is_signed) {
  const float lo = is_signed ? -128.0f : 0.0f, hi = is_signed ? 127.0f : 255.0f;
  const float q = std::clamp(std::nearbyint(r), lo, hi);
  return static_cast<uint8_t>(static_cast<int32_t>(q));
}

Tensor Bytes(bool is_signed, std::vector<int64_t> dims, const std::vector<uint8_t>& v) {
  return MakeTensor<uint8_t>(is_signed ? ElementType::kInt8 : ElementType::kUint8, dims, v);
}
Tensor Byte(bool is_signed, int32_t v) { return Bytes(is_signed, {}, {static_cast<uint8_t>(v)}); }
Tensor Scalar(float v) { return Floats({}, {v}); }

// Row-major index of `dims`-shaped operand broadcast to `out` at output element e.
int64_t BroadcastIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& out,
                       int64_t e) {
  int64_t index = 0, stride = 1;
  for (size_t k = out.size(); k-- > 0;) {
    const int64_t i = e % out[k];
    e /= out[k];
    const size_t r = out.size() - k;
    if (r <= dims.size()) {
      const int64_t d = dims[dims.size() - r];
      if (d != 1) index += i * stride;
      stride *= d;
    }
  }
  return index;
}

// ---------------------------------------------------------------------------------------------
// QLinearAdd, QLinearMul
// ---------------------------------------------------------------------------------------------

struct BinaryCase {
  std::vector<int64_t> a, b, out;
  // What ONNX Runtime's looper makes of A or B within a run: one value (its part folded into the
  // constant first), else both advance.
  bool a_one, b_one;
};

// ONNX Runtime's QLinearAdd (MLAS AVX2): fixed = zc - fma(ra, za, rb * zb); with B one value
// over a run and both advancing r = fma(a, ra, fma(b, rb, fixed)); with A one value
// r = fma(b, rb, fma(a, ra, fixed)).
uint8_t AddReference(int32_t a, int32_t b, float sa, int32_t za, float sb, int32_t zb, float sc,
                     int32_t zc, bool a_one, bool is_signed) {
  const float ra = sa / sc, rb = sb / sc;
  const float fixed =
      static_cast<float>(zc) - std::fma(ra, static_cast<float>(za), rb * static_cast<float>(zb));
  const float r =
      a_one ? std::fma(static_cast<float>(b), rb, std::fma(static_cast<float>(a), ra, fixed))
            : std::fma(static_cast<float>(a), ra, std::fma(static_cast<float>(b), rb, fixed));
  return Saturate(r, is_signed);
}

// ONNX Runtime's QLinearMul: float((a - za) * (b - zb)) * (sa * sb / sc) + zc, each rounded.
uint8_t MulReference(int32_t a, int32_t b, float sa, int32_t za, float sb, int32_t zb, float sc,
                     int32_t zc, bool is_signed) {
  const float ratio = sa * sb / sc;
  const float p = static_cast<float>((a - za) * (b - zb));
  const float scaled = p * ratio;
  return Saturate(scaled + static_cast<float>(zc), is_signed);
}

TEST(QLinearBinaryTest, MatchOnnxRuntimesArithmeticOverBroadcasts) {
  const BinaryCase cases[] = {
      {{2, 8, 9, 7}, {2, 8, 9, 7}, {2, 8, 9, 7}, false, false},
      {{2, 8, 9, 7}, {1, 8, 1, 1}, {2, 8, 9, 7}, false, true},  // per-channel B
      {{1}, {2, 8, 9, 7}, {2, 8, 9, 7}, true, false},           // scalar A
      {{2, 8, 9, 7}, {7}, {2, 8, 9, 7}, false, false},          // B repeats along rows
      {{2, 1, 9, 7}, {2, 8, 1, 1}, {2, 8, 9, 7}, false, true},  // both broadcast
      {{33}, {}, {33}, false, true},
  };
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> scale(0.002f, 0.1f);
  int seed = 0;
  for (const bool is_signed : {false, true}) {
    const char* type = is_signed ? "int8" : "uint8";
    for (const char* op : {"QLinearAdd", "QLinearMul"}) {
      for (const BinaryCase& c : cases) {
        SCOPED_TRACE(absl::StrCat(op, " ", type, " ", DimsText(c.a), " x ", DimsText(c.b)));
        const std::vector<uint8_t> a = RandomBytes(Count(c.a), ++seed);
        const std::vector<uint8_t> b = RandomBytes(Count(c.b), ++seed);
        const float sa = scale(rng), sb = scale(rng), sc = scale(rng);
        // Zero points at the type's edges and inside.
        const int32_t za = is_signed ? -128 : 255, zb = is_signed ? 3 : 0,
                      zc = is_signed ? 127 : 128;
        const std::string text =
            absl::StrCat(kHeader, "g (", type, DimsText(c.a), " a, float sa, ", type, " za, ", type,
                         DimsText(c.b), " b, float sb, ", type, " zb, float sc, ", type,
                         " zc) => (", type, DimsText(c.out), " y) {\n  y = com.microsoft.", op,
                         " (a, sa, za, b, sb, zb, sc, zc)\n}\n");
        absl::StatusOr<std::vector<Tensor>> y =
            RunText(text, {Bytes(is_signed, c.a, a), Scalar(sa), Byte(is_signed, za),
                           Bytes(is_signed, c.b, b), Scalar(sb), Byte(is_signed, zb), Scalar(sc),
                           Byte(is_signed, zc)});
        ASSERT_TRUE(y.ok()) << y.status();
        ASSERT_EQ(Dims((*y)[0]), c.out);
        const std::vector<uint8_t> got = Values<uint8_t>((*y)[0]);
        int wrong = 0;
        for (int64_t e = 0; e < Count(c.out); ++e) {
          const int32_t av = ByteValue(a[BroadcastIndex(c.a, c.out, e)], is_signed);
          const int32_t bv = ByteValue(b[BroadcastIndex(c.b, c.out, e)], is_signed);
          const uint8_t want =
              std::string(op) == "QLinearAdd"
                  ? AddReference(av, bv, sa, za, sb, zb, sc, zc, c.a_one, is_signed)
                  : MulReference(av, bv, sa, za, sb, zb, sc, zc, is_signed);
          if (got[e] != want && ++wrong <= 3) {
            ADD_FAILURE() << "element " << e << ": got " << int{got[e]} << ", want " << int{want};
          }
        }
        EXPECT_EQ(wrong, 0);
      }
    }
  }
}

// Inputs where a rounded product and sum gives 250 but ONNX Runtime 1.30 gives 249 (the first
// pair): its AVX2 kernel fuses the multiply-adds.
TEST(QLinearBinaryTest, AddNearATieGivesOnnxRuntimesByte) {
  const std::string text = absl::StrCat(
      kHeader,
      "g (uint8[5] a, float sa, uint8 za, uint8[5] b, float sb, uint8 zb, float sc, uint8 zc) => "
      "(uint8[5] y) {\n  y = com.microsoft.QLinearAdd (a, sa, za, b, sb, zb, sc, zc)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      text, {Bytes(false, {5}, {114, 0, 255, 17, 200}), Scalar(0.08861981332302094f),
             Byte(false, 76), Bytes(false, {5}, {76, 255, 0, 99, 3}), Scalar(0.010473877191543579f),
             Byte(false, 33), Scalar(0.08391055464744568f), Byte(false, 204)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{249, 151, 255, 150, 255}));
}

TEST(QLinearBinaryTest, PerChannelScalesAreRefusedAsOnnxRuntimeDoes) {
  const std::string text = absl::StrCat(
      kHeader,
      "g (uint8[2,3] a, float[3] sa, uint8 za, uint8[2,3] b, float sb, uint8 zb, float sc, "
      "uint8 zc) => (uint8[2,3] y) {\n"
      "  y = com.microsoft.QLinearAdd (a, sa, za, b, sb, zb, sc, zc)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(text, {Bytes(false, {2, 3}, RandomBytes(6, 1)), Floats({3}, {0.1f, 0.2f, 0.3f}),
                     Byte(false, 0), Bytes(false, {2, 3}, RandomBytes(6, 2)), Scalar(0.1f),
                     Byte(false, 0), Scalar(0.1f), Byte(false, 0)});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("A_scale float[3]"), std::string::npos) << y.status();
  EXPECT_NE(y.status().message().find("QLinearAdd"), std::string::npos) << y.status();
}

// ---------------------------------------------------------------------------------------------
// Table ops, Concat
// ---------------------------------------------------------------------------------------------

// ONNX Runtime's QuantizeLinear of one value: float division, round half to even, saturate.
uint8_t Quantize(float v, float scale, int32_t zero, bool is_signed) {
  return Saturate(v / scale + static_cast<float>(zero), is_signed);
}

// Every uint8 byte through QLinearSigmoid (x_scale 1/16, x_zero 128, y_scale 1/256, y_zero 0):
// ONNX Runtime 1.30's output, hex.
TEST(QLinearTableTest, SigmoidTableIsOnnxRuntimes) {
  const char kOrt[] =
      "0000000000000000000000000000000000000000000000000000000000010101010101010101010101010101"
      "01010202020202020202020303030303040404040505050606060707080808090a0a0b0b0c0d0e0f0f101112"
      "13151617181a1b1d1f20222426282a2c2f313436393c3f4245484b4f5256595d6164686c7074787c8084888c"
      "9094989c9fa3a7aaaeb1b5b8bbbec1c4c7cacccfd1d4d6d8dadcdee0e1e3e5e6e8e9eaebedeeeff0f1f1f2f3"
      "f4f5f5f6f6f7f8f8f8f9f9fafafafbfbfbfcfcfcfcfdfdfdfdfdfefefefefefefefefeffffffffffffffffff"
      "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
  std::vector<uint8_t> x(256), want(256);
  for (int i = 0; i < 256; ++i) {
    x[i] = static_cast<uint8_t>(i);
    want[i] = static_cast<uint8_t>(std::stoi(std::string(kOrt + 2 * i, 2), nullptr, 16));
  }
  const std::string text = absl::StrCat(
      kHeader,
      "g (uint8[1,256] x, float xs, uint8 xz, float ys, uint8 yz) => (uint8[1,256] y) {\n"
      "  y = com.microsoft.QLinearSigmoid (x, xs, xz, ys, yz)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(text, {Bytes(false, {1, 256}, x), Scalar(0.0625f), Byte(false, 128),
                     Scalar(1.0f / 256), Byte(false, 0)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), want);
}

TEST(QLinearTableTest, LeakyReluIsQuantizeOfLeakyReluOfDequantize) {
  for (const bool is_signed : {false, true}) {
    const char* type = is_signed ? "int8" : "uint8";
    std::vector<uint8_t> x(256);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<uint8_t>(i);
    const float xs = 0.05f, ys = 0.03f;
    const int32_t xz = is_signed ? -3 : 130, yz = is_signed ? 20 : 100;
    const std::string text =
        absl::StrCat(kHeader, "g (", type, "[256] x, float xs, ", type, " xz, float ys, ", type,
                     " yz) => (", type, "[256] y) {\n",
                     "  y = com.microsoft.QLinearLeakyRelu <alpha = 0.2> (x, xs, xz, ys, yz)\n}\n");
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(text, {Bytes(is_signed, {256}, x), Scalar(xs), Byte(is_signed, xz), Scalar(ys),
                       Byte(is_signed, yz)});
    ASSERT_TRUE(y.ok()) << y.status();
    const std::vector<uint8_t> got = Values<uint8_t>((*y)[0]);
    for (int i = 0; i < 256; ++i) {
      const float v = xs * static_cast<float>(ByteValue(x[i], is_signed) - xz);
      ASSERT_EQ(got[i], Quantize(v >= 0 ? v : 0.2f * v, ys, yz, is_signed)) << type << " " << i;
    }
  }
}

std::vector<uint8_t> FromHex(const std::string& hex) {
  std::vector<uint8_t> v(hex.size() / 2);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return v;
}

// QLinearSoftmax: rows along the last axis (opset 13), a flattened 2-D split (opset 12, int8 with
// y_zero -128) and a middle axis; inputs byte i = (37 i + 11) mod 256, outputs ONNX Runtime 1.30
// produced (hex).
TEST(QLinearTableTest, SoftmaxIsOnnxRuntimes) {
  struct Case {
    bool is_signed;
    std::vector<int64_t> dims;
    std::string attrs;
    float xs, ys;
    int32_t xz, yz;
    std::string want;
  };
  const Case cases[] = {
      {false,
       {2, 3, 20},
       "opset = 13, axis = -1",
       0.1f,
       1.0f / 256,
       100,
       0,
       "000000000003680000000000038d0000000000053c000000000002510000000000036e0000000000013c0000"
       "00000002510000000000036d00000000013c000000000002510000000000036d0000000000013c0000000000"
       "02510000000000036d0000000000013c000000000002510000000000036d0000"},
      {true,
       {2, 4, 5},
       "opset = 12, axis = 1",
       0.05f,
       1.0f / 256,
       0,
       -128,
       "80828edb808080808391ea80808080839380808080828abd80808080828bc780808080828dd38080"},
      {false,
       {2, 5, 3},
       "opset = 13, axis = 1",
       0.2f,
       1.0f / 255,
       0,
       0,
       "0000000000fefe000000000000fe0000000000fefe000000000000fe0000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    const char* type = c.is_signed ? "int8" : "uint8";
    std::vector<uint8_t> x(static_cast<size_t>(Count(c.dims)));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
    const std::string text = absl::StrCat(
        kHeader, "g (", type, DimsText(c.dims), " x, float xs, ", type, " xz, float ys, ", type,
        " yz) => (", type, DimsText(c.dims), " y) {\n  y = com.microsoft.QLinearSoftmax <", c.attrs,
        "> (x, xs, xz, ys, yz)\n}\n");
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(text, {Bytes(c.is_signed, c.dims, x), Scalar(c.xs), Byte(c.is_signed, c.xz),
                       Scalar(c.ys), Byte(c.is_signed, c.yz)});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(Values<uint8_t>((*y)[0]), FromHex(c.want));
  }
}

// QLinearWhere over a broadcast condition [2, 1, 4], X [1, 3, 4] (requantized to Z's parameters)
// and Y [4] (Z's parameters: copied): ONNX Runtime 1.30's output.
TEST(QLinearWhereTest, SelectsAndRequantizesAsOnnxRuntime) {
  std::vector<uint8_t> c(8), x(12);
  for (size_t i = 0; i < c.size(); ++i) c[i] = (i * 5) % 3 == 0;
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
  const std::string text = absl::StrCat(
      kHeader,
      "g (bool[2,1,4] c, uint8[1,3,4] x, float xs, uint8 xz, uint8[4] y, float ys, uint8 yz, "
      "float zs, uint8 zz) => (uint8[2,3,4] z) {\n"
      "  z = com.microsoft.QLinearWhere (c, x, xs, xz, y, ys, yz, zs, zz)\n}\n");
  absl::StatusOr<std::vector<Tensor>> z = RunText(
      text, {MakeTensor<uint8_t>(ElementType::kBool, {2, 1, 4}, c), Bytes(false, {1, 3, 4}, x),
             Scalar(0.05f), Byte(false, 120), Bytes(false, {4}, {200, 3, 77, 128}), Scalar(0.03f),
             Byte(false, 10), Scalar(0.03f), Byte(false, 10)});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(Values<uint8_t>((*z)[0]),
            (std::vector<uint8_t>{0,   3, 77, 13,  75,  3, 77,  0,   0,   3, 77, 80,
                                  200, 3, 0,  128, 200, 3, 198, 128, 200, 3, 18, 128}));
}

// The input whose parameters equal Y's is copied; the others requantized per byte.
TEST(QLinearConcatTest, RequantizesEachInputToYsParameters) {
  const std::vector<uint8_t> a = RandomBytes(2 * 3 * 4, 1), b = RandomBytes(2 * 2 * 4, 2);
  const std::string text = absl::StrCat(
      kHeader,
      "g (float ys, uint8 yz, uint8[2,3,4] a, float as, uint8 az, uint8[2,2,4] b, float bs, "
      "uint8 bz) => (uint8[2,5,4] y) {\n"
      "  y = com.microsoft.QLinearConcat <axis = -2> (ys, yz, a, as, az, b, bs, bz)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      text, {Scalar(0.05f), Byte(false, 120), Bytes(false, {2, 3, 4}, a), Scalar(0.02f),
             Byte(false, 255), Bytes(false, {2, 2, 4}, b), Scalar(0.05f), Byte(false, 120)});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<uint8_t> got = Values<uint8_t>((*y)[0]);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t r = 0; r < 5; ++r) {
      for (int64_t c = 0; c < 4; ++c) {
        const uint8_t want =
            r < 3 ? Quantize(0.02f * static_cast<float>(a[(n * 3 + r) * 4 + c] - 255), 0.05f, 120,
                             false)
                  : b[(n * 2 + r - 3) * 4 + c];
        ASSERT_EQ(got[(n * 5 + r) * 4 + c], want) << n << " " << r << " " << c;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Pools
// ---------------------------------------------------------------------------------------------

// MLAS's global average: an exact int32 sum less x_zero per element, times
// x_scale / (y_scale * image), rounded half to even, plus y_zero.
TEST(QLinearPoolTest, GlobalAverageIsTheIntegerSumRequantized) {
  for (const bool channels_last : {false, true}) {
    for (const bool is_signed : {false, true}) {
      const char* type = is_signed ? "int8" : "uint8";
      const std::vector<int64_t> x_dims = {2, 5, 7, 3};
      const std::vector<uint8_t> x = RandomBytes(Count(x_dims), 9);
      const int64_t c = channels_last ? 3 : 5, image = channels_last ? 35 : 21;
      const std::vector<int64_t> y_dims =
          channels_last ? std::vector<int64_t>{2, 1, 1, 3} : std::vector<int64_t>{2, 5, 1, 1};
      const float xs = 0.03f, ys = 0.011f;
      const int32_t xz = is_signed ? 5 : 77, yz = is_signed ? -100 : 3;
      const std::string text = absl::StrCat(
          kHeader, "g (", type, "[2,5,7,3] x, float xs, ", type, " xz, float ys, ", type,
          " yz) => (", type, DimsText(y_dims), " y) {\n",
          "  y = com.microsoft.QLinearGlobalAveragePool <channels_last = ", channels_last ? 1 : 0,
          "> (x, xs, xz, ys, yz)\n}\n");
      absl::StatusOr<std::vector<Tensor>> y =
          RunText(text, {Bytes(is_signed, x_dims, x), Scalar(xs), Byte(is_signed, xz), Scalar(ys),
                         Byte(is_signed, yz)});
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(Dims((*y)[0]), y_dims);
      const std::vector<uint8_t> got = Values<uint8_t>((*y)[0]);
      const float multiplier = xs / (ys * static_cast<float>(image));
      for (int64_t n = 0; n < 2; ++n) {
        for (int64_t ch = 0; ch < c; ++ch) {
          int32_t acc = -xz * static_cast<int32_t>(image);
          for (int64_t p = 0; p < image; ++p) {
            const int64_t at = channels_last ? (n * image + p) * c + ch : (n * c + ch) * image + p;
            acc += ByteValue(x[at], is_signed);
          }
          const uint8_t want = Saturate(
              std::nearbyint(static_cast<float>(acc) * multiplier) + static_cast<float>(yz),
              is_signed);
          ASSERT_EQ(got[n * c + ch], want)
              << channels_last << " " << is_signed << " " << n << " " << ch;
        }
      }
    }
  }
}

// The float average of dequantized values in window order, divided by the window's count (with
// count_include_pad the whole kernel), then avg / y_scale + y_zero rounded.
TEST(QLinearPoolTest, AverageOfAWindowMatchesTheFloatFormula) {
  for (const int include_pad : {0, 1}) {
    const std::vector<uint8_t> x = RandomBytes(1 * 2 * 6 * 5, 4);
    const float xs = 0.07f, ys = 0.05f;
    const int32_t xz = 90, yz = 11;
    const std::string text = absl::StrCat(
        kHeader, "g (uint8[1,2,6,5] x, float xs, uint8 xz, float ys, uint8 yz) => ",
        "(uint8[1,2,3,3] y) {\n  y = com.microsoft.QLinearAveragePool <kernel_shape = [3, 3], ",
        "pads = [1, 1, 1, 1], strides = [2, 2], count_include_pad = ", include_pad,
        "> (x, xs, xz, ys, yz)\n}\n");
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        text,
        {Bytes(false, {1, 2, 6, 5}, x), Scalar(xs), Byte(false, xz), Scalar(ys), Byte(false, yz)});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(Dims((*y)[0]), (std::vector<int64_t>{1, 2, 3, 3}));
    const std::vector<uint8_t> got = Values<uint8_t>((*y)[0]);
    for (int64_t ch = 0; ch < 2; ++ch) {
      for (int64_t oh = 0; oh < 3; ++oh) {
        for (int64_t ow = 0; ow < 3; ++ow) {
          float sum = 0.0f;
          int count = 0;
          for (int64_t h = oh * 2 - 1; h < oh * 2 + 2; ++h) {
            for (int64_t w = ow * 2 - 1; w < ow * 2 + 2; ++w) {
              if (h < 0 || h >= 6 || w < 0 || w >= 5) continue;
              sum += xs * static_cast<float>(x[(ch * 6 + h) * 5 + w] - xz);
              ++count;
            }
          }
          const float avg = sum / static_cast<float>(include_pad ? 9 : count);
          ASSERT_EQ(got[(ch * 3 + oh) * 3 + ow], Saturate(avg / ys + static_cast<float>(yz), false))
              << include_pad << " " << ch << " " << oh << " " << ow;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul
// ---------------------------------------------------------------------------------------------

// Exact int32 products (where ONNX Runtime's u8 x s8 path without VNNI may saturate), C added,
// then requantized by alpha * a_scale * b_scale[j] / y_scale; transB; per-column parameters.
TEST(QGemmTest, ExactProductsRequantizedPerColumn) {
  const int64_t M = 5, K = 37, N = 11;
  const std::vector<uint8_t> a = RandomBytes(M * K, 21), b = RandomBytes(N * K, 22);
  std::vector<float> b_scale(N);
  std::vector<uint8_t> b_zero(N, 0);
  std::vector<int32_t> c(N);
  for (int64_t j = 0; j < N; ++j) {
    b_scale[j] = 0.001f * static_cast<float>(j + 3);
    c[j] = static_cast<int32_t>(j * 997) - 4000;
  }
  const float a_scale = 0.02f, y_scale = 0.4f, alpha = 0.75f;
  const int32_t a_zero = 131, y_zero = 100;
  for (const bool quantized : {true, false}) {
    SCOPED_TRACE(quantized ? "uint8 y" : "float y");
    const std::string text = absl::StrCat(
        kHeader, "g (uint8[5,37] a, float as, uint8 az, int8[11,37] b, float[11] bs, int8[11] bz, ",
        "int32[11] c", quantized ? ", float ys, uint8 yz" : "", ") => (",
        quantized ? "uint8" : "float", "[5,11] y) {\n  y = com.microsoft.QGemm <transB = 1, ",
        "alpha = 0.75> (a, as, az, b, bs, bz, c", quantized ? ", ys, yz" : "", ")\n}\n");
    std::vector<Tensor> inputs = {Bytes(false, {M, K}, a),
                                  Scalar(a_scale),
                                  Byte(false, a_zero),
                                  Bytes(true, {N, K}, b),
                                  Floats({N}, b_scale),
                                  Bytes(true, {N}, b_zero),
                                  MakeTensor<int32_t>(ElementType::kInt32, {N}, c)};
    if (quantized) {
      inputs.push_back(Scalar(y_scale));
      inputs.push_back(Byte(false, y_zero));
    }
    absl::StatusOr<std::vector<Tensor>> y = RunText(text, inputs);
    ASSERT_TRUE(y.ok()) << y.status();
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        int32_t acc = c[j];
        for (int64_t t = 0; t < K; ++t) {
          acc += (a[i * K + t] - a_zero) * ByteValue(b[j * K + t], true);
        }
        float s = alpha * a_scale * b_scale[j];
        if (quantized) {
          s = s / y_scale;
          const uint8_t want = Saturate(
              std::nearbyint(static_cast<float>(acc) * s) + static_cast<float>(y_zero), false);
          ASSERT_EQ(Values<uint8_t>((*y)[0])[i * N + j], want) << i << " " << j;
        } else {
          ASSERT_EQ(Values<float>((*y)[0])[i * N + j], static_cast<float>(acc) * s)
              << i << " " << j;
        }
      }
    }
  }
}

// transA = 1 reads A stored [K, M]: the same results as transA = 0 on A itself, int8 with
// per-tensor B.
TEST(QGemmTest, TransposedAGivesTheSameProducts) {
  const int64_t M = 3, K = 9, N = 4;
  const std::vector<uint8_t> a = RandomBytes(M * K, 41), b = RandomBytes(K * N, 42);
  std::vector<uint8_t> a_t(a.size());
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t t = 0; t < K; ++t) a_t[t * M + i] = a[i * K + t];
  }
  auto run = [&](bool trans_a) {
    const std::string text = absl::StrCat(
        kHeader, "g (int8", trans_a ? "[9,3]" : "[3,9]",
        " a, float as, int8 az, int8[9,4] b, float bs, int8 bz) => (float[3,4] y) {\n",
        "  y = com.microsoft.QGemm <transA = ", trans_a ? 1 : 0, "> (a, as, az, b, bs, bz)\n}\n");
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        text, {Bytes(true, trans_a ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K},
                     trans_a ? a_t : a),
               Scalar(0.5f), Byte(true, -7), Bytes(true, {K, N}, b), Scalar(0.25f), Byte(true, 3)});
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? Values<float>((*y)[0]) : std::vector<float>();
  };
  const std::vector<float> plain = run(false);
  ASSERT_EQ(plain.size(), static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      int32_t acc = 0;
      for (int64_t t = 0; t < K; ++t) {
        acc += (ByteValue(a[i * K + t], true) + 7) * (ByteValue(b[t * N + j], true) - 3);
      }
      ASSERT_EQ(plain[i * N + j], static_cast<float>(acc) * (0.5f * 0.25f)) << i << " " << j;
    }
  }
  EXPECT_EQ(run(true), plain);
}

// y = float(acc) * (a_scale * b_scale[j]) + bias[j]; DynamicQuantizeMatMul quantizes A as
// DynamicQuantizeLinear does first.
TEST(IntegerToFloatTest, MatMulIntegerToFloatAndDynamicQuantizeMatMul) {
  const int64_t M = 6, K = 19, N = 7;
  const std::vector<uint8_t> b = RandomBytes(K * N, 31);
  std::vector<float> b_scale(N), bias(N), af(M * K);
  for (int64_t j = 0; j < N; ++j) {
    b_scale[j] = 0.003f * static_cast<float>(j + 1);
    bias[j] = 0.25f * static_cast<float>(j) - 1.0f;
  }
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  for (float& v : af) v = normal(rng);
  // The dynamic quantization of A.
  float lo = 0.0f, hi = 0.0f;
  for (float v : af) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float a_scale = (hi - lo) / 255.0f;
  const int32_t a_zero =
      static_cast<int32_t>(std::nearbyint(std::clamp(0.0f - lo / a_scale, 0.0f, 255.0f)));
  std::vector<uint8_t> aq(M * K);
  for (int64_t e = 0; e < M * K; ++e) aq[e] = Quantize(af[e], a_scale, a_zero, false);

  const std::string to_float = absl::StrCat(
      kHeader, "g (uint8[2,3,19] a, int8[19,7] b, float as, float[7] bs, uint8 az, float[7] bias) ",
      "=> (float[2,3,7] y) {\n",
      "  y = com.microsoft.MatMulIntegerToFloat (a, b, as, bs, az, , bias)\n}\n");
  const std::string dynamic = absl::StrCat(
      kHeader, "g (float[2,3,19] a, int8[19,7] b, float[7] bs, float[7] bias) => ",
      "(float[2,3,7] y) {\n  y = com.microsoft.DynamicQuantizeMatMul (a, b, bs, , bias)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y1 =
      RunText(to_float, {Bytes(false, {2, 3, K}, aq), Bytes(true, {K, N}, b), Scalar(a_scale),
                         Floats({N}, b_scale), Byte(false, a_zero), Tensor(), Floats({N}, bias)});
  ASSERT_TRUE(y1.ok()) << y1.status();
  absl::StatusOr<std::vector<Tensor>> y2 =
      RunText(dynamic, {Floats({2, 3, K}, af), Bytes(true, {K, N}, b), Floats({N}, b_scale),
                        Tensor(), Floats({N}, bias)});
  ASSERT_TRUE(y2.ok()) << y2.status();
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      int32_t acc = 0;
      for (int64_t t = 0; t < K; ++t) {
        acc += (aq[i * K + t] - a_zero) * ByteValue(b[t * N + j], true);
      }
      const float scaled = static_cast<float>(acc) * (a_scale * b_scale[j]);
      const float want = scaled + bias[j];
      ASSERT_EQ(Values<float>((*y1)[0])[i * N + j], want) << i << " " << j;
      ASSERT_EQ(Values<float>((*y2)[0])[i * N + j], want) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace anvil
