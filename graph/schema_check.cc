#include "graph/schema_check.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/later_opsets.h"
#include "graph/op_schema.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

absl::Status Fail(std::string message) { return absl::FailedPreconditionError(std::move(message)); }

// The registry's name of a domain of ONNX's own, or nullptr for a custom domain.
const char* OnnxDomain(std::string_view domain) {
  if (domain.empty() || domain == "ai.onnx") return "";
  if (domain == "ai.onnx.ml") return "ai.onnx.ml";
  if (domain == "ai.onnx.preview.training") return "ai.onnx.preview.training";
  return nullptr;
}

std::string Plural(int64_t n, const char* word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

// "1 input", "2 to 3 inputs", "at least 1 input".
std::string ArityRange(int min, int max, const char* word) {
  if (min == max) return Plural(min, word);
  if (max == std::numeric_limits<int>::max()) return absl::StrCat("at least ", Plural(min, word));
  return absl::StrCat(min, " to ", max, " ", word, "s");
}

const char* AttributeTypeName(int type) {
  switch (type) {
    case 1:
      return "float";
    case 2:
      return "int";
    case 3:
      return "string";
    case 4:
      return "tensor";
    case 5:
      return "graph";
    case 6:
      return "floats";
    case 7:
      return "ints";
    case 8:
      return "strings";
    case 9:
      return "tensors";
    case 10:
      return "graphs";
    case 11:
      return "sparse_tensor";
    case 12:
      return "sparse_tensors";
    case 13:
      return "type_proto";
    case 14:
      return "type_protos";
    default:
      return "undefined";
  }
}

// ONNX's name of a value's type ("tensor(float)"), or "" when it is not known or not one a
// schema constrains here (no type, undefined element type, sequences and other kinds). An element
// type code ONNX does not define is an error.
absl::StatusOr<std::string> OnnxTypeString(const Type& type) {
  switch (type.kind()) {
    case Type::Kind::kTensor:
    case Type::Kind::kSparseTensor: {
      if (type.element_type() == ElementType::kUndefined) return std::string();
      if (!IsValidElementType(static_cast<int32_t>(type.element_type()))) {
        return Fail(absl::StrCat("element type code ", static_cast<int32_t>(type.element_type()),
                                 " is not an ONNX data type"));
      }
      // Anvil's element type names are ONNX's.
      const char* kind = type.kind() == Type::Kind::kTensor ? "tensor(" : "sparse_tensor(";
      return absl::StrCat(kind, AsAbsl(ElementTypeName(type.element_type())), ")");
    }
    case Type::Kind::kOther: {
      // Kept as bytes: a kind Anvil does not model, or an element type it does not know.
      onnx::TypeProto proto;
      if (proto.ParseFromString(type.serialized_proto()) && proto.has_tensor_type() &&
          proto.tensor_type().elem_type() != 0) {
        return Fail(absl::StrCat("element type code ", proto.tensor_type().elem_type(),
                                 " is not an ONNX data type"));
      }
      return std::string();
    }
    case Type::Kind::kSequence:
    case Type::Kind::kOptional: {
      ANVIL_ASSIGN_OR_RETURN(const std::string elem, OnnxTypeString(type.elem()));
      if (elem.empty()) return std::string();
      return absl::StrCat(type.is_sequence() ? "seq(" : "optional(", elem, ")");
    }
    case Type::Kind::kNone:
      return std::string();
  }
  return std::string();
}

// Every typed input is of a type its formal parameter allows, and parameters sharing a type
// variable (T in Add(A: T, B: T) -> C: T) agree. Untyped values are not judged. An output of a
// type its parameter does not allow is a warning, not an error: runtimes type a node's outputs by
// the op's inference (Constant-1 takes its tensor's type) and load such models, as old exporters
// wrote them (int64 Constants at opsets 1-8); it binds no type variable.
absl::Status CheckTypeConstraints(const Node& node, const OpSchemaInfo& schema, int inputs,
                                  int outputs, std::vector<std::string>* warnings) {
  absl::flat_hash_map<std::string, std::pair<std::string, std::string>> bound;  // T -> type, who
  auto check = [&](const std::vector<OpSchemaInfo::Parameter>& formals, const char* what, int index,
                   const Value* value, bool is_output) -> absl::Status {
    if (value == nullptr || formals.empty()) return absl::OkStatus();
    const OpSchemaInfo::Parameter& formal = formals[std::min<size_t>(index, formals.size() - 1)];
    absl::StatusOr<std::string> type = OnnxTypeString(value->type());
    const std::string who = absl::StrCat(what, " ", index, " ", Quoted(value->name()));
    if (!type.ok()) {
      return Fail(absl::StrCat(node.op_type(), " ", who, ": ", type.status().message()));
    }
    if (type->empty()) return absl::OkStatus();
    const std::vector<std::string>& allowed = formal.allowed_types;  // sorted
    if (!allowed.empty() && !std::binary_search(allowed.begin(), allowed.end(), *type)) {
      std::string breach =
          absl::StrCat(node.op_type(), "-", schema.since_version, " ", who, " is ", *type, ", but ",
                       formal.type_str, " allows ", absl::StrJoin(allowed, ", "));
      if (!is_output) return Fail(std::move(breach));
      if (warnings != nullptr) warnings->push_back(std::move(breach));
      return absl::OkStatus();
    }
    // Variadic heterogeneous parameters (Concat's inputs are homogeneous, SequenceConstruct's
    // too; Loop's are not) bind nothing.
    if (formal.option == OpSchemaInfo::Parameter::Option::kVariadic && !formal.homogeneous) {
      return absl::OkStatus();
    }
    auto [it, inserted] = bound.try_emplace(formal.type_str, *type, who);
    if (!inserted && it->second.first != *type) {
      return Fail(absl::StrCat(node.op_type(), "-", schema.since_version, " ", it->second.second,
                               " is ", it->second.first, " and ", who, " is ", *type,
                               ", but both are ", formal.type_str));
    }
    return absl::OkStatus();
  };
  for (int i = 0; i < inputs; ++i) {
    ANVIL_RETURN_IF_ERROR(check(schema.inputs, "input", i, node.input(i), false));
  }
  for (int i = 0; i < outputs; ++i) {
    ANVIL_RETURN_IF_ERROR(check(schema.outputs, "output", i, node.output(i), true));
  }
  return absl::OkStatus();
}

}  // namespace

struct SchemaChecker::Cache {
  // The schema of each (domain, op) at the model's opset, nullopt for an op it does not define.
  // Keyed by views of node strings, which outlive one verification.
  absl::flat_hash_map<std::pair<std::string_view, std::string_view>, std::optional<OpSchemaInfo>>
      schemas;
};

SchemaChecker::SchemaChecker(const Model& model) : model_(model), cache_(new Cache) {}
SchemaChecker::~SchemaChecker() = default;

absl::Status CheckModelVersions(const Model& model) {
  if (model.ir_version < kMinIrVersion || model.ir_version > kMaxIrVersion) {
    return Fail(absl::StrCat("model: ir_version ", model.ir_version,
                             " is not supported (Anvil reads ONNX IR versions ", kMinIrVersion,
                             " to ", kMaxIrVersion, ")"));
  }
  for (const OpsetImport& opset : model.opset_imports) {
    const char* domain = OnnxDomain(opset.domain);
    if (domain == nullptr) {
      if (opset.version < 1) {
        return Fail(absl::StrCat("model: opset import of domain ", Quoted(opset.domain),
                                 " has version ", opset.version, " (versions start at 1)"));
      }
      continue;
    }
    const std::optional<std::pair<int, int>> range = OnnxOpsetRange(domain);
    if (!range) continue;
    if (opset.version < range->first || opset.version > range->second) {
      return Fail(absl::StrCat("model: opset ", opset.version, " of domain '",
                               opset.domain.empty() ? "ai.onnx" : opset.domain,
                               "' is not supported (Anvil reads versions ", range->first, " to ",
                               range->second, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDeclaredType(const Type& type, const std::string& what) {
  if (!type.is_tensor() || !type.has_shape()) return absl::OkStatus();
  std::vector<int64_t> literal;
  literal.reserve(type.rank());
  for (int64_t axis = 0; axis < type.rank(); ++axis) {
    const Dim& d = type.shape()[axis];
    if (!d.is_literal()) continue;
    if (*d.value < 0) {
      return Fail(absl::StrCat(what, " is declared ", type.ToString(), ": dim ", axis, " is ",
                               *d.value, " (dims are at least 0)"));
    }
    literal.push_back(*d.value);
  }
  const int64_t element_size =
      type.element_type() == ElementType::kUndefined || type.element_type() == ElementType::kString
          ? 1
          : static_cast<int64_t>(ElementSize(type.element_type()));
  if (absl::StatusOr<int64_t> bytes = CheckedByteSize(literal, element_size); !bytes.ok()) {
    return Fail(
        absl::StrCat(what, " is declared ", type.ToString(), ": ", bytes.status().message()));
  }
  return absl::OkStatus();
}

absl::Status SchemaChecker::CheckNode(const Node& node, std::vector<std::string>* warnings) {
  const char* domain = OnnxDomain(node.domain());
  if (domain == nullptr) return absl::OkStatus();
  const int64_t opset = model_.OpsetVersion(node.domain());
  if (opset < 0) return absl::OkStatus();  // the verifier reports the missing import

  auto [it, inserted] = cache_->schemas.try_emplace({node.domain(), node.op_type()});
  if (inserted) it->second = FindOpSchema(domain, node.op_type(), opset);
  const std::string& op = node.op_type();
  if (!it->second) {
    if (domain[0] == '\0') {
      if (const int since = UndefinedLaterOp(op); since != 0 && opset >= since) {
        return absl::UnimplementedError(absl::StrCat(
            op, " (ONNX opset ", since, ") is an ONNX op that Anvil does not implement"));
      }
    }
    const std::optional<OpSchemaInfo> later = FindOpSchema(domain, op, kLastOnnxOpset);
    if (later) {
      return Fail(absl::StrCat(op, " is not defined at opset ", opset, " (it exists from opset ",
                               later->since_version, ")"));
    }
    return Fail(absl::StrCat(Quoted(op), " is not an operator of domain ",
                             Quoted(node.domain().empty() ? "ai.onnx" : node.domain())));
  }

  // Arity: trailing omitted optionals are tolerated past the maximum, and count as given slots
  // toward the minimum, as in ONNX's checker (Loop("", "") has the two inputs Loop needs).
  const OpSchemaInfo& schema = *it->second;
  using Option = OpSchemaInfo::Parameter::Option;
  int inputs = node.num_inputs();
  while (inputs > schema.min_input && node.input(inputs - 1) == nullptr) --inputs;
  int outputs = node.num_outputs();
  while (outputs > 0 && node.output(outputs - 1) == nullptr) --outputs;
  if (inputs < schema.min_input || inputs > schema.max_input) {
    return Fail(absl::StrCat(op, "-", schema.since_version, " takes ",
                             ArityRange(schema.min_input, schema.max_input, "input"), ", has ",
                             inputs));
  }
  if (outputs < schema.min_output || outputs > schema.max_output) {
    return Fail(absl::StrCat(op, "-", schema.since_version, " has ",
                             ArityRange(schema.min_output, schema.max_output, "output"),
                             ", the node declares ", outputs));
  }
  for (int i = 0; i < inputs && i < static_cast<int>(schema.inputs.size()); ++i) {
    if (node.input(i) == nullptr && schema.inputs[i].option == Option::kSingle) {
      return Fail(
          absl::StrCat(op, " input ", i, " '", schema.inputs[i].name, "' is required but empty"));
    }
  }
  for (int i = 0; i < outputs && i < static_cast<int>(schema.outputs.size()); ++i) {
    if (node.output(i) == nullptr && schema.outputs[i].option == Option::kSingle) {
      return Fail(
          absl::StrCat(op, " output ", i, " '", schema.outputs[i].name, "' is required but empty"));
    }
  }

  ANVIL_RETURN_IF_ERROR(CheckTypeConstraints(node, schema, inputs, outputs, warnings));

  // Attributes: known names of the right type; the required ones present.
  for (const Attribute& attr : node.attributes()) {
    if (!attr.ref_attr_name.empty()) continue;  // bound by a function's caller
    auto found = schema.attributes.find(attr.name());
    if (found == schema.attributes.end()) {
      return Fail(
          absl::StrCat(op, "-", schema.since_version, " has no attribute ", Quoted(attr.name())));
    }
    const int expected = static_cast<int>(found->second.type);
    if (static_cast<int>(attr.type()) != expected) {
      return Fail(absl::StrCat(op, " attribute ", Quoted(attr.name()), " must be ",
                               AttributeTypeName(expected), ", is ",
                               AttributeTypeName(static_cast<int>(attr.type()))));
    }
  }
  for (const auto& [name, known] : schema.attributes) {
    if (known.required && node.FindAttribute(name) == nullptr) {
      return Fail(absl::StrCat(op, " requires attribute '", name, "'"));
    }
  }
  if (op == "Constant" && domain[0] == '\0') {
    int values = 0;
    for (const Attribute& attr : node.attributes()) {
      values += attr.name() == "value" || attr.name().rfind("value_", 0) == 0 ||
                attr.name() == "sparse_value";
    }
    if (values != 1) {
      return Fail(
          absl::StrCat("Constant needs exactly one of value, value_float(s), "
                       "value_int(s), value_string(s), sparse_value; has ",
                       values));
    }
  }
  return absl::OkStatus();
}

}  // namespace anvil
