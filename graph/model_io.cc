#include "graph/model_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "graph/text_format.h"

namespace anvil {

absl::StatusOr<ModelFormat> ModelFormatFromPath(const std::string& path) {
  if (absl::EndsWith(path, ".onnx")) return ModelFormat::kBinary;
  if (absl::EndsWith(path, ".onnxtxt")) return ModelFormat::kText;
  return absl::InvalidArgumentError(absl::StrCat("unknown model file extension '", path,
                                                 "'; expected .onnx (binary) or .onnxtxt (text)"));
}

absl::StatusOr<std::unique_ptr<Model>> LoadModel(const std::string& path,
                                                 std::vector<std::string>* warnings) {
  ANVIL_ASSIGN_OR_RETURN(ModelFormat format, ModelFormatFromPath(path));
  if (format == ModelFormat::kBinary) return ImportModelFile(path, warnings);

  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "': ", std::strerror(errno)));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text.str(), warnings);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("cannot parse '", path, "': ", model.status().message()));
  }
  return model;
}

absl::Status SaveModel(const Model& model, const std::string& path, const SaveOptions& options) {
  ANVIL_ASSIGN_OR_RETURN(ModelFormat format, ModelFormatFromPath(path));
  if (format == ModelFormat::kText) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
    }
    // Every constant in full: elided constants would not parse back.
    PrintOptions print_options;
    print_options.full_constants = true;
    print_options.losses = options.text_losses;
    out << PrintModel(model, print_options);
    if (!out.flush()) {
      return absl::DataLossError(absl::StrCat("error writing '", path, "'"));
    }
    return absl::OkStatus();
  }
  ExportOptions export_options;
  if (options.external_data_threshold >= 0) {
    export_options.external_data_path = path + ".data";
    export_options.external_threshold_bytes = static_cast<size_t>(options.external_data_threshold);
  }
  return ExportModelFile(model, path, export_options);
}

int64_t ModelFileBytes(const std::string& path) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  if (error) return -1;
  int64_t total = static_cast<int64_t>(bytes);
  const auto data = std::filesystem::file_size(path + ".data", error);
  if (!error) total += static_cast<int64_t>(data);
  return total;
}

}  // namespace anvil
