// Tests of the element-wise kernel family: semantics one case at a time (nodes written in ONNX
// text, run with RunNode), strided and broadcast operands through a hand-made KernelContext, and
// the Highway routines on every compiled target against libm. The ONNX backend node tests of the
// family are in elementwise_backend_test.cc.
#include "kernels/simd/elementwise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "exec/testing/kernel_test_util.h"
#include "gmock/gmock.h"
#include "graph/ir.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

using kernel_testing::Floats;
using kernel_testing::MakeTensor;
using kernel_testing::RunText;
using kernel_testing::Values;

// bool tensors as 0/1 ints, for readable expectations.
std::vector<int> Bools(const Tensor& t) {
  std::vector<int> v;
  for (uint8_t b : Values<uint8_t>(t)) v.push_back(b);
  return v;
}

// `<ir_version, opset_import> g SIGNATURE { BODY }`: a one-node model. Runtime shapes come from
// the inputs, so the signature's dims only document the case.
std::string OneNode(const std::string& signature, const std::string& body, int opset = 17) {
  return absl::StrCat("<ir_version: 8, opset_import: [\"\" : ", opset, "]> g ", signature, " { ",
                      body, " }");
}

// Output 0 of Run; fails the test on an error.
Tensor RunOne(const std::string& text, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = RunText(text, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

// Output 0 of the first node of `text` run on hand-made (possibly strided) input views.
absl::StatusOr<Tensor> RunViews(const std::string& text, const std::vector<TensorView>& inputs,
                                ElementType out_type, std::vector<int64_t> out_dims) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                         kernel_testing::RunViews(text, inputs, {std::move(out_dims)}, out_type));
  return out[0];
}

// ---------------------------------------------------------------------------------------------
// Arithmetic and broadcasting
// ---------------------------------------------------------------------------------------------

TEST(ElementwiseTest, AddBroadcastsRowVector) {
  Tensor c = RunOne(OneNode("(float[2,3] a, float[3] b) => (float[2,3] c)", "c = Add(a, b)"),
                    {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({3}, {10, 20, 30})});
  EXPECT_THAT(c.dims(), ElementsAre(2, 3));
  EXPECT_THAT(Values<float>(c), ElementsAre(11, 22, 33, 14, 25, 36));
}

TEST(ElementwiseTest, BinaryFloatShapesCoverEverySimdCase) {
  // Long rows (SIMD main loop plus tail) against a vector, a scalar on either side, a column,
  // and a [1,C,1,1] channel vector.
  const int64_t n = 37;
  std::vector<float> a(2 * n), col = {3, -2}, row(n);
  for (int64_t i = 0; i < 2 * n; ++i) a[i] = static_cast<float>(i) - 20.5f;
  for (int64_t i = 0; i < n; ++i) row[i] = static_cast<float>(i % 7) + 1;
  const std::string sig = "(float[2,37] a, float[37] b) => (float[2,37] c)";
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
    auto ref = [&](float x, float y) -> float {
      const std::string o = op;
      if (o == "Add") return x + y;
      if (o == "Sub") return x - y;
      if (o == "Mul") return x * y;
      if (o == "Div") return x / y;
      if (o == "Max") return std::max(x, y);
      return std::min(x, y);
    };
    const std::string body = absl::StrCat("c = ", op, "(a, b)");
    Tensor vv = RunOne(OneNode(sig, body), {Floats({2, n}, a), Floats({2, n}, a)});
    Tensor vr = RunOne(OneNode(sig, body), {Floats({2, n}, a), Floats({n}, row)});
    Tensor vs = RunOne(OneNode(sig, body), {Floats({2, n}, a), Floats({}, {2.5f})});
    Tensor sv = RunOne(OneNode(sig, body), {Floats({1}, {2.5f}), Floats({2, n}, a)});
    Tensor vc = RunOne(OneNode(sig, body), {Floats({2, n}, a), Floats({2, 1}, col)});
    for (int64_t i = 0; i < 2 * n; ++i) {
      EXPECT_FLOAT_EQ(Values<float>(vv)[i], ref(a[i], a[i])) << op << " " << i;
      EXPECT_FLOAT_EQ(Values<float>(vr)[i], ref(a[i], row[i % n])) << op << " " << i;
      EXPECT_FLOAT_EQ(Values<float>(vs)[i], ref(a[i], 2.5f)) << op << " " << i;
      EXPECT_FLOAT_EQ(Values<float>(sv)[i], ref(2.5f, a[i])) << op << " " << i;
      EXPECT_FLOAT_EQ(Values<float>(vc)[i], ref(a[i], col[i / n])) << op << " " << i;
    }
  }
}

TEST(ElementwiseTest, ChannelBroadcast) {
  std::vector<float> x(2 * 3 * 2 * 2);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  Tensor c =
      RunOne(OneNode("(float[2,3,2,2] a, float[1,3,1,1] b) => (float[2,3,2,2] c)", "c = Mul(a, b)"),
             {Floats({2, 3, 2, 2}, x), Floats({1, 3, 1, 1}, {1, 10, 100})});
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] * std::pow(10.0f, (i / 4) % 3);
  EXPECT_THAT(Values<float>(c), ElementsAreArray(want));
}

TEST(ElementwiseTest, OuterProductBroadcast) {
  Tensor c = RunOne(OneNode("(int32[3,1] a, int32[4] b) => (int32[3,4] c)", "c = Sub(a, b)"),
                    {MakeTensor<int32_t>(ElementType::kInt32, {3, 1}, {10, 20, 30}),
                     MakeTensor<int32_t>(ElementType::kInt32, {4}, {1, 2, 3, 4})});
  EXPECT_THAT(Values<int32_t>(c), ElementsAre(9, 8, 7, 6, 19, 18, 17, 16, 29, 28, 27, 26));
}

TEST(ElementwiseTest, StridedInputs) {
  // a is a transposed [3,2] view of dense [2,3] data; b a broadcast column via stride 0.
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  TensorView a = TensorView::Dense(ElementType::kFloat, data.data(), {2, 3});
  std::swap(a.dims[0], a.dims[1]);
  std::swap(a.strides[0], a.strides[1]);
  float b_value = 100;
  TensorView b = TensorView::Dense(ElementType::kFloat, &b_value, {1});
  b = b.BroadcastTo({3, 2});
  for (const char* op : {"Add", "Max"}) {
    absl::StatusOr<Tensor> c = RunViews(OneNode("(float[3,2] a, float[3,2] b) => (float[3,2] c)",
                                                absl::StrCat("c = ", op, "(a, b)")),
                                        {a, b}, ElementType::kFloat, {3, 2});
    ASSERT_TRUE(c.ok()) << c.status();
    if (std::string(op) == "Add") {
      EXPECT_THAT(Values<float>(*c), ElementsAre(101, 104, 102, 105, 103, 106));
    } else {
      EXPECT_THAT(Values<float>(*c), ElementsAre(100, 100, 100, 100, 100, 100));
    }
  }
  absl::StatusOr<Tensor> e = RunViews(OneNode("(float[3,2] a) => (float[3,2] c)", "c = Exp(a)"),
                                      {a}, ElementType::kFloat, {3, 2});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_FLOAT_EQ(Values<float>(*e)[1], std::exp(4.0f));
}

TEST(ElementwiseTest, IntegerArithmeticWrapsAndTruncates) {
  const std::string sig = "(int32[4] a, int32[4] b) => (int32[4] c)";
  Tensor a = MakeTensor<int32_t>(ElementType::kInt32, {4}, {7, -7, INT32_MIN, INT32_MAX});
  Tensor b = MakeTensor<int32_t>(ElementType::kInt32, {4}, {2, 2, -1, 2});
  EXPECT_THAT(Values<int32_t>(RunOne(OneNode(sig, "c = Div(a, b)"), {a, b})),
              ElementsAre(3, -3, INT32_MIN, INT32_MAX / 2));
  EXPECT_THAT(Values<int32_t>(RunOne(OneNode(sig, "c = Add(a, b)"), {a, b})),
              ElementsAre(9, -5, INT32_MAX, INT32_MIN + 1));
  EXPECT_THAT(Values<int32_t>(RunOne(OneNode(sig, "c = Mul(a, b)"), {a, b})),
              ElementsAre(14, -14, INT32_MIN, -2));
  absl::StatusOr<std::vector<Tensor>> zero =
      RunText(OneNode(sig, "c = Div(a, b)"),
              {a, MakeTensor<int32_t>(ElementType::kInt32, {4}, {1, 0, 1, 1})});
  EXPECT_THAT(zero.status().message(), HasSubstr("division by zero"));
  // uint16 products that overflow int after promotion.
  Tensor u = MakeTensor<uint16_t>(ElementType::kUint16, {1}, {65535});
  EXPECT_THAT(Values<uint16_t>(RunOne(
                  OneNode("(uint16[1] a, uint16[1] b) => (uint16[1] c)", "c = Mul(a, b)"), {u, u})),
              ElementsAre(1));
}

TEST(ElementwiseTest, ModSignFollowsDivisorUnlessFmod) {
  Tensor a = MakeTensor<int64_t>(ElementType::kInt64, {4}, {-4, 7, 5, -5});
  Tensor b = MakeTensor<int64_t>(ElementType::kInt64, {4}, {3, -3, 3, -3});
  const std::string sig = "(int64[4] a, int64[4] b) => (int64[4] c)";
  EXPECT_THAT(Values<int64_t>(RunOne(OneNode(sig, "c = Mod(a, b)"), {a, b})),
              ElementsAre(2, -2, 2, -2));
  EXPECT_THAT(Values<int64_t>(RunOne(OneNode(sig, "c = Mod <fmod = 1> (a, b)"), {a, b})),
              ElementsAre(-1, 1, 2, -2));
  Tensor fa = Floats({2}, {-4.5f, 7.5f}), fb = Floats({2}, {2.0f, -2.0f});
  const std::string fsig = "(float[2] a, float[2] b) => (float[2] c)";
  EXPECT_THAT(Values<float>(RunOne(OneNode(fsig, "c = Mod <fmod = 1> (a, b)"), {fa, fb})),
              ElementsAre(-0.5f, 1.5f));
  EXPECT_THAT(Values<float>(RunOne(OneNode(fsig, "c = Mod(a, b)"), {fa, fb})),
              ElementsAre(1.5f, -0.5f));
}

TEST(ElementwiseTest, PowIntegerAndUnsignedExponents) {
  Tensor base = MakeTensor<int64_t>(ElementType::kInt64, {5}, {2, -3, 1, -1, 5});
  Tensor exp_i = MakeTensor<int8_t>(ElementType::kInt8, {5}, {10, 3, -4, -3, -1});
  EXPECT_THAT(
      Values<int64_t>(RunOne(OneNode("(int64[5] a, int8[5] b) => (int64[5] c)", "c = Pow(a, b)"),
                             {base, exp_i})),
      ElementsAre(1024, -27, 1, -1, 0));
  Tensor exp_u = MakeTensor<uint64_t>(ElementType::kUint64, {5}, {62, 2, 100, 7, 0});
  EXPECT_THAT(
      Values<int64_t>(RunOne(OneNode("(int64[5] a, uint64[5] b) => (int64[5] c)", "c = Pow(a, b)"),
                             {base, exp_u})),
      ElementsAre(int64_t{1} << 62, 9, 1, -1, 1));
  Tensor f = RunOne(
      OneNode("(float[3] a, uint16[3] b) => (float[3] c)", "c = Pow(a, b)"),
      {Floats({3}, {2, -1.5f, 10}), MakeTensor<uint16_t>(ElementType::kUint16, {3}, {3, 2, 0})});
  EXPECT_THAT(Values<float>(f), ElementsAre(8, 2.25f, 1));
  Tensor sq = RunOne(OneNode("(float[3] a, float b) => (float[3] c)", "c = Pow(a, b)"),
                     {Floats({3}, {-3, 0.5f, 4}), Floats({}, {2})});
  EXPECT_THAT(Values<float>(sq), ElementsAre(9, 0.25f, 16));
  Tensor ib =
      RunOne(OneNode("(int32[2] a, float[2] b) => (int32[2] c)", "c = Pow(a, b)"),
             {MakeTensor<int32_t>(ElementType::kInt32, {2}, {4, 10}), Floats({2}, {0.5f, 1.5f})});
  EXPECT_THAT(Values<int32_t>(ib), ElementsAre(2, 31));
}

TEST(ElementwiseTest, BitShift) {
  Tensor x = MakeTensor<uint8_t>(ElementType::kUint8, {4}, {1, 0x81, 255, 16});
  Tensor s = MakeTensor<uint8_t>(ElementType::kUint8, {4}, {1, 1, 8, 2});
  const std::string sig = "(uint8[4] x, uint8[4] s) => (uint8[4] y)";
  EXPECT_THAT(
      Values<uint8_t>(RunOne(OneNode(sig, "y = BitShift <direction = \"LEFT\"> (x, s)"), {x, s})),
      ElementsAre(2, 2, 0, 64));
  EXPECT_THAT(
      Values<uint8_t>(RunOne(OneNode(sig, "y = BitShift <direction = \"RIGHT\"> (x, s)"), {x, s})),
      ElementsAre(0, 0x40, 0, 4));
  EXPECT_FALSE(RunText(OneNode(sig, "y = BitShift <direction = \"UP\"> (x, s)"), {x, s}).ok());
}

TEST(ElementwiseTest, LegacyBroadcastWithAxis) {
  // Opset 6: B of shape [3] matches A's axis 1 of [2,3,2].
  std::vector<float> a(12, 1.0f);
  Tensor c = RunOne(OneNode("(float[2,3,2] a, float[3] b) => (float[2,3,2] c)",
                            "c = Add <broadcast = 1, axis = 1> (a, b)", 6),
                    {Floats({2, 3, 2}, a), Floats({3}, {10, 20, 30})});
  EXPECT_THAT(Values<float>(c), ElementsAre(11, 11, 21, 21, 31, 31, 11, 11, 21, 21, 31, 31));
  Tensor d = RunOne(
      OneNode("(float[2,3] a, float[3] b) => (float[2,3] c)", "c = Sub <broadcast = 1> (a, b)", 6),
      {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({3}, {1, 1, 1})});
  EXPECT_THAT(Values<float>(d), ElementsAre(0, 1, 2, 3, 4, 5));
}

TEST(ElementwiseTest, VariadicFoldsWithBroadcastAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor a = Floats({2, 1}, {1, nan});
  Tensor b = Floats({3}, {0, 5, -1});
  Tensor c = Floats({1}, {2});
  const std::string sig = "(float[2,1] a, float[3] b, float[1] c) => (float[2,3] y)";
  Tensor mx = RunOne(OneNode(sig, "y = Max(a, b, c)"), {a, b, c});
  std::vector<float> v = Values<float>(mx);
  EXPECT_THAT(std::vector<float>(v.begin(), v.begin() + 3), ElementsAre(2, 5, 2));
  EXPECT_TRUE(std::isnan(v[3]) && std::isnan(v[4]) && std::isnan(v[5]));
  Tensor mean = RunOne(OneNode(sig, "y = Mean(a, b, c)"), {Floats({2, 1}, {1, 4}), b, c});
  EXPECT_THAT(Values<float>(mean), ElementsAre(1, 8.0f / 3, 2.0f / 3, 2, 11.0f / 3, 5.0f / 3));
  Tensor sum = RunOne(OneNode("(int16[2] a) => (int16[2] y)", "y = Sum(a)"),
                      {MakeTensor<int16_t>(ElementType::kInt16, {2}, {3, -4})});
  EXPECT_THAT(Values<int16_t>(sum), ElementsAre(3, -4));
  Tensor mn = RunOne(OneNode("(int16[2] a, int16[2] b) => (int16[2] y)", "y = Min(a, b)"),
                     {MakeTensor<int16_t>(ElementType::kInt16, {2}, {3, -4}),
                      MakeTensor<int16_t>(ElementType::kInt16, {2}, {-7, 9})});
  EXPECT_THAT(Values<int16_t>(mn), ElementsAre(-7, -4));
}

TEST(ElementwiseTest, ComparisonsLogicAndWhere) {
  const std::string sig = "(float[4] a, float[4] b) => (bool[4] c)";
  Tensor a = Floats({4}, {1, 2, std::numeric_limits<float>::quiet_NaN(), 4});
  Tensor b = Floats({4}, {2, 2, 2, 3});
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "c = Less(a, b)"), {a, b})), ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "c = GreaterOrEqual(a, b)"), {a, b})),
              ElementsAre(0, 1, 0, 1));
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "c = Equal(a, b)"), {a, b})), ElementsAre(0, 1, 0, 0));
  Tensor p = MakeTensor<uint8_t>(ElementType::kBool, {4}, {1, 1, 0, 0});
  Tensor q = MakeTensor<uint8_t>(ElementType::kBool, {4}, {1, 0, 1, 0});
  const std::string bsig = "(bool[4] p, bool[4] q) => (bool[4] r)";
  EXPECT_THAT(Bools(RunOne(OneNode(bsig, "r = And(p, q)"), {p, q})), ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(Bools(RunOne(OneNode(bsig, "r = Or(p, q)"), {p, q})), ElementsAre(1, 1, 1, 0));
  EXPECT_THAT(Bools(RunOne(OneNode(bsig, "r = Xor(p, q)"), {p, q})), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(Bools(RunOne(OneNode("(bool[4] p) => (bool[4] r)", "r = Not(p)"), {p})),
              ElementsAre(0, 0, 1, 1));
  Tensor w =
      RunOne(OneNode("(bool[2,1] c, int64[2] x, int64 y) => (int64[2,2] z)", "z = Where(c, x, y)"),
             {MakeTensor<uint8_t>(ElementType::kBool, {2, 1}, {1, 0}),
              MakeTensor<int64_t>(ElementType::kInt64, {2}, {1, 2}),
              MakeTensor<int64_t>(ElementType::kInt64, {}, {-9})});
  EXPECT_THAT(Values<int64_t>(w), ElementsAre(1, 2, -9, -9));
}

// ---------------------------------------------------------------------------------------------
// Unary math, activations
// ---------------------------------------------------------------------------------------------

TEST(ElementwiseTest, RoundHalfToEvenAndSign) {
  Tensor r = RunOne(OneNode("(float[6] x) => (float[6] y)", "y = Round(x)"),
                    {Floats({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f})});
  EXPECT_THAT(Values<float>(r), ElementsAre(0, 2, 2, -0.0f, -2, 3));
  Tensor s = RunOne(OneNode("(int8[3] x) => (int8[3] y)", "y = Sign(x)"),
                    {MakeTensor<int8_t>(ElementType::kInt8, {3}, {-5, 0, 7})});
  EXPECT_THAT(Values<int8_t>(s), ElementsAre(-1, 0, 1));
  Tensor a = RunOne(OneNode("(int8[2] x) => (int8[2] y)", "y = Abs(x)"),
                    {MakeTensor<int8_t>(ElementType::kInt8, {2}, {-128, -3})});
  EXPECT_THAT(Values<int8_t>(a), ElementsAre(-128, 3));
}

TEST(ElementwiseTest, FloatUnaryMatchesLibm) {
  std::vector<float> x;
  for (int i = -400; i <= 400; ++i) x.push_back(static_cast<float>(i) * 0.0625f);
  const int64_t n = static_cast<int64_t>(x.size());
  struct Case {
    const char* op;
    double (*ref)(double);
    double lo;  // smallest valid input
  };
  const Case cases[] = {
      {"Exp", [](double v) { return std::exp(v); }, -1e9},
      {"Log", [](double v) { return std::log(v); }, 1e-9},
      {"Sqrt", [](double v) { return std::sqrt(v); }, 0},
      {"Tanh", [](double v) { return std::tanh(v); }, -1e9},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }, -1e9},
      {"Erf", [](double v) { return std::erf(v); }, -1e9},
      {"Relu", [](double v) { return std::max(v, 0.0); }, -1e9},
      {"Neg", [](double v) { return -v; }, -1e9},
      {"Abs", [](double v) { return std::abs(v); }, -1e9},
      {"Softplus", [](double v) { return std::log1p(std::exp(v)); }, -1e9},
      {"Softsign", [](double v) { return v / (1 + std::abs(v)); }, -1e9},
      {"Elu", [](double v) { return v < 0 ? std::expm1(v) : v; }, -1e9},
      {"Celu", [](double v) { return v < 0 ? std::expm1(v) : v; }, -1e9},
      {"Selu",
       [](double v) {
         return 1.0507010221481323 * (v < 0 ? 1.6732631921768188 * std::expm1(v) : v);
       },
       -1e9},
      {"HardSigmoid", [](double v) { return std::clamp(0.2 * v + 0.5, 0.0, 1.0); }, -1e9},
      {"HardSwish", [](double v) { return v * std::clamp(v / 6 + 0.5, 0.0, 1.0); }, -1e9},
      {"Sin", [](double v) { return std::sin(v); }, -1e9},
      {"Atan", [](double v) { return std::atan(v); }, -1e9},
      {"Sinh", [](double v) { return std::sinh(v); }, -1e9},
  };
  for (const Case& c : cases) {
    Tensor y = RunOne(OneNode("(float[N] x) => (float[N] y)", absl::StrCat("y = ", c.op, "(x)")),
                      {Floats({n}, x)});
    std::vector<float> got = Values<float>(y);
    ASSERT_EQ(got.size(), x.size()) << c.op;
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] < c.lo) continue;
      const double want = c.ref(x[i]);
      EXPECT_NEAR(got[i], want, 1e-6 * std::abs(want) + 1e-7) << c.op << "(" << x[i] << ")";
    }
  }
}

// The com.microsoft activations fuse-activations makes: Gelu is 0.5 x (1 + erf(x / sqrt(2)))
// within erf's error (float, on every length's vector tail, and double); QuickGelu<alpha = 1>
// gives the bits of Mul(x, Sigmoid(x)), QuickGelu<alpha> x * Sigmoid(alpha * x).
TEST(ElementwiseTest, ContribGeluAndQuickGelu) {
  auto contrib = [](const std::string& type, const std::string& body) {
    return absl::StrCat("<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]> g (",
                        type, "[N] x) => (", type, "[N] y) { ", body, " }");
  };
  for (int64_t n : {1, 7, 16, 33, 1000}) {
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = -9.0f + 18.0f * static_cast<float>(i) / (n + 1);
    const std::vector<float> g =
        Values<float>(RunOne(contrib("float", "y = com.microsoft.Gelu(x)"), {Floats({n}, x)}));
    const std::vector<float> q = Values<float>(
        RunOne(contrib("float", "y = com.microsoft.QuickGelu<alpha = 1.0>(x)"), {Floats({n}, x)}));
    // (RunOne runs one node: the Mul of Mul(x, Sigmoid(x)) is a float product here.)
    const std::vector<float> sigmoid =
        Values<float>(RunOne(contrib("float", "y = Sigmoid(x)"), {Floats({n}, x)}));
    const std::vector<float> q2 = Values<float>(RunOne(
        contrib("float", "y = com.microsoft.QuickGelu<alpha = 1.702>(x)"), {Floats({n}, x)}));
    for (int64_t i = 0; i < n; ++i) {
      const double v = x[i];
      const double gelu = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      EXPECT_NEAR(g[i], gelu, 1e-6 * std::abs(gelu) + 2e-7 * std::abs(v)) << v;
      EXPECT_EQ(q[i], x[i] * sigmoid[i]) << v;
      const double quick = v / (1 + std::exp(-1.702 * v));
      EXPECT_NEAR(q2[i], quick, 1e-6 * std::abs(quick) + 1e-7) << v;
    }
  }
  Tensor d(ElementType::kDouble, {3});
  d.As<double>()[0] = -2.5;
  d.As<double>()[1] = 0.25;
  d.As<double>()[2] = 3.0;
  Tensor y = RunOne(contrib("double", "y = com.microsoft.Gelu(x)"), {d});
  for (int i = 0; i < 3; ++i) {
    const double v = d.As<double>()[i];
    EXPECT_NEAR(y.As<double>()[i], 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))), 1e-15) << v;
  }
}

TEST(ElementwiseTest, SpecialValuesOfSimdMath) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Floats({7}, {0.0f, -1.0f, inf, -inf, nan, 100.0f, -100.0f});
  std::vector<float> e =
      Values<float>(RunOne(OneNode("(float[7] x) => (float[7] y)", "y = Exp(x)"), {x}));
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_EQ(e[2], inf);
  EXPECT_EQ(e[3], 0.0f);
  EXPECT_TRUE(std::isnan(e[4]));
  EXPECT_EQ(e[5], inf);
  std::vector<float> l =
      Values<float>(RunOne(OneNode("(float[7] x) => (float[7] y)", "y = Log(x)"), {x}));
  EXPECT_EQ(l[0], -inf);
  EXPECT_TRUE(std::isnan(l[1]));
  EXPECT_EQ(l[2], inf);
  EXPECT_TRUE(std::isnan(l[3]) && std::isnan(l[4]));
  std::vector<float> s =
      Values<float>(RunOne(OneNode("(float[7] x) => (float[7] y)", "y = Sigmoid(x)"), {x}));
  EXPECT_EQ(s[0], 0.5f);
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_EQ(s[3], 0.0f);
  EXPECT_TRUE(std::isnan(s[4]));
  std::vector<float> t =
      Values<float>(RunOne(OneNode("(float[7] x) => (float[7] y)", "y = Tanh(x)"), {x}));
  EXPECT_EQ(t[2], 1.0f);
  EXPECT_EQ(t[3], -1.0f);
  EXPECT_TRUE(std::isnan(t[4]));
  std::vector<float> r =
      Values<float>(RunOne(OneNode("(float[7] x) => (float[7] y)", "y = Relu(x)"), {x}));
  EXPECT_TRUE(std::isnan(r[4]));
  EXPECT_EQ(r[6], 0.0f);
}

TEST(ElementwiseTest, ClipInputsAttributesAndTypes) {
  Tensor x = Floats({5}, {-3, -1, 0, 1, 3});
  EXPECT_THAT(Values<float>(RunOne(OneNode("(float[5] x, float lo, float hi) => (float[5] y)",
                                           "y = Clip(x, lo, hi)"),
                                   {x, Floats({}, {-1.5f}), Floats({}, {2})})),
              ElementsAre(-1.5f, -1, 0, 1, 2));
  EXPECT_THAT(
      Values<float>(RunOne(OneNode("(float[5] x, float hi) => (float[5] y)", "y = Clip(x, , hi)"),
                           {x, Tensor(), Floats({}, {0.5f})})),
      ElementsAre(-3, -1, 0, 0.5f, 0.5f));
  EXPECT_THAT(
      Values<float>(RunOne(
          OneNode("(float[5] x) => (float[5] y)", "y = Clip <min = -2.0, max = 2.0> (x)", 6), {x})),
      ElementsAre(-2, -1, 0, 1, 2));
  Tensor i = MakeTensor<int64_t>(ElementType::kInt64, {3}, {-100, 5, 100});
  EXPECT_THAT(
      Values<int64_t>(RunOne(OneNode("(int64[3] x, int64 lo) => (int64[3] y)", "y = Clip(x, lo)"),
                             {i, MakeTensor<int64_t>(ElementType::kInt64, {}, {0})})),
      ElementsAre(0, 5, 100));
  // min > max: everything is max.
  EXPECT_THAT(Values<float>(RunOne(OneNode("(float[5] x, float lo, float hi) => (float[5] y)",
                                           "y = Clip(x, lo, hi)"),
                                   {x, Floats({}, {2}), Floats({}, {1})})),
              ElementsAre(1, 1, 1, 1, 1));
}

TEST(ElementwiseTest, LeakyReluPReluAndSelu) {
  Tensor x = Floats({2, 3}, {-1, 2, -3, 4, -5, 6});
  EXPECT_THAT(
      Values<float>(RunOne(
          OneNode("(float[2,3] x) => (float[2,3] y)", "y = LeakyRelu <alpha = 0.5> (x)"), {x})),
      ElementsAre(-0.5f, 2, -1.5f, 4, -2.5f, 6));
  EXPECT_THAT(Values<float>(
                  RunOne(OneNode("(float[2,3] x, float[3] s) => (float[2,3] y)", "y = PRelu(x, s)"),
                         {x, Floats({3}, {1, 2, 3})})),
              ElementsAre(-1, 2, -9, 4, -10, 6));
  EXPECT_THAT(Values<float>(RunOne(
                  OneNode("(float[2,3] x, float[2,1] s) => (float[2,3] y)", "y = PRelu(x, s)"),
                  {x, Floats({2, 1}, {0.1f, 10})})),
              ElementsAre(-0.1f, 2, -0.3f, 4, -50, 6));
  std::vector<float> selu =
      Values<float>(RunOne(OneNode("(float[2,3] x) => (float[2,3] y)", "y = Selu(x)"), {x}));
  EXPECT_NEAR(selu[0], 1.0507010221481323 * 1.6732631921768188 * std::expm1(-1.0), 1e-6);
  EXPECT_NEAR(selu[1], 2 * 1.0507010221481323, 1e-6);
}

TEST(ElementwiseTest, IsInfIsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x = Floats({4}, {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1});
  const std::string sig = "(float[4] x) => (bool[4] y)";
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "y = IsInf(x)"), {x})), ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "y = IsInf <detect_negative = 0> (x)"), {x})),
              ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(Bools(RunOne(OneNode(sig, "y = IsNaN(x)"), {x})), ElementsAre(0, 0, 1, 0));
}

// ---------------------------------------------------------------------------------------------
// Cast and quantization
// ---------------------------------------------------------------------------------------------

TEST(ElementwiseTest, CastSaturatesFloatToInt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Floats({6}, {1.9f, -1.9f, 300, -300, nan, 1e20f});
  EXPECT_THAT(
      Values<int8_t>(RunOne(OneNode("(float[6] x) => (int8[6] y)", "y = Cast <to = 3> (x)"), {x})),
      ElementsAre(1, -1, 127, -128, 0, 127));
  EXPECT_THAT(Values<uint8_t>(
                  RunOne(OneNode("(float[6] x) => (uint8[6] y)", "y = Cast <to = 2> (x)"), {x})),
              ElementsAre(1, 0, 255, 0, 0, 255));
  EXPECT_THAT(Values<int64_t>(
                  RunOne(OneNode("(float[6] x) => (int64[6] y)", "y = Cast <to = 7> (x)"), {x})),
              ElementsAre(1, -1, 300, -300, 0, INT64_MAX));
  EXPECT_THAT(Bools(RunOne(OneNode("(float[6] x) => (bool[6] y)", "y = Cast <to = 9> (x)"), {x})),
              ElementsAre(1, 1, 1, 1, 1, 1));
}

Tensor Strings(const std::vector<std::string>& values) {
  Tensor t(ElementType::kString, {static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.As<std::string>());
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  EXPECT_EQ(t.type(), ElementType::kString);
  if (t.type() != ElementType::kString) return {};
  return std::vector<std::string>(t.As<std::string>(), t.As<std::string>() + t.NumElements());
}

// Numbers become what numpy's str() writes (the backend tests' reference), each type with its
// own shortest digits; printed by numpy 1.24.
TEST(ElementwiseTest, CastToStringWritesNumpysDigits) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor f = Floats({12}, {1.0f, 1e-5f, 1e-4f, 123456790.0f, 3.4028235e38f, -0.0f, 0.039187793f,
                           9999999999999998.0f, 0.00012345f, 1.5e-7f, std::nanf(""), -inf});
  EXPECT_THAT(StringValues(
                  RunOne(OneNode("(float[12] x) => (string[12] y)", "y = Cast <to = 8> (x)"), {f})),
              ElementsAre("1.0", "1e-05", "1e-04", "123456790.0", "3.4028235e+38", "-0.0",
                          "0.039187793", "1e+16", "0.00012345", "1.5e-07", "nan", "-inf"));
  Tensor h = RunOne(OneNode("(float[12] x) => (float16[12] y)", "y = Cast <to = 10> (x)"), {f});
  EXPECT_THAT(StringValues(RunOne(
                  OneNode("(float16[12] x) => (string[12] y)", "y = Cast <to = 8> (x)"), {h})),
              ElementsAre("1.0", "1e-05", "0.0001", "inf", "inf", "-0.0", "0.03918", "inf",
                          "0.0001235", "2e-07", "nan", "-inf"));
  Tensor d = RunOne(OneNode("(float[12] x) => (double[12] y)", "y = Cast <to = 11> (x)"),
                    {Floats({2}, {0.1f, 1234.5f})});
  EXPECT_THAT(
      StringValues(RunOne(OneNode("(double[2] x) => (string[2] y)", "y = Cast <to = 8> (x)"), {d})),
      ElementsAre("0.10000000149011612", "1234.5"));
  Tensor i = MakeTensor<int64_t>(ElementType::kInt64, {2}, {-5, INT64_MAX});
  EXPECT_THAT(
      StringValues(RunOne(OneNode("(int64[2] x) => (string[2] y)", "y = Cast <to = 8> (x)"), {i})),
      ElementsAre("-5", "9223372036854775807"));
}

TEST(ElementwiseTest, CastFromStringParsesNumbersAndSpecialWords) {
  Tensor s = Strings({" +1.5 ", "INF", "-Infinity", "NaN", "1e-5", "0.47892547"});
  EXPECT_THAT(
      Values<float>(RunOne(OneNode("(string[6] x) => (float[6] y)", "y = Cast <to = 1> (x)"), {s})),
      ElementsAre(1.5f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), testing::IsNan(), 1e-5f, 0.47892547f));
  // Integers exactly (beyond double's 53 bits), other numbers truncated as Cast from float.
  Tensor n = Strings({"9007199254740993", "100.5", "-7"});
  EXPECT_THAT(Values<int64_t>(
                  RunOne(OneNode("(string[3] x) => (int64[3] y)", "y = Cast <to = 7> (x)"), {n})),
              ElementsAre(9007199254740993, 100, -7));
  absl::StatusOr<std::vector<Tensor>> bad = RunText(
      OneNode("(string[2] x) => (float[2] y)", "y = Cast <to = 1> (x)"), {Strings({"1", "12abc"})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("element 1: \"12abc\" is not a number"));
  // String to string, and Identity, copy.
  EXPECT_THAT(StringValues(RunOne(OneNode("(string[2] x) => (string[2] y)", "y = Identity (x)"),
                                  {Strings({"a", "b"})})),
              ElementsAre("a", "b"));
}

TEST(ElementwiseTest, CastHalfTypesAndWidening) {
  Tensor x = Floats({3}, {1.0f, 65520.0f, 1.0f / 3});
  Tensor h = RunOne(OneNode("(float[3] x) => (float16[3] y)", "y = Cast <to = 10> (x)"), {x});
  EXPECT_THAT(Values<uint16_t>(h), ElementsAre(0x3c00, 0x7c00, 0x3555));
  Tensor b = RunOne(OneNode("(float[3] x) => (bfloat16[3] y)", "y = Cast <to = 16> (x)"), {x});
  EXPECT_THAT(Values<uint16_t>(b), ElementsAre(0x3f80, 0x4780, 0x3eab));
  Tensor back = RunOne(OneNode("(float16[3] x) => (double[3] y)", "y = Cast <to = 11> (x)"), {h});
  EXPECT_THAT(Values<double>(back),
              ElementsAre(1.0, std::numeric_limits<double>::infinity(), 0.333251953125));
  Tensor i = RunOne(OneNode("(int32[2] x) => (uint8[2] y)", "y = Cast <to = 2> (x)"),
                    {MakeTensor<int32_t>(ElementType::kInt32, {2}, {257, -1})});
  EXPECT_THAT(Values<uint8_t>(i), ElementsAre(1, 255));
  Tensor like =
      RunOne(OneNode("(int32[2] x, float16[1] t) => (float16[2] y)", "y = CastLike(x, t)"),
             {MakeTensor<int32_t>(ElementType::kInt32, {2}, {2, -3}),
              MakeTensor<uint16_t>(ElementType::kFloat16, {1}, {0})});
  EXPECT_THAT(Values<uint16_t>(like), ElementsAre(0x4000, 0xc200));
}

TEST(ElementwiseTest, QuantizePerAxisSaturatesHalfToEven) {
  Tensor x = Floats({2, 3}, {0.5f, 1.5f, 2.5f, -1000, 1000, 3});
  Tensor scale = Floats({3}, {1, 1, 2});
  Tensor zp = MakeTensor<int8_t>(ElementType::kInt8, {3}, {0, 10, -1});
  Tensor y = RunOne(OneNode("(float[2,3] x, float[3] s, int8[3] z) => (int8[2,3] y)",
                            "y = QuantizeLinear <axis = 1> (x, s, z)"),
                    {x, scale, zp});
  EXPECT_THAT(Values<int8_t>(y), ElementsAre(0, 12, 0, -128, 127, 1));
  Tensor u =
      RunOne(OneNode("(float[2,3] x, float s) => (uint8[2,3] y)", "y = QuantizeLinear(x, s)"),
             {x, Floats({}, {0.5f})});
  EXPECT_THAT(Values<uint8_t>(u), ElementsAre(1, 3, 5, 0, 255, 6));
  Tensor d =
      RunOne(OneNode("(int8[2,3] q, float[2] s, int8[2] z) => (float[2,3] y)",
                     "y = DequantizeLinear <axis = 0> (q, s, z)"),
             {y, Floats({2}, {0.5f, 2}), MakeTensor<int8_t>(ElementType::kInt8, {2}, {2, -1})});
  EXPECT_THAT(Values<float>(d), ElementsAre(-1, 5, -1, -254, 256, 4));
}

TEST(ElementwiseTest, DynamicQuantizeLinearOfZeros) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(OneNode("(float[3] x) => (uint8[3] y, float s, uint8 z)",
                      "y, s, z = DynamicQuantizeLinear(x)"),
              {Floats({3}, {0, 0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint8_t>((*out)[0]), ElementsAre(0, 0, 0));
  EXPECT_THAT(Values<float>((*out)[1]), ElementsAre(1));  // ONNX Runtime's scale for no range
  EXPECT_THAT(Values<uint8_t>((*out)[2]), ElementsAre(0));
}

TEST(ElementwiseTest, UnsupportedTypeIsUnimplemented) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(OneNode("(uint8[2] x) => (uint8[2] y)", "y = Neg(x)"),
              {MakeTensor<uint8_t>(ElementType::kUint8, {2}, {1, 2})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("uint8"));
}

TEST(ElementwiseTest, Float16Arithmetic) {
  Tensor a = MakeTensor<uint16_t>(ElementType::kFloat16, {2}, {0x3c00, 0x4000});  // 1, 2
  Tensor b = MakeTensor<uint16_t>(ElementType::kFloat16, {2}, {0x3800, 0x3800});  // 0.5, 0.5
  EXPECT_THAT(
      Values<uint16_t>(RunOne(
          OneNode("(float16[2] a, float16[2] b) => (float16[2] c)", "c = Add(a, b)"), {a, b})),
      ElementsAre(0x3e00, 0x4100));  // 1.5, 2.5
}

// ---------------------------------------------------------------------------------------------
// The Highway routines on every target this machine runs and the build compiled
// ---------------------------------------------------------------------------------------------

TEST(ElementwiseSimdTest, EveryTargetMatchesScalar) {
  std::vector<float> x, y;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-30.0f, 30.0f);
  for (int i = 0; i < 1000; ++i) {
    x.push_back(dist(rng));
    y.push_back(dist(rng) + 0.1f);
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    SCOPED_TRACE(hwy::TargetName(target));
    for (size_t n : {size_t{1}, size_t{3}, size_t{17}, size_t{1000}}) {
      std::vector<float> out(n);
      for (int op = 0; op <= static_cast<int>(simd::UnaryOp::kGelu); ++op) {
        const float* in = x.data();
        std::vector<float> positive;
        if (op == static_cast<int>(simd::UnaryOp::kLog) ||
            op == static_cast<int>(simd::UnaryOp::kSqrt)) {
          for (size_t i = 0; i < n; ++i) positive.push_back(std::abs(x[i]) + 1e-3f);
          in = positive.data();
        }
        simd::Unary(static_cast<simd::UnaryOp>(op), in, out.data(), n);
        for (size_t i = 0; i < n; ++i) {
          double want = 0;
          switch (static_cast<simd::UnaryOp>(op)) {
            case simd::UnaryOp::kRelu:
              want = std::max(in[i], 0.0f);
              break;
            case simd::UnaryOp::kSigmoid:
              want = 1 / (1 + std::exp(-double{in[i]}));
              break;
            case simd::UnaryOp::kTanh:
              want = std::tanh(double{in[i]});
              break;
            case simd::UnaryOp::kExp:
              want = std::exp(double{in[i]});
              break;
            case simd::UnaryOp::kLog:
              want = std::log(double{in[i]});
              break;
            case simd::UnaryOp::kSqrt:
              want = std::sqrt(double{in[i]});
              break;
            case simd::UnaryOp::kNeg:
              want = -in[i];
              break;
            case simd::UnaryOp::kAbs:
              want = std::abs(in[i]);
              break;
            case simd::UnaryOp::kErf:
              want = std::erf(double{in[i]});
              break;
            case simd::UnaryOp::kSoftplus:
              want = std::log1p(std::exp(double{in[i]}));
              break;
            case simd::UnaryOp::kHardSwish: {
              // The scalar kernel's float operations, bit for bit.
              const float t = in[i] / 6.0f + 0.5f;
              const float v = in[i] * std::max(0.0f, std::min(1.0f, t));
              ASSERT_EQ(out[i], v) << "HardSwish x " << in[i];
              want = v;
              break;
            }
            case simd::UnaryOp::kGelu:
              // 1 + erf cancels for negative x: erf's absolute error (a float ulp of 1), times x.
              want = 0.5 * in[i] * (1 + std::erf(in[i] / std::sqrt(2.0)));
              ASSERT_NEAR(out[i], want, 1e-6 * std::abs(want) + 2e-7 * std::abs(in[i]))
                  << "Gelu x " << in[i];
              continue;
          }
          ASSERT_NEAR(out[i], want, 1e-6 * std::abs(want) + 1e-30) << "op " << op << " x " << in[i];
        }
      }
      // erf is exactly +-1 from 4 on (float rounding of the true value), so GELU is 0 far left:
      // not -x times erf's error.
      {
        const float inf = std::numeric_limits<float>::infinity();
        const std::vector<float> far = {4.0f, -4.0f, 5.5f, -7.0f, 1e6f, -1e6f, inf, -inf};
        std::vector<float> erf(far.size()), gelu(far.size());
        simd::Unary(simd::UnaryOp::kErf, far.data(), erf.data(), far.size());
        simd::Unary(simd::UnaryOp::kGelu, far.data(), gelu.data(), far.size());
        for (size_t i = 0; i < far.size(); ++i) {
          ASSERT_EQ(erf[i], far[i] > 0 ? 1.0f : -1.0f) << "erf " << far[i];
          if (std::abs(far[i]) < 4.0f * std::sqrt(2.0f)) continue;  // GELU's erf is of x / sqrt(2)
          if (far[i] == -inf) {
            ASSERT_TRUE(std::isnan(gelu[i]));  // -inf * 0, as the spelled-out chain
          } else if (far[i] < 0) {
            ASSERT_EQ(gelu[i], 0.0f) << "gelu " << far[i];
          } else {
            ASSERT_EQ(gelu[i], far[i]) << "gelu " << far[i];
          }
        }
      }
      // exp over its whole range, subnormal results included, within 2 ulp; NaN, infinities and
      // the overflow threshold exactly.
      {
        std::vector<float> in, out;
        for (float v = -104.5f; v < 89.0f; v += 0.0037f) in.push_back(v);
        in.insert(in.end(), {-INFINITY, INFINITY, NAN, 88.7228393f, 88.7228470f, -0.0f, 0.0f});
        out.resize(in.size());
        simd::Unary(simd::UnaryOp::kExp, in.data(), out.data(), in.size());
        for (size_t i = 0; i < in.size(); ++i) {
          const double want = std::exp(double{in[i]});
          if (std::isnan(in[i])) {
            ASSERT_TRUE(std::isnan(out[i]));
            continue;
          }
          const float w = static_cast<float>(want);
          if (std::isinf(w) || w == 0.0f) {
            ASSERT_EQ(out[i], w) << "exp " << in[i];
            continue;
          }
          const double ulp = std::nextafter(std::fabs(w), INFINITY) - std::fabs(w);
          ASSERT_LE(std::fabs(out[i] - want), 2 * ulp) << "exp " << in[i];
        }
      }
      // NaN stays NaN, in whole vectors and the tail (x86's min and max keep erf's by operand
      // order, other targets test for it).
      {
        std::vector<float> in(19, 0.5f), out(19);
        for (size_t i : {size_t{0}, size_t{5}, size_t{17}}) {
          in[i] = std::numeric_limits<float>::quiet_NaN();
        }
        for (simd::UnaryOp op : {simd::UnaryOp::kErf, simd::UnaryOp::kGelu}) {
          simd::Unary(op, in.data(), out.data(), in.size());
          for (size_t i = 0; i < in.size(); ++i) {
            ASSERT_EQ(std::isnan(out[i]), std::isnan(in[i])) << static_cast<int>(op) << " " << i;
          }
        }
      }
      for (int op = 0; op <= static_cast<int>(simd::BinaryOp::kMin); ++op) {
        const auto bop = static_cast<simd::BinaryOp>(op);
        auto ref = [bop](float a, float b) {
          switch (bop) {
            case simd::BinaryOp::kAdd:
              return a + b;
            case simd::BinaryOp::kSub:
              return a - b;
            case simd::BinaryOp::kMul:
              return a * b;
            case simd::BinaryOp::kDiv:
              return a / b;
            case simd::BinaryOp::kMax:
              return std::max(a, b);
            case simd::BinaryOp::kMin:
              return std::min(a, b);
          }
          return 0.0f;
        };
        simd::BinaryVectorVector(bop, x.data(), y.data(), out.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], ref(x[i], y[i])) << op;
        simd::BinaryVectorScalar(bop, x.data(), 1.5f, out.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], ref(x[i], 1.5f)) << op;
        simd::BinaryScalarVector(bop, 1.5f, y.data(), out.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], ref(1.5f, y[i])) << op;
      }
      simd::Clip(x.data(), -1.0f, 2.0f, out.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], std::clamp(x[i], -1.0f, 2.0f));
      simd::LeakyRelu(x.data(), 0.25f, out.data(), n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] < 0 ? x[i] * 0.25f : x[i]);
      simd::ExpLinear(x.data(), 1.5f, 0.5f, 2.0f, out.data(), n);
      for (size_t i = 0; i < n; ++i) {
        const double want = x[i] > 0 ? 2.0 * x[i] : 3.0 * std::expm1(0.5 * x[i]);
        ASSERT_NEAR(out[i], want, 1e-6 * std::abs(want) + 1e-30) << x[i];
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace anvil
