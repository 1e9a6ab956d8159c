// Conformance mode `shapes`; see shapes_mode.h.
#include "tools/conformance/shapes_mode.h"

#include <cctype>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "graph/instrumentation.h"
#include "graph/pass_manager.h"
#include "graph/type.h"
#include "kernels/tensor_file.h"
#include "shape/shapes_report.h"

namespace anvil::conformance {
namespace {

// The pipeline under test.
constexpr char kPipeline[] = "shape-inference";

// Drops every shape the model states for values that shape inference must compute: every node
// output in any graph, which covers the main graph's outputs, value_info entries and subgraph
// outputs. Element types stay: they are not what this mode measures. Graph inputs and
// initializers, of subgraphs too, are declarations and keep their types (a main-graph output that
// is an input passed through gets the test's shape with the inputs).
void StripComputedShapes(Model& model) {
  model.graph().ForEachGraph([](Graph& graph) {
    for (Node* node : graph.nodes()) {
      for (Value* out : node->outputs()) {
        if (out == nullptr) continue;
        if (out->type().has_shape()) out->mutable_type()->clear_shape();
        // A declared sequence or optional type is kept as declared (exporters write them
        // loosely): dropped here, so that inference has to say it.
        if (out->type().is_sequence() || out->type().is_optional()) out->set_type(Type());
      }
    }
  });
}

// The declared type of a sequence or optional input, from the test's value: each element dim
// the elements agree on a literal, the others unknown; an empty optional keeps its declaration.
Type TypeOfValue(const Tensor& value, const Type& declared) {
  if (value.kind() == ValueKind::kNoneOptional) return declared;
  auto tensor_type = [](const Tensor& t) {
    std::vector<Dim> dims;
    for (int64_t d : t.dims()) dims.push_back(Dim::Literal(d));
    return Type::Tensor(t.type(), std::move(dims));
  };
  Type inner;
  if (value.kind() == ValueKind::kSequence) {
    const std::vector<Tensor>& elements = value.elements();
    Type elem = Type::Tensor(value.type());
    if (!elements.empty()) {
      elem = tensor_type(elements[0]);
      for (const Tensor& e : elements) {
        if (static_cast<int64_t>(e.dims().size()) != elem.rank()) {
          elem = Type::Tensor(value.type());
          break;
        }
        for (size_t k = 0; k < e.dims().size(); ++k) {
          if ((*elem.mutable_shape())[k] != Dim::Literal(e.dims()[k])) {
            (*elem.mutable_shape())[k] = Dim::Unknown();
          }
        }
      }
    }
    inner = Type::Sequence(std::move(elem));
  } else {
    inner = tensor_type(value);
  }
  return declared.is_optional() ? Type::Optional(std::move(inner)) : inner;
}

// The ops of the main graph's nodes that lost information: every input determined (see
// IsDeterminedType), some output not. Those are where inference needs work (or, for NonZero and
// the like, where a `?` is the right answer); later nodes only inherit the loss.
std::vector<std::string> OpsLosingInformation(const Graph& graph, const SymbolValues& symbols) {
  std::set<std::string> ops;
  for (const Node* node : graph.nodes()) {
    bool inputs_determined = true;
    for (const Value* in : node->inputs()) {
      if (in != nullptr && !IsDeterminedType(in->type(), symbols)) inputs_determined = false;
    }
    if (!inputs_determined) continue;
    for (const Value* out : node->outputs()) {
      if (out != nullptr && !IsDeterminedType(out->type(), symbols)) {
        ops.insert(node->domain().empty() ? node->op_type()
                                          : absl::StrCat(node->domain(), ".", node->op_type()));
      }
    }
  }
  return std::vector<std::string>(ops.begin(), ops.end());
}

}  // namespace

absl::StatusOr<ShapesOptions> ParseShapesFlags(const std::vector<std::string>& flags) {
  ShapesOptions options;
  for (const std::string& flag : flags) {
    if (flag == "--dynamic") {
      options.dynamic = true;
    } else if (flag == "--int-inputs-const") {
      options.int_inputs_const = true;
    } else if (flag == "--no-bounds") {
      options.bounds = false;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", flag, "' for mode shapes"));
    }
  }
  return options;
}

std::string ShapesTitle(const ShapesOptions& options) {
  std::vector<std::string> parts = {options.dynamic ? "dynamic" : "static"};
  if (options.int_inputs_const) parts.push_back("int inputs constant");
  if (!options.bounds) parts.push_back("no bounds");
  return absl::StrCat("shapes (", absl::StrJoin(parts, ", "), ")");
}

std::string InputSymbolName(const std::string& input_name, int dim) {
  std::string name = input_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "in_" + name;
  return absl::StrCat(name, "_d", dim);
}

absl::StatusOr<SymbolValues> PrepareShapesModel(Model& model,
                                                const std::vector<onnx::TensorProto>& inputs,
                                                const ShapesOptions& options) {
  Graph& graph = model.graph();
  ANVIL_ASSIGN_OR_RETURN(std::vector<Value*> bound, BindTestInputs(graph, inputs));
  StripComputedShapes(model);

  SymbolValues symbols;
  std::set<std::string> taken;  // two inputs may sanitize to the same symbol stem
  for (size_t k = 0; k < inputs.size(); ++k) {
    Value* input = bound[k];
    const onnx::TensorProto& tensor = inputs[k];
    if (input->IsInitializer()) continue;  // bound by name to an old-style input+initializer
    ElementType type = input->type().element_type();
    if (!input->type().is_tensor() || type == ElementType::kUndefined) {
      type = static_cast<ElementType>(tensor.data_type());
    }
    const std::vector<int64_t> dims = TensorDims(tensor);
    std::vector<Dim> literal_dims;
    for (int64_t d : dims) literal_dims.push_back(Dim::Literal(d));

    if (options.int_inputs_const && IsIntegerType(type)) {
      absl::StatusOr<std::shared_ptr<const Elements>> values = IntegerTensorToElements(tensor);
      if (!values.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("input_", k, ".pb: ", values.status().message()));
      }
      if ((*values)->element_type() != type) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input_", k, ".pb holds ", AsAbsl(ElementTypeName((*values)->element_type())),
            " for input '", input->name(), "' of type ", AsAbsl(ElementTypeName(type))));
      }
      // As exporters write constants (see ReplaceInputWithInitializer).
      ReplaceInputWithInitializer(graph, input, *std::move(values));
      continue;
    }
    if (!options.dynamic) {
      input->set_type(Type::Tensor(type, std::move(literal_dims)));
      continue;
    }
    std::vector<Dim> symbolic_dims;
    for (size_t d = 0; d < dims.size(); ++d) {
      std::string symbol = InputSymbolName(input->name(), static_cast<int>(d));
      for (int n = 2; !taken.insert(symbol).second; ++n) {
        symbol = absl::StrCat(InputSymbolName(input->name(), static_cast<int>(d)), "_", n);
      }
      symbols[symbol] = dims[d];
      symbolic_dims.push_back(Dim::Param(symbol));
    }
    input->set_type(Type::Tensor(type, std::move(symbolic_dims)));
  }
  return symbols;
}

TestResult RunShapesTest(const TestCase& test, const onnx::ModelProto& proto,
                         const ShapesOptions& options) {
  absl::StatusOr<std::unique_ptr<Model>> model = ImportTestModel(test, proto);
  if (!model.ok()) return ErrorResult("import", model.status());
  // Sequence and optional inputs (their files are SequenceProto / OptionalProto, bound by
  // position) get their types from their values here; tensors go through PrepareShapesModel.
  std::vector<Value*> positional;
  for (Value* in : (*model)->graph().inputs()) {
    if (!in->IsInitializer()) positional.push_back(in);
  }
  std::vector<onnx::TensorProto> inputs;
  for (size_t k = 0; k < test.input_files.size(); ++k) {
    Value* input = k < positional.size() ? positional[k] : nullptr;
    if (input != nullptr && (input->type().is_sequence() || input->type().is_optional())) {
      absl::StatusOr<NamedTensor> value = ReadValueFile(test.input_files[k], input->type());
      if (!value.ok()) return ErrorResult("test data", value.status());
      input->set_type(TypeOfValue(value->tensor, input->type()));
      continue;
    }
    absl::StatusOr<onnx::TensorProto> t = ReadTensorFile(test.input_files[k]);
    if (!t.ok()) return ErrorResult("test data", t.status());
    if (inputs.size() != k && t->name().empty()) {
      return ErrorResult(
          "test data",
          absl::InvalidArgumentError("an unnamed tensor input follows a sequence or optional one"));
    }
    inputs.push_back(*std::move(t));
  }
  const Graph& graph = (*model)->graph();
  if (test.output_files.size() > graph.outputs().size()) {
    return {Verdict::kError, absl::StrCat("the test has ", test.output_files.size(),
                                          " outputs, the model ", graph.outputs().size())};
  }
  // The recorded outputs, read as their declared types say.
  std::vector<Tensor> outputs;
  for (size_t k = 0; k < test.output_files.size(); ++k) {
    absl::StatusOr<NamedTensor> value =
        ReadValueFile(test.output_files[k], graph.outputs()[k]->type());
    if (!value.ok()) return ErrorResult("test data", value.status());
    outputs.push_back(std::move(value->tensor));
  }

  absl::StatusOr<SymbolValues> symbols = PrepareShapesModel(**model, inputs, options);
  if (!symbols.ok()) return ErrorResult("test data", symbols.status());

  absl::StatusOr<PassManager> pm =
      PassManager::Parse(options.bounds ? kPipeline : "shape-inference{bounded-dims=false}");
  if (!pm.ok()) return ErrorResult("pipeline", pm.status());
  // As anvil-opt does: a pass that leaves a model the verifier refuses fails the test.
  pm->AddInstrumentation(std::make_unique<VerifierInstrumentation>());
  if (absl::Status s = pm->Run(**model); !s.ok()) {
    // Unimplemented (an op without a shape rule) is an error like any other, but said so
    // explicitly: it is the commonest and the easiest to act on.
    const std::string_view message(s.message().data(), s.message().size());
    return {Verdict::kError,
            absl::IsUnimplemented(s) ? absl::StrCat("unimplemented: ", s.message())
                                     : std::string(message),
            OpNamedIn(message, proto)};
  }

  TestResult result;
  // Every value's dims by kind: literal, bounded (a symbol or expression with a finite upper
  // bound), unbounded, unknown; values of unknown rank or type.
  if (absl::StatusOr<ShapesReport> report = ReportShapes(**model); report.ok()) {
    result.counters = {{"literal", report->literal},
                       {"bounded", report->bounded},
                       {"unbounded", report->unbounded},
                       {"unknown", report->unknown},
                       {"untyped", report->untyped}};
  }
  std::vector<std::string> details;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Value* out = graph.outputs()[k];
    const Tensor& expected = outputs[k];
    TestResult check;
    if (expected.kind() == ValueKind::kSequence) {
      std::vector<std::vector<int64_t>> elements;
      for (const Tensor& e : expected.elements())
        elements.emplace_back(e.dims().begin(), e.dims().end());
      check = CheckSequenceShape(out->name(), out->type(), elements, *symbols);
    } else if (expected.kind() == ValueKind::kNoneOptional) {
      check = out->type().is_optional()
                  ? TestResult{}
                  : TestResult{Verdict::kUnknown,
                               absl::StrCat("output '", out->name(), "': no optional type")};
    } else {
      const Type& type = out->type().is_optional() ? out->type().elem() : out->type();
      check = CheckShape(out->name(), type,
                         std::vector<int64_t>(expected.dims().begin(), expected.dims().end()),
                         *symbols);
    }
    result.verdict = Worse(result.verdict, check.verdict);
    if (!check.detail.empty()) details.push_back(std::move(check.detail));
  }
  if (result.verdict != Verdict::kPass) result.ops = OpsLosingInformation(graph, *symbols);
  if (result.verdict == Verdict::kPass) {
    // What passed, so that a report shows the symbolic answers too (`y float[x_d0,3]`).
    for (size_t k = 0; k < outputs.size(); ++k) {
      const Value* out = graph.outputs()[k];
      details.push_back(absl::StrCat(out->name(), " ", out->type().ToString()));
    }
  }
  result.detail = absl::StrJoin(details, "; ");
  return result;
}

}  // namespace anvil::conformance
