// LazyOp: the kernel of a folded elementwise node, kept (with a private copy of the node: op type,
// domain, attributes, name for errors) after the node itself is gone, so that a lazy constant can
// compute its elements whenever they are read. Semantics are the kernel registry's: a lazy fold
// and an eager one run the same kernel on the same values.
//
// Contract of Run: every input is a 1-D view of n elements (dense, or stride 0 for a scalar) and
// the output a dense 1-D view of n elements: for an op whose output element i depends only on
// element i of each broadcast input (the op table's kElementwise trait) that computes exactly the
// elements the full-size kernel call would.
#ifndef ANVIL_CONSTPROP_LAZY_OP_H_
#define ANVIL_CONSTPROP_LAZY_OP_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor_view.h"

namespace anvil {

class LazyOp {
 public:
  // Copies `node` (which must have one output) and creates its kernel at `opset`.
  static absl::StatusOr<std::shared_ptr<const LazyOp>> Create(const Node& node, int64_t opset);

  const Node& node() const { return *node_; }
  absl::Status Run(std::vector<TensorView> inputs, TensorView output) const;

 private:
  LazyOp() = default;

  std::unique_ptr<Model> holder_;  // owns the copy of the node
  const Node* node_ = nullptr;
  int64_t opset_ = 0;
  std::unique_ptr<OpKernel> kernel_;
  mutable std::mutex mu_;  // Compute is not const: one evaluation at a time
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_LAZY_OP_H_
