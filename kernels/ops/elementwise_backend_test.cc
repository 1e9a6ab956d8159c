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
#include "gmock/gmock.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "gtest/gtest.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "kernels/testing/kernel_test_util.h"
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

// A TensorProto decoded by the model importer (raw_data, typed fields, float16...): wrapped
// into a model as an initializer.
absl::StatusOr<Tensor> DecodeTensor(const onnx::TensorProto& proto) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::TensorProto* init = model.mutable_graph()->add_initializer();
  *init = proto;
  init->set_name("t");
  absl::StatusOr<std::unique_ptr<Model>> imported = ImportModelProto(model);
  if (!imported.ok()) return imported.status();
  const Value* v = (*imported)->graph().FindValue("t");
  if (v == nullptr || !v->IsInitializer()) return absl::InternalError("tensor did not import");
  return Tensor::FromElements(*v->constant());
}

absl::StatusOr<onnx::TensorProto> ReadTensorProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::TensorProto proto;
  if (!in || !proto.ParseFromIstream(&in)) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path));
  }
  return proto;
}

// ONNX 1.12's bfloat16 Cast tests store their bfloat16 data as uint16 TensorProtos (the bits,
// with the wrong data_type): reinterpret those as the type the model declares.
Tensor AsDeclaredType(const Tensor& t, const Value* v) {
  if (t.type() != ElementType::kUint16 || v->type().element_type() != ElementType::kBfloat16) {
    return t;
  }
  Tensor bf16(ElementType::kBfloat16, t.dims());
  std::memcpy(bf16.data(), t.data(), t.ByteSize());
  return bf16;
}

// Runs a test's model node by node (one node, or an _expanded function body) and compares.
// Returns "" on a pass, "skip: ..." when out of scope, else the failure.
std::string RunBackendTest(const std::filesystem::path& dir) {
  absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile((dir / "model.onnx").string());
  if (!model.ok()) return absl::StrCat("skip: import: ", model.status().ToString());
  const Graph& graph = (*model)->graph();
  const int64_t opset = (*model)->OpsetVersion("");
  for (const auto* values : {&graph.inputs(), &graph.outputs()}) {
    for (const Value* v : *values) {
      if (v->type().has_value() && !v->type().is_tensor()) return "skip: non-tensor type";
      if (v->type().element_type() == ElementType::kString) return "skip: string tensor";
    }
  }
  for (const Node* node : graph.nodes()) {
    if (!HasKernel(node->domain(), node->op_type(), opset)) {
      return absl::StrCat("skip: no kernel for ", node->op_type());
    }
  }
  std::map<const Value*, Tensor> values;
  for (const Value* v : graph.initializers()) values[v] = Tensor::FromElements(*v->constant());
  std::vector<const Value*> free_inputs;
  for (const Value* v : graph.inputs()) {
    if (!v->IsInitializer()) free_inputs.push_back(v);
  }
  const std::filesystem::path data = dir / "test_data_set_0";
  for (size_t k = 0;; ++k) {
    const std::filesystem::path file = data / absl::StrCat("input_", k, ".pb");
    if (!std::filesystem::exists(file)) break;
    absl::StatusOr<onnx::TensorProto> proto = ReadTensorProto(file.string());
    if (!proto.ok()) return proto.status().ToString();
    absl::StatusOr<Tensor> t = DecodeTensor(*proto);
    if (!t.ok()) return t.status().ToString();
    const Value* target = proto->name().empty() ? nullptr : graph.FindValue(proto->name());
    if (target == nullptr && k < free_inputs.size()) target = free_inputs[k];
    if (target == nullptr) return absl::StrCat("input ", k, " matches no graph input");
    values[target] = AsDeclaredType(*t, target);
  }
  for (const Node* node : graph.nodes()) {
    std::vector<Tensor> inputs;
    for (const Value* v : node->inputs()) {
      inputs.push_back(v == nullptr || !values.count(v) ? Tensor() : values[v]);
    }
    absl::StatusOr<std::vector<Tensor>> out = RunNode(*node, opset, inputs);
    if (!out.ok()) return absl::StrCat(node->op_type(), ": ", out.status().ToString());
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (node->output(i) != nullptr) values[node->output(i)] = (*out)[i];
    }
  }
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const std::filesystem::path file = data / absl::StrCat("output_", k, ".pb");
    absl::StatusOr<onnx::TensorProto> proto = ReadTensorProto(file.string());
    if (!proto.ok()) return proto.status().ToString();
    absl::StatusOr<Tensor> want = DecodeTensor(*proto);
    if (!want.ok()) return want.status().ToString();
    const Tensor expected = AsDeclaredType(*want, graph.outputs()[k]);
    // One bfloat16 ulp: the reference truncates where Anvil rounds to nearest even.
    const double rtol = expected.type() == ElementType::kBfloat16 ? 1.0 / 128 : 1e-3;
    const std::string diff =
        kernel_testing::CompareTensors(values[graph.outputs()[k]], expected, rtol);
    if (!diff.empty()) return absl::StrCat("output ", k, ": ", diff);
  }
  return "";
}

TEST(ElementwiseBackendTest, NodeTests) {
  ASSERT_TRUE(std::filesystem::exists(kNodeTestDir))
      << "no ONNX backend test data (libonnx-testdata)";
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(kNodeTestDir)) {
    dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  int passed = 0, multi_node_passed = 0;
  std::vector<std::string> failures, skipped;
  std::set<std::string> single_node_tests;  // family tests seen so far (sorted: before _expanded)
  for (const std::filesystem::path& dir : dirs) {
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
    const std::string result = RunBackendTest(dir);
    if (result.empty()) {
      ++(graph.num_nodes() == 1 ? passed : multi_node_passed);
    } else if (absl::StartsWith(result, "skip:")) {
      skipped.push_back(absl::StrCat(name, " (", result.substr(6), ")"));
    } else {
      failures.push_back(absl::StrCat(name, ": ", result));
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
