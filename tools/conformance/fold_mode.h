// The `fold` mode of the conformance runner: each in-scope test with every graph input made a
// constant (the test's own input data, as plain initializers) goes through constant
// propagation; every graph output must end up a constant equal to the expected output.
// Verdicts: pass; unknown (an output is still computed by a node: not folded); wrong (a folded
// value differs); error (the pass failed). Tests with random ops are excluded (their outputs
// are not deterministic, and random ops never fold).
#ifndef ANVIL_TOOLS_CONFORMANCE_FOLD_MODE_H_
#define ANVIL_TOOLS_CONFORMANCE_FOLD_MODE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "tools/conformance/runner.h"
#include "tools/conformance/test_suite.h"

namespace anvil::conformance {

struct FoldModeOptions {
  double rtol = 1e-3;
  double atol = 1e-7;
  // Quantized constants too: the mode asks for every output folded (constprop keeps
  // DequantizeLinear of quantized weights by default).
  std::string pipeline = "constprop{fold-dequantize=true}";
};

absl::StatusOr<FoldModeOptions> ParseFoldFlags(const std::vector<std::string>& flags);

// Random-op tests, excluded with their reason.
std::map<std::string, std::string> FoldExclusions(const std::vector<TestCase>& tests);
// Whether the model uses an op whose output is random.
bool UsesRandomOp(const onnx::ModelProto& model);

TestResult RunFoldTest(const TestCase& test, const onnx::ModelProto& proto,
                       const FoldModeOptions& options);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_FOLD_MODE_H_
