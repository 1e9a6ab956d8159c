// GraphPlan: a graph compiled for execution, built once when a Session loads. It fixes
//   - the schedule: the graph's nodes in topological order, one Step each, with its OpKernel
//     (CreateKernel: a missing kernel fails the load, naming op and opset) and its ShapeFn;
//   - slots: one index per value the graph reads or defines (graph inputs, constants, node
//     outputs, and values captured from enclosing graphs), so execution indexes vectors instead
//     of hashing names;
//   - liveness: the step defining each slot and the last step reading it, where a node whose
//     subgraphs read an outer value counts as reading it;
//   - which steps may reuse an input's memory: elementwise ops that can overwrite a dying input
//     in place, and reshape-like ops whose output is the input's bytes under new dims (kAlias);
//   - a nested plan per subgraph (If branches, Loop/Scan bodies).
// Constant nodes are evaluated here, once, and become constant slots like initializers.
// Shapes and memory are not part of the plan: they depend on the inputs of a run
// (ShapeInferenceEngine, MemoryPlanner).
#ifndef ANVIL_RUNTIME_PLAN_H_
#define ANVIL_RUNTIME_PLAN_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "shape/shape_helper.h"

namespace anvil {

enum class SlotKind {
  kInput,     // a graph input (for subgraphs: a body input)
  kConstant,  // an initializer not overridden by an input, or a Constant node's output
  kComputed,  // a node output
  kCaptured,  // a value of an enclosing graph that this (sub)graph reads
};

struct Slot {
  const Value* value = nullptr;
  SlotKind kind = SlotKind::kComputed;
  int producer = -1;  // step defining it (kComputed)
  int last_use = -1;  // last step reading it; -1 when no step does
  bool graph_output = false;
  // For kConstant: the data (a view of the initializer's bytes, or a tensor owning them).
  Tensor constant;
  TensorView constant_view;
};

// How a step may share memory with its input 0 (see the file comment).
enum class ReuseKind { kNone, kInPlace, kAlias };

struct Step {
  const Node* node = nullptr;
  int64_t opset = 0;
  std::unique_ptr<OpKernel> kernel;
  ShapeFn shape_fn = nullptr;  // nullptr for If/Loop/Scan: their bodies decide output shapes
  std::vector<int> inputs;     // slot per input slot; -1 for an omitted optional input
  std::vector<int> outputs;    // slot per output; -1 for an omitted optional output
  std::vector<int> captured;   // slots of this graph that the node's subgraphs read
  ReuseKind reuse = ReuseKind::kNone;
  // Slots whose last reader is this step (freed after it when they live on the heap).
  std::vector<int> dying;
};

class GraphPlan {
 public:
  // Compiles `graph` of `model` (the main graph or a subgraph; values it reads from enclosing
  // graphs become kCaptured slots). The model must outlive the plan; the graph's node order must
  // be topological.
  //
  // With release_copied_constants, an initializer whose every reader's kernel copied it at
  // creation (OpKernel::KeepsOwnCopyOf: weights packed for a GEMM) - and that no subgraph or
  // graph output reads - is released as soon as its last reader's kernel exists: the slot keeps
  // the type and dims (data null), and the model's initializer becomes a placeholder of that
  // type and dims whose values must not be read (reading them aborts, naming it). The model is
  // changed although passed const: the caller owns it and asked for this.
  static absl::StatusOr<std::unique_ptr<GraphPlan>> Build(const Model& model, const Graph& graph,
                                                          bool release_copied_constants = false);

  const Graph& graph() const { return *graph_; }
  const std::vector<Slot>& slots() const { return slots_; }
  const std::vector<Step>& steps() const { return steps_; }
  int num_slots() const { return static_cast<int>(slots_.size()); }
  // Slots of the graph inputs, in order (including inputs that are also initializers).
  const std::vector<int>& input_slots() const { return input_slots_; }
  const std::vector<int>& output_slots() const { return output_slots_; }
  // The slot of `v` in this graph, or -1.
  int SlotOf(const Value* v) const {
    auto it = slot_of_.find(v);
    return it == slot_of_.end() ? -1 : it->second;
  }
  // The plan of a subgraph of one of this graph's nodes, or nullptr.
  const GraphPlan* SubgraphPlan(const Graph* g) const {
    auto it = subplans_.find(g);
    return it == subplans_.end() ? nullptr : it->second.get();
  }
  // Number of steps in this plan and all nested ones.
  int64_t TotalSteps() const;

  // Initializer bytes released by a Build with release_copied_constants.
  int64_t released_bytes() const { return released_bytes_; }

  // Where the constants of this plan and its subplans are, in bytes: initializers read from a
  // file mapping (external data), initializers and Constant values in memory, and the kernels'
  // own copies (OpKernel::OwnedBytes). Released initializers count nowhere.
  struct ConstantBytes {
    int64_t mapped = 0;
    int64_t in_memory = 0;
    int64_t kernel_copies = 0;
  };
  ConstantBytes constant_bytes() const;

 private:
  GraphPlan() = default;
  absl::Status Init(const Model& model, const Graph& graph);
  int AddSlot(const Value* v, SlotKind kind);
  void ReleaseConstant(int slot);

  const Graph* graph_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  std::vector<int> input_slots_;
  std::vector<int> output_slots_;
  absl::flat_hash_map<const Value*, int> slot_of_;
  absl::flat_hash_map<const Graph*, std::unique_ptr<GraphPlan>> subplans_;
  bool release_copied_constants_ = false;
  int64_t released_bytes_ = 0;
};

// How `op` (default domain) may reuse its input 0's memory.
ReuseKind ReuseKindOf(const Node& node);

}  // namespace anvil

#endif  // ANVIL_RUNTIME_PLAN_H_
