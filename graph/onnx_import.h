// Binary ONNX (onnx::ModelProto) -> Anvil IR.
//
// Contract:
//  - Lossless for everything a ModelProto means: every field either maps onto
//    the IR or is kept serialized in the IR's opaque parts (model functions and
//    training info, graph sparse initializers, quantization annotations,
//    value_info entries that name no value of their graph), so that
//    ExportModelProto (onnx_export.h) gives back an equivalent proto. Tensor
//    storage is normalized: raw_data, the typed repeated fields and external
//    data all become dense little-endian DenseElements. External tensors of
//    1 MiB or more are mapped from their file (read on first touch, see
//    mapped_buffer.h), smaller ones read into memory.
//  - One limit of the IR: a value has one type and doc string, so a graph
//    output entry that differs from the value's other declaration (a subgraph
//    returning an outer value, a value listed twice, a graph input also listed
//    as an output) is exported like that declaration. value_info entries never
//    are: those that don't fit are kept verbatim.
//  - Node order is kept as written; it need not be topological (all node
//    outputs of a graph are defined before any input is resolved). Subgraphs
//    see the values of enclosing graphs and may shadow their names.
//  - Malformed input (an undefined name, a value defined twice in a graph,
//    tensor data of the wrong size, a missing external-data file) is an error
//    naming the node, tensor or value concerned; nothing is partially returned.
//
// onnx_pb.h is deliberately not included here: this header is included widely
// and only needs the proto's name.
#ifndef ANVIL_GRAPH_ONNX_IMPORT_H_
#define ANVIL_GRAPH_ONNX_IMPORT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace onnx {
class ModelProto;
class TensorProto;
}  // namespace onnx

namespace anvil {

struct ImportOptions {
  // Directory that external-data `location`s are relative to ("" = the working
  // directory).
  std::string base_dir;
  // Map external tensors of kMapThreshold bytes or more instead of reading them.
  bool map_external_data = true;
  // The proto is the caller's to spend: inline raw_data strings are taken over (the proto's
  // tensors are left empty) instead of copied.
  bool consume_raw_data = false;
};

// External tensors at least this big are mapped (smaller ones would waste mappings).
inline constexpr uint64_t kMapThreshold = 1 << 20;

absl::StatusOr<std::unique_ptr<Model>> ImportModelProto(const onnx::ModelProto& proto,
                                                        const ImportOptions& options = {});

// Reads a binary-protobuf .onnx file (up to protobuf's 2 GB; larger weights
// must be external data, which is looked up next to `path`).
absl::StatusOr<std::unique_ptr<Model>> ImportModelFile(const std::string& path);

// Decodes one TensorProto (an initializer, or a test's input_K.pb / output_K.pb) into dense
// little-endian elements, exactly as the importer does for initializers; external data is read
// relative to `base_dir`.
absl::StatusOr<std::shared_ptr<const Elements>> ImportTensorProto(const onnx::TensorProto& proto,
                                                                  const std::string& base_dir = "");

}  // namespace anvil

#endif  // ANVIL_GRAPH_ONNX_IMPORT_H_
