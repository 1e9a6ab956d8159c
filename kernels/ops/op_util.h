// Helpers every kernel family shares (private to //kernels): reading small integer and float
// tensors (axes, indices, zero points, scales) into vectors.
#ifndef ANVIL_KERNELS_OPS_OP_UTIL_H_
#define ANVIL_KERNELS_OPS_OP_UTIL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor_view.h"

namespace anvil {

// The elements of a numeric tensor (any strides) as int64 / double; Unimplemented naming `op`
// for other element types.
absl::StatusOr<std::vector<int64_t>> ReadInt64s(const TensorView& v, std::string_view op);
absl::StatusOr<std::vector<double>> ReadDoubles(const TensorView& v, std::string_view op);

// The same for input `i` of the kernel's node; InvalidArgument naming the node when the input is
// missing.
absl::StatusOr<std::vector<int64_t>> ReadInt64s(const KernelContext& ctx, int i);
absl::StatusOr<std::vector<double>> ReadDoubles(const KernelContext& ctx, int i);

}  // namespace anvil

#endif  // ANVIL_KERNELS_OPS_OP_UTIL_H_
