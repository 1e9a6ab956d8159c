// IndexMap: where each element of a layout view lies in what it views. Element (i_0, ..., i_n-1)
// of `dims` is element
//     offset + term_0(i_0) + ... + term_n-1(i_n-1)
// of the target, with term_k(i) = strides[k] * i for a strided dim and tables[k][i] for a gathered
// one. The target is a buffer's elements (a view) or another constant's elements in row-major order
// (a remap, disposable.h). Every layout op composes into a new map of the same target: Transpose
// permutes the terms, Expand gives stride 0, Slice and Gather pick terms (Gather keeps a stride
// when its indices step evenly), Reshape re-strides where numpy's no-copy rule allows it and a
// gathered dim is neither merged nor split; otherwise the caller stacks a new map over this one.
#ifndef ANVIL_CONSTPROP_INDEX_MAP_H_
#define ANVIL_CONSTPROP_INDEX_MAP_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/types/span.h"

namespace anvil {

struct IndexMap {
  using Table = std::shared_ptr<const std::vector<int64_t>>;

  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // of strided dims; 0 for a gathered one
  int64_t offset = 0;
  // Empty when no dim is gathered; otherwise one per dim, nullptr for a strided dim.
  std::vector<Table> tables;

  // The identity map of `dims` over a row-major target.
  static IndexMap RowMajor(absl::Span<const int64_t> dims);

  bool has_tables() const { return !tables.empty(); }
  bool gathered(size_t k) const { return has_tables() && tables[k] != nullptr; }
  int64_t Term(size_t k, int64_t i) const { return gathered(k) ? (*tables[k])[i] : strides[k] * i; }
  // Row-major strides over the target from offset 0: element i is target element i.
  bool IsRowMajorIdentity() const;
  // Every element is the same target element (all terms 0).
  bool IsSplat() const;

  // ---- Layout ops (the caller checked their arguments against dims) ----
  IndexMap Transpose(absl::Span<const int64_t> perm) const;
  // Numpy broadcast to `target` (new leading dims and dims of 1 get stride 0).
  IndexMap BroadcastTo(absl::Span<const int64_t> target) const;
  // starts/steps per dim (normalized: in range whenever the output dim is not 0), output dims.
  IndexMap Slice(absl::Span<const int64_t> starts, absl::Span<const int64_t> steps,
                 absl::Span<const int64_t> out_dims) const;
  // Dim `axis` becomes indices.size() long; position j is old position indices[j] (in range).
  IndexMap Gather(int64_t axis, absl::Span<const int64_t> indices) const;
  // The same elements seen as `new_dims` (same count); nullopt when no map of this target can.
  std::optional<IndexMap> Reshape(absl::Span<const int64_t> new_dims) const;

  // ---- Targets ----
  // Targets of rows [r0, r1) x columns [c0, c1) of the elements seen as a matrix (rows: all dims
  // but the last), row-major into `out` ((r1 - r0) * (c1 - c0) values).
  void BlockTargets(int64_t r0, int64_t r1, int64_t c0, int64_t c1, int64_t* out) const;
  // Replaces each of the `n` row-major element numbers in `flat` by its target. Consecutive
  // numbers along the last dim cost an addition, others one division per dim.
  void MapFlat(int64_t* flat, int64_t n) const;
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_INDEX_MAP_H_
