// Text tests of lowering (in the manner of MLIR's lit tests): lower/testdata/*.test.
//
// Cases are separated by lines `# -----`. Each case is
//
//   # pipeline: shape-inference,lower-to-tir      (must run lower-to-tir)
//   <input model, ONNX text>
//   # expected-tir:
//   <the printed module>
//
// A case passes when the pipeline runs (verifying the model after every pass) and the module the
// lower-to-tir pass left prints exactly as the expected text does after parsing and printing it
// (spacing does not matter, the IR does); the printed module must also parse back into a module
// structurally equal to the lowered one.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/instrumentation.h"
#include "graph/pass_manager.h"
#include "graph/passes/pass_test_runner.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "lower/ir/equal.h"
#include "lower/ir/parser.h"
#include "lower/ir/printer.h"
#include "lower/lowering/lower_to_tir.h"

namespace anvil::lower {
namespace {

struct Case {
  int line = 0;
  std::string pipeline, model, expected;
};

std::vector<Case> ReadCases(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Case> cases(1);
  enum { kModel, kExpected } part = kModel;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
    ++line_number;
    if (line == "# -----") {
      cases.emplace_back();
      part = kModel;
      continue;
    }
    Case& c = cases.back();
    if (absl::ConsumePrefix(&line, "# pipeline: ")) {
      c.pipeline = std::string(line);
      c.line = line_number;
    } else if (line == "# expected-tir:") {
      part = kExpected;
    } else if (part == kExpected) {
      absl::StrAppend(&c.expected, line, "\n");
    } else if (!absl::StartsWith(line, "#")) {
      absl::StrAppend(&c.model, line, "\n");
    }
  }
  return cases;
}

TEST(LoweringTextTest, LowerToTir) {
  const std::string path = WorkspaceFile("lower/testdata/lower_to_tir.test");
  std::vector<Case> cases = ReadCases(path);
  ASSERT_GE(cases.size(), 10u) << path;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(path, ":", c.line, ": pipeline ", c.pipeline));
    ASSERT_FALSE(c.pipeline.empty());
    ASSERT_TRUE(absl::StrContains(c.pipeline, "lower-to-tir"));
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(c.model);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<PassManager> manager = PassManager::Parse(c.pipeline);
    ASSERT_TRUE(manager.ok()) << manager.status();
    manager->AddInstrumentation(std::make_unique<VerifierInstrumentation>());
    ASSERT_TRUE(manager->Run(**model).ok());
    const tir::Module* module = LoweredModule(**model);
    ASSERT_NE(module, nullptr);
    const std::string printed = tir::PrintModule(*module);
    absl::StatusOr<tir::Module> expected = tir::ParseModule(c.expected);
    ASSERT_TRUE(expected.ok()) << expected.status() << "\n" << c.expected;
    EXPECT_EQ(printed, tir::PrintModule(*expected)) << "input:\n" << c.model;
    absl::StatusOr<tir::Module> reparsed = tir::ParseModule(printed);
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(tir::FirstDifference(*module, *reparsed), "");
  }
}

}  // namespace
}  // namespace anvil::lower
