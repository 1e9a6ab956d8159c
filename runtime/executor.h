// The executor: runs a GraphPlan's steps on concrete tensors. Internal to the runtime (the
// Session drives it); subgraph bodies (If/Loop/Scan) run through it too, recursively.
//
// A Frame holds one execution's value of every slot: a view (where the data is) and, for data
// living on the heap, the Tensor owning it. The main graph runs with a StaticLayout — the shape
// engine's results and the arena views of the memory plan — so a step whose output shapes are
// known runs its kernel straight into preallocated memory. Without a layout (subgraphs), and for
// steps the shape engine could not resolve, the step's ShapeHelper runs on the actual inputs
// and outputs go on the heap; kernels allocate data-dependent outputs themselves.
#ifndef ANVIL_RUNTIME_EXECUTOR_H_
#define ANVIL_RUNTIME_EXECUTOR_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "runtime/memory_planner.h"
#include "runtime/plan.h"
#include "runtime/shape_engine.h"

namespace anvil {

struct SlotValue {
  TensorView view;  // type kUndefined: no value (yet, or any more)
  Tensor owner;     // holds heap data the view points into, when it does
};

class Frame {
 public:
  Frame(const GraphPlan& plan, const Frame* parent)
      : plan_(plan), parent_(parent), values_(plan.num_slots()) {}

  const GraphPlan& plan() const { return plan_; }
  std::vector<SlotValue>& values() { return values_; }
  const std::vector<SlotValue>& values() const { return values_; }
  // The current value of `v` here or in an enclosing frame; nullptr when none has one.
  const SlotValue* Lookup(const Value* v) const;
  // Binds constants (and captured values, from the enclosing frames).
  absl::Status BindConstantsAndCaptures();

 private:
  const GraphPlan& plan_;
  const Frame* parent_;
  std::vector<SlotValue> values_;
};

// What the main graph's execution knows ahead of time.
struct StaticLayout {
  const ShapeInferenceEngine* shapes = nullptr;
  // Per slot: its view in the arena (data nullptr when the slot is not placed there).
  const std::vector<TensorView>* arena_views = nullptr;
  // Per step: runs no kernel; output 0 is input 0's bytes under output 0's dims.
  const std::vector<bool>* alias_steps = nullptr;
  // Per slot (or null): where an output of data-dependent dims goes instead of the heap, planned
  // for its upper bound; a larger output is an internal error (the bounds are promises).
  std::vector<ArenaRegion>* reserved = nullptr;
};

struct ExecutionOptions {
  uint64_t seed = 0x5eed;
  int64_t* heap_tensors = nullptr;  // counts tensors allocated on the heap, when set
  // Per step of the frame's plan: nanoseconds spent, accumulated, when set (main graph only;
  // a subgraph's time counts toward the node running it).
  std::vector<int64_t>* step_nanos = nullptr;
  // No tensor allocated on the heap may be larger (kNoAllocationLimit: no limit).
  int64_t max_allocation_bytes = kNoAllocationLimit;
  // When set, the frame's graph outputs are allocated through it (keyed by slot), so that a
  // session run in a loop reuses the buffers of results its caller has dropped. Main graph
  // only.
  TensorRecycler* outputs = nullptr;
  // When set, every heap tensor of subgraph bodies (If/Loop/Scan/SequenceMap) is allocated
  // through the recycler of its body's plan, keyed by slot: a Loop's iterations reuse the
  // buffers the previous ones dropped instead of allocating each step anew (a body's shapes
  // may change between iterations, so the bodies have no static arena).
  // (A node map: a nested body's insertion must not move the recycler an outer body uses.)
  absl::node_hash_map<const GraphPlan*, TensorRecycler>* body_buffers = nullptr;
  // The recycler of the frame being run (a body's), from body_buffers.
  TensorRecycler* frame_buffers = nullptr;
  // Graph outputs the caller binds to tensors of its own (by slot; main graph only): the node
  // producing one writes into that tensor, which must have the output's type and dims.
  const absl::flat_hash_map<int, Tensor>* bound_outputs = nullptr;
};

// Runs every step of `frame.plan()`; inputs, constants and captures must be bound.
absl::Status ExecuteFrame(Frame& frame, const StaticLayout* layout,
                          const ExecutionOptions& options);

// Runs subgraph `plan` (a body) with `inputs` bound to its inputs, inside `parent`; returns its
// outputs as tensors of their own.
absl::StatusOr<std::vector<Tensor>> RunSubgraphPlan(const GraphPlan& plan, const Frame& parent,
                                                    const std::vector<TensorView>& inputs,
                                                    const ExecutionOptions& options);

// A tensor holding `value`'s elements: its owner when the view is exactly the owner's dense
// data, else a copy.
Tensor MaterializeSlot(const SlotValue& value);

}  // namespace anvil

#endif  // ANVIL_RUNTIME_EXECUTOR_H_
