#include "graph/op_schema.h"

#include <algorithm>
#include <string>
#include <vector>

#include "graph/later_opsets.h"
#include "onnx/defs/schema.h"

namespace anvil {
namespace {

const onnx::OpSchema* Lookup(std::string_view domain, std::string_view op_type, int64_t opset) {
  const std::string onnx_domain = domain == "ai.onnx" ? "" : std::string(domain);
  return onnx::OpSchemaRegistry::Schema(std::string(op_type), static_cast<int>(opset), onnx_domain);
}

OpSchemaInfo::Parameter ToParameter(const onnx::OpSchema::FormalParameter& formal) {
  OpSchemaInfo::Parameter p;
  p.name = formal.GetName();
  p.type_str = formal.GetTypeStr();
  switch (formal.GetOption()) {
    case onnx::OpSchema::Single:
      p.option = OpSchemaInfo::Parameter::Option::kSingle;
      break;
    case onnx::OpSchema::Optional:
      p.option = OpSchemaInfo::Parameter::Option::kOptional;
      break;
    case onnx::OpSchema::Variadic:
      p.option = OpSchemaInfo::Parameter::Option::kVariadic;
      break;
  }
  p.homogeneous = formal.GetIsHomogeneous();
  // The type constraint's types when the parameter has a type variable, else its one type.
  for (onnx::DataType t : formal.GetTypes()) p.allowed_types.push_back(*t);
  std::sort(p.allowed_types.begin(), p.allowed_types.end());
  return p;
}

// Schemas of ops in the ONNX domain that ONNX Runtime defines and libonnx does not: its contrib
// SimplifiedLayerNormalization (the RMS norm that ONNX Runtime's model builder writes into every
// decoder LLM), registered in the ONNX domain from opset 1.
std::optional<OpSchemaInfo> OwnSchema(std::string_view domain, std::string_view op_type) {
  if ((domain != "" && domain != "ai.onnx") || op_type != "SimplifiedLayerNormalization") {
    return std::nullopt;
  }
  using Parameter = OpSchemaInfo::Parameter;
  const std::vector<std::string> floats = {"tensor(bfloat16)", "tensor(double)", "tensor(float)",
                                           "tensor(float16)"};
  OpSchemaInfo info;
  info.since_version = 1;
  info.min_input = info.max_input = 2;
  info.min_output = 1;
  info.max_output = 2;
  info.inputs = {Parameter{"X", "T", Parameter::Option::kSingle, true, floats},
                 Parameter{"scale", "V", Parameter::Option::kSingle, true, floats}};
  info.outputs = {Parameter{"Y", "V", Parameter::Option::kSingle, true, floats},
                  Parameter{"inv_std_var",
                            "U",
                            Parameter::Option::kOptional,
                            true,
                            {"tensor(bfloat16)", "tensor(double)", "tensor(float)"}}};
  info.attributes = {{"axis", {AttributeType::kInt, false}},
                     {"epsilon", {AttributeType::kFloat, false}},
                     {"stash_type", {AttributeType::kInt, false}}};
  return info;
}

OpSchemaInfo FromLibonnx(const onnx::OpSchema& schema) {
  OpSchemaInfo info;
  info.since_version = schema.since_version();
  info.min_input = schema.min_input();
  info.max_input = schema.max_input();
  info.min_output = schema.min_output();
  info.max_output = schema.max_output();
  for (const auto& formal : schema.inputs()) info.inputs.push_back(ToParameter(formal));
  for (const auto& formal : schema.outputs()) info.outputs.push_back(ToParameter(formal));
  for (const auto& [name, attr] : schema.attributes()) {
    // AttributeType has AttributeProto's codes.
    info.attributes[name] = {static_cast<AttributeType>(attr.type), attr.required};
  }
  return info;
}

}  // namespace

std::optional<OpSchemaInfo> FindOpSchema(std::string_view domain, std::string_view op_type,
                                         int64_t opset) {
  const bool onnx_domain = domain.empty() || domain == "ai.onnx";
  if (onnx_domain && opset > kLastOnnxOpset) return std::nullopt;
  // libonnx answers with the op's last definition up to opset 17; opsets 18 to 26 revise it.
  const onnx::OpSchema* schema = Lookup(domain, op_type, opset);
  OpSchemaInfo info;
  if (schema != nullptr) info = FromLibonnx(*schema);
  if (onnx_domain && opset > kLastLibonnxOpset && ReviseToLaterOpset(op_type, opset, info)) {
    return info;
  }
  if (schema == nullptr) return opset >= 1 ? OwnSchema(domain, op_type) : std::nullopt;
  return info;
}

std::optional<std::pair<int, int>> OnnxOpsetRange(std::string_view domain) {
  if (domain.empty() || domain == "ai.onnx") return std::make_pair(1, kLastOnnxOpset);
  if (domain == "ai.onnx.ml") return std::make_pair(1, kLastOnnxMlOpset);
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto range = ranges.find(std::string(domain));
  if (range == ranges.end()) return std::nullopt;
  return range->second;
}

bool OpSchemaExists(std::string_view domain, std::string_view op_type, int64_t opset) {
  return FindOpSchema(domain, op_type, opset).has_value();
}

bool OpAcceptsInputType(std::string_view domain, std::string_view op_type, int64_t opset,
                        int input_index, ElementType type) {
  const std::optional<OpSchemaInfo> schema = FindOpSchema(domain, op_type, opset);
  if (!schema || input_index < 0 || input_index >= static_cast<int>(schema->inputs.size())) {
    return false;
  }
  const std::vector<std::string>& allowed = schema->inputs[input_index].allowed_types;
  const std::string wanted = "tensor(" + std::string(ElementTypeName(type)) + ")";
  return std::binary_search(allowed.begin(), allowed.end(), wanted);
}

}  // namespace anvil
