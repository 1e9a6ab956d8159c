// Runs the text pass tests in einsum/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(EinsumDecomposeTextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure :
       RunPassTestFile(WorkspaceFile("einsum/testdata/einsum_decompose.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_GE(cases, 12);
}

}  // namespace
}  // namespace anvil
