#include "tools/conformance/fold_mode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/instrumentation.h"
#include "graph/onnx_import.h"
#include "graph/op_table.h"
#include "graph/pass_manager.h"
#include "kernels/tensor_file.h"
#include "tools/conformance/run_mode.h"

namespace anvil::conformance {

absl::StatusOr<FoldModeOptions> ParseFoldFlags(const std::vector<std::string>& flags) {
  FoldModeOptions options;
  for (const std::string& flag : flags) {
    if (flag.rfind("--rtol=", 0) == 0) {
      if (!absl::SimpleAtod(flag.substr(7), &options.rtol) || options.rtol < 0) {
        return absl::InvalidArgumentError("--rtol needs a non-negative number: --rtol=1e-3");
      }
    } else if (flag.rfind("--atol=", 0) == 0) {
      if (!absl::SimpleAtod(flag.substr(7), &options.atol) || options.atol < 0) {
        return absl::InvalidArgumentError("--atol needs a non-negative number: --atol=1e-7");
      }
    } else if (flag.rfind("--pipeline=", 0) == 0 && flag.size() > 11) {
      options.pipeline = flag.substr(11);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", flag, "' for mode fold (--rtol=X, --atol=X, --pipeline=P)"));
    }
  }
  return options;
}

// Whether any node (subgraphs included) draws random numbers: the op table's rule (random ops,
// and Dropout in training mode).
bool UsesRandomOp(const onnx::ModelProto& proto) {
  absl::StatusOr<std::unique_ptr<Model>> model = ImportModelProto(proto);
  if (!model.ok()) return false;  // the run reports the import error
  bool random = false;
  (*model)->graph().ForEachGraph([&](Graph& g) {
    for (const Node* n : g.nodes()) random = random || IsRandom(*n);
  });
  return random;
}

std::map<std::string, std::string> FoldExclusions(const std::vector<TestCase>& tests) {
  std::map<std::string, std::string> excluded;
  for (const TestCase& test : tests) {
    onnx::ModelProto proto;
    if (!ReadProtoFile(test.model_path(), &proto).ok()) continue;  // reported by the run itself
    if (UsesRandomOp(proto)) {
      excluded[test.id()] =
          "random op (or Dropout in training mode): outputs are not deterministic, and random "
          "ops never fold";
    }
  }
  return excluded;
}

TestResult RunFoldTest(const TestCase& test, const onnx::ModelProto& proto,
                       const FoldModeOptions& options) {
  if (UsesRandomOp(proto)) {
    return {Verdict::kError, "random op: outputs are not deterministic (excluded)"};
  }
  absl::StatusOr<std::unique_ptr<Model>> model = ImportTestModel(test, proto);
  if (!model.ok()) return ErrorResult("import", model.status());
  Graph& graph = (*model)->graph();

  // Tensors become initializers, sequences and optionals nodes making them from initializers.
  absl::StatusOr<std::vector<BoundInput>> bound = ReadTestInputs(test, graph);
  if (!bound.ok()) return ErrorResult("test data", bound.status());
  for (const BoundInput& b : *bound) {
    if (!b.value.is_tensor()) {
      if (absl::Status s = ReplaceInputWithConstantNodes(graph, b.input, b.value); !s.ok()) {
        return {Verdict::kUnknown, std::string(s.message())};
      }
      continue;
    }
    ReplaceInputWithInitializer(
        graph, b.input,
        AsBfloat16IfStoredAsUint16(b.value, b.input->type().element_type()).ToElements());
  }
  // Declared output types, for reading the recorded values (bfloat16 ones stored as uint16).
  std::vector<Type> declared_outputs;
  for (const Value* out : graph.outputs()) declared_outputs.push_back(out->type());
  // Inputs the test leaves at their default (old exporters list weights as inputs with
  // initializers) are constants too: every input is made one.
  for (Value* input : std::vector<Value*>(graph.inputs().begin(), graph.inputs().end())) {
    if (input->IsInitializer()) ReplaceInputWithInitializer(graph, input, input->constant());
  }
  // Outputs lose their declared shapes, as in the shapes mode: folding must not rely on them.
  for (Value* out : graph.outputs()) {
    if (out->type().is_tensor()) out->set_type(Type::Tensor(out->type().element_type()));
  }

  absl::StatusOr<PassManager> manager = PassManager::Parse(options.pipeline);
  if (!manager.ok()) return ErrorResult("pipeline", manager.status());
  // As anvil-opt does: a pass that leaves a model the verifier refuses fails the test.
  manager->AddInstrumentation(std::make_unique<VerifierInstrumentation>());
  if (absl::Status s = manager->Run(**model); !s.ok()) {
    return TestResult{Verdict::kError, std::string(s.message().data(), s.message().size()),
                      OpNamedIn(std::string_view(s.message().data(), s.message().size()), proto)};
  }

  TestResult result;
  std::vector<std::string> details;
  for (size_t k = 0; k < test.output_files.size() && k < graph.outputs().size(); ++k) {
    const Value* out = graph.outputs()[k];
    absl::StatusOr<NamedTensor> read = ReadValueFile(test.output_files[k], declared_outputs[k]);
    if (!read.ok()) return ErrorResult("test data", read.status());
    const absl::StatusOr<Tensor> expected =
        AsBfloat16IfStoredAsUint16(read->tensor, declared_outputs[k].element_type());
    if (!expected->is_tensor()) {
      // A sequence or empty optional cannot be an initializer: folded or not, it stays a node.
      result.verdict = Worse(result.verdict, Verdict::kUnknown);
      details.push_back(absl::StrCat(out->name(), ": a sequence or optional output"));
      continue;
    }
    if (!out->IsInitializer() || out->IsGraphInput()) {
      result.verdict = Worse(result.verdict, Verdict::kUnknown);
      const std::string op = out->producer() != nullptr ? out->producer()->op_type() : "input";
      if (result.ops.empty()) result.ops = {op};
      details.push_back(absl::StrCat(out->name(), ": not folded (", op, ")"));
      continue;
    }
    TestResult check = CompareTensors(out->name(), Tensor::FromElements(*out->constant()),
                                      *expected, options.rtol, options.atol);
    if (check.verdict != Verdict::kPass) {
      result.verdict = Worse(result.verdict, check.verdict);
      details.push_back(std::move(check.detail));
    }
  }
  result.detail = absl::StrJoin(details, "; ");
  return result;
}

}  // namespace anvil::conformance
