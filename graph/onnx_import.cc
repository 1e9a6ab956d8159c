#include "graph/onnx_import.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/limits.h"
#include "graph/mapped_buffer.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

// DenseElements bytes are little-endian, as are raw_data and external data, so
// both are copied verbatim; a big-endian host would need byte swapping here.
static_assert(std::endian::native == std::endian::little);

// Prefixes a status message with where it happened, keeping the code.
absl::Status Annotate(const absl::Status& status, absl::string_view context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

std::string TensorLabel(const onnx::TensorProto& t) {
  return t.name().empty() ? std::string("unnamed tensor")
                          : absl::StrCat("tensor ", Quoted(t.name()));
}

// Closes a file descriptor on scope exit.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() { close(fd_); }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  int fd_;
};

// --------------------------------------------------------------------------
// Tensors

// How much of a file path from a model a message quotes.
constexpr size_t kPathChars = 300;

// Reads the `expected` bytes of an external-data tensor from its file under
// `base_dir`.
absl::StatusOr<std::shared_ptr<const Buffer>> ReadExternalData(const onnx::TensorProto& t,
                                                               uint64_t expected,
                                                               const ImportOptions& options) {
  const std::string& base_dir = options.base_dir;
  const std::string label = TensorLabel(t);
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto& entry : t.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t number;
      if (!absl::SimpleAtoi(entry.value(), &number)) {
        return absl::InvalidArgumentError(absl::StrCat(label, ": external data ", entry.key(), " ",
                                                       Quoted(entry.value()),
                                                       " is not a non-negative integer"));
      }
      if (entry.key() == "offset") {
        offset = number;
      } else {
        length = number;
      }
    }
    // Other keys ("checksum", tool-specific ones) are not needed to read.
  }
  if (location.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": external data has no 'location'"));
  }
  // The C library would silently cut the path at the NUL and open another file.
  if (location.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": external data location ", Quoted(location, kPathChars), " contains a NUL byte"));
  }
  // A model must not make its reader open arbitrary files: locations stay
  // inside base_dir.
  const std::filesystem::path relative(location);
  bool escapes = relative.is_absolute() || relative.has_root_name();
  for (const auto& part : relative) escapes = escapes || part == "..";
  if (escapes) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": external data location ", Quoted(location, kPathChars),
                     " must be a relative path inside the model's directory"));
  }
  const std::string path =
      base_dir.empty() ? location : (std::filesystem::path(base_dir) / relative).string();

  // Non-blocking: opening a FIFO for reading would otherwise wait forever for a writer. Only
  // regular files are read (reads of regular files never block, with or without the flag).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat(label, ": cannot open external data file ", Quoted(path, kPathChars)));
  }
  FdCloser closer(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    return absl::ErrnoToStatus(errno,
                               absl::StrCat(label, ": cannot stat ", Quoted(path, kPathChars)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, ": external data location ", Quoted(path, kPathChars), " is not a regular file"));
  }
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  // Without a length the data runs to the end of the file.
  const uint64_t size = length.value_or(file_size > offset ? file_size - offset : 0);
  if (size != expected) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": external data length ", size,
                                                   " does not match the ", expected,
                                                   " bytes of its type and shape"));
  }
  if (offset > file_size || file_size - offset < size) {
    return absl::OutOfRangeError(
        absl::StrCat(label, ": external data file ", Quoted(path, kPathChars), " has ", file_size,
                     " bytes, too few for offset ", offset, " and length ", size));
  }
  if (options.map_external_data && size >= kMapThreshold) {
    return MapFileRange(fd, offset, size,
                        absl::StrCat(label, ": external data file ", Quoted(path, kPathChars)));
  }
  std::vector<uint8_t> bytes(size);
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = pread(fd, bytes.data() + done, size - done, offset + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::ErrnoToStatus(errno,
                                 absl::StrCat(label, ": cannot read ", Quoted(path, kPathChars)));
    }
    if (n == 0) {  // The file shrank under us.
      return absl::OutOfRangeError(
          absl::StrCat(label, ": unexpected end of external data file ", Quoted(path, kPathChars)));
    }
    done += static_cast<uint64_t>(n);
  }
  return std::make_shared<OwnedBuffer>(std::move(bytes));
}

// A Buffer owning a string taken over from a parsed proto (its raw_data), so that importing a
// file does not hold each inline tensor twice.
class StringBuffer final : public Buffer {
 public:
  explicit StringBuffer(std::string bytes) : bytes_(std::move(bytes)) {}
  const uint8_t* data() const override { return reinterpret_cast<const uint8_t*>(bytes_.data()); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::string bytes_;
};

// Writes each value of a typed repeated field as T (keeping the low bits: ONNX
// stores 8- and 16-bit integers and the bit patterns of float16/bfloat16
// widened in int32_data, and uint32 in uint64_data).
template <typename T, typename Field>
void StoreAs(const Field& field, uint8_t* dst) {
  for (int k = 0; k < field.size(); ++k) {
    const T v = static_cast<T>(field.Get(k));
    std::memcpy(dst + k * sizeof(T), &v, sizeof(T));
  }
}

absl::StatusOr<std::shared_ptr<const Elements>> ImportTensor(const onnx::TensorProto& t,
                                                             const ImportOptions& options) {
  const std::string label = TensorLabel(t);
  if (!IsValidElementType(t.data_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat(label, ": unsupported data type ", t.data_type()));
  }
  const auto type = static_cast<ElementType>(t.data_type());
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": negative dimension ", d));
    }
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / static_cast<uint64_t>(d)) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": too many elements"));
    }
    count *= static_cast<uint64_t>(d);
  }
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;

  if (type == ElementType::kString) {
    if (external) {
      return absl::UnimplementedError(
          absl::StrCat(label, ": external data for string tensors is not supported"));
    }
    if (static_cast<uint64_t>(t.string_data_size()) != count) {
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": has ", t.string_data_size(), " strings, expected ", count));
    }
    return std::make_shared<DenseElements>(
        std::move(dims), std::vector<std::string>(t.string_data().begin(), t.string_data().end()));
  }

  const uint64_t element_size = ElementSize(type);
  if (count > std::numeric_limits<int64_t>::max() / element_size) {
    return absl::InvalidArgumentError(absl::StrCat(label, ": too many elements"));
  }
  const uint64_t byte_size = count * element_size;
  std::vector<uint8_t> bytes;
  if (external) {
    ANVIL_ASSIGN_OR_RETURN(std::shared_ptr<const Buffer> buffer,
                           ReadExternalData(t, byte_size, options));
    return std::make_shared<DenseElements>(type, std::move(dims), std::move(buffer));
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != byte_size) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": raw_data has ", t.raw_data().size(),
                                                     " bytes, expected ", byte_size));
    }
    if (options.consume_raw_data) {
      // The caller owns the proto and gives its bytes away (ImportModelFile).
      std::string taken;
      const_cast<onnx::TensorProto&>(t).mutable_raw_data()->swap(taken);
      return std::make_shared<DenseElements>(type, std::move(dims),
                                             std::make_shared<StringBuffer>(std::move(taken)));
    }
    bytes.assign(t.raw_data().begin(), t.raw_data().end());
  } else {
    // Complex numbers take two values, (real, imaginary), in the typed field.
    const uint64_t per_element =
        type == ElementType::kComplex64 || type == ElementType::kComplex128 ? 2 : 1;
    // The typed field must hold every element before anything is allocated: dims alone (with no
    // data) may claim terabytes.
    uint64_t available = 0;
    const char* typed_field = "int32_data";
    switch (type) {
      case ElementType::kFloat:
      case ElementType::kComplex64:
        available = t.float_data_size();
        typed_field = "float_data";
        break;
      case ElementType::kDouble:
      case ElementType::kComplex128:
        available = t.double_data_size();
        typed_field = "double_data";
        break;
      case ElementType::kInt64:
        available = t.int64_data_size();
        typed_field = "int64_data";
        break;
      case ElementType::kUint32:
      case ElementType::kUint64:
        available = t.uint64_data_size();
        typed_field = "uint64_data";
        break;
      default:
        available = t.int32_data_size();
        break;
    }
    if (available / per_element < count) {
      return absl::InvalidArgumentError(absl::StrCat(label, ": has ", available, " values in ",
                                                     typed_field, ", expected ",
                                                     count * per_element));
    }
    bytes.resize(byte_size);
    auto check = [&](int size, const char* field) -> absl::Status {
      if (static_cast<uint64_t>(size) == count * per_element) {
        return absl::OkStatus();
      }
      return absl::InvalidArgumentError(absl::StrCat(label, ": has ", size, " values in ", field,
                                                     ", expected ", count * per_element));
    };
    absl::Status status;
    uint8_t* dst = bytes.data();
    switch (type) {
      case ElementType::kFloat:
      case ElementType::kComplex64:
        status = check(t.float_data_size(), "float_data");
        if (status.ok()) StoreAs<float>(t.float_data(), dst);
        break;
      case ElementType::kDouble:
      case ElementType::kComplex128:
        status = check(t.double_data_size(), "double_data");
        if (status.ok()) StoreAs<double>(t.double_data(), dst);
        break;
      case ElementType::kInt32:
        status = check(t.int32_data_size(), "int32_data");
        if (status.ok()) StoreAs<int32_t>(t.int32_data(), dst);
        break;
      case ElementType::kInt8:
      case ElementType::kUint8:
        status = check(t.int32_data_size(), "int32_data");
        if (status.ok()) StoreAs<uint8_t>(t.int32_data(), dst);
        break;
      case ElementType::kBool:
        status = check(t.int32_data_size(), "int32_data");
        // Any nonzero value is true; the dense form holds 0 or 1.
        for (int k = 0; status.ok() && k < t.int32_data_size(); ++k) {
          dst[k] = t.int32_data(k) != 0 ? 1 : 0;
        }
        break;
      case ElementType::kInt16:
      case ElementType::kUint16:
      case ElementType::kFloat16:
      case ElementType::kBfloat16:
        status = check(t.int32_data_size(), "int32_data");
        if (status.ok()) StoreAs<uint16_t>(t.int32_data(), dst);
        break;
      case ElementType::kInt64:
        status = check(t.int64_data_size(), "int64_data");
        if (status.ok()) StoreAs<int64_t>(t.int64_data(), dst);
        break;
      case ElementType::kUint32:
        status = check(t.uint64_data_size(), "uint64_data");
        if (status.ok()) StoreAs<uint32_t>(t.uint64_data(), dst);
        break;
      case ElementType::kUint64:
        status = check(t.uint64_data_size(), "uint64_data");
        if (status.ok()) StoreAs<uint64_t>(t.uint64_data(), dst);
        break;
      case ElementType::kUndefined:
      case ElementType::kString:
        break;  // Rejected or handled above.
    }
    if (!status.ok()) return status;
  }
  return std::make_shared<DenseElements>(type, std::move(dims),
                                         std::make_shared<OwnedBuffer>(std::move(bytes)));
}

// --------------------------------------------------------------------------
// Types

std::vector<Dim> ImportShape(const onnx::TensorShapeProto& shape) {
  std::vector<Dim> dims;
  dims.reserve(shape.dim_size());
  for (const onnx::TensorShapeProto::Dimension& d : shape.dim()) {
    Dim dim;
    if (d.value_case() == onnx::TensorShapeProto::Dimension::kDimValue) {
      dim.value = d.dim_value();
    } else if (d.value_case() == onnx::TensorShapeProto::Dimension::kDimParam) {
      dim.param = d.dim_param();
    }
    dim.denotation = d.denotation();
    dims.push_back(std::move(dim));
  }
  return dims;
}

// An element type Anvil models: a valid one, or none given (0).
bool IsModelledElementType(int32_t elem_type) {
  return elem_type == 0 || IsValidElementType(elem_type);
}

Type ImportType(const onnx::TypeProto& proto) {
  if (proto.has_tensor_type() && IsModelledElementType(proto.tensor_type().elem_type())) {
    const onnx::TypeProto::Tensor& tensor = proto.tensor_type();
    const auto element_type = static_cast<ElementType>(tensor.elem_type());
    Type type = tensor.has_shape() ? Type::Tensor(element_type, ImportShape(tensor.shape()))
                                   : Type::Tensor(element_type);
    type.set_denotation(proto.denotation());
    return type;
  }
  if (proto.has_sparse_tensor_type() &&
      IsModelledElementType(proto.sparse_tensor_type().elem_type())) {
    const onnx::TypeProto::SparseTensor& sparse = proto.sparse_tensor_type();
    std::optional<std::vector<Dim>> shape;
    if (sparse.has_shape()) shape = ImportShape(sparse.shape());
    Type type = Type::SparseTensor(static_cast<ElementType>(sparse.elem_type()), std::move(shape));
    type.set_denotation(proto.denotation());
    return type;
  }
  // Sequences and optionals of modelled types; an element of a kind kept as bytes keeps the
  // whole type as bytes (one lossless form).
  if (proto.has_sequence_type() || proto.has_optional_type()) {
    const bool sequence = proto.has_sequence_type();
    const bool has_elem =
        sequence ? proto.sequence_type().has_elem_type() : proto.optional_type().has_elem_type();
    const onnx::TypeProto& elem_proto =
        sequence ? proto.sequence_type().elem_type() : proto.optional_type().elem_type();
    Type elem = has_elem ? ImportType(elem_proto) : Type();
    if (elem.kind() != Type::Kind::kOther) {
      Type type = sequence ? Type::Sequence(std::move(elem)) : Type::Optional(std::move(elem));
      type.set_denotation(proto.denotation());
      return type;
    }
  }
  // Map, opaque, or an element type from a newer ONNX: kept as bytes. Type holds the
  // denotation itself, so it is left out of the bytes.
  onnx::TypeProto value = proto;
  value.clear_denotation();
  std::string bytes = value.SerializeAsString();
  if (bytes.empty()) {
    // A TypeProto with no kind at all (`type {}`, as exporters write on If branch outputs)
    // says as little as an absent one: untyped, so that inference may type the value.
    Type untyped;
    untyped.set_denotation(proto.denotation());
    return untyped;
  }
  return Type::Other(std::move(bytes), proto.denotation());
}

Type ImportValueInfoType(const onnx::ValueInfoProto& info) {
  return info.has_type() ? ImportType(info.type()) : Type();
}

// --------------------------------------------------------------------------
// Graphs

// The attribute type an old model (IR version 1, `type` unset) means: that of
// the field that is set.
AttributeType InferAttributeType(const onnx::AttributeProto& p) {
  if (p.has_f()) return AttributeType::kFloat;
  if (p.has_i()) return AttributeType::kInt;
  if (p.has_s()) return AttributeType::kString;
  if (p.has_t()) return AttributeType::kTensor;
  if (p.has_g()) return AttributeType::kGraph;
  if (p.has_sparse_tensor()) return AttributeType::kSparseTensor;
  if (p.has_tp()) return AttributeType::kTypeProto;
  if (p.floats_size() > 0) return AttributeType::kFloats;
  if (p.ints_size() > 0) return AttributeType::kInts;
  if (p.strings_size() > 0) return AttributeType::kStrings;
  if (p.tensors_size() > 0) return AttributeType::kTensors;
  if (p.graphs_size() > 0) return AttributeType::kGraphs;
  if (p.sparse_tensors_size() > 0) return AttributeType::kSparseTensors;
  if (p.type_protos_size() > 0) return AttributeType::kTypeProtos;
  return AttributeType::kUndefined;
}

// Messages one subgraph level adds (NodeProto, AttributeProto, GraphProto), times the levels
// allowed, plus room for the model, types and tensors inside the deepest graph.
constexpr int kProtoRecursionLimit = 3 * kMaxSubgraphDepth + 100;

// A NodeProto as Node::Describe() names a node.
std::string DescribeNodeProto(const onnx::NodeProto& node, int index) {
  const std::string op = node.domain().empty() ? Printable(node.op_type())
                                               : absl::StrCat(Printable(node.domain()), ".",
                                                              Printable(node.op_type()));
  if (!node.name().empty()) return absl::StrCat("node ", Quoted(node.name()), " (", op, ")");
  for (const std::string& output : node.output()) {
    if (!output.empty()) {
      return absl::StrCat("node #", index, " (", op, ", output ", Quoted(output), ")");
    }
  }
  return absl::StrCat("node #", index, " (", op, ")");
}

// Refuses subgraphs nested deeper than kMaxSubgraphDepth (graph/limits.h) before the import
// recurses into them; the check itself stops at the limit. `graph` is `depth` levels down.
absl::Status CheckNesting(const onnx::GraphProto& graph, int depth) {
  for (int k = 0; k < graph.node_size(); ++k) {
    const onnx::NodeProto& node = graph.node(k);
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) continue;
      if (depth + 1 > kMaxSubgraphDepth) {
        return absl::InvalidArgumentError(absl::StrCat("graph ", Quoted(graph.name()), ": ",
                                                       DescribeNodeProto(node, k), ": ",
                                                       SubgraphDepthMessage()));
      }
      if (a.has_g()) ANVIL_RETURN_IF_ERROR(CheckNesting(a.g(), depth + 1));
      for (const onnx::GraphProto& g : a.graphs()) {
        ANVIL_RETURN_IF_ERROR(CheckNesting(g, depth + 1));
      }
    }
  }
  return absl::OkStatus();
}

class Importer {
 public:
  Importer(Model* model, const ImportOptions& options) : model_(model), options_(options) {}

  absl::Status ImportGraph(const onnx::GraphProto& proto, Graph* graph);

  // Sorts the graphs whose nodes were not in topological order (one warning for the model); an
  // error when a cycle makes that impossible.
  absl::Status SortUnorderedGraphs();

 private:
  // `name` resolved in `graph`'s scope for a reader; notes the reader's graph order when the
  // value's producer has not been read yet (listed later, or the reader itself).
  Value* Resolve(Graph* graph, const std::string& name, const Node* reader);
  void SetPending(const Value* v, bool pending);

  absl::StatusOr<Attribute> ImportAttribute(const onnx::AttributeProto& proto, Node* node);
  absl::StatusOr<TensorAttr> ImportTensorAttr(const onnx::TensorProto& proto);
  absl::StatusOr<std::unique_ptr<Graph>> ImportSubgraph(const onnx::GraphProto& proto, Node* node);

  // Takes the type and doc string of a ValueInfoProto (a graph output or
  // value_info entry) for `v` when that loses nothing; returns false when `v`
  // already carries different ones.
  bool AdoptValueInfo(Value* v, const onnx::ValueInfoProto& info, bool is_output);

  Model* model_;
  const ImportOptions& options_;
  // Values whose type was declared by a ValueInfoProto (graph inputs, outputs,
  // value_info), as opposed to the type AddInitializer derives from the data.
  absl::flat_hash_set<const Value*> declared_;
  // By Value::id(): node outputs defined (pass 1) whose node's inputs are not read yet (pass 2).
  // A reader that finds one comes before its producer: that graph needs sorting.
  std::vector<bool> pending_;
  std::vector<Graph*> unordered_;  // graphs to sort, each once, in the order found
  absl::flat_hash_set<const Graph*> unordered_set_;
  std::string first_unordered_;  // what the warning shows
};

void Importer::SetPending(const Value* v, bool pending) {
  if (v->id() >= pending_.size()) {
    pending_.resize(std::max<size_t>(v->id() + 1, 2 * pending_.size()));
  }
  pending_[v->id()] = pending;
}

Value* Importer::Resolve(Graph* graph, const std::string& name, const Node* reader) {
  Value* v = graph->LookupInScope(name);
  if (v == nullptr || v->producer() == nullptr || v->id() >= pending_.size() ||
      !pending_[v->id()]) {
    return v;
  }
  if (unordered_set_.insert(v->graph()).second) {
    unordered_.push_back(v->graph());
    if (first_unordered_.empty()) {
      first_unordered_ = absl::StrCat(
          reader != nullptr ? reader->Describe() : std::string("a graph output"), " reads ",
          Quoted(name), " before ", v->producer()->Describe(), " defines it");
    }
  }
  return v;
}

absl::Status Importer::SortUnorderedGraphs() {
  if (unordered_.empty()) return absl::OkStatus();
  for (Graph* graph : unordered_) {
    std::string cycle_node;
    if (!graph->TopologicalSort(&cycle_node)) {
      return absl::InvalidArgumentError(
          absl::StrCat("graph ", Quoted(graph->name()), " has a cycle through ", cycle_node));
    }
  }
  if (options_.warnings != nullptr) {
    options_.warnings->push_back(
        absl::StrCat("graph ", Quoted(unordered_[0]->name()), " is not in topological order (",
                     first_unordered_, "): its nodes were sorted, as ONNX Runtime does",
                     unordered_.size() > 1
                         ? absl::StrCat(" (and those of ", unordered_.size() - 1, " more graphs)")
                         : std::string()));
  }
  return absl::OkStatus();
}

// Names must be unique within a graph: a second definition could not be found
// by name. (Shadowing a name of an enclosing graph is representable.)
absl::Status CheckNewName(const Graph& graph, const std::string& name, absl::string_view what) {
  if (graph.FindValue(name) == nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": value ", Quoted(name), " is defined twice",
                   graph.name().empty() ? "" : absl::StrCat(" in graph ", Quoted(graph.name()))));
}

bool Importer::AdoptValueInfo(Value* v, const onnx::ValueInfoProto& info, bool is_output) {
  Type type = ImportValueInfoType(info);
  if (declared_.contains(v)) {
    // Export writes one type and doc string per value: only the same ones fit.
    return type == v->type() && info.doc_string() == v->doc_string();
  }
  if (!v->doc_string().empty() && info.doc_string() != v->doc_string()) {
    return false;
  }
  // An initializer's derived type is better than none: a typeless value_info
  // entry stays verbatim instead. A graph output has no such place to go.
  if (!is_output && v->IsInitializer() && !info.has_type()) return false;
  v->set_type(std::move(type));
  v->set_doc_string(info.doc_string());
  declared_.insert(v);
  return true;
}

absl::Status Importer::ImportGraph(const onnx::GraphProto& proto, Graph* graph) {
  graph->set_name(proto.name());
  graph->set_doc_string(proto.doc_string());

  for (const onnx::ValueInfoProto& input : proto.input()) {
    ANVIL_RETURN_IF_ERROR(CheckNewName(*graph, input.name(), "graph input"));
    Value* v = graph->AddInput(input.name(), ImportValueInfoType(input));
    v->set_doc_string(input.doc_string());
    declared_.insert(v);
  }

  for (const onnx::TensorProto& init : proto.initializer()) {
    auto elements = ImportTensor(init, options_);
    if (!elements.ok()) return Annotate(elements.status(), "initializer");
    Value* v = graph->FindValue(init.name());
    if (v != nullptr && v->IsGraphInput() && !v->IsInitializer()) {
      // Old-style model: the initializer is the default value of a graph input.
      graph->MakeInitializer(v, *std::move(elements));
    } else {
      ANVIL_RETURN_IF_ERROR(CheckNewName(*graph, init.name(), "initializer"));
      v = graph->AddInitializer(init.name(), *std::move(elements));
    }
    v->set_initializer_doc_string(init.doc_string());
  }
  for (const onnx::SparseTensorProto& sparse : proto.sparse_initializer()) {
    graph->opaque().sparse_initializers.push_back(sparse.SerializeAsString());
  }

  // Pass 1 defines every node output, so that inputs (and subgraph captures)
  // may refer to nodes listed later: unsorted graphs import, and the verifier
  // reports their order.
  std::vector<Node*> nodes;
  nodes.reserve(proto.node_size());
  for (const onnx::NodeProto& node_proto : proto.node()) {
    Node* node = graph->AddNode(node_proto.op_type(), node_proto.domain());
    node->set_name(node_proto.name());
    node->set_doc_string(node_proto.doc_string());
    for (const std::string& output : node_proto.output()) {
      if (!output.empty() && graph->FindValue(output) != nullptr) {
        return CheckNewName(*graph, output, node->Describe());
      }
      Value* v = node->AddOutput(output);
      if (v != nullptr && !output.empty()) SetPending(v, true);
    }
    nodes.push_back(node);
  }
  // Pass 2: inputs and attributes (subgraphs now see all values of this graph).
  for (int k = 0; k < proto.node_size(); ++k) {
    const onnx::NodeProto& node_proto = proto.node(k);
    Node* node = nodes[k];
    for (const std::string& input : node_proto.input()) {
      if (input.empty()) {
        node->AddInput(nullptr);
        continue;
      }
      Value* v = Resolve(graph, input, node);
      if (v == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(node->Describe(), ": input ", Quoted(input), " is not defined"));
      }
      node->AddInput(v);
    }
    for (const onnx::AttributeProto& attr_proto : node_proto.attribute()) {
      auto attr = ImportAttribute(attr_proto, node);
      if (!attr.ok()) return attr.status();
      // Appended, not SetAttribute: order is kept as written.
      node->mutable_attributes()->push_back(*std::move(attr));
    }
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (node->output(i) != nullptr) SetPending(node->output(i), false);
    }
  }

  for (const onnx::ValueInfoProto& output : proto.output()) {
    // A subgraph may return a value of an enclosing graph directly.
    Value* v = Resolve(graph, output.name(), graph->owner_node());
    if (v == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "graph output ", Quoted(output.name()), " is not defined",
          graph->name().empty() ? "" : absl::StrCat(" in graph ", Quoted(graph->name()))));
    }
    graph->AddOutput(v);
    // The entry's type belongs to this graph's view of the value; an outer
    // value keeps its own. When a value already carries a different type, the
    // IR has no room for a second one.
    if (v->graph() == graph) AdoptValueInfo(v, output, /*is_output=*/true);
  }

  for (const onnx::ValueInfoProto& info : proto.value_info()) {
    Value* v = graph->FindValue(info.name());
    if (v != nullptr && !v->in_value_info() && AdoptValueInfo(v, info, /*is_output=*/false)) {
      graph->AddValueInfo(v);
    } else {
      // Names no value of this graph, repeats one, or contradicts what the
      // value already says: kept verbatim so that export reproduces it.
      graph->opaque().orphan_value_infos.push_back(info.SerializeAsString());
    }
  }
  for (const onnx::TensorAnnotation& annotation : proto.quantization_annotation()) {
    graph->opaque().quantization_annotations.push_back(annotation.SerializeAsString());
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorAttr> Importer::ImportTensorAttr(const onnx::TensorProto& proto) {
  auto elements = ImportTensor(proto, options_);
  if (!elements.ok()) return elements.status();
  return TensorAttr{proto.name(), proto.doc_string(), *std::move(elements)};
}

absl::StatusOr<std::unique_ptr<Graph>> Importer::ImportSubgraph(const onnx::GraphProto& proto,
                                                                Node* node) {
  auto graph = std::make_unique<Graph>(model_, node->graph());
  graph->set_owner_node(node);
  ANVIL_RETURN_IF_ERROR(ImportGraph(proto, graph.get()));
  return graph;
}

absl::StatusOr<Attribute> Importer::ImportAttribute(const onnx::AttributeProto& p, Node* node) {
  // Built only for an error: describing every node eagerly would cost a string per attribute.
  auto context = [&] { return absl::StrCat(node->Describe(), ": attribute ", Quoted(p.name())); };
  if (p.has_type() && (p.type() < 0 || p.type() > static_cast<int>(AttributeType::kTypeProtos))) {
    return absl::InvalidArgumentError(absl::StrCat(context(), ": unknown type ", p.type()));
  }
  const AttributeType type =
      p.has_type() ? static_cast<AttributeType>(p.type()) : InferAttributeType(p);
  Attribute attr(p.name(), type);
  attr.doc_string = p.doc_string();
  attr.ref_attr_name = p.ref_attr_name();
  // A reference to a function's attribute has a type but no value.
  if (!p.ref_attr_name().empty()) return attr;

  switch (type) {
    case AttributeType::kUndefined:
      break;
    case AttributeType::kFloat:
      attr.f = p.f();
      break;
    case AttributeType::kInt:
      attr.i = p.i();
      break;
    case AttributeType::kString:
      attr.s = p.s();
      break;
    case AttributeType::kFloats:
      attr.floats.assign(p.floats().begin(), p.floats().end());
      break;
    case AttributeType::kInts:
      attr.ints.assign(p.ints().begin(), p.ints().end());
      break;
    case AttributeType::kStrings:
      attr.strings.assign(p.strings().begin(), p.strings().end());
      break;
    case AttributeType::kTensor: {
      if (!p.has_t()) {
        return absl::InvalidArgumentError(absl::StrCat(context(), ": no tensor"));
      }
      auto tensor = ImportTensorAttr(p.t());
      if (!tensor.ok()) return Annotate(tensor.status(), context());
      attr.tensors.push_back(*std::move(tensor));
      break;
    }
    case AttributeType::kTensors:
      for (const onnx::TensorProto& t : p.tensors()) {
        auto tensor = ImportTensorAttr(t);
        if (!tensor.ok()) return Annotate(tensor.status(), context());
        attr.tensors.push_back(*std::move(tensor));
      }
      break;
    case AttributeType::kGraph: {
      if (!p.has_g()) {
        return absl::InvalidArgumentError(absl::StrCat(context(), ": no graph"));
      }
      auto graph = ImportSubgraph(p.g(), node);
      if (!graph.ok()) return Annotate(graph.status(), context());
      attr.graphs.push_back(*std::move(graph));
      break;
    }
    case AttributeType::kGraphs:
      for (const onnx::GraphProto& g : p.graphs()) {
        auto graph = ImportSubgraph(g, node);
        if (!graph.ok()) return Annotate(graph.status(), context());
        attr.graphs.push_back(*std::move(graph));
      }
      break;
    case AttributeType::kSparseTensor:
      attr.serialized_protos.push_back(p.sparse_tensor().SerializeAsString());
      break;
    case AttributeType::kSparseTensors:
      for (const auto& s : p.sparse_tensors()) {
        attr.serialized_protos.push_back(s.SerializeAsString());
      }
      break;
    case AttributeType::kTypeProto:
      attr.serialized_protos.push_back(p.tp().SerializeAsString());
      attr.types.push_back(ImportType(p.tp()));
      break;
    case AttributeType::kTypeProtos:
      for (const auto& tp : p.type_protos()) {
        attr.serialized_protos.push_back(tp.SerializeAsString());
        attr.types.push_back(ImportType(tp));
      }
      break;
  }
  return attr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> ImportModelProto(const onnx::ModelProto& proto,
                                                        const ImportOptions& options) {
  auto model = std::make_unique<Model>();
  model->ir_version = proto.ir_version();
  for (const onnx::OperatorSetIdProto& opset : proto.opset_import()) {
    model->opset_imports.push_back({opset.domain(), opset.version()});
  }
  model->producer_name = proto.producer_name();
  model->producer_version = proto.producer_version();
  model->domain = proto.domain();
  model->model_version = proto.model_version();
  model->doc_string = proto.doc_string();
  for (const onnx::StringStringEntryProto& prop : proto.metadata_props()) {
    model->metadata_props.emplace_back(prop.key(), prop.value());
  }
  for (const onnx::FunctionProto& function : proto.functions()) {
    model->opaque.functions.push_back(function.SerializeAsString());
  }
  for (const onnx::TrainingInfoProto& info : proto.training_info()) {
    model->opaque.training_info.push_back(info.SerializeAsString());
  }
  // Nothing recursive below (the import itself included) sees nesting deeper than the limit.
  ANVIL_RETURN_IF_ERROR(CheckNesting(proto.graph(), /*depth=*/0));
  Importer importer(model.get(), options);
  ANVIL_RETURN_IF_ERROR(importer.ImportGraph(proto.graph(), &model->graph()));
  ANVIL_RETURN_IF_ERROR(importer.SortUnorderedGraphs());
  return model;
}

absl::StatusOr<std::shared_ptr<const Elements>> ImportTensorProto(const onnx::TensorProto& proto,
                                                                  const std::string& base_dir) {
  ImportOptions options;
  options.base_dir = base_dir;
  return ImportTensor(proto, options);
}

namespace {

// Parses a binary ModelProto from `stream` with the limits an ONNX file needs: up to protobuf's
// 2 GB (the default limit is lower), and room for every subgraph level import accepts
// (graph/limits.h), which is deeper than protobuf's default allows; the parser's own recursion
// stays bounded.
bool ParseModelStream(google::protobuf::io::ZeroCopyInputStream* stream, onnx::ModelProto* proto) {
  google::protobuf::io::CodedInputStream coded(stream);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  coded.SetRecursionLimit(kProtoRecursionLimit);
  return proto->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

constexpr char kUnparsable[] =
    "(binary protobuf: truncated, corrupt, or messages nested deeper than ";

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> ImportModelFile(const std::string& path,
                                                       std::vector<std::string>* warnings) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open '", path, "'"));
  }
  onnx::ModelProto proto;
  bool parsed;
  int read_errno;
  {
    google::protobuf::io::FileInputStream file(fd);
    file.SetCloseOnDelete(true);
    parsed = ParseModelStream(&file, &proto);
    read_errno = file.GetErrno();
  }
  if (read_errno != 0) {
    return absl::ErrnoToStatus(read_errno, absl::StrCat("cannot read '", path, "'"));
  }
  if (!parsed) {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse '", path, "' as an ONNX model ",
                                                   kUnparsable, kProtoRecursionLimit, " levels)"));
  }
  ImportOptions options;
  options.base_dir = std::filesystem::path(path).parent_path().string();
  options.consume_raw_data = true;  // `proto` dies here: take its bytes instead of copying
  options.warnings = warnings;
  return ImportModelProto(proto, options);
}

absl::StatusOr<std::unique_ptr<Model>> ImportModelBytes(std::string_view bytes,
                                                        const ImportOptions& options) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot parse ", bytes.size(), " bytes as an ONNX model: over protobuf's 2 GB limit"));
  }
  onnx::ModelProto proto;
  google::protobuf::io::ArrayInputStream array(bytes.data(), static_cast<int>(bytes.size()));
  if (!ParseModelStream(&array, &proto)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse ", bytes.size(),
                                                   " bytes as an ONNX model ", kUnparsable,
                                                   kProtoRecursionLimit, " levels)"));
  }
  ImportOptions consuming = options;
  consuming.consume_raw_data = true;  // `proto` dies here
  return ImportModelProto(proto, consuming);
}

}  // namespace anvil
