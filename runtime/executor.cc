#include "runtime/executor.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "kernels/op_kernel.h"

namespace anvil {
const SlotValue* Frame::Lookup(const Value* v) const {
  for (const Frame* f = this; f != nullptr; f = f->parent_) {
    const int slot = f->plan_.SlotOf(v);
    if (slot >= 0 && f->values_[slot].view.present()) {
      return &f->values_[slot];
    }
  }
  return nullptr;
}

absl::Status Frame::BindConstantsAndCaptures() {
  for (int slot = 0; slot < plan_.num_slots(); ++slot) {
    const Slot& s = plan_.slots()[slot];
    if (s.kind == SlotKind::kConstant) {
      values_[slot].view = s.constant_view;
    } else if (s.kind == SlotKind::kCaptured) {
      const SlotValue* outer = parent_ == nullptr ? nullptr : parent_->Lookup(s.value);
      if (outer == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat("subgraph ", Quoted(plan_.graph().name()), " reads ",
                         Quoted(s.value->name()), ", which has no value in the enclosing graphs"));
      }
      values_[slot] = *outer;
    }
  }
  return absl::OkStatus();
}

Tensor MaterializeSlot(const SlotValue& value) {
  const Tensor& owner = value.owner;
  if (owner.defined() && value.view.data == owner.data() && value.view.type == owner.type() &&
      value.view.dims == owner.dims() && value.view.Contiguous()) {
    return owner;
  }
  return Tensor::CopyOf(value.view);
}

absl::Status ExecuteFrame(Frame& frame, const StaticLayout* layout,
                          const ExecutionOptions& options) {
  const GraphPlan& plan = frame.plan();
  std::vector<SlotValue>& values = frame.values();
  std::vector<TensorView> planned;
  const std::vector<Step>& steps = plan.steps();
  std::vector<int64_t>* step_nanos = options.step_nanos;
  ExecutionOptions inner = options;
  inner.step_nanos = nullptr;  // subgraphs are timed as part of their node
  inner.outputs = nullptr;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    const Node& node = *step.node;
    const auto start = step_nanos != nullptr ? std::chrono::steady_clock::now()
                                             : std::chrono::steady_clock::time_point();
    if (layout != nullptr && (*layout->alias_steps)[s]) {
      // The output is the input's bytes: a view with the output's dims, no kernel.
      const SlotValue& in = values[step.inputs[0]];
      SlotValue& out = values[step.outputs[0]];
      out.owner = in.owner;
      out.view = TensorView::Dense(in.view.type, in.view.data,
                                   layout->shapes->shape(step.outputs[0]).dims);
    } else {
      KernelContext::Views inputs(step.inputs.size());
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        if (step.inputs[i] < 0) continue;
        inputs[i] = values[step.inputs[i]].view;
        if (!inputs[i].present()) {
          return absl::InternalError(
              absl::StrCat(node.Describe(), ": input '", node.input(i)->name(), "' has no value"));
        }
      }
      auto heap = [&](int i, ElementType type,
                      absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
        const int slot = step.outputs[i];
        if (options.bound_outputs != nullptr && plan.slots()[slot].graph_output) {
          if (auto bound = options.bound_outputs->find(slot);
              bound != options.bound_outputs->end()) {
            const Tensor& t = bound->second;
            if (!t.is_tensor() || t.type() != type ||
                !std::equal(t.dims().begin(), t.dims().end(), dims.begin(), dims.end())) {
              return absl::InvalidArgumentError(
                  absl::StrCat(node.Describe(), ": output ", i, " '", node.output(i)->name(),
                               "' is bound to a tensor of ", AsAbsl(ElementTypeName(t.type())),
                               DimsToString(t.dims()), "; the run makes ",
                               AsAbsl(ElementTypeName(type)), DimsToString(dims)));
            }
            SlotValue& out = values[slot];
            out.owner = t;
            out.view = t.view();
            return out.view;
          }
        }
        if (layout != nullptr && layout->reserved != nullptr &&
            (*layout->reserved)[slot].data != nullptr) {
          ArenaRegion& region = (*layout->reserved)[slot];
          absl::StatusOr<int64_t> bytes = CheckedByteSize(dims, ElementSize(type));
          if (!bytes.ok() || *bytes > region.bytes) {
            return absl::InternalError(
                absl::StrCat(node.Describe(), ": output ", i, " '", node.output(i)->name(), "' is ",
                             DimsToString(dims), ", beyond the ", region.bytes,
                             " bytes planned for its dims' upper bounds"));
          }
          region.used = *bytes;
          SlotValue& out = values[slot];
          out.owner = Tensor();
          out.view = TensorView::Dense(type, region.data, dims);
          return out.view;
        }
        TensorRecycler* recycler = options.outputs != nullptr && plan.slots()[slot].graph_output
                                       ? options.outputs
                                       : options.frame_buffers;
        absl::StatusOr<Tensor> tensor =
            recycler != nullptr ? recycler->Allocate(slot, type, dims, options.max_allocation_bytes)
                                : Tensor::Allocate(type, dims, options.max_allocation_bytes);
        if (!tensor.ok()) {
          return absl::Status(
              tensor.status().code(),
              absl::StrCat(node.Describe(), ": output ", i, " '", node.output(i)->name(), "' ",
                           tensor.status().message()));
        }
        SlotValue& out = values[step.outputs[i]];
        out.owner = *std::move(tensor);
        out.view = out.owner.view();
        if (options.heap_tensors != nullptr) ++*options.heap_tensors;
        return out.view;
      };
      // Outputs whose shapes the shape engine knew go into the arena (or the heap) now; the node
      // executor runs the ShapeHelper on the actual inputs for the others.
      const int n = static_cast<int>(step.outputs.size());
      planned.assign(n, TensorView{});
      for (int i = 0; i < n; ++i) {
        const int slot = step.outputs[i];
        if (slot < 0 || layout == nullptr || !layout->shapes->shape(slot).known) continue;
        const ValueShape& shape = layout->shapes->shape(slot);
        const TensorView& arena = (*layout->arena_views)[slot];
        if (arena.data != nullptr) {
          values[slot].owner = Tensor();
          values[slot].view = arena;
          planned[i] = arena;
        } else {
          ANVIL_ASSIGN_OR_RETURN(planned[i], heap(i, shape.type, shape.dims));
        }
      }
      NodeExecOptions exec;
      exec.default_seed = options.seed;
      exec.max_allocation_bytes = options.max_allocation_bytes;
      // Sequences, optionals and tensors a kernel hands over whole live on the heap.
      exec.value_sink = [&](int i, Tensor value) -> absl::Status {
        SlotValue& out = values[step.outputs[i]];
        out.owner = std::move(value);
        out.view = out.owner.view();
        return absl::OkStatus();
      };
      // Only If/Loop/Scan (the steps without a ShapeFn) run bodies: other nodes need no runner
      // (whose captures would take a heap allocation per node).
      if (step.shape_fn == nullptr)
        exec.subgraph_runner =
            [&frame, &plan, &inner](
                const Graph& body,
                const std::vector<TensorView>& args) -> absl::StatusOr<std::vector<Tensor>> {
          const GraphPlan* sub = plan.SubgraphPlan(&body);
          if (sub == nullptr) {
            return absl::InternalError(
                absl::StrCat("subgraph ", Quoted(body.name()), " has no execution plan"));
          }
          ExecutionOptions body_options = inner;
          if (inner.body_buffers != nullptr)
            body_options.frame_buffers = &(*inner.body_buffers)[sub];
          return RunSubgraphPlan(*sub, frame, args, body_options);
        };
      ANVIL_RETURN_IF_ERROR(ExecuteNode(
          node, step.opset, *step.kernel, step.shape_fn, inputs, planned,
          [&](int i, ElementType type, absl::Span<const int64_t> dims)
              -> absl::StatusOr<TensorView> { return heap(i, type, dims); },
          exec));
    }
    // Heap tensors nobody reads any more go now; arena views are simply forgotten.
    for (int slot : step.dying) values[slot] = SlotValue{};
    if (step_nanos != nullptr) {
      (*step_nanos)[s] += std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - start)
                              .count();
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> RunSubgraphPlan(const GraphPlan& plan, const Frame& parent,
                                                    const std::vector<TensorView>& inputs,
                                                    const ExecutionOptions& options) {
  const std::vector<int>& input_slots = plan.input_slots();
  if (inputs.size() != input_slots.size()) {
    return absl::InvalidArgumentError(absl::StrCat("subgraph ", Quoted(plan.graph().name()),
                                                   " takes ", input_slots.size(), " inputs, given ",
                                                   inputs.size()));
  }
  Frame frame(plan, &parent);
  for (size_t k = 0; k < inputs.size(); ++k) {
    SlotValue& v = frame.values()[input_slots[k]];
    // ShapeHelpers read values from dense data only; scan slices are strided views.
    if (inputs[k].Contiguous()) {
      v.view = inputs[k];
    } else {
      v.owner = Tensor::CopyOf(inputs[k]);
      v.view = v.owner.view();
    }
  }
  ANVIL_RETURN_IF_ERROR(frame.BindConstantsAndCaptures());
  ANVIL_RETURN_IF_ERROR(ExecuteFrame(frame, nullptr, options));
  std::vector<Tensor> outputs;
  outputs.reserve(plan.output_slots().size());
  for (int slot : plan.output_slots()) {
    const SlotValue& v = frame.values()[slot];
    if (!v.view.present()) {
      return absl::InternalError(absl::StrCat("subgraph ", Quoted(plan.graph().name()), " output '",
                                              plan.slots()[slot].value->name(), "' has no value"));
    }
    outputs.push_back(MaterializeSlot(v));
  }
  return outputs;
}

}  // namespace anvil
