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
//  - Node order is kept as written when it is topological. A graph whose
//    nodes read values of nodes listed after them is sorted (stable: the
//    written order wherever it is valid; a subgraph's captures count as
//    inputs of the node owning it), as ONNX Runtime sorts such graphs, and
//    ImportOptions::warnings gets one line saying so; a cycle is an error.
//    Linear in the nodes when nothing needs sorting. Subgraphs see the values
//    of enclosing graphs and may shadow their names.
//  - Subgraphs nested more than kMaxSubgraphDepth levels (graph/limits.h)
//    are refused before anything recurses into them.
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
#include <string_view>
#include <vector>

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
  // When set, receives what the import tolerated, one line each (graphs it had to sort).
  std::vector<std::string>* warnings = nullptr;
};

// External tensors at least this big are mapped (smaller ones would waste mappings).
inline constexpr uint64_t kMapThreshold = 1 << 20;

absl::StatusOr<std::unique_ptr<Model>> ImportModelProto(const onnx::ModelProto& proto,
                                                        const ImportOptions& options = {});

// Reads a binary-protobuf .onnx file (up to protobuf's 2 GB; larger weights
// must be external data, which is looked up next to `path`). Warnings as in
// ImportOptions::warnings.
absl::StatusOr<std::unique_ptr<Model>> ImportModelFile(
    const std::string& path, std::vector<std::string>* warnings = nullptr);

// Parses a serialized ModelProto (up to protobuf's 2 GB; external data relative to
// options.base_dir) and imports it. Errors say the bytes do not parse, with their count.
absl::StatusOr<std::unique_ptr<Model>> ImportModelBytes(std::string_view bytes,
                                                        const ImportOptions& options = {});

// Decodes one TensorProto (an initializer, or a test's input_K.pb / output_K.pb) into dense
// little-endian elements, exactly as the importer does for initializers; external data is read
// relative to `base_dir`.
absl::StatusOr<std::shared_ptr<const Elements>> ImportTensorProto(const onnx::TensorProto& proto,
                                                                  const std::string& base_dir = "");

}  // namespace anvil

#endif  // ANVIL_GRAPH_ONNX_IMPORT_H_
