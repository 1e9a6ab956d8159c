// Writes an Einsum's Program (program.h) into the graph in place of the Einsum node: standard
// ONNX ops in the forms the model's opset knows (ReduceSum axes as an attribute before opset 13,
// as an input from 13), every new value typed with its symbolic dims (so the model stays
// shape-inferred), the Einsum's output value's name, type and graph-output slot kept.
//
// Quality rules the emitted nodes keep (the property test checks them):
//  - no identity Transpose, and no Transpose of a Transpose: one that reads an operand produced
//    by a Transpose node composes with it (a composed identity reads that node's input);
//  - a Transpose that only moves dims of size 1 becomes a Reshape; no Reshape to the same shape;
//  - Reshape targets are constants using 0 (copy the input dim) and one -1 (infer) where the
//    dims are dynamic; only a second truly dynamic dim is computed at run time, from
//    Shape -> Gather of an operand (Max of several where einsum broadcasts).
// On failure nothing is changed and the error says why.
#ifndef ANVIL_EINSUM_EMIT_GRAPH_H_
#define ANVIL_EINSUM_EMIT_GRAPH_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "einsum/program.h"
#include "graph/ir.h"

namespace anvil::einsum {

// Nodes added per op type, for the pass's statistics.
using EmittedOps = std::map<std::string, int64_t>;

// Replaces `einsum` (whose graph is `einsum.graph()`) by `program`; `opset` is the model's
// default-domain opset. Adds the emitted op counts to `*ops`.
absl::Status EmitProgram(const Program& program, Node& einsum, int64_t opset, EmittedOps* ops);

}  // namespace anvil::einsum

#endif  // ANVIL_EINSUM_EMIT_GRAPH_H_
