// Running the ONNX backend suite's node tests (a directory per test: model.onnx and
// test_data_set_N/{input,output}_K.pb) against the kernels, node by node through the node
// executor, for the kernel family tests. Test-only.
#ifndef ANVIL_EXEC_TESTING_BACKEND_TEST_UTIL_H_
#define ANVIL_EXEC_TESTING_BACKEND_TEST_UTIL_H_

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/ir.h"
#include "kernels/tensor.h"

namespace anvil::kernel_testing {

// The test directories below `root`, sorted; empty when `root` does not exist.
std::vector<std::filesystem::path> BackendTestDirs(const std::string& root = kOnnxNodeTestDir);

// The values a data set gives: the initializers, then each input_K.pb bound to the graph input
// the file names, or else to the K-th graph input that is not an initializer. ONNX 1.12 stores
// bfloat16 data as uint16 protos; those are read as the declared bfloat16.
absl::StatusOr<std::map<const Value*, Tensor>> ReadBackendInputs(
    const Model& model, const std::filesystem::path& data_set);

// The recorded value of graph output `k` of a data set (bfloat16 fixed as above).
absl::StatusOr<Tensor> ReadBackendOutput(const Model& model, const std::filesystem::path& data_set,
                                         size_t k);

// Runs the graph's nodes in order on `values`, adding each node's outputs to it.
absl::Status RunGraphNodes(const Model& model, std::map<const Value*, Tensor>& values);

// Runs every data set of the test in `dir` (its model already imported) and compares every graph
// output (rtol 1e-3, atol 1e-7; bfloat16 within one ulp, since the reference truncates where
// Anvil rounds to nearest even). "" on a pass, else the first difference.
std::string CheckBackendTest(const std::filesystem::path& dir, const Model& model);

// Per-op pass counts of one family's backend tests.
class BackendTally {
 public:
  // Records test `name` of op `op`: passed when `failure` is empty.
  void Add(const std::string& op, const std::string& name, const std::string& failure);
  int passed() const { return passed_; }
  int total() const { return total_; }
  // "test: failure" lines.
  const std::vector<std::string>& failures() const { return failures_; }
  // Prints the per-op counts and "ONNX backend node tests of the <family> family: P/T passed".
  void Print(std::string_view family) const;

 private:
  std::map<std::string, std::pair<int, int>> per_op_;  // passed, total
  std::vector<std::string> failures_;
  int passed_ = 0;
  int total_ = 0;
};

}  // namespace anvil::kernel_testing

#endif  // ANVIL_EXEC_TESTING_BACKEND_TEST_UTIL_H_
