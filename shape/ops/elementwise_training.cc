// ShapeHelper of the optimizer updates of ai.onnx.preview.training (Adagrad, Adam, Momentum):
// inputs R, T, then n tensors to optimize followed by as many gradients and one or two state
// tensors each; every output is an updated copy of one of those inputs.
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shape/ops/elementwise.h"

namespace anvil::shape_ops::elementwise {

std::optional<OptimizerGroups> OptimizerGroupsOf(std::string_view op_type) {
  // Inputs after R and T: X, G and the states; outputs: X_new and the new states.
  if (op_type == "Adagrad") return OptimizerGroups{3, 2};   // X G H -> X H
  if (op_type == "Momentum") return OptimizerGroups{3, 2};  // X G V -> X V
  if (op_type == "Adam") return OptimizerGroups{4, 3};      // X G V H -> X V H
  return std::nullopt;
}

absl::Status OptimizerUpdateShape(ShapeContext& ctx) {
  const std::optional<OptimizerGroups> groups = OptimizerGroupsOf(ctx.node().op_type());
  if (!groups) return ctx.Error("not an optimizer update");
  const int tensors = ctx.num_inputs() - 2;
  if (tensors <= 0 || tensors % groups->inputs != 0) {
    return ctx.Error(absl::StrCat("has ", ctx.num_inputs(), " inputs; expected R, T and ",
                                  groups->inputs, " groups of n tensors"));
  }
  const int n = tensors / groups->inputs;
  if (ctx.num_outputs() > n * groups->outputs) {
    return ctx.Error(absl::StrCat("has ", ctx.num_outputs(), " outputs for ", n,
                                  " optimized tensors; at most ", n * groups->outputs));
  }
  for (int o = 0; o < ctx.num_outputs(); ++o) {
    // Output group 0 is X's; group g > 0 is the state input group g + 1 (after G).
    const int group = o / n, index = o % n;
    const TensorInfo& source = ctx.Input(2 + (group == 0 ? 0 : group + 1) * n + index);
    ctx.SetOutput(o, source.type, source.dims);
  }
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::elementwise
