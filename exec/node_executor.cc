#include "exec/node_executor.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "graph/op_table.h"
#include "shape/index_expr.h"
#include "shape/runtime_builder.h"
#include "shape/tensor_info.h"

namespace anvil {

absl::Status ExecuteNode(const Node& node, int64_t opset, OpKernel& kernel, ShapeFn shape_fn,
                         absl::Span<const TensorView> inputs, absl::Span<const TensorView> planned,
                         const OutputFactory& make_output, const NodeExecOptions& options) {
  // String elements are std::string objects; kernels that move bytes would copy nothing. Only
  // ops whose kernels say they handle strings (kStrings, and control flow) get them.
  // (The op table is consulted only when a string is there: this runs for every node.)
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type == ElementType::kString && !HasTrait(node, kStrings) &&
        !HasTrait(node, kControlFlow)) {
      return absl::UnimplementedError(absl::StrCat(node.Describe(), ": input ", i,
                                                   " is a string tensor, which ", node.op_type(),
                                                   "'s kernel does not handle"));
    }
  }
  const int n = node.num_outputs();
  KernelContext::Views views(n);
  KernelContext::Flags requested(n, false), allocated(n, false);
  bool all_planned = true;
  for (int i = 0; i < n; ++i) {
    requested[i] = node.output(i) != nullptr;
    if (!requested[i]) continue;
    if (i < static_cast<int>(planned.size()) && planned[i].type != ElementType::kUndefined) {
      views[i] = planned[i];
      allocated[i] = true;
    } else {
      all_planned = false;
    }
  }

  // Shapes of the outputs nobody planned, from the op's ShapeHelper over the concrete inputs. Its
  // expressions (the questionmarks of data-dependent outputs) are this call's: they live in a
  // context of its own, installed for the ShapeHelper only (the kernel then runs in the caller's).
  std::optional<IndexExprContext> shape_exprs;
  std::optional<RuntimeBuilder> builder;
  std::optional<ShapeContext> shape_ctx;
  if ((!all_planned || options.check_planned_dims) && shape_fn != nullptr) {
    std::vector<RuntimeOperand> operands(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].present()) continue;
      operands[i] = {inputs[i].type, inputs[i].dims,
                     inputs[i].Contiguous() ? inputs[i].data : nullptr};
      if (inputs[i].kind == ValueKind::kSequence) {
        operands[i].kind = RuntimeOperand::Kind::kSequence;
        for (const Tensor& e : *inputs[i].elements) {
          operands[i].element_dims.emplace_back(e.dims().begin(), e.dims().end());
        }
      } else if (inputs[i].kind == ValueKind::kNoneOptional) {
        operands[i].kind = RuntimeOperand::Kind::kNoneOptional;
      }
    }
    shape_exprs.emplace();
    IndexExprContext::Scope shape_scope(*shape_exprs);
    builder.emplace(std::move(operands));
    shape_ctx.emplace(node, opset, *builder);
    const absl::Status shape_status = shape_fn(*shape_ctx);
    if (options.shape_read_input_contents != nullptr) {
      *options.shape_read_input_contents = builder->read_input_contents();
    }
    ANVIL_RETURN_IF_ERROR(shape_status);
    for (int i = 0; i < n; ++i) {
      if (!requested[i]) continue;
      const TensorInfo& info = shape_ctx->output(i);
      if (allocated[i]) {
        std::optional<std::vector<int64_t>> dims = LiteralDims(info);
        const std::vector<int64_t> planned_dims(views[i].dims.begin(), views[i].dims.end());
        if (options.check_planned_dims && dims && *dims != planned_dims) {
          return absl::InvalidArgumentError(
              absl::StrCat(node.Describe(), ": output ", i, " is ", DimsToString(*dims),
                           " for these inputs, ", "not the planned ", DimsToString(planned_dims)));
        }
        continue;
      }
      if (std::optional<std::vector<int64_t>> dims = LiteralDims(info)) {
        ANVIL_ASSIGN_OR_RETURN(views[i], make_output(i, info.type, *dims));
        allocated[i] = true;
      }
    }
  }

  KernelContext ctx(node, opset);
  ctx.SetInputs(inputs);
  ctx.SetOutputs(std::move(views), requested, allocated);
  // One pointer captured, so the allocator fits std::function's inline storage.
  struct AllocatorState {
    const Node& node;
    std::optional<ShapeContext>& shape_ctx;
    const OutputFactory& make_output;
  } state{node, shape_ctx, make_output};
  ctx.set_allocator([s = &state](int i, absl::Span<const int64_t> dims,
                                 ElementType computed) -> absl::StatusOr<TensorView> {
    ElementType type = s->shape_ctx ? s->shape_ctx->output(i).type : ElementType::kUndefined;
    if (type == ElementType::kUndefined) type = s->node.output(i)->type().element_type();
    // An output nobody typed (no shape inference ran, or it could not tell): what the kernel
    // computed, as ONNX Runtime takes a branch's result.
    if (type == ElementType::kUndefined) type = computed;
    if (type == ElementType::kUndefined) {
      return absl::InternalError(
          absl::StrCat(s->node.Describe(), ": output ", i, " has no known element type"));
    }
    return s->make_output(i, type, dims);
  });
  if (options.subgraph_runner) ctx.set_subgraph_runner(options.subgraph_runner);
  if (options.value_sink) ctx.set_value_sink(options.value_sink);
  ctx.set_default_seed(options.default_seed);
  ctx.set_max_allocation_bytes(options.max_allocation_bytes);
  ctx.set_stats(options.stats);
  ANVIL_RETURN_IF_ERROR(kernel.Compute(ctx));
  for (int i = 0; i < n; ++i) {
    if (requested[i] && !ctx.IsOutputAllocated(i)) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": the kernel did not produce output ", i));
    }
  }
  return absl::OkStatus();
}

absl::Status RunNodeOnViews(const Node& node, int64_t opset, std::vector<TensorView> inputs,
                            const OutputFactory& make_output, const NodeExecOptions& options) {
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateKernel(node, opset));
  // If/Loop/Scan outputs come from running their bodies, which the runtime builder cannot infer:
  // those kernels allocate their outputs themselves, typed as the model declares.
  ShapeFn shape_fn = nullptr;
  if (node.Subgraphs().empty()) {
    ANVIL_ASSIGN_OR_RETURN(shape_fn, ShapeFnFor(node, opset));
  }
  return ExecuteNode(node, opset, *kernel, shape_fn, inputs, {}, make_output, options);
}

absl::StatusOr<std::vector<Tensor>> RunNode(const Node& node, int64_t opset,
                                            const std::vector<Tensor>& inputs,
                                            const NodeExecOptions& options) {
  std::vector<TensorView> views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) views[i] = inputs[i].view();
  }
  std::vector<Tensor> outputs(node.num_outputs());
  NodeExecOptions with_values = options;
  with_values.value_sink = [&outputs](int i, Tensor value) {
    outputs[i] = std::move(value);
    return absl::OkStatus();
  };
  ANVIL_RETURN_IF_ERROR(RunNodeOnViews(
      node, opset, std::move(views),
      [&](int i, ElementType type, absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
        absl::StatusOr<Tensor> t = Tensor::Allocate(type, dims, options.max_allocation_bytes);
        if (!t.ok()) {
          return absl::Status(t.status().code(), absl::StrCat(node.Describe(), ": output ", i, " ",
                                                              t.status().message()));
        }
        outputs[i] = *std::move(t);
        return outputs[i].view();
      },
      with_values));
  return outputs;
}

}  // namespace anvil
