#include "graph/text_format_rewrite.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "graph/limits.h"
#include "graph/text_format_syntax.h"
#include "onnx/defs/parser.h"

namespace anvil::text_format_internal {
namespace {

// Placeholders the rewrites put in for what the 1.12 parser cannot read: dim k of an
// expression-dims list, type k of a non-tensor-types list.
constexpr char kDimPlaceholderPrefix[] = "__anvil_dim_";
constexpr char kTypePlaceholderPrefix[] = "__anvil_type_";

bool IsElementTypeWord(absl::string_view word) {
  return ElementTypeFromName(std::string_view(word.data(), word.size())) != ElementType::kUndefined;
}

// At a comment (`#` to the end of the line) or a string literal (with backslash escapes): copies
// it to `out`, moves `*i` past it and returns true; otherwise false.
bool CopyCommentOrString(absl::string_view text, size_t* i, std::string* out) {
  // (`out` may be null: skip it.)
  const char c = text[*i];
  size_t end;
  if (c == '#') {
    end = text.find('\n', *i);
    if (end == absl::string_view::npos) end = text.size();
  } else if (c == '"') {
    end = *i + 1;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    end = std::min(end + 1, text.size());
  } else {
    return false;
  }
  if (out != nullptr) absl::StrAppend(out, text.substr(*i, end - *i));
  *i = end;
  return true;
}

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `text` with comments and string literals copied and every word outside them (a maximal run of
// identifier characters) rewritten by `rewrite(start, end, &out)`: it appends what stands for
// text[start, end), and for whatever after it it consumes too, and returns where copying resumes
// (>= end).
template <typename Rewrite>
std::string RewriteWords(absl::string_view text, Rewrite&& rewrite) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (CopyCommentOrString(text, &i, &out)) continue;
    if (!IsIdentifierChar(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsIdentifierChar(text[end])) ++end;
    i = rewrite(i, end, &out);
  }
  return out;
}

void RestoreExpressionDims(const std::vector<std::string>& dims, onnx::TensorShapeProto* shape) {
  for (onnx::TensorShapeProto_Dimension& d : *shape->mutable_dim()) {
    if (!d.has_dim_param() || !absl::StartsWith(d.dim_param(), kDimPlaceholderPrefix)) continue;
    size_t index = 0;
    if (absl::SimpleAtoi(absl::string_view(d.dim_param()).substr(sizeof(kDimPlaceholderPrefix) - 1),
                         &index) &&
        index < dims.size()) {
      d.set_dim_param(dims[index]);
    }
  }
}

void RestoreExpressionDims(const std::vector<std::string>& dims, onnx::TypeProto* type) {
  if (type->has_tensor_type() && type->tensor_type().has_shape()) {
    RestoreExpressionDims(dims, type->mutable_tensor_type()->mutable_shape());
  }
  if (type->has_sparse_tensor_type() && type->sparse_tensor_type().has_shape()) {
    RestoreExpressionDims(dims, type->mutable_sparse_tensor_type()->mutable_shape());
  }
  if (type->has_sequence_type()) {
    RestoreExpressionDims(dims, type->mutable_sequence_type()->mutable_elem_type());
  }
  if (type->has_optional_type()) {
    RestoreExpressionDims(dims, type->mutable_optional_type()->mutable_elem_type());
  }
  if (type->has_map_type()) {
    RestoreExpressionDims(dims, type->mutable_map_type()->mutable_value_type());
  }
}

}  // namespace

// The 1.12 parser recurses once per nested graph body (`{...}`) and per nested type (`seq(...)`),
// without a limit, so text nested deeper than any model Anvil accepts (graph/limits.h) is refused
// before it runs, naming the line. A graph body k subgraph levels down is k + 1 braces deep (a
// constant's `{...}` inside it one more); the exact subgraph depth is then checked on the parsed
// proto, as for binary models.
absl::Status CheckTextNesting(absl::string_view text) {
  constexpr int kMaxBraces = kMaxSubgraphDepth + 2;
  constexpr int kMaxBrackets = 2 * kMaxSubgraphDepth;
  int braces = 0, brackets = 0, line = 1;
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    if (CopyCommentOrString(text, &i, nullptr)) {
      line += static_cast<int>(std::count(text.begin() + start, text.begin() + i, '\n'));
      continue;
    }
    const char c = text[i++];
    if (c == '\n') {
      ++line;
    } else if (c == '{' && ++braces > kMaxBraces) {
      return absl::InvalidArgumentError(
          absl::StrCat("ONNX text: line ", line, ": ", SubgraphDepthMessage()));
    } else if ((c == '(' || c == '[') && ++brackets > kMaxBrackets) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ONNX text: line ", line, ": brackets nested deeper than ", kMaxBrackets, " levels"));
    } else if (c == '}') {
      --braces;
    } else if (c == ')' || c == ']') {
      --brackets;
    }
  }
  return absl::OkStatus();
}

// Replaces expression dims inside `type[...]` shapes by placeholder identifiers the 1.12 parser
// accepts, recording the originals in `dims` (placeholder k is dims[k]). Comments and string
// literals are copied untouched.
std::string ReplaceExpressionDims(absl::string_view text, std::vector<std::string>* dims) {
  return RewriteWords(text, [&](size_t start, size_t end, std::string* out) -> size_t {
    absl::StrAppend(out, text.substr(start, end - start));
    // Leading digits are no part of a type name: `3float[...]` has no shape.
    size_t i = start;
    while (i < end && absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
    const absl::string_view word = text.substr(i, end - i);
    size_t k = end;
    while (k < text.size() && text[k] == ' ') ++k;
    if (!IsElementTypeWord(word) || k >= text.size() || text[k] != '[') return end;
    // A shape: split at depth-0 commas up to the matching ']'.
    size_t close = k + 1;
    int depth = 0;
    while (close < text.size() && !(text[close] == ']' && depth == 0)) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')') --depth;
      ++close;
    }
    if (close >= text.size()) return end;  // unbalanced: let the parser complain
    absl::StrAppend(out, text.substr(end, k + 1 - end));
    std::vector<std::string> items;
    depth = 0;
    size_t item_start = k + 1;
    for (size_t p = k + 1; p <= close; ++p) {
      if (p < close && text[p] == '(') ++depth;
      if (p < close && text[p] == ')') --depth;
      if (p == close || (text[p] == ',' && depth == 0)) {
        items.emplace_back(text.substr(item_start, p - item_start));
        item_start = p + 1;
      }
    }
    for (size_t n = 0; n < items.size(); ++n) {
      if (n > 0) out->push_back(',');
      absl::string_view item = absl::StripAsciiWhitespace(items[n]);
      const bool is_integer = !item.empty() && std::all_of(item.begin(), item.end(), [](char ch) {
        return absl::ascii_isdigit(static_cast<unsigned char>(ch));
      });
      if (!is_integer && !IsIdentifier(item) && IsExpressionDim(item)) {
        absl::StrAppend(out, kDimPlaceholderPrefix, dims->size());
        dims->emplace_back(item);
      } else {
        absl::StrAppend(out, items[n]);
      }
    }
    out->push_back(']');
    return close + 1;
  });
}

// Replaces seq(...), optional(...), map(...) and sparse_tensor(...) types by `uint8[placeholder]`,
// which the 1.12 parser accepts in value lists (it reads those types only through
// Parse(TypeProto&)), recording the originals in `types` (placeholder k is types[k]). A word is
// taken for a type only when an element type or another type keyword follows its parenthesis,
// so an operator call `y = seq(x)` stays as written. Comments and strings are copied untouched.
std::string ReplaceNonTensorTypes(absl::string_view text, std::vector<std::string>* types) {
  static const char* const kKeywords[] = {"seq", "optional", "map", "sparse_tensor"};
  auto is_keyword = [](absl::string_view w) {
    for (const char* k : kKeywords) {
      if (w == k) return true;
    }
    return false;
  };
  return RewriteWords(text, [&](size_t start, size_t end, std::string* out) -> size_t {
    const absl::string_view word = text.substr(start, end - start);
    size_t open = end;
    while (open < text.size() && text[open] == ' ') ++open;
    if (is_keyword(word) && open < text.size() && text[open] == '(') {
      size_t next = open + 1;
      while (next < text.size() && text[next] == ' ') ++next;
      size_t next_end = next;
      while (next_end < text.size() && IsIdentifierChar(text[next_end])) ++next_end;
      const absl::string_view inner = text.substr(next, next_end - next);
      if (IsElementTypeWord(inner) || is_keyword(inner)) {
        int depth = 0;
        size_t close = open;
        for (; close < text.size(); ++close) {
          if (text[close] == '(') ++depth;
          if (text[close] == ')' && --depth == 0) break;
        }
        if (close < text.size()) {
          absl::StrAppend(out, "uint8[", kTypePlaceholderPrefix, types->size(), "]");
          types->emplace_back(text.substr(start, close + 1 - start));
          return close + 1;
        }
      }
    }
    absl::StrAppend(out, word);
    return end;
  });
}

void RestoreExpressionDims(const std::vector<std::string>& dims, onnx::GraphProto* graph) {
  for (auto* list :
       {graph->mutable_input(), graph->mutable_output(), graph->mutable_value_info()}) {
    for (onnx::ValueInfoProto& vi : *list) RestoreExpressionDims(dims, vi.mutable_type());
  }
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) RestoreExpressionDims(dims, a.mutable_g());
      for (onnx::GraphProto& g : *a.mutable_graphs()) RestoreExpressionDims(dims, &g);
    }
  }
}

// Puts the types ReplaceNonTensorTypes took out back, parsed (their expression dims replaced and
// restored as everywhere else). InvalidArgument when one does not parse.
absl::Status RestoreNonTensorTypes(const std::vector<std::string>& types,
                                   std::vector<std::string>* dims, onnx::GraphProto* graph) {
  auto restore = [&](onnx::TypeProto* type) -> absl::Status {
    if (!type->has_tensor_type() || type->tensor_type().elem_type() != onnx::TensorProto::UINT8 ||
        type->tensor_type().shape().dim_size() != 1) {
      return absl::OkStatus();
    }
    const std::string& param = type->tensor_type().shape().dim(0).dim_param();
    size_t index = 0;
    if (!absl::StartsWith(param, kTypePlaceholderPrefix) ||
        !absl::SimpleAtoi(absl::string_view(param).substr(sizeof(kTypePlaceholderPrefix) - 1),
                          &index) ||
        index >= types.size()) {
      return absl::OkStatus();
    }
    const std::string text = ReplaceExpressionDims(types[index], dims);
    onnx::TypeProto parsed;
    const onnx::Common::Status status = onnx::OnnxParser::Parse(parsed, text.c_str());
    if (!status.IsOK()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ONNX text: type '", types[index], "': ", OneLineParseError(status.ErrorMessage())));
    }
    *type = std::move(parsed);
    return absl::OkStatus();
  };
  for (auto* list :
       {graph->mutable_input(), graph->mutable_output(), graph->mutable_value_info()}) {
    for (onnx::ValueInfoProto& vi : *list) ANVIL_RETURN_IF_ERROR(restore(vi.mutable_type()));
  }
  for (onnx::NodeProto& node : *graph->mutable_node()) {
    for (onnx::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) ANVIL_RETURN_IF_ERROR(RestoreNonTensorTypes(types, dims, a.mutable_g()));
      for (onnx::GraphProto& g : *a.mutable_graphs()) {
        ANVIL_RETURN_IF_ERROR(RestoreNonTensorTypes(types, dims, &g));
      }
    }
  }
  return absl::OkStatus();
}

// "[ParseError at position (line: 3 column: 10)]\nError context:
// <line>\n<message>" -> "line 3, column 10: <message> [context: `<line>`]".
std::string OneLineParseError(const std::string& message) {
  std::vector<std::string> lines = absl::StrSplit(message, '\n');
  int line = 0;
  int column = 0;
  std::string context;
  std::vector<std::string> rest;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == 0 && std::sscanf(lines[i].c_str(), "[ParseError at position (line: %d column: %d)]",
                              &line, &column) == 2) {
      continue;
    }
    if (absl::StartsWith(lines[i], "Error context:")) {
      context = std::string(absl::StripAsciiWhitespace(lines[i].substr(14)));
      continue;
    }
    if (!absl::StripAsciiWhitespace(lines[i]).empty()) rest.push_back(lines[i]);
  }
  std::string out;
  if (line > 0) absl::StrAppend(&out, "line ", line, ", column ", column, ": ");
  absl::StrAppend(&out, absl::StrJoin(rest, " "));
  if (!context.empty()) absl::StrAppend(&out, " [context: `", context, "`]");
  return out;
}

}  // namespace anvil::text_format_internal
