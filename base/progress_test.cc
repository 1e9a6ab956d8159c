#include "base/progress.h"

#include <chrono>
#include <sstream>

#include "gtest/gtest.h"

namespace anvil {
namespace {

using std::chrono::milliseconds;

TEST(ProgressTest, ReportsOnlyWorkOverTheThresholdAndNothingWhenQuiet) {
  std::ostringstream out;
  const Progress progress("anvil-run", false, milliseconds(1000), &out);
  progress.Report("import m.onnx", milliseconds(999), 5);
  EXPECT_EQ(out.str(), "");
  progress.Report("import m.onnx", milliseconds(1830), 860'000'000);
  progress.Report("pass fuse-qdq", milliseconds(2000));
  progress.Report("export", milliseconds(1500), 2'500'000'000);
  progress.Report("plan", milliseconds(1000), 512);
  EXPECT_EQ(out.str(),
            "anvil-run: import m.onnx: 1.83 s (860.0 MB)\n"
            "anvil-run: pass fuse-qdq: 2.00 s\n"
            "anvil-run: export: 1.50 s (2.50 GB)\n"
            "anvil-run: plan: 1.00 s (512 bytes)\n");
  std::ostringstream quiet_out;
  const Progress quiet("anvil-run", true, milliseconds(0), &quiet_out);
  quiet.Report("import", milliseconds(5000));
  EXPECT_EQ(quiet_out.str(), "");
}

TEST(ProgressTest, ScopedProgressReportsItsScope) {
  std::ostringstream out;
  const Progress progress("anvil-opt", false, milliseconds(0), &out);
  {
    ScopedProgress scope(&progress, "load", 10);
    scope.set_bytes(2'000'000);
  }
  EXPECT_EQ(out.str().rfind("anvil-opt: load: ", 0), 0u) << out.str();
  EXPECT_NE(out.str().find(" s (2.0 MB)\n"), std::string::npos) << out.str();
  { ScopedProgress nobody(nullptr, "ignored"); }
}

}  // namespace
}  // namespace anvil
