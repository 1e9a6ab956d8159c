// ParseModelText (text_format.h): onnx::OnnxParser between the rewrites of
// text_format_rewrite.h, which carry what Anvil prints beyond the 1.12 syntax past it, then
// ImportModelProto. The printer's entry points are in text_format_graphs.cc.
#include "graph/text_format.h"

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/onnx_import.h"
#include "graph/text_format_rewrite.h"
#include "graph/text_format_syntax.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

using text_format_internal::CheckTextNesting;
using text_format_internal::kElidedMarker;
using text_format_internal::OneLineParseError;
using text_format_internal::ReplaceExpressionDims;
using text_format_internal::ReplaceNonTensorTypes;
using text_format_internal::RestoreExpressionDims;
using text_format_internal::RestoreNonTensorTypes;

// Defaults for text without a header (what ParseModelText documents).
constexpr int64_t kDefaultIrVersion = 8;
constexpr int64_t kDefaultOnnxOpset = 17;

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> ParseModelText(std::string_view text,
                                                      std::vector<std::string>* warnings) {
  ANVIL_RETURN_IF_ERROR(CheckTextNesting(absl::string_view(text.data(), text.size())));
  if (absl::StrContains(absl::string_view(text.data(), text.size()), kElidedMarker)) {
    return absl::InvalidArgumentError(
        absl::StrCat("ONNX text has elided constants ('", kElidedMarker,
                     "' comments): print it with PrintOptions::full_constants "
                     "to get text that parses"));
  }
  std::vector<std::string> expression_dims, non_tensor_types;
  // The parser wants a NUL-terminated string.
  const std::string buffer = ReplaceExpressionDims(
      ReplaceNonTensorTypes(absl::string_view(text.data(), text.size()), &non_tensor_types),
      &expression_dims);
  onnx::ModelProto proto;
  try {
    const onnx::Common::Status status = onnx::OnnxParser::Parse(proto, buffer.c_str());
    if (!status.IsOK()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ONNX text: ", OneLineParseError(status.ErrorMessage())));
    }
  } catch (const std::exception& e) {
    // The 1.12 parser converts numbers with std::stof/stoll and lets their
    // exceptions out.
    return absl::InvalidArgumentError(
        absl::StrCat("ONNX text: a number is out of range or malformed (", e.what(),
                     " failed; the ONNX 1.12 parser cannot read inf, NaN or subnormal "
                     "floats)"));
  }
  if (!non_tensor_types.empty()) {
    ANVIL_RETURN_IF_ERROR(
        RestoreNonTensorTypes(non_tensor_types, &expression_dims, proto.mutable_graph()));
  }
  if (!expression_dims.empty()) RestoreExpressionDims(expression_dims, proto.mutable_graph());
  if (proto.ir_version() == 0) proto.set_ir_version(kDefaultIrVersion);
  if (proto.opset_import_size() == 0) {
    onnx::OperatorSetIdProto* opset = proto.add_opset_import();
    opset->set_domain("");
    opset->set_version(kDefaultOnnxOpset);
  }
  ImportOptions options;
  options.warnings = warnings;
  return ImportModelProto(proto, options);
}

}  // namespace anvil
