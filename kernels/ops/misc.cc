// The misc kernel family's table, and the helpers its files share (misc_internal.h). The kernels
// themselves are in misc_rnn.cc (RNN, GRU, LSTM), misc_signal.cc (DFT, STFT, windows,
// MelWeightMatrix), misc_detection.cc (NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample),
// misc_select.cc (TopK, Unique, TfIdfVectorizer), misc_random.cc (random ops, Dropout),
// misc_loss.cc (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), misc_string.cc
// (StringNormalizer) and misc_training.cc (Adagrad, Adam, Momentum).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
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

absl::StatusOr<int64_t> ScalarInt(const KernelContext& ctx, int i, std::string_view what) {
  ANVIL_ASSIGN_OR_RETURN(const uint8_t* bytes, ScalarBytes(ctx, i, what));
  return ReadElementAsInt64(ctx.input(i).type, bytes, 0);
}

absl::StatusOr<double> ScalarDouble(const KernelContext& ctx, int i, std::string_view what) {
  ANVIL_ASSIGN_OR_RETURN(const uint8_t* bytes, ScalarBytes(ctx, i, what));
  return ReadElementAsDouble(ctx.input(i).type, bytes, 0);
}

}  // namespace misc

namespace kernel_rules {

// Sorted by domain, then op_type; every version of each ONNX op in opsets 1..17 (one factory per op, which reads
// the opset where versions differ).
const KernelRule kMiscKernels[] = {
    {"", "Bernoulli", &misc::CreateRandom},
    {"", "BlackmanWindow", &misc::CreateWindow},
    {"", "DFT", &misc::CreateDft},
    {"", "Dropout", &misc::CreateDropout},
    {"", "GRU", &misc::CreateRecurrent},
    {"", "GridSample", &misc::CreateGridSample},
    {"", "HammingWindow", &misc::CreateWindow},
    {"", "HannWindow", &misc::CreateWindow},
    {"", "LSTM", &misc::CreateRecurrent},
    {"", "MaxRoiPool", &misc::CreateMaxRoiPool},
    {"", "MelWeightMatrix", &misc::CreateMelWeightMatrix},
    {"", "Multinomial", &misc::CreateMultinomial},
    {"", "NegativeLogLikelihoodLoss", &misc::CreateLoss},
    {"", "NonMaxSuppression", &misc::CreateNonMaxSuppression},
    {"", "RNN", &misc::CreateRecurrent},
    {"", "RandomNormal", &misc::CreateRandom},
    {"", "RandomNormalLike", &misc::CreateRandom},
    {"", "RandomUniform", &misc::CreateRandom},
    {"", "RandomUniformLike", &misc::CreateRandom},
    {"", "RoiAlign", &misc::CreateRoiAlign},
    {"", "STFT", &misc::CreateStft},
    {"", "SoftmaxCrossEntropyLoss", &misc::CreateLoss},
    {"", "StringNormalizer", &misc::CreateStringNormalizer},
    {"", "TfIdfVectorizer", &misc::CreateTfIdfVectorizer},
    {"", "TopK", &misc::CreateTopK},
    {"", "Unique", &misc::CreateUnique},
    {"ai.onnx.preview.training", "Adagrad", &misc::CreateOptimizer},
    {"ai.onnx.preview.training", "Adam", &misc::CreateOptimizer},
    {"ai.onnx.preview.training", "Momentum", &misc::CreateOptimizer},
    {nullptr, nullptr, nullptr},
};

}  // namespace kernel_rules
}  // namespace anvil
