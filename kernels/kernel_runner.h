// RunNode: runs one node on concrete tensors the way the runtime does — ShapeHelper (runtime
// builder) for output shapes, allocation, kernel Compute — for kernel tests, constant folding and
// the runtime's reference path. Not the fast path: it creates the kernel on every call.
#ifndef ANVIL_KERNELS_KERNEL_RUNNER_H_
#define ANVIL_KERNELS_KERNEL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"

namespace anvil {

struct RunNodeOptions {
  // Runs subgraphs for If/Loop/Scan; without one those ops fail with Unimplemented.
  KernelContext::SubgraphRunner subgraph_runner;
  uint64_t default_seed = 0x5eed;
};

// `inputs[i]` is input slot i (an undefined Tensor for an omitted optional input). Returns one
// Tensor per node output (undefined for outputs the graph omits).
absl::StatusOr<std::vector<Tensor>> RunNode(const Node& node, int64_t opset,
                                            const std::vector<Tensor>& inputs,
                                            const RunNodeOptions& options = {});

// Creates output `i` (dense, `dims`) wherever the caller keeps its memory.
using OutputFactory = std::function<absl::StatusOr<TensorView>(int output, ElementType type,
                                                               absl::Span<const int64_t> dims)>;

// The same over views of memory the caller owns (an input's type is kUndefined when omitted);
// outputs come from `make_output`. Inputs must be dense for ShapeHelpers to read their values.
absl::Status RunNodeOnViews(const Node& node, int64_t opset, const std::vector<TensorView>& inputs,
                            const OutputFactory& make_output, const RunNodeOptions& options = {});

}  // namespace anvil

#endif  // ANVIL_KERNELS_KERNEL_RUNNER_H_
