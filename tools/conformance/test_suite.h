// The ONNX backend test suite as the conformance runner sees it: which tests exist, which are in
// scope (the rule of ../shared/docs/TESTING.md, as one function), and how a test's recorded
// inputs and outputs are read. Every mode of the runner (shapes, run, fold) shares this layer.
//
// A test is a folder `<root>/<folder>/<name>/` with `model.onnx` and `test_data_set_0/` holding
// `input_K.pb` / `output_K.pb` (binary onnx::TensorProto, in graph-input / graph-output order).
#ifndef ANVIL_TOOLS_CONFORMANCE_TEST_SUITE_H_
#define ANVIL_TOOLS_CONFORMANCE_TEST_SUITE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "kernels/tensor.h"
#include "onnx/onnx_pb.h"

namespace anvil::conformance {

// Where Debian's libonnx-testdata installs the suite.
inline constexpr char kDefaultDataRoot[] = "/usr/include/onnx/backend/test/data";

// The folders of the suite that hold tests, in report order (`real/` only points at downloads).
inline constexpr const char* kTestFolders[] = {"node", "pytorch-converted", "pytorch-operator",
                                               "simple"};

struct TestCase {
  std::string folder;  // "node"
  std::string name;    // "test_abs"
  std::string dir;     // absolute path of the test folder
  // test_data_set_0/input_K.pb and output_K.pb, K = 0, 1, ... (stops at the first gap).
  std::vector<std::string> input_files;
  std::vector<std::string> output_files;

  // "node/test_abs": how reports name the test.
  std::string id() const { return folder + "/" + name; }
  std::string model_path() const { return dir + "/model.onnx"; }
};

// Every test under `root`/{node,pytorch-converted,pytorch-operator,simple} with a model.onnx and
// a test_data_set_0, sorted by folder (in kTestFolders order) then name. A missing folder is an
// error: an empty suite must not look like a clean run.
absl::StatusOr<std::vector<TestCase>> DiscoverTests(const std::string& root = kDefaultDataRoot);

// The scope rule. A test is out of scope when its model, in any graph (subgraphs of If, Loop,
// Scan attributes included), uses
//  - a map or opaque type (alone or as a sequence or optional element) for a graph input, output
//    or value_info;
//  - Gradient, or an op of ai.onnx.preview.training other than Adagrad, Adam and Momentum.
// Returns nullopt when in scope, else the first reason found (e.g. "map type of 'x'",
// "training op Gradient"). `--whole-suite` runs every test anyway.
std::optional<std::string> OutOfScopeReason(const onnx::ModelProto& model);

// Reads a binary protobuf file (model.onnx, input_K.pb, ...) into `message`.
absl::Status ReadProtoFile(const std::string& path, google::protobuf::Message* message);

// Reads input_K.pb / output_K.pb.
absl::StatusOr<onnx::TensorProto> ReadTensorFile(const std::string& path);

// The dims of a TensorProto.
std::vector<int64_t> TensorDims(const onnx::TensorProto& tensor);

// The values of an integer TensorProto (raw_data, int32_data, int64_data or uint64_data) as
// dense elements of the same element type and dims. InvalidArgument for other element types,
// external data, or a payload of the wrong size. Written here rather than reusing the importer's
// decoder, which is internal to onnx_import.cc.
absl::StatusOr<std::shared_ptr<const Elements>> IntegerTensorToElements(
    const onnx::TensorProto& tensor);

// The test's model (`proto`, its model.onnx parsed) as IR, external data read from the test's
// folder.
absl::StatusOr<std::unique_ptr<Model>> ImportTestModel(const TestCase& test,
                                                       const onnx::ModelProto& proto);

// The test's inputs bound to the graph's inputs (as BindTestInputs binds them), each file read as
// the declared type of its input says (ReadValueFile: a TensorProto, SequenceProto or
// OptionalProto). One entry per input file.
struct BoundInput {
  Value* input;
  Tensor value;
};
absl::StatusOr<std::vector<BoundInput>> ReadTestInputs(const TestCase& test, const Graph& graph);

// Replaces the sequence or optional graph input `input` by nodes making `value` from
// initializers (SequenceConstruct, SequenceEmpty, Optional), under the input's name: how fold
// mode makes such an input a constant. Unimplemented for an empty optional (Optional's empty
// form needs a TypeProto attribute).
absl::Status ReplaceInputWithConstantNodes(Graph& graph, Value* input, const Tensor& value);

// Binds the test's inputs to the model's graph inputs. input_K.pb names its input when the
// tensor's name is set (node tests); unnamed tensors (pytorch-converted) go, in order, to the
// graph inputs that are not initializers. Returns one graph input per input file.
absl::StatusOr<std::vector<Value*>> BindTestInputs(const Graph& graph,
                                                   const std::vector<onnx::TensorProto>& inputs);

// The distinct op types used by the model (all graphs), sorted; non-default domains are written
// `domain.Op`. Reports attribute failing tests to these.
std::vector<std::string> ModelOpTypes(const onnx::ModelProto& model);

// The op an error message names: errors describe their node as `node 'n' (Op)` or
// `node #3 (Op, output 'y')` (Node::Describe), so the model op whose "(Op)" / "(Op," comes first
// in the message, as a one-element list; empty when none does. Modes blame failing tests on it.
std::vector<std::string> OpNamedIn(std::string_view message, const onnx::ModelProto& model);

// Replaces graph input `input` by a plain initializer of the same name holding `values`.
// (Graph::MakeInitializer would leave an input with a default value, which callers may override,
// so analyses rightly do not treat it as a constant.) Returns the new value.
Value* ReplaceInputWithInitializer(Graph& graph, Value* input,
                                   std::shared_ptr<const Elements> values);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_TEST_SUITE_H_
