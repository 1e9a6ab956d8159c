// Fixing a model's input dims before it is prepared or compiled: what `anvil-compile
// --shape NAME=D0,D1,...` and the anvil_cc_model rule's `input_shapes` do, so that one model file
// compiles into libraries specialised for given shapes.
//
// Contract: every name is a graph input that is not an initializer, given with the input's rank
// (when known). A literal declared dim must equal the given one. A symbolic dim (dim_param) names
// one value throughout the model, so fixing it fixes that symbol in every input that uses it; the
// same symbol given two different values is an error. An unknown dim takes the given value. Any
// violation is InvalidArgument naming the input, the axis and both dims; nothing is changed then.
#ifndef ANVIL_GRAPH_INPUT_DIMS_H_
#define ANVIL_GRAPH_INPUT_DIMS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil {

using InputDims = std::map<std::string, std::vector<int64_t>>;

// Parses "NAME=D0,D1,..." (dims >= 0; "NAME=" is a scalar) into `dims`; InvalidArgument on a
// malformed entry or a name given twice.
absl::Status ParseInputDims(const std::string& text, InputDims* dims);

absl::Status FixInputDims(Model& model, const InputDims& dims);

}  // namespace anvil

#endif  // ANVIL_GRAPH_INPUT_DIMS_H_
