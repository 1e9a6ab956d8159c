// The disposable constant store: constants created while folding live in reference-counted pool
// buffers and are seen through DisposableElements, which implement graph/elements.h so every
// package reads them like dense constants without knowing.
//
// A DisposableElements is either
//  - a view: (shared buffer, element type, dims, strides, offset). Transpose, Expand/broadcast
//    (stride 0), Reshape wherever the strides allow it (numpy's no-copy rule), Squeeze/Unsqueeze
//    and Slice with steps are views: new dims/strides/offset over the same buffer, no copy; a
//    splat is one stored element with all strides 0; or
//  - a lazy elementwise op (lazy_op.h): a folded node's kernel applied to operands that are
//    themselves DisposableElements of the same dims (broadcast views where the node broadcast).
//    Views of a lazy op are the op over views of its operands, so a Slice of a lazy chain keeps
//    reading only what it keeps; or
//  - a selection along one axis (Concat): position p along the axis is index i of operand k, the
//    operands having the same dims but along the axis. Transpose, Expand, Slice, Gather and a
//    Reshape that keeps the axis push into the operands (a Gather along the axis composes the
//    picks); a Slice that keeps one operand's part is that operand's view; or
//  - a remap (index_map.h): element i is element map(i) of a producer (a view, a selection or
//    another remap) in row-major order. What no strided view can express is a remap: a Reshape of
//    a transposed, broadcast or sliced view or of a selection, a Gather (its indices a table),
//    and any layout op over those, composed into the one map. Layout ops of a lazy op push into
//    its operands, so its kernel still runs over whole tiles and only the elements kept are
//    computed, once per read.
// Bytes are computed only when someone reads them: densely (CopyTo; a kernel), piecewise
// (ForEachChunk; export), or one element (ReadElement). A lazy op is evaluated in tiles of a few
// thousand elements through its kernel, so no full-size temporary ever exists; results are
// bit-identical to running the kernels eagerly. A remap reads a tile's targets from its producer:
// straight from the buffer for a view, by runs of consecutive elements for a selection.
//
// DisposablePool owns a strong reference to every buffer it created until the buffer is released:
// at once when the last constant reading it goes (ReleaseIfUnused, called by constprop after each
// fold), or by the garbage collector (gc.h) when it finds the buffer unreachable from the model's
// constants. Elements held elsewhere keep their buffer alive as long as they live (shared
// ownership), so release is always safe. The pool counts bytes live, released and the peak.
#ifndef ANVIL_CONSTPROP_DISPOSABLE_H_
#define ANVIL_CONSTPROP_DISPOSABLE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "constprop/index_map.h"
#include "graph/elements.h"

namespace anvil {

struct PoolAccounting;
class DisposablePool;
class LazyOp;

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

class DisposableElements final : public Elements,
                                 public std::enable_shared_from_this<DisposableElements> {
 public:
  // A view of `buffer` holding elements of `type` at element `offset`. Strides are in elements.
  DisposableElements(std::shared_ptr<const Buffer> buffer, ElementType type,
                     std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset);
  // `op` applied lazily to `operands` (all of `dims`; nullptr for an absent optional input).
  DisposableElements(std::shared_ptr<const LazyOp> op, ElementType type, std::vector<int64_t> dims,
                     std::vector<std::shared_ptr<const DisposableElements>> operands);

  // Position p along `axis` of `dims` is index picks[p].second of operands[picks[p].first] (the
  // operands of `dims` but along `axis`, all of one type). Simplifies to an operand's view when
  // the picks are one operand's positions in order.
  using Pick = std::pair<int32_t, int64_t>;
  static std::shared_ptr<const DisposableElements> Select(
      ElementType type, std::vector<int64_t> dims, int64_t axis,
      std::vector<std::shared_ptr<const DisposableElements>> operands, std::vector<Pick> picks);

  // Dense row-major view of a whole buffer.
  static std::shared_ptr<const DisposableElements> Dense(std::shared_ptr<const Buffer> buffer,
                                                         ElementType type,
                                                         std::vector<int64_t> dims);
  // Wraps any Elements without copying when it exposes contiguous data (the Elements object is
  // kept alive by the returned view); otherwise materializes it into `pool`.
  static std::shared_ptr<const DisposableElements> Wrap(std::shared_ptr<const Elements> elements,
                                                        DisposablePool& pool);

  ElementType element_type() const override { return type_; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  const uint8_t* ContiguousData() const override;
  void CopyTo(uint8_t* dst) const override;
  void ReadElement(int64_t i, uint8_t* dst) const override;
  absl::Status ForEachChunk(size_t max_chunk_bytes, const ChunkFn& fn) const override;
  void DropResidentPages() const override;

  // ---- Views ----
  // A lazy op, a selection or a remap: elements computed when read (not a strided view).
  bool is_lazy() const { return kind_ != Kind::kView; }
  bool is_remap() const { return kind_ == Kind::kRemap; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  // The viewed buffer; nullptr for a lazy op.
  const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }
  bool IsSplat() const;  // a view whose strides are all 0 (or dims 1)
  bool IsDense() const;  // a view with row-major strides

  // ---- Lazy ops ----
  const std::shared_ptr<const LazyOp>& op() const { return op_; }
  const std::vector<std::shared_ptr<const DisposableElements>>& operands() const {
    return operands_;
  }
  // Lazy ops in this expression (0 for views, selections and remaps of views): what each element
  // costs.
  int64_t lazy_op_count() const { return lazy_op_count_; }
  // Calls `fn` with every buffer the expression reads.
  void ForEachBuffer(const std::function<void(const std::shared_ptr<const Buffer>&)>& fn) const;

  // Computes rows [r0, r1) x columns [c0, c1) of the elements seen as a matrix (rows: all dims
  // but the last; columns: the last) into `dst`, a row-major block with `pitch` elements per row.
  // Errors come from a lazy op's kernel.
  absl::Status Evaluate(int64_t r0, int64_t r1, int64_t c0, int64_t c1, uint8_t* dst,
                        int64_t pitch) const;
  // Every element, dense row-major, into `dst` (ByteSize() bytes).
  absl::Status EvaluateInto(uint8_t* dst) const {
    return Evaluate(0, rows(), 0, cols(), dst, cols());
  }

  // ---- New views, selections and remaps (no copy, nothing computed) ----
  std::shared_ptr<const DisposableElements> Transpose(absl::Span<const int64_t> perm) const;
  std::shared_ptr<const DisposableElements> BroadcastTo(absl::Span<const int64_t> dims) const;
  // When no view has these dims (numpy's no-copy reshape rule), a remap if `remap`, else nullptr
  // (callers then materialize).
  std::shared_ptr<const DisposableElements> Reshape(absl::Span<const int64_t> dims,
                                                    bool remap = false) const;
  // starts/steps per dim (already normalized and clamped by the caller), output dims.
  std::shared_ptr<const DisposableElements> Slice(absl::Span<const int64_t> starts,
                                                  absl::Span<const int64_t> steps,
                                                  absl::Span<const int64_t> dims) const;
  // Position j along `axis` is position indices[j] (each in range): a view when the indices step
  // evenly, else a remap or (of a selection along its axis) a selection.
  std::shared_ptr<const DisposableElements> Gather(int64_t axis,
                                                   absl::Span<const int64_t> indices) const;

 private:
  // A lazy op of other dims whose operands are `fn` of its operands (nullptr if one is).
  using OperandMap =
      std::function<std::shared_ptr<const DisposableElements>(const DisposableElements& operand)>;
  std::shared_ptr<const DisposableElements> MapOperands(std::vector<int64_t> dims,
                                                        const OperandMap& fn) const;
  // `map` over the row-major elements of `producer` (simplified to a view or the producer
  // itself when it is one).
  static std::shared_ptr<const DisposableElements> Remap(
      std::shared_ptr<const DisposableElements> producer, IndexMap map);
  // This view's map of its buffer.
  IndexMap ViewMap() const;
  std::shared_ptr<const DisposableElements> shared() const {
    return std::static_pointer_cast<const DisposableElements>(shared_from_this());
  }
  int64_t rows() const;
  int64_t cols() const { return dims_.empty() ? 1 : dims_.back(); }
  absl::Status EvaluateView(int64_t r0, int64_t r1, int64_t c0, int64_t c1, uint8_t* dst,
                            int64_t pitch) const;
  absl::Status EvaluateOp(int64_t r0, int64_t r1, int64_t c0, int64_t c1, uint8_t* dst,
                          int64_t pitch) const;
  absl::Status EvaluateSelect(int64_t r0, int64_t r1, int64_t c0, int64_t c1, uint8_t* dst,
                              int64_t pitch) const;
  absl::Status EvaluateRemap(int64_t r0, int64_t r1, int64_t c0, int64_t c1, uint8_t* dst,
                             int64_t pitch) const;
  // Row-major elements flat[0..n) into `dst` (dense); `flat` is scratch (it may be rewritten).
  absl::Status Fetch(int64_t* flat, int64_t n, uint8_t* dst) const;
  // Fetch for a selection or lazy op: by runs of consecutive elements.
  absl::Status FetchByRuns(const int64_t* flat, int64_t n, uint8_t* dst) const;
  // Row-major elements [first, first + n) into `dst` (dense).
  absl::Status EvaluateFlat(int64_t first, int64_t n, uint8_t* dst) const;
  // The selection with other dims, picks and operands (views for selections).
  std::shared_ptr<const DisposableElements> SelectTranspose(absl::Span<const int64_t> perm) const;
  std::shared_ptr<const DisposableElements> SelectBroadcast(absl::Span<const int64_t> dims) const;
  std::shared_ptr<const DisposableElements> SelectSlice(absl::Span<const int64_t> starts,
                                                        absl::Span<const int64_t> steps,
                                                        absl::Span<const int64_t> dims) const;
  std::shared_ptr<const DisposableElements> SelectReshape(absl::Span<const int64_t> dims,
                                                          bool remap) const;
  std::shared_ptr<const DisposableElements> SelectGather(int64_t axis,
                                                         absl::Span<const int64_t> indices) const;

  // Reading works in tiles of at most this many elements: the scratch a lazy op's operands or a
  // remap's targets take stays a few tiles, whatever the tensor's size.
  static constexpr int64_t kTileElements = 16384;

  enum class Kind { kView, kOp, kSelect, kRemap };
  Kind kind_ = Kind::kView;
  ElementType type_;
  std::vector<int64_t> dims_;
  // A view:
  std::shared_ptr<const Buffer> buffer_;
  std::shared_ptr<const Elements> keep_alive_;  // a wrapped Elements owning the buffer's memory
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  // A lazy op:
  std::shared_ptr<const LazyOp> op_;
  // Also a selection's; a remap's producer is operands_[0].
  std::vector<std::shared_ptr<const DisposableElements>> operands_;
  int64_t lazy_op_count_ = 0;
  // A selection:
  int64_t axis_ = 0;
  std::shared_ptr<const std::vector<Pick>> picks_;
  // A remap:
  IndexMap map_;
};

// Strides that show `strides` over `dims` as `new_dims` without moving elements (numpy's
// no-copy reshape); nullopt when the layout does not allow it.
std::optional<std::vector<int64_t>> ReshapeStrides(absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> strides,
                                                   absl::Span<const int64_t> new_dims);

class DisposablePool {
 public:
  // bytes_live: allocated and not yet freed; bytes_released / buffers_released: dropped by the
  // pool; bytes_peak: the most ever live at once.
  using Stats = PoolStatsFields;

  DisposablePool();
  DisposablePool(const DisposablePool&) = delete;
  DisposablePool& operator=(const DisposablePool&) = delete;
  ~DisposablePool();

  // A new uninitialized buffer the pool keeps alive until it is released.
  std::shared_ptr<PoolBuffer> Allocate(size_t bytes);

  // Drops the pool's reference to `buffer` when nothing else holds it (it is freed at once);
  // returns the bytes freed.
  int64_t ReleaseIfUnused(const Buffer* buffer);
  // Whether nothing but the pool (and `extra_holders` others) holds `buffer`.
  bool IsUnused(const Buffer* buffer, int64_t extra_holders = 0);

  // Drops the pool's reference to every buffer not in `reachable`; returns the bytes whose
  // memory this freed at once (buffers still held elsewhere are freed when their last holder
  // goes).
  int64_t ReleaseUnreachable(const absl::flat_hash_set<const Buffer*>& reachable);

  Stats stats() const;

 private:
  void CountReleased(int64_t bytes, int64_t buffers);

  std::shared_ptr<PoolAccounting> accounting_;
  std::mutex mu_;
  absl::flat_hash_map<const Buffer*, std::shared_ptr<PoolBuffer>> owned_;
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_DISPOSABLE_H_
