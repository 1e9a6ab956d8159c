#include "tools/command_line.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace anvil {
namespace {

// argv as main receives it (the program name first).
class Argv {
 public:
  explicit Argv(std::vector<std::string> args) : args_(std::move(args)) {
    args_.insert(args_.begin(), "tool");
    for (std::string& a : args_) pointers_.push_back(a.data());
  }
  int argc() const { return static_cast<int>(pointers_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> args_;
  std::vector<char*> pointers_;
};

TEST(CommandLine, ValuesInlineOrNextAndPositionals) {
  Argv a({"--iters=5", "model.onnx", "--out", "dir", "--memory", "-x"});
  CommandLine line(a.argc(), a.argv());
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.key(), "--iters");
  EXPECT_EQ(*line.Count(1), 5);
  ASSERT_TRUE(line.Next());
  EXPECT_FALSE(line.IsOption());
  EXPECT_EQ(line.arg(), "model.onnx");
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.key(), "--out");
  EXPECT_EQ(*line.Value(), "dir");  // consumes "dir"
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.key(), "--memory");
  EXPECT_TRUE(line.NoValue().ok());
  ASSERT_TRUE(line.Next());
  EXPECT_TRUE(line.IsOption());
  EXPECT_EQ(line.Unknown().message(), "unknown option '-x' (see --help)");
  EXPECT_FALSE(line.Next());
}

TEST(CommandLine, ErrorsNameTheFlag) {
  Argv a({"--iters=0", "--timing=yes", "--out"});
  CommandLine line(a.argc(), a.argv());
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.Count(1).status().message(), "--iters needs a whole number >= 1, got '0'");
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.NoValue().message(), "--timing takes no value");
  ASSERT_TRUE(line.Next());
  EXPECT_EQ(line.Value().status().message(), "--out needs a value");
}

TEST(CommandLine, PathsAreRelativeToTheBazelRunDirectory) {
  setenv("BUILD_WORKING_DIRECTORY", "/home/user", 1);
  EXPECT_EQ(ResolveUserPath("m.onnx"), "/home/user/m.onnx");
  EXPECT_EQ(ResolveUserPath("/abs/m.onnx"), "/abs/m.onnx");
  unsetenv("BUILD_WORKING_DIRECTORY");
  EXPECT_EQ(ResolveUserPath("m.onnx"), "m.onnx");
}

TEST(CommandLine, WarningsArePrintedOnceEachAndCapped) {
  std::vector<std::string> warnings = {"a", "b", "a"};
  for (int i = 0; i < kMaxWarningsShown + 5; ++i) warnings.push_back("w" + std::to_string(i));
  std::ostringstream os;
  PrintWarnings(os, "tool", warnings);
  const std::string text = os.str();
  EXPECT_EQ(text.rfind("tool: warning: a\ntool: warning: b\ntool: warning: w0\n", 0), 0u) << text;
  // 2 + 25 distinct warnings: 20 shown, then the rest counted.
  EXPECT_NE(text.find("tool: warning: ... and 7 more\n"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), kMaxWarningsShown + 1);
}

}  // namespace
}  // namespace anvil
