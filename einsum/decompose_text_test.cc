// Runs the text pass tests in einsum/testdata/*.test (format: graph/passes/pass_test_runner.h).
#include <cstdlib>
#include <string>

#include "graph/passes/pass_test_runner.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::string TestFile(const std::string& name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string dir = srcdir != nullptr && workspace != nullptr
                              ? std::string(srcdir) + "/" + workspace + "/einsum/testdata"
                              : "einsum/testdata";
  return dir + "/" + name;
}

TEST(EinsumDecomposeTextTest, AllCasesPass) {
  int cases = 0;
  for (const absl::Status& failure : RunPassTestFile(TestFile("einsum_decompose.test"), &cases)) {
    ADD_FAILURE() << failure.message();
  }
  EXPECT_GE(cases, 12);
}

}  // namespace
}  // namespace anvil
