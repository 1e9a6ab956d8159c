// CheckShapePromises on the models of issue 32 (a Loop whose condition is a runtime value, TopK
// with a runtime k), and the property over random graphs: ops whose output dims come from dims,
// from constant or runtime shape tensors and from data (Reshape, Expand, Tile, ConstantOfShape,
// Range, TopK, NonZero, Slice, ...), and Loop, If and Scan with constant and runtime trip counts
// and conditions. Every model that infers and runs must keep every promise.
#include "exec/shape_promise.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "exec/testing/kernel_test_util.h"
#include "exec/testing/random_model.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"
#include "shape/dim_ranges.h"
#include "shape/shape_inference.h"

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

// NonZero of [N, 3] with N in [1, 4]: at most 12 nonzeros, and an all-nonzero input of the
// largest N hits that bound (tight); Unique of it: at least 1. An input outside its range is not
// one the model accepts.
TEST(ShapePromiseTest, DataDependentDimsStayInTheirRangesAndReachThem) {
  constexpr char kText[] = R"(
<ir_version: 8, opset_import: ["" : 17], metadata_props: ["anvil.dim_ranges" : "N=1:4"]>
g (float[N, 3] x) => (int64[?, ?] nz, float[?] u) {
  nz = NonZero (x)
  u = Unique (x)
}
)";
  ShapePromiseReport report = Check(kText, {Floats({4, 3}, std::vector<float>(12, 2.0f))});
  EXPECT_EQ(report.ranged, 5);   // x [4, 3], nz [2, 12], u [1]
  EXPECT_EQ(report.bounded, 5);  // nz's 12 and u's 1 against [0, 12] and [1, 12]
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
  ASSERT_TRUE(model.ok());
  std::unique_ptr<Model> inferred = (*model)->Clone();
  ASSERT_TRUE(InferShapes(*inferred).ok());
  EXPECT_EQ(FormatSymbolRanges(*ReadModelRanges(*inferred)),
            "N=1:4,NonZero_nz_n=0:12,Unique_u_n=1:12");
  absl::StatusOr<ShapePromiseReport> outside =
      CheckShapePromises(**model, {Floats({5, 3}, std::vector<float>(15, 1.0f))});
  ASSERT_TRUE(outside.ok());
  EXPECT_NE(outside->skipped.find("outside the range [1, 4]"), std::string::npos)
      << outside->skipped;
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

// Ranges for the symbols of `model`'s inputs that the sizes `inputs` give them satisfy: [v - a,
// v + b] with small random a and b, or [v - a, inf) for one symbol in five.
std::vector<SymbolRange> RangesAround(const Model& model, const std::vector<Tensor>& inputs,
                                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SymbolRange> ranges;
  const Graph& g = model.graph();
  for (size_t i = 0; i < g.inputs().size() && i < inputs.size(); ++i) {
    const Type& type = g.inputs()[i]->type();
    if (!type.is_tensor() || !type.has_shape() || !inputs[i].defined() || !inputs[i].is_tensor() ||
        type.rank() != static_cast<int64_t>(inputs[i].dims().size())) {
      continue;
    }
    for (size_t k = 0; k < type.shape().size(); ++k) {
      const Dim& d = type.shape()[k];
      // Plain names only: an expression dim (2*N + 1) is not a symbol of its own.
      if (!d.is_param() || std::any_of(d.param.begin(), d.param.end(), [](char c) {
            return !std::isalnum(static_cast<unsigned char>(c)) && c != '_';
          })) {
        continue;
      }
      if (std::any_of(ranges.begin(), ranges.end(),
                      [&](const SymbolRange& r) { return r.name == d.param; })) {
        continue;
      }
      const int64_t v = inputs[i].dims()[k];
      SymbolRange r{d.param, std::max<int64_t>(0, v - static_cast<int64_t>(rng() % 3)), v};
      if (rng() % 5 == 0) {
        r.hi.reset();
      } else {
        *r.hi += static_cast<int64_t>(rng() % 5);
      }
      ranges.push_back(std::move(r));
    }
  }
  return ranges;
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
    // Three models in four get ranges for their inputs' symbols around the sizes the inputs
    // give them (some unbounded above), so data-dependent dims get finite bounds to keep.
    if (seed % 4 != 0) {
      ASSERT_TRUE(MergeModelRanges(**model, RangesAround(**model, gen.inputs, seed)).ok());
    }
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
    total.ranged += report->ranged;
    total.bounded += report->bounded;
  }
  std::printf(
      "random graphs: %d of %d models checked: %lld values, %lld observations, %lld exact dims, "
      "%lld known elements\n",
      checked, kModels, static_cast<long long>(total.values),
      static_cast<long long>(total.observations), static_cast<long long>(total.dims),
      static_cast<long long>(total.elements));
  std::printf("  %lld dims inside their inferred ranges, %lld of them with a finite upper bound\n",
              static_cast<long long>(total.ranged), static_cast<long long>(total.bounded));
  for (const auto& [reason, count] : skipped)
    std::printf("  skipped %d: %s\n", count, reason.c_str());
  // The generator tracks dims so that nearly every model is valid: a low count means it broke.
  EXPECT_GE(checked, kModels * 9 / 10);
}

}  // namespace
}  // namespace anvil
