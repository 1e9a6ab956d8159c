// The Tensor IR's pass manager: pipelines parse and print back, the registry knows the passes of
// lower/passes/, instrumentations see every pass, lower-to-tir's switches map onto the default
// pipeline and its `pipeline` option nests a Tensor IR pipeline in a graph pipeline.
#include "lower/passes/tir_pass_manager.h"

#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "graph/pass_manager.h"
#include "gtest/gtest.h"
#include "lower/ir/parser.h"
#include "lower/lowering/lower_to_tir.h"
#include "lower/passes/passes.h"
#include "lower/passes/tir_instrumentation.h"
#include "lower/passes/tir_pass.h"

namespace anvil::tir {
namespace {

// Fails without touching the module.
class FailingPass : public Pass {
 public:
  std::string_view name() const override { return "test-fail"; }
  std::string_view description() const override { return "fails"; }
  absl::StatusOr<bool> Run(Module& module, PassContext& ctx) override {
    return absl::InternalError("something broke");
  }
};
ANVIL_REGISTER_TIR_PASS(FailingPass);

// Two element-wise nests over [N, 4] with an intermediate: what every pass has work on.
constexpr char kModule[] = R"(module {
  func main(N: index, x: [f32 x N, 4], b: [f32 x 4], y: [f32 x N, 4]) -> void {
    tensor s: [f32 x N, 4]
    for i0 in (0, N, 1) {
      for i1 in (0, 4, 1) {
        s[i0, i1] = x[i0, i1] + b[i1]
      }
    }
    for j0 in (0, N, 1) {
      for j1 in (0, 4, 1) {
        y[j0, j1] = select(s[j0, j1] < 0.0f, 0.0f, s[j0, j1])
      }
    }
  }
}
)";

PassManager ParseOrDie(std::string_view text) {
  absl::StatusOr<PassManager> pm = PassManager::Parse(text);
  EXPECT_TRUE(pm.ok()) << pm.status();
  return pm.ok() ? *std::move(pm) : PassManager();
}

TEST(TirPipelineTest, RoundTrips) {
  for (const char* text : {
           "",
           "fuse",
           "fuse,tile-rows,plan-buffers,collapse-loops,mark-loops",
           "fuse,tile-rows{tile-bytes=32768},mark-loops",
           "tile-rows{tile-bytes=4096,weight-bytes=0},fuse,fuse",
       }) {
    EXPECT_EQ(ParseOrDie(text).ToString(), text);
  }
  EXPECT_EQ(ParseOrDie(" fuse , tile-rows { tile-bytes = 98304 } ").ToString(), "fuse,tile-rows");
}

TEST(TirPipelineTest, Errors) {
  absl::StatusOr<PassManager> unknown = PassManager::Parse("fuse,dce");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "unknown Tensor IR pass 'dce'"));
  EXPECT_TRUE(absl::StrContains(unknown.status().message(),
                                "collapse-loops, fuse, mark-loops, plan-buffers"));
  absl::StatusOr<PassManager> option = PassManager::Parse("tile-rows{tile-bytes=0}");
  ASSERT_FALSE(option.ok());
  EXPECT_TRUE(
      absl::StrContains(option.status().message(),
                        "pass 'tile-rows' option 'tile-bytes' (int64): expected at least 1"));
  absl::StatusOr<PassManager> syntax = PassManager::Parse("fuse,,mark-loops");
  ASSERT_FALSE(syntax.ok());
  EXPECT_TRUE(absl::StrContains(syntax.status().message(), "column 6: expected a pass name"));
}

TEST(TirPassManagerTest, InstrumentationsSeeEveryPass) {
  absl::StatusOr<Module> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  PassManager pm = ParseOrDie("fuse,plan-buffers,mark-loops");
  std::ostringstream dumps;
  pm.AddInstrumentation(PrintIrInstrumentation::AfterPasses(dumps, {"mark-loops"}));
  pm.AddInstrumentation(std::make_unique<VerifierInstrumentation>(/*verify_unchanged=*/true));
  auto* stats = pm.AddInstrumentation(std::make_unique<StatisticsInstrumentation>());
  auto* timer = pm.AddInstrumentation(std::make_unique<TimingInstrumentation>());
  ASSERT_TRUE(pm.Run(*module).ok());
  EXPECT_TRUE(absl::StartsWith(dumps.str(), "// ----- IR after mark-loops -----\nmodule {"))
      << dumps.str();
  EXPECT_FALSE(absl::StrContains(dumps.str(), "IR after fuse"));
  EXPECT_TRUE(absl::StrContains(dumps.str(), "parallel"));
  EXPECT_EQ(stats->Get("fuse", "inlined-producers"), 1);
  EXPECT_EQ(stats->Get("mark-loops", "parallel-loops"), 1);
  ASSERT_EQ(timer->entries().size(), 3u);
  EXPECT_EQ(timer->entries()[0].pass, "fuse");
  EXPECT_TRUE(timer->entries()[0].changed);
}

TEST(TirPassManagerTest, FailureNamesThePass) {
  absl::StatusOr<Module> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  PassManager pm = ParseOrDie("fuse,test-fail,mark-loops");
  absl::Status s = pm.Run(*module);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "failed in test-fail: something broke");
}

// ---- lower-to-tir: the switches and the nested pipeline ----

TEST(LowerToTirPipelineTest, SwitchesMapOntoTheDefaultPipeline) {
  lower::ModulePassOptions options;
  EXPECT_EQ(lower::ModulePassPipeline(options),
            "fuse,tile-rows,plan-buffers,collapse-loops,mark-loops");
  options.fuse = false;
  options.mark_loops = false;
  options.row_tiles.tile_bytes = 4096;
  EXPECT_EQ(lower::ModulePassPipeline(options),
            "tile-rows{tile-bytes=4096},plan-buffers,collapse-loops");
  options.tile_rows = options.plan_buffers = options.collapse_loops = false;
  EXPECT_EQ(lower::ModulePassPipeline(options), "");
  options.pipeline = "mark-loops,fuse";
  EXPECT_EQ(lower::ModulePassPipeline(options), "mark-loops,fuse");
}

TEST(LowerToTirPipelineTest, OptionTexts) {
  absl::StatusOr<lower::LoweringOptions> options =
      lower::ParseLoweringOptions("fuse=false,tile-bytes=2048");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(lower::ModulePassPipeline(*options),
            "tile-rows{tile-bytes=2048},plan-buffers,collapse-loops,mark-loops");
  options = lower::ParseLoweringOptions("pipeline=fuse,tile-rows{tile-bytes=98304},mark-loops");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(lower::ModulePassPipeline(*options), "fuse,tile-rows{tile-bytes=98304},mark-loops");
  options = lower::ParseLoweringOptions("pipeline=fuse,mark-loops,fuse=false");
  ASSERT_FALSE(options.ok());
  EXPECT_TRUE(absl::StrContains(options.status().message(), "cannot be combined with 'pipeline'"));
}

TEST(LowerToTirPipelineTest, NestedPipelineRoundTripsInAGraphPipeline) {
  for (const char* text : {
           "shape-inference,lower-to-tir{pipeline=fuse,tile-rows{tile-bytes=98304},plan-buffers,"
           "collapse-loops,mark-loops}",
           "lower-to-tir{pipeline=fuse}",
           "lower-to-tir{fuse=false,tile-bytes=4096}",
       }) {
    absl::StatusOr<anvil::PassManager> pm = anvil::PassManager::Parse(text);
    ASSERT_TRUE(pm.ok()) << pm.status();
    EXPECT_EQ(pm->ToString(), text);
  }
  // A quoted value keeps its quotes when it holds blanks.
  absl::StatusOr<anvil::PassManager> quoted =
      anvil::PassManager::Parse(R"(lower-to-tir{pipeline="fuse, mark-loops"})");
  ASSERT_TRUE(quoted.ok()) << quoted.status();
  EXPECT_EQ(quoted->ToString(), R"(lower-to-tir{pipeline="fuse, mark-loops"})");
}

}  // namespace
}  // namespace anvil::tir
