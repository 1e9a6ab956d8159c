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

std::shared_ptr<const DisposableElements> DisposableElements::MapOperands(
    std::vector<int64_t> dims, const OperandMap& fn) const {
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  for (const auto& operand : operands_) {
    if (operand == nullptr) {
      operands.push_back(nullptr);
      continue;
    }
    std::shared_ptr<const DisposableElements> mapped = fn(*operand);
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

IndexMap DisposableElements::ViewMap() const {
  IndexMap map;
  map.dims = dims_;
  map.strides = strides_;
  map.offset = offset_;
  return map;
}

std::shared_ptr<const DisposableElements> DisposableElements::Remap(
    std::shared_ptr<const DisposableElements> producer, IndexMap map) {
  if (producer->kind_ == Kind::kView) {
    // A strided map of a dense view is a view of its buffer.
    if (!map.has_tables() && producer->IsDense()) {
      return View(*producer, map.dims, map.strides, map.offset + producer->offset_,
                  producer->buffer_);
    }
    // One element repeated: a splat view (read once by a lazy op).
    if (map.IsSplat()) {
      int64_t target = map.offset;
      for (size_t k = 0; k < map.dims.size(); ++k) target += map.Term(k, 0);
      IndexMap view = producer->ViewMap();
      view.MapFlat(&target, 1);
      return View(*producer, map.dims, std::vector<int64_t>(map.dims.size(), 0), target,
                  producer->buffer_);
    }
  }
  if (map.IsRowMajorIdentity() && map.dims == producer->dims_) return producer;
  auto remap = std::make_shared<DisposableElements>(nullptr, producer->type_, map.dims,
                                                    std::vector<int64_t>{}, 0);
  remap->kind_ = Kind::kRemap;
  remap->lazy_op_count_ = producer->lazy_op_count_;
  remap->operands_ = {std::move(producer)};
  remap->map_ = std::move(map);
  return remap;
}

std::shared_ptr<const DisposableElements> DisposableElements::Transpose(
    absl::Span<const int64_t> perm) const {
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(dims_[p]);
  switch (kind_) {
    case Kind::kOp:
      return MapOperands(dims, [&](const DisposableElements& x) { return x.Transpose(perm); });
    case Kind::kSelect:
      return SelectTranspose(perm);
    case Kind::kRemap:
      return Remap(operands_[0], map_.Transpose(perm));
    case Kind::kView:
      break;
  }
  std::vector<int64_t> strides;
  for (int64_t p : perm) strides.push_back(strides_[p]);
  return View(*this, std::move(dims), std::move(strides), offset_, buffer_);
}

std::shared_ptr<const DisposableElements> DisposableElements::BroadcastTo(
    absl::Span<const int64_t> target) const {
  std::vector<int64_t> dims(target.begin(), target.end());
  switch (kind_) {
    case Kind::kOp:
      return MapOperands(dims, [&](const DisposableElements& x) { return x.BroadcastTo(target); });
    case Kind::kSelect:
      return SelectBroadcast(target);
    case Kind::kRemap:
      return Remap(operands_[0], map_.BroadcastTo(target));
    case Kind::kView:
      break;
  }
  IndexMap map = ViewMap().BroadcastTo(target);
  return View(*this, std::move(map.dims), std::move(map.strides), map.offset, buffer_);
}

std::shared_ptr<const DisposableElements> DisposableElements::Reshape(
    absl::Span<const int64_t> target, bool remap) const {
  std::vector<int64_t> dims(target.begin(), target.end());
  if (dims == dims_) return shared();
  switch (kind_) {
    case Kind::kOp:
      return MapOperands(dims,
                         [&](const DisposableElements& x) { return x.Reshape(target, remap); });
    case Kind::kSelect:
      return SelectReshape(target, remap);
    case Kind::kRemap: {
      if (std::optional<IndexMap> map = map_.Reshape(target)) {
        return Remap(operands_[0], *std::move(map));
      }
      // This is the producer reshaped: reshape the producer.
      if (map_.IsRowMajorIdentity()) return operands_[0]->Reshape(target, remap);
      break;
    }
    case Kind::kView:
      if (std::optional<IndexMap> map = ViewMap().Reshape(target)) {
        return View(*this, std::move(dims), std::move(map->strides), map->offset, buffer_);
      }
      break;
  }
  // A new map over this one's elements in order.
  if (!remap) return nullptr;
  return Remap(shared(), IndexMap::RowMajor(target));
}

std::shared_ptr<const DisposableElements> DisposableElements::Slice(
    absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
    absl::Span<const int64_t> dims) const {
  std::vector<int64_t> out_dims(dims.begin(), dims.end());
  switch (kind_) {
    case Kind::kOp:
      return MapOperands(out_dims,
                         [&](const DisposableElements& x) { return x.Slice(starts, steps, dims); });
    case Kind::kSelect:
      return SelectSlice(starts, steps, dims);
    case Kind::kRemap:
      return Remap(operands_[0], map_.Slice(starts, steps, dims));
    case Kind::kView:
      break;
  }
  IndexMap map = ViewMap().Slice(starts, steps, dims);
  return View(*this, std::move(out_dims), std::move(map.strides), map.offset, buffer_);
}

std::shared_ptr<const DisposableElements> DisposableElements::Gather(
    int64_t axis, absl::Span<const int64_t> indices) const {
  std::vector<int64_t> dims = dims_;
  dims[axis] = static_cast<int64_t>(indices.size());
  switch (kind_) {
    case Kind::kOp:
      return MapOperands(dims,
                         [&](const DisposableElements& x) { return x.Gather(axis, indices); });
    case Kind::kSelect:
      return SelectGather(axis, indices);
    case Kind::kRemap:
      return Remap(operands_[0], map_.Gather(axis, indices));
    case Kind::kView:
      break;
  }
  IndexMap map = ViewMap().Gather(axis, indices);
  if (!map.has_tables()) {
    return View(*this, std::move(dims), std::move(map.strides), map.offset, buffer_);
  }
  // The map reads the buffer: a remap of the whole buffer seen as one dense row.
  const int64_t size = static_cast<int64_t>(ElementSize(type_));
  auto whole =
      Dense(buffer_, type_, {static_cast<int64_t>(buffer_->size()) / std::max<int64_t>(size, 1)});
  return Remap(std::move(whole), std::move(map));
}

std::optional<std::vector<int64_t>> ReshapeStrides(absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> strides,
                                                   absl::Span<const int64_t> new_dims) {
  IndexMap map;
  map.dims.assign(dims.begin(), dims.end());
  map.strides.assign(strides.begin(), strides.end());
  std::optional<IndexMap> reshaped = map.Reshape(new_dims);
  if (!reshaped) return std::nullopt;
  return std::move(reshaped->strides);
}

}  // namespace anvil
