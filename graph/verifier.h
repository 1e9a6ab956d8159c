// Structural verifier for the IR: what every pass must preserve.
//
// Checks, for the main graph and every subgraph:
//  - SSA: every value name is defined once in the model (graph input, initializer, or one node
//    output), and each node output's producer link points back at the node.
//  - Order: a node's inputs are defined before it — by earlier nodes of its graph, by the
//    graph's inputs or initializers, or, for a subgraph, by the enclosing graphs before the node
//    that owns the subgraph. Graph outputs are defined.
//  - Use lists: every input slot has exactly one matching use entry and every use entry points
//    at an input slot that reads the value; no use refers to an erased value.
//  - Types: an initializer's declared tensor type agrees with its payload (element type and
//    dims); declared element types are valid.
//  - Scoping: each subgraph's parent is the graph of the node that owns it; subgraphs nest at
//    most kMaxSubgraphDepth levels (graph/limits.h).
//  - Domains: every node's domain is among the model's opset imports.
//  - Schemas (graph/schema_check.h): supported ir_version and opsets; each node of an ONNX domain
//    against its op's schema (arity, attributes, types); declared dims not negative, sizes within
//    int64.
// Errors are FailedPrecondition and name the graph, the node (op and name or index) and what is
// wrong, e.g. "graph 'main': node 'mm' (MatMul): input 1 'w' is used before it is defined".
#ifndef ANVIL_GRAPH_VERIFIER_H_
#define ANVIL_GRAPH_VERIFIER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/ir.h"

namespace anvil {

// Breaches of the ONNX spec that runtimes tolerate (see schema_check.h) are not errors; each is
// appended to `warnings` (when given) as one line naming graph, node and rule.
absl::Status VerifyModel(const Model& model, std::vector<std::string>* warnings = nullptr);

}  // namespace anvil

#endif  // ANVIL_GRAPH_VERIFIER_H_
