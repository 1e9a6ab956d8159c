// Random models (exec/testing/random_model.h) through lowering and the Tensor IR evaluator give
// the reference interpreter's outputs: dims exactly, values closely. They are the ops whose
// output dims the data or a runtime shape tensor decides (TopK, NonZero, Range, Reshape, Expand,
// Tile, ConstantOfShape with runtime inputs, Loop with a runtime trip count or condition), where
// a plan made from inference's dims must not take a data-dependent dim for a known one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "exec/interpreter.h"
#include "exec/testing/random_model.h"
#include "gtest/gtest.h"
#include "lower/evaluator/tir_session.h"
#include "shape/shape_inference.h"

namespace anvil::lower {
namespace {

// "" when `actual` is `expected`: same dims, values within 1e-4 (relative) or equal NaNs.
std::string Difference(const Tensor& expected, const Tensor& actual) {
  if (expected.dims() != actual.dims() || expected.type() != actual.type()) {
    return "another type or dims";
  }
  if (expected.type() != ElementType::kFloat) return "";
  for (int64_t k = 0; k < expected.NumElements(); ++k) {
    const float e = expected.As<float>()[k], a = actual.As<float>()[k];
    if (std::isnan(e) && std::isnan(a)) continue;
    if (!(std::fabs(e - a) <= 1e-4f * std::max(1.0f, std::fabs(e)))) {
      return "element " + std::to_string(k) + " is " + std::to_string(a) + ", expected " +
             std::to_string(e);
    }
  }
  return "";
}

TEST(TirSessionRandomTest, EvaluatorRunsWhatTheInterpreterRuns) {
  // ANVIL_RANDOM_MODELS=N models from seed ANVIL_RANDOM_FIRST (longer local runs, or one seed).
  const char* env = std::getenv("ANVIL_RANDOM_MODELS");
  const int kModels = env != nullptr ? std::atoi(env) : 300;
  const char* first_env = std::getenv("ANVIL_RANDOM_FIRST");
  const int first = first_env != nullptr ? std::atoi(first_env) : 0;
  int compared = 0, failures = 0;
  std::map<std::string, std::pair<int, int>> kinds;  // a difference: its first seed, its count
  for (int seed = first; seed < first + kModels; ++seed) {
    const RandomModel random = MakeRandomModel(seed);
    absl::StatusOr<std::unique_ptr<Model>> model = random.Parse();
    ASSERT_TRUE(model.ok()) << model.status();
    // The reference: the interpreter on the model with its types inferred (untyped Loop outputs
    // that run no iteration take their element type from them).
    std::unique_ptr<Model> typed = (*model)->Clone();
    if (!InferShapes(*typed).ok()) continue;
    absl::StatusOr<std::vector<Tensor>> expected =
        InterpretGraph(*typed, typed->graph(), random.inputs);
    if (!expected.ok()) continue;
    absl::flat_hash_map<std::string, Tensor> inputs;
    for (size_t i = 0; i < random.inputs.size(); ++i) {
      inputs[(*model)->graph().inputs()[i]->name()] = random.inputs[i];
    }
    // ANVIL_RANDOM_COMPILED=1: compiled code instead of the evaluator (a compile per model).
    TirSessionOptions options;
    options.compile = std::getenv("ANVIL_RANDOM_COMPILED") != nullptr;
    options.cost_check = false;  // the emitted code is under test
    absl::StatusOr<std::unique_ptr<TirSession>> session =
        TirSession::Load(std::move(*model), options);
    absl::StatusOr<std::vector<Tensor>> actual =
        session.ok() ? (*session)->Run(inputs) : session.status();
    std::string difference;
    if (!actual.ok()) {
      difference = std::string(actual.status().message());
    } else if (actual->size() != expected->size()) {
      difference = "another number of outputs";
    } else {
      for (size_t k = 0; k < actual->size() && difference.empty(); ++k) {
        difference = Difference((*expected)[k], (*actual)[k]);
      }
    }
    if (!difference.empty()) {
      if (++failures <= 5) {
        ADD_FAILURE() << "seed " << seed << ": " << difference << "\n" << random.text;
      }
      auto [it, added] = kinds.try_emplace(difference.substr(0, 80), seed, 0);
      ++it->second.second;
      continue;
    }
    ++compared;
  }
  std::printf("random models: %d of %d run by %s as by the interpreter\n", compared, kModels,
              std::getenv("ANVIL_RANDOM_COMPILED") != nullptr ? "compiled code" : "the evaluator");
  for (const auto& [kind, seeds] : kinds) {
    std::printf("  %d (first seed %d): %s\n", seeds.second, seeds.first, kind.c_str());
  }
  EXPECT_GE(compared, kModels * 9 / 10);
}

}  // namespace
}  // namespace anvil::lower
