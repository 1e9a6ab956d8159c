// The one node executor: how a node runs on concrete tensors, for the runtime's executor, constant
// folding, the reference interpreter and kernel tests alike.
//
// Per node: output i goes into `planned[i]` when the caller already placed it (the runtime, when
// its shape engine knew the shape: arena or heap); otherwise the op's ShapeHelper runs on the
// actual inputs (their dims, and their data where it is dense: a Reshape target a kernel computed)
// and every output whose dims come out literal is made by `make_output`; the kernel makes the
// rest (data-dependent sizes) through `make_output` too, typed by the ShapeHelper or else by the
// node's declared type. A requested output the kernel did not produce is an internal error.
#ifndef ANVIL_EXEC_NODE_EXECUTOR_H_
#define ANVIL_EXEC_NODE_EXECUTOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "shape/shape_helper.h"

namespace anvil {

struct NodeExecOptions {
  // Runs If/Loop/Scan bodies; without one those ops fail with Unimplemented.
  KernelContext::SubgraphRunner subgraph_runner;
  // Seed of random ops without a `seed` attribute.
  uint64_t default_seed = 0x5eed;
  // Runs the ShapeHelper even when every output is planned, and fails (naming the node) when it
  // finds a contradiction or dims other than a planned output's: for callers whose plan was made
  // over symbolic dims that this run's inputs may not satisfy (the Tensor IR evaluator).
  bool check_planned_dims = false;
  // When set, receives whether the ShapeHelper (if it ran) read an input's contents as a constant
  // (RuntimeBuilder::read_input_contents): a caller that skips the check for operands it saw pass
  // before may only do so when it did not.
  bool* shape_read_input_contents = nullptr;
  // Where outputs that kernels set whole go (sequences, optionals, shared tensors:
  // KernelContext::SetOutputValue); without one those kernels fail with Unimplemented.
  KernelContext::ValueSink value_sink;
  // The caller's allocation limit (kernels/tensor.h; kNoAllocationLimit: none): RunNode's outputs
  // are allocated within it, and kernels that hold results across iterations (Loop, Scan,
  // SequenceMap) refuse to hold more (KernelContext::max_allocation_bytes).
  int64_t max_allocation_bytes = kNoAllocationLimit;
  // When set, the kernels add what they report about the paths they took (KernelStats).
  KernelStats* stats = nullptr;
};

// Makes output `i` (dense, `dims`) wherever the caller keeps its memory.
using OutputFactory = std::function<absl::StatusOr<TensorView>(int output, ElementType type,
                                                               absl::Span<const int64_t> dims)>;

// Runs `kernel` (created for `node` at `opset`). `inputs[i]` is input slot i (type kUndefined for
// an omitted optional input); `planned` is empty or has one view per output (type kUndefined: not
// planned); `shape_fn` may be nullptr (If/Loop/Scan: their kernels allocate).
absl::Status ExecuteNode(const Node& node, int64_t opset, OpKernel& kernel, ShapeFn shape_fn,
                         absl::Span<const TensorView> inputs, absl::Span<const TensorView> planned,
                         const OutputFactory& make_output, const NodeExecOptions& options = {});

// ExecuteNode with the node's kernel created and its ShapeHelper found on every call: for
// constant folding, tests and one-off nodes, not for hot loops.
absl::Status RunNodeOnViews(const Node& node, int64_t opset, std::vector<TensorView> inputs,
                            const OutputFactory& make_output, const NodeExecOptions& options = {});

// The same on tensors: `inputs[i]` is input slot i (undefined when omitted); one Tensor per node
// output comes back (undefined for outputs the graph omits), each allocated within
// options.max_allocation_bytes.
absl::StatusOr<std::vector<Tensor>> RunNode(const Node& node, int64_t opset,
                                            const std::vector<Tensor>& inputs,
                                            const NodeExecOptions& options = {});

}  // namespace anvil

#endif  // ANVIL_EXEC_NODE_EXECUTOR_H_
