// The optimizer updates of ai.onnx.preview.training: Adagrad, Adam and Momentum (standard and
// Nesterov). Each node updates n tensors at once: inputs R (learning rate), T (update count),
// X_1..X_n, G_1..G_n and the optimizer's states; outputs X_new_1..n and the new states, in the
// order of shape/ops/elementwise_training.cc (OptimizerGroupsOf). Element-wise in double, rounded
// to each output's type once, as the formulas of the ONNX operator docs are written.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

enum class Optimizer { kAdagrad, kAdam, kMomentum, kNesterov };

struct OptimizerAttrs {
  Optimizer kind = Optimizer::kAdagrad;
  int input_groups = 3;  // X, G and the states, each n tensors
  double norm_coefficient = 0;
  double norm_coefficient_post = 0;  // Adam
  double epsilon = 1e-6;             // Adagrad, Adam
  double decay_factor = 0;           // Adagrad
  double alpha = 0.9, beta = 0.999;  // Adam; Momentum's alpha and beta have no defaults
};

// The state of one element: x and its gradient in, x and the states out.
struct Element {
  double x, g, v, h;
};

absl::Status OptimizerCompute(KernelContext& ctx, const OptimizerAttrs& attrs) {
  const int n = (ctx.num_inputs() - 2) / attrs.input_groups;
  ANVIL_ASSIGN_OR_RETURN(double r, ScalarDouble(ctx, 0, "R"));
  ANVIL_ASSIGN_OR_RETURN(int64_t t, ScalarInt(ctx, 1, "T"));
  // Adam's bias correction, Momentum's first-step coefficient and Adagrad's decayed rate depend
  // on T only.
  double rate = r;
  if (attrs.kind == Optimizer::kAdagrad)
    rate = r / (1 + static_cast<double>(t) * attrs.decay_factor);
  if (attrs.kind == Optimizer::kAdam && t > 0) {
    const double td = static_cast<double>(t);
    rate = r * std::sqrt(1 - std::pow(attrs.beta, td)) / (1 - std::pow(attrs.alpha, td));
  }
  const double beta_adjusted = t > 0 ? attrs.beta : 1.0;  // Momentum

  for (int i = 0; i < n; ++i) {
    const TensorView& xv = ctx.input(2 + i);
    std::vector<std::vector<double>> in;
    for (int group = 0; group < attrs.input_groups; ++group) {
      const TensorView& view = ctx.input(2 + group * n + i);
      if (view.dims != xv.dims) {
        return ctx.Error(absl::StrCat("input ", 2 + group * n + i, " ", view.DebugString(),
                                      " does not match X_", i + 1, " ", xv.DebugString()));
      }
      ANVIL_ASSIGN_OR_RETURN(std::vector<double> values,
                             ReadAs<double>(view, ctx.node().op_type()));
      in.push_back(std::move(values));
    }
    const int64_t count = xv.NumElements();
    std::vector<double> x_new(count), state1(count), state2(count);
    for (int64_t e = 0; e < count; ++e) {
      const double x = in[0][e];
      const double g = attrs.norm_coefficient * x + in[1][e];  // regularized gradient
      switch (attrs.kind) {
        case Optimizer::kAdagrad: {
          const double h = in[2][e] + g * g;
          x_new[e] = x - rate * g / (std::sqrt(h) + attrs.epsilon);
          state1[e] = h;
          break;
        }
        case Optimizer::kAdam: {
          const double v = attrs.alpha * in[2][e] + (1 - attrs.alpha) * g;
          const double h = attrs.beta * in[3][e] + (1 - attrs.beta) * (g * g);
          const double updated = x - rate * (v / (std::sqrt(h) + attrs.epsilon));
          x_new[e] = (1 - attrs.norm_coefficient_post) * updated;
          state1[e] = v;
          state2[e] = h;
          break;
        }
        case Optimizer::kMomentum:
        case Optimizer::kNesterov: {
          const double v = attrs.alpha * in[2][e] + beta_adjusted * g;
          x_new[e] = attrs.kind == Optimizer::kMomentum ? x - rate * v
                                                         : x - rate * (g + attrs.alpha * v);
          state1[e] = v;
          break;
        }
      }
    }
    const std::vector<double>* outputs[] = {&x_new, &state1, &state2};
    for (int group = 0; group < 3; ++group) {
      const int o = group * n + i;
      if (!ctx.HasOutput(o)) continue;
      ANVIL_RETURN_IF_ERROR(WriteAs(ctx.output(o), outputs[group]->data(), ctx.node().op_type()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

Factory CreateOptimizer(const Node& node, int64_t) {
  OptimizerAttrs attrs;
  const std::string& op = node.op_type();
  attrs.norm_coefficient = node.GetFloat("norm_coefficient", 0.0f);
  if (op == "Adagrad") {
    attrs.kind = Optimizer::kAdagrad;
    attrs.epsilon = node.GetFloat("epsilon", 1e-6f);
    attrs.decay_factor = node.GetFloat("decay_factor", 0.0f);
  } else if (op == "Adam") {
    attrs.kind = Optimizer::kAdam;
    attrs.input_groups = 4;
    attrs.alpha = node.GetFloat("alpha", 0.9f);
    attrs.beta = node.GetFloat("beta", 0.999f);
    attrs.epsilon = node.GetFloat("epsilon", 1e-6f);
    attrs.norm_coefficient_post = node.GetFloat("norm_coefficient_post", 0.0f);
  } else {
    const std::string mode = node.GetString("mode", "");
    if (mode != "standard" && mode != "nesterov") {
      return NodeError(node, absl::StrCat("mode '", mode, "' is not \"standard\" or \"nesterov\""));
    }
    for (const char* required : {"alpha", "beta", "norm_coefficient"}) {
      if (node.FindAttribute(required) == nullptr) {
        return NodeError(node, absl::StrCat("needs the attribute '", required, "'"));
      }
    }
    attrs.kind = mode == "standard" ? Optimizer::kMomentum : Optimizer::kNesterov;
    attrs.alpha = node.GetFloat("alpha", 0.0f);
    attrs.beta = node.GetFloat("beta", 0.0f);
  }
  if ((node.num_inputs() - 2) <= 0 || (node.num_inputs() - 2) % attrs.input_groups != 0) {
    return NodeError(node, absl::StrCat("has ", node.num_inputs(), " inputs; expected R, T and ",
                                        attrs.input_groups, " groups of n tensors"));
  }
  return MakeAttrKernel(attrs, &OptimizerCompute);
}

}  // namespace anvil::misc
