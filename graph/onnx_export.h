// Anvil IR -> binary ONNX (onnx::ModelProto), the inverse of onnx_import.h.
//
// Contract:
//  - Importing a ModelProto and exporting it gives a proto equal in meaning to
//    the original: identical except that tensor data is always written in one
//    canonical form (numeric tensors as little-endian raw_data, string tensors
//    as string_data), the deprecated `segment` is dropped, and value_info
//    entries that the IR keeps verbatim follow the modelled ones. Exporting,
//    re-importing and exporting again gives identical bytes.
//  - External data: with ExportOptions::external_data_path set, every numeric
//    tensor (initializer or tensor attribute, in any subgraph) of at least
//    external_threshold_bytes is appended to that file, which is truncated
//    first, and referenced with data_location EXTERNAL and external_data
//    {location: the file's base name, offset, length}. The data file must
//    therefore sit in the model file's directory. Offsets are 64-byte aligned
//    (4096 for tensors of 1 MiB or more). Each tensor's bytes are written once,
//    straight from the Elements when they are contiguous, so no second copy of
//    the weights is built in memory.
#ifndef ANVIL_GRAPH_ONNX_EXPORT_H_
#define ANVIL_GRAPH_ONNX_EXPORT_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "graph/ir.h"

namespace onnx {
class ModelProto;
class TensorProto;
class TypeProto;
}  // namespace onnx

namespace anvil {

struct ExportOptions {
  // File that large tensors go to; "" keeps every tensor inline.
  std::string external_data_path;
  // Tensors of at least this many bytes go external (when external_data_path
  // is set). Empty tensors always stay inline.
  size_t external_threshold_bytes = 1024;
};

// Fills `proto` (cleared first); writes the external-data file if requested.
absl::Status ExportModelProto(const Model& model, onnx::ModelProto* proto,
                              const ExportOptions& options = {});

// One tensor as a TensorProto (cleared first) in the canonical form above: dims, data type, the
// name when not empty, numeric data as raw_data (strings as string_data). What tools write as
// output_K.pb files.
absl::Status ExportTensorProto(const Elements& elements, const std::string& name,
                               onnx::TensorProto* proto);

// A value's Type as a TypeProto (cleared first; nothing set for a value without a type).
absl::Status ExportTypeProto(const Type& type, onnx::TypeProto* proto);

// Writes a binary-protobuf .onnx file. Protobuf cannot serialize more than
// 2 GB, so when the model would exceed that and no external_data_path is
// given, its tensors go to `<path>.data`. An external_data_path must be in the
// directory of `path` (the model refers to it by file name).
absl::Status ExportModelFile(const Model& model, const std::string& path,
                             const ExportOptions& options = {});

}  // namespace anvil

#endif  // ANVIL_GRAPH_ONNX_EXPORT_H_
