#include "kernels/tensor.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"

namespace anvil {
namespace {

// nullptr when the system refuses. `bytes` must be at most 2^62 (rounding cannot overflow).
std::shared_ptr<uint8_t> TryAllocateAligned(size_t bytes, bool zero) {
  // At least one byte so that empty tensors still have a distinct, valid pointer. Large tensors
  // are 2 MiB aligned and advised into transparent huge pages (far fewer page faults).
  constexpr size_t kHuge = 2 << 20;
  const size_t align = bytes >= 64 * kHuge ? kHuge : 64;
  const size_t size = ((bytes == 0 ? 1 : bytes) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, size);
  if (p == nullptr) return nullptr;
  if (align == kHuge) madvise(p, size, MADV_HUGEPAGE);
  if (zero) std::memset(p, 0, size);
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
}

constexpr int64_t kMaxBytes = int64_t{1} << 62;

// For the unchecked constructors: a size that overflows, or memory the system refuses, is
// std::bad_alloc rather than a wrapped-around small buffer.
std::shared_ptr<uint8_t> AllocateAligned(ElementType type, absl::Span<const int64_t> dims,
                                         bool zero) {
  absl::StatusOr<int64_t> bytes = CheckedByteSize(dims, ElementSize(type));
  if (!bytes.ok() || *bytes > kMaxBytes) throw std::bad_alloc();
  std::shared_ptr<uint8_t> buffer = TryAllocateAligned(static_cast<size_t>(*bytes), zero);
  if (buffer == nullptr) throw std::bad_alloc();
  return buffer;
}

// A string tensor's buffer: `n` std::string objects (empty), destroyed with the buffer. Its
// ElementSize is 0, so nothing sizes or copies it as bytes; the allocation limit counts
// sizeof(std::string) per element (the characters live in each string's own heap block).
std::shared_ptr<uint8_t> AllocateStrings(int64_t n) {
  auto* strings = new std::string[n > 0 ? n : 1];
  return std::shared_ptr<uint8_t>(reinterpret_cast<uint8_t*>(strings),
                                  [](uint8_t* p) { delete[] reinterpret_cast<std::string*>(p); });
}

int64_t CheckedCount(absl::Span<const int64_t> dims) {
  absl::StatusOr<int64_t> n = CheckedByteSize(dims, sizeof(std::string));
  if (!n.ok() || *n > kMaxBytes) throw std::bad_alloc();
  return *n / static_cast<int64_t>(sizeof(std::string));
}

// Elements over a Tensor's buffer, keeping it alive.
class TensorElements final : public Elements {
 public:
  explicit TensorElements(const Tensor& t) : tensor_(t), dims_(t.dims().begin(), t.dims().end()) {}
  ElementType element_type() const override { return tensor_.type(); }
  absl::Span<const int64_t> dims() const override { return dims_; }
  const uint8_t* ContiguousData() const override { return tensor_.As<uint8_t>(); }
  void CopyTo(uint8_t* dst) const override {
    if (ByteSize() > 0) std::memcpy(dst, tensor_.data(), ByteSize());
  }

 private:
  Tensor tensor_;
  std::vector<int64_t> dims_;
};

}  // namespace

Tensor::Tensor(ElementType type, absl::Span<const int64_t> dims)
    : type_(type), dims_(dims.begin(), dims.end()) {
  buffer_ = type == ElementType::kString ? AllocateStrings(CheckedCount(dims))
                                         : AllocateAligned(type, dims, /*zero=*/true);
}

Tensor Tensor::Uninitialized(ElementType type, absl::Span<const int64_t> dims) {
  if (type == ElementType::kString) return Tensor(type, dims);
  Tensor t;
  t.type_ = type;
  t.dims_.assign(dims.begin(), dims.end());
  t.buffer_ = AllocateAligned(type, dims, /*zero=*/false);
  return t;
}

absl::StatusOr<Tensor> Tensor::Allocate(ElementType type, absl::Span<const int64_t> dims,
                                        int64_t max_bytes, bool zero) {
  const bool strings = type == ElementType::kString;
  absl::StatusOr<int64_t> bytes =
      CheckedByteSize(dims, strings ? sizeof(std::string) : ElementSize(type));
  auto described = [&] { return absl::StrCat(AsAbsl(ElementTypeName(type)), DimsToString(dims)); };
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        absl::StrCat(described(), ": ", bytes.status().message()));
  }
  if (*bytes > kMaxBytes || (max_bytes != kNoAllocationLimit && *bytes > max_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        described(), " (", HumanBytes(*bytes), ") is over the allocation limit of ",
        HumanBytes(std::min(max_bytes == kNoAllocationLimit ? kMaxBytes : max_bytes, kMaxBytes))));
  }
  Tensor t;
  if (strings) {
    try {
      t.buffer_ = AllocateStrings(*bytes / static_cast<int64_t>(sizeof(std::string)));
    } catch (const std::bad_alloc&) {
      t.buffer_ = nullptr;
    }
  } else {
    t.buffer_ = TryAllocateAligned(static_cast<size_t>(*bytes), zero);
  }
  if (t.buffer_ == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat(described(), " (", HumanBytes(*bytes), "): out of memory"));
  }
  t.type_ = type;
  t.dims_.assign(dims.begin(), dims.end());
  return t;
}

Tensor Tensor::Borrow(ElementType type, absl::Span<const int64_t> dims, void* data,
                      std::shared_ptr<const void> owner) {
  Tensor t;
  t.type_ = type;
  t.dims_.assign(dims.begin(), dims.end());
  // The aliasing constructor: shares `owner`'s control block, points at the data.
  t.buffer_ = std::shared_ptr<uint8_t>(std::move(owner), static_cast<uint8_t*>(data));
  return t;
}

Tensor Tensor::Sequence(ElementType element_type, std::vector<Tensor> tensors) {
  Tensor t;
  t.type_ = element_type;
  t.kind_ = ValueKind::kSequence;
  t.elements_ = std::make_shared<const std::vector<Tensor>>(std::move(tensors));
  return t;
}

Tensor Tensor::NoneOptional(ElementType element_type) {
  Tensor t;
  t.type_ = element_type;
  t.kind_ = ValueKind::kNoneOptional;
  return t;
}

const std::vector<Tensor>& Tensor::elements() const {
  static const auto* const kNone = new std::vector<Tensor>();
  return elements_ != nullptr ? *elements_ : *kNone;
}

TensorView Tensor::view() const {
  if (kind_ == ValueKind::kTensor) return TensorView::Dense(type_, data(), dims_);
  TensorView v;
  v.type = type_;
  v.kind = kind_;
  v.elements = kind_ == ValueKind::kSequence ? &elements() : nullptr;
  return v;
}

int64_t Tensor::NumElements() const {
  if (kind_ != ValueKind::kTensor) return 0;  // no elements of its own (nor bytes)
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

Tensor Tensor::FromElements(const Elements& elements) {
  Tensor t = Uninitialized(elements.element_type(), elements.dims());
  if (t.type() == ElementType::kString) {
    absl::Span<const std::string> strings = elements.strings();
    std::copy(strings.begin(), strings.end(), t.As<std::string>());
    return t;
  }
  if (t.ByteSize() > 0) elements.CopyTo(t.As<uint8_t>());
  return t;
}

namespace {

// Writes `view`'s elements into `t` (dense, of the view's type and dims).
void CopyElements(const TensorView& view, Tensor& t) {
  const size_t size = ElementSize(view.type);
  const int64_t n = t.NumElements();
  if (n == 0) return;
  if (view.type == ElementType::kString) {
    std::string* dst = t.As<std::string>();
    int64_t i = 0;
    ForEachOffset(view, [&](int64_t offset) { dst[i++] = view.As<std::string>()[offset]; });
    return;
  }
  if (view.Contiguous()) {
    std::memcpy(t.data(), view.data, n * size);
    return;
  }
  auto* dst = t.As<uint8_t>();
  const auto* src = static_cast<const uint8_t*>(view.data);
  int64_t i = 0;
  ForEachOffset(view,
                [&](int64_t offset) { std::memcpy(dst + i++ * size, src + offset * size, size); });
}

}  // namespace

Tensor Tensor::CopyOf(const TensorView& view) {
  if (view.kind == ValueKind::kSequence) {
    return Sequence(view.type, view.elements != nullptr ? *view.elements : std::vector<Tensor>());
  }
  if (view.kind == ValueKind::kNoneOptional) return NoneOptional(view.type);
  Tensor t = Uninitialized(view.type, view.dims);
  CopyElements(view, t);
  return t;
}

absl::StatusOr<Tensor> Tensor::CopyOf(const TensorView& view, int64_t max_bytes) {
  if (view.kind != ValueKind::kTensor) return CopyOf(view);  // shares the elements' buffers
  ANVIL_ASSIGN_OR_RETURN(Tensor t, Allocate(view.type, view.dims, max_bytes, /*zero=*/false));
  CopyElements(view, t);
  return t;
}

std::shared_ptr<const Elements> Tensor::ToElements() const {
  if (type_ == ElementType::kString) {
    const std::string* strings = As<std::string>();
    return std::make_shared<DenseElements>(
        std::vector<int64_t>(dims_.begin(), dims_.end()),
        std::vector<std::string>(strings, strings + NumElements()));
  }
  return std::make_shared<TensorElements>(*this);
}

absl::StatusOr<Tensor> TensorRecycler::Allocate(int slot, ElementType type,
                                                absl::Span<const int64_t> dims, int64_t max_bytes,
                                                bool zero) {
  if (slot < 0) return Tensor::Allocate(type, dims, max_bytes, zero);
  if (static_cast<size_t>(slot) >= kept_.size()) kept_.resize(slot + 1);
  Slot& kept = kept_[slot];
  for (const Tensor& t : kept.recent) {
    if (t.SoleOwner() && t.type() == type && absl::MakeConstSpan(t.dims()) == dims) {
      if (zero && t.ByteSize() > 0) std::memset(t.data(), 0, t.ByteSize());
      if (zero && type == ElementType::kString) {
        std::fill_n(t.As<std::string>(), t.NumElements(), std::string());
      }
      return t;
    }
  }
  absl::StatusOr<Tensor> fresh = Tensor::Allocate(type, dims, max_bytes, zero);
  if (!fresh.ok()) return fresh.status();
  kept.recent[kept.next] = *fresh;
  kept.next ^= 1;
  return fresh;
}

}  // namespace anvil
