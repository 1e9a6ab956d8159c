// The reference evaluator of the Tensor IR: runs a Module on concrete tensors by walking its
// statements, slowly and simply, with every subscript bounds-checked. It is the oracle the
// native code of the next stage is compared with, and the engine of `anvil-run
// --backend=tir-eval`.
//
// Semantics are expr.h's and stmt.h's, lane by lane through scalar.h (the simplifier folds with
// the same functions). Kernel intrinsics run the bound ONNX node with the runtime's node
// executor and kernel registry (exec/node_executor.h); control-flow nodes get the reference
// interpreter for their bodies. `gemm` calls the Highway GEMM the runtime's MatMul uses.
//
// Errors are statuses, never crashes: an out-of-range subscript names the tensor, the subscripts
// and the dims; an allocation over the limit names the tensor and its size; a failed Assert
// gives its message; a kernel's error is passed on.
#ifndef ANVIL_LOWER_EVALUATOR_EVALUATOR_H_
#define ANVIL_LOWER_EVALUATOR_EVALUATOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "lower/ir/module.h"

namespace anvil::lower {

struct EvaluatorOptions {
  // The largest single allocation (a local tensor, the workspace, a kernel's output).
  int64_t max_allocation_bytes = kNoAllocationLimit;
  // Seed of random ops without a seed attribute (kernel calls).
  uint64_t seed = 0x5eed;
};

// Statistics of the last run.
struct EvaluatorStats {
  int64_t statements = 0;       // statements executed
  int64_t kernel_calls = 0;     // kernel intrinsics run
  int64_t gemm_calls = 0;
  // Of gemm_calls, those on a constant weight packed at load.
  int64_t packed_gemm_calls = 0;
  int64_t local_allocations = 0;
  int64_t workspace_bytes = 0;  // of the last run's workspace (0: none)
};

class Evaluator {
 public:
  // `module` must outlive the evaluator (kernel bindings point into its source model).
  explicit Evaluator(const tir::Module& module, EvaluatorOptions options = {});
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Runs the entry function: `inputs` bind the entry's graph inputs in order; returns the graph
  // outputs in order. Kernels are created on first use and kept for later runs.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

  const EvaluatorStats& stats() const { return stats_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  EvaluatorStats stats_;
};

// One-shot convenience.
absl::StatusOr<std::vector<Tensor>> EvaluateModule(const tir::Module& module,
                                                   const std::vector<Tensor>& inputs,
                                                   const EvaluatorOptions& options = {});

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EVALUATOR_EVALUATOR_H_
