#include "graph/pass_manager.h"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "graph/instrumentation.h"
#include "graph/pass.h"
#include "graph/pass_registry.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// ---- Test-only passes, registered like real ones ----

class NoopPass : public Pass {
 public:
  std::string_view name() const override { return "test-noop"; }
  std::string_view description() const override { return "Does nothing."; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override { return false; }
};
ANVIL_REGISTER_PASS(NoopPass);

// Claims a change without making one: lets the verifier run on a valid model.
class TouchPass : public Pass {
 public:
  std::string_view name() const override { return "test-touch"; }
  std::string_view description() const override { return "Reports a change, makes none."; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
    ctx.AddStatistic("touches", 1);
    ctx.AddStatistic("nodes-seen", static_cast<int64_t>(model.graph().num_nodes()));
    ctx.AddStatistic("touches", 1);
    return true;
  }
};
ANVIL_REGISTER_PASS(TouchPass);

class OptionsPass : public Pass {
 public:
  std::string_view name() const override { return "test-options"; }
  std::string_view description() const override { return "Has one option of each type."; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
    ctx.AddStatistic("limit", *limit_);
    return false;
  }

  PassOption<int64_t> limit_{this, "limit", 4, "An integer."};
  PassOption<bool> aggressive_{this, "aggressive", false, "A flag."};
  PassOption<double> ratio_{this, "ratio", 0.5, "A fraction."};
  PassOption<std::string> mode_{this, "mode", "fast", "A word."};
};
ANVIL_REGISTER_PASS(OptionsPass);

class FailPass : public Pass {
 public:
  std::string_view name() const override { return "test-fail"; }
  std::string_view description() const override { return "Always fails."; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
    return absl::InternalError("something broke");
  }
};
ANVIL_REGISTER_PASS(FailPass);

// Breaks the SSA order: moves the last node of the main graph to the front.
class BreakOrderPass : public Pass {
 public:
  std::string_view name() const override { return "test-break-order"; }
  std::string_view description() const override { return "Moves the last node first."; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
    std::vector<Node*> nodes = model.graph().NodesSnapshot();
    if (nodes.size() < 2) return false;
    model.graph().MoveNodeBefore(nodes.back(), nodes.front());
    return true;
  }
};
ANVIL_REGISTER_PASS(BreakOrderPass);

class EstablishShapesPass : public Pass {
 public:
  std::string_view name() const override { return "test-infer-shapes"; }
  std::string_view description() const override { return "Establishes test-shapes."; }
  std::vector<std::string> Establishes() const override { return {"test-shapes"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override { return false; }
};
ANVIL_REGISTER_PASS(EstablishShapesPass);

class NeedsShapesPass : public Pass {
 public:
  std::string_view name() const override { return "test-needs-shapes"; }
  std::string_view description() const override { return "Requires test-shapes."; }
  std::vector<std::string> Requires() const override { return {"test-shapes"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override { return false; }
};
ANVIL_REGISTER_PASS(NeedsShapesPass);

class DropShapesPass : public Pass {
 public:
  std::string_view name() const override { return "test-drop-shapes"; }
  std::string_view description() const override { return "Invalidates test-shapes."; }
  std::vector<std::string> Invalidates() const override { return {"test-shapes"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override { return false; }
};
ANVIL_REGISTER_PASS(DropShapesPass);

class NeedsMagicPass : public Pass {
 public:
  std::string_view name() const override { return "test-needs-magic"; }
  std::string_view description() const override { return "Requires what nothing provides."; }
  std::vector<std::string> Requires() const override { return {"test-magic"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override { return false; }
};
ANVIL_REGISTER_PASS(NeedsMagicPass);

// Records every hook call as "<tag>:<hook>[:<pass>]".
class RecordingInstrumentation : public PassInstrumentation {
 public:
  RecordingInstrumentation(std::string tag, std::vector<std::string>* log)
      : tag_(std::move(tag)), log_(log) {}

  void RunBeforePipeline(Model& model) override { log_->push_back(tag_ + ":begin"); }
  void RunAfterPipeline(Model& model, const absl::Status& status) override {
    log_->push_back(absl::StrCat(tag_, ":end:", status.ok() ? "ok" : "error"));
  }
  absl::Status RunBeforePass(const Pass& pass, Model& model) override {
    log_->push_back(absl::StrCat(tag_, ":before:", std::string(pass.name())));
    return absl::OkStatus();
  }
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override {
    log_->push_back(
        absl::StrCat(tag_, ":after:", std::string(pass.name()), changed ? ":changed" : ""));
    return absl::OkStatus();
  }
  void RunAfterPassFailed(const Pass& pass, Model& model, const absl::Status& status) override {
    log_->push_back(absl::StrCat(tag_, ":failed:", std::string(pass.name())));
  }

 private:
  std::string tag_;
  std::vector<std::string>* log_;
};

// An instrumentation that vetoes passes by name, before or after they run.
class VetoInstrumentation : public PassInstrumentation {
 public:
  VetoInstrumentation(std::string before, std::string after)
      : before_(std::move(before)), after_(std::move(after)) {}
  absl::Status RunBeforePass(const Pass& pass, Model& model) override {
    if (pass.name() == before_) return absl::ResourceExhaustedError("out of budget");
    return absl::OkStatus();
  }
  absl::Status RunAfterPass(const Pass& pass, Model& model, const PassContext& ctx,
                            bool changed) override {
    if (pass.name() == after_) return absl::DataLossError("collector failed");
    return absl::OkStatus();
  }

 private:
  std::string before_;
  std::string after_;
};

// Debian's Abseil string_view is not std::string_view; gMock matchers want a
// std::string.
std::string Message(const absl::Status& status) { return std::string(status.message()); }

constexpr char kModel[] = R"(
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) {
  a = Relu(x)
  y = Neg(a)
}
)";

std::unique_ptr<Model> MakeModel() {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kModel);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

PassManager ParseOrDie(std::string_view text) {
  absl::StatusOr<PassManager> pm = PassManager::Parse(text);
  EXPECT_TRUE(pm.ok()) << text << ": " << pm.status();
  return pm.ok() ? *std::move(pm) : PassManager();
}

// ---- Registry ----

TEST(PassRegistryTest, CreatesRegisteredPasses) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass("test-noop");
  ASSERT_TRUE(pass.ok()) << pass.status();
  EXPECT_EQ((*pass)->name(), "test-noop");
  EXPECT_TRUE(IsPassRegistered("test-options"));
  EXPECT_FALSE(IsPassRegistered("no-such-pass"));
}

TEST(PassRegistryTest, ListIsSortedWithDescriptions) {
  std::vector<RegisteredPass> passes = ListPasses();
  ASSERT_GE(passes.size(), 9u);
  for (size_t i = 1; i < passes.size(); ++i) EXPECT_LT(passes[i - 1].name, passes[i].name);
  bool found = false;
  for (const RegisteredPass& p : passes) {
    if (p.name == "test-fail") {
      found = true;
      EXPECT_EQ(p.description, "Always fails.");
    }
  }
  EXPECT_TRUE(found);
}

TEST(PassRegistryTest, UnknownPassListsAvailable) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass("foo");
  ASSERT_FALSE(pass.ok());
  EXPECT_THAT(Message(pass.status()),
              StartsWith("unknown pass 'foo'; available passes: test-break-order, "));
}

TEST(PassRegistryTest, EstablishingPasses) {
  EXPECT_THAT(PassesEstablishing("test-shapes"), ElementsAre("test-infer-shapes"));
  EXPECT_TRUE(PassesEstablishing("test-magic").empty());
}

// ---- Options ----

TEST(PassOptionsTest, DefaultsAndTypedSetters) {
  OptionsPass pass;
  EXPECT_EQ(*pass.limit_, 4);
  EXPECT_EQ(pass.OptionsToString(), "");
  ASSERT_TRUE(pass.SetOption("limit", "-12").ok());
  ASSERT_TRUE(pass.SetOption("aggressive", "true").ok());
  ASSERT_TRUE(pass.SetOption("ratio", "0.1").ok());
  ASSERT_TRUE(pass.SetOption("mode", "slow").ok());
  EXPECT_EQ(*pass.limit_, -12);
  EXPECT_TRUE(*pass.aggressive_);
  EXPECT_DOUBLE_EQ(*pass.ratio_, 0.1);
  EXPECT_EQ(*pass.mode_, "slow");
  // Declaration order, shortest round-tripping double.
  EXPECT_EQ(pass.OptionsToString(), "limit=-12,aggressive=true,ratio=0.1,mode=slow");
}

TEST(PassOptionsTest, OnlyNonDefaultOptionsArePrinted) {
  OptionsPass pass;
  ASSERT_TRUE(pass.SetOption("mode", "fast").ok());  // the default
  ASSERT_TRUE(pass.SetOption("ratio", "2").ok());
  EXPECT_EQ(pass.OptionsToString(), "ratio=2");
}

TEST(PassOptionsTest, StringsNeedingQuotesAreQuoted) {
  OptionsPass pass;
  ASSERT_TRUE(pass.SetOption("mode", "a,b \"c\"").ok());
  EXPECT_EQ(pass.OptionsToString(), R"(mode="a,b \"c\"")");
  ASSERT_TRUE(pass.SetOption("mode", "").ok());
  EXPECT_EQ(pass.OptionsToString(), R"(mode="")");
}

TEST(PassOptionsTest, UnknownOptionListsOptions) {
  OptionsPass pass;
  absl::Status s = pass.SetOption("limt", "3");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(s), HasSubstr("pass 'test-options' has no option 'limt'"));
  EXPECT_THAT(Message(s), HasSubstr("its options are: limit (int64, default 4), aggressive (bool, "
                                    "default false), ratio (double, default 0.5), mode (string, "
                                    "default fast)"));
  EXPECT_EQ(Message(s).find('\n'), std::string::npos);

  NoopPass noop;
  EXPECT_THAT(Message(noop.SetOption("x", "1")),
              HasSubstr("pass 'test-noop' has no option 'x'; it takes no options"));
}

TEST(PassOptionsTest, BadValuesNameTheType) {
  OptionsPass pass;
  EXPECT_THAT(Message(pass.SetOption("limit", "four")),
              HasSubstr("pass 'test-options' option 'limit' (int64): expected an int64"));
  EXPECT_THAT(Message(pass.SetOption("limit", "1.5")), HasSubstr("expected an int64"));
  EXPECT_THAT(Message(pass.SetOption("aggressive", "yes")), HasSubstr("expected a bool"));
  EXPECT_THAT(Message(pass.SetOption("ratio", "half")), HasSubstr("expected a finite double"));
  EXPECT_EQ(*pass.limit_, 4);  // a failed set leaves the value alone
}

// ---- Pipeline parsing and printing ----

TEST(PipelineTest, RoundTrips) {
  for (const char* text : {
           "",
           "test-noop",
           "test-noop,test-touch,test-noop",
           "test-options{limit=8}",
           "test-options{limit=8,aggressive=true,ratio=0.25,mode=slow},test-"
           "noop",
           R"(test-options{mode="x, y"})",
           R"(test-options{mode="q\"\\"})",
           "test-options{ratio=1e+100}",
       }) {
    PassManager pm = ParseOrDie(text);
    EXPECT_EQ(pm.ToString(), text);
    EXPECT_EQ(ParseOrDie(pm.ToString()).ToString(), text);
  }
}

TEST(PipelineTest, CanonicalizesWhitespaceDefaultsAndEmptyBraces) {
  EXPECT_EQ(ParseOrDie("  test-noop ,\n test-touch\t").ToString(), "test-noop,test-touch");
  EXPECT_EQ(ParseOrDie("test-options { mode = slow , limit = 08 }").ToString(),
            "test-options{limit=8,mode=slow}");
  EXPECT_EQ(ParseOrDie("test-options{limit=4}").ToString(), "test-options");
  EXPECT_EQ(ParseOrDie("test-noop{}").ToString(), "test-noop");
  EXPECT_EQ(ParseOrDie("test-options{ratio=0.50}").ToString(), "test-options");
  EXPECT_EQ(ParseOrDie("test-options{aggressive=1}").ToString(), "test-options{aggressive=true}");
}

TEST(PipelineTest, OptionsReachThePass) {
  PassManager pm = ParseOrDie("test-options{limit=7}");
  ASSERT_EQ(pm.passes().size(), 1u);
  EXPECT_EQ(*static_cast<OptionsPass&>(*pm.passes()[0]).limit_, 7);
}

TEST(PipelineTest, UnknownPass) {
  absl::StatusOr<PassManager> pm = PassManager::Parse("test-noop, foo");
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(pm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(pm.status()), StartsWith("unknown pass 'foo'; available passes: "));
  EXPECT_THAT(Message(pm.status()), HasSubstr("test-noop, test-options, test-touch"));
}

TEST(PipelineTest, UnknownOption) {
  absl::StatusOr<PassManager> pm = PassManager::Parse("test-options{limit=2,speed=3}");
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(pm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(pm.status()), HasSubstr("pass 'test-options' has no option 'speed'"));
  EXPECT_THAT(Message(pm.status()), HasSubstr("limit (int64, default 4)"));
}

TEST(PipelineTest, BadOptionValue) {
  absl::StatusOr<PassManager> pm = PassManager::Parse("test-options{aggressive=maybe}");
  ASSERT_FALSE(pm.ok());
  EXPECT_THAT(Message(pm.status()),
              HasSubstr("pass 'test-options' option 'aggressive' (bool): expected a bool"));
}

struct SyntaxCase {
  const char* text;
  int column;
  const char* what;
};

TEST(PipelineTest, SyntaxErrorsGiveTheColumn) {
  for (const SyntaxCase& c : std::vector<SyntaxCase>{
           {"test-noop,,test-touch", 11, "expected a pass name"},
           {"test-noop,", 11, "expected a pass name"},
           {",test-noop", 1, "expected a pass name"},
           {"test-noop test-touch", 11, "expected ',' between passes"},
           {"test-options{limit}", 19, "expected '=' after option 'limit'"},
           {"test-options{limit=}", 20, "expected an option value"},
           {"test-options{limit=1", 21, "expected ',' or '}' to close the options"},
           {"test-options{limit=1 mode=x}", 22, "expected ',' or '}' after an option value"},
           {"test-options{limit=1,limit=2}", 22, "option 'limit' given twice"},
           {"test-options{mode=\"abc}", 19, "unterminated quoted value"},
           {"test-options{,}", 14, "expected an option name"},
           {"test-noop}", 10, "expected ',' between passes"},
       }) {
    absl::StatusOr<PassManager> pm = PassManager::Parse(c.text);
    ASSERT_FALSE(pm.ok()) << c.text;
    EXPECT_EQ(pm.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(Message(pm.status()), StartsWith(absl::StrCat("invalid pass pipeline at column ",
                                                              c.column, ": ", c.what)))
        << c.text;
  }
}

TEST(PipelineTest, SyntaxErrorIsOneLineWithColumnAndText) {
  absl::StatusOr<PassManager> pm = PassManager::Parse("test-noop,,x");
  ASSERT_FALSE(pm.ok());
  EXPECT_EQ(Message(pm.status()),
            "invalid pass pipeline at column 11: expected a pass name in 'test-noop,,x'");
}

TEST(PipelineTest, FailedAddPipelineAppendsNothing) {
  PassManager pm = ParseOrDie("test-noop");
  EXPECT_FALSE(pm.AddPipeline("test-touch,bogus").ok());
  EXPECT_EQ(pm.ToString(), "test-noop");
  EXPECT_TRUE(pm.AddPipeline("test-touch").ok());
  EXPECT_EQ(pm.ToString(), "test-noop,test-touch");
}

// ---- Running ----

TEST(PassManagerTest, EmptyPipelineRuns) {
  PassManager pm;
  std::unique_ptr<Model> model = MakeModel();
  EXPECT_TRUE(pm.Run(*model).ok());
}

TEST(PassManagerTest, PassFailureNamesThePass) {
  PassManager pm = ParseOrDie("test-noop,test-fail,test-touch");
  std::vector<std::string> log;
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("R", &log));
  std::unique_ptr<Model> model = MakeModel();
  absl::Status s = pm.Run(*model);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Message(s), "failed in test-fail: something broke");
  // test-touch never ran.
  EXPECT_THAT(log, ElementsAre("R:begin", "R:before:test-noop", "R:after:test-noop",
                               "R:before:test-fail", "R:failed:test-fail", "R:end:error"));
}

TEST(PassManagerTest, InstrumentationsNestLikeBrackets) {
  PassManager pm = ParseOrDie("test-noop,test-touch");
  std::vector<std::string> log;
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("A", &log));
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("B", &log));
  std::unique_ptr<Model> model = MakeModel();
  ASSERT_TRUE(pm.Run(*model).ok());
  EXPECT_THAT(log, ElementsAre("A:begin", "B:begin",                          //
                               "A:before:test-noop", "B:before:test-noop",    //
                               "B:after:test-noop", "A:after:test-noop",      //
                               "A:before:test-touch", "B:before:test-touch",  //
                               "B:after:test-touch:changed",                  //
                               "A:after:test-touch:changed", "B:end:ok", "A:end:ok"));
}

TEST(PassManagerTest, InstrumentationCanFailAfterAPass) {
  PassManager pm = ParseOrDie("test-noop,test-touch,test-noop");
  std::vector<std::string> log;
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("A", &log));
  pm.AddInstrumentation(std::make_unique<VetoInstrumentation>("", "test-touch"));
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("B", &log));
  std::unique_ptr<Model> model = MakeModel();
  absl::Status s = pm.Run(*model);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Message(s), "failed after test-touch: collector failed");
  // The other after-hooks of the failing pass still ran; the last pass did not.
  EXPECT_THAT(log, ElementsAre("A:begin", "B:begin", "A:before:test-noop", "B:before:test-noop",
                               "B:after:test-noop", "A:after:test-noop", "A:before:test-touch",
                               "B:before:test-touch", "B:after:test-touch:changed",
                               "A:after:test-touch:changed", "B:end:error", "A:end:error"));
}

TEST(PassManagerTest, InstrumentationCanRefuseToStartAPass) {
  PassManager pm = ParseOrDie("test-noop,test-touch");
  std::vector<std::string> log;
  pm.AddInstrumentation(std::make_unique<VetoInstrumentation>("test-touch", ""));
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("R", &log));
  std::unique_ptr<Model> model = MakeModel();
  absl::Status s = pm.Run(*model);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Message(s), "failed before test-touch: out of budget");
  EXPECT_THAT(log,
              ElementsAre("R:begin", "R:before:test-noop", "R:after:test-noop", "R:end:error"));
}

TEST(PassManagerTest, ContextCarriesTheLog) {
  class LoggingPass : public Pass {
   public:
    std::string_view name() const override { return "logging"; }
    std::string_view description() const override { return ""; }
    absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
      if (ctx.log() != nullptr) *ctx.log() << "hello from " << name() << "\n";
      return false;
    }
  };
  PassManager pm;
  pm.AddPass(std::make_unique<LoggingPass>());
  std::ostringstream log;
  pm.set_log(&log);
  std::unique_ptr<Model> model = MakeModel();
  ASSERT_TRUE(pm.Run(*model).ok());
  EXPECT_EQ(log.str(), "hello from logging\n");
}

// ---- Required properties ----

TEST(PassManagerTest, RequiredPropertyMissing) {
  PassManager pm = ParseOrDie("test-noop,test-needs-shapes");
  std::vector<std::string> log;
  pm.AddInstrumentation(std::make_unique<RecordingInstrumentation>("R", &log));
  std::unique_ptr<Model> model = MakeModel();
  absl::Status s = pm.Run(*model);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Message(s),
            "pass 'test-needs-shapes' requires 'test-shapes'; run "
            "'test-infer-shapes' before it");
  EXPECT_TRUE(log.empty());  // checked before anything ran
}

TEST(PassManagerTest, RequiredPropertyEstablishedOrAssumed) {
  std::unique_ptr<Model> model = MakeModel();
  EXPECT_TRUE(ParseOrDie("test-infer-shapes,test-noop,test-needs-shapes").Run(*model).ok());
  PassManager assumed = ParseOrDie("test-needs-shapes");
  assumed.AssumeProperty("test-shapes");
  EXPECT_TRUE(assumed.Run(*model).ok());
}

TEST(PassManagerTest, RequiredPropertyInvalidated) {
  PassManager pm = ParseOrDie("test-infer-shapes,test-drop-shapes,test-needs-shapes");
  EXPECT_EQ(Message(pm.CheckPipelineOrder()),
            "pass 'test-needs-shapes' requires 'test-shapes' (invalidated by "
            "'test-drop-shapes'); run 'test-infer-shapes' before it");
  EXPECT_TRUE(
      ParseOrDie("test-drop-shapes,test-infer-shapes,test-needs-shapes").CheckPipelineOrder().ok());
}

TEST(PassManagerTest, RequiredPropertyNobodyEstablishes) {
  EXPECT_EQ(Message(ParseOrDie("test-needs-magic").CheckPipelineOrder()),
            "pass 'test-needs-magic' requires 'test-magic', which no registered pass "
            "establishes");
}

// ---- Standard instrumentations ----

TEST(VerifierInstrumentationTest, BrokenModelFailsAfterThePass) {
  PassManager pm = ParseOrDie("test-touch,test-break-order,test-noop");
  pm.AddInstrumentation(std::make_unique<VerifierInstrumentation>());
  std::unique_ptr<Model> model = MakeModel();
  absl::Status s = pm.Run(*model);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(Message(s), StartsWith("failed after test-break-order: "));
  EXPECT_THAT(Message(s),
              HasSubstr("Neg"));  // the verifier names the offending node
}

TEST(VerifierInstrumentationTest, UnchangedModelsAreNotVerifiedByDefault) {
  // A pass that lies about changing nothing slips through unless
  // verify_unchanged is set.
  class SneakyPass : public BreakOrderPass {
   public:
    absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override {
      (void)BreakOrderPass::Run(model, ctx);
      return false;
    }
  };
  {
    PassManager pm;
    pm.AddPass(std::make_unique<SneakyPass>());
    pm.AddInstrumentation(std::make_unique<VerifierInstrumentation>());
    std::unique_ptr<Model> model = MakeModel();
    EXPECT_TRUE(pm.Run(*model).ok());
  }
  PassManager pm;
  pm.AddPass(std::make_unique<SneakyPass>());
  pm.AddInstrumentation(std::make_unique<VerifierInstrumentation>(/*verify_unchanged=*/true));
  std::unique_ptr<Model> model = MakeModel();
  EXPECT_THAT(Message(pm.Run(*model)), StartsWith("failed after test-break-order: "));
}

// A clock that advances by the next step on every call.
class FakeClock {
 public:
  explicit FakeClock(std::vector<double> steps_ms) : steps_ms_(std::move(steps_ms)) {}
  absl::Time Now() {
    if (calls_ < steps_ms_.size()) now_ += absl::Milliseconds(steps_ms_[calls_]);
    ++calls_;
    return now_;
  }

 private:
  std::vector<double> steps_ms_;
  size_t calls_ = 0;
  absl::Time now_ = absl::UnixEpoch();
};

TEST(TimingInstrumentationTest, ReportTable) {
  // Per pass: one call before, one after. Durations: 3 ms, 0.5 ms, 0.5 ms.
  auto clock = std::make_shared<FakeClock>(std::vector<double>{0, 3, 7, 0.5, 1, 0.5});
  PassManager pm = ParseOrDie("test-touch,test-options{limit=2},test-noop");
  TimingInstrumentation* timing = pm.AddInstrumentation(
      std::make_unique<TimingInstrumentation>([clock] { return clock->Now(); }));
  std::unique_ptr<Model> model = MakeModel();
  ASSERT_TRUE(pm.Run(*model).ok());

  ASSERT_EQ(timing->entries().size(), 3u);
  EXPECT_EQ(timing->entries()[0].pass, "test-touch");
  EXPECT_EQ(timing->entries()[0].wall, absl::Milliseconds(3));
  EXPECT_TRUE(timing->entries()[0].changed);
  EXPECT_EQ(timing->entries()[1].pass, "test-options{limit=2}");
  EXPECT_FALSE(timing->entries()[1].changed);
  EXPECT_EQ(timing->total(), absl::Milliseconds(4));

  std::ostringstream report;
  timing->PrintReport(report);
  EXPECT_EQ(report.str(),
            "===----- Pass execution timing report -----===\n"
            "Pass                    Wall (ms)  % total  Changed\n"
            "test-touch                  3.000    75.0%  yes\n"
            "test-options{limit=2}       0.500    12.5%  no\n"
            "test-noop                   0.500    12.5%  no\n"
            "Total                       4.000   100.0%\n");
}

TEST(TimingInstrumentationTest, FailedPassIsRecorded) {
  PassManager pm = ParseOrDie("test-noop,test-fail");
  TimingInstrumentation* timing = pm.AddInstrumentation(std::make_unique<TimingInstrumentation>());
  std::unique_ptr<Model> model = MakeModel();
  EXPECT_FALSE(pm.Run(*model).ok());
  ASSERT_EQ(timing->entries().size(), 2u);
  EXPECT_TRUE(timing->entries()[1].failed);
  std::ostringstream report;
  timing->PrintReport(report);
  EXPECT_THAT(report.str(), HasSubstr("failed\n"));
  EXPECT_THAT(report.str(), HasSubstr("\nTotal "));
}

TEST(PrintIrInstrumentationTest, AfterAll) {
  PassManager pm = ParseOrDie("test-noop,test-touch");
  std::ostringstream out;
  pm.AddInstrumentation(PrintIrInstrumentation::AfterAll(out));
  std::unique_ptr<Model> model = MakeModel();
  ASSERT_TRUE(pm.Run(*model).ok());
  const std::string ir = PrintModel(*model);
  EXPECT_EQ(out.str(), absl::StrCat("// ----- IR after test-noop -----\n", ir,
                                    "// ----- IR after test-touch -----\n", ir));
}

TEST(PrintIrInstrumentationTest, SelectedPassesBeforeAndAfter) {
  PassManager pm = ParseOrDie("test-noop,test-touch,test-fail");
  std::ostringstream out;
  PrintIrInstrumentation::Options options;
  options.before = {"test-touch"};
  options.after = {"test-noop", "test-touch", "test-fail"};
  options.only_if_changed = true;
  pm.AddInstrumentation(std::make_unique<PrintIrInstrumentation>(out, options));
  std::unique_ptr<Model> model = MakeModel();
  EXPECT_FALSE(pm.Run(*model).ok());
  const std::string ir = PrintModel(*model);
  // test-noop changed nothing, so only_if_changed skips it.
  EXPECT_EQ(out.str(), absl::StrCat("// ----- IR before test-touch -----\n", ir,
                                    "// ----- IR after test-touch -----\n", ir,
                                    "// ----- IR after test-fail (failed) -----\n", ir));
}

TEST(StatisticsInstrumentationTest, SumsPerPass) {
  PassManager pm = ParseOrDie("test-touch,test-options{limit=5},test-noop,test-touch");
  StatisticsInstrumentation* stats =
      pm.AddInstrumentation(std::make_unique<StatisticsInstrumentation>());
  std::unique_ptr<Model> model = MakeModel();
  ASSERT_TRUE(pm.Run(*model).ok());
  EXPECT_EQ(stats->Get("test-touch", "touches"), 4);
  EXPECT_EQ(stats->Get("test-touch", "nodes-seen"), 4);
  EXPECT_EQ(stats->Get("test-options", "limit"), 5);
  EXPECT_EQ(stats->Get("test-noop", "anything"), 0);
  std::ostringstream report;
  stats->PrintReport(report);
  EXPECT_EQ(report.str(),
            "===----- Pass statistics report -----===\n"
            "Pass          Statistic   Value\n"
            "test-touch    touches         4\n"
            "test-touch    nodes-seen      4\n"
            "test-options  limit           5\n");
}

TEST(StatisticsInstrumentationTest, EmptyReport) {
  StatisticsInstrumentation stats;
  std::ostringstream report;
  stats.PrintReport(report);
  EXPECT_EQ(report.str(), "===----- Pass statistics report -----===\n(no statistics)\n");
}

TEST(PassContextTest, AccumulatesInFirstSeenOrder) {
  PassContext ctx;
  ctx.AddStatistic("b", 2);
  ctx.AddStatistic("a", 1);
  ctx.AddStatistic("b", 3);
  EXPECT_EQ(ctx.GetStatistic("b"), 5);
  EXPECT_EQ(ctx.GetStatistic("c"), 0);
  ASSERT_EQ(ctx.statistics().size(), 2u);
  EXPECT_EQ(ctx.statistics()[0].first, "b");
  EXPECT_EQ(ctx.log(), nullptr);
}

}  // namespace
}  // namespace anvil
