// OpSchemaInfo: an op's definition at one opset (operands, their type constraints, attributes),
// as graph/op_schema.h answers it and graph/later_opsets.h revises it. Its own header, so that
// the two share it without including each other.
#ifndef ANVIL_GRAPH_OP_SCHEMA_INFO_H_
#define ANVIL_GRAPH_OP_SCHEMA_INFO_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "graph/attribute.h"

namespace anvil {

// ONNX's definition of an op at one opset, copied out of libonnx's schema.
struct OpSchemaInfo {
  // One formal input or output.
  struct Parameter {
    enum class Option { kSingle, kOptional, kVariadic };
    std::string name;
    // Its type variable ("T"), or the one type it has when it has no variable ("tensor(int64)").
    std::string type_str;
    Option option = Option::kSingle;
    // Variadic only: every value of one type (Concat's inputs; not Loop's).
    bool homogeneous = true;
    // ONNX's names of the types it accepts ("tensor(float)", "seq(tensor(int64))"), sorted;
    // empty when the schema does not constrain it.
    std::vector<std::string> allowed_types;
  };
  struct Attribute {
    AttributeType type = AttributeType::kUndefined;
    bool required = false;
  };

  int since_version = 0;
  int min_input = 0;
  int max_input = 0;  // std::numeric_limits<int>::max() when unbounded
  int min_output = 0;
  int max_output = 0;
  std::vector<Parameter> inputs;
  std::vector<Parameter> outputs;
  std::map<std::string, Attribute, std::less<>> attributes;  // by name
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_OP_SCHEMA_INFO_H_
