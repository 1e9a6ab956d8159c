// The data-movement kernel family (ops/data*.cc): shared copy engine, input readers and the
// kernel factories the table in data.cc registers. Private to the kernels package.
//
// Every layout op (Reshape, Transpose, Slice, Tile, Expand, DepthToSpace, Concat, Split, ...)
// is expressed as a strided view of its input with the output's dims and handed to CopyView,
// which coalesces dims and picks memcpy rows, broadcast fills or a tiled 2-D transpose. Index
// ops read their integer inputs as int64 once and copy inner blocks with memcpy.
#ifndef ANVIL_KERNELS_OPS_DATA_INTERNAL_H_
#define ANVIL_KERNELS_OPS_DATA_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/ir.h"
#include "kernels/op_kernel.h"
#include "kernels/ops/op_util.h"
#include "kernels/tensor.h"
#include "kernels/tensor_view.h"

namespace anvil::data_ops {

// ---- Copy engine (data_util.cc) ----

// Copies every element of `src` to the same position in `dst` (equal dims; any strides,
// negative ones included, stride 0 in `src` broadcasting). Elements are moved as bytes; strings
// are assigned.
void CopyView(const TensorView& dst, const TensorView& src);

// `view` with its first element moved by `elements` (may be negative).
TensorView Offset(const TensorView& view, int64_t elements);

// Fills `count` elements at `dst` with copies of the `element_size` bytes at `value`.
void FillBytes(void* dst, const void* value, int64_t count, size_t element_size);

// The output `i` the ShapeHelper sized: Internal error when it was not preallocated (an op
// whose output shape the helper always knows at run time).
absl::StatusOr<TensorView*> PreallocatedOutput(KernelContext& ctx, int i);

// Copies input 0 into output 0 unchanged in row-major order: Reshape, Flatten, Squeeze,
// Unsqueeze (the runtime may later alias them instead).
absl::Status CopyInputToOutput(KernelContext& ctx);

// Checks that a data-movement op can move `type` (anything with a fixed element size; not
// strings): Unimplemented naming the op otherwise.
absl::Status CheckMovable(const KernelContext& ctx, ElementType type);

// ---- Input readers (data_util.cc) ----

// Input `i` as a dense view: the input itself when contiguous, else a copy kept in `scratch`.
TensorView DenseInput(const KernelContext& ctx, int i, Tensor* scratch);

// Input `i` as DenseInput gives it, once CheckMovable accepts its type: the data of an op that
// moves elements by size.
absl::StatusOr<TensorView> MovableDenseInput(const KernelContext& ctx, int i, Tensor* scratch);

// Normalizes `axis` into [0, rank): InvalidArgument naming the node when out of range.
absl::StatusOr<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank);

// Normalizes index `index` of a dim of size `n` (negative counts from the back):
// InvalidArgument naming the node, the value and `what` when out of [-n, n).
absl::Status NormalizeIndex(const KernelContext& ctx, int64_t* index, int64_t n,
                            std::string_view what);

// Product of dims[begin, end).
int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end);

// The element of `value` (one element) converted to `type`'s storage, written to `out` (16
// bytes): for fills (Pad constant, Resize extrapolation, ConstantOfShape).
absl::Status ConvertScalar(double value, ElementType type, std::string_view op, void* out);

// ---- Kernel factories ----
using Factory = absl::StatusOr<std::unique_ptr<OpKernel>> (*)(const Node&, int64_t);

// data_layout.cc
absl::StatusOr<std::unique_ptr<OpKernel>> MakeCopy(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeTranspose(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeConcat(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeSplit(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeSlice(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeTile(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeExpand(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeDepthToSpace(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeSpaceToDepth(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakePad(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeReverseSequence(const Node& node, int64_t opset);

// data_index.cc
absl::StatusOr<std::unique_ptr<OpKernel>> MakeGather(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeGatherElements(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeGatherND(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeScatterElements(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeScatterND(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeTensorScatter(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeCompress(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeOneHot(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeNonZero(const Node& node, int64_t opset);

// data_create.cc
absl::StatusOr<std::unique_ptr<OpKernel>> MakeShape(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeSize(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeRange(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeConstantOfShape(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeConstant(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeEyeLike(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeTrilu(const Node& node, int64_t opset);

// data_resize.cc
absl::StatusOr<std::unique_ptr<OpKernel>> MakeResize(const Node& node, int64_t opset);
absl::StatusOr<std::unique_ptr<OpKernel>> MakeUpsample(const Node& node, int64_t opset);

}  // namespace anvil::data_ops

#endif  // ANVIL_KERNELS_OPS_DATA_INTERNAL_H_
