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

#include "graph/element_type.h"
#include "graph/op_schema_info.h"

namespace anvil {

// ONNX's schema of (domain, op_type) at `opset` ("" and "ai.onnx" are the default domain), or
// nullopt when ONNX defines no such op at that opset. Default-domain opsets 18 to 26, which
// libonnx 1.12 predates, come from graph/later_opsets.h. ONNX-domain ops that ONNX Runtime
// defines and libonnx does not (its contrib SimplifiedLayerNormalization) have schemas of Anvil's
// own, written from ONNX Runtime's definitions.
std::optional<OpSchemaInfo> FindOpSchema(std::string_view domain, std::string_view op_type,
                                         int64_t opset);

// The opset versions ONNX defines for `domain` ("" and "ai.onnx" are the default domain), first
// and last (1 to 26 for the default domain); nullopt for a domain libonnx does not know.
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
