// Tensor: an owning, dense, row-major tensor (64-byte aligned, zero-initialized; a string tensor
// holds std::string objects, empty at first, and ElementSize 0 keeps byte code away). What the
// runtime allocates outside its arena (graph outputs, subgraph results), what kernel tests and
// constant folding pass around. Copying shares the buffer (like a shared_ptr).
#ifndef ANVIL_KERNELS_TENSOR_H_
#define ANVIL_KERNELS_TENSOR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/elements.h"
#include "kernels/tensor_view.h"

namespace anvil {

// No limit on one allocation (Tensor::Allocate).
inline constexpr int64_t kNoAllocationLimit = -1;

class Tensor {
 public:
  Tensor() = default;
  // Zeroed. Sizes that overflow or memory the system refuses throw std::bad_alloc: for
  // temporaries whose size is bounded by tensors that already exist. Sizes that come from the
  // model or its inputs go through Allocate.
  Tensor(ElementType type, absl::Span<const int64_t> dims);
  // Memory not zeroed: for producers that overwrite every element.
  static Tensor Uninitialized(ElementType type, absl::Span<const int64_t> dims);

  // The checked allocation: InvalidArgument for a negative dim, OutOfRange when the byte size
  // overflows int64, ResourceExhausted when it is over `max_bytes` (unless kNoAllocationLimit)
  // or the system has no memory for it. Messages name the type, dims and size
  // ("float[1000000000] (3.7 GiB) is over the allocation limit of 1.0 GiB"), not the caller.
  static absl::StatusOr<Tensor> Allocate(ElementType type, absl::Span<const int64_t> dims,
                                         int64_t max_bytes, bool zero = true);

  // A dense tensor over memory someone else owns (a numpy array, a mapped file): `owner` keeps it
  // alive and is released when the last copy of the tensor goes. The data must be aligned to the
  // element size (not necessarily to 64 bytes); kernels may read it but never write it, as with
  // any graph input. Not for strings: their buffer holds std::string objects.
  static Tensor Borrow(ElementType type, absl::Span<const int64_t> dims, void* data,
                       std::shared_ptr<const void> owner);

  // A sequence of `tensors` (each of `element_type`; sharing their buffers), and an empty
  // optional whose value would be of `element_type` (kUndefined when not known).
  static Tensor Sequence(ElementType element_type, std::vector<Tensor> tensors);
  static Tensor NoneOptional(ElementType element_type);

  // A dense copy of `elements` (views and lazy transforms are materialized).
  static Tensor FromElements(const Elements& elements);
  // Copies a (possibly strided) view into a new dense tensor; a sequence view gives a new
  // sequence sharing the element tensors, an empty optional one another.
  static Tensor CopyOf(const TensorView& view);
  // The same within an allocation limit (Allocate's checks and errors): for copies whose size a
  // model or its inputs decide.
  static absl::StatusOr<Tensor> CopyOf(const TensorView& view, int64_t max_bytes);

  ValueKind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == ValueKind::kTensor; }
  // A sequence's tensors (empty for other values).
  const std::vector<Tensor>& elements() const;

  ElementType type() const { return type_; }
  const Shape& dims() const { return dims_; }
  int64_t NumElements() const;
  size_t ByteSize() const { return NumElements() * ElementSize(type_); }
  bool defined() const { return type_ != ElementType::kUndefined || kind_ != ValueKind::kTensor; }

  void* data() const { return buffer_ ? buffer_.get() : nullptr; }
  template <typename T>
  T* As() const {
    return static_cast<T*>(data());
  }
  TensorView view() const;

  // Shares the buffer as graph constant Elements (no copy).
  std::shared_ptr<const Elements> ToElements() const;

  // True when no other Tensor or Elements shares this one's buffer.
  bool SoleOwner() const { return buffer_ != nullptr && buffer_.use_count() == 1; }

 private:
  ElementType type_ = ElementType::kUndefined;
  Shape dims_;
  std::shared_ptr<uint8_t> buffer_;
  ValueKind kind_ = ValueKind::kTensor;
  std::shared_ptr<const std::vector<Tensor>> elements_;  // kSequence
};

// The buffers of a session's recent results, reused once the caller has let go of them: a model
// run in a loop then allocates nothing per run. (Fresh multi-MiB buffers cost a page fault per
// 4 KiB, and whether malloc hands back recycled or fresh pages depends on where the buffer
// happened to sit: 0.6 vs 2 ms for the same 3 MiB output, from one process to the next.) Keeps
// the last two tensors of each slot, so `out = session->Run(...)` in a loop, which still holds
// the previous results while the next run allocates, alternates between them. Not thread-safe
// (a session runs one Run at a time).
class TensorRecycler {
 public:
  // A tensor of `type` and `dims` (zeroed when `zero`): a kept one nobody else holds, else a new
  // one (Tensor::Allocate's checks and errors), which is kept for later runs.
  absl::StatusOr<Tensor> Allocate(int slot, ElementType type, absl::Span<const int64_t> dims,
                                  int64_t max_bytes, bool zero = true);
  // Drops every kept tensor.
  void Clear() { kept_.clear(); }

 private:
  struct Slot {
    Tensor recent[2];
    int next = 0;  // which one a new allocation replaces
  };
  std::vector<Slot> kept_;
};

}  // namespace anvil

#endif  // ANVIL_KERNELS_TENSOR_H_
