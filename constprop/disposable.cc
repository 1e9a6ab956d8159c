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

bool DisposablePool::IsUnused(const Buffer* buffer, int64_t extra_holders) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = owned_.find(buffer);
  return it != owned_.end() && it->second.use_count() == 1 + extra_holders;
}

int64_t DisposablePool::ReleaseIfUnused(const Buffer* buffer) {
  std::shared_ptr<PoolBuffer> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = owned_.find(buffer);
    if (it == owned_.end() || it->second.use_count() != 1) return 0;
    dropped = std::move(it->second);
    owned_.erase(it);
  }
  const int64_t bytes = static_cast<int64_t>(dropped->size());
  dropped.reset();
  CountReleased(bytes, 1);
  return bytes;
}

void DisposablePool::CountReleased(int64_t bytes, int64_t buffers) {
  std::lock_guard<std::mutex> lock(accounting_->mu);
  accounting_->stats.bytes_released += bytes;
  accounting_->stats.buffers_released += buffers;
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
  CountReleased(bytes, count);
  return freed_now;
}

DisposablePool::Stats DisposablePool::stats() const {
  std::lock_guard<std::mutex> lock(accounting_->mu);
  return accounting_->stats;
}

// ---------------------------------------------------------------------------------------------

DisposableElements::DisposableElements(std::shared_ptr<const Buffer> buffer, ElementType type,
                                       std::vector<int64_t> dims, std::vector<int64_t> strides,
                                       int64_t offset)
    : type_(type),
      dims_(std::move(dims)),
      buffer_(std::move(buffer)),
      strides_(std::move(strides)),
      offset_(offset) {}

DisposableElements::DisposableElements(
    std::shared_ptr<const LazyOp> op, ElementType type, std::vector<int64_t> dims,
    std::vector<std::shared_ptr<const DisposableElements>> operands)
    : kind_(Kind::kOp),
      type_(type),
      dims_(std::move(dims)),
      op_(std::move(op)),
      operands_(std::move(operands)) {
  lazy_op_count_ = 1;
  for (const auto& operand : operands_) {
    if (operand != nullptr) lazy_op_count_ += operand->lazy_op_count();
  }
}

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
  BorrowedBuffer(const uint8_t* data, size_t size, std::shared_ptr<const Elements> owner)
      : data_(data), size_(size), owner_(std::move(owner)) {}
  const uint8_t* data() const override { return data_; }
  size_t size() const override { return size_; }
  void DropResidentPages() const override { owner_->DropResidentPages(); }

 private:
  const uint8_t* data_;
  size_t size_;
  std::shared_ptr<const Elements> owner_;
};

}  // namespace

std::shared_ptr<const DisposableElements> DisposableElements::Dense(
    std::shared_ptr<const Buffer> buffer, ElementType type, std::vector<int64_t> dims) {
  std::vector<int64_t> strides = RowMajorStrides(dims);
  return std::make_shared<DisposableElements>(std::move(buffer), type, std::move(dims),
                                              std::move(strides), 0);
}

std::shared_ptr<const DisposableElements> DisposableElements::Wrap(
    std::shared_ptr<const Elements> elements, DisposablePool& pool) {
  if (auto d = std::dynamic_pointer_cast<const DisposableElements>(elements)) return d;
  std::vector<int64_t> dims(elements->dims().begin(), elements->dims().end());
  if (const uint8_t* data = elements->ContiguousData()) {
    const ElementType type = elements->element_type();
    const size_t size = elements->ByteSize();
    auto buffer = std::make_shared<BorrowedBuffer>(data, size, std::move(elements));
    return Dense(std::move(buffer), type, std::move(dims));
  }
  std::shared_ptr<PoolBuffer> buffer = pool.Allocate(elements->ByteSize());
  elements->CopyTo(buffer->mutable_data());
  return Dense(std::move(buffer), elements->element_type(), std::move(dims));
}

bool DisposableElements::IsDense() const {
  if (kind_ != Kind::kView) return false;
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(dims_.size()) - 1; k >= 0; --k) {
    if (dims_[k] != 1 && strides_[k] != s) return false;
    s *= dims_[k];
  }
  return true;
}

bool DisposableElements::IsSplat() const {
  if (kind_ != Kind::kView) return false;
  for (size_t k = 0; k < dims_.size(); ++k) {
    if (dims_[k] != 1 && strides_[k] != 0) return false;
  }
  return true;
}

const uint8_t* DisposableElements::ContiguousData() const {
  if (!IsDense()) return nullptr;
  return buffer_->data() + offset_ * ElementSize(type_);
}

int64_t DisposableElements::rows() const {
  int64_t n = 1;
  for (size_t k = 0; k + 1 < dims_.size(); ++k) n *= dims_[k];
  return n;
}

void DisposableElements::ForEachBuffer(
    const std::function<void(const std::shared_ptr<const Buffer>&)>& fn) const {
  if (kind_ == Kind::kView) {
    fn(buffer_);
    return;
  }
  for (const auto& operand : operands_) {
    if (operand != nullptr) operand->ForEachBuffer(fn);
  }
}

void DisposableElements::DropResidentPages() const {
  ForEachBuffer([](const std::shared_ptr<const Buffer>& b) { b->DropResidentPages(); });
}

// ---- Views ----

std::shared_ptr<const DisposableElements> DisposableElements::MapLeaves(
    std::vector<int64_t> dims, const LeafMap& leaf, const LeafMap& select) const {
  if (kind_ == Kind::kView) return leaf(*this);
  if (kind_ == Kind::kSelect) return select(*this);
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) {
    if (operand == nullptr) {
      operands.push_back(nullptr);
      continue;
    }
    std::shared_ptr<const DisposableElements> mapped = operand->MapLeaves(dims, leaf, select);
    if (mapped == nullptr) return nullptr;
    operands.push_back(std::move(mapped));
  }
  return std::make_shared<DisposableElements>(op_, type_, std::move(dims), std::move(operands));
}

namespace {

std::shared_ptr<const DisposableElements> View(const DisposableElements& of,
                                               std::vector<int64_t> dims,
                                               std::vector<int64_t> strides, int64_t offset,
                                               std::shared_ptr<const Buffer> buffer) {
  return std::make_shared<DisposableElements>(std::move(buffer), of.element_type(), std::move(dims),
                                              std::move(strides), offset);
}

}  // namespace

std::shared_ptr<const DisposableElements> DisposableElements::Transpose(
    absl::Span<const int64_t> perm) const {
  if (kind_ == Kind::kSelect) return SelectTranspose(perm);
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(dims_[p]);
  std::vector<int64_t> perm_copy(perm.begin(), perm.end());
  return MapLeaves(
      dims,
      [&](const DisposableElements& leaf) {
        std::vector<int64_t> strides;
        for (int64_t p : perm_copy) strides.push_back(leaf.strides_[p]);
        return View(leaf, dims, std::move(strides), leaf.offset_, leaf.buffer_);
      },
      [&](const DisposableElements& select) { return select.Transpose(perm_copy); });
}

std::shared_ptr<const DisposableElements> DisposableElements::BroadcastTo(
    absl::Span<const int64_t> target) const {
  if (kind_ == Kind::kSelect) return SelectBroadcast(target);
  std::vector<int64_t> dims(target.begin(), target.end());
  return MapLeaves(
      dims,
      [&](const DisposableElements& leaf) {
        const size_t rank = dims.size();
        std::vector<int64_t> strides(rank, 0);
        const size_t lead = rank - leaf.dims_.size();
        for (size_t k = 0; k < leaf.dims_.size(); ++k) {
          strides[lead + k] = leaf.dims_[k] == dims[lead + k] ? leaf.strides_[k] : 0;
        }
        return View(leaf, dims, std::move(strides), leaf.offset_, leaf.buffer_);
      },
      [&](const DisposableElements& select) { return select.BroadcastTo(dims); });
}

std::shared_ptr<const DisposableElements> DisposableElements::Reshape(
    absl::Span<const int64_t> target) const {
  if (kind_ == Kind::kSelect) {
    // Only the identity (a general reshape would mix the axis with others).
    if (std::equal(target.begin(), target.end(), dims_.begin(), dims_.end())) {
      return std::static_pointer_cast<const DisposableElements>(shared_from_this());
    }
    return nullptr;
  }
  std::vector<int64_t> dims(target.begin(), target.end());
  return MapLeaves(
      dims,
      [&](const DisposableElements& leaf) -> std::shared_ptr<const DisposableElements> {
        std::optional<std::vector<int64_t>> strides =
            ReshapeStrides(leaf.dims_, leaf.strides_, dims);
        if (!strides) return nullptr;
        return View(leaf, dims, *std::move(strides), leaf.offset_, leaf.buffer_);
      },
      [&](const DisposableElements& select) { return select.Reshape(dims); });
}

std::shared_ptr<const DisposableElements> DisposableElements::Slice(
    absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
    absl::Span<const int64_t> dims) const {
  if (kind_ == Kind::kSelect) return SelectSlice(starts, steps, dims);
  std::vector<int64_t> out_dims(dims.begin(), dims.end());
  return MapLeaves(
      out_dims,
      [&](const DisposableElements& leaf) {
        int64_t offset = leaf.offset_;
        std::vector<int64_t> strides(leaf.strides_.size());
        for (size_t k = 0; k < strides.size(); ++k) {
          offset += starts[k] * leaf.strides_[k];
          strides[k] = leaf.strides_[k] * steps[k];
        }
        return View(leaf, out_dims, std::move(strides), offset, leaf.buffer_);
      },
      [&](const DisposableElements& select) { return select.Slice(starts, steps, out_dims); });
}

std::optional<std::vector<int64_t>> ReshapeStrides(absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> strides,
                                                   absl::Span<const int64_t> new_dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return std::vector<int64_t>(new_dims.size(), 0);  // nothing is ever read
  // Old dims of size 1 place nothing; drop them.
  std::vector<int64_t> od, os;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != 1) {
      od.push_back(dims[k]);
      os.push_back(strides[k]);
    }
  }
  std::vector<int64_t> result(new_dims.size(), 0);
  // Match runs of old and new dims with equal products; within a run the old dims must be
  // laid out as one block (each stride the next one times its dim).
  size_t oi = 0, ni = 0;
  while (oi < od.size() && ni < new_dims.size()) {
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = od[oi], np = new_dims[ni];
    while (op != np) {
      if (np < op) {
        np *= new_dims[nj++];
      } else {
        op *= od[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k) {
      if (os[k] != os[k + 1] * od[k + 1]) return std::nullopt;
    }
    result[nj - 1] = os[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) result[k - 1] = result[k] * new_dims[k];
    oi = oj;
    ni = nj;
  }
  // Trailing new dims are 1 (their stride is never used).
  return result;
}

}  // namespace anvil
