// Runs the text pass tests in shape/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

// Runs every case of shape/testdata/`file`; returns how many there were.
int RunCases(const std::string& file) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("shape/testdata/" + file), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  return cases;
}

TEST(ShapeInferenceTextTest, AllCasesPass) { EXPECT_GE(RunCases("shape_inference.test"), 5); }

TEST(ShapeInferenceTextTest, LoopCasesPass) { EXPECT_EQ(RunCases("loop.test"), 6); }

TEST(ShapeInferenceTextTest, BoundedCasesPass) { EXPECT_EQ(RunCases("bounded.test"), 5); }

}  // namespace
}  // namespace anvil
