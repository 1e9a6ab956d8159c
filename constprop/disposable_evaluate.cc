// Reading DisposableElements: gathering a view's elements and evaluating lazy ops tile by tile.
//
// Everything goes through Evaluate on a block of the elements seen as a matrix (rows: all dims
// but the last; columns: the last dim). A view gathers its block from the buffer, in tiles whose
// loop order follows the smaller stride, so a transposed view reads whole cache lines. A lazy op
// evaluates its operands into tile-sized scratch buffers (at most kTileElements elements each)
// and runs its kernel on them: memory beyond the destination is a few tiles per op, whatever the
// tensor's size.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/status_macros.h"
#include "constprop/disposable.h"
#include "constprop/lazy_op.h"
#include "kernels/dispatch.h"
#include "kernels/tensor_view.h"

namespace anvil {
namespace {

// Gather tiles of a strided view: rows x columns small enough for L1/L2.
constexpr int64_t kGatherRows = 64;
constexpr int64_t kGatherCols = 1024;

template <typename T>
void GatherRows(const T* src, const int64_t* base, int64_t nrows, int64_t c0, int64_t c1,
                int64_t col_stride, T* dst, int64_t pitch) {
  const int64_t ncols = c1 - c0;
  if (col_stride == 1) {
    for (int64_t i = 0; i < nrows; ++i) {
      std::memcpy(dst + i * pitch, src + base[i] + c0, ncols * sizeof(T));
    }
  } else if (col_stride == 0) {
    for (int64_t i = 0; i < nrows; ++i) std::fill_n(dst + i * pitch, ncols, src[base[i]]);
  } else if (nrows > 1 && std::abs(base[1] - base[0]) < std::abs(col_stride)) {
    // Rows lie closer than columns (a transposed view): walk down the rows, tile by tile.
    for (int64_t rb = 0; rb < nrows; rb += kGatherRows) {
      const int64_t re = std::min(nrows, rb + kGatherRows);
      for (int64_t cb = c0; cb < c1; cb += kGatherCols) {
        const int64_t ce = std::min(c1, cb + kGatherCols);
        for (int64_t c = cb; c < ce; ++c) {
          const T* column = src + c * col_stride;
          for (int64_t i = rb; i < re; ++i) dst[i * pitch + (c - c0)] = column[base[i]];
        }
      }
    }
  } else {
    for (int64_t i = 0; i < nrows; ++i) {
      const T* row = src + base[i];
      T* out = dst + i * pitch;
      for (int64_t c = c0; c < c1; ++c) out[c - c0] = row[c * col_stride];
    }
  }
}

[[noreturn]] void DieOnEvaluationError(const absl::Status& status) {
  // Lazy ops are test-evaluated when created (fold_evaluate.cc) and only ops that cannot fail on
  // data are made lazy, so this is a broken invariant, not bad input.
  std::fprintf(stderr, "anvil: internal error computing a folded constant: %s\n",
               status.ToString().c_str());
  std::abort();
}

}  // namespace

absl::Status DisposableElements::Evaluate(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                          uint8_t* dst, int64_t pitch) const {
  if (r1 <= r0 || c1 <= c0) return absl::OkStatus();
  switch (kind_) {
    case Kind::kView:
      return EvaluateView(r0, r1, c0, c1, dst, pitch);
    case Kind::kOp:
      return EvaluateOp(r0, r1, c0, c1, dst, pitch);
    case Kind::kSelect:
      return EvaluateSelect(r0, r1, c0, c1, dst, pitch);
    case Kind::kRemap:
      return EvaluateRemap(r0, r1, c0, c1, dst, pitch);
  }
  return absl::InternalError("unknown constant kind");
}

absl::Status DisposableElements::EvaluateView(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                              uint8_t* dst, int64_t pitch) const {
  const int64_t rank = static_cast<int64_t>(dims_.size());
  const int64_t nrows = r1 - r0;
  // Offset of each row's first element: the multi-index of row r0, then an odometer.
  std::vector<int64_t> base(nrows);
  const int64_t outer = std::max<int64_t>(rank - 1, 0);
  std::vector<int64_t> index(outer, 0);
  int64_t off = offset_;
  for (int64_t k = outer - 1, r = r0; k >= 0; --k) {
    index[k] = r % dims_[k];
    r /= dims_[k];
    off += index[k] * strides_[k];
  }
  for (int64_t i = 0; i < nrows; ++i) {
    base[i] = off;
    for (int64_t k = outer - 1; k >= 0; --k) {
      if (++index[k] < dims_[k]) {
        off += strides_[k];
        break;
      }
      off -= strides_[k] * (dims_[k] - 1);
      index[k] = 0;
    }
  }
  const int64_t col_stride = rank == 0 ? 0 : strides_.back();
  const uint8_t* src = buffer_->data();
  return DispatchBySize(type_, "constant", [&](auto tag) {
    using T = decltype(tag);
    GatherRows(reinterpret_cast<const T*>(src), base.data(), nrows, c0, c1, col_stride,
               reinterpret_cast<T*>(dst), pitch);
    return absl::OkStatus();
  });
}

absl::Status DisposableElements::EvaluateOp(int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                                            uint8_t* dst, int64_t pitch) const {
  const size_t out_size = ElementSize(type_);
  const int64_t tile_cols = std::min(c1 - c0, kTileElements);
  const int64_t tile_rows = std::max<int64_t>(1, std::min(r1 - r0, kTileElements / tile_cols));
  const int64_t tile = tile_rows * tile_cols;
  // Scratch per operand (splats are read once and passed as scalars), and for the output when
  // the destination rows are not one contiguous run.
  std::vector<std::vector<uint8_t>> scratch(operands_.size());
  std::vector<TensorView> views(operands_.size());
  for (size_t k = 0; k < operands_.size(); ++k) {
    const DisposableElements* operand = operands_[k].get();
    if (operand == nullptr) continue;  // an absent optional input: an undefined view
    const size_t size = ElementSize(operand->element_type());
    if (operand->IsSplat()) {
      scratch[k].resize(size);
      std::memcpy(scratch[k].data(), operand->buffer_->data() + operand->offset_ * size, size);
      views[k] = TensorView::Dense(operand->element_type(), scratch[k].data(), {});
    } else {
      scratch[k].resize(tile * size);
    }
  }
  std::vector<uint8_t> out_scratch;
  // Tiles of whole block rows land in `dst` as they are when its rows are contiguous.
  const bool direct = tile_cols == c1 - c0 && pitch == c1 - c0;
  if (!direct) out_scratch.resize(tile * out_size);

  for (int64_t rr = r0; rr < r1; rr += tile_rows) {
    const int64_t re = std::min(r1, rr + tile_rows);
    for (int64_t cc = c0; cc < c1; cc += tile_cols) {
      const int64_t ce = std::min(c1, cc + tile_cols);
      const int64_t n = (re - rr) * (ce - cc);
      for (size_t k = 0; k < operands_.size(); ++k) {
        const DisposableElements* operand = operands_[k].get();
        if (operand == nullptr || operand->IsSplat()) continue;
        ANVIL_RETURN_IF_ERROR(operand->Evaluate(rr, re, cc, ce, scratch[k].data(), ce - cc));
        views[k] = TensorView::Dense(operand->element_type(), scratch[k].data(), {n});
      }
      uint8_t* out = direct ? dst + ((rr - r0) * pitch) * out_size : out_scratch.data();
      ANVIL_RETURN_IF_ERROR(op_->Run(views, TensorView::Dense(type_, out, {n})));
      if (!direct) {
        for (int64_t r = rr; r < re; ++r) {
          std::memcpy(dst + ((r - r0) * pitch + (cc - c0)) * out_size,
                      out_scratch.data() + (r - rr) * (ce - cc) * out_size, (ce - cc) * out_size);
        }
      }
    }
  }
  return absl::OkStatus();
}

void DisposableElements::CopyTo(uint8_t* dst) const {
  if (NumElements() == 0) return;
  if (const uint8_t* src = ContiguousData()) {
    std::memcpy(dst, src, ByteSize());
    return;
  }
  if (absl::Status s = Evaluate(0, rows(), 0, cols(), dst, cols()); !s.ok()) {
    DieOnEvaluationError(s);
  }
}

void DisposableElements::ReadElement(int64_t i, uint8_t* dst) const {
  // A small aligned run around the element rather than the element alone: kernels take another
  // path for a single element (a scalar loop, not SIMD), which could differ in the last bit from
  // what CopyTo computes.
  constexpr int64_t kRun = 64;
  const int64_t c = cols(), r = i / c, col = i % c;
  int64_t r0 = r, r1 = r + 1, c0 = col - col % kRun, c1 = std::min(c, c0 + kRun);
  if (c == 1) {
    r0 = r - r % kRun;
    r1 = std::min(rows(), r0 + kRun);
    if (r1 - r0 == 1 && r0 > 0) --r0;
  } else if (c1 - c0 == 1) {
    --c0;
  }
  const size_t size = ElementSize(type_);
  uint8_t run[kRun * 16];
  if (absl::Status s = Evaluate(r0, r1, c0, c1, run, c1 - c0); !s.ok()) DieOnEvaluationError(s);
  std::memcpy(dst, run + ((r - r0) * (c1 - c0) + (col - c0)) * size, size);
}

absl::Status DisposableElements::ForEachChunk(size_t max_chunk_bytes, const ChunkFn& fn) const {
  if (NumElements() == 0) return absl::OkStatus();
  if (ContiguousData() != nullptr) return Elements::ForEachChunk(max_chunk_bytes, fn);
  const int64_t size = static_cast<int64_t>(ElementSize(type_));
  const int64_t row_bytes = cols() * size;
  const int64_t max_bytes = std::max<int64_t>(static_cast<int64_t>(max_chunk_bytes), size);
  std::vector<uint8_t> piece;
  if (row_bytes <= max_bytes) {
    // Bands of whole rows.
    const int64_t band = std::max<int64_t>(1, max_bytes / row_bytes);
    piece.resize(std::min(band, rows()) * row_bytes);
    for (int64_t r = 0; r < rows(); r += band) {
      const int64_t re = std::min(rows(), r + band);
      ANVIL_RETURN_IF_ERROR(Evaluate(r, re, 0, cols(), piece.data(), cols()));
      ANVIL_RETURN_IF_ERROR(fn(absl::MakeConstSpan(piece.data(), (re - r) * row_bytes)));
    }
    return absl::OkStatus();
  }
  // Rows longer than a piece: each row in pieces.
  const int64_t per_piece = max_bytes / size;
  piece.resize(per_piece * size);
  for (int64_t r = 0; r < rows(); ++r) {
    for (int64_t c = 0; c < cols(); c += per_piece) {
      const int64_t ce = std::min(cols(), c + per_piece);
      ANVIL_RETURN_IF_ERROR(Evaluate(r, r + 1, c, ce, piece.data(), ce - c));
      ANVIL_RETURN_IF_ERROR(fn(absl::MakeConstSpan(piece.data(), (ce - c) * size)));
    }
  }
  return absl::OkStatus();
}

}  // namespace anvil
