// Loading and saving models by file name: `.onnx` is binary protobuf (external data next to it
// when large), `.onnxtxt` is the ONNX textual syntax (text_format.h). This is what tools use;
// libraries that hold protos or strings call onnx_import.h / text_format.h directly.
//
// Errors are one line naming the file: "cannot open 'm.onnx': No such file or directory",
// "cannot parse 'm.onnx' as an ONNX model (binary protobuf)", "unknown model file extension
// 'm.pb'; expected .onnx (binary) or .onnxtxt (text)".
#ifndef ANVIL_GRAPH_MODEL_IO_H_
#define ANVIL_GRAPH_MODEL_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil {

enum class ModelFormat { kBinary, kText };

absl::StatusOr<ModelFormat> ModelFormatFromPath(const std::string& path);

// What the import tolerated (onnx_import.h: graphs it had to sort) is appended to `warnings`
// when given, one line each.
absl::StatusOr<std::unique_ptr<Model>> LoadModel(const std::string& path,
                                                 std::vector<std::string>* warnings = nullptr);

struct SaveOptions {
  // Binary only: tensors of at least this many bytes go to `<path>.data` next to the model.
  // -1 keeps everything inline unless the model would not fit protobuf's 2 GB limit, in which
  // case large tensors go external anyway.
  int64_t external_data_threshold = -1;
  // Text only: receives what the 1.12 textual syntax could not keep (see text_format.h).
  std::vector<std::string>* text_losses = nullptr;
};

absl::Status SaveModel(const Model& model, const std::string& path,
                       const SaveOptions& options = {});

// The bytes of the model file at `path` plus those of `path`.data beside it (where SaveModel and
// ONNX Runtime's model builder put external data), or -1 when `path` cannot be read: the size
// progress lines report.
int64_t ModelFileBytes(const std::string& path);

}  // namespace anvil

#endif  // ANVIL_GRAPH_MODEL_IO_H_
