// ONNX's operator schemas (from libonnx), for the code that asks about them: passes that create
// nodes (whether an op exists at an opset, which element types it accepts) and the schema checker
// (graph/schema_check.h), which checks every node against its op's definition. The one file that
// reads libonnx's schema registry is op_schema.cc; everything else asks here.
#ifndef ANVIL_GRAPH_OP_SCHEMA_H_
#define ANVIL_GRAPH_OP_SCHEMA_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/attribute.h"
#include "graph/element_type.h"

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

// ONNX's schema of (domain, op_type) at `opset` ("" and "ai.onnx" are the default domain), or
// nullopt when ONNX defines no such op at that opset. Default-domain opsets 18 to 23, which
// libonnx 1.12 predates, come from graph/later_opsets.h. ONNX-domain ops that ONNX Runtime
// defines and libonnx does not (its contrib SimplifiedLayerNormalization) have schemas of Anvil's
// own, written from ONNX Runtime's definitions.
std::optional<OpSchemaInfo> FindOpSchema(std::string_view domain, std::string_view op_type,
                                         int64_t opset);

// The opset versions ONNX defines for `domain` ("" and "ai.onnx" are the default domain), first
// and last (1 to 23 for the default domain); nullopt for a domain libonnx does not know.
std::optional<std::pair<int, int>> OnnxOpsetRange(std::string_view domain);

// Whether ONNX (or Anvil's own schemas, as FindOpSchema) has a schema of (domain, op_type) at
// `opset` ("" and "ai.onnx" are the default domain).
bool OpSchemaExists(std::string_view domain, std::string_view op_type, int64_t opset);

// Whether ONNX's schema of (domain, op_type) at `opset` exists and lets input `input_index` be a
// tensor of `type` ("" and "ai.onnx" are the default domain).
bool OpAcceptsInputType(std::string_view domain, std::string_view op_type, int64_t opset,
                        int input_index, ElementType type);

}  // namespace anvil

#endif  // ANVIL_GRAPH_OP_SCHEMA_H_
