#include "kernels/kernel_runner.h"

#include "absl/strings/str_cat.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"

namespace anvil {

absl::StatusOr<std::vector<Tensor>> RunNode(const Node& node, int64_t opset,
                                            const std::vector<Tensor>& inputs,
                                            const RunNodeOptions& options) {
  // Output shapes from the op's ShapeHelper over the concrete inputs.
  std::vector<RuntimeOperand> operands(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) continue;
    operands[i] = {inputs[i].type(), inputs[i].dims(), inputs[i].data()};
  }
  RuntimeBuilder builder(operands);
  ShapeContext shape_ctx(node, opset, builder);
  if (absl::Status s = InferNodeShapes(shape_ctx); !s.ok()) return s;

  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(node, opset);
  if (!kernel.ok()) return kernel.status();

  std::vector<Tensor> outputs(node.num_outputs());
  std::vector<TensorView> views(node.num_outputs());
  std::vector<bool> requested(node.num_outputs()), allocated(node.num_outputs());
  for (int i = 0; i < node.num_outputs(); ++i) {
    requested[i] = node.output(i) != nullptr;
    if (!requested[i]) continue;
    const TensorInfo& info = shape_ctx.output(i);
    bool literal = info.dims.has_value();
    Shape dims;
    if (literal) {
      for (const IndexExpr& d : *info.dims) {
        if (!d.IsLiteral()) {
          literal = false;
          break;
        }
        dims.push_back(d.literal());
      }
    }
    if (!literal || info.type == ElementType::kUndefined) continue;  // the kernel allocates
    outputs[i] = Tensor(info.type, dims);
    views[i] = outputs[i].view();
    allocated[i] = true;
  }

  KernelContext ctx(node, opset);
  std::vector<TensorView> input_views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined()) input_views[i] = inputs[i].view();
  }
  ctx.SetInputs(std::move(input_views));
  ctx.SetOutputs(std::move(views), std::move(requested), std::move(allocated));
  ctx.set_allocator([&](int i, absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
    ElementType type = shape_ctx.output(i).type;
    if (type == ElementType::kUndefined) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": output ", i, " has no known element type"));
    }
    outputs[i] = Tensor(type, dims);
    return outputs[i].view();
  });
  if (options.subgraph_runner) ctx.set_subgraph_runner(options.subgraph_runner);
  ctx.set_default_seed(options.default_seed);
  if (absl::Status s = (*kernel)->Compute(ctx); !s.ok()) return s;
  for (int i = 0; i < node.num_outputs(); ++i) {
    if (node.output(i) != nullptr && !outputs[i].defined()) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": the kernel did not produce output ", i));
    }
  }
  return outputs;
}

}  // namespace anvil
