#include "python/model_source.h"

#include <climits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "constprop/gc.h"
#include "graph/instrumentation.h"
#include "graph/model_io.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "graph/pass_manager.h"
#include "graph/verifier.h"
#include "onnx/onnx_pb.h"

namespace anvil::python {

absl::StatusOr<std::unique_ptr<Model>> LoadSource(const ModelSource& source,
                                                  std::vector<std::string>* warnings) {
  if (!source.path.empty()) return LoadModel(source.path, warnings);
  ImportOptions options;
  options.warnings = warnings;
  return ImportModelBytes(source.bytes, options);
}

absl::Status OverrideInputShapes(
    Model& model, const std::vector<std::pair<std::string, std::vector<DimSpec>>>& shapes) {
  for (const auto& [name, dims] : shapes) {
    Value* input = model.graph().FindValue(name);
    if (input == nullptr || !input->IsGraphInput() || input->IsInitializer()) {
      std::vector<std::string> names;
      for (const Value* v : model.graph().inputs()) {
        if (!v->IsInitializer()) names.push_back(v->name());
      }
      return absl::InvalidArgumentError(
          absl::StrCat("input_shapes: the model has no input '", Excerpt(name),
                       "' (its inputs: ", Excerpt(absl::StrJoin(names, ", ")), ")"));
    }
    if (!input->type().is_tensor()) {
      return absl::InvalidArgumentError(absl::StrCat("input_shapes: input '", Excerpt(name),
                                                     "' is ", input->type().ToString(),
                                                     ", not a tensor"));
    }
    std::vector<Dim> shape;
    for (const DimSpec& d : dims) {
      if (d.value && *d.value < 0) {
        return absl::InvalidArgumentError(absl::StrCat("input_shapes: input '", Excerpt(name),
                                                       "' has a negative dim ", *d.value));
      }
      shape.push_back(d.value ? Dim::Literal(*d.value)
                              : (d.param.empty() ? Dim::Unknown() : Dim::Param(d.param)));
    }
    input->mutable_type()->set_shape(std::move(shape));
  }
  return absl::OkStatus();
}

absl::Status RunPipeline(Model& model, const std::string& pipeline,
                         std::vector<std::string>* warnings) {
  if (absl::Status valid = VerifyModel(model, warnings); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid model: ", valid.message()));
  }
  ANVIL_ASSIGN_OR_RETURN(PassManager manager, PassManager::Parse(pipeline));
  VerifierInstrumentation* verifier =
      manager.AddInstrumentation(std::make_unique<VerifierInstrumentation>());
  manager.AddInstrumentation(std::make_unique<DisposableGarbageCollector>());
  absl::Status status = manager.Run(model);
  warnings->insert(warnings->end(), verifier->warnings().begin(), verifier->warnings().end());
  return status;
}

absl::StatusOr<std::string> SerializeModel(const Model& model) {
  onnx::ModelProto proto;
  ANVIL_RETURN_IF_ERROR(ExportModelProto(model, &proto));
  const size_t size = proto.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return absl::OutOfRangeError(
        absl::StrCat("the model is ", size,
                     " bytes, over protobuf's 2 GB limit for one message: give a path "
                     "to write it to (external data goes next to it)"));
  }
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) {
    return absl::InternalError("cannot serialize the model as a ModelProto");
  }
  return bytes;
}

}  // namespace anvil::python
