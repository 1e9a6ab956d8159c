// Runs the text pass tests in constprop/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(ConstPropTextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("constprop/testdata/constprop.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_GE(cases, 5);
}

}  // namespace
}  // namespace anvil
