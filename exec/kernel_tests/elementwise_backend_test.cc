// The ONNX backend test suite's node tests for the element-wise family: every single-node test
// of a family op, and the _expanded (function body) variants of those tests, run node by node
// with RunNode and compared with the recorded outputs (rtol 1e-3, atol 1e-7; integers and bools
// exactly).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"
#include "exec/node_executor.h"
#include "exec/testing/backend_test_util.h"
#include "exec/testing/kernel_test_util.h"
#include "gmock/gmock.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "gtest/gtest.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

constexpr const char* kNodeTestDir = kernel_testing::kOnnxNodeTestDir;

// The family's ops (kernels/ops/elementwise.cc), separated by spaces.
constexpr char kFamilyOps[] =
    "Abs Acos Acosh Add And Asin Asinh Atan Atanh BitShift Cast CastLike Ceil Celu Clip Cos "
    "Cosh DequantizeLinear Div DynamicQuantizeLinear Elu Equal Erf Exp Floor Greater "
    "GreaterOrEqual HardSigmoid HardSwish Identity IsInf IsNaN LeakyRelu Less LessOrEqual "
    "Log Max Mean Min Mod Mul Neg Not Or PRelu Pow QuantizeLinear Reciprocal Relu Round Selu "
    "Shrink Sigmoid Sign Sin Sinh Softplus Softsign Sqrt Sub Sum Tan Tanh ThresholdedRelu "
    "Where Xor";

bool IsFamilyOp(const std::string& op) {
  static const auto* ops = new std::set<std::string>(absl::StrSplit(kFamilyOps, ' '));
  return ops->count(op) > 0;
}

// "" when the test is in scope, else why it is skipped.
std::string SkipReason(const Model& model) {
  const Graph& graph = model.graph();
  for (const auto* values : {&graph.inputs(), &graph.outputs()}) {
    for (const Value* v : *values) {
      if (v->type().has_value() && !v->type().is_tensor()) return "non-tensor type";
      if (v->type().element_type() == ElementType::kString) return "string tensor";
    }
  }
  for (const Node* node : graph.nodes()) {
    if (!HasKernel(node->domain(), node->op_type(), model.OpsetVersion(""))) {
      return absl::StrCat("no kernel for ", node->op_type());
    }
  }
  return "";
}

TEST(ElementwiseBackendTest, NodeTests) {
  ASSERT_TRUE(std::filesystem::exists(kNodeTestDir))
      << "no ONNX backend test data (libonnx-testdata)";
  int passed = 0, multi_node_passed = 0;
  std::vector<std::string> failures, skipped;
  std::set<std::string> single_node_tests;  // family tests seen so far (sorted: before _expanded)
  for (const std::filesystem::path& dir : kernel_testing::BackendTestDirs()) {
    // A test of the family: one node of a family op, or an _expanded body of such a test.
    const std::string name = dir.filename().string();
    absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile((dir / "model.onnx").string());
    if (!model.ok()) continue;
    const Graph& graph = (*model)->graph();
    const bool expanded = absl::EndsWith(name, "_expanded");
    if (graph.num_nodes() == 0) continue;
    if (!expanded) {
      if (graph.num_nodes() != 1 || !IsFamilyOp((*graph.nodes().begin())->op_type())) {
        continue;
      }
    } else if (!single_node_tests.count(name.substr(0, name.size() - strlen("_expanded")))) {
      continue;
    }
    if (!expanded) single_node_tests.insert(name);
    if (const std::string skip = SkipReason(**model); !skip.empty()) {
      skipped.push_back(absl::StrCat(name, " (", skip, ")"));
      continue;
    }
    const std::string failure = kernel_testing::CheckBackendTest(dir, **model);
    if (failure.empty()) {
      ++(graph.num_nodes() == 1 ? passed : multi_node_passed);
    } else {
      failures.push_back(absl::StrCat(name, ": ", failure));
    }
  }
  std::cout << "Backend node tests of the element-wise family: " << passed
            << " single-node passed, " << multi_node_passed << " multi-node (_expanded) passed, "
            << failures.size() << " failed, " << skipped.size() << " skipped\n";
  for (const std::string& s : skipped) std::cout << "  skipped " << s << "\n";
  for (const std::string& f : failures) std::cout << "  FAILED " << f << "\n";
  EXPECT_THAT(failures, ::testing::IsEmpty());
  // 248 single-node tests use the family's ops; 8 are out of scope (string tensors, sequence and
  // optional types).
  EXPECT_GE(passed, 240);
}

}  // namespace
}  // namespace anvil
