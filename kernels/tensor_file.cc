#include "kernels/tensor_file.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "onnx/onnx-data_pb.h"

namespace anvil {

absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto,
                                       const std::string& base_dir) {
  ANVIL_ASSIGN_OR_RETURN(std::shared_ptr<const Elements> elements,
                         ImportTensorProto(proto, base_dir));
  return Tensor::FromElements(*elements);
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

namespace {

absl::StatusOr<Tensor> SequenceFromProto(const onnx::SequenceProto& proto, const Type& declared,
                                         const std::string& dir) {
  if (proto.elem_type() != onnx::SequenceProto::TENSOR && proto.tensor_values_size() > 0) {
    return absl::UnimplementedError("only sequences of tensors are supported");
  }
  if (proto.elem_type() != onnx::SequenceProto::TENSOR &&
      proto.elem_type() != onnx::SequenceProto::UNDEFINED) {
    return absl::UnimplementedError(
        absl::StrCat("sequences of element kind ", proto.elem_type(), " are not supported"));
  }
  std::vector<Tensor> tensors;
  for (const onnx::TensorProto& t : proto.tensor_values()) {
    ANVIL_ASSIGN_OR_RETURN(Tensor tensor, TensorFromProto(t, dir));
    tensors.push_back(std::move(tensor));
  }
  ElementType type = declared.elem().element_type();
  if (type == ElementType::kUndefined && !tensors.empty()) type = tensors[0].type();
  for (const Tensor& t : tensors) {
    if (t.type() != type) {
      return absl::InvalidArgumentError(absl::StrCat("sequence '", proto.name(), "' mixes ",
                                                     AsAbsl(ElementTypeName(t.type())), " with ",
                                                     AsAbsl(ElementTypeName(type))));
    }
  }
  return Tensor::Sequence(type, std::move(tensors));
}

absl::StatusOr<Tensor> ValueFromBytes(const std::string& bytes, const Type& declared,
                                      const std::string& dir, std::string* name) {
  if (declared.is_sequence()) {
    onnx::SequenceProto proto;
    if (!proto.ParseFromString(bytes)) return absl::InvalidArgumentError("not a SequenceProto");
    *name = proto.name();
    return SequenceFromProto(proto, declared, dir);
  }
  if (declared.is_optional()) {
    onnx::OptionalProto proto;
    if (!proto.ParseFromString(bytes)) return absl::InvalidArgumentError("not an OptionalProto");
    *name = proto.name();
    if (proto.has_tensor_value()) return TensorFromProto(proto.tensor_value(), dir);
    if (proto.has_sequence_value()) {
      return SequenceFromProto(proto.sequence_value(), declared.elem(), dir);
    }
    const Type& elem = declared.elem();
    return Tensor::NoneOptional(elem.is_sequence() ? elem.elem().element_type()
                                                   : elem.element_type());
  }
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) return absl::InvalidArgumentError("not a TensorProto");
  *name = proto.name();
  return TensorFromProto(proto, dir);
}

}  // namespace

absl::StatusOr<NamedTensor> ReadValueFile(const std::string& path, const Type& declared) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string dir =
      path.find('/') == std::string::npos ? std::string() : path.substr(0, path.rfind('/'));
  NamedTensor named;
  absl::StatusOr<Tensor> value = ValueFromBytes(bytes, declared, dir, &named.name);
  if (!value.ok()) {
    return absl::Status(value.status().code(), absl::StrCat("'", path, "' (", declared.ToString(),
                                                            "): ", value.status().message()));
  }
  named.tensor = *std::move(value);
  return named;
}

absl::StatusOr<Tensor> ReadTensor(const std::string& path) {
  ANVIL_ASSIGN_OR_RETURN(NamedTensor named, ReadTensorFile(path));
  return std::move(named.tensor);
}

namespace {

// Where a value file's tensors go: into the proto (raw_data) while together they stay within the
// inline budget, the rest appended to the side file `<path>.data` as ONNX external data (location
// relative to the .pb, offset, length).
class TensorSink {
 public:
  TensorSink(const std::string& path, int64_t max_inline_bytes)
      : data_path_(path + ".data"),
        location_(std::filesystem::path(data_path_).filename().string()),
        max_inline_bytes_(max_inline_bytes) {}

  absl::StatusOr<onnx::TensorProto> Proto(const Tensor& tensor, const std::string& name) {
    const int64_t bytes = static_cast<int64_t>(tensor.ByteSize());
    // Strings have no external form in ONNX: always inline (WriteMessage checks the total).
    if (tensor.type() == ElementType::kString || inline_bytes_ + bytes <= max_inline_bytes_) {
      inline_bytes_ += bytes;
      return TensorToProto(tensor, name);
    }
    if (!data_.is_open()) {
      data_.open(data_path_, std::ios::binary | std::ios::trunc);
      if (!data_) {
        return absl::PermissionDeniedError(
            absl::StrCat("cannot write '", data_path_, "': ", std::strerror(errno)));
      }
    }
    if (!data_.write(tensor.As<char>(), bytes)) {
      return absl::DataLossError(absl::StrCat("writing '", data_path_, "' failed"));
    }
    onnx::TensorProto proto;
    proto.set_name(name);
    proto.set_data_type(static_cast<int32_t>(tensor.type()));
    for (int64_t d : tensor.dims()) proto.add_dims(d);
    proto.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"location", location_},
                                     {"offset", absl::StrCat(offset_)},
                                     {"length", absl::StrCat(bytes)}}) {
      onnx::StringStringEntryProto* entry = proto.add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    }
    offset_ += bytes;
    return proto;
  }

  // Closes the side file; removes one an earlier run left when this value needed none.
  absl::Status Finish() {
    if (data_.is_open()) {
      data_.close();
      if (!data_) return absl::DataLossError(absl::StrCat("writing '", data_path_, "' failed"));
    } else {
      std::error_code ignored;
      std::filesystem::remove(data_path_, ignored);
    }
    return absl::OkStatus();
  }

 private:
  std::string data_path_;
  std::string location_;
  int64_t max_inline_bytes_;
  int64_t inline_bytes_ = 0;
  int64_t offset_ = 0;
  std::ofstream data_;
};

absl::Status WriteMessage(const google::protobuf::Message& message, const std::string& path) {
  // Protobuf refuses to serialize more (with a log line of its own): say so first, in one line.
  if (const size_t size = message.ByteSizeLong(); size > std::numeric_limits<int32_t>::max()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot write '", path, "': the value takes ", size,
        " bytes, over the 2 GB a protobuf file holds (string tensors cannot be external data)"));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  if (!message.SerializeToOstream(&out) || !out.flush()) {
    return absl::DataLossError(absl::StrCat("writing '", path, "' failed"));
  }
  return absl::OkStatus();
}

absl::StatusOr<onnx::SequenceProto> SequenceToProto(const Tensor& value, const std::string& name,
                                                    TensorSink& sink) {
  onnx::SequenceProto proto;
  proto.set_name(name);
  proto.set_elem_type(onnx::SequenceProto::TENSOR);
  for (const Tensor& t : value.elements()) {
    ANVIL_ASSIGN_OR_RETURN(*proto.add_tensor_values(), sink.Proto(t, ""));
  }
  return proto;
}

absl::Status WriteValue(const Tensor& value, const Type& declared, const std::string& name,
                        const std::string& path, TensorSink& sink) {
  if (declared.is_optional()) {
    onnx::OptionalProto proto;
    proto.set_name(name);
    if (value.kind() == ValueKind::kSequence) {
      proto.set_elem_type(onnx::OptionalProto::SEQUENCE);
      ANVIL_ASSIGN_OR_RETURN(*proto.mutable_sequence_value(), SequenceToProto(value, "", sink));
    } else if (value.kind() == ValueKind::kTensor) {
      proto.set_elem_type(onnx::OptionalProto::TENSOR);
      ANVIL_ASSIGN_OR_RETURN(*proto.mutable_tensor_value(), sink.Proto(value, ""));
    }
    return WriteMessage(proto, path);
  }
  if (value.kind() == ValueKind::kSequence) {
    ANVIL_ASSIGN_OR_RETURN(onnx::SequenceProto proto, SequenceToProto(value, name, sink));
    return WriteMessage(proto, path);
  }
  if (!value.is_tensor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' is an empty optional but declared ", declared.ToString()));
  }
  ANVIL_ASSIGN_OR_RETURN(onnx::TensorProto proto, sink.Proto(value, name));
  return WriteMessage(proto, path);
}

}  // namespace

absl::Status WriteValueFile(const Tensor& value, const Type& declared, const std::string& name,
                            const std::string& path, int64_t max_inline_bytes) {
  TensorSink sink(path, max_inline_bytes);
  ANVIL_RETURN_IF_ERROR(WriteValue(value, declared, name, path, sink));
  return sink.Finish();
}

absl::Status WriteTensorFile(const Tensor& tensor, const std::string& name,
                             const std::string& path) {
  return WriteValueFile(tensor, Type(), name, path);
}

}  // namespace anvil
