// `fold-batchnorm`: BatchNormalization in inference form folded into the convolution before it.
//
//   y = BatchNormalization(Conv(x, W, B), scale, bias, mean, var)   (epsilon e)
//     = Conv(x, W', B')   with f[m] = scale[m] / sqrt(var[m] + e),
//                              W'[m, ...] = W[m, ...] * f[m],  B'[m] = (B[m] - mean[m]) * f[m] +
//                              bias[m]
//
// Applies where the BatchNormalization (default domain; training_mode 0; before opset 9 with
// `spatial` 1) has only its Y output, which is not a graph output (the graph's interface keeps
// its names), reads a Conv's output that nothing else reads and that is not a graph output, and
// W, the Conv's B (if any) and the four statistics are float or double initializers of W's type
// with the shapes the op requires ([M] for M output channels). W' and B' are new initializers
// (W itself stays while another node reads it; dce removes it otherwise); Y's readers read the
// Conv's output instead, and the BatchNormalization is erased. Arithmetic is in double, rounded
// once to the weights' type: the folded Conv differs from the pair by rounding only. Subgraphs are
// folded too.
//
// Statistics: folded.
#ifndef ANVIL_GRAPH_PASSES_FOLD_BATCHNORM_H_
#define ANVIL_GRAPH_PASSES_FOLD_BATCHNORM_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class FoldBatchNormPass : public Pass {
 public:
  std::string_view name() const override { return "fold-batchnorm"; }
  std::string_view description() const override {
    return "Folds inference BatchNormalization into the preceding Conv's weights and bias.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_FOLD_BATCHNORM_H_
