#include "graph/op_schema.h"

#include <string>

#include "onnx/defs/schema.h"

namespace anvil {

bool OpSchemaExists(std::string_view domain, std::string_view op_type, int64_t opset) {
  const std::string onnx_domain = domain == "ai.onnx" ? "" : std::string(domain);
  return onnx::OpSchemaRegistry::Schema(std::string(op_type), static_cast<int>(opset),
                                        onnx_domain) != nullptr;
}

bool OpAcceptsInputType(std::string_view domain, std::string_view op_type, int64_t opset,
                        int input_index, ElementType type) {
  const std::string onnx_domain = domain == "ai.onnx" ? "" : std::string(domain);
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(std::string(op_type), static_cast<int>(opset), onnx_domain);
  if (schema == nullptr || input_index < 0 ||
      input_index >= static_cast<int>(schema->inputs().size())) {
    return false;
  }
  const onnx::OpSchema::FormalParameter& input = schema->inputs()[input_index];
  const std::string wanted = "tensor(" + std::string(ElementTypeName(type)) + ")";
  for (const auto& constraint : schema->typeConstraintParams()) {
    if (constraint.type_param_str != input.GetTypeStr()) continue;
    for (const std::string& allowed : constraint.allowed_type_strs) {
      if (allowed == wanted) return true;
    }
    return false;
  }
  // Not a type parameter: the input names its one type directly.
  for (const auto* allowed : input.GetTypes()) {
    if (*allowed == wanted) return true;
  }
  return false;
}

}  // namespace anvil
