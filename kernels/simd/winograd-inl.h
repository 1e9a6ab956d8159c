// Per-target body of simd/winograd.h (included once per target by winograd.cc).
#if defined(ANVIL_KERNELS_SIMD_WINOGRAD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_WINOGRAD_INL_H_
#undef ANVIL_KERNELS_SIMD_WINOGRAD_INL_H_
#else
#define ANVIL_KERNELS_SIMD_WINOGRAD_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/simd/masked_load-inl.h"
#include "kernels/simd/vector_math-inl.h"
#include "kernels/simd/winograd.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// The largest vector of floats of any target: the staging buffers hold one value per lane.
constexpr int64_t kMaxFloatLanes = HWY_MAX_BYTES / sizeof(float);

// y = B^T x for one column of six values:
//   [4  0 -5  0 1 0]
//   [0 -4 -4  1 1 0]
//   [0  4 -4 -1 1 0]
//   [0 -2 -1  2 1 0]
//   [0  2 -1 -2 1 0]
//   [0  4  0 -5 0 1]
template <class D, class V>
HWY_INLINE void InputColumn(D d, const V* x, V* y) {
  const V four = hn::Set(d, 4.0f), five = hn::Set(d, 5.0f), two = hn::Set(d, 2.0f);
  const V a = hn::NegMulAdd(four, x[2], x[4]);  // x4 - 4 x2
  const V b = hn::NegMulAdd(four, x[1], x[3]);  // x3 - 4 x1
  const V c = hn::Sub(x[4], x[2]);
  const V e = hn::Mul(two, hn::Sub(x[3], x[1]));
  y[0] = hn::NegMulAdd(five, x[2], hn::MulAdd(four, x[0], x[4]));
  y[1] = hn::Add(a, b);
  y[2] = hn::Sub(a, b);
  y[3] = hn::Add(c, e);
  y[4] = hn::Sub(c, e);
  y[5] = hn::NegMulAdd(five, x[3], hn::MulAdd(four, x[1], x[5]));
}

// y = A^T x for one column of six values:
//   [1 1  1 1  1 0]
//   [0 1 -1 2 -2 0]
//   [0 1  1 4  4 0]
//   [0 1 -1 8 -8 1]
template <class D, class V>
HWY_INLINE void OutputColumn(D d, const V* x, V* y) {
  const V p12 = hn::Add(x[1], x[2]), m12 = hn::Sub(x[1], x[2]);
  const V p34 = hn::Add(x[3], x[4]), m34 = hn::Sub(x[3], x[4]);
  y[0] = hn::Add(hn::Add(x[0], p12), p34);
  y[1] = hn::MulAdd(hn::Set(d, 2.0f), m34, m12);
  y[2] = hn::MulAdd(hn::Set(d, 4.0f), p34, p12);
  y[3] = hn::Add(hn::MulAdd(hn::Set(d, 8.0f), m34, m12), x[5]);
}

// F(2x2, 3x3)'s y = B^T x for one column of four values:
//   [1  0 -1  0]
//   [0  1  1  0]
//   [0 -1  1  0]
//   [0  1  0 -1]
template <class D, class V>
HWY_INLINE void InputColumn2(D, const V* x, V* y) {
  y[0] = hn::Sub(x[0], x[2]);
  y[1] = hn::Add(x[1], x[2]);
  y[2] = hn::Sub(x[2], x[1]);
  y[3] = hn::Sub(x[1], x[3]);
}

// F(2x2, 3x3)'s y = A^T x for one column of four values:
//   [1 1  1  0]
//   [0 1 -1 -1]
template <class D, class V>
HWY_INLINE void OutputColumn2(D, const V* x, V* y) {
  y[0] = hn::Add(hn::Add(x[0], x[1]), x[2]);
  y[1] = hn::Sub(hn::Sub(x[1], x[2]), x[3]);
}

// The column transforms of the tile with kOut outputs per side (4: F(4x4, 3x3), 2: F(2x2, 3x3)).
template <int64_t kOut, class D, class V>
HWY_INLINE void InputColumnOf(D d, const V* x, V* y) {
  if constexpr (kOut == 4) {
    InputColumn(d, x, y);
  } else {
    static_assert(kOut == 2, "Winograd tiles of 4 or 2 outputs per side");
    InputColumn2(d, x, y);
  }
}
template <int64_t kOut, class D, class V>
HWY_INLINE void OutputColumnOf(D d, const V* x, V* y) {
  if constexpr (kOut == 4) {
    OutputColumn(d, x, y);
  } else {
    OutputColumn2(d, x, y);
  }
}

#if HWY_TARGET != HWY_SCALAR
// Lanes 4b + q of r[0..3] as rows: block b (four floats) of t[q] = r[0..3][4b + q]. A 4x4
// transpose within each 128-bit block.
template <class D, class V>
HWY_INLINE void TransposeBlocks(D d, const V* r, V* t) {
  const V a = hn::InterleaveLower(d, r[0], r[2]), b = hn::InterleaveLower(d, r[1], r[3]);
  const V c = hn::InterleaveUpper(d, r[0], r[2]), e = hn::InterleaveUpper(d, r[1], r[3]);
  t[0] = hn::InterleaveLower(d, a, b);
  t[1] = hn::InterleaveUpper(d, a, b);
  t[2] = hn::InterleaveLower(d, c, e);
  t[3] = hn::InterleaveUpper(d, c, e);
}
#endif

#if HWY_TARGET != HWY_SCALAR
// Whether the input transform loads window rows (LoadWindowsByRows) rather than gathering: on
// x86 from AVX2 on, whose masked loads do not touch (or fault on) the lanes they leave out, with
// vectors of 8 or 16 floats.
template <class D>
constexpr bool kBlockRows = HWY_ARCH_X86&& HWY_TARGET <= HWY_AVX2 &&
                            (hn::MaxLanes(D()) == 8 || hn::MaxLanes(D()) == 16);

// A vector of the L / 4 blocks x[0], x[1], ... (block b in lanes 4b..4b+3), L = 8 or 16.
template <class D>
HWY_INLINE hn::Vec<D> FromBlocks(D d, const hn::Vec<hn::Full128<float>>* x) {
  if constexpr (hn::MaxLanes(D()) == 8) {
    return hn::Combine(d, x[1], x[0]);
  } else {
    const hn::Half<D> dh;
    return hn::Combine(d, hn::Combine(dh, x[3], x[2]), hn::Combine(dh, x[1], x[0]));
  }
}

// Stores the first `cols` (1 to 4) floats of block `blk` of v (L = 8 or 16) to p.
template <class D>
HWY_INLINE void StoreBlock(D d, hn::Vec<D> v, int64_t blk, int64_t cols, float* p) {
  const hn::Full128<float> d4;
  hn::Vec<decltype(d4)> x;
  if constexpr (hn::MaxLanes(D()) == 8) {
    (void)d;
    x = blk == 0 ? hn::LowerHalf(d4, v) : hn::UpperHalf(d4, v);
  } else {
    const hn::Half<D> dh;
    const auto half = blk < 2 ? hn::LowerHalf(dh, v) : hn::UpperHalf(dh, v);
    x = blk % 2 == 0 ? hn::LowerHalf(d4, half) : hn::UpperHalf(d4, half);
  }
  if (cols == 4) {
    hn::StoreU(x, d4, p);
  } else {
    hn::BlendedStore(x, hn::FirstN(d4, static_cast<size_t>(cols)), d4, p);
  }
}

// The 36 window elements of channel `src` for a vector of tiles (lane l: tile l), loaded by rows
// instead of gathered: per window row, each tile's columns 0-3 and 4-5 are two 4-float loads,
// block b of load vector j holding tile 4b + j, and a 4x4 transpose within each block puts
// tile l's column s in lane l of x[r * 6 + s]. The values of the gather: elements a tile's mask
// leaves out (padding, missing tiles) are zeros, and nothing outside them is read.
template <class D>
HWY_INLINE void LoadWindowsByRows(D d, const float* src, const int32_t* offset, int64_t width,
                                  const bool (*row_ok)[kMaxFloatLanes],
                                  const hn::Mask<hn::Full128<float>> (*col_mask)[kMaxFloatLanes],
                                  hn::Vec<D>* x) {
  using V = hn::Vec<D>;
  const hn::Full128<float> d4;
  using V4 = hn::Vec<decltype(d4)>;
  constexpr int64_t kIn = kWinogradInTile;
  constexpr int64_t kBlocks = static_cast<int64_t>(hn::MaxLanes(D())) / 4;
  HWY_UNROLL(6)
  for (int64_t r = 0; r < kIn; ++r) {
    HWY_UNROLL(2)
    for (int64_t h = 0; h < 2; ++h) {
      V rows[4];
      HWY_UNROLL(4)
      for (int64_t j = 0; j < 4; ++j) {
        V4 blocks[4];
        HWY_UNROLL(4)
        for (int64_t b = 0; b < kBlocks; ++b) {
          const int64_t l = 4 * b + j;
          // Address arithmetic in integers: a left-edge window starts before the plane, at a
          // lane its mask leaves out.
          const float* p = reinterpret_cast<const float*>(
              reinterpret_cast<uintptr_t>(src) +
              static_cast<uintptr_t>((offset[l] + r * width + 4 * h) * int64_t{sizeof(float)}));
          blocks[b] = row_ok[r][l] ? SafeMaskedLoad(col_mask[h][l], d4, p) : hn::Zero(d4);
        }
        rows[j] = FromBlocks(d, blocks);
      }
      V cols[4];
      TransposeBlocks(d, rows, cols);
      HWY_UNROLL(4)
      for (int64_t q = 0; q < 4; ++q) {
        if (4 * h + q < kIn) x[r * kIn + 4 * h + q] = cols[q];
      }
    }
  }
}
#endif

// The input transform of one channel's 36 window vectors x (row-major 6 x 6, clobbered), by
// columns and then by rows in registers: point xi's vector goes to dst + xi * point_stride,
// its first `lanes` lanes only when that is not all of them.
template <int64_t kOut = kWinogradOutTile, class D, class V = hn::Vec<D>>
HWY_INLINE void TransformAndStoreInput(D d, V* x, int64_t lanes, float* dst, int64_t point_stride) {
  constexpr int64_t kIn = kOut + 2;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const auto store_mask = hn::FirstN(d, static_cast<size_t>(lanes));
  V y[kIn * kIn];
  // Columns: y[a][s] = (B^T x)[a][s].
  for (int64_t s = 0; s < kIn; ++s) {
    V col[kIn], out[kIn];
    for (int64_t r = 0; r < kIn; ++r) col[r] = x[r * kIn + s];
    InputColumnOf<kOut>(d, col, out);
    for (int64_t a = 0; a < kIn; ++a) y[a * kIn + s] = out[a];
  }
  // Rows: (y B)[a][b] = (B^T y^T)[b] of row a.
  for (int64_t a = 0; a < kIn; ++a) {
    V out[kIn];
    InputColumnOf<kOut>(d, y + a * kIn, out);
    for (int64_t b = 0; b < kIn; ++b) {
      float* p = dst + (a * kIn + b) * point_stride;
      if (lanes == L) {
        hn::StoreU(out[b], d, p);
      } else {
        hn::BlendedStore(out[b], store_mask, d, p);
      }
    }
  }
}

// One vector of tiles per step, lane j holding tile j: the 36 window elements of a channel are
// gathered (a masked-off lane reads element 0 and becomes a zero: the padding), transformed by
// columns and then by rows in registers, and stored to their 36 rows of v.
HWY_NOINLINE void WinogradInputImpl(const float* in, int64_t channels, const WinogradTiles& t,
                                    float* v, int64_t ldv, int64_t point_stride) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  using M = hn::Mask<decltype(d)>;
  constexpr int64_t kIn = kWinogradInTile;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN int32_t offset[kMaxFloatLanes], row0[kMaxFloatLanes], col0[kMaxFloatLanes];
  const int64_t plane = t.height * t.width;
  for (int64_t j0 = 0; j0 < t.count; j0 += L) {
    const int64_t lanes = t.count - j0 < L ? t.count - j0 : L;
    bool inside = lanes == L;
    for (int64_t l = 0; l < L; ++l) {
      if (l >= lanes) {  // no tile: every element masked off
        offset[l] = 0;
        row0[l] = col0[l] = -static_cast<int32_t>(kIn);
        continue;
      }
      const int64_t j = j0 + l, r = t.row0[j], c = t.col0[j];
      offset[l] = static_cast<int32_t>(t.image_offset[j] + r * t.width + c);
      row0[l] = static_cast<int32_t>(r);
      col0[l] = static_cast<int32_t>(c);
      inside = inside && r >= 0 && c >= 0 && r + kIn <= t.height && c + kIn <= t.width;
    }
    const auto base = hn::Load(di, offset);
    M row_ok[kIn], col_ok[kIn];
    if (!inside) {
      const auto r0 = hn::Load(di, row0), c0 = hn::Load(di, col0);
      const auto height = hn::Set(di, static_cast<int32_t>(t.height));
      const auto width = hn::Set(di, static_cast<int32_t>(t.width));
      const auto minus_one = hn::Set(di, -1);
      for (int64_t r = 0; r < kIn; ++r) {
        const auto row = hn::Add(r0, hn::Set(di, static_cast<int32_t>(r)));
        row_ok[r] = hn::RebindMask(d, hn::And(hn::Gt(row, minus_one), hn::Lt(row, height)));
        const auto col = hn::Add(c0, hn::Set(di, static_cast<int32_t>(r)));
        col_ok[r] = hn::RebindMask(d, hn::And(hn::Gt(col, minus_one), hn::Lt(col, width)));
      }
    }
#if HWY_TARGET != HWY_SCALAR
    // Row loads (LoadWindowsByRows): which rows of each tile's window lie in the plane, and
    // which of its columns 0-3 and 4-5.
    bool tile_row_ok[kIn][kMaxFloatLanes];
    hn::Mask<hn::Full128<float>> tile_col_mask[2][kMaxFloatLanes];
    if constexpr (kBlockRows<decltype(d)>) {
      const hn::Full128<float> d4;
      for (int64_t l = 0; l < L; ++l) {
        for (int64_t r = 0; r < kIn; ++r) {
          tile_row_ok[r][l] = l < lanes && row0[l] + r >= 0 && row0[l] + r < t.height;
        }
        for (int64_t h = 0; h < 2; ++h) {
          // Columns col0 + 4h + q for q < (h == 0 ? 4 : 2) that lie in [0, width).
          const int64_t first = col0[l] + 4 * h;
          const int64_t lo = first < 0 ? -first : 0;
          const int64_t n = h == 0 ? 4 : 2;
          const int64_t hi = t.width - first < n ? t.width - first : n;
          tile_col_mask[h][l] = hi <= lo ? hn::FirstN(d4, 0)
                                         : hn::AndNot(hn::FirstN(d4, static_cast<size_t>(lo)),
                                                      hn::FirstN(d4, static_cast<size_t>(hi)));
        }
      }
    }
#endif
    for (int64_t c = 0; c < channels; ++c) {
      const float* src = in + c * plane;
      V x[kWinogradPoints];
#if HWY_TARGET != HWY_SCALAR
      if constexpr (kBlockRows<decltype(d)>) {
        LoadWindowsByRows(d, src, offset, t.width, tile_row_ok, tile_col_mask, x);
      } else
#endif
        for (int64_t r = 0; r < kIn; ++r) {
          for (int64_t s = 0; s < kIn; ++s) {
            const auto idx = hn::Add(base, hn::Set(di, static_cast<int32_t>(r * t.width + s)));
            if (inside) {
              x[r * kIn + s] = hn::GatherIndex(d, src, idx);
            } else {
              const M ok = hn::And(row_ok[r], col_ok[s]);
              const auto safe = hn::IfThenElseZero(hn::RebindMask(di, ok), idx);
              x[r * kIn + s] = hn::IfThenElseZero(ok, hn::GatherIndex(d, src, safe));
            }
          }
        }
      TransformAndStoreInput(d, x, lanes, v + c * ldv + j0, point_stride);
    }
  }
}

// The first stage of the output transform: y[i][c] = (A^T m)[i][c] (4 x 6) for the 36 product
// vectors of m (point xi at m + xi * point_stride), each column's six loaded as it is
// transformed (an array of all 36 would live on the stack: 36 vectors, 32 registers). A partial
// vector (lanes < L) reads whole (SSE4's MaskedLoad needs alignment) into the slack winograd.h
// asks of `products`, and keeps its lanes.
template <int64_t kOut = kWinogradOutTile, class D, class V = hn::Vec<D>>
HWY_INLINE void LoadOutputColumns(D d, const float* m, int64_t point_stride, int64_t lanes, V* y) {
  constexpr int64_t kIn = kOut + 2;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const auto load_mask = hn::FirstN(d, static_cast<size_t>(lanes));
  HWY_UNROLL(6)
  for (int64_t c = 0; c < kIn; ++c) {
    V col[kIn], res[kOut];
    HWY_UNROLL(6)
    for (int64_t r = 0; r < kIn; ++r) {
      const float* src = m + (r * kIn + c) * point_stride;
      col[r] = lanes == L ? hn::LoadU(d, src) : hn::IfThenElseZero(load_mask, hn::LoadU(d, src));
      hwy::Prefetch(src + L);
    }
    OutputColumnOf<kOut>(d, col, res);
    HWY_UNROLL(4)
    for (int64_t i = 0; i < kOut; ++i) y[i * kIn + c] = res[i];
  }
}

// One output channel and one vector of tiles per step (channels outer, so the 36 rows of
// products stream forward): the 36 products load as vectors, the transform runs by columns and
// then by rows in registers, each output row of four tiles is transposed so that a tile's four
// values are adjacent, and each tile row is copied to its place (tile rows are scattered over
// the output planes, four floats each).
HWY_NOINLINE void WinogradOutputImpl(const float* products, int64_t ldm, int64_t point_stride,
                                     int64_t K, const float* bias, const Epilogue& epilogue,
                                     const WinogradTiles& t, float* out) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kOut = kWinogradOutTile, kIn = kWinogradInTile;
  // Rows of the transposed results: tile 4b + q's row i at stage[(i * 4 + q) * L + 4b].
  HWY_ALIGN float stage[kOut * kOut * kMaxFloatLanes];
  for (int64_t k = 0; k < K; ++k) {
    const V b = hn::Set(d, bias != nullptr ? bias[k] : 0.0f);
    float* plane = out + k * t.out_plane;
    for (int64_t j0 = 0; j0 < t.count; j0 += L) {
      const int64_t lanes = t.count - j0 < L ? t.count - j0 : L;
      V y[kOut * kIn];
      LoadOutputColumns(d, products + k * ldm + j0, point_stride, lanes, y);
      HWY_UNROLL(4)
      for (int64_t i = 0; i < kOut; ++i) {
        V res[kOut];
        OutputColumn(d, y + i * kIn, res);
        HWY_UNROLL(4)
        for (int64_t j = 0; j < kOut; ++j) res[j] = ApplyEpilogue(d, epilogue, hn::Add(res[j], b));
#if HWY_TARGET != HWY_SCALAR
        V rows[kOut];
        if constexpr (kBlockRows<decltype(d)>) {
          // Each tile's row i straight from its block: tile 4b + q is block b of rows[q].
          TransposeBlocks(d, res, rows);
          HWY_UNROLL(4)
          for (int64_t q = 0; q < kOut; ++q) {
            HWY_UNROLL(4)
            for (int64_t blk = 0; blk < L / 4; ++blk) {
              const int64_t tile = j0 + 4 * blk + q;
              if (4 * blk + q >= lanes || i >= t.out_rows[tile]) continue;
              StoreBlock(d, rows[q], blk, t.out_cols[tile],
                         plane + t.out_offset[tile] + i * t.out_width);
            }
          }
          continue;
        }
        if (L % 4 == 0) {
          TransposeBlocks(d, res, rows);
          for (int64_t q = 0; q < kOut; ++q) hn::Store(rows[q], d, stage + (i * kOut + q) * L);
          continue;
        }
#endif
        {  // fewer than four lanes: the same layout, lane by lane
          HWY_ALIGN float lane_values[kMaxFloatLanes];
          for (int64_t j = 0; j < kOut; ++j) {
            hn::Store(res[j], d, lane_values);
            for (int64_t l = 0; l < L; ++l) {
              stage[(i * kOut + l % 4) * L + l / 4 * 4 + j] = lane_values[l];
            }
          }
        }
      }
#if HWY_TARGET != HWY_SCALAR
      if constexpr (kBlockRows<decltype(d)>) continue;  // stored above
#endif
      for (int64_t l = 0; l < lanes; ++l) {
        const int64_t tile = j0 + l;
        float* dst = plane + t.out_offset[tile];
        const float* src = stage + (l % 4) * L + l / 4 * 4;
        const int64_t rows = t.out_rows[tile], cols = t.out_cols[tile];
        if (rows == kOut && cols == kOut) {
          for (int64_t i = 0; i < kOut; ++i) {
            std::memcpy(dst + i * t.out_width, src + i * kOut * L, kOut * sizeof(float));
          }
          continue;
        }
        for (int64_t i = 0; i < rows; ++i) {
          std::memcpy(dst + i * t.out_width, src + i * kOut * L, cols * sizeof(float));
        }
      }
    }
  }
}

// The input transform for the channel-major layout (few tiles): one tile and one vector of
// input channels per step (lane l: channel c0 + l), the window elements gathered across the
// channels' planes. Whether an element lies in the plane is the same for every lane, so padding
// is a zero vector rather than a mask per lane.
template <int64_t kOut>
HWY_INLINE void InputByChannels(const float* in, int64_t channels, const WinogradTiles& t, float* v,
                                int64_t ldv, int64_t point_stride) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  using V = hn::Vec<decltype(d)>;
  constexpr int64_t kIn = kOut + 2;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  const int64_t plane = t.height * t.width;
  // Lane l reads channel l's plane: offsets l * plane (below 2^31: WinogradApplies bounds the
  // input), lanes past `channels` read channel 0 instead and are not stored.
  const auto lane_offsets = hn::Mul(hn::Iota(di, 0), hn::Set(di, static_cast<int32_t>(plane)));
  for (int64_t c0 = 0; c0 < channels; c0 += L) {
    const int64_t lanes = channels - c0 < L ? channels - c0 : L;
    const auto index = hn::IfThenElseZero(
        hn::RebindMask(di, hn::FirstN(d, static_cast<size_t>(lanes))), lane_offsets);
    const float* src = in + c0 * plane;
    for (int64_t tile = 0; tile < t.count; ++tile) {
      const int64_t r0 = t.row0[tile], s0 = t.col0[tile];
      const float* window = src + t.image_offset[tile];
      V x[kIn * kIn];
      for (int64_t r = 0; r < kIn; ++r) {
        const bool row_ok = r0 + r >= 0 && r0 + r < t.height;
        for (int64_t s = 0; s < kIn; ++s) {
          const bool ok = row_ok && s0 + s >= 0 && s0 + s < t.width;
          x[r * kIn + s] =
              ok ? hn::GatherIndex(d, window + (r0 + r) * t.width + s0 + s, index) : hn::Zero(d);
        }
      }
      TransformAndStoreInput<kOut>(d, x, lanes, v + tile * ldv + c0, point_stride);
    }
  }
}

HWY_NOINLINE void WinogradInputByChannelsImpl(const float* in, int64_t channels,
                                              const WinogradTiles& t, float* v, int64_t ldv,
                                              int64_t point_stride) {
  InputByChannels<kWinogradOutTile>(in, channels, t, v, ldv, point_stride);
}

HWY_NOINLINE void Winograd2InputByChannelsImpl(const float* in, int64_t channels,
                                               const WinogradTiles& t, float* v, int64_t ldv,
                                               int64_t point_stride) {
  InputByChannels<kWinograd2OutTile>(in, channels, t, v, ldv, point_stride);
}

// The channel-major layout (few tiles): one tile and one vector of output channels per step
// (lane l: channel k0 + l), the 36 products of a point contiguous over channels. The transform
// is WinogradOutputImpl's, lane for lane; the 16 results per lane are staged and copied to the
// lane's output plane, where a tile's row is four floats (a scatter over planes either way).
template <int64_t kOut>
HWY_INLINE void OutputByChannels(const float* products, int64_t ldm, int64_t point_stride,
                                 int64_t K, const float* bias, const Epilogue& epilogue,
                                 const WinogradTiles& t, float* out) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t L = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kIn = kOut + 2;
  // stage[(i * 4 + j) * L + l]: output row i, column j of channel k0 + l.
  HWY_ALIGN float stage[kOut * kOut * kMaxFloatLanes];
  for (int64_t k0 = 0; k0 < K; k0 += L) {
    const int64_t lanes = K - k0 < L ? K - k0 : L;
    const auto mask = hn::FirstN(d, static_cast<size_t>(lanes));
    const V b = bias == nullptr
                    ? hn::Zero(d)
                    : (lanes == L ? hn::LoadU(d, bias + k0) : SafeMaskedLoad(mask, d, bias + k0));
    for (int64_t tile = 0; tile < t.count; ++tile) {
      V y[kOut * kIn];
      LoadOutputColumns<kOut>(d, products + tile * ldm + k0, point_stride, lanes, y);
      HWY_UNROLL(4)
      for (int64_t i = 0; i < kOut; ++i) {
        V res[kOut];
        OutputColumnOf<kOut>(d, y + i * kIn, res);
        HWY_UNROLL(4)
        for (int64_t j = 0; j < kOut; ++j) {
          hn::Store(ApplyEpilogue(d, epilogue, hn::Add(res[j], b)), d, stage + (i * kOut + j) * L);
        }
      }
      const int64_t rows = t.out_rows[tile], cols = t.out_cols[tile];
      float* dst = out + t.out_offset[tile] + k0 * t.out_plane;
      for (int64_t l = 0; l < lanes; ++l) {
        float* plane = dst + l * t.out_plane;
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j)
            plane[i * t.out_width + j] = stage[(i * kOut + j) * L + l];
        }
      }
    }
  }
}

HWY_NOINLINE void WinogradOutputByChannelsImpl(const float* products, int64_t ldm,
                                               int64_t point_stride, int64_t K, const float* bias,
                                               const Epilogue& epilogue, const WinogradTiles& t,
                                               float* out) {
  OutputByChannels<kWinogradOutTile>(products, ldm, point_stride, K, bias, epilogue, t, out);
}

HWY_NOINLINE void Winograd2OutputByChannelsImpl(const float* products, int64_t ldm,
                                                int64_t point_stride, int64_t K, const float* bias,
                                                const Epilogue& epilogue, const WinogradTiles& t,
                                                float* out) {
  OutputByChannels<kWinograd2OutTile>(products, ldm, point_stride, K, bias, epilogue, t, out);
}

}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ANVIL_KERNELS_SIMD_WINOGRAD_INL_H_
