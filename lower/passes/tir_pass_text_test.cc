// Runs the Tensor IR text tests of one pass (tir_pass_test_runner.h): the file
// lower/passes/testdata/<ANVIL_TIR_TEST_FILE>, each case reported separately. Every pass's
// cc_test runs this source with its own file and links only that pass.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"
#include "lower/passes/tir_pass_test_runner.h"

#ifndef ANVIL_TIR_TEST_FILE
#error "define ANVIL_TIR_TEST_FILE as the .test file's name in lower/passes/testdata"
#endif

namespace anvil::tir {
namespace {

TEST(TirPassTextTest, AllCasesPass) {
  const std::string path = WorkspaceFile("lower/passes/testdata/" ANVIL_TIR_TEST_FILE);
  int cases = 0;
  std::vector<absl::Status> failures = RunTirPassTestFile(path, &cases);
  EXPECT_GT(cases, 0) << path;
  for (const absl::Status& failure : failures) ADD_FAILURE() << failure.message();
}

}  // namespace
}  // namespace anvil::tir
