// The lexical rules of the ONNX 1.12 text syntax that both sides of graph/text_format.h follow
// (private to //graph:text_format): what the printer may write verbatim and what the parser's
// rewrites (text_format_rewrite.h) recognize.
//
// Contracts:
//  - IsIdentifier is exactly what onnx::OnnxParser reads as one identifier
//    (ParserBase::ParseOptionalIdentifier): [A-Za-z_][A-Za-z0-9_]*.
//  - IsTypeKeyword: the identifiers the parser takes for the start of a type where a name may
//    also stand, so a value or graph named so must be printed sanitized.
//  - SanitizeIdentifier(s) is an identifier and no type keyword, equal to s when s already is
//    one; it is not unique (callers make it so).
//  - IsExpressionDim: Anvil's extension, a symbolic dim such as `floor((H - 1) / 2) + 1` or
//    `min(N, 4)`: identifier characters, digits, blanks and `+ - * / % ( ) ,`, balanced
//    parentheses, commas only inside them, no leading or trailing blank, at least one operand.
#ifndef ANVIL_GRAPH_TEXT_FORMAT_SYNTAX_H_
#define ANVIL_GRAPH_TEXT_FORMAT_SYNTAX_H_

#include <string>

#include "absl/strings/string_view.h"

namespace anvil::text_format_internal {

// Marks the comment that replaces the values of an elided constant. ParseModelText refuses text
// containing it: such text is missing data, and parsing it would give a broken model.
inline constexpr char kElidedMarker[] = "# anvil-elided";

bool IsIdentifier(absl::string_view s);
bool IsTypeKeyword(absl::string_view s);
std::string SanitizeIdentifier(absl::string_view s);
bool IsExpressionDim(absl::string_view s);

}  // namespace anvil::text_format_internal

#endif  // ANVIL_GRAPH_TEXT_FORMAT_SYNTAX_H_
