// Tests of com.microsoft MultiHeadAttention (ops/compute_attention.cc) against a double-precision
// reference of its definition, through the node executor (the shape rule included).
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "exec/testing/kernel_test_util.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::Floats;
using kernel_testing::RunText;
using kernel_testing::Values;

struct Shape3 {
  int64_t b, t, hidden;
};

Tensor Random(Shape3 s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(s.b * s.t * s.hidden);
  for (float& x : v) x = dist(rng);
  return Floats({s.b, s.t, s.hidden}, v);
}

// output[b, s, h, :] = softmax_l(scale * q[b, s, h, :] . k[b, l, h, :]) . v[b, :, h, :], in double.
// bias (or null): attention_bias [B or 1, H or 1, S, L], added to the scaled scores.
std::vector<double> Reference(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                              double scale, const Tensor* bias = nullptr) {
  const std::vector<float> qv = Values<float>(q), kv = Values<float>(k), vv = Values<float>(v);
  const int64_t batch = q.dims()[0], s = q.dims()[1], hidden = q.dims()[2];
  const int64_t l = k.dims()[1], v_hidden = v.dims()[2];
  const int64_t d = hidden / heads, dv = v_hidden / heads;
  std::vector<double> out(batch * s * v_hidden);
  std::vector<double> p(l);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < s; ++i) {
        double max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < l; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d; ++e) {
            dot += double{qv[(b * s + i) * hidden + h * d + e]} *
                   double{kv[(b * l + j) * hidden + h * d + e]};
          }
          p[j] = scale * dot;
          if (bias != nullptr) {
            const int64_t bb = bias->dims()[0] == 1 ? 0 : b, bh = bias->dims()[1] == 1 ? 0 : h;
            p[j] += bias->As<float>()[((bb * bias->dims()[1] + bh) * s + i) * l + j];
          }
          max = std::max(max, p[j]);
        }
        for (int64_t j = 0; j < l; ++j) sum += p[j] = std::exp(p[j] - max);
        for (int64_t e = 0; e < dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < l; ++j)
            acc += p[j] / sum * vv[(b * l + j) * v_hidden + h * dv + e];
          out[(b * s + i) * v_hidden + h * dv + e] = acc;
        }
      }
    }
  }
  return out;
}

std::string Model(const std::string& attrs, const std::string& type = "float") {
  return absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n", "agraph (", type,
      "[B, S, D] q, ", type, "[B, L, D] k, ", type, "[B, L, E] v) => (", type,
      "[B, S, E] y) {\n  y = com.microsoft.MultiHeadAttention <", attrs, "> (q, k, v)\n}\n");
}

void ExpectNearReference(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "element " << i;
  }
}

// Shapes covering cross-attention (L != S), value heads narrower than query heads, one head and
// many, sequences shorter than a GEMM tile, and S over the kernel's row block (16 rows of scores
// when L = 2048: three blocks).
TEST(MultiHeadAttentionTest, MatchesTheDefinition) {
  struct Case {
    Shape3 q, k, v;
    int64_t heads;
    std::string attrs;
    double scale;
  };
  const Case cases[] = {
      {{2, 5, 12}, {2, 7, 12}, {2, 7, 6}, 3, "num_heads = 3, scale = 0.5", 0.5},
      {{1, 1, 8}, {1, 1, 8}, {1, 1, 8}, 1, "num_heads = 1", 1 / std::sqrt(8.0)},
      {{3, 33, 64}, {3, 33, 64}, {3, 33, 64}, 4, "num_heads = 4, scale = 0.0", 0.25},
      {{1, 40, 8}, {1, 2048, 8}, {1, 2048, 4}, 2, "num_heads = 2, scale = 0.3", 0.3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attrs);
    const Tensor q = Random(c.q, 1), k = Random(c.k, 2), v = Random(c.v, 3);
    absl::StatusOr<std::vector<Tensor>> y = RunText(Model(c.attrs), {q, k, v});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(kernel_testing::Dims((*y)[0]), (std::vector<int64_t>{c.q.b, c.q.t, c.v.hidden}));
    ExpectNearReference(Values<float>((*y)[0]), Reference(q, k, v, c.heads, c.scale));
  }
}

// attention_bias (what fuse-attention makes of an additive mask), broadcast over batch or heads;
// a -10000 entry masks its key out.
TEST(MultiHeadAttentionTest, AttentionBiasIsAddedToTheScaledScores) {
  const Tensor q = Random({2, 20, 8}, 11), k = Random({2, 24, 8}, 12), v = Random({2, 24, 6}, 13);
  const std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n"
      "agraph (float[B, S, D] q, float[B, L, D] k, float[B, L, E] v, float[P, Q, S, L] m) => "
      "(float[B, S, E] y) {\n"
      "  y = com.microsoft.MultiHeadAttention <num_heads = 2, scale = 0.4> (q, k, v, , , m)\n}\n";
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{2, 1, 20, 24}, std::vector<int64_t>{1, 2, 20, 24}}) {
    std::vector<float> m = Values<float>(Random({dims[0] * dims[1], 20, 24}, 14));
    for (size_t i = 0; i < m.size(); i += 7) m[i] = -10000.0f;
    const Tensor bias = Floats(dims, m);
    absl::StatusOr<std::vector<Tensor>> y = RunText(text, {q, k, v, Tensor(), Tensor(), bias});
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectNearReference(Values<float>((*y)[0]), Reference(q, k, v, 2, 0.4, &bias));
  }
  const Tensor short_bias = Floats({2, 1, 1, 24}, std::vector<float>(48, 0.0f));
  absl::StatusOr<std::vector<Tensor>> y = RunText(text, {q, k, v, Tensor(), Tensor(), short_bias});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
}

// A negative scale takes each row's minimum as the shift; a query row whose scores are not finite
// (an inf in the query) takes the Softmax kernel's row rules, and the other rows of its block
// keep their values.
TEST(MultiHeadAttentionTest, NegativeScaleAndNonFiniteRows) {
  const Tensor q = Random({2, 9, 8}, 21), k = Random({2, 11, 8}, 22), v = Random({2, 11, 4}, 23);
  absl::StatusOr<std::vector<Tensor>> y = RunText(Model("num_heads = 2, scale = -0.6"), {q, k, v});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectNearReference(Values<float>((*y)[0]), Reference(q, k, v, 2, -0.6));

  std::vector<float> qv = Values<float>(q);
  qv[(0 * 9 + 3) * 8 + 1] = INFINITY;  // batch 0, row 3, head 0
  const Tensor q_inf = Floats({2, 9, 8}, qv);
  y = RunText(Model("num_heads = 2, scale = 0.5"), {q_inf, k, v});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> got = Values<float>((*y)[0]);
  const std::vector<double> want = Reference(q_inf, k, v, 2, 0.5);
  for (size_t i = 0; i < got.size(); ++i) {
    if (i / 2 == (0 * 9 + 3) * 2 + 0) continue;  // the row with the inf, head 0 (dv = 2)
    ASSERT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::fabs(want[i])) << "element " << i;
  }
}

// Threads split (batch, head) pairs, each computed as alone: the bits of one thread.
TEST(MultiHeadAttentionTest, ThreadsGiveTheBitsOfOne) {
  const Tensor q = Random({4, 20, 16}, 4), k = Random({4, 24, 16}, 5), v = Random({4, 24, 8}, 6);
  absl::StatusOr<std::vector<Tensor>> one = RunText(Model("num_heads = 2"), {q, k, v});
  ASSERT_TRUE(one.ok()) << one.status();
  parallel::ThreadScope threads(2);
  parallel::ScopedSplitAll split;
  absl::StatusOr<std::vector<Tensor>> two = RunText(Model("num_heads = 2"), {q, k, v});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(Values<float>((*one)[0]), Values<float>((*two)[0]));
}

TEST(MultiHeadAttentionTest, Float16ComputesInFloat) {
  const Shape3 shape{1, 6, 8};
  std::vector<Tensor> in, in16;
  for (uint32_t seed : {7u, 8u, 9u}) {
    const Tensor t = Random(shape, seed);
    std::vector<float> rounded = Values<float>(t);
    Tensor t16(ElementType::kFloat16, {1, 6, 8});
    for (size_t i = 0; i < rounded.size(); ++i) {
      t16.As<Half>()[i] = Half(rounded[i]);
      rounded[i] = static_cast<float>(t16.As<Half>()[i]);
    }
    in.push_back(Floats({1, 6, 8}, rounded));
    in16.push_back(std::move(t16));
  }
  absl::StatusOr<std::vector<Tensor>> y = RunText(Model("num_heads = 2", "float16"), in16);
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<double> want = Reference(in[0], in[1], in[2], 2, 0.5);
  ASSERT_EQ(static_cast<size_t>((*y)[0].NumElements()), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(static_cast<float>((*y)[0].As<Half>()[i]), want[i],
                2e-3 + 1e-3 * std::fabs(want[i]))
        << i;
  }
}

TEST(MultiHeadAttentionTest, UnsupportedFormsAreUnimplemented) {
  const Tensor q = Random({1, 2, 4}, 1), k = Random({1, 3, 4}, 2), v = Random({1, 3, 4}, 3);
  absl::StatusOr<std::vector<Tensor>> causal =
      RunText(Model("num_heads = 2, unidirectional = 1"), {q, k, v});
  EXPECT_EQ(causal.status().code(), absl::StatusCode::kUnimplemented) << causal.status();
  const std::string masked =
      "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n"
      "agraph (float[1, 2, 4] q, float[1, 3, 4] k, float[1, 3, 4] v, int32[1, 3] m) => "
      "(float[1, 2, 4] y) {\n"
      "  y = com.microsoft.MultiHeadAttention <num_heads = 2> (q, k, v, , m)\n}\n";
  absl::StatusOr<std::vector<Tensor>> with_mask = RunText(
      masked, {q, k, v, Tensor(),
               kernel_testing::MakeTensor<int32_t>(ElementType::kInt32, {1, 3}, {1, 1, 0})});
  EXPECT_EQ(with_mask.status().code(), absl::StatusCode::kUnimplemented) << with_mask.status();
  EXPECT_NE(with_mask.status().message().find("key_padding_mask"), std::string::npos)
      << with_mask.status();
  absl::StatusOr<std::vector<Tensor>> uneven = RunText(Model("num_heads = 3"), {q, k, v});
  EXPECT_EQ(uneven.status().code(), absl::StatusCode::kInvalidArgument) << uneven.status();
}

}  // namespace
}  // namespace anvil
