#include "kernels/ops/op_util.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/dispatch.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

template <typename To>
absl::StatusOr<std::vector<To>> ReadAs(const TensorView& v, std::string_view op) {
  // The common case, int64 indices and axes, without a per-element conversion.
  if constexpr (std::is_same_v<To, int64_t>) {
    if (v.Contiguous() && v.type == ElementType::kInt64) {
      const int64_t* p = v.As<int64_t>();
      return std::vector<int64_t>(p, p + v.NumElements());
    }
  }
  Tensor scratch;
  const TensorView dense = v.Contiguous() ? v : (scratch = Tensor::CopyOf(v)).view();
  std::vector<To> values(static_cast<size_t>(dense.NumElements()));
  ANVIL_RETURN_IF_ERROR(DispatchNumeric(dense.type, op, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* p = dense.As<T>();
    for (size_t k = 0; k < values.size(); ++k) values[k] = ConvertElement<To>(p[k]);
    return absl::OkStatus();
  }));
  return values;
}

template <typename To>
absl::StatusOr<std::vector<To>> ReadInputAs(const KernelContext& ctx, int i) {
  if (!ctx.HasInput(i)) return ctx.Error(absl::StrCat("input ", i, " is missing"));
  return ReadAs<To>(ctx.input(i), ctx.node().op_type());
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ReadInt64s(const TensorView& v, std::string_view op) {
  return ReadAs<int64_t>(v, op);
}
absl::StatusOr<std::vector<double>> ReadDoubles(const TensorView& v, std::string_view op) {
  return ReadAs<double>(v, op);
}
absl::StatusOr<std::vector<int64_t>> ReadInt64s(const KernelContext& ctx, int i) {
  return ReadInputAs<int64_t>(ctx, i);
}
absl::StatusOr<std::vector<double>> ReadDoubles(const KernelContext& ctx, int i) {
  return ReadInputAs<double>(ctx, i);
}

}  // namespace anvil
