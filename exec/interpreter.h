// A reference interpreter: runs a graph node by node with RunNode (exec/node_executor.h), the
// same kernels the runtime uses. For constant folding of control flow (If/Loop/Scan bodies) and for
// checking the runtime; not a fast path (no memory planning, kernels created per node per call).
#ifndef ANVIL_EXEC_INTERPRETER_H_
#define ANVIL_EXEC_INTERPRETER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace anvil {

// Resolves a value the graph captures from an enclosing graph; nullptr when unknown.
using OuterValues = std::function<const Tensor*(const Value*)>;

// Sees every value a run computes or binds: graph inputs and node outputs, in subgraphs too (a
// Loop body's at every iteration). An error stops the run and is returned.
using ValueObserver = std::function<absl::Status(const Value& value, const Tensor& tensor)>;

// Runs `graph` of `model`: `inputs` bind the graph inputs in order (initializers that are also
// inputs take the given tensor when one is given). Returns the graph outputs in order. Every
// tensor a node makes, in the graph or its subgraphs, is allocated within `max_allocation_bytes`
// (kernels/tensor.h), as in the runtime.
absl::StatusOr<std::vector<Tensor>> InterpretGraph(
    const Model& model, const Graph& graph, const std::vector<Tensor>& inputs,
    const OuterValues& outer = nullptr, const ValueObserver& observer = nullptr,
    int64_t max_allocation_bytes = kNoAllocationLimit);

// A subgraph runner (for If/Loop/Scan kernels) that interprets the body, reading captured values
// through `outer`, within `max_allocation_bytes`. `model` must outlive it.
KernelContext::SubgraphRunner InterpreterSubgraphRunner(
    const Model& model, OuterValues outer, ValueObserver observer = nullptr,
    int64_t max_allocation_bytes = kNoAllocationLimit);

}  // namespace anvil

#endif  // ANVIL_EXEC_INTERPRETER_H_
