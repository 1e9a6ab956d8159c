// Reading remaps (disposable.h): a block of the elements is read tile by tile; a tile's targets
// come from the remap's map (index_map.h) and are fetched from its producer: a view gathers them
// from its buffer, a remap maps them on through its own map, and a selection (or lazy op)
// evaluates them by runs of consecutive elements, each distinct element once per tile.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "base/status_macros.h"
#include "constprop/disposable.h"
#include "kernels/dispatch.h"

namespace anvil {
namespace {

// Tile width when the last dim does not step by one element: tiles span rows, so that runs
// along another dim form.
constexpr int64_t kStridedTileCols = 256;
// Fewer runs than elements / kMinRunLength in tile order: evaluated in that order; more: the
// distinct targets are sorted into runs first.
constexpr int64_t kMinRunLength = 8;

template <typename T>
void GatherAt(const T* src, const int64_t* offsets, int64_t n, T* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[offsets[i]];
}

}  // namespace

absl::Status DisposableElements::EvaluateRemap(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                               uint8_t* dst, int64_t pitch) const {
  const size_t size = ElementSize(type_);
  const size_t rank = dims_.size();
  const bool unit_step =
      rank == 0 || (!map_.gathered(rank - 1) && std::abs(map_.strides[rank - 1]) == 1);
  const int64_t tile_cols = std::min(c1 - c0, unit_step ? kTileElements : kStridedTileCols);
  const int64_t tile_rows = std::max<int64_t>(1, std::min(r1 - r0, kTileElements / tile_cols));
  // Tiles of whole block rows land in `dst` as they are when its rows are contiguous.
  const bool direct = tile_cols == c1 - c0 && pitch == c1 - c0;
  std::vector<int64_t> targets(tile_rows * tile_cols);
  std::vector<uint8_t> scratch(direct ? 0 : tile_rows * tile_cols * size);
  for (int64_t rr = r0; rr < r1; rr += tile_rows) {
    const int64_t re = std::min(r1, rr + tile_rows);
    for (int64_t cc = c0; cc < c1; cc += tile_cols) {
      const int64_t ce = std::min(c1, cc + tile_cols);
      map_.BlockTargets(rr, re, cc, ce, targets.data());
      uint8_t* out = direct ? dst + (rr - r0) * pitch * size : scratch.data();
      ANVIL_RETURN_IF_ERROR(operands_[0]->Fetch(targets.data(), (re - rr) * (ce - cc), out));
      if (direct) continue;
      for (int64_t r = rr; r < re; ++r) {
        std::memcpy(dst + ((r - r0) * pitch + (cc - c0)) * size,
                    scratch.data() + (r - rr) * (ce - cc) * size, (ce - cc) * size);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DisposableElements::Fetch(int64_t* flat, int64_t n, uint8_t* dst) const {
  if (n == 0) return absl::OkStatus();
  switch (kind_) {
    case Kind::kRemap:
      map_.MapFlat(flat, n);
      return operands_[0]->Fetch(flat, n, dst);
    case Kind::kOp:
    case Kind::kSelect:
      return FetchByRuns(flat, n, dst);
    case Kind::kView:
      break;
  }
  // Buffer offsets: the elements' own numbers shifted for a dense view, else through the strides.
  if (IsDense()) {
    for (int64_t i = 0; i < n; ++i) flat[i] += offset_;
  } else {
    ViewMap().MapFlat(flat, n);
  }
  const uint8_t* src = buffer_->data();
  return DispatchBySize(type_, "constant", [&](auto tag) {
    using T = decltype(tag);
    GatherAt(reinterpret_cast<const T*>(src), flat, n, reinterpret_cast<T*>(dst));
    return absl::OkStatus();
  });
}

absl::Status DisposableElements::FetchByRuns(const int64_t* flat, int64_t n, uint8_t* dst) const {
  const size_t size = ElementSize(type_);
  int64_t runs = 1;
  for (int64_t i = 1; i < n; ++i) runs += flat[i] != flat[i - 1] + 1;
  if (runs * kMinRunLength <= n) {
    for (int64_t i = 0; i < n;) {
      int64_t len = 1;
      while (i + len < n && flat[i + len] == flat[i] + len) ++len;
      ANVIL_RETURN_IF_ERROR(EvaluateFlat(flat[i], len, dst + i * size));
      i += len;
    }
    return absl::OkStatus();
  }
  // Scattered targets: the distinct ones in order, evaluated run by run, then placed.
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return flat[a] < flat[b]; });
  std::vector<int64_t> distinct;
  std::vector<int64_t> slot(n);  // order position -> index into `distinct`
  for (int64_t k = 0; k < n; ++k) {
    const int64_t f = flat[order[k]];
    if (distinct.empty() || distinct.back() != f) distinct.push_back(f);
    slot[k] = static_cast<int64_t>(distinct.size()) - 1;
  }
  std::vector<uint8_t> values(distinct.size() * size);
  const int64_t m = static_cast<int64_t>(distinct.size());
  for (int64_t i = 0; i < m;) {
    int64_t len = 1;
    while (i + len < m && distinct[i + len] == distinct[i] + len) ++len;
    ANVIL_RETURN_IF_ERROR(EvaluateFlat(distinct[i], len, values.data() + i * size));
    i += len;
  }
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(dst + order[k] * size, values.data() + slot[k] * size, size);
  }
  return absl::OkStatus();
}

absl::Status DisposableElements::EvaluateFlat(int64_t first, int64_t n, uint8_t* dst) const {
  const size_t size = ElementSize(type_);
  const int64_t c = cols();
  int64_t r = first / c, col = first % c;
  if (col != 0) {  // the rest of a row
    const int64_t m = std::min(n, c - col);
    ANVIL_RETURN_IF_ERROR(Evaluate(r, r + 1, col, col + m, dst, m));
    dst += m * size;
    n -= m;
    ++r;
  }
  if (n >= c) {  // whole rows
    const int64_t k = n / c;
    ANVIL_RETURN_IF_ERROR(Evaluate(r, r + k, 0, c, dst, c));
    dst += k * c * size;
    n -= k * c;
    r += k;
  }
  if (n > 0) return Evaluate(r, r + 1, 0, n, dst, n);  // the start of a row
  return absl::OkStatus();
}

}  // namespace anvil
