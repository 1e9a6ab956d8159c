#include "runtime/session.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "exec/interpreter.h"
#include "graph/limits.h"
#include "graph/model_io.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::unique_ptr<Session> LoadText(const std::string& text, SessionOptions options = {}) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor t(ElementType::kFloat, dims);
  for (size_t i = 0; i < values.size(); ++i) t.As<float>()[i] = values[i];
  return t;
}

// Deterministic inputs: x[i] = sin(i) * 2.
Tensor Wave(std::vector<int64_t> dims) {
  Tensor t(ElementType::kFloat, dims);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.As<float>()[i] = std::sin(i * 1.0f) * 2;
  return t;
}

// y = Sigmoid(Relu(x * w)) + x and z = -Reshape(Sigmoid(Relu(x * w)), [N, 2, 2]): Relu and
// Sigmoid can run in place, the Reshape (its target from Shape -> Gather -> Concat) aliases.
constexpr char kBatchModel[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (float[N, 4] x) => (float[N, 4] y, float[N, 2, 2] z)
<float[4] w = {1.0, -1.0, 2.0, -0.5}, int64[1] zero = {0}, int64[2] two2 = {2, 2}>
{
  a = Mul (x, w)
  b = Relu (a)
  c = Sigmoid (b)
  s = Shape (c)
  n = Gather <axis = 0> (s, zero)
  shp = Concat <axis = 0> (n, two2)
  r = Reshape (c, shp)
  z = Neg (r)
  y = Add (c, x)
}
)onnx";

void CheckBatchOutputs(const Tensor& x, const std::vector<Tensor>& out) {
  const float w[4] = {1.0f, -1.0f, 2.0f, -0.5f};
  const int64_t n = x.dims()[0];
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dims(), (Shape{n, 4}));
  ASSERT_EQ(out[1].dims(), (Shape{n, 2, 2}));
  for (int64_t i = 0; i < n * 4; ++i) {
    const float xv = x.As<float>()[i];
    const float c = 1.0f / (1.0f + std::exp(-std::max(0.0f, xv * w[i % 4])));
    EXPECT_NEAR(out[0].As<float>()[i], c + xv, 1e-5) << i;
    EXPECT_NEAR(out[1].As<float>()[i], -c, 1e-5) << i;
  }
}

TEST(SessionTest, SymbolicBatchReinfersAndReplansOnlyWhenShapesChange) {
  std::unique_ptr<Session> session = LoadText(kBatchModel);
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->inputs().size(), 1u);

  const Tensor x1 = Wave({1, 4});
  absl::StatusOr<std::vector<Tensor>> out = session->Run({{"x", x1}});
  ASSERT_TRUE(out.ok()) << out.status();
  CheckBatchOutputs(x1, *out);
  EXPECT_EQ(session->shape_inference_runs(), 1);
  EXPECT_EQ(session->memory_stats().plans, 1);
  const int64_t arena1 = session->memory_stats().arena_bytes;

  // Same shapes, other values: no inference, no planning.
  const Tensor x1b = Floats({1, 4}, {0.5f, -3.0f, 1.0f, 4.0f});
  out = session->Run({{"x", x1b}});
  ASSERT_TRUE(out.ok()) << out.status();
  CheckBatchOutputs(x1b, *out);
  EXPECT_EQ(session->shape_inference_runs(), 1);
  EXPECT_EQ(session->memory_stats().plans, 1);

  const Tensor x8 = Wave({8, 4});
  out = session->Run({{"x", x8}});
  ASSERT_TRUE(out.ok()) << out.status();
  CheckBatchOutputs(x8, *out);
  EXPECT_EQ(session->shape_inference_runs(), 2);
  EXPECT_EQ(session->memory_stats().plans, 2);
  const std::vector<std::string> changed = session->ChangedValues();
  EXPECT_NE(std::find(changed.begin(), changed.end(), "a"), changed.end());
  // `s` (Shape's [2]) keeps its size when N changes.
  EXPECT_EQ(std::find(changed.begin(), changed.end(), "s"), changed.end());

  MemoryStats stats = session->memory_stats();
  // Relu and Sigmoid overwrite their dying inputs; the Reshape is a view of c.
  EXPECT_EQ(stats.in_place_reuses, 2);
  EXPECT_GE(stats.aliases, 1);
  // a, b, c share one buffer (8x4 floats); the rest are tiny shape tensors.
  EXPECT_LE(stats.arena_bytes, stats.unshared_bytes);
  EXPECT_GE(stats.arena_bytes, stats.lower_bound_bytes);
  EXPECT_GT(stats.arena_bytes, arena1);

  const Tensor x1c = Wave({1, 4});
  out = session->Run({{"x", x1c}});
  ASSERT_TRUE(out.ok()) << out.status();
  CheckBatchOutputs(x1c, *out);
  EXPECT_EQ(session->shape_inference_runs(), 3);
  EXPECT_EQ(session->memory_stats().plans, 3);
  EXPECT_EQ(session->memory_stats().arena_bytes, arena1);
}

// An int8 weight MatMulInteger packs is released only when every run takes the packed path:
// with a per-row A zero point (a graph input of [M]) the general path reads B, so B stays; with
// a DynamicQuantizeLinear's zero point (one element by its shape rule) it goes. Both compute
// (A - a_zero) x B.
TEST(SessionTest, PackedInt8WeightsAreReleasedOnlyWhenEveryRunIsPacked) {
  constexpr char kModel[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (uint8[2, 3] a, uint8[2] az, float[2, 3] f) => (int32[2, 2] y, int32[2, 2] z)
<int8[3, 2] w = {1, -2, 3, 4, -5, 6}, int8[3, 2] v = {2, 0, -1, 1, 7, -3}>
{
  y = MatMulInteger (a, w, az)
  q, s, qz = DynamicQuantizeLinear (f)
  z = MatMulInteger (q, v, qz)
})onnx";
  std::unique_ptr<Session> session = LoadText(kModel);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->memory_stats().released_weight_bytes, 6);  // v, not w
  Tensor a(ElementType::kUint8, {2, 3}), az(ElementType::kUint8, {2});
  const uint8_t a_values[] = {10, 200, 3, 255, 0, 128};
  std::copy(std::begin(a_values), std::end(a_values), a.As<uint8_t>());
  az.As<uint8_t>()[0] = 10;
  az.As<uint8_t>()[1] = 128;
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"a", a}, {"az", az}, {"f", Floats({2, 3}, {0, 1, -1, 0.5, 2, -2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  const int32_t w[3][2] = {{1, -2}, {3, 4}, {-5, 6}};
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      int32_t want = 0;
      for (int64_t k = 0; k < 3; ++k) want += (a_values[i * 3 + k] - az.As<uint8_t>()[i]) * w[k][j];
      EXPECT_EQ((*out)[0].As<int32_t>()[i * 2 + j], want) << i << "," << j;
    }
  }
  EXPECT_EQ((*out)[1].NumElements(), 4);
}

// Weights that MatMul and Gemm pack at load are released (their bytes counted), unless another
// node reads them too; the products are the same as with the bytes kept.
TEST(SessionTest, PackedWeightsAreReleased) {
  constexpr char kWeights[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (float[N, 3] x) => (float[N, 2] y, float[N, 2] z, float[N, 2] q, float[3, 2] v)
<float[3, 2] w = {1, -2, 0.5, 3, -1, 2}, float[2, 3] g = {2, 1, -1, 0.25, 4, -3},
 float[3, 2] u = {1, 1, 2, 2, 3, 3}>
{
  y = MatMul (x, w)
  z = Gemm <transB = 1> (x, g)
  q = MatMul (x, u)
  v = Add (u, u)
})onnx";
  SessionOptions keep;
  keep.release_packed_weights = false;
  std::unique_ptr<Session> released = LoadText(kWeights), kept = LoadText(kWeights, keep);
  ASSERT_NE(released, nullptr);
  ASSERT_NE(kept, nullptr);
  // w and g (6 floats each); u stays for the Add.
  EXPECT_EQ(released->memory_stats().released_weight_bytes, 2 * 6 * 4);
  EXPECT_EQ(kept->memory_stats().released_weight_bytes, 0);
  const Value* w = released->model().graph().FindValue("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(std::vector<int64_t>(w->constant()->dims().begin(), w->constant()->dims().end()),
            (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(w->constant()->ContiguousData(), nullptr);
  EXPECT_NE(released->model().graph().FindValue("u")->constant()->ContiguousData(), nullptr);
  for (int64_t n : {1, 7}) {
    const Tensor x = Wave({n, 3});
    absl::StatusOr<std::vector<Tensor>> a = released->Run({{"x", x}});
    absl::StatusOr<std::vector<Tensor>> b = kept->Run({{"x", x}});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (size_t k = 0; k < a->size(); ++k) {
      ASSERT_EQ((*a)[k].NumElements(), (*b)[k].NumElements());
      for (int64_t i = 0; i < (*a)[k].NumElements(); ++i) {
        EXPECT_EQ((*a)[k].As<float>()[i], (*b)[k].As<float>()[i]) << "output " << k;
      }
    }
  }
}

// A tied embedding (Gather reads it for the tokens, the LM head's MatMul through a Transpose):
// the load pipeline's fuse-matmul-transpose makes the head a FusedMatMul reading the embedding
// in place, and its kernel packs no copy of a weight another node reads, so the embedding stays
// the one resident copy. A weight read through a Transpose by its MatMul alone is packed and
// released as before. Both give the products of the untransposed arithmetic, for one row (the
// decode path) and several.
TEST(SessionTest, TiedWeightStaysTheOneCopy) {
  constexpr char kTied[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (int64[N] ids, float[N, 3] h) => (float[N, 3] x, float[N, 4] logits, float[N, 2] y)
<float[4, 3] e = {1, -2, 0.5, 3, -1, 2, 0.25, 4, -3, 1.5, 2.5, -0.5},
 float[2, 3] w = {2, 1, -1, 0.25, 4, -3}>
{
  x = Gather (e, ids)
  t = Transpose <perm = [1, 0]> (e)
  logits = MatMul (h, t)
  u = Transpose (w)
  y = MatMul (h, u)
})onnx";
  std::unique_ptr<Session> session = LoadText(kTied);
  ASSERT_NE(session, nullptr);
  const Graph& graph = session->model().graph();
  for (const Node* node : graph.nodes()) EXPECT_NE(node->op_type(), "Transpose");
  const MemoryStats stats = session->memory_stats();
  EXPECT_EQ(stats.released_weight_bytes, 6 * 4);  // w's, packed
  EXPECT_GE(stats.kernel_copy_bytes, 6 * 4);
  EXPECT_EQ(stats.in_memory_weight_bytes, 12 * 4);  // e, once
  EXPECT_EQ(stats.mapped_weight_bytes, 0);
  const Value* e = graph.FindValue("e");
  ASSERT_NE(e, nullptr);
  ASSERT_NE(e->constant()->ContiguousData(), nullptr);
  const float* ev = reinterpret_cast<const float*>(e->constant()->ContiguousData());
  const float wv[] = {2, 1, -1, 0.25, 4, -3};
  for (int64_t n : {1, 7}) {
    const Tensor h = Wave({n, 3});
    Tensor ids(ElementType::kInt64, {n});
    for (int64_t i = 0; i < n; ++i) ids.As<int64_t>()[i] = (i * 3) % 4;
    absl::StatusOr<std::vector<Tensor>> out = session->Run({{"ids", ids}, {"h", h}});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < 3; ++k) {
        EXPECT_EQ((*out)[0].As<float>()[i * 3 + k], ev[ids.As<int64_t>()[i] * 3 + k]);
      }
      for (int64_t v = 0; v < 4; ++v) {
        double want = 0;
        for (int64_t k = 0; k < 3; ++k) want += double{h.As<float>()[i * 3 + k]} * ev[v * 3 + k];
        EXPECT_NEAR((*out)[1].As<float>()[i * 4 + v], want, 1e-5) << "n " << n;
      }
      for (int64_t j = 0; j < 2; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 3; ++k) want += double{h.As<float>()[i * 3 + k]} * wv[j * 3 + k];
        EXPECT_NEAR((*out)[2].As<float>()[i * 2 + j], want, 1e-5) << "n " << n;
      }
    }
  }
}

TEST(SessionTest, MatchesTheReferenceInterpreterWithoutReuseOrArena) {
  for (bool plan_memory : {false, true}) {
    SessionOptions options;
    options.plan_memory = plan_memory;
    options.reuse = plan_memory;
    std::unique_ptr<Session> session = LoadText(kBatchModel, options);
    ASSERT_NE(session, nullptr);
    const Tensor x = Wave({3, 4});
    absl::StatusOr<std::vector<Tensor>> out = session->Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status();
    CheckBatchOutputs(x, *out);
    absl::StatusOr<std::vector<Tensor>> ref =
        InterpretGraph(session->model(), session->model().graph(), {x});
    ASSERT_TRUE(ref.ok()) << ref.status();
    for (size_t k = 0; k < out->size(); ++k) {
      for (int64_t i = 0; i < (*out)[k].NumElements(); ++i) {
        EXPECT_EQ((*out)[k].As<float>()[i], (*ref)[k].As<float>()[i]);
      }
    }
  }
}

// Every kernel that splits its work across threads (GEMM by rows or columns, batched MatMul,
// Conv by image and group, pooling by plane, Softmax and LayerNormalization by row, element-wise
// rows) gives the single-threaded bits, whether the split follows the kernels' size thresholds
// or every loop splits.
TEST(SessionTest, ThreadsDoNotChangeResults) {
  constexpr char kModel[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (float[N, 8, 20, 20] x, float[N, 4, 30, 50] q, float[16, 8, 3, 3] w, float[16] bias,
     float[8, 1, 3, 3] dw, float[50] g, float[50] b, float[50, 64] m)
    => (float[N, 16, 10, 10] y, float[N, 4, 30, 30] p, float[N, 4, 30, 50] e)
{
  d = Conv <group = 8, pads = [1, 1, 1, 1]> (x, dw)
  c = Conv <pads = [1, 1, 1, 1]> (d, w, bias)
  r = Relu (c)
  y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (r)
  qt = Transpose <perm = [0, 1, 3, 2]> (q)
  s = MatMul (q, qt)
  p = Softmax <axis = -1> (s)
  ln = LayerNormalization <axis = -1> (q, g, b)
  h = MatMul (ln, m)
  a = AveragePool <kernel_shape = [1, 15], strides = [1, 1]> (h)
  z = Erf (a)
  e = Add (z, q)
}
)onnx";
  auto run = [&](int threads, bool split_all) {
    SessionOptions options;
    options.threads = threads;
    std::unique_ptr<Session> session = LoadText(kModel, options);
    std::optional<parallel::ScopedSplitAll> split;
    if (split_all) split.emplace();
    absl::StatusOr<std::vector<Tensor>> out = session->Run({{"x", Wave({3, 8, 20, 20})},
                                                            {"q", Wave({3, 4, 30, 50})},
                                                            {"w", Wave({16, 8, 3, 3})},
                                                            {"bias", Wave({16})},
                                                            {"dw", Wave({8, 1, 3, 3})},
                                                            {"g", Wave({50})},
                                                            {"b", Wave({50})},
                                                            {"m", Wave({50, 64})}});
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<std::vector<float>> values;
    for (const Tensor& t : *out)
      values.emplace_back(t.As<float>(), t.As<float>() + t.NumElements());
    return values;
  };
  const auto serial = run(1, false);
  ASSERT_EQ(serial.size(), 3u);
  EXPECT_EQ(run(2, false), serial);
  EXPECT_EQ(run(2, true), serial);
  EXPECT_EQ(run(3, true), serial);
}

// fuse-attention (in the load pipeline) gives what the spelled-out attention computes: the
// generated transformer's form (projections, Mul of the scores) and the
// scaled_dot_product_attention form (sqrt of the scale on q and on k^T, k transposed twice),
// cross-attention with dynamic lengths. The fused session runs MultiHeadAttention nodes, the other
// none.
TEST(SessionTest, AttentionFusionKeepsResults) {
  constexpr char kModel[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
net (float[N, S, 8] x, float[N, L, 8] m, float[8, 8] wq, float[N, 1, 1, L] mask)
    => (float[N, S, 8] y, float[N, S, 8] z, float[N, S, 8] w)
<int64[4] heads = {0, 0, 2, 4}, int64[3] joined = {0, 0, 8}, float scale = {0.35}, float root = {0.6}>
{
  q = MatMul (x, wq)
  q4 = Reshape (q, heads)
  k4 = Reshape (m, heads)
  v4 = Reshape (m, heads)
  qh = Transpose <perm = [0, 2, 1, 3]> (q4)
  kt = Transpose <perm = [0, 2, 3, 1]> (k4)
  vh = Transpose <perm = [0, 2, 1, 3]> (v4)
  s = MatMul (qh, kt)
  ss = Mul (s, scale)
  p = Softmax <axis = -1> (ss)
  o = MatMul (p, vh)
  ot = Transpose <perm = [0, 2, 1, 3]> (o)
  y = Reshape (ot, joined)
  a4 = Reshape (x, heads)
  b4 = Reshape (m, heads)
  c4 = Reshape (m, heads)
  ah = Transpose <perm = [0, 2, 1, 3]> (a4)
  as = Mul (ah, root)
  bh = Transpose <perm = [0, 2, 1, 3]> (b4)
  bt = Transpose <perm = [0, 1, 3, 2]> (bh)
  bs = Mul (bt, root)
  ch = Transpose <perm = [0, 2, 1, 3]> (c4)
  t = MatMul (as, bs)
  pt = Softmax (t)
  u = MatMul (pt, ch)
  ut = Transpose <perm = [0, 2, 1, 3]> (u)
  z = Reshape (ut, joined)
  d4 = Reshape (x, heads)
  e4 = Reshape (m, heads)
  f4 = Reshape (m, heads)
  dh = Transpose <perm = [0, 2, 1, 3]> (d4)
  et = Transpose <perm = [0, 2, 3, 1]> (e4)
  fh = Transpose <perm = [0, 2, 1, 3]> (f4)
  g = MatMul (dh, et)
  gs = Div (g, root)
  gm = Add (gs, mask)
  pg = Softmax <axis = -1> (gm)
  r = MatMul (pg, fh)
  rt = Transpose <perm = [0, 2, 1, 3]> (r)
  w = Reshape (rt, joined)
}
)onnx";
  auto run = [&](const std::string& pipeline) {
    SessionOptions options;
    options.pipeline = pipeline;
    options.profile = true;
    std::unique_ptr<Session> session = LoadText(kModel, options);
    std::vector<std::vector<float>> values;
    if (session == nullptr) return std::make_pair(values, int64_t{-1});
    Tensor mask = Wave({2, 1, 1, 7});
    mask.As<float>()[3] = mask.As<float>()[12] = -10000.0f;
    absl::StatusOr<std::vector<Tensor>> out = session->Run(
        {{"x", Wave({2, 5, 8})}, {"m", Wave({2, 7, 8})}, {"wq", Wave({8, 8})}, {"mask", mask}});
    EXPECT_TRUE(out.ok()) << out.status();
    if (out.ok()) {
      for (const Tensor& t : *out)
        values.emplace_back(t.As<float>(), t.As<float>() + t.NumElements());
    }
    int64_t attention_nodes = 0;
    for (const OpProfile& op : session->Profile()) {
      if (op.op_type == "com.microsoft.MultiHeadAttention") attention_nodes += op.nodes;
    }
    return std::make_pair(values, attention_nodes);
  };
  const auto [fused, fused_nodes] = run(kLoadPipeline);
  const auto [plain, plain_nodes] =
      run("shape-inference,einsum-decompose,fold-batchnorm,fuse-layernorm,fuse-activations,dce");
  EXPECT_EQ(fused_nodes, 3);
  EXPECT_EQ(plain_nodes, 0);
  ASSERT_EQ(fused.size(), 3u);
  ASSERT_EQ(plain.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(fused[k].size(), plain[k].size());
    for (size_t i = 0; i < fused[k].size(); ++i) {
      EXPECT_NEAR(fused[k][i], plain[k][i], 1e-5 * (1 + std::fabs(plain[k][i]))) << k << " " << i;
    }
  }
}

// A float initializer of `dims` with deterministic values, as model text.
std::string Weights(const std::string& name, std::vector<int64_t> dims, int seed) {
  int64_t n = 1;
  std::string text = "float[";
  for (size_t i = 0; i < dims.size(); ++i) {
    n *= dims[i];
    absl::StrAppend(&text, i ? ", " : "", dims[i]);
  }
  absl::StrAppend(&text, "] ", name, " = {");
  for (int64_t i = 0; i < n; ++i) {
    absl::StrAppend(&text, i ? ", " : "", std::sin(static_cast<double>(i * 7 + seed)) * 0.4);
  }
  return text + "}";
}

using Profiled =
    std::pair<std::vector<std::vector<float>>, absl::flat_hash_map<std::string, int64_t>>;

// Runs a session loaded with profile = true: its outputs, and the nodes per op type of its
// profile.
Profiled RunSession(Session& session, const absl::flat_hash_map<std::string, Tensor>& inputs) {
  std::vector<std::vector<float>> values;
  absl::flat_hash_map<std::string, int64_t> nodes;
  absl::StatusOr<std::vector<Tensor>> out = session.Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) {
    for (const Tensor& t : *out)
      values.emplace_back(t.As<float>(), t.As<float>() + t.NumElements());
  }
  for (const OpProfile& op : session.Profile()) nodes[op.op_type] += op.nodes;
  return std::make_pair(values, nodes);
}

// RunSession of `model` loaded with `pipeline` on `threads` threads.
Profiled RunProfiled(const std::string& model, const std::string& pipeline, int threads,
                     const absl::flat_hash_map<std::string, Tensor>& inputs) {
  SessionOptions options;
  options.pipeline = pipeline;
  options.profile = true;
  options.threads = threads;
  std::unique_ptr<Session> session = LoadText(model, options);
  if (session == nullptr) return {};
  return RunSession(*session, inputs);
}

// Nodes of `op_type` in a profile (0 when it has none).
int64_t NodeCount(const absl::flat_hash_map<std::string, int64_t>& nodes,
                  const std::string& op_type) {
  auto it = nodes.find(op_type);
  return it == nodes.end() ? 0 : it->second;
}

// The load pipeline without the nchwc pass: the NCHW kernels.
constexpr char kPlainPipeline[] =
    "shape-inference,einsum-decompose,fold-batchnorm,fuse-layernorm,fuse-attention,"
    "fuse-activations,dce";

// Within `tolerance` relative above 1, absolute below.
void ExpectNear(const std::vector<std::vector<float>>& got,
                const std::vector<std::vector<float>>& want, int threads, double tolerance = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].size(), want[k].size());
    for (size_t i = 0; i < got[k].size(); ++i) {
      EXPECT_NEAR(got[k][i], want[k][i], tolerance * (1 + std::fabs(want[k][i])))
          << threads << " " << k << " " << i;
    }
  }
}

// A MobileNet-style chain (pointwise, depthwise 3x3 and 5x5 stride 2, HardSwish, a residual Add,
// a depthwise output read outside the chain) with 20 channels, which pad to a whole block, and a
// dynamic batch: the load pipeline's nchwc pass puts six of the convolutions in the blocked layout
// behind one ReorderInput, and the outputs match the NCHW kernels' (the pointwise sums run in
// another order: not bit for bit), serially and on two threads.
TEST(SessionTest, BlockedConvolutionChainsMatchTheNchwKernels) {
  const std::string model =
      absl::StrCat(R"onnx(<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
main (float[N, 12, 9, 9] x) => (float[N, 20, 5, 5] y, float[N, 20, 9, 9] b)
<)onnx",
                   Weights("w1", {20, 12, 1, 1}, 1), ", ", Weights("b1", {20}, 2), ", ",
                   Weights("w2", {20, 1, 3, 3}, 3), ", ", Weights("b2", {20}, 4), ", ",
                   Weights("w3", {20, 1, 5, 5}, 5), ", ", Weights("w4", {20, 20, 1, 1}, 6), ", ",
                   Weights("b4", {20}, 7), ", ", Weights("w5", {20, 20, 1, 1}, 8), ", ",
                   Weights("w6", {20, 20, 1, 1}, 9), R"onnx(>
{
  a = com.microsoft.FusedConv <activation = "Relu"> (x, w1, b1)
  b = Conv <group = 20, kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (a, w2, b2)
  c = HardSwish (b)
  d = Conv <group = 20, kernel_shape = [5, 5], pads = [2, 2, 2, 2], strides = [2, 2]> (c, w3)
  e = Conv (d, w4, b4)
  f = com.microsoft.FusedConv <activation = "Clip", activation_params = [0.0, 6.0]> (e, w5)
  g = Conv (f, w6)
  y = Add (g, e)
}
)onnx");
  const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", Wave({2, 12, 9, 9})}};
  const auto [plain, plain_nodes] = RunProfiled(model, kPlainPipeline, 1, inputs);
  EXPECT_FALSE(plain_nodes.contains("com.anvil.nchwc.Conv"));
  ASSERT_EQ(plain.size(), 2u);
  for (int threads : {1, 2}) {
    const auto [blocked, blocked_nodes] = RunProfiled(model, kLoadPipeline, threads, inputs);
    EXPECT_EQ(blocked_nodes.at("com.anvil.nchwc.Conv"), 6);
    EXPECT_EQ(blocked_nodes.at("com.anvil.nchwc.ReorderInput"), 1);
    EXPECT_EQ(blocked_nodes.at("com.anvil.nchwc.ReorderOutput"), 2);
    ExpectNear(blocked, plain, threads);
  }
}

// A first layer on RGB (planar input), BlazeFace's shortcut (MaxPool, channel Pad, Add) and
// spatial Pad before a stride-2 depthwise Conv, and a squeeze-and-excitation scale: all in the
// blocked layout (no ReorderInput at all) and the NCHW kernels' values, on one and two threads.
TEST(SessionTest, BlockedFirstLayersShortcutsAndScalesMatchTheNchwKernels) {
  const std::string model =
      absl::StrCat(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 3, 16, 16] x) => (float[N, 12, 4, 4] y)
<)onnx",
                   Weights("stem", {10, 3, 3, 3}, 1), ", ", Weights("sb", {10}, 2), ", ",
                   Weights("dw", {10, 1, 5, 5}, 3), ", ", Weights("pw", {12, 10, 1, 1}, 4), ", ",
                   Weights("sq", {4, 12, 1, 1}, 5), ", ", Weights("ex", {12, 4, 1, 1}, 6), R"onnx(,
 int64[8] spatial = {0, 0, 1, 1, 0, 0, 2, 2}, int64[8] channel = {0, 0, 0, 0, 0, 2, 0, 0}>
{
  s = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]> (x, stem, sb)
  r = Relu (s)
  p = Pad (r, spatial)
  d = Conv <group = 10, kernel_shape = [5, 5], strides = [2, 2]> (p, dw)
  c = Conv (d, pw)
  m = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (r)
  q = Pad (m, channel)
  t = Add (c, q)
  g = GlobalAveragePool (t)
  e1 = Conv (g, sq)
  e2 = Relu (e1)
  e3 = Conv (e2, ex)
  e4 = Sigmoid (e3)
  y = Mul (t, e4)
}
)onnx");
  const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", Wave({2, 3, 16, 16})}};
  const auto [plain, plain_nodes] = RunProfiled(model, kPlainPipeline, 1, inputs);
  ASSERT_EQ(plain.size(), 1u);
  for (int threads : {1, 2}) {
    const auto [blocked, nodes] = RunProfiled(model, kLoadPipeline, threads, inputs);
    EXPECT_EQ(NodeCount(nodes, "com.anvil.nchwc.Conv"), 5);
    for (const char* op :
         {"com.anvil.nchwc.MaxPool", "com.anvil.nchwc.Pad", "com.anvil.nchwc.GlobalAveragePool",
          "com.anvil.nchwc.Mul", "com.anvil.nchwc.ReorderOutput"}) {
      EXPECT_EQ(NodeCount(nodes, op), 1) << op;
    }
    EXPECT_FALSE(nodes.contains("com.anvil.nchwc.ReorderInput"));
    ExpectNear(blocked, plain, threads);
  }
}

// Weights with a second reader: a pointwise weight read by two blocked Convs (each packs its own
// copy) and a depthwise weight read by a blocked Conv and by a dilated one the NCHW kernel runs
// (which needs the node's bytes, so they are not released): the NCHW kernels' values.
std::string SharedWeightsModel() {
  return absl::StrCat(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8, 9, 9] x) => (float[N, 8, 9, 9] y, float[N, 8, 9, 9] z)
<)onnx",
                      Weights("pw", {8, 8, 1, 1}, 1), ", ", Weights("dw", {8, 1, 3, 3}, 2),
                      R"onnx(>
{
  a = Conv (x, pw)
  b = Conv <group = 8, kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (a, dw)
  y = Conv (b, pw)
  z = Conv <group = 8, kernel_shape = [3, 3], pads = [2, 2, 2, 2], dilations = [2, 2]> (x, dw)
}
)onnx");
}

TEST(SessionTest, BlockedConvsShareWeightsWithOtherReaders) {
  const std::string model = SharedWeightsModel();
  const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", Wave({2, 8, 9, 9})}};
  const auto [plain, plain_nodes] = RunProfiled(model, kPlainPipeline, 1, inputs);
  ASSERT_EQ(plain.size(), 2u);
  for (int threads : {1, 2}) {
    const auto [blocked, nodes] = RunProfiled(model, kLoadPipeline, threads, inputs);
    EXPECT_EQ(NodeCount(nodes, "com.anvil.nchwc.Conv"), 3);
    EXPECT_EQ(NodeCount(nodes, "Conv"), 1);  // the dilated one
    ExpectNear(blocked, plain, threads);
  }
}

// The same model with its weights in external data (a file next to the model, memory-mapped at
// load): the blocked kernels pack from the mapped bytes, the pointwise weight (both readers
// packed it) is released, and the values are the NCHW kernels'.
TEST(SessionTest, BlockedConvsReadWeightsFromExternalData) {
  const std::string text = SharedWeightsModel();
  absl::StatusOr<std::unique_ptr<Model>> parsed = ParseModelText(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::string path = absl::StrCat(::testing::TempDir(), "/blocked_external.onnx");
  SaveOptions save;
  save.external_data_threshold = 16;
  ASSERT_TRUE(SaveModel(**parsed, path, save).ok());
  absl::StatusOr<std::unique_ptr<Model>> loaded = LoadModel(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  // Both weights went to the data file (8 x 8 and 8 x 9 floats).
  EXPECT_GE(std::filesystem::file_size(path + ".data"), (8 * 8 + 8 * 9) * 4u);
  SessionOptions options;
  options.profile = true;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(loaded), options);
  ASSERT_TRUE(session.ok()) << session.status();
  const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", Wave({2, 8, 9, 9})}};
  const auto [values, nodes] = RunSession(**session, inputs);
  EXPECT_EQ(NodeCount(nodes, "com.anvil.nchwc.Conv"), 3);
  const MemoryStats stats = (*session)->memory_stats();
  EXPECT_EQ(stats.released_weight_bytes, 8 * 8 * 4);  // pw
  // The depthwise weight stays for the dilated NCHW Conv (read from the file into memory: data
  // under onnx_import.h's kMapThreshold is not mapped); the three blocked kernels hold their own
  // (packed) copies.
  EXPECT_EQ(stats.mapped_weight_bytes, 0);
  EXPECT_EQ(stats.in_memory_weight_bytes, 8 * 9 * 4);
  EXPECT_GE(stats.kernel_copy_bytes, (2 * 8 * 8 + 8 * 9) * 4);
  const auto [plain, plain_nodes] = RunProfiled(text, kPlainPipeline, 1, inputs);
  ExpectNear(values, plain, 1);
}

// A float16 network (weights as converters write them: Cast to float16, folded at load): the
// chain runs blocked in float32 (a planar-input first layer, depthwise, Clip with float16
// bounds, pointwise with the residual Add as its Sum, GlobalAveragePool) and leaves it rounded to
// float16; its values are the per-op float16 kernels' within a few float16 ulps.
TEST(SessionTest, BlockedFloat16ChainsMatchTheFloat16Kernels) {
  const std::string model =
      absl::StrCat(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 3, 16, 16] x) => (float[N, 12, 8, 8] y, float[N, 12, 1, 1] z)
<)onnx",
                   Weights("stem", {12, 3, 3, 3}, 1), ", ", Weights("sb", {12}, 2), ", ",
                   Weights("dw", {12, 1, 3, 3}, 3), ", ", Weights("pw", {12, 12, 1, 1}, 4),
                   R"onnx(, float lo = {0.0}, float hi = {1.5}>
{
  x16 = Cast <to = 10> (x)
  stem16 = Cast <to = 10> (stem)
  sb16 = Cast <to = 10> (sb)
  dw16 = Cast <to = 10> (dw)
  pw16 = Cast <to = 10> (pw)
  lo16 = Cast <to = 10> (lo)
  hi16 = Cast <to = 10> (hi)
  s = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]> (x16, stem16, sb16)
  r = Relu (s)
  d = Conv <group = 12, kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (r, dw16)
  c = Clip (d, lo16, hi16)
  p = Conv (c, pw16)
  t = Add (p, r)
  g = GlobalAveragePool (t)
  y = Cast <to = 1> (t)
  z = Cast <to = 1> (g)
}
)onnx");
  const absl::flat_hash_map<std::string, Tensor> inputs = {{"x", Wave({2, 3, 16, 16})}};
  // constprop first (as anvil-opt's default pipeline would): the weights become float16
  // initializers.
  const std::string fold = "shape-inference,constprop,";
  const auto [plain, plain_nodes] = RunProfiled(model, fold + kPlainPipeline, 1, inputs);
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_FALSE(plain_nodes.contains("com.anvil.nchwc.Conv"));
  for (int threads : {1, 2}) {
    const auto [blocked, nodes] = RunProfiled(model, fold + kLoadPipeline, threads, inputs);
    EXPECT_EQ(NodeCount(nodes, "com.anvil.nchwc.Conv"), 3);
    EXPECT_EQ(NodeCount(nodes, "com.anvil.nchwc.ReorderOutput"), 2);
    EXPECT_FALSE(nodes.contains("com.anvil.nchwc.ReorderInput"));
    // float16 has 11 significant bits: per-op rounding against a float32 chain.
    ExpectNear(blocked, plain, threads, 4e-3);
  }
}

// A model blocked for another vector width (or a hand-written block) is refused at load, with the
// node and both widths named; a blocked Conv outside the kernels' two forms likewise.
TEST(SessionTest, BlockedOpsOfAnotherWidthAreRefused) {
  SessionOptions options;
  options.pipeline = "";
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(R"onnx(
<ir_version: 8, opset_import: ["" : 17, "com.anvil.nchwc" : 1]>
main (float[1, 3, 4, 4] x) => (float[1, 3, 4, 4] y)
{
  b = com.anvil.nchwc.ReorderInput <block = 3> (x)
  y = com.anvil.nchwc.ReorderOutput <block = 3, channels = 3> (b)
}
)onnx");
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), options);
  ASSERT_FALSE(session.ok());
  EXPECT_TRUE(absl::StrContains(session.status().message(), "blocked for 3 channels per vector"))
      << session.status();
  EXPECT_TRUE(absl::StrContains(session.status().message(), "ReorderInput")) << session.status();
}

TEST(SessionTest, InputErrorsNameTheInput) {
  std::unique_ptr<Session> session = LoadText(kBatchModel);
  ASSERT_NE(session, nullptr);
  auto error = [&](const absl::flat_hash_map<std::string, Tensor>& inputs) {
    absl::StatusOr<std::vector<Tensor>> out = session->Run(inputs);
    EXPECT_FALSE(out.ok());
    return out.ok() ? std::string() : std::string(out.status().message());
  };
  EXPECT_EQ(error({}), "missing input 'x' (float[N,4])");
  EXPECT_EQ(error({{"x", Wave({1, 4})}, {"q", Wave({1})}}),
            "unknown input 'q'; the model's inputs are: x");
  EXPECT_EQ(error({{"x", Tensor(ElementType::kInt64, {1, 4})}}),
            "input 'x': element type int64, expected float (float[N,4])");
  EXPECT_EQ(error({{"x", Wave({1, 4, 1})}}),
            "input 'x': rank 3 [1,4,1], expected rank 2 (float[N,4])");
  EXPECT_EQ(error({{"x", Wave({2, 5})}}),
            "input 'x': dim 1 is 5, the model declares 4 (float[N,4]; got [2,5])");
  // The session still works after rejected calls.
  EXPECT_TRUE(session->Run({{"x", Wave({2, 4})}}).ok());
}

TEST(SessionTest, MissingKernelFailsTheLoadNamingOpAndOpset) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(R"onnx(
<ir_version: 8, opset_import: ["" : 17, "anvil.test" : 1]>
g (float[2] x) => (float[2] y) {
  y = anvil.test.NoSuchOp (x)
}
)onnx");
  ASSERT_TRUE(model.ok()) << model.status();
  SessionOptions options;
  options.pipeline = "";
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), options);
  ASSERT_FALSE(session.ok());
  EXPECT_TRUE(absl::IsUnimplemented(session.status())) << session.status();
  EXPECT_TRUE(absl::StrContains(session.status().message(), "anvil.test.NoSuchOp (opset 1)"))
      << session.status();
}

// The Reshape target is a graph input: its contents are part of the shape key.
TEST(SessionTest, ShapeInputContentsAreReinferred) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x, int64[2] shape) => (float[?, ?] y) {
  r = Reshape (x, shape)
  a = Neg (r)
  y = Relu (a)
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor shape(ElementType::kInt64, {2});
  shape.As<int64_t>()[0] = 2;
  shape.As<int64_t>()[1] = 3;
  absl::StatusOr<std::vector<Tensor>> out = session->Run({{"x", Wave({6})}, {"shape", shape}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{2, 3}));
  Tensor shape2(ElementType::kInt64, {2});
  shape2.As<int64_t>()[0] = 3;
  shape2.As<int64_t>()[1] = 2;
  out = session->Run({{"x", Wave({6})}, {"shape", shape2}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{3, 2}));
  EXPECT_EQ(session->shape_inference_runs(), 2);
  // Reshape's dims are at most x's 6 elements each, so the arena is planned once at load for
  // `a` at [6, 6] (r is a view of x): 144 bytes, aligned.
  EXPECT_TRUE(session->memory_stats().bounded_plan);
  EXPECT_EQ(session->memory_stats().plans, 1);
  EXPECT_EQ(session->memory_stats().arena_bytes, 192);
  EXPECT_TRUE(session->ChangedValues().empty());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ((*out)[0].As<float>()[i], std::max(0.0f, -Wave({6}).As<float>()[i]));
  }
  out = session->Run({{"x", Wave({6})}, {"shape", shape2}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(session->shape_inference_runs(), 2);
}

// NonZero's output size depends on data: it and everything after it live on the heap, with
// shapes computed as the run gets there, while the shape engine's cache still holds.
TEST(SessionTest, DataDependentOutputsGoOnTheHeap) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (int64[1, ?] y) {
  a = Relu (x)
  nz = NonZero (a)
  y = Neg (nz)
}
)onnx");
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"x", Floats({4}, {1.0f, -1.0f, 2.0f, 0.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].dims(), (Shape{1, 2}));
  EXPECT_EQ((*out)[0].As<int64_t>()[0], 0);
  EXPECT_EQ((*out)[0].As<int64_t>()[1], -2);
  out = session->Run({{"x", Floats({4}, {1.0f, 1.0f, 2.0f, 3.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dims(), (Shape{1, 4}));
  EXPECT_EQ(session->shape_inference_runs(), 1);
  EXPECT_GE(session->memory_stats().heap_tensors, 1);
}

// NonZero -> Gather -> MatMul with N in [1, 16]: every intermediate has a finite upper bound
// (NonZero's count is at most 16 * 8), so the arena is planned once at load and no run
// allocates an intermediate, whatever N and the data are.
TEST(SessionTest, BoundedDimsPlanOneArenaForEveryRun) {
  constexpr char kModel[] = R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x, float[8, 4] w) => (float[?, 4] y) {
  nz = NonZero (x)
  zero = Constant <value = int64 {0}> ()
  idx = Gather <axis = 0> (nz, zero)
  rows = Gather <axis = 0> (x, idx)
  y = MatMul (rows, w)
}
)onnx";
  SessionOptions options;
  options.input_ranges = {{"N", 1, 16}};
  std::unique_ptr<Session> session = LoadText(kModel, options);
  ASSERT_NE(session, nullptr);
  MemoryStats stats = session->memory_stats();
  EXPECT_TRUE(stats.bounded_plan) << stats.unbounded;
  const int64_t planned = stats.arena_bytes;
  EXPECT_GT(planned, 0);
  std::vector<float> w(32);
  for (int k = 0; k < 32; ++k) w[k] = 0.25f * static_cast<float>(k % 7) - 0.5f;
  std::mt19937 rng(7);
  int64_t max_used = 0;
  for (int run = 0; run < 1000; ++run) {
    const int n = 1 + run % 16;
    std::vector<float> x(n * 8);
    for (float& v : x) v = rng() % 3 == 0 ? 0.0f : static_cast<float>(rng() % 9) - 4.0f;
    absl::StatusOr<std::vector<Tensor>> out =
        session->Run({{"x", Floats({n, 8}, x)}, {"w", Floats({8, 4}, w)}});
    ASSERT_TRUE(out.ok()) << out.status();
    // The rows of x's nonzeros, in order, times w.
    std::vector<int> rows;
    for (int i = 0; i < n * 8; ++i) {
      if (x[i] != 0.0f) rows.push_back(i / 8);
    }
    const Tensor& y = (*out)[0];
    ASSERT_EQ(y.dims(), (Shape{static_cast<int64_t>(rows.size()), 4})) << "run " << run;
    for (size_t r = 0; r < rows.size(); ++r) {
      for (int j = 0; j < 4; ++j) {
        float want = 0;
        for (int k = 0; k < 8; ++k) want += x[rows[r] * 8 + k] * w[k * 4 + j];
        ASSERT_NEAR(y.As<float>()[r * 4 + j], want, 1e-4f) << "run " << run;
      }
    }
    stats = session->memory_stats();
    ASSERT_EQ(stats.heap_tensors, 1) << "run " << run;  // y only: a graph output
    max_used = std::max(max_used, stats.used_bytes);
  }
  stats = session->memory_stats();
  EXPECT_EQ(stats.arena_allocations, 1);
  EXPECT_EQ(stats.plans, 1);
  EXPECT_EQ(stats.arena_bytes, planned);
  EXPECT_GT(max_used, 0);
  EXPECT_LE(max_used, planned);
  std::printf("bounded plan: arena %lld bytes planned at load, at most %lld used over 1000 runs\n",
              static_cast<long long>(planned), static_cast<long long>(max_used));

  // An input outside its range is refused, naming the dim.
  absl::StatusOr<std::vector<Tensor>> outside = session->Run(
      {{"x", Floats({17, 8}, std::vector<float>(17 * 8, 1.0f))}, {"w", Floats({8, 4}, w)}});
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("dim 0 (N) is 17, outside its range N=1:16"),
            std::string::npos)
      << outside.status();

  // A worst case over the allocation limit plans each run's sizes instead, and says why.
  options.max_allocation_bytes = 4096;
  std::unique_ptr<Session> limited = LoadText(kModel, options);
  ASSERT_NE(limited, nullptr);
  EXPECT_FALSE(limited->memory_stats().bounded_plan);
  EXPECT_NE(limited->memory_stats().unbounded.find("over the allocation limit"), std::string::npos)
      << limited->memory_stats().unbounded;
  ASSERT_TRUE(
      limited->Run({{"x", Floats({2, 8}, std::vector<float>(16, 1.0f))}, {"w", Floats({8, 4}, w)}})
          .ok());

  // Without a bound on N the plan follows each run's sizes, and says why.
  std::unique_ptr<Session> unbounded = LoadText(kModel);
  ASSERT_NE(unbounded, nullptr);
  EXPECT_FALSE(unbounded->memory_stats().bounded_plan);
  EXPECT_NE(unbounded->memory_stats().unbounded.find("NonZero_nz_n"), std::string::npos)
      << unbounded->memory_stats().unbounded;
}

// Another tool's malformed anvil.dim_ranges does not stop a model that ONNX Runtime runs: it
// counts as no ranges, with a warning.
TEST(SessionTest, MalformedRangesInMetadataAreIgnoredWithAWarning) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17],
  metadata_props: ["anvil.dim_ranges" : "N=9:1"]>
g (float[N] x) => (float[N] y) {
  y = Relu (x)
}
)onnx");
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->warnings().size(), 1u);
  EXPECT_NE(session->warnings()[0].find("the ranges are ignored"), std::string::npos)
      << session->warnings()[0];
  ASSERT_TRUE(session->Run({{"x", Floats({20}, std::vector<float>(20, -1.0f))}}).ok());
}

TEST(SessionTest, IfReadsOuterValues) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[2] y) {
  d = Relu (x)
  y = If (c) <
    then_branch = then_g () => (float[2] t) { t = Add (d, d) },
    else_branch = else_g () => (float[2] e) { e = Neg (d) }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor yes(ElementType::kBool, {});
  yes.As<uint8_t>()[0] = 1;
  Tensor no(ElementType::kBool, {});
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"c", yes}, {"x", Floats({2}, {1.5f, -2.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 3.0f);
  EXPECT_EQ((*out)[0].As<float>()[1], 0.0f);
  out = session->Run({{"c", no}, {"x", Floats({2}, {1.5f, -2.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], -1.5f);
}

// Control-flow outputs nobody typed (no shape inference in the pipeline, undeclared in the
// model, as exporters leave branch and body values): each takes its body's result's type.
TEST(SessionTest, UntypedControlFlowOutputsTakeTheirBodiesTypes) {
  SessionOptions options;
  options.pipeline = "";
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, int64 m, float[2] x, float[3, 2] xs) => (y, sum, all, last, partial) {
  y = If (c) <
    then_branch = then_g () => (t) { t = Add (x, x) },
    else_branch = else_g () => (e) { e = Neg (x) }
  >
  sum, all = Loop (m, , x) <
    body = body_g (int64 i, bool c_in, float[2] acc) => (c_out, next, seen) {
      c_out = Identity (c_in)
      next = Add (acc, x)
      seen = Identity (next)
    }
  >
  last, partial = Scan (x, xs) <
    num_scan_inputs = 1,
    body = scan_g (float[2] s, float[2] row) => (s_out, row_out) {
      s_out = Add (s, row)
      row_out = Mul (s_out, row)
    }
  >
}
)onnx",
                                              options);
  ASSERT_NE(session, nullptr);
  Tensor yes(ElementType::kBool, {});
  yes.As<uint8_t>()[0] = 1;
  Tensor m(ElementType::kInt64, {});
  m.As<int64_t>()[0] = 2;
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"c", yes},
                    {"m", m},
                    {"x", Floats({2}, {1.0f, 2.0f})},
                    {"xs", Floats({3, 2}, {1, 1, 2, 2, 3, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 5u);
  for (const Tensor& t : *out) EXPECT_EQ(t.type(), ElementType::kFloat);
  EXPECT_EQ((*out)[0].As<float>()[1], 4.0f);   // x + x
  EXPECT_EQ((*out)[1].As<float>()[1], 6.0f);   // x + 2x
  ASSERT_EQ((*out)[2].dims(), (Shape{2, 2}));  // x + x, x + 2x
  EXPECT_EQ((*out)[2].As<float>()[3], 6.0f);
  EXPECT_EQ((*out)[3].As<float>()[0], 7.0f);   // 1 + 1 + 2 + 3
  ASSERT_EQ((*out)[4].dims(), (Shape{3, 2}));  // (running sum) * row
  EXPECT_EQ((*out)[4].As<float>()[5], 24.0f);  // (2 + 1 + 2 + 3) * 3
}

TEST(SessionTest, LoopCarriesValuesAndStacksScanOutputs) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (int64 m, float[2] x) => (float[2] sum, float[?, 2] all) {
  sum, all = Loop (m, , x) <
    body = body_g (int64 i, bool c_in, float[2] acc) => (bool c_out, float[2] next, float[2] seen) {
      c_out = Identity (c_in)
      next = Add (acc, x)
      seen = Identity (next)
    }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor m(ElementType::kInt64, {});
  m.As<int64_t>()[0] = 3;
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"m", m}, {"x", Floats({2}, {1.0f, 2.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 4.0f);
  EXPECT_EQ((*out)[0].As<float>()[1], 8.0f);
  ASSERT_EQ((*out)[1].dims(), (Shape{3, 2}));
  const std::vector<float> expected = {2, 4, 3, 6, 4, 8};
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[1].As<float>()[i], expected[i]);
}

// Body tensors are recycled across iterations and runs (ExecutionOptions::body_buffers): a
// buffer is reused only when nothing else holds it, so carried values, stacked scan outputs and
// earlier runs' results the caller still holds keep their values.
TEST(SessionTest, LoopBodyBuffersAreReusedOnlyWhenFree) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (int64 m, float[2] x) => (float[2] sum, float[?, 2] all) {
  sum, all = Loop (m, , x) <
    body = body_g (int64 i, bool c_in, float[2] acc) => (bool c_out, float[2] next, float[2] seen) {
      c_out = Identity (c_in)
      doubled = Add (acc, acc)
      next = Sub (doubled, acc)
      plus = Add (next, x)
      seen = Identity (plus)
    }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  auto run = [&](int64_t trips) {
    Tensor m(ElementType::kInt64, {});
    m.As<int64_t>()[0] = trips;
    absl::StatusOr<std::vector<Tensor>> out =
        session->Run({{"m", m}, {"x", Floats({2}, {1.0f, 2.0f})}});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? *out : std::vector<Tensor>();
  };
  // Iteration t sees acc = x (acc carried unchanged) and stacks x + x.
  auto check = [](const std::vector<Tensor>& out, int64_t trips) {
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].As<float>()[1], 2.0f);
    ASSERT_EQ(out[1].dims(), (Shape{trips, 2}));
    for (int64_t t = 0; t < trips; ++t) {
      EXPECT_EQ(out[1].As<float>()[2 * t], 2.0f) << t;
      EXPECT_EQ(out[1].As<float>()[2 * t + 1], 4.0f) << t;
    }
  };
  const std::vector<Tensor> first = run(3);
  const std::vector<Tensor> second = run(50);
  const std::vector<Tensor> third = run(3);
  check(first, 3);
  check(second, 50);
  check(third, 3);
}

TEST(SessionTest, ScanWithReverseInputAndOutputAxis) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] init, float[3, 2] xs) => (float[2] last, float[2, 3] partial) {
  last, partial = Scan (init, xs) <
    num_scan_inputs = 1, scan_input_directions = [1], scan_output_axes = [1],
    body = body_g (float[2] s, float[2] x) => (float[2] s_out, float[2] p) {
      s_out = Add (s, x)
      p = Identity (s_out)
    }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"init", Floats({2}, {0, 0})}, {"xs", Floats({3, 2}, {1, 2, 3, 4, 5, 6})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 9.0f);
  EXPECT_EQ((*out)[0].As<float>()[1], 12.0f);
  // Reverse input: partial sums 5, 8, 9 (first column) and 6, 10, 12, stacked along axis 1.
  ASSERT_EQ((*out)[1].dims(), (Shape{2, 3}));
  const std::vector<float> expected = {5, 8, 9, 6, 10, 12};
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[1].As<float>()[i], expected[i]) << i;
}

// A Scan body that gives fewer outputs than its node's states and scan outputs need is refused
// (at load or at run), never read past its end (the model fuzzer found it, at Scan-8).
TEST(SessionTest, ScanBodyWithTooFewOutputsIsAnError) {
  for (const char* text : {R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] init, float[3, 2] xs) => (float[2] last, float[3, 2] partial) {
  last, partial = Scan (init, xs) <
    num_scan_inputs = 1,
    body = body_g (float[2] s, float[2] x) => (float[2] p) {
      p = Add (s, x)
    }
  >
}
)onnx",
                           R"onnx(<ir_version: 3, opset_import: ["" : 8]>
g (int64[1] lens, float[1, 2] init, float[1, 3, 2] xs) => (float[1, 2] last, float[1, 3, 2] partial) {
  last, partial = Scan (lens, init, xs) <
    num_scan_inputs = 1,
    body = body_g (float[2] s, float[2] x) => (float[2] p) {
      p = Add (s, x)
    }
  >
}
)onnx"}) {
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
    ASSERT_TRUE(model.ok()) << model.status();
    const bool v8 = (*model)->OpsetVersion("") == 8;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model), {});
    absl::Status status = session.status();
    if (session.ok()) {
      Tensor lens(ElementType::kInt64, {1});
      lens.As<int64_t>()[0] = 3;
      absl::flat_hash_map<std::string, Tensor> inputs = {
          {"init", v8 ? Floats({1, 2}, {0, 0}) : Floats({2}, {0, 0})},
          {"xs", v8 ? Floats({1, 3, 2}, {1, 2, 3, 4, 5, 6}) : Floats({3, 2}, {1, 2, 3, 4, 5, 6})}};
      if (v8) inputs.emplace("lens", lens);
      status = (*session)->Run(inputs).status();
    }
    EXPECT_FALSE(status.ok()) << text;
    EXPECT_NE(status.message().find("body"), std::string::npos) << status;
  }
}

// Scan-8: a leading batch dim on states and scan inputs, per-batch sequence lengths; scan
// outputs past a short sequence are zeros.
TEST(SessionTest, Scan8WithSequenceLengths) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 3, opset_import: ["" : 8]>
g (int64[2] lens, float[2, 1] init, float[2, 3, 1] xs) => (float[2, 1] last, float[2, 3, 1] ys) {
  last, ys = Scan (lens, init, xs) <
    num_scan_inputs = 1,
    body = body_g (float[1] s, float[1] x) => (float[1] s_out, float[1] y) {
      s_out = Add (s, x)
      y = Identity (s_out)
    }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor lens(ElementType::kInt64, {2});
  lens.As<int64_t>()[0] = 3;
  lens.As<int64_t>()[1] = 1;
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"lens", lens},
                    {"init", Floats({2, 1}, {0, 10})},
                    {"xs", Floats({2, 3, 1}, {1, 2, 3, 4, 5, 6})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 6.0f);
  EXPECT_EQ((*out)[0].As<float>()[1], 14.0f);
  ASSERT_EQ((*out)[1].dims(), (Shape{2, 3, 1}));
  const std::vector<float> expected = {1, 3, 6, 14, 0, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ((*out)[1].As<float>()[i], expected[i]) << i;
}

// A while loop: the body's condition ends it before the trip count; with a false condition up
// front it runs zero times and the scan output is empty.
TEST(SessionTest, LoopStopsOnItsCondition) {
  std::unique_ptr<Session> session = LoadText(R"onnx(<ir_version: 8, opset_import: ["" : 17]>
g (int64 m, bool go, float x) => (float sum, float[?] all) {
  sum, all = Loop (m, go, x) <
    body = body_g (int64 i, bool c_in, float acc) => (bool c_out, float next, float seen) {
      next = Add (acc, acc)
      limit = Constant <value = float {10}> ()
      c_out = Less (next, limit)
      seen = Identity (next)
    }
  >
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor m(ElementType::kInt64, {});
  m.As<int64_t>()[0] = 100;
  Tensor yes(ElementType::kBool, {});
  yes.As<uint8_t>()[0] = 1;
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{"m", m}, {"go", yes}, {"x", Floats({}, {1.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 16.0f);  // 2, 4, 8, 16: stops once next >= 10
  EXPECT_EQ((*out)[1].dims(), (Shape{4}));
  Tensor no(ElementType::kBool, {});
  out = session->Run({{"m", m}, {"go", no}, {"x", Floats({}, {1.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[0], 1.0f);
  EXPECT_EQ((*out)[1].dims(), (Shape{0}));
}

// A model built in memory (no import to check it) with subgraphs nested deeper than the limit is
// refused at load before any walk recurses into it; at the limit it runs.
TEST(SessionTest, ModelsNestedDeeperThanTheLimitAreRefused) {
  auto nested = [](int depth) {
    auto model = std::make_unique<Model>();
    model->opset_imports.push_back({"", 17});
    Graph* g = &model->graph();
    Value* c = g->AddInput("c", Type::Tensor(ElementType::kBool, {}));
    Value* x = g->AddInput("x", Type::Tensor(ElementType::kFloat, {Dim::Literal(2)}));
    for (int level = 0; level < depth; ++level) {
      Node* node = g->AddNode("If");
      node->AddInput(c);
      g->AddOutput(node->AddOutput("y" + std::to_string(level)));
      for (const char* name : {"else_branch", "then_branch"}) {
        auto sub = std::make_unique<Graph>(model.get(), g);
        sub->set_name(std::string(name) + std::to_string(level + 1));
        sub->set_owner_node(node);
        Attribute a(name, AttributeType::kGraph);
        a.graphs.push_back(std::move(sub));
        node->SetAttribute(std::move(a));
      }
      node->FindAttribute("else_branch")->graphs[0]->AddOutput(x);
      g = node->FindAttribute("then_branch")->graphs[0].get();
    }
    g->AddOutput(x);
    return model;
  };
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(nested(kMaxSubgraphDepth + 1));
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "graph 'then_branch100': node #0 (If, output 'y100'): subgraphs nested deeper than 100 "
            "levels");
  session = Session::Load(nested(kMaxSubgraphDepth));
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor c(ElementType::kBool, {});
  c.As<bool>()[0] = true;
  absl::StatusOr<std::vector<Tensor>> out = (*session)->Run({{"c", c}, {"x", Floats({2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].As<float>()[1], 2);
}

}  // namespace
}  // namespace anvil

namespace anvil {
namespace {

Tensor Int32s(std::vector<int64_t> dims, const std::vector<int32_t>& values) {
  Tensor t(ElementType::kInt32, dims);
  std::copy(values.begin(), values.end(), t.As<int32_t>());
  return t;
}

// A key/value cache bound as both past and present (ONNX Runtime's past_present_share_buffer):
// GroupQueryAttention writes the new rows into the caller's buffer, which Run returns as the
// present, and the outputs equal those of a run with the cache copied (unbound).
TEST(SessionTest, BoundOutputsShareTheCacheWithItsPast) {
  std::unique_ptr<Session> session = LoadText(R"onnx(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
agraph (float[1, S, 64] q, float[1, 2, P, 8] pk, float[1, 2, P, 8] pv, int32[1] sl, int32[1] tl)
    => (float[1, S, 32] y, float[1, 2, L, 8] k, float[1, 2, L, 8] v) {
  y, k, v = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2> (q, , , pk, pv, sl, tl)
}
)onnx");
  ASSERT_NE(session, nullptr);
  Tensor cache_k(ElementType::kFloat, {1, 2, 6, 8}), cache_v(ElementType::kFloat, {1, 2, 6, 8});
  const absl::flat_hash_map<std::string, Tensor> bound = {{"k", cache_k}, {"v", cache_v}};
  // The prompt (3 tokens), then a decode step (total 4), both into the bound cache.
  absl::StatusOr<std::vector<Tensor>> prompt = session->Run({{"q", Wave({1, 3, 64})},
                                                             {"pk", cache_k},
                                                             {"pv", cache_v},
                                                             {"sl", Int32s({1}, {2})},
                                                             {"tl", Int32s({1}, {3})}},
                                                            bound);
  ASSERT_TRUE(prompt.ok()) << prompt.status();
  EXPECT_EQ((*prompt)[1].data(), cache_k.data());
  EXPECT_NE(cache_k.As<float>()[2 * 8], 0.0f);  // row 2 of kv head 0 written
  const Tensor past_k = Tensor::CopyOf(cache_k.view()), past_v = Tensor::CopyOf(cache_v.view());
  const absl::flat_hash_map<std::string, Tensor> step = {{"q", Wave({1, 1, 64})},
                                                         {"pk", cache_k},
                                                         {"pv", cache_v},
                                                         {"sl", Int32s({1}, {3})},
                                                         {"tl", Int32s({1}, {4})}};
  absl::StatusOr<std::vector<Tensor>> shared = session->Run(step, bound);
  ASSERT_TRUE(shared.ok()) << shared.status();
  absl::flat_hash_map<std::string, Tensor> copied = step;
  copied["pk"] = past_k;
  copied["pv"] = past_v;
  absl::StatusOr<std::vector<Tensor>> unshared = session->Run(copied);
  ASSERT_TRUE(unshared.ok()) << unshared.status();
  EXPECT_NE((*unshared)[1].data(), past_k.data());
  for (int i = 0; i < 3; ++i) {
    const Tensor& a = (*shared)[i];
    const Tensor& b = (*unshared)[i];
    ASSERT_EQ(a.dims(), b.dims()) << "output " << i;
    // Rows past the total (4) are zeros in the unshared present and untouched in the cache (zero
    // too here): the whole tensors agree.
    EXPECT_TRUE(std::equal(a.As<float>(), a.As<float>() + a.NumElements(), b.As<float>()))
        << "output " << i;
  }

  // A bound tensor of other dims is an error naming the node; an unknown name is one too.
  absl::StatusOr<std::vector<Tensor>> wrong =
      session->Run(step, {{"k", Tensor(ElementType::kFloat, {1, 2, 5, 8})}});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument) << wrong.status();
  EXPECT_TRUE(absl::StrContains(wrong.status().message(), "GroupQueryAttention")) << wrong.status();
  wrong = session->Run(step, {{"nope", cache_k}});
  EXPECT_TRUE(absl::StrContains(wrong.status().message(), "'nope' is not an output"))
      << wrong.status();
}

}  // namespace
}  // namespace anvil
