#include "graph/onnx_export.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status_macros.h"
#include "graph/proto_stream.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

// Elements hold little-endian bytes, which raw_data and external data take
// verbatim; a big-endian host would need byte swapping here.
static_assert(std::endian::native == std::endian::little);

// A file-system error; errno may be unset when a stream failed without a system
// call failing.
absl::Status IoError(int error_number, std::string message) {
  if (error_number == 0) return absl::UnknownError(std::move(message));
  return absl::ErrnoToStatus(error_number, message);
}

// Protobuf refuses to serialize or parse messages larger than this.
constexpr uint64_t kProtobufLimit = INT_MAX;

// Tensor bytes go to the file in pieces of this size (a lazy constant is computed piecewise).
constexpr size_t kChunkBytes = 4 << 20;
// Inline tensors from this size are written straight from their elements (ExportModelFile).
constexpr size_t kStreamThreshold = 64 << 10;

// Appends tensor bytes to the external-data file, which is created (truncated)
// on first use.
class ExternalDataWriter {
 public:
  explicit ExternalDataWriter(std::string path)
      : path_(std::move(path)), location_(std::filesystem::path(path_).filename().string()) {}
  ~ExternalDataWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  ExternalDataWriter(const ExternalDataWriter&) = delete;
  ExternalDataWriter& operator=(const ExternalDataWriter&) = delete;

  // The file name the model refers to.
  const std::string& location() const { return location_; }

  // Writes the tensor's ByteSize() bytes and returns their offset in the file.
  absl::StatusOr<uint64_t> Append(const Elements& elements) {
    if (file_ == nullptr) {
      file_ = std::fopen(path_.c_str(), "wb");
      if (file_ == nullptr) {
        return IoError(errno, absl::StrCat("cannot open '", path_, "' for writing"));
      }
    }
    const size_t size = elements.ByteSize();
    // Offsets aligned to a cache line keep vector loads aligned for a reader
    // that maps the file; large tensors start on a page boundary so that they
    // can be mapped on their own.
    const uint64_t alignment = size >= (1u << 20) ? 4096 : 64;
    const uint64_t padding = (alignment - offset_ % alignment) % alignment;
    static constexpr char kZeros[4096] = {};
    if (padding > 0 && std::fwrite(kZeros, 1, padding, file_) != padding) {
      return WriteError();
    }
    offset_ += padding;

    // Straight from the elements, piece by piece.
    ANVIL_RETURN_IF_ERROR(elements.ForEachChunk(kChunkBytes, [&](absl::Span<const uint8_t> piece) {
      return std::fwrite(piece.data(), 1, piece.size(), file_) == piece.size() ? absl::OkStatus()
                                                                               : WriteError();
    }));
    elements.DropResidentPages();
    const uint64_t offset = offset_;
    offset_ += size;
    return offset;
  }

  // Flushes and closes; a full disk shows up here at the latest.
  absl::Status Close() {
    if (file_ == nullptr) return absl::OkStatus();
    std::FILE* file = file_;
    file_ = nullptr;
    if (std::fclose(file) != 0) return WriteError();
    return absl::OkStatus();
  }

 private:
  absl::Status WriteError() const {
    return IoError(errno, absl::StrCat("cannot write '", path_, "'"));
  }

  std::string path_;
  std::string location_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
};

absl::Status CorruptOpaque(absl::string_view what) {
  return absl::InternalError(absl::StrCat("cannot parse the stored ", what, " (corrupt IR)"));
}

void ExportShape(const std::vector<Dim>& dims, onnx::TensorShapeProto* shape) {
  for (const Dim& dim : dims) {
    onnx::TensorShapeProto::Dimension* d = shape->add_dim();
    if (dim.is_literal()) {
      d->set_dim_value(*dim.value);
    } else if (dim.is_param()) {
      d->set_dim_param(dim.param);
    }
    if (!dim.denotation.empty()) d->set_denotation(dim.denotation);
  }
}

absl::Status ExportType(const Type& type, onnx::TypeProto* proto) {
  switch (type.kind()) {
    case Type::Kind::kNone:  // no kind; a denotation alone may remain
      break;
    case Type::Kind::kTensor: {
      onnx::TypeProto::Tensor* tensor = proto->mutable_tensor_type();
      tensor->set_elem_type(static_cast<int32_t>(type.element_type()));
      // An empty shape is a scalar's; no shape means an unknown rank.
      if (type.has_shape()) ExportShape(type.shape(), tensor->mutable_shape());
      break;
    }
    case Type::Kind::kSparseTensor: {
      onnx::TypeProto::SparseTensor* sparse = proto->mutable_sparse_tensor_type();
      sparse->set_elem_type(static_cast<int32_t>(type.element_type()));
      if (type.has_shape()) ExportShape(type.shape(), sparse->mutable_shape());
      break;
    }
    case Type::Kind::kSequence: {
      onnx::TypeProto::Sequence* sequence = proto->mutable_sequence_type();
      if (type.elem().has_value()) {
        ANVIL_RETURN_IF_ERROR(ExportType(type.elem(), sequence->mutable_elem_type()));
      }
      break;
    }
    case Type::Kind::kOptional: {
      onnx::TypeProto::Optional* optional = proto->mutable_optional_type();
      if (type.elem().has_value()) {
        ANVIL_RETURN_IF_ERROR(ExportType(type.elem(), optional->mutable_elem_type()));
      }
      break;
    }
    case Type::Kind::kOther:
      if (!proto->ParseFromString(type.serialized_proto())) {
        return CorruptOpaque("TypeProto");
      }
      break;
  }
  if (!type.denotation().empty()) proto->set_denotation(type.denotation());
  return absl::OkStatus();
}

absl::Status ExportValueInfo(const Value& v, onnx::ValueInfoProto* proto) {
  proto->set_name(v.name());
  if (!v.doc_string().empty()) proto->set_doc_string(v.doc_string());
  if (!v.type().has_value() && v.type().denotation().empty()) return absl::OkStatus();
  return ExportType(v.type(), proto->mutable_type());
}

template <typename Proto>
absl::Status ParseOpaque(const std::string& bytes, Proto* proto) {
  if (proto->ParseFromString(bytes)) return absl::OkStatus();
  return CorruptOpaque(proto->GetTypeName());
}

class Exporter {
 public:
  // With `holes`, large inline tensors are left to be written by it (ExportModelFile).
  explicit Exporter(const ExportOptions& options, HoleyMessageWriter* holes = nullptr)
      : options_(options), holes_(holes) {
    if (!options.external_data_path.empty()) {
      writer_.emplace(options.external_data_path);
    }
  }

  absl::Status ExportGraph(const Graph& graph, onnx::GraphProto* proto);
  absl::Status ExportNode(const Node& node, onnx::NodeProto* proto);
  // The root message being filled (holes mark it).
  void OpenRoot(const google::protobuf::Message* root) { open_.push_back(root); }
  absl::Status Finish() { return writer_ ? writer_->Close() : absl::OkStatus(); }
  absl::Status ExportTensor(const Elements& elements, const std::string& name,
                            const std::string& doc_string, onnx::TensorProto* proto);

 private:
  absl::Status ExportAttribute(const Attribute& attr, onnx::AttributeProto* proto);
  absl::Status AddLazyNodes(const Graph& graph, onnx::GraphProto* proto);
  void AddLazyValueInfo(const Graph& graph, onnx::GraphProto* proto);

  // Keeps `message` on the stack of messages being filled while alive (holes mark them all).
  class Open {
   public:
    Open(Exporter& e, const google::protobuf::Message* m) : e_(e) { e_.open_.push_back(m); }
    ~Open() { e_.open_.pop_back(); }

   private:
    Exporter& e_;
  };

  const ExportOptions& options_;
  HoleyMessageWriter* holes_;
  std::vector<const google::protobuf::Message*> open_;
  std::optional<ExternalDataWriter> writer_;
};

absl::Status Exporter::ExportTensor(const Elements& elements, const std::string& name,
                                    const std::string& doc_string, onnx::TensorProto* proto) {
  for (int64_t d : elements.dims()) proto->add_dims(d);
  proto->set_data_type(static_cast<int32_t>(elements.element_type()));
  if (!name.empty()) proto->set_name(name);
  if (!doc_string.empty()) proto->set_doc_string(doc_string);
  if (elements.element_type() == ElementType::kString) {
    for (const std::string& s : elements.strings()) proto->add_string_data(s);
    return absl::OkStatus();
  }
  const size_t size = elements.ByteSize();
  if (writer_ && size > 0 && size >= options_.external_threshold_bytes) {
    auto offset = writer_->Append(elements);
    if (!offset.ok()) return offset.status();
    proto->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [proto](std::string key, std::string value) {
      onnx::StringStringEntryProto* entry = proto->add_external_data();
      entry->set_key(std::move(key));
      entry->set_value(std::move(value));
    };
    add("location", writer_->location());
    add("offset", absl::StrCat(*offset));
    add("length", absl::StrCat(size));
    return absl::OkStatus();
  }
  std::string* raw = proto->mutable_raw_data();
  if (holes_ != nullptr && size >= kStreamThreshold) {
    const Elements* source = &elements;  // the model outlives the export
    for (const google::protobuf::Message* ancestor : open_) holes_->MarkContainsHoles(ancestor);
    holes_->AddHole(
        proto, proto->GetDescriptor()->FindFieldByNumber(onnx::TensorProto::kRawDataFieldNumber),
        size, [source](const HoleyMessageWriter::Emit& emit) {
          absl::Status status = source->ForEachChunk(kChunkBytes, emit);
          source->DropResidentPages();
          return status;
        });
    return absl::OkStatus();
  }
  raw->resize(size);
  if (size == 0) return absl::OkStatus();
  auto* dst = reinterpret_cast<uint8_t*>(raw->data());
  if (const uint8_t* data = elements.ContiguousData()) {
    std::copy(data, data + size, dst);
  } else {
    elements.CopyTo(dst);
  }
  return absl::OkStatus();
}

absl::Status Exporter::ExportAttribute(const Attribute& attr, onnx::AttributeProto* proto) {
  proto->set_name(attr.name());
  if (!attr.ref_attr_name.empty()) proto->set_ref_attr_name(attr.ref_attr_name);
  if (!attr.doc_string.empty()) proto->set_doc_string(attr.doc_string);
  if (attr.type() != AttributeType::kUndefined) {
    proto->set_type(static_cast<onnx::AttributeProto::AttributeType>(attr.type()));
  }
  // A reference to a function's attribute carries no value.
  if (!attr.ref_attr_name.empty()) return absl::OkStatus();

  auto expect_one = [&](size_t n) -> absl::Status {
    if (n == 1) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("attribute '", attr.name(), "' holds ", n, " values, expected 1"));
  };
  switch (attr.type()) {
    case AttributeType::kUndefined:
      break;
    case AttributeType::kFloat:
      proto->set_f(attr.f);
      break;
    case AttributeType::kInt:
      proto->set_i(attr.i);
      break;
    case AttributeType::kString:
      proto->set_s(attr.s);
      break;
    case AttributeType::kFloats:
      proto->mutable_floats()->Add(attr.floats.begin(), attr.floats.end());
      break;
    case AttributeType::kInts:
      proto->mutable_ints()->Add(attr.ints.begin(), attr.ints.end());
      break;
    case AttributeType::kStrings:
      for (const std::string& s : attr.strings) proto->add_strings(s);
      break;
    case AttributeType::kTensor:
      ANVIL_RETURN_IF_ERROR(expect_one(attr.tensors.size()));
      return ExportTensor(*attr.tensors[0].elements, attr.tensors[0].name,
                          attr.tensors[0].doc_string, proto->mutable_t());
    case AttributeType::kTensors:
      for (const TensorAttr& t : attr.tensors) {
        ANVIL_RETURN_IF_ERROR(
            ExportTensor(*t.elements, t.name, t.doc_string, proto->add_tensors()));
      }
      break;
    case AttributeType::kGraph:
      ANVIL_RETURN_IF_ERROR(expect_one(attr.graphs.size()));
      return ExportGraph(*attr.graphs[0], proto->mutable_g());
    case AttributeType::kGraphs:
      for (const auto& g : attr.graphs) {
        ANVIL_RETURN_IF_ERROR(ExportGraph(*g, proto->add_graphs()));
      }
      break;
    case AttributeType::kSparseTensor:
      ANVIL_RETURN_IF_ERROR(expect_one(attr.serialized_protos.size()));
      return ParseOpaque(attr.serialized_protos[0], proto->mutable_sparse_tensor());
    case AttributeType::kSparseTensors:
      for (const std::string& bytes : attr.serialized_protos) {
        ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_sparse_tensors()));
      }
      break;
    case AttributeType::kTypeProto:
      ANVIL_RETURN_IF_ERROR(expect_one(attr.serialized_protos.size()));
      return ParseOpaque(attr.serialized_protos[0], proto->mutable_tp());
    case AttributeType::kTypeProtos:
      for (const std::string& bytes : attr.serialized_protos) {
        ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_type_protos()));
      }
      break;
  }
  return absl::OkStatus();
}

absl::Status Exporter::ExportNode(const Node& node, onnx::NodeProto* node_proto) {
  for (const Value* v : node.inputs()) {
    node_proto->add_input(v != nullptr ? v->name() : "");
  }
  for (const Value* v : node.outputs()) {
    node_proto->add_output(v != nullptr ? v->name() : "");
  }
  if (!node.name().empty()) node_proto->set_name(node.name());
  node_proto->set_op_type(node.op_type());
  if (!node.domain().empty()) node_proto->set_domain(node.domain());
  if (!node.doc_string().empty()) node_proto->set_doc_string(node.doc_string());
  Open open_node(*this, node_proto);
  for (const Attribute& attr : node.attributes()) {
    onnx::AttributeProto* attr_proto = node_proto->add_attribute();
    Open open_attr(*this, attr_proto);
    if (absl::Status s = ExportAttribute(attr, attr_proto); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(node.Describe(), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

// Nodes with tensor or graph attributes (which may hold holes or write external data) are
// exported now and kept; the others are made again each time the writer needs them.
absl::Status Exporter::AddLazyNodes(const Graph& graph, onnx::GraphProto* proto) {
  auto nodes = std::make_shared<std::vector<const Node*>>();
  auto kept = std::make_shared<std::vector<std::unique_ptr<onnx::NodeProto>>>();
  for (const Node* node : graph.nodes()) {
    nodes->push_back(node);
    bool heavy = false;
    for (const Attribute& attr : node->attributes()) {
      heavy = heavy || !attr.tensors.empty() || !attr.graphs.empty();
    }
    kept->emplace_back();
    if (heavy) {
      kept->back() = std::make_unique<onnx::NodeProto>();
      ANVIL_RETURN_IF_ERROR(ExportNode(*node, kept->back().get()));
    }
  }
  const ExportOptions options = options_;
  holes_->AddLazyRepeated(
      proto, proto->GetDescriptor()->FindFieldByNumber(onnx::GraphProto::kNodeFieldNumber),
      static_cast<int64_t>(nodes->size()),
      [nodes, kept, options](int64_t i, std::unique_ptr<google::protobuf::Message>& storage)
          -> absl::StatusOr<const google::protobuf::Message*> {
        if ((*kept)[i] != nullptr) return (*kept)[i].get();
        auto node_proto = std::make_unique<onnx::NodeProto>();
        Exporter light(options);  // no tensors: nothing for holes or external data
        ANVIL_RETURN_IF_ERROR(light.ExportNode(*(*nodes)[i], node_proto.get()));
        storage = std::move(node_proto);
        return storage.get();
      });
  for (const google::protobuf::Message* ancestor : open_) holes_->MarkContainsHoles(ancestor);
  return absl::OkStatus();
}

void Exporter::AddLazyValueInfo(const Graph& graph, onnx::GraphProto* proto) {
  const std::vector<Value*> values = graph.value_info();
  const std::vector<std::string>& orphans = graph.opaque().orphan_value_infos;
  const Graph* g = &graph;
  holes_->AddLazyRepeated(
      proto, proto->GetDescriptor()->FindFieldByNumber(onnx::GraphProto::kValueInfoFieldNumber),
      static_cast<int64_t>(values.size() + orphans.size()),
      [g, values](int64_t i, std::unique_ptr<google::protobuf::Message>& storage)
          -> absl::StatusOr<const google::protobuf::Message*> {
        auto info = std::make_unique<onnx::ValueInfoProto>();
        if (i < static_cast<int64_t>(values.size())) {
          ANVIL_RETURN_IF_ERROR(ExportValueInfo(*values[i], info.get()));
        } else {
          ANVIL_RETURN_IF_ERROR(
              ParseOpaque(g->opaque().orphan_value_infos[i - values.size()], info.get()));
        }
        storage = std::move(info);
        return storage.get();
      });
  for (const google::protobuf::Message* ancestor : open_) holes_->MarkContainsHoles(ancestor);
}

absl::Status Exporter::ExportGraph(const Graph& graph, onnx::GraphProto* proto) {
  Open open_graph(*this, proto);
  // The model's own graph, written by ExportModelFile: its long lists are made while written.
  const bool lazy_lists = holes_ != nullptr && graph.parent() == nullptr;
  if (!graph.name().empty()) proto->set_name(graph.name());
  if (!graph.doc_string().empty()) proto->set_doc_string(graph.doc_string());
  for (const Value* v : graph.inputs()) {
    ANVIL_RETURN_IF_ERROR(ExportValueInfo(*v, proto->add_input()));
  }
  for (const Value* v : graph.initializers()) {
    ANVIL_RETURN_IF_ERROR(ExportTensor(*v->constant(), v->name(), v->initializer_doc_string(),
                                       proto->add_initializer()));
  }
  for (const std::string& bytes : graph.opaque().sparse_initializers) {
    ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_sparse_initializer()));
  }
  if (lazy_lists) {
    ANVIL_RETURN_IF_ERROR(AddLazyNodes(graph, proto));
  } else {
    for (const Node* node : graph.nodes()) {
      ANVIL_RETURN_IF_ERROR(ExportNode(*node, proto->add_node()));
    }
  }
  for (const Value* v : graph.outputs()) {
    if (v == nullptr) {
      return absl::InternalError("graph has an empty output slot");
    }
    ANVIL_RETURN_IF_ERROR(ExportValueInfo(*v, proto->add_output()));
  }
  if (lazy_lists) {
    AddLazyValueInfo(graph, proto);
  } else {
    for (const Value* v : graph.value_info()) {
      ANVIL_RETURN_IF_ERROR(ExportValueInfo(*v, proto->add_value_info()));
    }
    for (const std::string& bytes : graph.opaque().orphan_value_infos) {
      ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_value_info()));
    }
  }
  for (const std::string& bytes : graph.opaque().quantization_annotations) {
    ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_quantization_annotation()));
  }
  return absl::OkStatus();
}

// Bytes the tensors of `graph` and its subgraphs take inline: what decides
// whether a model fits in one protobuf.
uint64_t TensorBytes(const Graph& graph) {
  auto bytes_of = [](const Elements& e) -> uint64_t {
    if (e.element_type() != ElementType::kString) return e.ByteSize();
    uint64_t n = 0;
    for (const std::string& s : e.strings()) n += s.size();
    return n;
  };
  uint64_t total = 0;
  for (const Value* v : graph.initializers()) total += bytes_of(*v->constant());
  for (const Node* node : graph.nodes()) {
    for (const Attribute& attr : node->attributes()) {
      for (const TensorAttr& t : attr.tensors) total += bytes_of(*t.elements);
      for (const auto& g : attr.graphs) total += TensorBytes(*g);
    }
  }
  return total;
}

// Lexically normalized absolute directory of `path` (which need not exist yet).
std::filesystem::path DirectoryOf(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ignored;
  return std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ignored), ignored);
}

}  // namespace

absl::Status ExportTypeProto(const Type& type, onnx::TypeProto* proto) {
  proto->Clear();
  return ExportType(type, proto);
}

namespace {

absl::Status ExportModelProtoTo(const Model& model, onnx::ModelProto* proto,
                                const ExportOptions& options, HoleyMessageWriter* holes) {
  proto->Clear();
  proto->set_ir_version(model.ir_version);
  for (const OpsetImport& opset : model.opset_imports) {
    onnx::OperatorSetIdProto* p = proto->add_opset_import();
    p->set_domain(opset.domain);
    p->set_version(opset.version);
  }
  if (!model.producer_name.empty()) {
    proto->set_producer_name(model.producer_name);
  }
  if (!model.producer_version.empty()) {
    proto->set_producer_version(model.producer_version);
  }
  if (!model.domain.empty()) proto->set_domain(model.domain);
  if (model.model_version != 0) proto->set_model_version(model.model_version);
  if (!model.doc_string.empty()) proto->set_doc_string(model.doc_string);
  for (const auto& [key, value] : model.metadata_props) {
    onnx::StringStringEntryProto* p = proto->add_metadata_props();
    p->set_key(key);
    p->set_value(value);
  }
  for (const std::string& bytes : model.opaque.training_info) {
    ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_training_info()));
  }
  for (const std::string& bytes : model.opaque.functions) {
    ANVIL_RETURN_IF_ERROR(ParseOpaque(bytes, proto->add_functions()));
  }
  Exporter exporter(options, holes);
  exporter.OpenRoot(proto);
  ANVIL_RETURN_IF_ERROR(exporter.ExportGraph(model.graph(), proto->mutable_graph()));
  return exporter.Finish();
}

}  // namespace

absl::Status ExportModelProto(const Model& model, onnx::ModelProto* proto,
                              const ExportOptions& options) {
  return ExportModelProtoTo(model, proto, options, /*holes=*/nullptr);
}

absl::Status ExportTensorProto(const Elements& elements, const std::string& name,
                               onnx::TensorProto* proto) {
  proto->Clear();
  const ExportOptions inline_everything;
  Exporter exporter(inline_everything);
  return exporter.ExportTensor(elements, name, /*doc_string=*/"", proto);
}

absl::Status ExportModelFile(const Model& model, const std::string& path,
                             const ExportOptions& options) {
  ExportOptions effective = options;
  if (!options.external_data_path.empty()) {
    if (DirectoryOf(options.external_data_path) != DirectoryOf(path)) {
      return absl::InvalidArgumentError(
          absl::StrCat("external data file '", options.external_data_path,
                       "' must be in the directory of the model '", path,
                       "': the model refers to it by file name"));
    }
    if (std::filesystem::path(options.external_data_path).filename() ==
        std::filesystem::path(path).filename()) {
      return absl::InvalidArgumentError(
          absl::StrCat("external data file and model are both '", path, "'"));
    }
  } else if (TensorBytes(model.graph()) >= kProtobufLimit) {
    // Cannot fit: go external at once rather than build an unwritable proto.
    effective.external_data_path = path + ".data";
  }

  // Large inline tensors are holes the writer fills from the elements while writing, so neither
  // the tensors nor the serialized model are ever copied into memory.
  onnx::ModelProto proto;
  auto holes = std::make_unique<HoleyMessageWriter>();
  ANVIL_RETURN_IF_ERROR(ExportModelProtoTo(model, &proto, effective, holes.get()));
  const uint64_t first_size = holes->ByteSize(proto);
  ANVIL_RETURN_IF_ERROR(holes->status());
  if (first_size > kProtobufLimit && effective.external_data_path.empty()) {
    // The tensors alone fit, but not with everything else: go external.
    effective.external_data_path = path + ".data";
    holes = std::make_unique<HoleyMessageWriter>();
    ANVIL_RETURN_IF_ERROR(ExportModelProtoTo(model, &proto, effective, holes.get()));
  }
  if (const uint64_t size = holes->ByteSize(proto); size > kProtobufLimit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "'", path, "' would be ", size, " bytes, over protobuf's 2 GB limit even with ",
        "tensors of ", effective.external_threshold_bytes, " bytes or more stored externally"));
  }

  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return IoError(errno, absl::StrCat("cannot open '", path, "' for writing"));
  }
  if (absl::Status written = holes->Write(proto, out); !written.ok() || !out) {
    if (!written.ok() && written.code() != absl::StatusCode::kDataLoss) return written;
    return IoError(errno, absl::StrCat("cannot write '", path, "'"));
  }
  out.close();
  if (!out) return IoError(errno, absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace anvil
