// Runs the text pass tests in shape/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(ShapeInferenceTextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("shape/testdata/shape_inference.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_GE(cases, 5);
}

TEST(ShapeInferenceTextTest, LoopCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("shape/testdata/loop.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_EQ(cases, 6);
}

TEST(ShapeInferenceTextTest, BoundedCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("shape/testdata/bounded.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_EQ(cases, 4);
}

}  // namespace
}  // namespace anvil
