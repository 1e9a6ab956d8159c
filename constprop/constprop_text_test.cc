// Runs the text pass tests in constprop/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <cstdlib>
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(ConstPropTextTest, AllCasesPass) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string dir = srcdir != nullptr && workspace != nullptr
                              ? std::string(srcdir) + "/" + workspace + "/constprop/testdata"
                              : "constprop/testdata";
  int cases = 0;
  for (const absl::Status& failure : RunPassTestFile(dir + "/constprop.test", &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_GE(cases, 5);
}

}  // namespace
}  // namespace anvil
