#include "lower/evaluator/cost_check.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"
#include "lower/evaluator/tir_session.h"
#include "lower/lowering/lower_to_tir.h"
#include "runtime/session.h"

namespace anvil::lower {
namespace {

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

EmittedModule::Group MakeGroup(std::vector<std::string> nodes, bool emitted_work) {
  EmittedModule::Group g;
  g.nodes = std::move(nodes);
  g.emitted_work = emitted_work;
  return g;
}

TEST(CostCheckTest, GroupsSlowerThanTheirKernelsGiveTheirNodesButNotViews) {
  const std::vector<EmittedModule::Group> groups = {
      MakeGroup({"r", "t", "y"}, true),  // loses: 30 us against 10 + 5 us of kernels
      MakeGroup({"a"}, true),            // wins: 4 us against 10 us
      MakeGroup({"c"}, false),           // a kernel call: nothing to compare
      MakeGroup({"v"}, true),            // only a view: nothing a kernel would do instead
      MakeGroup({"b"}, true),            // within the slack: 10.5 us against 10 us
  };
  GroupProfile profile;
  profile.group_seconds = {30e-6, 4e-6, 50e-6, 1e-6, 10.5e-6};
  const absl::flat_hash_map<std::string, double> kernels = {
      {"r", 0.1e-6}, {"t", 10e-6},  {"y", 5e-6}, {"a", 10e-6},
      {"c", 1e-6},   {"v", 0.1e-6}, {"b", 10e-6}};
  CostCheckStats stats;
  const absl::flat_hash_set<std::string> slower =
      NodesSlowerThanKernels(groups, profile, kernels, {"r", "v"}, &stats);
  EXPECT_EQ(slower, (absl::flat_hash_set<std::string>{"t", "y"}));
  EXPECT_EQ(stats.groups, 3);
  EXPECT_EQ(stats.slower, 1);
}

TEST(CostCheckTest, DecisionsRoundTripPerInputDimsAndThreads) {
  const std::string dir = TempDir("cost-check-files");
  const std::vector<Tensor> small = {Tensor(ElementType::kFloat, {1, 8})};
  const std::vector<Tensor> large = {Tensor(ElementType::kFloat, {4, 8})};
  const std::string lib = dir + "/lib.so";
  EXPECT_NE(CostCheckPath(lib, small, 1), CostCheckPath(lib, large, 1));
  EXPECT_NE(CostCheckPath(lib, small, 1), CostCheckPath(lib, small, 2));
  EXPECT_EQ(CostCheckPath(lib, small, 1), CostCheckPath(lib, small, 1));
  const std::string path = CostCheckPath(lib, small, 1);
  EXPECT_FALSE(ReadCostCheck(path).has_value());
  ASSERT_TRUE(WriteCostCheck(path, {"t", "y"}).ok());
  EXPECT_EQ(ReadCostCheck(path), (std::vector<std::string>{"t", "y"}));
  ASSERT_TRUE(WriteCostCheck(path, {}).ok());
  EXPECT_EQ(ReadCostCheck(path), std::vector<std::string>());
  // Not a decision file: no decision.
  { std::ofstream(path) << "something else\nt\n"; }
  EXPECT_FALSE(ReadCostCheck(path).has_value());
}

constexpr char kTransposeSigmoid[] = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[1, 64, 24, 24] x) => (float[1, 24, 24, 64] y) {
  t = Transpose<perm = [0, 2, 3, 1]>(x)
  y = Sigmoid(t)
})";

Tensor Ramp(std::vector<int64_t> dims) {
  Tensor t(ElementType::kFloat, std::move(dims));
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    t.As<float>()[k] = static_cast<float>((k * 37) % 101 - 50) / 10.0f;
  }
  return t;
}

TEST(CostCheckTest, KernelNodesLowerToKernelCalls) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kTransposeSigmoid);
  ASSERT_TRUE(model.ok()) << model.status();
  LoweringOptions options;
  options.kernel_nodes = {"y"};
  LoweringStats stats;
  absl::StatusOr<tir::Module> module = LowerToTir(**model, options, &stats);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(stats.measured, 1);
  ASSERT_EQ(module->kernels.size(), 1u);
  EXPECT_EQ(module->kernels[0].op_type, "Sigmoid");
  EXPECT_EQ(module->kernels[0].category, "measured");
}

// A compiled session checks its costs at the first run, writes the decision beside the library,
// and a second session reads it instead of measuring; either way its outputs are the
// interpreter's within float rounding.
TEST(CostCheckTest, CompiledSessionsMeasureOnceThenReadTheDecision) {
  const std::string cache = TempDir("cost-check-jit");
  const Tensor x = Ramp({1, 64, 24, 24});
  absl::StatusOr<std::unique_ptr<Session>> reference =
      Session::Load(*ParseModelText(kTransposeSigmoid), SessionOptions{});
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::vector<Tensor>> expected = (*reference)->Run({{"x", x}});
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::vector<std::string> first_decision;
  for (int load = 0; load < 2; ++load) {
    TirSessionOptions options;
    options.compile = true;
    options.jit.cache_dir = cache;
    absl::StatusOr<std::unique_ptr<TirSession>> s =
        TirSession::Load(*ParseModelText(kTransposeSigmoid), options);
    ASSERT_TRUE(s.ok()) << s.status();
    // The groups name the nodes of their statements.
    bool names_y = false;
    for (const EmittedModule::Group& g : (*s)->compiled()->emitted().groups) {
      for (const std::string& n : g.nodes) names_y |= n == "y";
    }
    EXPECT_TRUE(names_y);
    absl::StatusOr<std::vector<Tensor>> y = (*s)->Run({{"x", x}});
    ASSERT_TRUE(y.ok()) << y.status();
    const CostCheckStats& c = (*s)->cost_check();
    EXPECT_TRUE(c.skipped.empty()) << c.skipped;
    if (load == 0) {
      EXPECT_TRUE(c.ran);
      EXPECT_FALSE(c.cached);
      EXPECT_GE(c.groups, 1);
      EXPECT_GT(c.first_seconds, 0);
      EXPECT_GT(c.interpreter_seconds, 0);
      first_decision = c.kernel_nodes;
    } else {
      EXPECT_FALSE(c.ran);
      EXPECT_TRUE(c.cached);
      EXPECT_EQ(c.kernel_nodes, first_decision);
    }
    EXPECT_EQ((*s)->lowering_stats().measured, static_cast<int64_t>(c.kernel_nodes.size()));
    ASSERT_EQ((*y)[0].dims(), (*expected)[0].dims());
    for (int64_t k = 0; k < (*y)[0].NumElements(); ++k) {
      ASSERT_NEAR((*y)[0].As<float>()[k], (*expected)[0].As<float>()[k], 1e-6f) << k;
    }
  }
}

TEST(CostCheckTest, ModelsWithMoreWeightsThanTheLimitSkipIt) {
  TirSessionOptions options;
  options.compile = true;
  options.jit.cache_dir = TempDir("cost-check-skip");
  options.cost_check_max_weight_bytes = 16;
  absl::StatusOr<std::unique_ptr<TirSession>> s =
      TirSession::Load(*ParseModelText(R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[2, 8] x) => (float[2, 8] y) <float[8] b = {1, 2, 3, 4, 5, 6, 7, 8}> {
  y = Add(x, b)
})"),
                       options);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE((*s)->Run({{"x", Ramp({2, 8})}}).ok());
  EXPECT_FALSE((*s)->cost_check().ran);
  EXPECT_NE((*s)->cost_check().skipped.find("32 bytes of weights"), std::string::npos)
      << (*s)->cost_check().skipped;
}

}  // namespace
}  // namespace anvil::lower
