#include "constprop/lazy_op.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace anvil {

absl::StatusOr<std::shared_ptr<const LazyOp>> LazyOp::Create(const Node& node, int64_t opset) {
  if (node.num_outputs() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": a lazy op has one output, not ", node.num_outputs()));
  }
  std::shared_ptr<LazyOp> op(new LazyOp());
  op->holder_ = std::make_unique<Model>();
  op->holder_->opset_imports = {{node.domain(), opset}};
  Graph& g = op->holder_->graph();
  Node* copy = g.AddNode(node.op_type(), node.domain());
  copy->set_name(node.name());
  for (int i = 0; i < node.num_inputs(); ++i) {
    copy->AddInput(node.input(i) == nullptr
                       ? nullptr
                       : g.AddInput(absl::StrCat("in", i), node.input(i)->type()));
  }
  copy->AddOutput("out")->set_type(node.output(0)->type());
  for (const Attribute& attr : node.attributes()) copy->SetAttribute(attr.Clone(&g));
  op->node_ = copy;
  op->opset_ = opset;
  ANVIL_ASSIGN_OR_RETURN(op->kernel_, CreateKernel(*copy, opset));
  return std::shared_ptr<const LazyOp>(std::move(op));
}

absl::Status LazyOp::Run(std::vector<TensorView> inputs, TensorView output) const {
  KernelContext ctx(*node_, opset_);
  ctx.SetInputs(std::move(inputs));
  ctx.SetOutputs({output}, {true}, {true});
  std::lock_guard<std::mutex> lock(mu_);
  return kernel_->Compute(ctx);
}

}  // namespace anvil
