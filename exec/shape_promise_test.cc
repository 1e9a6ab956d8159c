// CheckShapePromises on the models of issue 32 (a Loop whose condition is a runtime value, TopK
// with a runtime k), and the property over random graphs: ops whose output dims come from dims,
// from constant or runtime shape tensors and from data (Reshape, Expand, Tile, ConstantOfShape,
// Range, TopK, NonZero, Slice, ...), and Loop, If and Scan with constant and runtime trip counts
// and conditions. Every model that infers and runs must keep every promise.
#include "exec/shape_promise.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/testing/kernel_test_util.h"
#include "exec/testing/random_model.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::Floats;
using kernel_testing::Int64s;

Tensor Bool(bool value) {
  Tensor t(ElementType::kBool, {});
  *t.As<uint8_t>() = value;
  return t;
}

ShapePromiseReport Check(std::string_view text, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  absl::StatusOr<ShapePromiseReport> report = CheckShapePromises(**model, inputs);
  EXPECT_TRUE(report.ok()) << report.status();
  if (!report.ok()) return {};
  EXPECT_EQ(report->skipped, "");
  return *report;
}

// Loop(M = 7, cond = c) with a body passing its condition through: 7 iterations only when c is
// true; with c false none, and the scan output is [0, 2].
constexpr char kRuntimeConditionLoop[] = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[2] x) => (float[?, 2] scan) <int64 m = {7}> {
  scan = Loop (m, c) <body = body (int64 i, bool cin) => (bool cout, float[2] s) {
    cout = Identity (cin)
    s = Add (x, x)
  }>
}
)";

TEST(ShapePromiseTest, LoopWithRuntimeCondition) {
  for (bool c : {false, true}) {
    ShapePromiseReport report = Check(kRuntimeConditionLoop, {Bool(c), Floats({2}, {1, 2})});
    EXPECT_GE(report.dims, 2) << "c = " << c;
  }
}

// TopK's k read from a graph input: both outputs have the data-dependent k.
TEST(ShapePromiseTest, TopKWithRuntimeK) {
  ShapePromiseReport report = Check(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 6] x, int64[1] k) => (float[1, ?] v, int64[1, ?] i) {
  v, i = TopK (x, k)
}
)",
                                    {Floats({1, 6}, {3, 1, 4, 1, 5, 9}), Int64s({1}, {2})});
  EXPECT_EQ(report.values, 4);
}

TEST(ShapePromiseTest, InputsTheModelRefusesAreSkipped) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kRuntimeConditionLoop);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ShapePromiseReport> report =
      CheckShapePromises(**model, {Bool(true), Floats({3}, {1, 2, 3})});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_NE(report->skipped.find("input 'x' is [3]"), std::string::npos) << report->skipped;
}

// An expression dim of an input is a precondition (found by the model fuzzer): inputs that break
// it are skipped, not a broken promise.
TEST(ShapePromiseTest, InputsBreakingTheirDeclaredExpressionsAreSkipped) {
  constexpr char kText[] = R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[3, 2*N + 1, N] x) => (float[3, 2*N + 1, N] y) {
  y = Neg (x)
}
)";
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ShapePromiseReport> report =
      CheckShapePromises(**model, {Floats({3, 2, 2}, std::vector<float>(12, 1.0f))});
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_NE(report->skipped.find("input 'x' of graph 'g' is [3,2,2]"), std::string::npos)
      << report->skipped;
  // Inputs that satisfy it are checked.
  EXPECT_EQ(Check(kText, {Floats({3, 5, 2}, std::vector<float>(30, 1.0f))}).values, 2);
}

TEST(ShapePromiseTest, RandomGraphsKeepEveryPromise) {
  // ANVIL_RANDOM_MODELS=N checks N models instead, from seed ANVIL_RANDOM_FIRST (longer local
  // runs, or one seed).
  const char* env = std::getenv("ANVIL_RANDOM_MODELS");
  const int kModels = env != nullptr ? std::atoi(env) : 2000;
  int checked = 0, failures = 0;
  ShapePromiseReport total;
  std::map<std::string, int> skipped;
  const char* first_env = std::getenv("ANVIL_RANDOM_FIRST");
  const int first = first_env != nullptr ? std::atoi(first_env) : 0;
  for (int seed = first; seed < first + kModels; ++seed) {
    const RandomModel gen = MakeRandomModel(seed);
    absl::StatusOr<std::unique_ptr<Model>> model = gen.Parse();
    ASSERT_TRUE(model.ok()) << model.status() << "\n" << gen.text;
    absl::StatusOr<ShapePromiseReport> report = CheckShapePromises(**model, gen.inputs);
    if (!report.ok()) {
      ADD_FAILURE() << "seed " << seed << ": " << report.status().message() << "\n" << gen.text;
      if (++failures >= 20) break;
      continue;
    }
    if (!report->skipped.empty()) {
      ++skipped[report->skipped.substr(0, 90)];
      continue;
    }
    ++checked;
    total.values += report->values;
    total.observations += report->observations;
    total.dims += report->dims;
    total.elements += report->elements;
  }
  std::printf(
      "random graphs: %d of %d models checked: %lld values, %lld observations, %lld exact dims, "
      "%lld known elements\n",
      checked, kModels, static_cast<long long>(total.values),
      static_cast<long long>(total.observations), static_cast<long long>(total.dims),
      static_cast<long long>(total.elements));
  for (const auto& [reason, count] : skipped)
    std::printf("  skipped %d: %s\n", count, reason.c_str());
  // The generator tracks dims so that nearly every model is valid: a low count means it broke.
  EXPECT_GE(checked, kModels * 9 / 10);
}

}  // namespace
}  // namespace anvil
