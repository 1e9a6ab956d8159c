// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12, 13).
//
// Input [N, C, d...] (log-probabilities; SoftmaxCrossEntropyLoss takes scores and applies
// log_softmax over C first), target [N, d...] of class indices, optional weight [C]:
//   loss[n, d] = -weight[t] * input[n, t, d] with t = target[n, d], and 0 (with weight 0) where
//   t == ignore_index;
//   reduction none: loss; sum: sum(loss); mean: sum(loss) / sum(weight[t]) over kept elements.
// Sums are accumulated in double. A target outside [0, C) that is not ignore_index is an error.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

enum class Reduction { kNone, kSum, kMean };

struct LossAttrs {
  bool softmax = false;  // SoftmaxCrossEntropyLoss
  Reduction reduction = Reduction::kMean;
  std::optional<int64_t> ignore_index;
};

absl::Status LossCompute(KernelContext& ctx, const LossAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  ANVIL_RETURN_IF_ERROR(
      DispatchFloatCompute(xv.type, ctx.node().op_type(), [](auto) { return absl::OkStatus(); }));
  const TensorView& tv = ctx.input(1);
  if (xv.rank() < 2 || tv.rank() != xv.rank() - 1 || tv.dims[0] != xv.dims[0] ||
      !std::equal(tv.dims.begin() + 1, tv.dims.end(), xv.dims.begin() + 2)) {
    return ctx.Error(absl::StrCat("input ", xv.DebugString(), " and target ", tv.DebugString(),
                                  " must be [N, C, d...] and [N, d...]"));
  }
  const int64_t batch = xv.dims[0];
  const int64_t classes = xv.dims[1];
  int64_t inner = 1;  // the d... dims
  for (int64_t k = 2; k < xv.rank(); ++k) inner *= xv.dims[k];
  absl::StatusOr<std::vector<double>> x = ReadAs<double>(xv, ctx.node().op_type());
  if (!x.ok()) return x.status();
  ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> target, ReadAs<int64_t>(tv, "target"));
  std::vector<double> weight;
  if (ctx.HasInput(2)) {
    ANVIL_ASSIGN_OR_RETURN(std::vector<double> w, ReadAs<double>(ctx.input(2), "weight"));
    if (static_cast<int64_t>(w.size()) != classes) {
      return ctx.Error(absl::StrCat("weight ", ctx.input(2).DebugString(), " does not have ",
                                    classes, " classes"));
    }
    weight = std::move(w);
  }

  if (attrs.softmax) {
    // log_softmax over the class dim, in place.
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < inner; ++i) {
        double* base = x->data() + n * classes * inner + i;
        double max = -INFINITY;
        for (int64_t c = 0; c < classes; ++c) max = std::max(max, base[c * inner]);
        double sum = 0;
        for (int64_t c = 0; c < classes; ++c) sum += std::exp(base[c * inner] - max);
        const double log_sum = max + std::log(sum);
        for (int64_t c = 0; c < classes; ++c) base[c * inner] -= log_sum;
      }
    }
    if (ctx.HasOutput(1)) {
      ANVIL_RETURN_IF_ERROR(WriteAs(ctx.output(1), x->data(), "log_prob"));
    }
  }

  std::vector<double> loss(batch * inner);
  double total = 0;
  double weight_sum = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t t = target[n * inner + i];
      if (attrs.ignore_index && t == *attrs.ignore_index) continue;  // loss 0, weight 0
      if (t < 0 || t >= classes) {
        return ctx.Error(absl::StrCat("target ", t, " is outside [0, ", classes, ")"));
      }
      const double w = weight.empty() ? 1.0 : weight[t];
      const double l = -w * (*x)[(n * classes + t) * inner + i];
      loss[n * inner + i] = l;
      total += l;
      weight_sum += w;
    }
  }
  TensorView& out = ctx.output(0);
  switch (attrs.reduction) {
    case Reduction::kNone:
      return WriteAs(out, loss.data(), "loss");
    case Reduction::kSum:
      return WriteAs(out, &total, "loss");
    case Reduction::kMean: {
      const double mean = total / weight_sum;
      return WriteAs(out, &mean, "loss");
    }
  }
  return absl::OkStatus();
}

}  // namespace

Factory CreateLoss(const Node& node, int64_t) {
  LossAttrs attrs;
  attrs.softmax = node.op_type() == "SoftmaxCrossEntropyLoss";
  const std::string reduction = node.GetString("reduction", "mean");
  if (reduction == "none") {
    attrs.reduction = Reduction::kNone;
  } else if (reduction == "sum") {
    attrs.reduction = Reduction::kSum;
  } else if (reduction == "mean") {
    attrs.reduction = Reduction::kMean;
  } else {
    return NodeError(node, absl::StrCat("reduction '", reduction, "' is not none, sum or mean"));
  }
  if (node.FindAttribute("ignore_index") != nullptr) {
    attrs.ignore_index = node.GetInt("ignore_index", 0);
  }
  return MakeAttrKernel(attrs, &LossCompute);
}

}  // namespace anvil::misc
