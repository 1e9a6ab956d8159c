#include "exec/testing/backend_test_util.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "kernels/tensor_file.h"

namespace anvil::kernel_testing {
namespace {

namespace fs = std::filesystem;

// ONNX 1.12's bfloat16 tests store the bits as uint16 protos: reinterpret as declared.
Tensor AsDeclaredType(const Tensor& t, const Value& v) {
  if (t.type() != ElementType::kUint16 || v.type().element_type() != ElementType::kBfloat16) {
    return t;
  }
  Tensor bf16(ElementType::kBfloat16, t.dims());
  std::memcpy(bf16.data(), t.data(), t.ByteSize());
  return bf16;
}

}  // namespace

std::vector<fs::path> BackendTestDirs(const std::string& root) {
  std::vector<fs::path> dirs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

absl::StatusOr<std::map<const Value*, Tensor>> ReadBackendInputs(const Model& model,
                                                                 const fs::path& data_set) {
  const Graph& graph = model.graph();
  std::map<const Value*, Tensor> values;
  for (const Value* v : graph.initializers()) values[v] = Tensor::FromElements(*v->constant());
  std::vector<const Value*> free_inputs;
  for (const Value* v : graph.inputs()) {
    if (!v->IsInitializer()) free_inputs.push_back(v);
  }
  for (size_t k = 0;; ++k) {
    const fs::path file = data_set / absl::StrCat("input_", k, ".pb");
    if (!fs::exists(file)) break;
    ANVIL_ASSIGN_OR_RETURN(NamedTensor t, ReadTensorFile(file.string()));
    const Value* target = t.name.empty() ? nullptr : graph.FindValue(t.name);
    if (target == nullptr && k < free_inputs.size()) target = free_inputs[k];
    if (target == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(file.string(), " matches no graph input"));
    }
    values[target] = AsDeclaredType(t.tensor, *target);
  }
  return values;
}

absl::StatusOr<Tensor> ReadBackendOutput(const Model& model, const fs::path& data_set, size_t k) {
  ANVIL_ASSIGN_OR_RETURN(Tensor t,
                         ReadTensor((data_set / absl::StrCat("output_", k, ".pb")).string()));
  return AsDeclaredType(t, *model.graph().outputs()[k]);
}

absl::Status RunGraphNodes(const Model& model, std::map<const Value*, Tensor>& values) {
  for (const Node* node : model.graph().nodes()) {
    const int64_t opset = model.OpsetVersion(node->domain());
    std::vector<Tensor> inputs;
    for (const Value* v : node->inputs()) {
      auto it = v == nullptr ? values.end() : values.find(v);
      if (v != nullptr && it == values.end()) {
        return absl::FailedPreconditionError(absl::StrCat("input ", v->name(), " has no data"));
      }
      inputs.push_back(v == nullptr ? Tensor() : it->second);
    }
    ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, RunNode(*node, opset, inputs));
    for (int j = 0; j < node->num_outputs(); ++j) {
      if (node->output(j) != nullptr) values[node->output(j)] = std::move(outputs[j]);
    }
  }
  return absl::OkStatus();
}

std::string CheckBackendTest(const fs::path& dir, const Model& model) {
  const Graph& graph = model.graph();
  for (const fs::path& data_set : BackendTestDirs(dir.string())) {
    absl::StatusOr<std::map<const Value*, Tensor>> values = ReadBackendInputs(model, data_set);
    if (!values.ok()) return values.status().ToString();
    if (absl::Status run = RunGraphNodes(model, *values); !run.ok()) return run.ToString();
    for (size_t k = 0; k < graph.outputs().size(); ++k) {
      absl::StatusOr<Tensor> want = ReadBackendOutput(model, data_set, k);
      if (!want.ok()) return want.status().ToString();
      const double rtol = want->type() == ElementType::kBfloat16 ? 1.0 / 128 : 1e-3;
      const std::string diff = CompareTensors((*values)[graph.outputs()[k]], *want, rtol);
      if (!diff.empty()) {
        return absl::StrCat(data_set.filename().string(), " output ", k, ": ", diff);
      }
    }
  }
  return "";
}

void BackendTally::Add(const std::string& op, const std::string& name, const std::string& failure) {
  auto& [passed, total] = per_op_[op];
  ++total;
  ++total_;
  if (failure.empty()) {
    ++passed;
    ++passed_;
  } else {
    failures_.push_back(absl::StrCat(name, ": ", failure));
  }
}

void BackendTally::Print(std::string_view family) const {
  for (const auto& [op, counts] : per_op_) {
    std::cout << "  " << op << ": " << counts.first << "/" << counts.second << "\n";
  }
  std::cout << "ONNX backend node tests of the " << family << " family: " << passed_ << "/"
            << total_ << " passed\n";
}

}  // namespace anvil::kernel_testing
