// The runtime on the generated models of testdata/ (MLP, CNN, transformer block; symbolic batch
// dims): results against the reference interpreter at batch 1, 8 and 1 again, shape
// re-inference and memory re-planning exactly when the batch changes, and the memory plan's
// size against its lower bound.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "exec/interpreter.h"
#include "graph/model_io.h"
#include "gtest/gtest.h"
#include "kernels/tensor_file.h"
#include "runtime/session.h"

namespace anvil {
namespace {

struct ModelCase {
  const char* file;
  std::vector<int64_t> dims_after_batch;  // x's dims after N
  // Whether an element-wise node is left to reuse its input's memory (the CNN's activations
  // are fused into its convolutions by the default pipeline's fuse-activations).
  bool in_place = true;
};

Tensor Input(int64_t batch, const std::vector<int64_t>& rest, uint32_t seed) {
  std::vector<int64_t> dims = {batch};
  dims.insert(dims.end(), rest.begin(), rest.end());
  Tensor t(ElementType::kFloat, dims);
  uint32_t s = seed;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.As<float>()[i] = static_cast<float>(s >> 8) / (1 << 24) * 2 - 1;
  }
  return t;
}

class ModelsTest : public testing::TestWithParam<ModelCase> {};

TEST_P(ModelsTest, MatchesReferenceAcrossBatchSizes) {
  const std::string path =
      std::string(std::getenv("TEST_SRCDIR")) + "/anvil/testdata/models/" + GetParam().file;
  absl::StatusOr<std::unique_ptr<Session>> loaded = Session::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Session& session = **loaded;
  // The reference interprets the same prepared model: its own copy, since the session released
  // the weights its kernels packed.
  absl::StatusOr<std::unique_ptr<Model>> reference = LoadModel(path);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_TRUE(PrepareModelForRun(**reference, SessionOptions().pipeline).ok());
  EXPECT_GT(session.memory_stats().released_weight_bytes, 0) << GetParam().file;
  int64_t expected_runs = 0;
  int64_t previous_batch = -1;
  for (int64_t batch : {1, 8, 1, 1}) {
    const Tensor x = Input(batch, GetParam().dims_after_batch, 7 + batch);
    absl::StatusOr<std::vector<Tensor>> out = session.Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status();
    absl::StatusOr<std::vector<Tensor>> ref =
        InterpretGraph(**reference, (*reference)->graph(), {x});
    ASSERT_TRUE(ref.ok()) << ref.status();
    ASSERT_EQ(out->size(), ref->size());
    for (size_t k = 0; k < out->size(); ++k) {
      const Tensor& a = (*out)[k];
      const Tensor& e = (*ref)[k];
      ASSERT_EQ(a.dims(), e.dims());
      ASSERT_EQ(a.dims()[0], batch);
      for (int64_t i = 0; i < e.NumElements(); ++i) {
        const float av = a.As<float>()[i], ev = e.As<float>()[i];
        ASSERT_NEAR(av, ev, 1e-5 + 1e-4 * std::fabs(ev)) << GetParam().file << " element " << i;
      }
    }
    if (batch != previous_batch) ++expected_runs;
    previous_batch = batch;
    EXPECT_EQ(session.shape_inference_runs(), expected_runs) << "batch " << batch;
    const MemoryStats stats = session.memory_stats();
    EXPECT_EQ(stats.plans, expected_runs) << "batch " << batch;
    EXPECT_GE(stats.arena_bytes, stats.lower_bound_bytes);
    // These schedules are simple enough for the planner to reach the bound.
    EXPECT_EQ(stats.arena_bytes, stats.lower_bound_bytes) << GetParam().file;
    EXPECT_LT(stats.arena_bytes, stats.unshared_bytes);
    if (GetParam().in_place) EXPECT_GT(stats.in_place_reuses, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, ModelsTest,
                         testing::Values(ModelCase{"mlp.onnx", {256}},
                                         ModelCase{"cnn.onnx", {3, 32, 32}, /*in_place=*/false},
                                         ModelCase{"transformer.onnx", {16, 64}}),
                         [](const testing::TestParamInfo<ModelCase>& info) {
                           std::string name = info.param.file;
                           return name.substr(0, name.find('.'));
                         });

// testdata/gen_value_types_model.py: strings pre-processed, a Loop carrying a sequence, an
// optional, and a nested If whose values declare no types inside an If on a constant, run as
// loaded and after constant propagation has inlined the outer If.
TEST(ValueTypesModelTest, RunsAsLoadedAndWithTheOuterIfInlined) {
  const std::string path =
      std::string(std::getenv("TEST_SRCDIR")) + "/anvil/testdata/models/value_types.onnx";
  Tensor x(ElementType::kFloat, {2});
  x.As<float>()[0] = 1;
  x.As<float>()[1] = 2;
  Tensor words(ElementType::kString, {3});
  words.As<std::string>()[0] = " 1.5";
  words.As<std::string>()[1] = "THE";
  words.As<std::string>()[2] = "2";
  for (const char* pipeline : {"shape-inference,dce", "shape-inference,constprop,cse,dce"}) {
    SCOPED_TRACE(pipeline);
    SessionOptions options;
    options.pipeline = pipeline;
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(path, options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (int run = 0; run < 2; ++run) {
      absl::StatusOr<std::vector<Tensor>> out = (*session)->Run({{"x", x}, {"words", words}});
      ASSERT_TRUE(out.ok()) << out.status();
      // total = 1.5 + 2 (the stopword dropped), s = (1 + 2) * (0 + 1 + 2), y = s + total.
      EXPECT_EQ(*(*out)[0].As<float>(), 12.5f);
      EXPECT_EQ(*(*out)[1].As<int64_t>(), 3);
      EXPECT_EQ(*(*out)[2].As<uint8_t>(), 1);
    }
  }
}

// testdata/gen_nested_if_rnn_model.py: silero VAD v5's structure, an LSTM two Ifs deep whose
// Ifs from `If_4` down (four deep) return values typed `type {}` (no kind). Shape inference types
// every value of every graph; the runs match numpy for both sample rates (both copies of the
// network), with the load pipeline and with no shape inference at all (the control-flow kernels
// then take their bodies' types).
TEST(NestedIfRnnModelTest, TypesEveryValueAndMatchesNumpy) {
  const std::string dir = std::string(std::getenv("TEST_SRCDIR")) + "/anvil/testdata/models/";
  absl::StatusOr<std::unique_ptr<Model>> model = LoadModel(dir + "nested_if_rnn.onnx");
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_TRUE(PrepareModelForRun(**model, "shape-inference").ok());
  int64_t values = 0;
  (*model)->graph().ForEachGraph([&](Graph& g) {
    for (const Node* node : g.nodes()) {
      for (const Value* v : node->outputs()) {
        if (v == nullptr) continue;
        ++values;
        EXPECT_TRUE(v->type().is_tensor() && v->type().element_type() != ElementType::kUndefined)
            << node->Describe() << ": '" << v->name() << "' is " << v->type().ToString();
      }
    }
  });
  EXPECT_GT(values, 150);

  for (const char* pipeline : {kLoadPipeline, "dce"}) {
    SCOPED_TRACE(pipeline);
    SessionOptions options;
    options.pipeline = pipeline;
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Load(dir + "nested_if_rnn.onnx", options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (int sr : {16000, 8000}) {
      SCOPED_TRACE(sr);
      const std::string data = dir + "nested_if_rnn_" + std::to_string(sr) + "/";
      absl::flat_hash_map<std::string, Tensor> inputs;
      const char* names[] = {"input", "state", "sr"};
      for (int k = 0; k < 3; ++k) {
        absl::StatusOr<Tensor> t = ReadTensor(data + "input_" + std::to_string(k) + ".pb");
        ASSERT_TRUE(t.ok()) << t.status();
        inputs[names[k]] = *std::move(t);
      }
      absl::StatusOr<std::vector<Tensor>> out = (*session)->Run(inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ(out->size(), 2u);
      for (int k = 0; k < 2; ++k) {
        absl::StatusOr<Tensor> expected = ReadTensor(data + "output_" + std::to_string(k) + ".pb");
        ASSERT_TRUE(expected.ok()) << expected.status();
        const Tensor& a = (*out)[k];
        ASSERT_EQ(a.type(), ElementType::kFloat);
        ASSERT_EQ(a.dims(), expected->dims()) << "output " << k;
        for (int64_t i = 0; i < a.NumElements(); ++i) {
          const float e = expected->As<float>()[i];
          EXPECT_NEAR(a.As<float>()[i], e, 1e-6 + 1e-4 * std::fabs(e))
              << "output " << k << " " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace anvil
