// Models for the Python package: loaded from serialized bytes or a path, rewritten by a pipeline
// as anvil-opt runs one, exported back to bytes or a file. Plain C++ (no Python types), so that
// the binding layer (module.cc) only converts.
#ifndef ANVIL_PYTHON_MODEL_SOURCE_H_
#define ANVIL_PYTHON_MODEL_SOURCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil::python {

// Where a model comes from: its serialized ModelProto, or a file (.onnx with external data next
// to it, or .onnxtxt). A path is the only way past protobuf's 2 GB.
struct ModelSource {
  std::string_view bytes;  // the caller keeps them alive until LoadSource returns
  std::string path;        // used when not empty
};

// Loads and imports the model (bytes: the serialized ModelProto, no external data); what the import
// tolerated is appended to `warnings`.
absl::StatusOr<std::unique_ptr<Model>> LoadSource(const ModelSource& source,
                                                  std::vector<std::string>* warnings);

// One dim of an input shape given from Python: a literal (>= 0), a named parameter, or unknown.
struct DimSpec {
  std::optional<int64_t> value;
  std::string param;  // when !value; empty: unknown
};

// Replaces the declared shapes of the named graph inputs (onnxsim's overwrite_input_shapes),
// keeping their element types. Errors name the input: one the graph does not have (listing those
// it has), one that is not a tensor, a negative dim.
absl::Status OverrideInputShapes(
    Model& model, const std::vector<std::pair<std::string, std::vector<DimSpec>>>& shapes);

// Runs `pipeline` (pass_manager.h syntax) as anvil-opt does: the model is verified first, again
// after every pass that changed it, and folded constants no pass holds any more are released
// between passes. Tolerated spec breaches are appended to `warnings`.
absl::Status RunPipeline(Model& model, const std::string& pipeline,
                         std::vector<std::string>* warnings);

// The model as a serialized ModelProto (every tensor inline): what onnx.load_from_string reads.
// A model over protobuf's 2 GB is an error that says to save to a path instead.
absl::StatusOr<std::string> SerializeModel(const Model& model);

}  // namespace anvil::python

#endif  // ANVIL_PYTHON_MODEL_SOURCE_H_
