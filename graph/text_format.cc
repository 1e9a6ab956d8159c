#include "graph/text_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "graph/limits.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

// Marks the comment that replaces the values of an elided constant.
// ParseModelText refuses text containing it: such text is missing data, and
// parsing it would give a broken model.
constexpr char kElidedMarker[] = "# anvil-elided";
// How many leading values an elision comment shows.
constexpr int64_t kElidedPreview = 4;

// Defaults for text without a header (what ParseModelText documents).
constexpr int64_t kDefaultIrVersion = 8;
constexpr int64_t kDefaultOnnxOpset = 17;

// Debian's Abseil has its own string_view, so std::string_views from the IR go
// through this.
std::string TypeName(ElementType t) {
  const std::string_view name = ElementTypeName(t);
  return std::string(name.data(), name.size());
}

bool IsIdentifier(absl::string_view s);

// Anvil's extension of the 1.12 syntax: a dim may be a symbolic expression such as
// `floor((H - 1) / 2) + 1` or `min(N, 4)` (shape inference writes these as dim_params). Such a
// dim has only identifier characters, digits, blanks and `+ - * / % ( ) ,`, balanced
// parentheses, and commas only inside parentheses, so it can be cut out of a `[...]` shape.
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

constexpr char kDimPlaceholderPrefix[] = "__anvil_dim_";

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
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (CopyCommentOrString(text, &i, &out)) continue;
    if (!(absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_')) {
      out.push_back(c);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
      ++j;
    }
    const absl::string_view word = text.substr(i, j - i);
    absl::StrAppend(&out, word);
    i = j;
    size_t k = i;
    while (k < text.size() && text[k] == ' ') ++k;
    if (!IsElementTypeWord(word) || k >= text.size() || text[k] != '[') continue;
    // A shape: split at depth-0 commas up to the matching ']'.
    size_t close = k + 1;
    int depth = 0;
    while (close < text.size() && !(text[close] == ']' && depth == 0)) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')') --depth;
      ++close;
    }
    if (close >= text.size()) continue;  // unbalanced: let the parser complain
    absl::StrAppend(&out, text.substr(i, k + 1 - i));
    std::vector<std::string> items;
    depth = 0;
    size_t start = k + 1;
    for (size_t p = k + 1; p <= close; ++p) {
      if (p < close && text[p] == '(') ++depth;
      if (p < close && text[p] == ')') --depth;
      if (p == close || (text[p] == ',' && depth == 0)) {
        items.emplace_back(text.substr(start, p - start));
        start = p + 1;
      }
    }
    for (size_t n = 0; n < items.size(); ++n) {
      if (n > 0) out.push_back(',');
      absl::string_view item = absl::StripAsciiWhitespace(items[n]);
      const bool is_integer = !item.empty() && std::all_of(item.begin(), item.end(), [](char ch) {
        return absl::ascii_isdigit(static_cast<unsigned char>(ch));
      });
      if (!is_integer && !IsIdentifier(item) && IsExpressionDim(item)) {
        absl::StrAppend(&out, kDimPlaceholderPrefix, dims->size());
        dims->emplace_back(item);
      } else {
        absl::StrAppend(&out, items[n]);
      }
    }
    out.push_back(']');
    i = close + 1;
  }
  return out;
}

constexpr char kTypePlaceholderPrefix[] = "__anvil_type_";

std::string OneLineParseError(const std::string& message);

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
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
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (CopyCommentOrString(text, &i, &out)) continue;
    if (!IsIdentifierChar(c) || (i > 0 && IsIdentifierChar(text[i - 1]))) {
      out.push_back(c);
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && IsIdentifierChar(text[end])) ++end;
    const absl::string_view word = text.substr(i, end - i);
    size_t open = end;
    while (open < text.size() && text[open] == ' ') ++open;
    bool replaced = false;
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
          absl::StrAppend(&out, "uint8[", kTypePlaceholderPrefix, types->size(), "]");
          types->emplace_back(text.substr(i, close + 1 - i));
          i = close + 1;
          replaced = true;
        }
      }
    }
    if (!replaced) {
      absl::StrAppend(&out, word);
      i = end;
    }
  }
  return out;
}

void RestoreExpressionDims(const std::vector<std::string>& dims, onnx::TypeProto* type);

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

// What the 1.12 parser accepts as an identifier
// (ParserBase::ParseOptionalIdentifier).
bool IsIdentifier(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

// Identifiers the parser reads as the start of a type where a value or graph
// name may also stand (NextIsType): a value named `float` in `(float)` would be
// taken for a type.
bool IsTypeKeyword(absl::string_view s) {
  static const auto* const kWords = new absl::flat_hash_set<absl::string_view>{
      "float",      "uint8",    "int8",    "uint16", "int16",    "int32",        "int64",
      "string",     "bool",     "float16", "double", "uint32",   "uint64",       "complex64",
      "complex128", "bfloat16", "seq",     "map",    "optional", "sparse_tensor"};
  return kWords->contains(s);
}

// Replaces what an identifier cannot hold; the caller makes the result unique.
std::string SanitizeIdentifier(absl::string_view s) {
  std::string out;
  out.reserve(s.size() + 1);
  if (s.empty() || absl::ascii_isdigit(s[0])) out.push_back('_');
  for (char c : s) out.push_back(absl::ascii_isalnum(c) || c == '_' ? c : '_');
  if (IsTypeKeyword(out)) out.push_back('_');
  return out;
}

// Shortest decimal that reads back (strtof/strtod, as the parser's stof/stod
// do) to the same bits, with a decimal point or exponent so the parser sees a
// float literal, not an int.
template <typename T>
std::string FormatFloating(T v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, result.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Whether the 1.12 parser can read `v` back: it uses std::stof/stod, which
// throw on values that overflow or underflow (subnormals), and it has no
// spelling for inf or NaN.
template <typename T>
bool ParserCanRead(T v) {
  return std::isfinite(v) && (v == 0 || std::fabs(v) >= std::numeric_limits<T>::min());
}

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Element types whose constants the 1.12 parser can read
// (OnnxParser::Parse(TensorProto&)).
bool ParserReadsElementType(ElementType t) {
  switch (t) {
    case ElementType::kFloat16:
    case ElementType::kBfloat16:
    case ElementType::kComplex64:
    case ElementType::kComplex128:
    case ElementType::kUndefined:
      return false;
    default:
      return true;
  }
}

// The attribute type names of the parser's `name: type = value` annotation.
const char* AttributeTypeName(AttributeType t) {
  switch (t) {
    case AttributeType::kFloat:
      return "float";
    case AttributeType::kInt:
      return "int";
    case AttributeType::kString:
      return "string";
    case AttributeType::kTensor:
      return "tensor";
    case AttributeType::kGraph:
      return "graph";
    case AttributeType::kFloats:
      return "floats";
    case AttributeType::kInts:
      return "ints";
    case AttributeType::kStrings:
      return "strings";
    case AttributeType::kTensors:
      return "tensors";
    case AttributeType::kGraphs:
      return "graphs";
    case AttributeType::kSparseTensor:
      return "sparse_tensor";
    case AttributeType::kSparseTensors:
      return "sparse_tensors";
    case AttributeType::kTypeProto:
      return "type_proto";
    case AttributeType::kTypeProtos:
      return "type_protos";
    case AttributeType::kUndefined:
      break;
  }
  return "undefined";
}

// One element of a comma-separated list; `comment` forces the list onto several
// lines.
struct ListItem {
  std::string text;
  std::string comment;
};

class Printer {
 public:
  Printer(const Model* model, const PrintOptions& options) : model_(model), options_(options) {}

  // Hands the collected losses to options.losses.
  ~Printer() {
    if (options_.losses == nullptr) return;
    for (const std::string& kind : loss_order_) {
      const LossInfo& info = losses_.at(kind);
      options_.losses->push_back(
          absl::StrCat(kind, ": ", info.count, ", e.g. '", info.example, "'"));
    }
  }

  std::string& out() { return out_; }

  void AppendModel(const Model& m) {
    std::vector<std::string> fields;
    fields.push_back(absl::StrCat("ir_version: ", m.ir_version));
    std::vector<std::string> opsets;
    for (const OpsetImport& o : m.opset_imports) {
      opsets.push_back(absl::StrCat(Quote(o.domain), " : ", o.version));
    }
    fields.push_back(absl::StrCat("opset_import: [", absl::StrJoin(opsets, ", "), "]"));
    if (!m.producer_name.empty()) {
      fields.push_back(absl::StrCat("producer_name: ", Quote(m.producer_name)));
    }
    if (!m.producer_version.empty()) {
      fields.push_back(absl::StrCat("producer_version: ", Quote(m.producer_version)));
    }
    if (!m.domain.empty()) fields.push_back(absl::StrCat("domain: ", Quote(m.domain)));
    if (m.model_version != 0) {
      fields.push_back(absl::StrCat("model_version: ", m.model_version));
    }
    if (!m.doc_string.empty()) {
      fields.push_back(absl::StrCat("doc_string: ", Quote(m.doc_string)));
    }
    if (!m.metadata_props.empty()) {
      std::vector<std::string> props;
      for (const auto& [key, value] : m.metadata_props) {
        props.push_back(absl::StrCat(Quote(key), " : ", Quote(value)));
      }
      fields.push_back(absl::StrCat("metadata_props: [", absl::StrJoin(props, ", "), "]"));
    }
    out_ += "<\n";
    for (size_t i = 0; i < fields.size(); ++i) {
      absl::StrAppend(&out_, "  ", fields[i], i + 1 < fields.size() ? ",\n" : "\n");
    }
    out_ += ">\n";
    for (const std::string& f : m.opaque.functions) {
      onnx::FunctionProto fn;
      fn.ParseFromString(f);
      Loss("model-local functions are not kept", fn.name());
    }
    if (!m.opaque.training_info.empty()) Loss("training info is not kept", "training_info");
    AppendGraph(m.graph(), /*indent=*/0, /*fallback_name=*/"");
    out_ += "\n";
  }

  // `name (inputs) => (outputs) <initializers, value_info> {nodes}`, starting
  // at the current position, with continuation lines and the closing brace at
  // `indent`.
  void AppendGraph(const Graph& g, int indent, absl::string_view fallback_name) {
    std::string name = g.name();
    if (!IsIdentifier(name) || IsTypeKeyword(name)) {
      // The main graph may be nameless; a graph attribute needs a name to be
      // seen as a graph.
      if (!(name.empty() && fallback_name.empty())) {
        const std::string original = name;
        name = SanitizeIdentifier(name.empty() ? fallback_name : name);
        Loss("graph names are changed to identifiers", original.empty() ? name : original);
      }
    }
    if (!g.doc_string().empty()) Loss("graph doc strings are not kept", name);
    if (!g.opaque().sparse_initializers.empty()) {
      Loss("sparse initializers are not kept", name);
    }
    if (!g.opaque().quantization_annotations.empty()) {
      Loss("quantization annotations are not kept", name);
    }

    std::vector<ListItem> inputs;
    for (const Value* v : g.inputs()) {
      if (v->IsInitializer()) {
        inputs.push_back(InitializerItem(*v));
      } else {
        inputs.push_back({TypedName(*v), ""});
      }
      NoteDocStrings(*v);
    }
    std::vector<ListItem> outputs;
    for (const Value* v : g.outputs()) outputs.push_back({TypedName(*v), ""});

    std::vector<ListItem> value_infos;
    for (const Value* v : g.initializers()) {
      if (v->IsGraphInput()) continue;
      value_infos.push_back(InitializerItem(*v));
      NoteDocStrings(*v);
    }
    for (const Value* v : g.value_info()) {
      value_infos.push_back({TypedName(*v), ""});
      NoteDocStrings(*v);
    }
    for (const std::string& serialized : g.opaque().orphan_value_infos) {
      onnx::ValueInfoProto vi;
      vi.ParseFromString(serialized);
      std::string type;
      std::string text = ValueName(vi.name());
      if (vi.has_type() && AppendTypeProto(&type, vi.type(), vi.name())) {
        text = absl::StrCat(type, " ", text);
      }
      value_infos.push_back({std::move(text), ""});
    }

    if (!name.empty()) absl::StrAppend(&out_, name, " ");
    AppendList(inputs, '(', ')', indent);
    out_ += " => ";
    AppendList(outputs, '(', ')', indent);
    if (!value_infos.empty()) {
      out_ += "\n";
      Indent(indent);
      AppendList(value_infos, '<', '>', indent, /*multiline=*/true);
      out_ += "\n";
      Indent(indent);
      out_ += "{\n";
    } else {
      out_ += " {\n";
    }
    for (const Node* n : g.nodes()) {
      Indent(indent + 2);
      AppendNode(*n, indent + 2);
      out_ += "\n";
    }
    Indent(indent);
    out_ += "}";
  }

  // `outs = Domain.Op <attrs> (ins)  # name`, continuation lines at `indent`.
  void AppendNode(const Node& n, int indent) {
    std::vector<std::string> outs;
    for (int i = 0; i < n.num_outputs(); ++i) {
      const Value* v = n.output(i);
      if (v != nullptr) {
        outs.push_back(ValueName(v->name()));
      } else if (i == 0) {
        // The 1.12 parser reads an empty first slot as an empty list; an unused
        // fresh name means the same to the op.
        outs.push_back(FreshName("_unused"));
        Loss("leading omitted outputs are given an unused name", n.Describe());
      } else {
        outs.push_back("");
      }
    }
    absl::StrAppend(&out_, SlotList(outs), outs.empty() ? "= " : " = ");

    std::string op;
    if (!n.domain().empty()) {
      for (absl::string_view part : absl::StrSplit(n.domain(), '.')) {
        if (!IsIdentifier(part)) Loss("op domains that are not dotted identifiers", n.domain());
      }
      absl::StrAppend(&op, n.domain(), ".");
    }
    if (!IsIdentifier(n.op_type())) Loss("op types that are not identifiers", n.op_type());
    absl::StrAppend(&op, n.op_type());
    out_ += op;

    if (!n.attributes().empty()) {
      std::vector<ListItem> attrs;
      bool multiline = false;
      for (const Attribute& a : n.attributes()) {
        attrs.push_back(AttributeItem(a, indent + 2, &multiline));
      }
      out_ += " ";
      AppendList(attrs, '<', '>', indent, multiline);
    }

    std::vector<std::string> ins;
    for (int i = 0; i < n.num_inputs(); ++i) {
      const Value* v = n.input(i);
      if (v != nullptr) {
        ins.push_back(ValueName(v->name()));
      } else if (i == 0) {
        // Newer parsers read `""`; 1.12 has no spelling for an empty first
        // input.
        ins.push_back("\"\"");
        Loss("leading omitted inputs do not parse", n.Describe());
      } else {
        ins.push_back("");
      }
    }
    absl::StrAppend(&out_, " (", SlotList(ins), ")");

    if (!n.name().empty()) {
      Loss("node names are not kept", n.name());
      if (options_.node_name_comments) absl::StrAppend(&out_, "  # ", OneLine(n.name()));
    }
    if (!n.doc_string().empty()) Loss("node doc strings are not kept", n.Describe());
  }

 private:
  struct LossInfo {
    int64_t count = 0;
    std::string example;
  };

  void Loss(const std::string& kind, absl::string_view example) {
    auto [it, inserted] = losses_.try_emplace(kind);
    if (inserted) {
      loss_order_.push_back(kind);
      it->second.example = std::string(example);
    }
    ++it->second.count;
  }

  void Indent(int n) { out_.append(n, ' '); }

  // Node inputs or outputs; an omitted slot is empty between commas (`a, , c`,
  // `a,`).
  static std::string SlotList(const std::vector<std::string>& names) {
    std::string s = absl::StrJoin(names, ", ");
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }

  // Comments end at a newline, so whatever goes into one must not contain any.
  static std::string OneLine(absl::string_view s) {
    std::string out(s);
    for (char& c : out) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return out;
  }

  std::string Quote(absl::string_view s) {
    if (s.find('"') != absl::string_view::npos) {
      // 1.12 strings have no escapes; `\"` is what newer parsers read.
      Loss("strings containing '\"' do not parse", s);
      std::string escaped;
      for (char c : s) {
        if (c == '"') escaped += '\\';
        escaped += c;
      }
      return absl::StrCat("\"", escaped, "\"");
    }
    return absl::StrCat("\"", s, "\"");
  }

  // `items` joined by ", " between `open` and `close`; one item per line (at
  // indent + 2) when `multiline` or when an item carries a comment.
  void AppendList(const std::vector<ListItem>& items, char open, char close, int indent,
                  bool multiline = false) {
    for (const ListItem& item : items) multiline |= !item.comment.empty();
    out_ += open;
    if (!multiline || items.empty()) {
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out_ += ", ";
        out_ += items[i].text;
      }
    } else {
      out_ += "\n";
      for (size_t i = 0; i < items.size(); ++i) {
        Indent(indent + 2);
        out_ += items[i].text;
        if (i + 1 < items.size()) out_ += ",";
        if (!items[i].comment.empty()) absl::StrAppend(&out_, "  ", items[i].comment);
        out_ += "\n";
      }
      Indent(indent);
    }
    out_ += close;
  }

  // A printable name for a value: itself when the parser reads it as one
  // identifier, else a sanitized name unused anywhere in the model (stable
  // within one print).
  std::string ValueName(const std::string& name) {
    if (IsIdentifier(name) && !IsTypeKeyword(name)) return name;
    auto it = renamed_.find(name);
    if (it != renamed_.end()) return it->second;
    std::string printed = FreshName(SanitizeIdentifier(name));
    Loss("names that are not identifiers are changed", name);
    renamed_.emplace(name, printed);
    return printed;
  }

  std::string FreshName(const std::string& base) {
    auto taken = [&](const std::string& s) {
      return (model_ != nullptr && model_->NameInUse(s)) || assigned_.contains(s);
    };
    std::string candidate = base;
    for (int64_t k = 1; taken(candidate); ++k) candidate = absl::StrCat(base, "_", k);
    assigned_.insert(candidate);
    return candidate;
  }

  std::string DimParam(const std::string& param) {
    if (IsIdentifier(param) || IsExpressionDim(param)) return param;
    Loss("dim params that are neither identifiers nor dim expressions are changed", param);
    return SanitizeIdentifier(param);
  }

  // `[d0,d1]` for a shape (nothing for rank 0, `[]` for an unknown rank), from
  // (literal, param) pairs: a dim is literal when `literal` is set, else param
  // or `?`.
  struct DimText {
    std::optional<int64_t> literal;
    std::string param;
  };
  void AppendShape(std::string* s, const std::optional<std::vector<DimText>>& dims) {
    if (!dims) {
      *s += "[]";
      return;
    }
    if (dims->empty()) return;
    *s += "[";
    for (size_t i = 0; i < dims->size(); ++i) {
      if (i > 0) *s += ",";
      const DimText& d = (*dims)[i];
      if (d.literal) {
        absl::StrAppend(s, *d.literal);
      } else if (!d.param.empty()) {
        *s += DimParam(d.param);
      } else {
        *s += "?";
      }
    }
    *s += "]";
  }

  // Appends the type of `t` (for value `what`); false when nothing can be
  // printed, in which case the value is printed untyped.
  bool AppendType(std::string* s, const Type& t, absl::string_view what) {
    if (!t.denotation().empty()) Loss("type denotations are not kept", what);
    switch (t.kind()) {
      case Type::Kind::kNone:
        return false;
      case Type::Kind::kOther: {
        onnx::TypeProto proto;
        if (!proto.ParseFromString(t.serialized_proto())) {
          Loss("unreadable types are not kept", what);
          return false;
        }
        return AppendTypeProto(s, proto, what);
      }
      case Type::Kind::kSequence:
      case Type::Kind::kOptional: {
        onnx::TypeProto proto;
        if (!ExportTypeProto(t, &proto).ok()) {
          Loss("unreadable types are not kept", what);
          return false;
        }
        return AppendTypeProto(s, proto, what);
      }
      case Type::Kind::kTensor:
      case Type::Kind::kSparseTensor:
        break;
    }
    if (!IsValidElementType(static_cast<int32_t>(t.element_type()))) {
      Loss("tensor types without an element type are not kept", what);
      return false;
    }
    std::optional<std::vector<DimText>> dims;
    if (t.has_shape()) {
      dims.emplace();
      for (const Dim& d : t.shape()) {
        if (!d.denotation.empty()) Loss("dim denotations are not kept", what);
        dims->push_back({d.value, d.param});
      }
    }
    std::string tensor(TypeName(t.element_type()));
    AppendShape(&tensor, dims);
    if (t.kind() == Type::Kind::kSparseTensor) {
      absl::StrAppend(s, "sparse_tensor(", tensor, ")");
    } else {
      *s += tensor;
    }
    return true;
  }

  bool AppendTypeProto(std::string* s, const onnx::TypeProto& t, absl::string_view what) {
    if (!t.denotation().empty()) Loss("type denotations are not kept", what);
    auto tensor = [&](int32_t elem_type, bool has_shape, const onnx::TensorShapeProto& shape) {
      if (!IsValidElementType(elem_type)) {
        Loss("tensor types without an element type are not kept", what);
        return false;
      }
      std::optional<std::vector<DimText>> dims;
      if (has_shape) {
        dims.emplace();
        for (const auto& d : shape.dim()) {
          if (!d.denotation().empty()) Loss("dim denotations are not kept", what);
          dims->push_back({d.has_dim_value() ? std::optional<int64_t>(d.dim_value()) : std::nullopt,
                           d.has_dim_param() ? d.dim_param() : ""});
        }
      }
      *s += TypeName(static_cast<ElementType>(elem_type));
      AppendShape(s, dims);
      return true;
    };
    switch (t.value_case()) {
      case onnx::TypeProto::kTensorType:
        return tensor(t.tensor_type().elem_type(), t.tensor_type().has_shape(),
                      t.tensor_type().shape());
      case onnx::TypeProto::kSparseTensorType: {
        *s += "sparse_tensor(";
        if (!tensor(t.sparse_tensor_type().elem_type(), t.sparse_tensor_type().has_shape(),
                    t.sparse_tensor_type().shape())) {
          return false;
        }
        *s += ")";
        return true;
      }
      case onnx::TypeProto::kSequenceType:
        *s += "seq(";
        if (!AppendTypeProto(s, t.sequence_type().elem_type(), what)) return false;
        *s += ")";
        return true;
      case onnx::TypeProto::kOptionalType:
        *s += "optional(";
        if (!AppendTypeProto(s, t.optional_type().elem_type(), what)) return false;
        *s += ")";
        return true;
      case onnx::TypeProto::kMapType: {
        const int32_t key = t.map_type().key_type();
        if (!IsValidElementType(key)) {
          Loss("map types without a key type are not kept", what);
          return false;
        }
        absl::StrAppend(s, "map(", TypeName(static_cast<ElementType>(key)), ", ");
        if (!AppendTypeProto(s, t.map_type().value_type(), what)) return false;
        *s += ")";
        return true;
      }
      default:
        Loss("opaque and unset types are not kept", what);
        return false;
    }
  }

  // `type name` or just `name` for a value without a printable type.
  std::string TypedName(const Value& v) {
    std::string type;
    if (AppendType(&type, v.type(), v.name())) {
      return absl::StrCat(type, " ", ValueName(v.name()));
    }
    return ValueName(v.name());
  }

  void NoteDocStrings(const Value& v) {
    if (!v.doc_string().empty()) Loss("value doc strings are not kept", v.name());
    if (!v.initializer_doc_string().empty()) {
      Loss("initializer doc strings are not kept", v.name());
    }
  }

  // The tensor type of a constant: element type and literal dims (`float` for a
  // scalar).
  static std::string ConstantType(const Elements& e) {
    std::string s(TypeName(e.element_type()));
    if (!e.dims().empty()) absl::StrAppend(&s, "[", absl::StrJoin(e.dims(), ","), "]");
    return s;
  }

  static Type ConstantIrType(const Elements& e) {
    std::vector<Dim> dims;
    for (int64_t d : e.dims()) dims.push_back(Dim::Literal(d));
    return Type::Tensor(e.element_type(), std::move(dims));
  }

  bool ShouldElide(const Elements& e) const {
    return !options_.full_constants && options_.max_elements >= 0 &&
           e.NumElements() > options_.max_elements;
  }

  // `float[2] w = {1.0, 2.0}`; elided: `float[2048] w` with the elision
  // comment.
  ListItem InitializerItem(const Value& v) {
    const Elements& e = *v.constant();
    // A graph input's declared type is replaced by its default's; other
    // initializers show their declared type where it is declared (outputs,
    // value_info).
    if (v.IsGraphInput() && v.type().has_value() && v.type() != ConstantIrType(e)) {
      Loss("input types that differ from their initializer are not kept", v.name());
    }
    ListItem item;
    item.text = absl::StrCat(ConstantType(e), " ", ValueName(v.name()));
    if (ShouldElide(e)) {
      item.comment = ElidedComment(e);
    } else {
      absl::StrAppend(&item.text, " = ");
      AppendElements(&item.text, e, v.name());
    }
    return item;
  }

  std::string ElidedComment(const Elements& e) {
    std::string s = absl::StrCat(kElidedMarker, " ", e.NumElements(), " values");
    const int64_t n = std::min(e.NumElements(), kElidedPreview);
    const ElementType t = e.element_type();
    if (n == 0 || t == ElementType::kComplex64 || t == ElementType::kComplex128) return s;
    s += ":";
    for (int64_t i = 0; i < n; ++i) {
      s += " ";
      if (t == ElementType::kString) {
        // Previews are comments, so the string needs no escaping, only one
        // line.
        absl::StrAppend(&s, "\"", OneLine(e.strings()[i]), "\"");
      } else if (t == ElementType::kFloat || t == ElementType::kFloat16 ||
                 t == ElementType::kBfloat16) {
        s += FormatFloating(static_cast<float>(e.GetDouble(i)));
      } else if (t == ElementType::kDouble) {
        s += FormatFloating(e.GetDouble(i));
      } else if (t == ElementType::kUint64) {
        absl::StrAppend(&s, static_cast<uint64_t>(e.GetInt64(i)));
      } else {
        absl::StrAppend(&s, e.GetInt64(i));
      }
      s += ",";
    }
    s += " ...";
    return s;
  }

  // `{v0, v1, ...}` with every value of `e`.
  void AppendElements(std::string* s, const Elements& e, absl::string_view what) {
    const ElementType t = e.element_type();
    const int64_t n = e.NumElements();
    if (!ParserReadsElementType(t)) {
      Loss("float16/bfloat16/complex constants do not parse", what);
    }
    *s += "{";
    if (t == ElementType::kString) {
      absl::Span<const std::string> strings = e.strings();
      for (int64_t i = 0; i < n; ++i) {
        if (i > 0) *s += ", ";
        *s += Quote(strings[i]);
      }
      *s += "}";
      return;
    }
    const uint8_t* data = e.ContiguousData();
    std::vector<uint8_t> copy;
    if (data == nullptr) {
      copy.resize(e.ByteSize());
      e.CopyTo(copy.data());
      data = copy.data();
    }
    const size_t size = ElementSize(t);
    bool unreadable_float = false;
    auto append_float = [&](float f) {
      unreadable_float |= !ParserCanRead(f);
      *s += FormatFloating(f);
    };
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0) *s += ", ";
      const uint8_t* p = data + i * size;
      switch (t) {
        case ElementType::kFloat:
          append_float(Load<float>(p));
          break;
        case ElementType::kFloat16:
          append_float(HalfBitsToFloat(Load<uint16_t>(p)));
          break;
        case ElementType::kBfloat16:
          append_float(Bfloat16BitsToFloat(Load<uint16_t>(p)));
          break;
        case ElementType::kComplex64:
          append_float(Load<float>(p));
          *s += ", ";
          append_float(Load<float>(p + 4));
          break;
        case ElementType::kDouble:
        case ElementType::kComplex128: {
          const int parts = t == ElementType::kDouble ? 1 : 2;
          for (int k = 0; k < parts; ++k) {
            const double d = Load<double>(p + 8 * k);
            unreadable_float |= !ParserCanRead(d);
            if (k > 0) *s += ", ";
            *s += FormatFloating(d);
          }
          break;
        }
        case ElementType::kUint8:
          absl::StrAppend(s, static_cast<int>(Load<uint8_t>(p)));
          break;
        case ElementType::kInt8:
          absl::StrAppend(s, static_cast<int>(Load<int8_t>(p)));
          break;
        case ElementType::kUint16:
          absl::StrAppend(s, static_cast<int>(Load<uint16_t>(p)));
          break;
        case ElementType::kInt16:
          absl::StrAppend(s, static_cast<int>(Load<int16_t>(p)));
          break;
        case ElementType::kInt32:
          absl::StrAppend(s, Load<int32_t>(p));
          break;
        case ElementType::kInt64:
          absl::StrAppend(s, Load<int64_t>(p));
          break;
        case ElementType::kUint32:
          absl::StrAppend(s, Load<uint32_t>(p));
          break;
        case ElementType::kUint64:
          absl::StrAppend(s, Load<uint64_t>(p));
          break;
        case ElementType::kBool:
          absl::StrAppend(s, *p != 0 ? 1 : 0);
          break;
        default:
          *s += "?";
          break;
      }
    }
    *s += "}";
    if (unreadable_float) Loss("inf, NaN and subnormal floats do not parse", what);
  }

  // `float[2] {1.0, 2.0}` or `float[2] name {...}` for a tensor attribute
  // value; elided values leave the type and put the comment in `comment`.
  std::string TensorText(const TensorAttr& t, absl::string_view what, std::string* comment) {
    std::string s = ConstantType(*t.elements);
    if (!t.name.empty()) {
      std::string name = t.name;
      if (!IsIdentifier(name)) {
        Loss("tensor attribute names that are not identifiers are changed", name);
        name = SanitizeIdentifier(name);
      }
      absl::StrAppend(&s, " ", name);
    }
    if (!t.doc_string.empty()) Loss("tensor doc strings are not kept", what);
    if (ShouldElide(*t.elements)) {
      *comment = ElidedComment(*t.elements);
    } else {
      s += " ";
      AppendElements(&s, *t.elements, what);
    }
    return s;
  }

  std::string GraphText(const Graph& g, int indent, absl::string_view fallback_name) {
    std::string saved = std::move(out_);
    out_.clear();
    AppendGraph(g, indent, fallback_name);
    std::string text = std::move(out_);
    out_ = std::move(saved);
    return text;
  }

  // `name = value` for one attribute; sets *multiline when the attribute spans
  // lines (graph bodies) or carries a comment. `indent` is where the
  // attribute's line starts.
  ListItem AttributeItem(const Attribute& a, int indent, bool* multiline) {
    ListItem item;
    const std::string& name = a.name();
    if (!IsIdentifier(name)) Loss("attribute names that are not identifiers", name);
    if (!a.doc_string.empty()) Loss("attribute doc strings are not kept", name);
    if (!a.ref_attr_name.empty()) {
      item.text = absl::StrCat(name, ": ", AttributeTypeName(a.type()), " = @", a.ref_attr_name);
      return item;
    }
    std::string& s = item.text;
    auto list = [&](size_t size, auto&& append_one) {
      if (size == 0) {
        // The 1.12 parser needs an element to tell the list's type; newer ones
        // read this.
        Loss("empty list attributes do not parse", name);
        absl::StrAppend(&s, name, ": ", AttributeTypeName(a.type()), " = []");
        return;
      }
      absl::StrAppend(&s, name, " = [");
      for (size_t k = 0; k < size; ++k) {
        if (k > 0) s += ", ";
        append_one(k);
      }
      s += "]";
    };
    switch (a.type()) {
      case AttributeType::kFloat:
        if (!ParserCanRead(a.f)) Loss("inf, NaN and subnormal floats do not parse", name);
        absl::StrAppend(&s, name, " = ", FormatFloating(a.f));
        break;
      case AttributeType::kInt:
        absl::StrAppend(&s, name, " = ", a.i);
        break;
      case AttributeType::kString:
        absl::StrAppend(&s, name, " = ", Quote(a.s));
        break;
      case AttributeType::kFloats:
        list(a.floats.size(), [&](size_t k) {
          if (!ParserCanRead(a.floats[k])) {
            Loss("inf, NaN and subnormal floats do not parse", name);
          }
          s += FormatFloating(a.floats[k]);
        });
        break;
      case AttributeType::kInts:
        list(a.ints.size(), [&](size_t k) { absl::StrAppend(&s, a.ints[k]); });
        break;
      case AttributeType::kStrings:
        list(a.strings.size(), [&](size_t k) { s += Quote(a.strings[k]); });
        break;
      case AttributeType::kTensor:
        absl::StrAppend(&s, name, " = ", TensorText(a.tensors.at(0), name, &item.comment));
        break;
      case AttributeType::kGraph:
        *multiline = true;
        absl::StrAppend(&s, name, " = ", GraphText(*a.graphs.at(0), indent, name));
        break;
      case AttributeType::kTensors:
        Loss("tensor-list attributes do not parse", name);
        absl::StrAppend(&s, name, ": tensors = [");
        for (size_t k = 0; k < a.tensors.size(); ++k) {
          std::string comment;
          absl::StrAppend(&s, k > 0 ? ", " : "", TensorText(a.tensors[k], name, &comment));
          if (!comment.empty()) absl::StrAppend(&s, " /* ", comment.substr(2), " */");
        }
        s += "]";
        break;
      case AttributeType::kGraphs:
        Loss("graph-list attributes do not parse", name);
        *multiline = true;
        absl::StrAppend(&s, name, ": graphs = [");
        for (size_t k = 0; k < a.graphs.size(); ++k) {
          absl::StrAppend(&s, k > 0 ? ", " : "",
                          GraphText(*a.graphs[k], indent, absl::StrCat(name, "_", k)));
        }
        s += "]";
        break;
      case AttributeType::kTypeProto:
      case AttributeType::kTypeProtos: {
        Loss("type-proto attributes do not parse", name);
        std::vector<std::string> types;
        for (const std::string& serialized : a.serialized_protos) {
          onnx::TypeProto proto;
          std::string text;
          const bool printed =
              proto.ParseFromString(serialized) && AppendTypeProto(&text, proto, name);
          types.push_back(printed ? std::move(text) : std::string(1, '?'));
        }
        if (a.type() == AttributeType::kTypeProto) {
          absl::StrAppend(&s, name, ": type_proto = ", types.empty() ? "?" : types[0]);
        } else {
          absl::StrAppend(&s, name, ": type_protos = [", absl::StrJoin(types, ", "), "]");
        }
        break;
      }
      case AttributeType::kSparseTensor:
      case AttributeType::kSparseTensors:
        Loss("sparse-tensor attributes do not parse", name);
        absl::StrAppend(&s, name, ": ", AttributeTypeName(a.type()), " = ?");
        break;
      case AttributeType::kUndefined:
        Loss("attributes without a type do not parse", name);
        absl::StrAppend(&s, name, " = ?");
        break;
    }
    return item;
  }

  const Model* model_;
  const PrintOptions& options_;
  std::string out_;
  absl::flat_hash_map<std::string, std::string> renamed_;
  absl::flat_hash_set<std::string> assigned_;
  absl::flat_hash_map<std::string, LossInfo> losses_;
  std::vector<std::string> loss_order_;
};

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

}  // namespace

std::string PrintModel(const Model& model, const PrintOptions& options) {
  Printer printer(&model, options);
  printer.AppendModel(model);
  return std::move(printer.out());
}

std::string PrintGraph(const Graph& graph, const PrintOptions& options) {
  Printer printer(graph.model(), options);
  printer.AppendGraph(graph, /*indent=*/0, /*fallback_name=*/"graph");
  printer.out() += "\n";
  return std::move(printer.out());
}

std::string PrintNode(const Node& node, const PrintOptions& options) {
  const Model* model = node.graph() != nullptr ? node.graph()->model() : nullptr;
  Printer printer(model, options);
  printer.AppendNode(node, /*indent=*/0);
  return std::move(printer.out());
}

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
