#include "lower/jit/kernel_call.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "base/status_macros.h"
#include "exec/interpreter.h"
#include "exec/node_executor.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil::lower {

void ResolveSite(KernelCallSite& site) {
  site.has_subgraphs = !site.node->Subgraphs().empty();
  site.shape_fn = FindShapeFn(site.node->domain(), site.node->op_type(), site.opset);
  site.resolved = true;
}

namespace {

// The memo key of a call whose outputs are all planned: per operand its rank and dims, and for an
// input of an integer type small enough that ShapeHelpers see its values (kMaxTrackedValues), the
// values. An operand's rank first makes the concatenation unambiguous.
void MakeMemoKey(const KernelCallSite& site, AnvilBuffer* const* operands, int32_t count,
                 absl::InlinedVector<int64_t, 48>& key) {
  key.push_back(count);
  for (int32_t k = 0; k < count; ++k) {
    const AnvilBuffer* b = operands[k];
    key.push_back(b->rank);
    int64_t n = 1;  // the element count, saturating above kMaxTrackedValues
    for (int32_t d = 0; d < b->rank; ++d) {
      key.push_back(b->dims[d]);
      n = n > kMaxTrackedValues || b->dims[d] > kMaxTrackedValues ? kMaxTrackedValues + 1
                                                                  : n * b->dims[d];
    }
    const ElementType type = site.types[k];
    const bool input = static_cast<size_t>(k) >= site.slots.size() || site.slots[k] >= 0;
    if (input && IsIntegerOrBoolType(type) && n <= kMaxTrackedValues && b->data != nullptr) {
      for (int64_t i = 0; i < n; ++i) key.push_back(ReadElementAsInt64(type, b->data, i));
    }
  }
}

}  // namespace

absl::Status RunKernelCall(const KernelCallSite& site, OpKernel& kernel, const Model* source,
                           AnvilBuffer* const* operands, int32_t count,
                           int64_t max_allocation_bytes, std::deque<Tensor>& allocations,
                           ShapeCheckMemo* memo) {
  const Node& node = *site.node;
  if (count < 0 || static_cast<size_t>(count) > site.types.size()) {
    return absl::InternalError(absl::StrCat(node.Describe(), ": a kernel call with ", count,
                                            " operands, the site has ", site.types.size()));
  }
  auto is_value = [&](size_t k) { return k < site.values.size() && site.values[k]; };
  auto view = [&](int k) {
    const AnvilBuffer* b = operands[k];
    if (is_value(k)) {
      return b->data != nullptr ? reinterpret_cast<const Tensor*>(b->data)->view() : TensorView();
    }
    return TensorView::Dense(site.types[k], b->data,
                             absl::MakeConstSpan(b->dims, static_cast<size_t>(b->rank)));
  };
  // Where output i's operand is (-1: none), to tell value outputs.
  absl::InlinedVector<int, 4> output_operand(node.num_outputs(), -1);
  // Inline storage for the usual few operands: a call makes no heap allocation of its own.
  KernelContext::Views inputs(node.num_inputs());
  KernelContext::Views planned(node.num_outputs());
  absl::InlinedVector<AnvilBuffer*, 4> outputs(node.num_outputs(), nullptr);
  for (size_t k = 0; k < site.slots.size() && static_cast<int32_t>(k) < count; ++k) {
    const int slot = site.slots[k];
    if (slot >= 0) {
      inputs[slot] = view(static_cast<int>(k));
    } else {
      outputs[-1 - slot] = operands[k];
      output_operand[-1 - slot] = static_cast<int>(k);
      if (operands[k]->data != nullptr && !is_value(k)) {
        planned[-1 - slot] = view(static_cast<int>(k));
      }
    }
  }
  absl::flat_hash_map<const Value*, Tensor> captured;
  for (size_t k = 0; k < site.captures.size(); ++k) {
    const int at = static_cast<int>(site.slots.size() + k);
    if (at < count && site.captures[k] != nullptr) {
      captured[site.captures[k]] =
          is_value(static_cast<size_t>(at)) && operands[at]->data != nullptr
              ? *reinterpret_cast<const Tensor*>(operands[at]->data)
              : Tensor::CopyOf(view(at));
    }
  }
  const bool has_subgraphs = site.resolved ? site.has_subgraphs : !node.Subgraphs().empty();
  NodeExecOptions exec;
  exec.check_planned_dims = !has_subgraphs;
  exec.max_allocation_bytes = max_allocation_bytes > 0 ? max_allocation_bytes : kNoAllocationLimit;
  // The check of operands that passed it before is skipped (it would give the same answer): on
  // a small CNN the ShapeHelpers of its convolutions and pools were 5-10% of a run.
  bool remember = false;
  absl::InlinedVector<int64_t, 48> key;
  // (A value operand's key would have to hold its elements' dims: such calls are not remembered.)
  if (memo != nullptr && exec.check_planned_dims &&
      static_cast<size_t>(count) == site.types.size() &&
      std::find(site.values.begin(), site.values.end(), true) == site.values.end()) {
    bool all_planned = true;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (node.output(i) != nullptr && (outputs[i] == nullptr || outputs[i]->data == nullptr)) {
        all_planned = false;
      }
    }
    if (all_planned) {
      MakeMemoKey(site, operands, count, key);
      if (memo->valid && absl::MakeConstSpan(memo->key) == absl::MakeConstSpan(key)) {
        exec.check_planned_dims = false;
        ++memo->skipped;
      } else {
        remember = true;
      }
    }
  }
  bool read_contents = true;
  exec.shape_read_input_contents = &read_contents;
  if (source != nullptr && has_subgraphs) {
    exec.subgraph_runner = InterpreterSubgraphRunner(
        *source,
        [&captured](const Value* v) -> const Tensor* {
          auto it = captured.find(v);
          return it == captured.end() ? nullptr : &it->second;
        },
        /*observer=*/nullptr, exec.max_allocation_bytes);
  }
  // Nodes with subgraphs size their outputs by running them, as in the runtime: no ShapeFn.
  const ShapeFn shape_fn = has_subgraphs   ? nullptr
                           : site.resolved ? site.shape_fn
                                           : FindShapeFn(node.domain(), node.op_type(), site.opset);
  auto output_is_value = [&](int i) {
    return output_operand[i] >= 0 && is_value(static_cast<size_t>(output_operand[i]));
  };
  // Keeps `t` with the run's allocations and points output i's operand at it: a value operand at
  // the Tensor itself, a tensor operand at its data, with its dims.
  auto keep = [&](int i, Tensor t) {
    allocations.push_back(std::move(t));
    Tensor& kept = allocations.back();
    AnvilBuffer* b = outputs[i];
    if (b == nullptr) return;
    if (output_is_value(i)) {
      b->data = reinterpret_cast<uint8_t*>(&kept);
      b->rank = 0;
      return;
    }
    b->data = static_cast<uint8_t*>(kept.data());
    b->rank = static_cast<int32_t>(kept.dims().size());
    for (size_t d = 0; d < kept.dims().size(); ++d) b->dims[d] = kept.dims()[d];
  };
  auto make_output = [&](int i, ElementType type,
                         absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
    if (!output_is_value(i) && dims.size() > 8) {
      return absl::UnimplementedError("a kernel output of rank over 8");
    }
    ANVIL_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(type, dims, max_allocation_bytes));
    const TensorView view = t.view();
    keep(i, std::move(t));
    return view;
  };
  // Sequences, optionals and tensors a kernel hands over whole.
  exec.value_sink = [&](int i, Tensor value) -> absl::Status {
    if (outputs[i] == nullptr) return absl::OkStatus();
    if (!output_is_value(i)) {
      if (!value.is_tensor() || value.type() != site.types[output_operand[i]]) {
        return absl::InternalError(absl::StrCat(node.Describe(), ": output ", i,
                                                " is a tensor, the kernel set ",
                                                value.view().DebugString()));
      }
      if (value.dims().size() > 8) {
        return absl::UnimplementedError("a kernel output of rank over 8");
      }
    }
    keep(i, std::move(value));
    return absl::OkStatus();
  };
  if (remember) memo->valid = false;
  ANVIL_RETURN_IF_ERROR(
      ExecuteNode(node, site.opset, kernel, shape_fn, inputs, planned, make_output, exec));
  if (remember && shape_fn != nullptr && !read_contents) {
    memo->key.assign(key.begin(), key.end());
    memo->valid = true;
  }
  return absl::OkStatus();
}

}  // namespace anvil::lower
