// Runs the widen-float16 pass's text tests, kernels/testdata/widen_float16.test (format:
// graph/passes/pass_test_runner.h).
#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(WidenFloat16TextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("kernels/testdata/widen_float16.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_EQ(cases, 3);
}

}  // namespace
}  // namespace anvil
