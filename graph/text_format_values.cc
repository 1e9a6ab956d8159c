#include "graph/text_format_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "graph/onnx_export.h"
#include "graph/text_format_syntax.h"

namespace anvil::text_format_internal {
namespace {

// How many leading values an elision comment shows.
constexpr int64_t kElidedPreview = 4;

// Debian's Abseil has its own string_view, so std::string_views from the IR go
// through this.
std::string TypeName(ElementType t) {
  const std::string_view name = ElementTypeName(t);
  return std::string(name.data(), name.size());
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

}  // namespace

std::string ValuePrinter::DimParam(const std::string& param) {
  if (IsIdentifier(param) || IsExpressionDim(param)) return param;
  Loss("dim params that are neither identifiers nor dim expressions are changed", param);
  return SanitizeIdentifier(param);
}

void ValuePrinter::AppendShape(std::string* s, const std::optional<std::vector<DimText>>& dims) {
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

bool ValuePrinter::AppendType(std::string* s, const Type& t, absl::string_view what) {
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

bool ValuePrinter::AppendTypeProto(std::string* s, const onnx::TypeProto& t,
                                   absl::string_view what) {
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

std::string ValuePrinter::TypedName(const Value& v) {
  std::string type;
  if (AppendType(&type, v.type(), v.name())) {
    return absl::StrCat(type, " ", ValueName(v.name()));
  }
  return ValueName(v.name());
}

void ValuePrinter::NoteDocStrings(const Value& v) {
  if (!v.doc_string().empty()) Loss("value doc strings are not kept", v.name());
  if (!v.initializer_doc_string().empty()) {
    Loss("initializer doc strings are not kept", v.name());
  }
}

std::string ValuePrinter::ConstantType(const Elements& e) {
  std::string s(TypeName(e.element_type()));
  if (!e.dims().empty()) absl::StrAppend(&s, "[", absl::StrJoin(e.dims(), ","), "]");
  return s;
}

Type ValuePrinter::ConstantIrType(const Elements& e) {
  std::vector<Dim> dims;
  for (int64_t d : e.dims()) dims.push_back(Dim::Literal(d));
  return Type::Tensor(e.element_type(), std::move(dims));
}

bool ValuePrinter::ShouldElide(const Elements& e) const {
  return !options().full_constants && options().max_elements >= 0 &&
         e.NumElements() > options().max_elements;
}

ListItem ValuePrinter::InitializerItem(const Value& v) {
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

std::string ValuePrinter::ElidedComment(const Elements& e) {
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

void ValuePrinter::AppendElements(std::string* s, const Elements& e, absl::string_view what) {
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
  // A float or double value (a complex value's real or imaginary part).
  auto append_float = [&](auto f) {
    unreadable_float |= !ParserCanRead(f);
    *s += FormatFloating(f);
  };
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) *s += ", ";
    const uint8_t* p = data + i * size;
    switch (t) {
      case ElementType::kFloat:
      case ElementType::kFloat16:
      case ElementType::kBfloat16:
        // Exact: every value of these types is a float, and a float is a double.
        append_float(static_cast<float>(ReadElementAsDouble(t, data, i)));
        break;
      case ElementType::kDouble:
        append_float(Load<double>(p));
        break;
      case ElementType::kComplex64:
        append_float(Load<float>(p));
        *s += ", ";
        append_float(Load<float>(p + 4));
        break;
      case ElementType::kComplex128:
        append_float(Load<double>(p));
        *s += ", ";
        append_float(Load<double>(p + 8));
        break;
      case ElementType::kUint64:
        absl::StrAppend(s, static_cast<uint64_t>(ReadElementAsInt64(t, data, i)));
        break;
      case ElementType::kUint8:
      case ElementType::kInt8:
      case ElementType::kUint16:
      case ElementType::kInt16:
      case ElementType::kInt32:
      case ElementType::kInt64:
      case ElementType::kUint32:
      case ElementType::kBool:
        // Exact: these all fit int64 (bool reads as 0 or 1).
        absl::StrAppend(s, ReadElementAsInt64(t, data, i));
        break;
      default:
        *s += "?";
        break;
    }
  }
  *s += "}";
  if (unreadable_float) Loss("inf, NaN and subnormal floats do not parse", what);
}

std::string ValuePrinter::TensorText(const TensorAttr& t, absl::string_view what,
                                     std::string* comment) {
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

ListItem ValuePrinter::AttributeItem(const Attribute& a, int indent, bool* multiline) {
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

}  // namespace anvil::text_format_internal
