// ShapeInferenceEngine: the runtime's shape inference (seed: runtime-shape-engine). Given the
// tensors bound to a plan's graph inputs, it computes every value's element type and dims by
// running each node's ShapeHelper along the schedule with the runtime builder (concrete dims;
// values of small integer tensors, so Shape -> Gather -> Concat -> Reshape chains resolve
// without running them; constants' shapes and contents fixed at construction).
//
//  - It caches the last inputs' key (element types and dims of every input, plus the contents of
//    the small integer inputs that shape computations may read): the same key costs one
//    comparison and no inference (shape_inference_runs() does not move).
//  - A new key re-runs the ShapeHelpers and reports which values changed size (changed()), so
//    that the memory planner re-plans only when something it places did.
//  - Values whose dims only data can decide (NonZero, a Reshape target computed by a kernel,
//    If/Loop/Scan outputs) and everything downstream of them are "unknown" here: the executor
//    runs their ShapeHelpers on the actual data when it gets there and puts them on the heap.
#ifndef ANVIL_RUNTIME_SHAPE_ENGINE_H_
#define ANVIL_RUNTIME_SHAPE_ENGINE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/tensor_view.h"
#include "runtime/plan.h"

namespace anvil {

struct ValueShape {
  bool known = false;  // type and dims determined before execution
  ElementType type = ElementType::kUndefined;
  Shape dims;
  int64_t bytes = -1;  // NumElements * ElementSize when known, else -1
  // Dense contents in `type`'s layout when shape computations know them (small integer tensors);
  // empty otherwise. Constants point at their data instead (see data()).
  std::vector<uint8_t> values;
  const void* data = nullptr;  // contents for the runtime builder, or nullptr
};

class ShapeInferenceEngine {
 public:
  explicit ShapeInferenceEngine(const GraphPlan& plan);

  // `inputs[k]` is the tensor bound to plan.input_slots()[k] (dense). Returns true when shapes
  // were inferred again, false when the key equals the last call's (nothing done). A
  // contradiction the ShapeHelpers find (e.g. an incompatible broadcast) is InvalidArgument
  // naming the node; the previous state is then discarded.
  absl::StatusOr<bool> Infer(absl::Span<const TensorView> inputs);

  const ValueShape& shape(int slot) const { return shapes_[slot]; }
  // Slots whose size (or known-ness) differs from before the last re-inference.
  const std::vector<int>& changed() const { return changed_; }
  // How many times shapes were inferred (not counting calls answered from the cache).
  int64_t shape_inference_runs() const { return runs_; }
  // Steps whose outputs are not all known (run their ShapeHelper on data at execution).
  bool StepIsDynamic(int step) const { return dynamic_steps_[step]; }

 private:
  bool SameKey(absl::Span<const TensorView> inputs) const;
  void StoreKey(absl::Span<const TensorView> inputs);
  absl::Status Propagate(absl::Span<const TensorView> inputs);

  const GraphPlan& plan_;
  std::vector<ValueShape> shapes_;
  std::vector<bool> dynamic_steps_;
  std::vector<int> changed_;
  int64_t runs_ = 0;
  bool has_key_ = false;
  // The key: per input, type + dims, then contents of shape-relevant inputs.
  std::vector<ElementType> key_types_;
  std::vector<Shape> key_dims_;
  std::vector<std::vector<uint8_t>> key_contents_;
};

// Whether the runtime builder exposes the contents of a tensor of `type` with `elements`
// elements as values (integer and bool tensors small enough to be shapes, axes or pads): graph
// inputs of this kind are part of the shape cache key.
bool IsShapeRelevant(ElementType type, int64_t elements);

}  // namespace anvil

#endif  // ANVIL_RUNTIME_SHAPE_ENGINE_H_
