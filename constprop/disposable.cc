#include "constprop/disposable.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "kernels/dispatch.h"

namespace anvil {

namespace {

// Uninitialized memory (every producer overwrites all of it); big buffers are 2 MiB aligned and
// advised into transparent huge pages, so touching 256 MiB costs 128 faults, not 65536.
uint8_t* AllocateLarge(size_t size) {
  constexpr size_t kHuge = 2 << 20;
  if (size < 64 * kHuge) return static_cast<uint8_t*>(std::malloc(size == 0 ? 1 : size));
  const size_t rounded = (size + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, rounded);
  if (p != nullptr) madvise(p, rounded, MADV_HUGEPAGE);
  return static_cast<uint8_t*>(p);
}

}  // namespace

void PoolBuffer::FreeData::operator()(uint8_t* p) const { std::free(p); }

struct PoolAccounting {
  std::mutex mu;
  PoolStatsFields stats;
};

PoolBuffer::PoolBuffer(std::shared_ptr<PoolAccounting> accounting, size_t size)
    : accounting_(std::move(accounting)), size_(size), data_(AllocateLarge(size)) {
  std::lock_guard<std::mutex> lock(accounting_->mu);
  accounting_->stats.bytes_live += static_cast<int64_t>(size_);
  accounting_->stats.bytes_peak =
      std::max(accounting_->stats.bytes_peak, accounting_->stats.bytes_live);
}

PoolBuffer::~PoolBuffer() {
  std::lock_guard<std::mutex> lock(accounting_->mu);
  accounting_->stats.bytes_live -= static_cast<int64_t>(size_);
}

DisposablePool::DisposablePool() : accounting_(std::make_shared<PoolAccounting>()) {}

DisposablePool::~DisposablePool() = default;

std::shared_ptr<PoolBuffer> DisposablePool::Allocate(size_t bytes) {
  auto buffer = std::make_shared<PoolBuffer>(accounting_, bytes);
  std::lock_guard<std::mutex> lock(mu_);
  owned_.emplace(buffer.get(), buffer);
  return buffer;
}

int64_t DisposablePool::ReleaseUnreachable(const absl::flat_hash_set<const Buffer*>& reachable) {
  std::vector<std::shared_ptr<PoolBuffer>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = owned_.begin(); it != owned_.end();) {
      if (reachable.contains(it->first)) {
        ++it;
        continue;
      }
      dropped.push_back(std::move(it->second));
      owned_.erase(it++);
    }
  }
  int64_t freed_now = 0;
  int64_t count = 0;
  int64_t bytes = 0;
  for (auto& buffer : dropped) {
    bytes += static_cast<int64_t>(buffer->size());
    ++count;
    if (buffer.use_count() == 1) freed_now += static_cast<int64_t>(buffer->size());
    buffer.reset();
  }
  std::lock_guard<std::mutex> lock(accounting_->mu);
  accounting_->stats.bytes_released += bytes;
  accounting_->stats.buffers_released += count;
  return freed_now;
}

DisposablePool::Stats DisposablePool::stats() const {
  std::lock_guard<std::mutex> lock(accounting_->mu);
  return accounting_->stats;
}

// ---------------------------------------------------------------------------------------------

DisposableElements::DisposableElements(std::shared_ptr<const Buffer> buffer,
                                       ElementType stored_type, ElementType element_type,
                                       std::vector<int64_t> dims, std::vector<int64_t> strides,
                                       int64_t offset)
    : buffer_(std::move(buffer)),
      stored_type_(stored_type),
      element_type_(element_type),
      dims_(std::move(dims)),
      strides_(std::move(strides)),
      offset_(offset) {}

namespace {

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    strides[k] = s;
    s *= dims[k];
  }
  return strides;
}

// A Buffer over an Elements' contiguous bytes; the Elements is kept alive by the view.
class BorrowedBuffer final : public Buffer {
 public:
  BorrowedBuffer(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

std::shared_ptr<const DisposableElements> DisposableElements::Dense(
    std::shared_ptr<const Buffer> buffer, ElementType type, std::vector<int64_t> dims) {
  std::vector<int64_t> strides = RowMajorStrides(dims);
  return std::make_shared<DisposableElements>(std::move(buffer), type, type, std::move(dims),
                                              std::move(strides), 0);
}

std::shared_ptr<const DisposableElements> DisposableElements::Wrap(
    std::shared_ptr<const Elements> elements, DisposablePool& pool) {
  if (auto d = std::dynamic_pointer_cast<const DisposableElements>(elements)) return d;
  std::vector<int64_t> dims(elements->dims().begin(), elements->dims().end());
  if (const uint8_t* data = elements->ContiguousData()) {
    auto buffer = std::make_shared<BorrowedBuffer>(data, elements->ByteSize());
    auto view = std::const_pointer_cast<DisposableElements>(
        Dense(std::move(buffer), elements->element_type(), std::move(dims)));
    view->keep_alive_ = std::move(elements);
    return view;
  }
  std::shared_ptr<PoolBuffer> buffer = pool.Allocate(elements->ByteSize());
  elements->CopyTo(buffer->mutable_data());
  return Dense(std::move(buffer), elements->element_type(), std::move(dims));
}

bool DisposableElements::IsDense() const {
  if (stored_type_ != element_type_) return false;
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(dims_.size()) - 1; k >= 0; --k) {
    if (dims_[k] != 1 && strides_[k] != s) return false;
    s *= dims_[k];
  }
  return true;
}

bool DisposableElements::IsSplat() const {
  for (size_t k = 0; k < dims_.size(); ++k) {
    if (dims_[k] != 1 && strides_[k] != 0) return false;
  }
  return true;
}

const uint8_t* DisposableElements::ContiguousData() const {
  if (!IsDense()) return nullptr;
  return buffer_->data() + offset_ * ElementSize(stored_type_);
}

void DisposableElements::CopyTo(uint8_t* dst) const {
  const int64_t n = NumElements();
  if (n == 0) return;
  if (const uint8_t* src = ContiguousData()) {
    std::memcpy(dst, src, ByteSize());
    return;
  }
  const uint8_t* base = buffer_->data();
  const int64_t rank = static_cast<int64_t>(dims_.size());
  // Odometer over all dims but the last two; the last two form a plane copied in square tiles,
  // so a transposed view (unit stride on the second-last dim) reads and writes cache lines
  // instead of one element per line. The element copy may convert (a lazy Cast).
  const int64_t rows = rank >= 2 ? dims_[rank - 2] : 1;
  const int64_t cols = rank >= 1 ? dims_[rank - 1] : 1;
  const int64_t row_stride = rank >= 2 ? strides_[rank - 2] : 0;
  const int64_t col_stride = rank >= 1 ? strides_[rank - 1] : 0;
  const int64_t outer_rank = std::max<int64_t>(rank - 2, 0);
  absl::Status status = DispatchNumeric(stored_type_, "constant", [&](auto src_tag) {
    using S = decltype(src_tag);
    return DispatchNumeric(element_type_, "constant", [&](auto dst_tag) {
      using T = decltype(dst_tag);
      const S* src = reinterpret_cast<const S*>(base) + offset_;
      T* out = reinterpret_cast<T*>(dst);
      constexpr int64_t kTile = 64;
      std::vector<int64_t> index(outer_rank, 0);
      int64_t offset = 0;
      for (int64_t done = 0; done < n; done += rows * cols) {
        for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
          const int64_t r1 = std::min(rows, r0 + kTile);
          for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
            const int64_t c1 = std::min(cols, c0 + kTile);
            for (int64_t r = r0; r < r1; ++r) {
              const S* row = src + offset + r * row_stride;
              T* o = out + r * cols;
              for (int64_t c = c0; c < c1; ++c) o[c] = ConvertElement<T>(row[c * col_stride]);
            }
          }
        }
        out += rows * cols;
        for (int64_t k = outer_rank - 1; k >= 0; --k) {
          if (++index[k] < dims_[k]) {
            offset += strides_[k];
            break;
          }
          offset -= strides_[k] * (dims_[k] - 1);
          index[k] = 0;
        }
      }
      return absl::OkStatus();
    });
  });
  (void)status;  // Types are validated when views are created.
}

std::shared_ptr<const DisposableElements> DisposableElements::Transpose(
    absl::Span<const int64_t> perm) const {
  std::vector<int64_t> dims, strides;
  for (int64_t p : perm) {
    dims.push_back(dims_[p]);
    strides.push_back(strides_[p]);
  }
  auto view = std::make_shared<DisposableElements>(buffer_, stored_type_, element_type_,
                                                   std::move(dims), std::move(strides), offset_);
  view->keep_alive_ = keep_alive_;
  return view;
}

std::shared_ptr<const DisposableElements> DisposableElements::BroadcastTo(
    absl::Span<const int64_t> target) const {
  const size_t rank = target.size();
  std::vector<int64_t> dims(target.begin(), target.end());
  std::vector<int64_t> strides(rank, 0);
  const size_t lead = rank - dims_.size();
  for (size_t k = 0; k < dims_.size(); ++k) {
    strides[lead + k] = dims_[k] == target[lead + k] ? strides_[k] : 0;
  }
  auto view = std::make_shared<DisposableElements>(buffer_, stored_type_, element_type_,
                                                   std::move(dims), std::move(strides), offset_);
  view->keep_alive_ = keep_alive_;
  return view;
}

std::shared_ptr<const DisposableElements> DisposableElements::Reshape(
    absl::Span<const int64_t> target) const {
  std::vector<int64_t> dims(target.begin(), target.end());
  if (IsSplat()) {
    auto view = std::make_shared<DisposableElements>(buffer_, stored_type_, element_type_, dims,
                                                     std::vector<int64_t>(dims.size(), 0), offset_);
    view->keep_alive_ = keep_alive_;
    return view;
  }
  // Dense in storage order (a lazy cast is fine: it is per element).
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(dims_.size()) - 1; k >= 0; --k) {
    if (dims_[k] != 1 && strides_[k] != s) return nullptr;
    s *= dims_[k];
  }
  auto view = std::make_shared<DisposableElements>(buffer_, stored_type_, element_type_, dims,
                                                   RowMajorStrides(dims), offset_);
  view->keep_alive_ = keep_alive_;
  return view;
}

std::shared_ptr<const DisposableElements> DisposableElements::Slice(
    absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
    absl::Span<const int64_t> dims) const {
  int64_t offset = offset_;
  std::vector<int64_t> strides(strides_.size());
  for (size_t k = 0; k < strides_.size(); ++k) {
    offset += starts[k] * strides_[k];
    strides[k] = strides_[k] * steps[k];
  }
  auto view = std::make_shared<DisposableElements>(buffer_, stored_type_, element_type_,
                                                   std::vector<int64_t>(dims.begin(), dims.end()),
                                                   std::move(strides), offset);
  view->keep_alive_ = keep_alive_;
  return view;
}

std::shared_ptr<const DisposableElements> DisposableElements::Cast(ElementType to) const {
  auto view =
      std::make_shared<DisposableElements>(buffer_, stored_type_, to, dims_, strides_, offset_);
  view->keep_alive_ = keep_alive_;
  return view;
}

}  // namespace anvil
