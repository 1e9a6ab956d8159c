// TensorView: a non-owning, possibly strided view of a tensor's elements, the currency between
// the runtime and kernels. Strides are in elements (not bytes); a stride of 0 repeats an element,
// so broadcasting an operand never copies it. Outputs handed to kernels are always dense
// row-major (Contiguous()).
#ifndef ANVIL_KERNELS_TENSOR_VIEW_H_
#define ANVIL_KERNELS_TENSOR_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "graph/element_type.h"

namespace anvil {

using Shape = absl::InlinedVector<int64_t, 6>;

class Tensor;

// What a runtime value is. Tensors are the common case; a sequence is a list of tensors of one
// element type (ONNX seq(T)); kNoneOptional is an empty optional (a present optional is simply
// its value, a tensor or a sequence).
enum class ValueKind : uint8_t { kTensor, kSequence, kNoneOptional };

struct TensorView {
  ElementType type = ElementType::kUndefined;  // of a sequence or optional: its element type
  void* data = nullptr;  // first element (of the view, after any offset)
  Shape dims;
  Shape strides;  // elements; same length as dims
  // Not a tensor: a sequence (its tensors at `elements`, owned by the Tensor this views) or an
  // empty optional. Such a view has no data or dims.
  ValueKind kind = ValueKind::kTensor;
  const std::vector<Tensor>* elements = nullptr;

  // Whether the view holds a value (an omitted optional input does not).
  bool present() const { return type != ElementType::kUndefined || kind != ValueKind::kTensor; }
  bool is_tensor() const { return kind == ValueKind::kTensor; }

  // A dense row-major view of `dims` at `data`.
  static TensorView Dense(ElementType type, void* data, absl::Span<const int64_t> dims);

  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t NumElements() const;
  bool Contiguous() const;  // dense row-major strides
  size_t ElementBytes() const { return ElementSize(type); }

  template <typename T>
  T* As() const {
    return static_cast<T*>(data);
  }

  // The same elements seen with `rank` dims: leading dims of size 1 and stride 0 prepended
  // (numpy broadcasting alignment).
  TensorView AlignedTo(int64_t rank) const;
  // Whether these dims broadcast onto `target` (numpy rules, one way: right-aligned, each dim
  // 1 or equal, rank at most the target's): BroadcastTo's precondition.
  bool BroadcastsTo(absl::Span<const int64_t> target) const;
  // A broadcast view to `target` dims (which must be broadcast-compatible; 1-dims get stride 0).
  TensorView BroadcastTo(absl::Span<const int64_t> target) const;

  std::string DebugString() const;  // "float[2,3] strides [3,1]"
};

// Row-major strides of `dims`.
Shape DenseStrides(absl::Span<const int64_t> dims);

// Calls f(offset) for every element of `view` in row-major order, offsets in elements from
// view.data (any strides, 0 and negative included). The one odometer of kernels that walk
// elements one at a time (string tensors, type conversions).
template <typename F>
void ForEachOffset(const TensorView& view, F&& f) {
  const int64_t n = view.NumElements();
  if (n == 0) return;
  if (view.Contiguous()) {
    for (int64_t i = 0; i < n; ++i) f(i);
    return;
  }
  const int64_t rank = view.rank();
  Shape index(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(offset);
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[k] < view.dims[k]) {
        offset += view.strides[k];
        break;
      }
      offset -= view.strides[k] * (view.dims[k] - 1);
      index[k] = 0;
    }
  }
}

}  // namespace anvil

#endif  // ANVIL_KERNELS_TENSOR_VIEW_H_
