// The passes ParseModelText (text_format.h) runs around onnx::OnnxParser, which reads only the
// ONNX 1.12 syntax (private to //graph:text_format): what Anvil prints beyond that syntax is
// swapped for placeholders the parser accepts before it runs, and put back into the parsed
// proto after.
//
// Contracts:
//  - CheckTextNesting refuses text nested deeper than import accepts (graph/limits.h) before the
//    parser, which recurses without a limit, sees it: InvalidArgument naming the line.
//  - ReplaceNonTensorTypes, then ReplaceExpressionDims, turn text into text the 1.12 parser reads,
//    appending what they take out to `types` / `dims` (placeholder k stands for element k).
//    Comments and string literals are copied untouched; text they do not recognize (unbalanced
//    brackets, a call `y = seq(x)`) is left for the parser to judge.
//  - RestoreNonTensorTypes, then RestoreExpressionDims, undo them on the parsed graph and its
//    subgraphs, with the lists the replacements filled. RestoreNonTensorTypes parses each type it
//    puts back (replacing the expression dims in it, appended to `dims`); InvalidArgument when
//    one does not parse.
//  - OneLineParseError rewrites the parser's multi-line message as one line:
//    "line 3, column 10: <message> [context: `<line>`]".
#ifndef ANVIL_GRAPH_TEXT_FORMAT_REWRITE_H_
#define ANVIL_GRAPH_TEXT_FORMAT_REWRITE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"

namespace anvil::text_format_internal {

absl::Status CheckTextNesting(absl::string_view text);

std::string ReplaceNonTensorTypes(absl::string_view text, std::vector<std::string>* types);
std::string ReplaceExpressionDims(absl::string_view text, std::vector<std::string>* dims);

absl::Status RestoreNonTensorTypes(const std::vector<std::string>& types,
                                   std::vector<std::string>* dims, onnx::GraphProto* graph);
void RestoreExpressionDims(const std::vector<std::string>& dims, onnx::GraphProto* graph);

std::string OneLineParseError(const std::string& message);

}  // namespace anvil::text_format_internal

#endif  // ANVIL_GRAPH_TEXT_FORMAT_REWRITE_H_
