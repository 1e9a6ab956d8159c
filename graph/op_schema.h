// Questions about ONNX's operator schemas (from libonnx), for passes that create nodes: whether
// an op exists at an opset and which element types it accepts. Issue 11's schema verifier will
// read the same schemas.
#ifndef ANVIL_GRAPH_OP_SCHEMA_H_
#define ANVIL_GRAPH_OP_SCHEMA_H_

#include <cstdint>
#include <string_view>

#include "graph/element_type.h"

namespace anvil {

// Whether ONNX has a schema of (domain, op_type) at `opset` ("" and "ai.onnx" are the default
// domain).
bool OpSchemaExists(std::string_view domain, std::string_view op_type, int64_t opset);

// Whether ONNX's schema of (domain, op_type) at `opset` exists and lets input `input_index` be a
// tensor of `type` ("" and "ai.onnx" are the default domain).
bool OpAcceptsInputType(std::string_view domain, std::string_view op_type, int64_t opset,
                        int input_index, ElementType type);

}  // namespace anvil

#endif  // ANVIL_GRAPH_OP_SCHEMA_H_
