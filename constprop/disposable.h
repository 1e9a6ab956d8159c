// The disposable constant store: constants created while folding live in reference-counted pool
// buffers and are seen through DisposableElements, which implement graph/elements.h so every
// package reads them like dense constants without knowing.
//
// A DisposableElements is (shared buffer, element type, dims, strides, offset, lazy transform):
//  - Transpose, Expand/broadcast (stride 0), Reshape of a dense view, Squeeze/Unsqueeze, Slice
//    with steps are views: new dims/strides/offset over the same buffer, no copy;
//  - Cast is a lazy transform: elements are converted when read;
//  - a splat is one stored element with all strides 0.
// Bytes are materialized only when someone reads them densely (CopyTo; export; lowering), one
// constant at a time.
//
// DisposablePool owns a strong reference to every buffer it created until the garbage collector
// (gc.h) finds the buffer unreachable from the model's live constants and releases it; elements
// held elsewhere keep their buffer alive as long as they live (shared ownership), so release is
// always safe. The pool counts bytes live, released and the peak.
#ifndef ANVIL_CONSTPROP_DISPOSABLE_H_
#define ANVIL_CONSTPROP_DISPOSABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "graph/elements.h"

namespace anvil {

struct PoolAccounting;
class DisposablePool;

// A buffer the pool accounts for (the accounting outlives the pool, so buffers may too).
class PoolBuffer final : public Buffer {
 public:
  PoolBuffer(std::shared_ptr<PoolAccounting> accounting, size_t size);
  ~PoolBuffer() override;
  const uint8_t* data() const override { return data_.get(); }
  uint8_t* mutable_data() { return data_.get(); }
  size_t size() const override { return size_; }

 private:
  struct FreeData {
    void operator()(uint8_t* p) const;
  };
  std::shared_ptr<PoolAccounting> accounting_;
  size_t size_;
  std::unique_ptr<uint8_t, FreeData> data_;
};

struct PoolStatsFields {
  int64_t bytes_live = 0;
  int64_t bytes_peak = 0;
  int64_t bytes_released = 0;
  int64_t buffers_released = 0;
};

class DisposableElements final : public Elements {
 public:
  // A view of `buffer` holding elements of `stored_type` at element `offset`, read as
  // `element_type` (a different type means a lazy Cast). Strides are in elements.
  DisposableElements(std::shared_ptr<const Buffer> buffer, ElementType stored_type,
                     ElementType element_type, std::vector<int64_t> dims,
                     std::vector<int64_t> strides, int64_t offset);

  // Dense row-major view of a whole buffer.
  static std::shared_ptr<const DisposableElements> Dense(std::shared_ptr<const Buffer> buffer,
                                                         ElementType type,
                                                         std::vector<int64_t> dims);
  // Wraps any Elements without copying when it exposes contiguous data (the Elements object is
  // kept alive by the returned view); otherwise materializes it into `pool`.
  static std::shared_ptr<const DisposableElements> Wrap(std::shared_ptr<const Elements> elements,
                                                        DisposablePool& pool);

  ElementType element_type() const override { return element_type_; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  const uint8_t* ContiguousData() const override;
  void CopyTo(uint8_t* dst) const override;

  ElementType stored_type() const { return stored_type_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }
  bool IsSplat() const;
  bool IsDense() const;  // row-major strides, no transform

  // ---- Views (no copy) ----
  std::shared_ptr<const DisposableElements> Transpose(absl::Span<const int64_t> perm) const;
  std::shared_ptr<const DisposableElements> BroadcastTo(absl::Span<const int64_t> dims) const;
  // nullptr when the strides do not allow a view (not dense); callers then materialize.
  std::shared_ptr<const DisposableElements> Reshape(absl::Span<const int64_t> dims) const;
  // starts/steps per dim (already normalized and clamped by the caller), output dims.
  std::shared_ptr<const DisposableElements> Slice(absl::Span<const int64_t> starts,
                                                  absl::Span<const int64_t> steps,
                                                  absl::Span<const int64_t> dims) const;
  std::shared_ptr<const DisposableElements> Cast(ElementType to) const;

 private:
  std::shared_ptr<const Buffer> buffer_;
  std::shared_ptr<const Elements> keep_alive_;  // a wrapped Elements owning the buffer's memory
  ElementType stored_type_;
  ElementType element_type_;
  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  int64_t offset_;
  friend class DisposablePool;
};

class DisposablePool {
 public:
  // bytes_live: allocated and not yet freed; bytes_released / buffers_released: dropped by the
  // collector; bytes_peak: the most ever live at once.
  using Stats = PoolStatsFields;

  DisposablePool();
  DisposablePool(const DisposablePool&) = delete;
  DisposablePool& operator=(const DisposablePool&) = delete;
  ~DisposablePool();

  // A new uninitialized buffer the pool keeps alive until the collector releases it.
  std::shared_ptr<PoolBuffer> Allocate(size_t bytes);

  // Drops the pool's reference to every buffer not in `reachable`; returns the bytes whose
  // memory this freed at once (buffers still held elsewhere are freed when their last holder
  // goes).
  int64_t ReleaseUnreachable(const absl::flat_hash_set<const Buffer*>& reachable);

  Stats stats() const;

 private:
  std::shared_ptr<PoolAccounting> accounting_;
  std::mutex mu_;
  absl::flat_hash_map<const Buffer*, std::shared_ptr<PoolBuffer>> owned_;
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_DISPOSABLE_H_
