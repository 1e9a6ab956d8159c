// Tensor: an owning, dense, row-major tensor (64-byte aligned, zero-initialized). What the
// runtime allocates outside its arena (graph outputs, subgraph results), what kernel tests and
// constant folding pass around. Copying shares the buffer (like a shared_ptr).
#ifndef ANVIL_KERNELS_TENSOR_H_
#define ANVIL_KERNELS_TENSOR_H_

#include <cstdint>
#include <memory>

#include "absl/types/span.h"
#include "graph/elements.h"
#include "kernels/tensor_view.h"

namespace anvil {

class Tensor {
 public:
  Tensor() = default;
  Tensor(ElementType type, absl::Span<const int64_t> dims);
  // Memory not zeroed: for producers that overwrite every element.
  static Tensor Uninitialized(ElementType type, absl::Span<const int64_t> dims);

  // A dense copy of `elements` (views and lazy transforms are materialized).
  static Tensor FromElements(const Elements& elements);
  // Copies a (possibly strided) view into a new dense tensor.
  static Tensor CopyOf(const TensorView& view);

  ElementType type() const { return type_; }
  const Shape& dims() const { return dims_; }
  int64_t NumElements() const;
  size_t ByteSize() const { return NumElements() * ElementSize(type_); }
  bool defined() const { return type_ != ElementType::kUndefined; }

  void* data() const { return buffer_ ? buffer_.get() : nullptr; }
  template <typename T>
  T* As() const {
    return static_cast<T*>(data());
  }
  TensorView view() const { return TensorView::Dense(type_, data(), dims_); }

  // Shares the buffer as graph constant Elements (no copy).
  std::shared_ptr<const Elements> ToElements() const;

 private:
  ElementType type_ = ElementType::kUndefined;
  Shape dims_;
  std::shared_ptr<uint8_t> buffer_;
};

}  // namespace anvil

#endif  // ANVIL_KERNELS_TENSOR_H_
