// Private to the misc kernel family (ops/misc*.cc): the factories that misc.cc's table lists,
// and the few helpers the family's files share. Most misc ops are not on a hot path and many
// take float16/bfloat16 as well as float and double, so kernels read their operands converted to
// the type they compute in (float, or double for double inputs) and convert again when writing;
// that keeps one template instantiation per compute type instead of one per element type.
#ifndef ANVIL_KERNELS_OPS_MISC_INTERNAL_H_
#define ANVIL_KERNELS_OPS_MISC_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "graph/ir.h"
#include "graph/node_errors.h"
#include "kernels/dispatch.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor_view.h"

namespace anvil::misc {

// ---- Factories (one per op or group of ops sharing a kernel) ----
using Factory = absl::StatusOr<std::unique_ptr<OpKernel>>;

Factory CreateRecurrent(const Node& node, int64_t opset);  // misc_rnn.cc: RNN, GRU, LSTM

Factory CreateDft(const Node& node, int64_t opset);  // misc_signal.cc
Factory CreateStft(const Node& node, int64_t opset);
Factory CreateWindow(const Node& node, int64_t opset);  // Hann/Hamming/BlackmanWindow
Factory CreateMelWeightMatrix(const Node& node, int64_t opset);

Factory CreateNonMaxSuppression(const Node& node, int64_t opset);  // misc_detection.cc
Factory CreateRoiAlign(const Node& node, int64_t opset);
Factory CreateMaxRoiPool(const Node& node, int64_t opset);
Factory CreateGridSample(const Node& node, int64_t opset);

Factory CreateTopK(const Node& node, int64_t opset);  // misc_select.cc
Factory CreateUnique(const Node& node, int64_t opset);
Factory CreateTfIdfVectorizer(const Node& node, int64_t opset);

Factory CreateRandom(const Node& node, int64_t opset);  // misc_random.cc: Random*, Bernoulli
Factory CreateMultinomial(const Node& node, int64_t opset);
Factory CreateDropout(const Node& node, int64_t opset);
Factory CreateOptimizer(const Node& node, int64_t opset);  // misc_training.cc: Adagrad, Adam, Momentum
Factory CreateStringNormalizer(const Node& node, int64_t opset);  // misc_string.cc

Factory CreateLoss(const Node& node, int64_t opset);  // misc_loss.cc: NLL, SoftmaxCrossEntropy

// ---- Shared helpers ----

// A kernel whose per-node state is a struct of attributes read and checked at creation.
template <typename Attrs>
class AttrKernel final : public OpKernel {
 public:
  using Fn = absl::Status (*)(KernelContext&, const Attrs&);
  AttrKernel(Attrs attrs, Fn fn) : attrs_(std::move(attrs)), fn_(fn) {}
  absl::Status Compute(KernelContext& ctx) override { return fn_(ctx, attrs_); }

 private:
  Attrs attrs_;
  Fn fn_;
};

template <typename Attrs>
Factory MakeAttrKernel(Attrs attrs, absl::Status (*fn)(KernelContext&, const Attrs&)) {
  return std::unique_ptr<OpKernel>(new AttrKernel<Attrs>(std::move(attrs), fn));
}

// The elements of a numeric `view` (any strides) converted to To, row-major. `what` names the
// operand in the Unimplemented error for a non-numeric type.
template <typename To>
absl::StatusOr<std::vector<To>> ReadAs(const TensorView& view, std::string_view what) {
  std::vector<To> values;
  values.reserve(view.NumElements());
  ANVIL_RETURN_IF_ERROR(DispatchNumeric(view.type, what, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* data = view.As<T>();
    ForEachOffset(view,
                  [&](int64_t offset) { values.push_back(ConvertElement<To>(data[offset])); });
    return absl::OkStatus();
  }));
  return values;
}

// Writes `values` (row-major, out.NumElements() of them) into the dense output `out`,
// converting to its element type.
template <typename From>
absl::Status WriteAs(const TensorView& out, const From* values, std::string_view what) {
  return DispatchNumeric(out.type, what, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    T* data = out.As<T>();
    const int64_t n = out.NumElements();
    for (int64_t i = 0; i < n; ++i) data[i] = ConvertElement<T>(values[i]);
    return absl::OkStatus();
  });
}

// The single value of a one-element numeric input, converted to int64 / double; an error
// naming `what` when the input has another element count.
absl::StatusOr<int64_t> ScalarInt(const KernelContext& ctx, int i, std::string_view what);
absl::StatusOr<double> ScalarDouble(const KernelContext& ctx, int i, std::string_view what);

}  // namespace anvil::misc

#endif  // ANVIL_KERNELS_OPS_MISC_INTERNAL_H_
