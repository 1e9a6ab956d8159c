#include "graph/text_format_syntax.h"

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"

namespace anvil::text_format_internal {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

// (NextIsType in the parser: a value named `float` in `(float)` would be taken for a type.)
bool IsTypeKeyword(absl::string_view s) {
  static const auto* const kWords = new absl::flat_hash_set<absl::string_view>{
      "float",      "uint8",    "int8",    "uint16", "int16",    "int32",        "int64",
      "string",     "bool",     "float16", "double", "uint32",   "uint64",       "complex64",
      "complex128", "bfloat16", "seq",     "map",    "optional", "sparse_tensor"};
  return kWords->contains(s);
}

std::string SanitizeIdentifier(absl::string_view s) {
  std::string out;
  out.reserve(s.size() + 1);
  if (s.empty() || absl::ascii_isdigit(s[0])) out.push_back('_');
  for (char c : s) out.push_back(absl::ascii_isalnum(c) || c == '_' ? c : '_');
  if (IsTypeKeyword(out)) out.push_back('_');
  return out;
}

// Such a dim can be cut out of a `[...]` shape at its depth-0 commas.
bool IsExpressionDim(absl::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  int depth = 0;
  bool has_operand = false;
  for (char c : s) {
    if (absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_') {
      has_operand = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth < 0) return false;
    } else if (c == ',') {
      if (depth == 0) return false;
    } else if (c != ' ' && c != '+' && c != '-' && c != '*' && c != '/' && c != '%') {
      return false;
    }
  }
  return depth == 0 && has_operand;
}

}  // namespace anvil::text_format_internal
