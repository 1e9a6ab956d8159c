// Checks a model against ONNX's operator schemas (libonnx's, read through graph/op_schema.h) and
// Anvil's supported ranges: what the structural verifier (graph/verifier.h) adds so that a node
// with the wrong arity or attributes is refused before any pass or kernel reads it.
//
// Rules, each reported in one line naming the node, its op and the rule:
//  - the model: ir_version within [kMinIrVersion, kMaxIrVersion]; each opset import of an ONNX
//    domain within the versions ONNX defines (ai.onnx 1..17 with libonnx 1.12);
//  - a node of an ONNX domain ("", ai.onnx, ai.onnx.ml, ai.onnx.preview.training): its op has a
//    schema at the model's opset; input and output counts within the schema's range; no empty
//    slot for a required (single) input or output; every attribute known to the schema, of the
//    schema's type; every required attribute present; Constant has exactly one value attribute;
//    each typed input of a type its parameter allows, inputs and outputs sharing a type variable
//    of one type.
//    Tolerated (a warning, as ONNX Runtime loads such models): an output of a type its parameter
//    does not allow (old exporters' int64 Constants at opsets 1-8).
//    Nodes of other domains (custom ops) are not checked here: the runtime refuses the ones it
//    has no kernel for.
//  - a declared tensor type: no negative dim, and a byte size that fits in int64.
#ifndef ANVIL_GRAPH_SCHEMA_CHECK_H_
#define ANVIL_GRAPH_SCHEMA_CHECK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/ir.h"

namespace anvil {

inline constexpr int64_t kMinIrVersion = 1;
// IR versions after libonnx's own (8) add element types and fields Anvil reads or refuses
// one by one; the opset, not the IR version, decides what an op means.
inline constexpr int64_t kMaxIrVersion = 13;

// ir_version and opset imports. FailedPrecondition, e.g. "model: ir_version 999 is not
// supported (Anvil reads ONNX IR versions 1 to 11)".
absl::Status CheckModelVersions(const Model& model);

// A declared type: negative dims and sizes beyond int64 are errors. `what` names the value in
// the message ("value 'x'").
absl::Status CheckDeclaredType(const Type& type, const std::string& what);

// Checks nodes against their schemas, caching the schema of each (domain, op) it meets. One
// checker serves one verification of one model (it keeps views of the nodes' op names).
class SchemaChecker {
 public:
  explicit SchemaChecker(const Model& model);
  ~SchemaChecker();
  SchemaChecker(const SchemaChecker&) = delete;
  SchemaChecker& operator=(const SchemaChecker&) = delete;

  // FailedPrecondition with the rule broken, without the node's name (the caller prefixes
  // where), e.g. "Relu takes 1 input, has 3". Tolerated breaches are appended to `warnings`
  // (when given) in the same form.
  absl::Status CheckNode(const Node& node, std::vector<std::string>* warnings = nullptr);

 private:
  struct Cache;
  const Model& model_;
  std::unique_ptr<Cache> cache_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_SCHEMA_CHECK_H_
