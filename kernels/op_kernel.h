// OpKernel: the semantics of one ONNX op on concrete tensors, written once and used by the
// runtime (issue 4) and by constant folding (constprop).
//
// Protocol. A kernel object is created per node at plan time (CreateKernel), reading and
// validating the node's attributes once; Compute() then runs any number of times. Before each
// Compute the caller has:
//   - bound every present input as a TensorView (possibly strided; stride 0 = broadcast);
//   - run the op's ShapeHelper with the runtime builder and allocated every requested output
//     whose dims came out literal, as a dense row-major view (zeroed memory is NOT promised).
// Outputs whose size only the data decides (NonZero, Unique, NonMaxSuppression, TopK with a
// runtime k, Compress, ...) are left unallocated: the kernel calls AllocateOutput(i, dims).
// A kernel must not keep views past Compute(); it may allocate scratch memory freely.
//
// Errors: a bad attribute or unsupported attribute combination is InvalidArgument at creation,
// naming the node (Node::Describe()); an element type the kernel does not implement is
// Unimplemented naming op and type; a data error (index out of range) is InvalidArgument from
// Compute naming the node and the offending value.
#ifndef ANVIL_KERNELS_OP_KERNEL_H_
#define ANVIL_KERNELS_OP_KERNEL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/ir.h"
#include "kernels/tensor.h"
#include "kernels/tensor_view.h"

namespace anvil {

// What kernels report about the paths they took, for tests and diagnostics: a caller that wants
// them passes one in (KernelContext::set_stats, NodeExecOptions::stats) and reads it after the
// run. Kernels add to it on the thread that called Compute.
struct KernelStats {
  // Products on a weight the kernel packed at creation (simd::SgemmPackedB): MatMul and Gemm
  // with a constant B.
  int64_t packed_weight_products = 0;
  // Convolutions run as Winograd (ops/conv_winograd.h), and of those as F(2x2, 3x3).
  int64_t winograd_convolutions = 0;
  int64_t winograd_2x2_convolutions = 0;
  // Convolutions run by the blocked direct path (ops/conv_blocked.h).
  int64_t blocked_convolutions = 0;
};

class KernelContext {
 public:
  // Allocates output `output` with the given dims; its element type is the one shape inference
  // or the model gives, else `computed` (kUndefined: none known, an error).
  using Allocator = std::function<absl::StatusOr<TensorView>(int output, absl::Span<const int64_t>,
                                                             ElementType computed)>;
  using SubgraphRunner = std::function<absl::StatusOr<std::vector<Tensor>>(
      const Graph& body, const std::vector<TensorView>& inputs)>;
  // Takes output `i` as a whole value (SetOutputValue).
  using ValueSink = std::function<absl::Status(int output, Tensor value)>;
  // Per-input and per-output state, inline for the usual few (a node runs without a heap
  // allocation for them).
  using Views = absl::InlinedVector<TensorView, 4>;
  using Flags = absl::InlinedVector<bool, 4>;

  KernelContext(const Node& node, int64_t opset) : node_(node), opset_(opset) {}

  const Node& node() const { return node_; }
  int64_t opset() const { return opset_; }

  // ---- Inputs ----
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool HasInput(int i) const { return i >= 0 && i < num_inputs() && inputs_[i].present(); }
  const TensorView& input(int i) const { return inputs_[i]; }

  // ---- Outputs ----
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // Whether the graph uses output `i` (an omitted optional output need not be computed).
  bool HasOutput(int i) const { return i >= 0 && i < num_outputs() && requested_[i]; }
  bool IsOutputAllocated(int i) const { return HasOutput(i) && allocated_[i]; }
  // A preallocated output. Precondition: IsOutputAllocated(i).
  TensorView& output(int i) { return outputs_[i]; }
  // Allocates output `i` with `dims` (for data-dependent sizes; also allowed when preallocated
  // dims agree). Returns the dense view. Its element type is the inferred or declared one;
  // `computed`, the type the kernel computed (a control-flow body's result), serves when neither
  // is known, so the caller checks the view's type against it.
  absl::StatusOr<TensorView*> AllocateOutput(int i, absl::Span<const int64_t> dims,
                                             ElementType computed = ElementType::kUndefined);
  // Makes `value` output `i`, sharing its buffers: how a sequence or optional comes out (and a
  // tensor taken whole from one, SequenceAt's). Unimplemented when the caller keeps no such
  // values (set_value_sink), InvalidArgument when output `i` was preallocated.
  absl::Status SetOutputValue(int i, Tensor value);

  // Runs a subgraph (If/Loop/Scan body) with the given inputs; Unimplemented if the caller
  // provides no runner.
  absl::StatusOr<std::vector<Tensor>> RunSubgraph(const Graph& body,
                                                  const std::vector<TensorView>& inputs) const;

  // Seed for random ops without a `seed` attribute: fixed per session, so runs are repeatable.
  uint64_t default_seed() const { return default_seed_; }

  // The caller's limit on one allocation (kNoAllocationLimit: none). Outputs are allocated within
  // it by the caller; a kernel that holds results across iterations before it can allocate their
  // combination (Loop and Scan outputs, SequenceMap) checks what it holds against it
  // (CheckHeldBytes), so that many small pieces cannot exceed what one output may take.
  int64_t max_allocation_bytes() const { return max_allocation_bytes_; }
  // ResourceExhausted naming the node when `bytes` held for output `output` (what `pieces`
  // iterations produced, the last being `last`) pass max_allocation_bytes(); OK otherwise.
  absl::Status CheckHeldBytes(int output, int64_t bytes, int64_t pieces, const Tensor& last) const;

  // InvalidArgument "node 'n' (Op): <what>".
  absl::Status Error(std::string_view what) const;

  // Where the kernel reports the paths it took; null when the caller wants no report.
  KernelStats* stats() const { return stats_; }

  // ---- Set up by the caller (runtime, kernel runner) ----
  void SetInputs(absl::Span<const TensorView> inputs) {
    inputs_.assign(inputs.begin(), inputs.end());
  }
  // One entry per node output: requested (graph uses it), allocated view or empty.
  void SetOutputs(Views outputs, Flags requested, Flags allocated) {
    outputs_ = std::move(outputs);
    requested_ = std::move(requested);
    allocated_ = std::move(allocated);
  }
  void set_allocator(Allocator a) { allocator_ = std::move(a); }
  void set_value_sink(ValueSink sink) { value_sink_ = std::move(sink); }
  void set_subgraph_runner(SubgraphRunner r) { subgraph_runner_ = std::move(r); }
  void set_default_seed(uint64_t seed) { default_seed_ = seed; }
  void set_max_allocation_bytes(int64_t bytes) { max_allocation_bytes_ = bytes; }
  void set_stats(KernelStats* stats) { stats_ = stats; }
  absl::Span<const TensorView> outputs() const { return outputs_; }

 private:
  const Node& node_;
  int64_t opset_;
  Views inputs_;
  Views outputs_;
  Flags requested_;
  Flags allocated_;
  Allocator allocator_;
  ValueSink value_sink_;
  SubgraphRunner subgraph_runner_;
  uint64_t default_seed_ = 0x5eed;
  int64_t max_allocation_bytes_ = kNoAllocationLimit;
  KernelStats* stats_ = nullptr;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual absl::Status Compute(KernelContext& ctx) = 0;
  // Whether the kernel made its own copy of constant input `input` at creation (a weight packed
  // for its GEMM) and reads only that input's type and dims from then on: a runtime may release
  // the constant's bytes when no other reader needs them.
  virtual bool KeepsOwnCopyOf(int input) const { return false; }
  // Bytes of the kernel's own copies of constant inputs (packed or widened weights, made at
  // creation or on a first run): what a runtime's memory accounting attributes to the kernel.
  virtual int64_t OwnedBytes() const { return 0; }
};

// A kernel with no per-node state: Compute calls `fn`.
class FunctionKernel final : public OpKernel {
 public:
  using Fn = absl::Status (*)(KernelContext&);
  explicit FunctionKernel(Fn fn) : fn_(fn) {}
  absl::Status Compute(KernelContext& ctx) override { return fn_(ctx); }

 private:
  Fn fn_;
};

using KernelFactory = absl::StatusOr<std::unique_ptr<OpKernel>> (*)(const Node& node,
                                                                    int64_t opset);

// A factory for a stateless kernel function: `{"", "Relu", 6, 17, &Stateless<ReluFn>}`.
template <absl::Status (*Fn)(KernelContext&)>
absl::StatusOr<std::unique_ptr<OpKernel>> Stateless(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(Fn));
}

// One row of a family's table: the kernel factory of an op of the op table (graph/op_table.h),
// which says which opsets it covers.
struct KernelRule {
  const char* domain;  // "" for ai.onnx
  const char* op_type;
  KernelFactory fn;
};

// Creates the kernel for `node` at `opset`: Unimplemented "no kernel for <Op> (opset N)" when
// Anvil has none.
absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, int64_t opset);
bool HasKernel(std::string_view domain, std::string_view op_type, int64_t opset);
// Every (domain, op_type) with a kernel, sorted.
std::vector<std::pair<std::string, std::string>> ListKernelOps();

}  // namespace anvil

#endif  // ANVIL_KERNELS_OP_KERNEL_H_
