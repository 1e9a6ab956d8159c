// Runs every testdata/*.test file (see pass_test_runner.h), one test per file,
// each case reported separately.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "graph/pass_manager.h"
#include "graph/pass_registry.h"
#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::string TestdataDir() { return WorkspaceFile("graph/passes/testdata"); }

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(TestdataDir(), error)) {
    if (entry.path().extension() == ".test") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PassTextTest, FindsTheTestFiles) {
  std::vector<std::string> files = TestFiles();
  for (const char* expected : {"cse.test", "dce.test", "topo_sort.test"}) {
    EXPECT_TRUE(std::find(files.begin(), files.end(), expected) != files.end())
        << expected << " not found in " << TestdataDir();
  }
}

// ---- What the `passes` library registers ----

TEST(RegisteredPassesTest, PipelineOfAllPasses) {
  absl::StatusOr<PassManager> pm = PassManager::Parse(
      " dce , cse{max-initializer-bytes=64},topo-sort,fold-batchnorm,"
      "fuse-activations,fuse-layernorm,fuse-attention,fuse-qdq,fuse-matmul-transpose");
  ASSERT_TRUE(pm.ok()) << pm.status();
  EXPECT_EQ(pm->ToString(),
            "dce,cse{max-initializer-bytes=64},topo-sort,fold-batchnorm,fuse-activations,"
            "fuse-layernorm,fuse-attention,fuse-qdq,fuse-matmul-transpose");
  absl::StatusOr<PassManager> unknown = PassManager::Parse("dce,foo");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "unknown pass 'foo'; available passes: cse, dce, fold-batchnorm, fuse-activations, "
            "fuse-attention, fuse-layernorm, fuse-matmul-transpose, fuse-qdq, topo-sort");
  std::vector<RegisteredPass> passes = ListPasses();
  ASSERT_EQ(passes.size(), 9u);
  EXPECT_EQ(passes[0].name, "cse");
  EXPECT_FALSE(passes[0].description.empty());
}

// ---- The runner itself ----

constexpr char kTwoCases[] = R"(# A file header comment.

# pipeline: dce
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) { a = Neg(x)  y = Relu(x) }
# expected:
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) { y = Relu(x) }
# -----
# pipeline: nope
<ir_version: 8, opset_import: ["" : 17]>
main (float[2] x) => (float[2] y) { y = Relu(x) }
# expected-error: unknown pass 'nope'
# -----
)";

TEST(PassTestRunnerTest, ParsesCases) {
  absl::StatusOr<std::vector<PassTestCase>> cases = ParsePassTestFile(kTwoCases, "two.test");
  ASSERT_TRUE(cases.ok()) << cases.status();
  ASSERT_EQ(cases->size(), 2u);
  EXPECT_EQ((*cases)[0].file, "two.test");
  EXPECT_EQ((*cases)[0].line, 3);
  EXPECT_EQ((*cases)[0].pipeline, "dce");
  ASSERT_TRUE((*cases)[0].expected.has_value());
  EXPECT_FALSE((*cases)[0].expected_error.has_value());
  EXPECT_EQ((*cases)[1].line, 10);
  EXPECT_EQ((*cases)[1].expected_error, "unknown pass 'nope'");
  for (const PassTestCase& c : *cases) {
    absl::Status s = RunPassTestCase(c);
    EXPECT_TRUE(s.ok()) << s.message();
  }
}

TEST(PassTestRunnerTest, MalformedFiles) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (const Case& c : std::vector<Case>{
           {"main () => () {}\n# expected:\n", "f.test:1: case has no '# pipeline:' line"},
           {"# pipeline: dce\nmain () => () {}\n", "f.test:1: case has neither"},
           {"# pipeline: dce\n# expected-error: x\nmain () => () {}\n",
            "f.test:3: text after '# expected-error:'"},
           {"# pipeline: dce\n# expected:\n# pipeline: cse\n",
            "f.test:3: unexpected '# pipeline:' line"},
           {"# pipeline:\n", "f.test:1: empty pipeline"},
       }) {
    absl::StatusOr<std::vector<PassTestCase>> cases = ParsePassTestFile(c.text, "f.test");
    ASSERT_FALSE(cases.ok()) << c.text;
    EXPECT_EQ(std::string(cases.status().message()).rfind(c.error, 0), 0u)
        << cases.status().message();
  }
}

TEST(PassTestRunnerTest, MismatchShowsInputOutputExpected) {
  PassTestCase c;
  c.file = "m.test";
  c.line = 7;
  c.pipeline = "dce";
  c.input = "main (float[2] x) => (float[2] y) { a = Neg(x)  y = Relu(x) }\n";
  c.expected = "main (float[2] x) => (float[2] y) { y = Abs(x) }\n";
  absl::Status s = RunPassTestCase(c);
  ASSERT_FALSE(s.ok());
  const std::string message(s.message());
  EXPECT_EQ(message.rfind("m.test:7: pipeline 'dce': output differs", 0), 0u) << message;
  const size_t input = message.find("--- Input ---\n");
  const size_t output = message.find("--- Output ---\n");
  const size_t expected = message.find("--- Expected ---\n");
  ASSERT_NE(input, std::string::npos);
  ASSERT_NE(output, std::string::npos);
  ASSERT_NE(expected, std::string::npos);
  EXPECT_LT(input, output);
  EXPECT_LT(output, expected);
  EXPECT_NE(message.find("Relu", output), std::string::npos);
  EXPECT_NE(message.find("Abs", expected), std::string::npos);
}

TEST(PassTestRunnerTest, ExpectedErrorThatDoesNotHappen) {
  PassTestCase c;
  c.file = "e.test";
  c.line = 1;
  c.pipeline = "dce";
  c.input = "main (float[2] x) => (float[2] y) { y = Relu(x) }\n";
  c.expected_error = "boom";
  absl::Status s = RunPassTestCase(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find("expected an error containing 'boom' but the pipeline "
                      "succeeded"),
            std::string::npos);
}

TEST(PassTestRunnerTest, BrokenIrIsCaughtByTheVerifier) {
  // An input that breaks a schema (Relu with two inputs), which dce leaves
  // as it is: the verifier after the pass rejects it. (Import sorts unsorted
  // graphs, so node order cannot serve here.)
  PassTestCase c;
  c.file = "v.test";
  c.line = 1;
  c.pipeline = "dce";
  c.input = "main (float[2] x) => (float[2] y) { y = Relu(x, x) }\n";
  c.expected = c.input;
  absl::Status s = RunPassTestCase(c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("pipeline failed: failed after dce: "), std::string::npos)
      << s.message();
}

// ---- The test files ----

class PassTextFileTest : public testing::TestWithParam<std::string> {};

TEST_P(PassTextFileTest, AllCasesPass) {
  int num_cases = 0;
  std::vector<absl::Status> failures =
      RunPassTestFile(TestdataDir() + "/" + GetParam(), &num_cases);
  for (const absl::Status& failure : failures) ADD_FAILURE() << failure.message();
  EXPECT_GT(num_cases, 0) << GetParam() << " has no cases";
  std::cout << GetParam() << ": " << num_cases - static_cast<int>(failures.size()) << " of "
            << num_cases << " cases passed\n";
}

INSTANTIATE_TEST_SUITE_P(Testdata, PassTextFileTest, testing::ValuesIn(TestFiles()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.rfind('.'));
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace anvil
