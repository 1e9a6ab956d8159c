// The misc kernel family's table, and the helpers its files share (misc_internal.h). The kernels
// themselves are in misc_rnn.cc (RNN, GRU, LSTM), misc_signal.cc (DFT, STFT, windows,
// MelWeightMatrix), misc_detection.cc (NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample),
// misc_select.cc (TopK, Unique, TfIdfVectorizer), misc_random.cc (random ops, Dropout) and
// misc_loss.cc (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/absl_compat.h"
#include "graph/elements.h"
#include "kernels/kernel_rules.h"
#include "kernels/ops/misc_internal.h"

namespace anvil {
namespace misc {
namespace {

// The single element of input `i` as dense bytes, after checking there is exactly one.
absl::StatusOr<const uint8_t*> ScalarBytes(const KernelContext& ctx, int i, std::string_view what) {
  if (!ctx.HasInput(i)) return ctx.Error(absl::StrCat(AsAbsl(what), " is missing"));
  const TensorView& v = ctx.input(i);
  if (v.NumElements() != 1) {
    return ctx.Error(absl::StrCat(AsAbsl(what), " must have one element, is ", v.DebugString()));
  }
  if (ElementSize(v.type) == 0 || v.type == ElementType::kComplex64 ||
      v.type == ElementType::kComplex128) {
    return UnsupportedType(what, v.type);
  }
  // Whatever its strides, a one-element view's element is at `data`.
  return static_cast<const uint8_t*>(v.data);
}

}  // namespace

absl::Status NodeError(const Node& node, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": ", AsAbsl(what)));
}

absl::StatusOr<int64_t> ScalarInt(const KernelContext& ctx, int i, std::string_view what) {
  absl::StatusOr<const uint8_t*> bytes = ScalarBytes(ctx, i, what);
  if (!bytes.ok()) return bytes.status();
  return ReadElementAsInt64(ctx.input(i).type, *bytes, 0);
}

absl::StatusOr<double> ScalarDouble(const KernelContext& ctx, int i, std::string_view what) {
  absl::StatusOr<const uint8_t*> bytes = ScalarBytes(ctx, i, what);
  if (!bytes.ok()) return bytes.status();
  return ReadElementAsDouble(ctx.input(i).type, *bytes, 0);
}

}  // namespace misc

namespace kernel_rules {

// Sorted by op_type; every version of each op in opsets 1..17 (one factory per op, which reads
// the opset where versions differ).
const KernelRule kMiscKernels[] = {
    {"", "Bernoulli", 15, 17, &misc::CreateRandom},
    {"", "BlackmanWindow", 17, 17, &misc::CreateWindow},
    {"", "DFT", 17, 17, &misc::CreateDft},
    {"", "Dropout", 1, 17, &misc::CreateDropout},
    {"", "GRU", 1, 17, &misc::CreateRecurrent},
    {"", "GridSample", 16, 17, &misc::CreateGridSample},
    {"", "HammingWindow", 17, 17, &misc::CreateWindow},
    {"", "HannWindow", 17, 17, &misc::CreateWindow},
    {"", "LSTM", 1, 17, &misc::CreateRecurrent},
    {"", "MaxRoiPool", 1, 17, &misc::CreateMaxRoiPool},
    {"", "MelWeightMatrix", 17, 17, &misc::CreateMelWeightMatrix},
    {"", "Multinomial", 7, 17, &misc::CreateMultinomial},
    {"", "NegativeLogLikelihoodLoss", 12, 17, &misc::CreateLoss},
    {"", "NonMaxSuppression", 10, 17, &misc::CreateNonMaxSuppression},
    {"", "RNN", 1, 17, &misc::CreateRecurrent},
    {"", "RandomNormal", 1, 17, &misc::CreateRandom},
    {"", "RandomNormalLike", 1, 17, &misc::CreateRandom},
    {"", "RandomUniform", 1, 17, &misc::CreateRandom},
    {"", "RandomUniformLike", 1, 17, &misc::CreateRandom},
    {"", "RoiAlign", 10, 17, &misc::CreateRoiAlign},
    {"", "STFT", 17, 17, &misc::CreateStft},
    {"", "SoftmaxCrossEntropyLoss", 12, 17, &misc::CreateLoss},
    {"", "TfIdfVectorizer", 9, 17, &misc::CreateTfIdfVectorizer},
    {"", "TopK", 1, 17, &misc::CreateTopK},
    {"", "Unique", 11, 17, &misc::CreateUnique},
    {nullptr, nullptr, 0, 0, nullptr},
};

}  // namespace kernel_rules
}  // namespace anvil
