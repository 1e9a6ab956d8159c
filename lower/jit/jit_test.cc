// The C++ emitter and the JIT against the reference evaluator: every model of every op family
// (element-wise, reductions, normalizations, data movement, gemm, kernel intrinsics, kernel
// fallbacks with data-dependent outputs) runs through both, on dims the module was not lowered
// for, and must give the same bits — and the same error for bad data.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "lower/evaluator/tir_session.h"
#include "lower/jit/compiled_module.h"
#include "lower/testing/lowering_test_util.h"

namespace anvil::lower {
namespace {

std::string CacheDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp != nullptr ? tmp : "/tmp") + "/anvil-jit-test";
}

std::unique_ptr<TirSession> Load(const std::string& text, bool compile, bool vectorize = false) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return nullptr;
  TirSessionOptions options;
  options.compile = compile;
  options.jit.cache_dir = CacheDir();
  options.jit.vectorize = vectorize;
  options.cost_check = false;  // the emitted code is under test, not the kernels
  absl::StatusOr<std::unique_ptr<TirSession>> s = TirSession::Load(*std::move(model), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

Tensor Input(ElementType type, std::vector<int64_t> dims, int salt) {
  return testing::TestInput(type, std::move(dims), salt);
}

// Runs the evaluator and compiled code on `inputs` (by name); scalar compiled code must give
// the same bits (a NaN's sign and payload aside), vector code (its exp, erf and tanh, fused
// multiply-adds) the same values within a few ulp, and both must fail alike. Adds to
// *packed_gemm_calls (when given) the gemm calls of both that ran on a weight packed at load.
void ExpectSame(const std::string& text, const std::vector<std::pair<std::string, Tensor>>& inputs,
                bool vectorize, int64_t* packed_gemm_calls = nullptr) {
  std::unique_ptr<TirSession> eval = Load(text, false);
  std::unique_ptr<TirSession> jit = Load(text, true, vectorize);
  ASSERT_NE(eval, nullptr);
  ASSERT_NE(jit, nullptr);
  absl::flat_hash_map<std::string, Tensor> named(inputs.begin(), inputs.end());
  absl::StatusOr<std::vector<Tensor>> a = eval->Run(named);
  absl::StatusOr<std::vector<Tensor>> b = jit->Run(named);
  if (packed_gemm_calls != nullptr) {
    *packed_gemm_calls +=
        eval->evaluator_stats().packed_gemm_calls + jit->compiled()->packed_gemm_calls();
  }
  ASSERT_EQ(a.ok(), b.ok()) << "evaluator: " << a.status() << "\ncompiled: " << b.status();
  if (!a.ok()) {
    EXPECT_EQ(a.status().message(), b.status().message());
    return;
  }
  ASSERT_EQ(a->size(), b->size());
  for (size_t k = 0; k < a->size(); ++k) {
    ASSERT_EQ((*a)[k].type(), (*b)[k].type()) << "output " << k;
    ASSERT_EQ((*a)[k].dims(), (*b)[k].dims()) << "output " << k;
    if ((*a)[k].type() != ElementType::kFloat) {
      EXPECT_EQ(std::memcmp((*a)[k].data(), (*b)[k].data(), (*a)[k].ByteSize()), 0)
          << "output " << k << " differs";
      continue;
    }
    if (!vectorize) {
      // The same bits, except a NaN's sign and payload: x86 propagates the first operand's NaN
      // of two, and compilers may swap a product's operands (sanitizer builds of the evaluator
      // made QuickGelu(NaN) +NaN where compiled code gave -NaN).
      for (int64_t i = 0; i < (*a)[k].NumElements(); ++i) {
        const float x = (*a)[k].As<float>()[i], y = (*b)[k].As<float>()[i];
        if (std::isnan(x) && std::isnan(y)) continue;
        EXPECT_EQ(std::memcmp(&x, &y, sizeof(float)), 0)
            << "output " << k << " element " << i << ": " << x << " vs " << y;
      }
      continue;
    }
    for (int64_t i = 0; i < (*a)[k].NumElements(); ++i) {
      const float x = (*a)[k].As<float>()[i], y = (*b)[k].As<float>()[i];
      if (std::isnan(x) || std::isnan(y)) {
        EXPECT_EQ(std::isnan(x), std::isnan(y)) << "output " << k << " element " << i;
      } else if (x != y) {  // (infinities are equal or differ by an infinite amount)
        EXPECT_NEAR(x, y, 1e-6f + 1e-5f * std::fabs(x)) << "output " << k << " element " << i;
      }
    }
  }
}

void ExpectSameBits(const std::string& text,
                    const std::vector<std::pair<std::string, Tensor>>& inputs,
                    int64_t* packed_gemm_calls = nullptr) {
  ExpectSame(text, inputs, /*vectorize=*/false, packed_gemm_calls);
  ExpectSame(text, inputs, /*vectorize=*/true, packed_gemm_calls);
}

TEST(JitTest, ElementwiseWithBroadcastAndDynamicDims) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, C] x, float[C] b, bool[N, C] c) => (float[N, C] y, int32[N, C] i) {
  s = Add(x, b)
  r = Relu(s)
  t = Tanh(r)
  z = Constant<value = float {0.5}>()
  y = Where(c, t, z)
  e = Mul(x, z)
  i = Cast<to = 6>(e)
})";
  for (int64_t n : {1, 3, 7}) {
    ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {n, 5}, 1)},
                           {"b", Input(ElementType::kFloat, {5}, 2)},
                           {"c", Input(ElementType::kBool, {n, 5}, 3)}});
  }
}

TEST(JitTest, ReductionsAndNormalizations) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[B, S, 16] x, float[16] gamma, float[16] beta) => (float[B, S, 16] y, float[B, S, 16] p, int64[B, S, 1] a, float[B, 16] m) {
  mean = ReduceMean<axes = [-1]>(x)
  d = Sub(x, mean)
  two = Constant<value = float {2.0}>()
  sq = Pow(d, two)
  var = ReduceMean<axes = [-1]>(sq)
  eps = Constant<value = float {1e-5}>()
  ve = Add(var, eps)
  sd = Sqrt(ve)
  n = Div(d, sd)
  g = Mul(n, gamma)
  y = Add(g, beta)
  p = Softmax<axis = -1>(x)
  a = ArgMax<axis = 2>(x)
  m = ReduceMax<axes = [1], keepdims = 0>(x)
})";
  ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {2, 3, 16}, 1)},
                         {"gamma", Input(ElementType::kFloat, {16}, 2)},
                         {"beta", Input(ElementType::kFloat, {16}, 3)}});
}

// A divisor fixed over a vector loop (here a row's) becomes one reciprocal and a multiply per
// vector: within 1.5 ulp of the divide where 1 / d is a normal float (the divide's bits for x =
// +-0, +-inf and NaN), and the divide's own bits for divisors 0, -0, subnormal, huge, inf and NaN.
TEST(JitTest, InvariantDivisorsMultiplyByTheReciprocalWhereItIsNormal) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[R, C] x, float[R, 1] d) => (float[R, C] y) {
  y = Div(x, d)
})";
  const std::vector<float> divisors = {3.0f,      -0.7f, 0x1p-126f,        0x1p126f,       1e-3f,
                                       0.0f,      -0.0f, 1e-40f,           -0x1p127f,      INFINITY,
                                       -INFINITY, NAN,   0x1.fffffep-127f, 0x1.000002p126f};
  const int64_t rows = static_cast<int64_t>(divisors.size()), cols = 40;
  Tensor x(ElementType::kFloat, {rows, cols}), d(ElementType::kFloat, {rows, 1});
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, 3e38f, -1.0f};
  for (int64_t r = 0; r < rows; ++r) {
    d.As<float>()[r] = divisors[r];
    for (int64_t c = 0; c < cols; ++c) {
      x.As<float>()[r * cols + c] =
          c < 8 ? specials[c] : static_cast<float>((c * 37 + r * 11) % 23 - 11) / 7.0f;
    }
  }
  std::unique_ptr<TirSession> jit = Load(kText, true, /*vectorize=*/true);
  ASSERT_NE(jit, nullptr);
  EXPECT_TRUE(absl::StrContains(jit->compiled()->emitted().source, "anvil_vdiv("));
  absl::StatusOr<std::vector<Tensor>> y = jit->Run({{"x", x}, {"d", d}});
  ASSERT_TRUE(y.ok()) << y.status();
  for (int64_t r = 0; r < rows; ++r) {
    const float q = divisors[r];
    const bool reciprocal = std::fabs(q) >= 0x1p-126f && std::fabs(q) <= 0x1p126f;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = x.As<float>()[r * cols + c];
      const float exact = v / q, got = (*y)[0].As<float>()[r * cols + c];
      if (!reciprocal || !std::isfinite(v) || v == 0) {
        EXPECT_EQ(std::isnan(exact), std::isnan(got)) << "row " << r << " col " << c;
        if (!std::isnan(exact)) {
          EXPECT_EQ(std::memcmp(&exact, &got, 4), 0)
              << "row " << r << " col " << c << ": " << exact << " vs " << got;
        }
      } else if (got != exact) {  // (an overflowing quotient is inf either way)
        EXPECT_LE(std::fabs(got - exact),
                  1.5f * (std::nextafter(std::fabs(exact), INFINITY) - std::fabs(exact)))
            << "row " << r << " col " << c << ": " << exact << " vs " << got;
      }
    }
  }
}

// A layer norm over rows of 130 with GELU and a residual, spelled out: its output loop is split
// in two (the normalized row into a stack row, then erf and the rest), fetches the next row's
// input ahead, and fuses its multiply-adds; the values stay within float rounding of the
// evaluator's, with specials in the data and a tail of two after the whole vectors. A row of 40
// (under the 64 these need) keeps one loop without prefetches.
TEST(JitTest, RowLoopsSplitPrefetchAndFuseMultiplyAdds) {
  for (const int64_t cols : {int64_t{130}, int64_t{40}}) {
    SCOPED_TRACE(absl::StrCat(cols, " columns"));
    const std::string text = absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[R, )",
                                          cols, R"(] x) => (float[R, )", cols, R"(] y) {
  mean = ReduceMean<axes = [1]>(x)
  d = Sub(x, mean)
  dd = Mul(d, d)
  var = ReduceMean<axes = [1]>(dd)
  eps = Constant<value = float {1e-5}>()
  ve = Add(var, eps)
  sd = Sqrt(ve)
  n = Div(d, sd)
  g = Constant<value = float {1.5}>()
  b = Constant<value = float {-0.25}>()
  ng = Mul(n, g)
  ln = Add(ng, b)
  r2 = Constant<value = float {1.4142135}>()
  t = Div(ln, r2)
  e = Erf(t)
  one = Constant<value = float {1}>()
  e1 = Add(e, one)
  h = Mul(ln, e1)
  half = Constant<value = float {0.5}>()
  gl = Mul(h, half)
  y = Add(gl, x)
})");
    const int64_t rows = 5;
    Tensor x = Input(ElementType::kFloat, {rows, cols}, 3);
    x.As<float>()[3] = NAN;
    x.As<float>()[cols + 1] = INFINITY;
    x.As<float>()[2 * cols + 7] = 1e30f;
    std::unique_ptr<TirSession> eval = Load(text, false);
    std::unique_ptr<TirSession> jit = Load(text, true, /*vectorize=*/true);
    ASSERT_NE(eval, nullptr);
    ASSERT_NE(jit, nullptr);
    const std::string& source = jit->compiled()->emitted().source;
    EXPECT_EQ(absl::StrContains(source, "__row["), cols >= 64) << source;
    EXPECT_EQ(absl::StrContains(source, "__builtin_prefetch("), cols >= 64) << source;
    EXPECT_TRUE(absl::StrContains(source, "hn::MulAdd(")) << source;
    absl::StatusOr<std::vector<Tensor>> a = eval->Run({{"x", x}});
    absl::StatusOr<std::vector<Tensor>> b = jit->Run({{"x", x}});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (int64_t i = 0; i < rows * cols; ++i) {
      const float want = (*a)[0].As<float>()[i], got = (*b)[0].As<float>()[i];
      if (std::isnan(want) || std::isnan(got)) {
        EXPECT_EQ(std::isnan(want), std::isnan(got)) << "element " << i;
      } else {
        EXPECT_NEAR(got, want, 1e-5f + 1e-5f * std::fabs(want)) << "element " << i;
      }
    }
  }
}

// com.microsoft Gelu and QuickGelu (what fuse-activations makes of the spelled-out chains) lower
// to loops: the evaluator's bits in scalar code, and 0.5 x (1 + erf(x / sqrt(2))) within erf's
// error.
TEST(JitTest, GeluLowersToLoops) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
main (float[N, C] x) => (float[N, C] y, float[N, C] q) {
  y = com.microsoft.Gelu(x)
  q = com.microsoft.QuickGelu<alpha = 1.702>(x)
})";
  Tensor x = Input(ElementType::kFloat, {3, 37}, 1);
  x.As<float>()[0] = INFINITY;
  x.As<float>()[1] = NAN;
  ExpectSameBits(kText, {{"x", x}});
  std::unique_ptr<TirSession> jit = Load(kText, true, /*vectorize=*/true);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(jit->lowering_stats().native, 2);
  absl::StatusOr<std::vector<Tensor>> y = jit->Run({{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].As<float>()[0], INFINITY);
  EXPECT_TRUE(std::isnan((*y)[0].As<float>()[1]));
  for (int64_t i = 2; i < x.NumElements(); ++i) {
    const double v = x.As<float>()[i];
    const double want = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR((*y)[0].As<float>()[i], want, 1e-6 * std::fabs(want) + 2e-7 * std::fabs(v)) << v;
  }
}

TEST(JitTest, DataMovementAndGemm) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8] x, int64[K] ids, float[8, 4] w) => (float[8, N2] t, float[K, 8] g, float[N, 4] mm, float[N, 3] s) {
  tr = Transpose<perm = [1, 0]>(x)
  t = Concat<axis = 1>(tr, tr)
  g = Gather<axis = 0>(x, ids)
  mm = MatMul(x, w)
  starts = Constant<value = int64[1] {1}>()
  ends = Constant<value = int64[1] {7}>()
  axes = Constant<value = int64[1] {1}>()
  steps = Constant<value = int64[1] {2}>()
  s = Slice(x, starts, ends, axes, steps)
})";
  ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {5, 8}, 1)},
                         {"ids", Input(ElementType::kInt64, {6}, 2)},
                         {"w", Input(ElementType::kFloat, {8, 4}, 3)}});
  // An index out of range: both fail with the lowered Assert's message.
  Tensor bad = Input(ElementType::kInt64, {2}, 2);
  bad.As<int64_t>()[1] = 9;
  ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {5, 8}, 1)},
                         {"ids", bad},
                         {"w", Input(ElementType::kFloat, {8, 4}, 3)}});
}

// float16 halves with every exponent (subnormals, values whose sum overflows to inf, inf itself);
// `nan` adds NaNs with payloads and both signs.
Tensor HalfInput(std::vector<int64_t> dims, int salt, bool nan) {
  Tensor t(ElementType::kFloat16, std::move(dims));
  auto* bits = static_cast<uint16_t*>(t.data());
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    uint16_t h = static_cast<uint16_t>((k * 977 + salt * 131) % 0x7c01);
    if ((k + salt) % 3 == 0) h |= 0x8000;
    if (nan && k % 5 == 1)
      h = static_cast<uint16_t>(0x7c01 + (k * 31) % 0x3fe) | (k % 2 ? 0x8000 : 0);
    bits[k] = h;
  }
  return t;
}

// float16 element-wise arithmetic, casts and data movement: vector code (float lanes widened at
// the load with F16C, rounded as the scalar code rounds) and scalar code give the evaluator's
// bits, and halves moved unchanged keep theirs (NaN payloads included).
TEST(JitTest, Float16VectorLoopsRoundAsTheScalarCode) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float16[N, 37] a, float16[N, 37] b, float16[N, 37] n, float[N, 37] f) => (float16[N, 74] c, float16[37, N] t, float16[N, 37] h, float[N, 37] w, float16[N, 37] r, float16[N, 37] q) {
  s = Add(a, b)
  m = Mul(s, b)
  c = Concat<axis = 1>(m, n)
  t = Transpose<perm = [1, 0]>(n)
  h = Cast<to = 10>(f)
  w = Cast<to = 1>(a)
  r = Relu(n)
  d = Div(a, b)
  q = Sub(d, a)
})";
  for (int64_t rows : {1, 4}) {
    // Floats from ~1e-7 (under float16's subnormals) to ~1e5 (over its largest finite value).
    Tensor f = Input(ElementType::kFloat, {rows, 37}, 4);
    for (int64_t k = 0; k < f.NumElements(); ++k) {
      f.As<float>()[k] *= std::ldexp(1.0f, static_cast<int>(k % 41) - 24);
    }
    ExpectSameBits(kText, {{"a", HalfInput({rows, 37}, 1, false)},
                           {"b", HalfInput({rows, 37}, 2, false)},
                           {"n", HalfInput({rows, 37}, 3, true)},
                           {"f", f}});
  }
  std::unique_ptr<TirSession> jit = Load(kText, true, /*vectorize=*/true);
  ASSERT_NE(jit, nullptr);
  const std::string& source = jit->compiled()->emitted().source;
  for (const char* helper : {"anvil_vh2f(", "anvil_vf2h(", "anvil_vcopy16("}) {
    EXPECT_TRUE(absl::StrContains(source, helper)) << helper;
  }
}

// Constant weights of MatMul and Gemm (transB) are packed once at load and used by the gemm
// calls with more than 4 rows and columns: the evaluator's bits, and the packed path does run.
TEST(JitTest, ConstantGemmWeightsArePackedAtLoad) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8] x) => (float[N, 6] y, float[N, 6] z) <float[8, 6] w = {1, -2, 3, 0.5, 1, 2, 0, 1, -1, 2, 3, -0.25, 1, 1, 1, 1, 2, 2, 0.5, -3, 1, 0, 0, 1, 1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6, 0.5, 0.25, 2, 1, 0, -1, 1, 1, 1, 1, 1, 1}, float[6, 8] v = {1, -2, 3, 0.5, 1, 2, 0, 1, -1, 2, 3, -0.25, 1, 1, 1, 1, 2, 2, 0.5, -3, 1, 0, 0, 1, 1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6, 0.5, 0.25, 2, 1, 0, -1, 1, 1, 1, 1, 1, 1}> {
  y = MatMul(x, w)
  z = Gemm<transB = 1>(x, v)
})";
  for (int64_t n : {2, 9}) {
    int64_t packed = 0;
    ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {n, 8}, 1)}}, &packed);
    // Two evaluator and two compiled runs (scalar and vector code) of two products each, on the
    // weights packed at load whatever the rows (and the same bits: ExpectSameBits).
    EXPECT_EQ(packed, 8) << n << " rows";
  }
}

// Row-tile fusion (passes/row_tiles.h) in compiled code: a layer norm, two linear layers with
// bias, Relu and a residual as one parallel loop over tiles of 8 rows (a partial last one), on
// two threads splitting the tiles: the evaluator's bits in scalar code, its values within a few
// ulp in vector code.
TEST(JitTest, RowTilesRunAsTheEvaluatorRunsThem) {
  const std::string text = testing::FeedForwardModelText();
  for (bool vectorize : {false, true}) {
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
    ASSERT_TRUE(model.ok()) << model.status();
    TirSessionOptions options;
    options.lowering.row_tiles.tile_bytes = 1024;
    options.threads = 2;
    std::unique_ptr<Model> copy = (*model)->Clone();
    absl::StatusOr<std::unique_ptr<TirSession>> eval = TirSession::Load(std::move(copy), options);
    options.compile = true;
    options.cost_check = false;
    options.jit.cache_dir = CacheDir();
    options.jit.vectorize = vectorize;
    absl::StatusOr<std::unique_ptr<TirSession>> jit = TirSession::Load(*std::move(model), options);
    ASSERT_TRUE(eval.ok()) << eval.status();
    ASSERT_TRUE(jit.ok()) << jit.status();
    EXPECT_EQ((*jit)->lowering_stats().passes.row_tiles.runs, 1);
    parallel::ScopedSplitAll split;
    const Tensor x = Input(ElementType::kFloat, {3, 7, 16}, 4);
    absl::StatusOr<std::vector<Tensor>> a = (*eval)->Run({{"x", x}});
    absl::StatusOr<std::vector<Tensor>> b = (*jit)->Run({{"x", x}});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    const Tensor& ya = (*a)[0];
    const Tensor& yb = (*b)[0];
    ASSERT_EQ(ya.dims(), yb.dims());
    for (int64_t i = 0; i < ya.NumElements(); ++i) {
      const float p = ya.As<float>()[i], q = yb.As<float>()[i];
      if (vectorize) {
        EXPECT_NEAR(p, q, 1e-5f + 1e-5f * std::fabs(p)) << "element " << i;
      } else {
        EXPECT_EQ(std::memcmp(&p, &q, sizeof(float)), 0)
            << "element " << i << ": " << p << " vs " << q;
      }
    }
  }
}

TEST(JitTest, KernelCallsAndDataDependentOutputs) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 1, H, W] x, float[M] v) => (float[N, 2, H, W] y, int64[1, K] nz, float[N, 2, H2, W2] p) {
  w = Constant<value = float[2, 1, 1, 1] {0.5, -1}>()
  y = Conv(x, w)
  nz = NonZero(v)
  p = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(y)
})";
  ExpectSameBits(kText, {{"x", Input(ElementType::kFloat, {2, 1, 4, 6}, 1)},
                         {"v", Input(ElementType::kFloat, {9}, 2)}});
}

// A kernel call whose operands passed the ShapeHelper check before skips it; other dims run it
// again, and outputs only the data sizes (NonZero) always do. Results match the evaluator's.
TEST(JitTest, KernelCallsSkipTheShapeCheckOfOperandsSeenBefore) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 1, H, W] x, float[M] v) => (float[N, 2, H2, W2] p, int64[1, K] nz) {
  w = Constant<value = float[2, 1, 1, 1] {0.5, -1}>()
  y = Conv(x, w)
  p = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(y)
  nz = NonZero(v)
})";
  std::unique_ptr<TirSession> eval = Load(kText, false);
  std::unique_ptr<TirSession> jit = Load(kText, true);
  ASSERT_NE(eval, nullptr);
  ASSERT_NE(jit, nullptr);
  ASSERT_NE(jit->compiled(), nullptr);
  auto run = [&](std::vector<int64_t> x_dims, int salt) {
    const absl::flat_hash_map<std::string, Tensor> inputs = {
        {"x", Input(ElementType::kFloat, x_dims, salt)},
        {"v", Input(ElementType::kFloat, {9}, salt)}};
    absl::StatusOr<std::vector<Tensor>> a = eval->Run(inputs);
    absl::StatusOr<std::vector<Tensor>> b = jit->Run(inputs);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (size_t k = 0; k < a->size(); ++k) {
      ASSERT_EQ((*a)[k].dims(), (*b)[k].dims()) << "output " << k;
      EXPECT_EQ(std::memcmp((*a)[k].data(), (*b)[k].data(), (*a)[k].ByteSize()), 0) << k;
    }
  };
  run({2, 1, 4, 6}, 1);
  EXPECT_EQ(jit->compiled()->shape_checks_skipped(), 0);
  run({2, 1, 4, 6}, 2);  // Conv and MaxPool skip; NonZero's output is sized by its data
  EXPECT_EQ(jit->compiled()->shape_checks_skipped(), 2);
  run({1, 1, 6, 8}, 3);
  EXPECT_EQ(jit->compiled()->shape_checks_skipped(), 2);
  run({1, 1, 6, 8}, 4);
  EXPECT_EQ(jit->compiled()->shape_checks_skipped(), 4);
}

// Sequences and optionals are values kernel calls hand each other (a Tensor behind the buffer):
// inputs, intermediates and outputs, and an empty optional, alike in the evaluator and compiled.
TEST(JitTest, SequencesAndOptionalsPassBetweenKernelCalls) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N] x, seq(float[?]) s, optional(float[2]) o) => (float[?] y, seq(float[?]) t, bool h, float[N] z) {
  r = Relu(x)
  t = SequenceInsert(s, r)
  y = ConcatFromSequence<axis = 0>(t)
  h = OptionalHasElement(o)
  k = Constant<value = int64 {-1}>()
  e = SequenceAt(t, k)
  z = Add(e, x)
})";
  Tensor x = Input(ElementType::kFloat, {3}, 1);
  Tensor a = Input(ElementType::kFloat, {2}, 2);
  Tensor s = Tensor::Sequence(ElementType::kFloat, {a});
  for (bool present : {true, false}) {
    SCOPED_TRACE(present ? "present optional" : "empty optional");
    Tensor o =
        present ? Input(ElementType::kFloat, {2}, 3) : Tensor::NoneOptional(ElementType::kFloat);
    const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", x}, {"s", s}, {"o", o}};
    for (bool compile : {false, true}) {
      SCOPED_TRACE(compile ? "compiled" : "evaluator");
      std::unique_ptr<TirSession> session = Load(kText, compile);
      ASSERT_NE(session, nullptr);
      absl::StatusOr<std::vector<Tensor>> out = session->Run(inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), 4u);
      const Tensor& y = (*out)[0];
      ASSERT_EQ(y.dims(), (Shape{5}));
      for (int i = 0; i < 2; ++i) EXPECT_EQ(y.As<float>()[i], a.As<float>()[i]);
      for (int i = 0; i < 3; ++i) EXPECT_EQ(y.As<float>()[2 + i], std::max(x.As<float>()[i], 0.0f));
      const Tensor& t = (*out)[1];
      ASSERT_EQ(t.kind(), ValueKind::kSequence);
      ASSERT_EQ(t.elements().size(), 2u);
      EXPECT_EQ(t.elements()[1].dims(), (Shape{3}));
      EXPECT_EQ(*(*out)[2].As<bool>(), present);
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ((*out)[3].As<float>()[i], std::max(x.As<float>()[i], 0.0f) + x.As<float>()[i]);
      }
    }
  }
}

// Strings are std::string objects: the evaluator runs a string intermediate through its kernels,
// the compiler refuses to emit a planned buffer for one (Unimplemented naming the tensor)
// instead of handing a kernel raw bytes.
TEST(JitTest, StringIntermediatesAreEvaluatedButNotCompiled) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[4] x) => (float[4] y) {
  s = Cast <to = 8> (x)
  u = StringNormalizer <case_change_action = "UPPER"> (s)
  y = Cast <to = 1> (u)
})";
  std::unique_ptr<TirSession> eval = Load(kText, false);
  ASSERT_NE(eval, nullptr);
  Tensor x = Input(ElementType::kFloat, {4}, 1);
  absl::StatusOr<std::vector<Tensor>> y = eval->Run({{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(std::memcmp((*y)[0].data(), x.data(), x.ByteSize()), 0);

  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
  ASSERT_TRUE(model.ok()) << model.status();
  TirSessionOptions options;
  options.compile = true;
  options.jit.cache_dir = CacheDir();
  absl::StatusOr<std::unique_ptr<TirSession>> jit = TirSession::Load(*std::move(model), options);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.status().code(), absl::StatusCode::kUnimplemented) << jit.status();
  EXPECT_TRUE(absl::StrContains(jit.status().message(), "string tensor 's'")) << jit.status();
}

TEST(JitTest, IntegerArithmeticWrapsAndDivisionByZeroFails) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (int32[N] a, int32[N] b) => (int32[N] s, int32[N] q, int32[N] r) {
  s = Mul(a, b)
  q = Div(a, b)
  r = Mod(a, b)
})";
  Tensor a = Input(ElementType::kInt32, {6}, 1);
  Tensor b = Input(ElementType::kInt32, {6}, 5);
  for (int k = 0; k < 6; ++k) {
    if (b.As<int32_t>()[k] == 0) b.As<int32_t>()[k] = -3;
  }
  a.As<int32_t>()[0] = INT32_MIN;
  b.As<int32_t>()[0] = -1;
  ExpectSameBits(kText, {{"a", a}, {"b", b}});
}

TEST(JitTest, SecondLoadComesFromTheCache) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N] x) => (float[N] y) {
  y = Exp(x)
})";
  std::unique_ptr<TirSession> first = Load(kText, true);
  std::unique_ptr<TirSession> second = Load(kText, true);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_TRUE(second->compiled()->stats().cached);
  EXPECT_EQ(second->compiled()->stats().compile_seconds, 0);
}

// A cache prepared elsewhere serves read-only: the library is loaded from the shared directory
// (made unwritable here), and nothing is compiled or written into the private cache.
TEST(JitTest, ASharedReadOnlyCacheServesWithoutCompiling) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N] x) => (float[N] y) {
  y = Tanh(x)
})";
  namespace fs = std::filesystem;
  const fs::path root = fs::path(CacheDir()) / "shared-test";
  fs::remove_all(root);
  const std::string shared = (root / "shared").string(), own = (root / "own").string();
  auto load = [&](const std::string& cache, std::vector<std::string> shared_dirs) {
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
    EXPECT_TRUE(model.ok()) << model.status();
    TirSessionOptions options;
    options.compile = true;
    options.cost_check = false;
    options.jit.cache_dir = cache;
    options.jit.shared_cache_dirs = std::move(shared_dirs);
    absl::StatusOr<std::unique_ptr<TirSession>> s = TirSession::Load(*std::move(model), options);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *std::move(s) : nullptr;
  };
  std::unique_ptr<TirSession> prepared = load(shared, {});  // fills `shared`
  ASSERT_NE(prepared, nullptr);
  EXPECT_FALSE(prepared->compiled()->stats().cached);
  fs::permissions(shared, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  std::unique_ptr<TirSession> user = load(own, {(root / "missing").string(), shared});
  ASSERT_NE(user, nullptr);
  EXPECT_TRUE(user->compiled()->stats().cached);
  EXPECT_EQ(user->compiled()->stats().compile_seconds, 0);
  EXPECT_EQ(fs::path(user->compiled()->stats().library_path).parent_path(), fs::path(shared));
  EXPECT_FALSE(fs::exists(own));  // nothing compiled, nothing written
  Tensor x = Input(ElementType::kFloat, {5}, 3);
  absl::StatusOr<std::vector<Tensor>> a = prepared->Run({{"x", x}});
  absl::StatusOr<std::vector<Tensor>> b = user->Run({{"x", x}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(std::memcmp((*a)[0].data(), (*b)[0].data(), (*a)[0].ByteSize()), 0);
  fs::permissions(shared, fs::perms::owner_all, fs::perm_options::add);
  fs::remove_all(root);
}

}  // namespace
}  // namespace anvil::lower
