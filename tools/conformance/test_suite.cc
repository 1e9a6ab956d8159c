// Discovery, scope and test-data reading for the conformance runner; see test_suite.h.
#include "tools/conformance/test_suite.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/tensor_file.h"
#include "graph/element_type.h"
#include "graph/onnx_import.h"

namespace anvil::conformance {
namespace {

namespace fs = std::filesystem;

bool IsDirectory(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);  // follows symlinks, as the data folder is one
}

bool IsFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// data_set/<prefix>_K.pb for K = 0, 1, ... up to the first missing one.
std::vector<std::string> NumberedFiles(const fs::path& data_set, std::string_view prefix) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    fs::path file = data_set / absl::StrCat(std::string(prefix), "_", k, ".pb");
    if (!IsFile(file)) break;
    files.push_back(file.string());
  }
  return files;
}

// ---- The scope rule (OutOfScopeReason) ----

// A reason when `type` is not a tensor, sparse tensor, or sequence or optional of those.
std::optional<std::string> TypeReason(const onnx::TypeProto& type, const std::string& name) {
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
    case onnx::TypeProto::kSparseTensorType:
    case onnx::TypeProto::VALUE_NOT_SET:  // a value_info without a type says nothing
      return std::nullopt;
    case onnx::TypeProto::kSequenceType:
      return TypeReason(type.sequence_type().elem_type(), name);
    case onnx::TypeProto::kOptionalType:
      return TypeReason(type.optional_type().elem_type(), name);
    case onnx::TypeProto::kMapType:
      return absl::StrCat("map type of '", name, "'");
    default:
      return absl::StrCat("non-tensor type of '", name, "'");
  }
}

// Gradient (symbolic differentiation of a subgraph) and any other op of ai.onnx.preview.training
// than the optimizer updates Anvil runs (Adagrad, Adam, Momentum).
bool IsTrainingOp(const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  if (op == "Gradient") return true;
  return node.domain() == "ai.onnx.preview.training" && op != "Adagrad" && op != "Adam" &&
         op != "Momentum";
}

std::optional<std::string> GraphReason(const onnx::GraphProto& graph);

std::optional<std::string> NodeReason(const onnx::NodeProto& node) {
  if (IsTrainingOp(node)) return absl::StrCat("training op ", node.op_type());
  for (const onnx::AttributeProto& attr : node.attribute()) {
    if (attr.has_g()) {
      if (auto r = GraphReason(attr.g())) return r;
    }
    for (const onnx::GraphProto& g : attr.graphs()) {
      if (auto r = GraphReason(g)) return r;
    }
  }
  return std::nullopt;
}

std::optional<std::string> GraphReason(const onnx::GraphProto& graph) {
  for (const auto* list : {&graph.input(), &graph.output(), &graph.value_info()}) {
    for (const onnx::ValueInfoProto& info : *list) {
      if (auto r = TypeReason(info.type(), info.name())) return r;
    }
  }
  for (const onnx::NodeProto& node : graph.node()) {
    if (auto r = NodeReason(node)) return r;
  }
  return std::nullopt;
}

// Calls `fn` on every node of `graph` and its subgraphs.
void ForEachNode(const onnx::GraphProto& graph,
                 const std::function<void(const onnx::NodeProto&)>& fn) {
  for (const onnx::NodeProto& node : graph.node()) {
    fn(node);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) ForEachNode(attr.g(), fn);
      for (const onnx::GraphProto& g : attr.graphs()) ForEachNode(g, fn);
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<TestCase>> DiscoverTests(const std::string& root) {
  std::vector<TestCase> tests;
  for (const char* folder : kTestFolders) {
    fs::path folder_path = fs::path(root) / folder;
    if (!IsDirectory(folder_path)) {
      return absl::NotFoundError(absl::StrCat("no test folder '", folder_path.string(),
                                              "' (is libonnx-testdata installed?)"));
    }
    std::vector<TestCase> in_folder;
    std::error_code error;
    for (fs::directory_iterator it(folder_path, error), end; !error && it != end;
         it.increment(error)) {
      const fs::path& dir = it->path();
      fs::path data_set = dir / "test_data_set_0";
      if (!IsFile(dir / "model.onnx") || !IsDirectory(data_set)) continue;
      TestCase test;
      test.folder = folder;
      test.name = dir.filename().string();
      test.dir = dir.string();
      test.input_files = NumberedFiles(data_set, "input");
      test.output_files = NumberedFiles(data_set, "output");
      in_folder.push_back(std::move(test));
    }
    if (error) {
      return absl::InternalError(
          absl::StrCat("cannot list '", folder_path.string(), "': ", error.message()));
    }
    std::sort(in_folder.begin(), in_folder.end(),
              [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
    std::move(in_folder.begin(), in_folder.end(), std::back_inserter(tests));
  }
  return tests;
}

std::optional<std::string> OutOfScopeReason(const onnx::ModelProto& model) {
  if (auto r = GraphReason(model.graph())) return r;
  // Model-local functions are expanded at their call sites; their ops count too.
  for (const onnx::FunctionProto& function : model.functions()) {
    for (const onnx::NodeProto& node : function.node()) {
      if (auto r = NodeReason(node)) return r;
    }
  }
  return std::nullopt;
}

absl::Status ReadProtoFile(const std::string& path, google::protobuf::Message* message) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  if (!message->ParseFromIstream(&in)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse '", path, "' as ", message->GetTypeName()));
  }
  return absl::OkStatus();
}

absl::StatusOr<onnx::TensorProto> ReadTensorFile(const std::string& path) {
  onnx::TensorProto tensor;
  ANVIL_RETURN_IF_ERROR(ReadProtoFile(path, &tensor));
  return tensor;
}

std::vector<int64_t> TensorDims(const onnx::TensorProto& tensor) {
  return std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end());
}

absl::StatusOr<std::shared_ptr<const Elements>> IntegerTensorToElements(
    const onnx::TensorProto& tensor) {
  const auto type = static_cast<ElementType>(tensor.data_type());
  const std::string label = absl::StrCat("tensor '", tensor.name(), "'");
  if (!IsIntegerType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(label, " is not of an integer type"));
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    return absl::InvalidArgumentError(absl::StrCat(label, " has external data"));
  }
  std::vector<int64_t> dims = TensorDims(tensor);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  const size_t size = ElementSize(type);
  std::vector<uint8_t> bytes;
  if (tensor.has_raw_data()) {
    bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
  } else {
    // The typed fields hold wider integers; keep the low `size` bytes (little-endian).
    auto append = [&bytes, size](uint64_t v) {
      for (size_t b = 0; b < size; ++b) bytes.push_back(static_cast<uint8_t>(v >> (8 * b)));
    };
    if (type == ElementType::kInt64) {
      for (int64_t v : tensor.int64_data()) append(static_cast<uint64_t>(v));
    } else if (type == ElementType::kUint32 || type == ElementType::kUint64) {
      for (uint64_t v : tensor.uint64_data()) append(v);
    } else {
      for (int32_t v : tensor.int32_data()) append(static_cast<uint64_t>(v));
    }
  }
  if (bytes.size() != static_cast<size_t>(count) * size) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, " holds ", bytes.size(), " bytes; its dims need ", count * size));
  }
  return std::shared_ptr<const Elements>(
      DenseElements::FromBytes(type, std::move(dims), bytes.data(), bytes.size()));
}

absl::StatusOr<std::vector<Value*>> BindTestInputs(const Graph& graph,
                                                   const std::vector<onnx::TensorProto>& inputs) {
  std::vector<Value*> positional;
  for (Value* input : graph.inputs()) {
    if (!input->IsInitializer()) positional.push_back(input);
  }
  std::vector<Value*> bound;
  std::set<Value*> used;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Value* value = nullptr;
    if (!inputs[k].name().empty()) {
      Value* named = graph.FindValue(inputs[k].name());
      if (named != nullptr && named->IsGraphInput()) value = named;
    }
    if (value == nullptr && k < positional.size()) value = positional[k];
    if (value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_", k, ".pb ('", inputs[k].name(), "') matches no graph input"));
    }
    if (!used.insert(value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_", k, ".pb binds graph input '", value->name(), "' twice"));
    }
    bound.push_back(value);
  }
  return bound;
}

std::vector<std::string> ModelOpTypes(const onnx::ModelProto& model) {
  std::set<std::string> ops;
  auto add = [&ops](const onnx::NodeProto& node) {
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    ops.insert(default_domain ? node.op_type() : absl::StrCat(node.domain(), ".", node.op_type()));
  };
  ForEachNode(model.graph(), add);
  for (const onnx::FunctionProto& function : model.functions()) {
    for (const onnx::NodeProto& node : function.node()) add(node);
  }
  return std::vector<std::string>(ops.begin(), ops.end());
}

std::vector<std::string> OpNamedIn(std::string_view message, const onnx::ModelProto& model) {
  size_t best = std::string_view::npos;
  std::string op_named;
  for (const std::string& op : ModelOpTypes(model)) {
    // Node::Describe writes "(Op)" for named nodes and "(Op, output 'y')" for unnamed ones.
    for (const char* end : {")", ","}) {
      const size_t at = message.find(absl::StrCat("(", op, end));
      if (at < best) {
        best = at;
        op_named = op;
      }
    }
  }
  if (op_named.empty()) return {};
  return {op_named};
}

Value* ReplaceInputWithInitializer(Graph& graph, Value* input,
                                   std::shared_ptr<const Elements> values) {
  const std::string name = input->name();
  input->SetName(graph.UniqueName(absl::StrCat(name, "__replaced_input")));
  Value* constant = graph.AddInitializer(name, std::move(values));  // literal dims
  input->ReplaceAllUsesWith(constant);
  graph.EraseValue(input);
  return constant;
}

absl::StatusOr<std::unique_ptr<Model>> ImportTestModel(const TestCase& test,
                                                       const onnx::ModelProto& proto) {
  ImportOptions options;
  options.base_dir = test.dir;
  return ImportModelProto(proto, options);
}

absl::StatusOr<std::vector<BoundInput>> ReadTestInputs(const TestCase& test, const Graph& graph) {
  // Positionally first, then again by the input a file's name binds it to when that differs.
  std::vector<Value*> positional;
  for (Value* in : graph.inputs()) {
    if (!in->IsInitializer()) positional.push_back(in);
  }
  std::vector<NamedTensor> values;
  std::vector<onnx::TensorProto> names;  // only the names, for BindTestInputs
  for (size_t k = 0; k < test.input_files.size(); ++k) {
    const Type declared = k < positional.size() ? positional[k]->type() : Type();
    ANVIL_ASSIGN_OR_RETURN(NamedTensor t, ReadValueFile(test.input_files[k], declared));
    names.emplace_back().set_name(t.name);
    values.push_back(std::move(t));
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<Value*> bound, BindTestInputs(graph, names));
  std::vector<BoundInput> inputs;
  for (size_t k = 0; k < values.size(); ++k) {
    const Type declared = k < positional.size() ? positional[k]->type() : Type();
    if (!(bound[k]->type() == declared)) {
      ANVIL_ASSIGN_OR_RETURN(values[k], ReadValueFile(test.input_files[k], bound[k]->type()));
    }
    inputs.push_back({bound[k], std::move(values[k].tensor)});
  }
  return inputs;
}

absl::Status ReplaceInputWithConstantNodes(Graph& graph, Value* input, const Tensor& value) {
  if (value.kind() == ValueKind::kNoneOptional) {
    return absl::UnimplementedError(
        absl::StrCat("input '", input->name(), "' is an empty optional: not made a constant"));
  }
  const std::string name = input->name();
  input->SetName(graph.UniqueName(absl::StrCat(name, "__replaced_input")));
  // The value as a sequence or tensor, named `out`.
  auto make = [&](const Tensor& v, const std::string& out) -> Value* {
    if (v.is_tensor()) return graph.AddInitializer(out, v.ToElements());
    Node* node = graph.AddNode(v.elements().empty() ? "SequenceEmpty" : "SequenceConstruct");
    if (v.elements().empty()) {
      node->SetAttribute(Attribute::Int("dtype", static_cast<int64_t>(v.type())));
    }
    for (size_t k = 0; k < v.elements().size(); ++k) {
      node->AddInput(graph.AddInitializer(graph.UniqueName(absl::StrCat(out, "__", k)),
                                          v.elements()[k].ToElements()));
    }
    return node->AddOutput(out);
  };
  Value* made;
  if (input->type().is_optional()) {
    Node* optional = graph.AddNode("Optional");
    optional->AddInput(make(value, graph.UniqueName(absl::StrCat(name, "__value"))));
    made = optional->AddOutput(name);
  } else {
    made = make(value, name);
  }
  made->set_type(input->type());
  input->ReplaceAllUsesWith(made);
  graph.EraseValue(input);
  return absl::OkStatus();
}

}  // namespace anvil::conformance
