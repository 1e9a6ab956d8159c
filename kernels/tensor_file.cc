#include "kernels/tensor_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "onnx/onnx_pb.h"

namespace anvil {

absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto,
                                       const std::string& base_dir) {
  absl::StatusOr<std::shared_ptr<const Elements>> elements = ImportTensorProto(proto, base_dir);
  if (!elements.ok()) return elements.status();
  return Tensor::FromElements(**elements);
}

absl::StatusOr<onnx::TensorProto> TensorToProto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  ANVIL_RETURN_IF_ERROR(ExportTensorProto(*tensor.ToElements(), name, &proto));
  return proto;
}

absl::StatusOr<NamedTensor> ReadTensorFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromIstream(&in)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse '", path, "' as an ONNX TensorProto"));
  }
  const std::string dir =
      path.find('/') == std::string::npos ? std::string() : path.substr(0, path.rfind('/'));
  absl::StatusOr<Tensor> tensor = TensorFromProto(proto, dir);
  if (!tensor.ok()) {
    return absl::Status(tensor.status().code(),
                        absl::StrCat("'", path, "': ", tensor.status().message()));
  }
  return NamedTensor{proto.name(), *std::move(tensor)};
}

absl::StatusOr<Tensor> ReadTensor(const std::string& path) {
  absl::StatusOr<NamedTensor> named = ReadTensorFile(path);
  if (!named.ok()) return named.status();
  return std::move(named->tensor);
}

absl::Status WriteTensorFile(const Tensor& tensor, const std::string& name,
                             const std::string& path) {
  absl::StatusOr<onnx::TensorProto> proto = TensorToProto(tensor, name);
  if (!proto.ok()) return proto.status();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  if (!proto->SerializeToOstream(&out) || !out.flush()) {
    return absl::DataLossError(absl::StrCat("writing '", path, "' failed"));
  }
  return absl::OkStatus();
}

}  // namespace anvil
