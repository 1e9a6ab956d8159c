// Runs the nchwc pass's text tests, kernels/testdata/nchwc_layout.test (format:
// graph/passes/pass_test_runner.h).
#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(NchwcLayoutTextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("kernels/testdata/nchwc_layout.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_EQ(cases, 7);
}

}  // namespace
}  // namespace anvil
