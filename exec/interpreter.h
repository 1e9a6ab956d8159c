// A reference interpreter: runs a graph node by node with RunNode (exec/node_executor.h), the
// same kernels the runtime uses. For constant folding of control flow (If/Loop/Scan bodies) and for
// checking the runtime; not a fast path (no memory planning, kernels created per node per call).
#ifndef ANVIL_EXEC_INTERPRETER_H_
#define ANVIL_EXEC_INTERPRETER_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace anvil {

// Resolves a value the graph captures from an enclosing graph; nullptr when unknown.
using OuterValues = std::function<const Tensor*(const Value*)>;

// Runs `graph` of `model`: `inputs` bind the graph inputs in order (initializers that are also
// inputs take the given tensor when one is given). Returns the graph outputs in order.
absl::StatusOr<std::vector<Tensor>> InterpretGraph(const Model& model, const Graph& graph,
                                                   const std::vector<Tensor>& inputs,
                                                   const OuterValues& outer = nullptr);

// A subgraph runner (for If/Loop/Scan kernels) that interprets the body, reading captured values
// through `outer`. `model` must outlive it.
KernelContext::SubgraphRunner InterpreterSubgraphRunner(const Model& model, OuterValues outer);

}  // namespace anvil

#endif  // ANVIL_EXEC_INTERPRETER_H_
