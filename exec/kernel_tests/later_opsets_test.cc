// Tests of the ONNX ops and revisions of opsets 18 to 26 (graph/later_opsets.h) through the node
// executor, shape rules included: the moved and new operands (Reduce* axes, Split num_outputs,
// Pad axes and wrap, Resize axes, DFT's axis input), the new ops (Attention, RMSNormalization,
// RotaryEmbedding, GroupNormalization, Gelu, Mish, Bitwise*, Swish, TensorScatter), against
// references computed here or against the same computation at an older opset.
// tools/opsets_vs_ort.py runs these ops in ONNX Runtime 1.30 itself.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "exec/testing/kernel_test_util.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::CompareTensors;
using kernel_testing::Dims;
using kernel_testing::Floats;
using kernel_testing::Int64s;
using kernel_testing::MakeTensor;
using kernel_testing::ModelText;
using kernel_testing::RunText;
using kernel_testing::Values;

std::vector<float> Uniform(int64_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

Tensor RunOne(const std::string& text, const std::vector<Tensor>& inputs, int output = 0) {
  absl::StatusOr<std::vector<Tensor>> out = RunText(text, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || static_cast<int>(out->size()) <= output) return Tensor();
  return std::move((*out)[output]);
}

TEST(LaterOpsetsTest, ReduceAxesAreAnInputFromOpset18) {
  const Tensor x = Floats({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor mean =
      RunOne(ModelText(18, "agraph (float[2, 3] x, int64[1] axes) => (float[2, 1] y)",
                       "y = ReduceMean (x, axes)"),
             {x, Int64s({1}, {1})});
  EXPECT_EQ(CompareTensors(mean, Floats({2, 1}, {2, 5})), "");
  // Empty axes with noop_with_empty_axes: the input itself; LogSum still takes its log.
  const Tensor noop =
      RunOne(ModelText(18, "agraph (float[2, 3] x, int64[0] axes) => (float[2, 3] y)",
                       "y = ReduceLogSum <noop_with_empty_axes = 1> (x, axes)"),
             {x, Int64s({0}, {})});
  EXPECT_EQ(CompareTensors(noop, Floats({2, 3}, {0, std::log(2.0f), std::log(3.0f), std::log(4.0f),
                                                 std::log(5.0f), std::log(6.0f)})),
            "");
  // ReduceMax-20 on bool is any.
  const Tensor b = MakeTensor<uint8_t>(ElementType::kBool, {2, 3}, {0, 0, 1, 0, 0, 0});
  const Tensor any = RunOne(ModelText(20, "agraph (bool[2, 3] x, int64[1] axes) => (bool[2] y)",
                                      "y = ReduceMax <keepdims = 0> (x, axes)"),
                            {b, Int64s({1}, {1})});
  EXPECT_EQ(Values<uint8_t>(any), (std::vector<uint8_t>{1, 0}));
}

TEST(LaterOpsetsTest, SplitIntoNumOutputsPiecesTheLastShorter) {
  const Tensor x = Floats({7}, {0, 1, 2, 3, 4, 5, 6});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(18, "agraph (float[7] x) => (float[3] a, float[3] b, float[1] c)",
                        "a, b, c = Split <num_outputs = 3> (x)"),
              {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(CompareTensors((*out)[0], Floats({3}, {0, 1, 2})), "");
  EXPECT_EQ(CompareTensors((*out)[2], Floats({1}, {6})), "");
  // num_outputs must be the number of outputs.
  EXPECT_FALSE(RunText(ModelText(18, "agraph (float[7] x) => (float[4] a, float[3] b)",
                                 "a, b = Split <num_outputs = 3> (x)"),
                       {x})
                   .ok());
}

TEST(LaterOpsetsTest, PadAxesAndWrap) {
  const Tensor x = Floats({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor axes = RunOne(
      ModelText(18,
                "agraph (float[2, 3] x, int64[2] pads, float c, int64[1] axes) => (float[2, 5] y)",
                "y = Pad (x, pads, c, axes)"),
      {x, Int64s({2}, {1, 1}), Floats({}, {9}), Int64s({1}, {-1})});
  EXPECT_EQ(CompareTensors(axes, Floats({2, 5}, {9, 1, 2, 3, 9, 9, 4, 5, 6, 9})), "");
  // wrap: periodic, also for a pad wider than the dim.
  const Tensor wrap =
      RunOne(ModelText(19, "agraph (float[2, 3] x, int64[4] pads) => (float[2, 8] y)",
                       "y = Pad <mode = \"wrap\"> (x, pads)"),
             {x, Int64s({4}, {0, 4, 0, 1})});
  EXPECT_EQ(CompareTensors(wrap, Floats({2, 8}, {3, 1, 2, 3, 1, 2, 3, 1,  //
                                                 6, 4, 5, 6, 4, 5, 6, 4})),
            "");
  // wrap is no mode of Pad-18.
  EXPECT_FALSE(RunText(ModelText(18, "agraph (float[2, 3] x, int64[4] pads) => (float[2, 8] y)",
                                 "y = Pad <mode = \"wrap\"> (x, pads)"),
                       {x, Int64s({4}, {0, 4, 0, 1})})
                   .ok());
}

TEST(LaterOpsetsTest, ResizeAxesScaleOnlyTheirDims) {
  const Tensor x = Floats({1, 2, 2, 3}, Uniform(12, -1, 1, 1));
  const Tensor partial =
      RunOne(ModelText(18, "agraph (float[1, 2, 2, 3] x, float[2] scales) => (float[1, 2, 4, 6] y)",
                       "y = Resize <mode = \"linear\", axes = [2, 3]> (x, , scales)"),
             {x, Tensor(), Floats({2}, {2, 2})});
  const Tensor whole =
      RunOne(ModelText(13, "agraph (float[1, 2, 2, 3] x, float[4] scales) => (float[1, 2, 4, 6] y)",
                       "y = Resize <mode = \"linear\"> (x, , scales)"),
             {x, Tensor(), Floats({4}, {1, 1, 2, 2})});
  EXPECT_EQ(CompareTensors(partial, whole, 0, 0), "");
}

TEST(LaterOpsetsTest, DftAxisIsAnInputFromOpset20) {
  const Tensor x = Floats({2, 8, 1}, Uniform(16, -1, 1, 2));
  const Tensor v20 =
      RunOne(ModelText(20, "agraph (float[2, 8, 1] x, int64 axis) => (float[2, 8, 2] y)",
                       "y = DFT (x, , axis)"),
             {x, Tensor(), Int64s({}, {1})});
  const Tensor v17 = RunOne(
      ModelText(17, "agraph (float[2, 8, 1] x) => (float[2, 8, 2] y)", "y = DFT <axis = 1> (x)"),
      {x});
  EXPECT_EQ(CompareTensors(v20, v17, 0, 0), "");
  // Without the input, the axis is -2: the same dim here.
  const Tensor dflt =
      RunOne(ModelText(20, "agraph (float[2, 8, 1] x) => (float[2, 8, 2] y)", "y = DFT (x)"), {x});
  EXPECT_EQ(CompareTensors(dflt, v17, 0, 0), "");
}

TEST(LaterOpsetsTest, NewElementwiseOps) {
  const std::vector<float> xs = {-3, -0.5f, 0, 0.7f, 2.5f};
  const Tensor x = Floats({5}, xs);
  const Tensor tanh_gelu = RunOne(
      ModelText(20, "agraph (float[5] x) => (float[5] y)", "y = Gelu <approximate = \"tanh\"> (x)"),
      {x});
  const Tensor mish =
      RunOne(ModelText(18, "agraph (float[5] x) => (float[5] y)", "y = Mish (x)"), {x});
  std::vector<float> want_gelu, want_mish;
  for (float v : xs) {
    const double d = v;
    want_gelu.push_back(static_cast<float>(
        0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d)))));
    want_mish.push_back(static_cast<float>(d * std::tanh(std::log1p(std::exp(d)))));
  }
  EXPECT_EQ(CompareTensors(tanh_gelu, Floats({5}, want_gelu), 1e-6), "");
  EXPECT_EQ(CompareTensors(mish, Floats({5}, want_mish), 1e-6), "");

  const Tensor a = MakeTensor<int32_t>(ElementType::kInt32, {2, 2}, {12, -1, 7, 0});
  const Tensor b = MakeTensor<int32_t>(ElementType::kInt32, {2}, {10, 6});
  const Tensor x_and = RunOne(ModelText(18, "agraph (int32[2, 2] a, int32[2] b) => (int32[2, 2] y)",
                                        "y = BitwiseAnd (a, b)"),
                              {a, b});
  EXPECT_EQ(Values<int32_t>(x_and), (std::vector<int32_t>{8, 6, 2, 0}));
  const Tensor x_not =
      RunOne(ModelText(18, "agraph (int32[2, 2] a) => (int32[2, 2] y)", "y = BitwiseNot (a)"), {a});
  EXPECT_EQ(Values<int32_t>(x_not), (std::vector<int32_t>{-13, 0, -8, -1}));
}

TEST(LaterOpsetsTest, GroupNormalizationPerChannelFrom21PerGroupBefore) {
  const int64_t n = 2, c = 4, hw = 3, groups = 2;
  const std::vector<float> xs = Uniform(n * c * hw, -2, 2, 3);
  const std::vector<float> scale = {0.5f, 1, 1.5f, 2}, bias = {0, 0.1f, 0.2f, 0.3f};
  auto reference = [&](bool per_channel) {
    std::vector<float> y(xs.size());
    const int64_t block = c / groups * hw;
    for (int64_t ng = 0; ng < n * groups; ++ng) {
      double sum = 0, sq = 0;
      for (int64_t i = 0; i < block; ++i) sum += xs[ng * block + i];
      const double mean = sum / block;
      for (int64_t i = 0; i < block; ++i) sq += std::pow(xs[ng * block + i] - mean, 2);
      const double inv = 1 / std::sqrt(sq / block + 1e-5);
      for (int64_t i = 0; i < block; ++i) {
        const int64_t ch = (ng % groups) * (c / groups) + i / hw;
        const int64_t p = per_channel ? ch : ng % groups;
        y[ng * block + i] =
            static_cast<float>((xs[ng * block + i] - mean) * inv * scale[p] + bias[p]);
      }
    }
    return Floats({n, c, hw}, y);
  };
  const Tensor v21 = RunOne(
      ModelText(21, "agraph (float[2, 4, 3] x, float[4] s, float[4] b) => (float[2, 4, 3] y)",
                "y = GroupNormalization <num_groups = 2> (x, s, b)"),
      {Floats({n, c, hw}, xs), Floats({4}, scale), Floats({4}, bias)});
  EXPECT_EQ(CompareTensors(v21, reference(true), 1e-5, 1e-6), "");
  const Tensor v18 = RunOne(
      ModelText(18, "agraph (float[2, 4, 3] x, float[2] s, float[2] b) => (float[2, 4, 3] y)",
                "y = GroupNormalization <num_groups = 2> (x, s, b)"),
      {Floats({n, c, hw}, xs), Floats({2}, {0.5f, 1}), Floats({2}, {0, 0.1f})});
  EXPECT_EQ(CompareTensors(v18, reference(false), 1e-5, 1e-6), "");
}

TEST(LaterOpsetsTest, RmsNormalizationIsTheSimplifiedLayerNorm) {
  const Tensor x = Floats({2, 4}, Uniform(8, -1, 1, 4));
  const Tensor g = Floats({4}, {1, 2, 3, 4});
  const Tensor rms = RunOne(ModelText(23, "agraph (float[2, 4] x, float[4] g) => (float[2, 4] y)",
                                      "y = RMSNormalization <epsilon = 0.001> (x, g)"),
                            {x, g});
  const Tensor simplified =
      RunOne(ModelText(17, "agraph (float[2, 4] x, float[4] g) => (float[2, 4] y)",
                       "y = SimplifiedLayerNormalization <epsilon = 0.001> (x, g)"),
             {x, g});
  EXPECT_EQ(CompareTensors(rms, simplified, 0, 0), "");
}

// ONNX's scale need only broadcast to the normalized dims: [4] or [1, 1, 4] over [3, 4] (axis
// -2) is the [3, 4] scale repeated. A scale varying over a dim before the axis is Unimplemented,
// one that does not broadcast is refused, each naming the node.
TEST(LaterOpsetsTest, RmsNormalizationScaleBroadcastsToTheNormalizedDims) {
  const Tensor x = Floats({2, 3, 4}, Uniform(24, -1, 1, 9));
  const std::vector<float> row = {1, 2, 3, 4};
  std::vector<float> full;
  for (int i = 0; i < 3; ++i) full.insert(full.end(), row.begin(), row.end());
  auto run = [&](const std::string& scale_dims, const Tensor& g) {
    return RunText(
        ModelText(23, "agraph (float[2, 3, 4] x, float" + scale_dims + " g) => (float[2, 3, 4] y)",
                  "y = RMSNormalization <axis = -2> (x, g)"),
        {x, g});
  };
  absl::StatusOr<std::vector<Tensor>> want = run("[3, 4]", Floats({3, 4}, full));
  ASSERT_TRUE(want.ok()) << want.status();
  for (const auto& [dims, shape] :
       {std::pair<std::string, std::vector<int64_t>>{"[4]", {4}}, {"[1, 1, 4]", {1, 1, 4}}}) {
    absl::StatusOr<std::vector<Tensor>> got = run(dims, Floats(shape, row));
    ASSERT_TRUE(got.ok()) << dims << ": " << got.status();
    EXPECT_EQ(CompareTensors((*got)[0], (*want)[0], 0, 0), "") << dims;
  }
  absl::StatusOr<std::vector<Tensor>> per_batch = run("[2, 1, 1]", Floats({2, 1, 1}, {1, 2}));
  EXPECT_EQ(per_batch.status().code(), absl::StatusCode::kUnimplemented) << per_batch.status();
  absl::StatusOr<std::vector<Tensor>> wrong = run("[5]", Floats({5}, {1, 2, 3, 4, 5}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("RMSNormalization"), std::string::npos) << wrong.status();
}

TEST(LaterOpsetsTest, RotaryEmbeddingWithIdsOrPerTokenCaches) {
  const int64_t b = 1, heads = 2, s = 3, d = 4, max_pos = 8;
  const Tensor x = Floats({b, heads, s, d}, Uniform(b * heads * s * d, -1, 1, 5));
  const std::vector<float> cos = Uniform(max_pos * d / 2, -1, 1, 6);
  const std::vector<float> sin = Uniform(max_pos * d / 2, -1, 1, 7);
  const std::vector<int64_t> ids = {5, 2, 7};
  const Tensor with_ids = RunOne(
      ModelText(23,
                "agraph (float[1, 2, 3, 4] x, float[8, 2] c, float[8, 2] s, int64[1, 3] p) => "
                "(float[1, 2, 3, 4] y)",
                "y = RotaryEmbedding (x, c, s, p)"),
      {x, Floats({max_pos, d / 2}, cos), Floats({max_pos, d / 2}, sin), Int64s({1, 3}, ids)});
  // The same rows gathered into per-token caches [B, S, D / 2], without ids.
  std::vector<float> cos_rows, sin_rows;
  for (int64_t p : ids) {
    cos_rows.insert(cos_rows.end(), cos.begin() + p * d / 2, cos.begin() + (p + 1) * d / 2);
    sin_rows.insert(sin_rows.end(), sin.begin() + p * d / 2, sin.begin() + (p + 1) * d / 2);
  }
  const Tensor per_token =
      RunOne(ModelText(23,
                       "agraph (float[1, 2, 3, 4] x, float[1, 3, 2] c, float[1, 3, 2] s) => "
                       "(float[1, 2, 3, 4] y)",
                       "y = RotaryEmbedding (x, c, s)"),
             {x, Floats({b, s, d / 2}, cos_rows), Floats({b, s, d / 2}, sin_rows)});
  EXPECT_EQ(CompareTensors(with_ids, per_token, 0, 0), "");
  // Head 0, token 0, pair (x0, x2) turns by position 5's angle.
  const std::vector<float> xv = Values<float>(x), yv = Values<float>(with_ids);
  EXPECT_NEAR(yv[0], xv[0] * cos[10] - xv[2] * sin[10], 1e-6);
}

// Attention-23 against a double reference of ONNX's definition.
struct AttentionCase {
  int64_t batch = 1, hq = 4, hkv = 2, seq = 3, len = 3, past = 2, d = 8, dv = 6;
  bool causal = true;
  float softcap = 0;
  bool float_mask = false;
};

std::vector<double> AttentionReference(const AttentionCase& c, const std::vector<float>& q,
                                       const std::vector<float>& k, const std::vector<float>& v,
                                       const std::vector<float>& pk, const std::vector<float>& pv,
                                       const std::vector<float>& mask) {
  const int64_t total = c.past + c.len, groups = c.hq / c.hkv;
  std::vector<double> y(c.batch * c.hq * c.seq * c.dv, 0.0);
  auto key = [&](int64_t b, int64_t j, int64_t t, int64_t i) -> double {
    return t < c.past ? pk[((b * c.hkv + j) * c.past + t) * c.d + i]
                      : k[((b * c.hkv + j) * c.len + t - c.past) * c.d + i];
  };
  auto value = [&](int64_t b, int64_t j, int64_t t, int64_t i) -> double {
    return t < c.past ? pv[((b * c.hkv + j) * c.past + t) * c.dv + i]
                      : v[((b * c.hkv + j) * c.len + t - c.past) * c.dv + i];
  };
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t h = 0; h < c.hq; ++h) {
      for (int64_t s = 0; s < c.seq; ++s) {
        std::vector<double> row(total);
        double top = -std::numeric_limits<double>::infinity();
        for (int64_t t = 0; t < total; ++t) {
          double dot = 0;
          for (int64_t i = 0; i < c.d; ++i) {
            dot += q[((b * c.hq + h) * c.seq + s) * c.d + i] * key(b, h / groups, t, i);
          }
          dot /= std::sqrt(static_cast<double>(c.d));
          if (c.softcap > 0) dot = c.softcap * std::tanh(dot / c.softcap);
          if (c.float_mask) dot += mask[s * total + t];
          if (c.causal && t > s + c.past) dot = -std::numeric_limits<double>::infinity();
          row[t] = dot;
          top = std::max(top, dot);
        }
        double sum = 0;
        for (double& r : row) sum += (r = std::exp(r - top));
        for (int64_t i = 0; i < c.dv; ++i) {
          double acc = 0;
          for (int64_t t = 0; t < total; ++t) acc += row[t] / sum * value(b, h / groups, t, i);
          y[((b * c.hq + h) * c.seq + s) * c.dv + i] = acc;
        }
      }
    }
  }
  return y;
}

TEST(LaterOpsetsTest, AttentionMatchesOnnxsDefinition) {
  for (AttentionCase c : {AttentionCase{}, AttentionCase{.past = 0, .causal = false},
                          AttentionCase{.softcap = 2, .float_mask = true},
                          AttentionCase{.hq = 2, .hkv = 2, .seq = 1, .len = 1, .past = 5}}) {
    const int64_t total = c.past + c.len;
    const std::vector<float> q = Uniform(c.batch * c.hq * c.seq * c.d, -1, 1, 8);
    const std::vector<float> k = Uniform(c.batch * c.hkv * c.len * c.d, -1, 1, 9);
    const std::vector<float> v = Uniform(c.batch * c.hkv * c.len * c.dv, -1, 1, 10);
    const std::vector<float> pk = Uniform(c.batch * c.hkv * c.past * c.d, -1, 1, 11);
    const std::vector<float> pv = Uniform(c.batch * c.hkv * c.past * c.dv, -1, 1, 12);
    const std::vector<float> mask = Uniform(c.seq * total, -1, 0, 13);
    const std::string what = absl::StrCat("past ", c.past, " softcap ", c.softcap);
    const std::string sig = absl::StrCat(
        "agraph (float[", c.batch, ", ", c.hq, ", ", c.seq, ", ", c.d, "] q, float[", c.batch, ", ",
        c.hkv, ", ", c.len, ", ", c.d, "] k, float[", c.batch, ", ", c.hkv, ", ", c.len, ", ", c.dv,
        "] v, float[", c.seq, ", ", total, "] m, float[", c.batch, ", ", c.hkv, ", ", c.past, ", ",
        c.d, "] pk, float[", c.batch, ", ", c.hkv, ", ", c.past, ", ", c.dv, "] pv) => (float[",
        c.batch, ", ", c.hq, ", ", c.seq, ", ", c.dv, "] y, float[", c.batch, ", ", c.hkv, ", ",
        total, ", ", c.d, "] present_k)");
    std::string operands = "q, k, v";
    if (c.float_mask || c.past > 0) absl::StrAppend(&operands, ", ", c.float_mask ? "m" : "");
    if (c.past > 0) absl::StrAppend(&operands, ", pk, pv");
    const std::string body =
        absl::StrCat("y, present_k = Attention <is_causal = ", c.causal ? 1 : 0,
                     ", softcap = ", c.softcap, ".0> (", operands, ")");
    std::vector<Tensor> inputs = {Floats({c.batch, c.hq, c.seq, c.d}, q),
                                  Floats({c.batch, c.hkv, c.len, c.d}, k),
                                  Floats({c.batch, c.hkv, c.len, c.dv}, v)};
    if (c.float_mask || c.past > 0) {
      inputs.push_back(c.float_mask ? Floats({c.seq, total}, mask) : Tensor());
    }
    if (c.past > 0) {
      inputs.push_back(Floats({c.batch, c.hkv, c.past, c.d}, pk));
      inputs.push_back(Floats({c.batch, c.hkv, c.past, c.dv}, pv));
    }
    absl::StatusOr<std::vector<Tensor>> out = RunText(ModelText(23, sig, body), inputs);
    ASSERT_TRUE(out.ok()) << what << ": " << out.status();
    const std::vector<double> want = AttentionReference(c, q, k, v, pk, pv, mask);
    const std::vector<float> got = Values<float>((*out)[0]);
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-5) << what << " element " << i;
    }
    // present_key: the past rows, then the new ones.
    const std::vector<float> present = Values<float>((*out)[1]);
    ASSERT_EQ(Dims((*out)[1]), (std::vector<int64_t>{c.batch, c.hkv, total, c.d}));
    if (c.past > 0) {
      EXPECT_EQ(present[0], pk[0]) << what;
    }
    EXPECT_EQ(present[c.past * c.d], k[0]) << what;
  }
}

TEST(LaterOpsetsTest, AttentionRowWithEveryKeyMaskedIsZero) {
  const Tensor q = Floats({1, 1, 2, 2}, {1, 0, 0, 1});
  const Tensor kv = Floats({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor mask = MakeTensor<uint8_t>(ElementType::kBool, {2, 2}, {0, 0, 1, 1});
  const Tensor y =
      RunOne(ModelText(23,
                       "agraph (float[1, 1, 2, 2] q, float[1, 1, 2, 2] k, float[1, 1, 2, 2] v, "
                       "bool[2, 2] m) => (float[1, 1, 2, 2] y)",
                       "y = Attention (q, k, v, m)"),
             {q, kv, kv, mask});
  const std::vector<float> yv = Values<float>(y);
  EXPECT_EQ(yv[0], 0.0f);
  EXPECT_EQ(yv[1], 0.0f);
  EXPECT_GT(yv[2], 1.0f);  // the second row attends both keys
}

TEST(LaterOpsetsTest, AttentionNonpadLengthsAndNarrowMasksFrom24) {
  // One query over 3 keys; nonpad_kv_seqlen 1 leaves only key 0, so Y is value 0.
  const Tensor q = Floats({1, 1, 1, 2}, {0.3f, -0.2f});
  const Tensor k = Floats({1, 1, 3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor v = Floats({1, 1, 3, 2}, {10, 20, 30, 40, 50, 60});
  const std::string sig =
      "agraph (float[1, 1, 1, 2] q, float[1, 1, 3, 2] k, float[1, 1, 3, 2] v, float[1, 2] m, "
      "int64[1] n) => (float[1, 1, 1, 2] y)";
  const Tensor first = RunOne(ModelText(24, sig, "y = Attention (q, k, v, , , , n)"),
                              {q, k, v, Tensor(), Tensor(), Tensor(), Int64s({1}, {1})});
  EXPECT_EQ(CompareTensors(first, Floats({1, 1, 1, 2}, {10, 20}), 0, 1e-5), "");
  // A mask of 2 columns for 3 keys: the third is masked; a zero mask leaves keys 0 and 1 equal
  // in weight to what no mask gives them.
  const Tensor narrow =
      RunOne(ModelText(24, sig, "y = Attention (q, k, v, m)"), {q, k, v, Floats({1, 2}, {0, 0})});
  const Tensor two = RunOne(ModelText(24, sig, "y = Attention (q, k, v, , , , n)"),
                            {q, k, v, Tensor(), Tensor(), Tensor(), Int64s({1}, {2})});
  EXPECT_EQ(CompareTensors(narrow, two, 1e-6, 1e-6), "");
  // At opset 23 the mask must cover every key.
  EXPECT_FALSE(
      RunText(ModelText(23, sig, "y = Attention (q, k, v, m)"), {q, k, v, Floats({1, 2}, {0, 0})})
          .ok());
}

TEST(LaterOpsetsTest, SwishAndTensorScatterFrom24) {
  const Tensor x = Floats({3}, {-2, 0.5f, 3});
  const Tensor swish = RunOne(
      ModelText(24, "agraph (float[3] x) => (float[3] y)", "y = Swish <alpha = 0.5> (x)"), {x});
  std::vector<float> want;
  for (float v : {-2.0f, 0.5f, 3.0f}) want.push_back(v / (1 + std::exp(-0.5f * v)));
  EXPECT_EQ(CompareTensors(swish, Floats({3}, want), 1e-6), "");

  // Cache [B=2, S=4, D=1]; batch 0 writes 2 rows at 1, batch 1 at 3 (circular: 3, then 0).
  const Tensor cache = Floats({2, 4, 1}, {0, 1, 2, 3, 10, 11, 12, 13});
  const Tensor update = Floats({2, 2, 1}, {-1, -2, -3, -4});
  const std::string sig =
      "agraph (float[2, 4, 1] c, float[2, 2, 1] u, int64[2] w) => (float[2, 4, 1] y)";
  const Tensor circular =
      RunOne(ModelText(24, sig, "y = TensorScatter <axis = 1, mode = \"circular\"> (c, u, w)"),
             {cache, update, Int64s({2}, {1, 3})});
  EXPECT_EQ(CompareTensors(circular, Floats({2, 4, 1}, {0, -1, -2, 3, -4, 11, 12, -3}), 0, 0), "");
  // Linear: the rows must fit.
  EXPECT_FALSE(RunText(ModelText(24, sig, "y = TensorScatter <axis = 1> (c, u, w)"),
                       {cache, update, Int64s({2}, {1, 3})})
                   .ok());
}

TEST(LaterOpsetsTest, EqualComparesStringsFromOpset19) {
  Tensor a(ElementType::kString, {2});
  Tensor b(ElementType::kString, {2});
  a.As<std::string>()[0] = "onnx";
  a.As<std::string>()[1] = "anvil";
  b.As<std::string>()[0] = "onnx";
  b.As<std::string>()[1] = "forge";
  const Tensor eq =
      RunOne(ModelText(19, "agraph (string[2] a, string[2] b) => (bool[2] y)", "y = Equal (a, b)"),
             {a, b});
  EXPECT_EQ(Values<uint8_t>(eq), (std::vector<uint8_t>{1, 0}));
}

}  // namespace
}  // namespace anvil
