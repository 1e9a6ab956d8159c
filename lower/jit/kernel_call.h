// One kernel call of compiled code (the Tensor IR's `kernel` intrinsic), run on the host's side
// of the ABI (emit/abi.h): the JIT's host and the AOT kernel host (emit/aot_host.h) both run
// their calls here, so a node behaves the same under either.
//
// The operands' buffers become views of the node's inputs and of the outputs the code planned;
// ExecuteNode checks the inputs against the op's ShapeHelper and runs the kernel; sequences and
// optionals pass as Tensor objects (KernelCallSite::values); outputs the
// code left unallocated (data == null: dims only the data decides) are allocated here, their
// data and dims written back into the operand, and kept in `allocations` until the caller's run
// ends. Subgraphs (If, Loop, Scan) run on the interpreter over `source`, seeing the captured
// operands as the enclosing values they stand for.
#ifndef ANVIL_LOWER_JIT_KERNEL_CALL_H_
#define ANVIL_LOWER_JIT_KERNEL_CALL_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "graph/element_type.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "lower/emit/abi.h"
#include "shape/shape_helper.h"

namespace anvil::lower {

// Where a call's operands go: per operand, the node's input slot (>= 0) or -1 - its output
// slot, then one operand per captured enclosing value; and every operand's element type.
struct KernelCallSite {
  const Node* node = nullptr;
  int64_t opset = 0;
  std::vector<int> slots;
  std::vector<const Value*> captures;
  std::vector<ElementType> types;  // slots.size() + captures.size()
  // Per operand (empty: none): a value operand (a sequence or optional, tir::ScalarKind::kValue),
  // whose buffer's data points at a Tensor: the caller's for an input, one in `allocations` for
  // an output the call sets.
  std::vector<bool> values;
  // Filled by ResolveSite from node and opset, so a call does not look them up.
  bool resolved = false;
  bool has_subgraphs = false;
  ShapeFn shape_fn = nullptr;
};

// Fills the site's resolved fields; call once node and opset are set.
void ResolveSite(KernelCallSite& site);

// What a site's last passing ShapeHelper check saw: every operand's dims and the values of its
// small integer inputs (those ShapeHelpers see as values). A later call with the same key gets the
// same answer, so it skips the check; calls whose check read other contents (Resize scales)
// are not remembered. One per site and host, used by one call at a time (a host makes its kernel
// calls one after another: nests that call kernels are never parallel loops).
struct ShapeCheckMemo {
  bool valid = false;
  std::vector<int64_t> key;
  int64_t skipped = 0;  // checks skipped so far
};

// `source` is the model the node belongs to (needed only by nodes with subgraphs);
// `max_allocation_bytes` bounds each output allocated here (0: no bound); `memo` (optional) is
// the site's ShapeCheckMemo.
absl::Status RunKernelCall(const KernelCallSite& site, OpKernel& kernel, const Model* source,
                           AnvilBuffer* const* operands, int32_t count,
                           int64_t max_allocation_bytes, std::deque<Tensor>& allocations,
                           ShapeCheckMemo* memo = nullptr);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_JIT_KERNEL_CALL_H_
