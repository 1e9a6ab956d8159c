#include "kernels/kernel_runner.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"

namespace anvil {

absl::Status RunNodeOnViews(const Node& node, int64_t opset, const std::vector<TensorView>& inputs,
                            const OutputFactory& make_output, const RunNodeOptions& options) {
  // Output shapes from the op's ShapeHelper over the concrete inputs.
  std::vector<RuntimeOperand> operands(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].type == ElementType::kUndefined) continue;
    operands[i] = {inputs[i].type, inputs[i].dims,
                   inputs[i].Contiguous() ? inputs[i].data : nullptr};
  }
  RuntimeBuilder builder(operands);
  ShapeContext shape_ctx(node, opset, builder);
  // If/Loop/Scan outputs come from running their bodies, which the runtime builder cannot infer:
  // those kernels allocate their outputs themselves, typed as the model declares (below).
  if (node.Subgraphs().empty()) {
    ANVIL_RETURN_IF_ERROR(InferNodeShapes(shape_ctx));
  }

  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(node, opset);
  if (!kernel.ok()) return kernel.status();

  const int n = node.num_outputs();
  std::vector<TensorView> views(n);
  std::vector<bool> requested(n), allocated(n);
  for (int i = 0; i < n; ++i) {
    requested[i] = node.output(i) != nullptr;
    if (!requested[i]) continue;
    const TensorInfo& info = shape_ctx.output(i);
    if (!info.dims || info.type == ElementType::kUndefined) continue;  // the kernel allocates
    Shape dims;
    bool literal = true;
    for (const IndexExpr& d : *info.dims) {
      if (!d.IsLiteral()) {
        literal = false;
        break;
      }
      dims.push_back(d.literal());
    }
    if (!literal) continue;
    absl::StatusOr<TensorView> view = make_output(i, info.type, dims);
    if (!view.ok()) return view.status();
    views[i] = *std::move(view);
    allocated[i] = true;
  }

  KernelContext ctx(node, opset);
  ctx.SetInputs(inputs);
  ctx.SetOutputs(std::move(views), requested, allocated);
  ctx.set_allocator([&](int i, absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
    ElementType type = shape_ctx.output(i).type;
    if (type == ElementType::kUndefined && node.output(i) != nullptr) {
      type = node.output(i)->type().element_type();
    }
    if (type == ElementType::kUndefined) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": output ", i, " has no known element type"));
    }
    return make_output(i, type, dims);
  });
  if (options.subgraph_runner) ctx.set_subgraph_runner(options.subgraph_runner);
  ctx.set_default_seed(options.default_seed);
  ANVIL_RETURN_IF_ERROR((*kernel)->Compute(ctx));
  for (int i = 0; i < n; ++i) {
    if (requested[i] && !ctx.IsOutputAllocated(i)) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": the kernel did not produce output ", i));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> RunNode(const Node& node, int64_t opset,
                                            const std::vector<Tensor>& inputs,
                                            const RunNodeOptions& options) {
  std::vector<TensorView> views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) views[i] = inputs[i].view();
  }
  std::vector<Tensor> outputs(node.num_outputs());
  absl::Status status = RunNodeOnViews(
      node, opset, views,
      [&](int i, ElementType type, absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
        outputs[i] = Tensor(type, dims);
        return outputs[i].view();
      },
      options);
  if (!status.ok()) return status;
  return outputs;
}

}  // namespace anvil
