// Runtime dispatch of simd/nbits.h's int8 GEMM: MatMulNBits with accuracy_level 4 on many rows of
// A (a prompt), as ONNX Runtime computes it there too.
//
// W is unpacked per panel of 16 columns into bytes holding its 4-bit values (0..15), laid out so
// that one 32-byte vector holds 8 columns' 4 consecutive k: panel[(k / 4) * 64 + c * 4 + k % 4].
// A row's int8 values are broadcast 4 at a time; vpmaddubsw multiplies them by the panel's
// unsigned bytes and adds adjacent pairs into int16 (at most 2 * 15 * 128 = 3840 in magnitude:
// a_q is an int8), which are summed over a chunk of at most 32 k in int16 (8 such pairs: at
// most 30720, no overflow whatever the input), then widened to int32 by vpmaddwd. Per chunk, in
// float:
//   y += (a_scale * w_scale) * dot - (a_scale * sum of a_q) * (w_scale * zero)
// which is a_scale * w_scale * sum (q - zero) a_q, the matrix-vector path's exact block sums.
// Against the float GEMM (8 multiply-adds per FMA), one vpmaddubsw does 32. A tile of 4 rows x 16
// columns keeps 8 int16 sums, 2 panel vectors and the broadcasts in registers (6 rows fit the 16
// registers too, but measured 10-20% slower on Zen 3); the panel, unpacked once, serves every
// row of A. Measured on Zen 3 (AVX2): 2x the float GEMM's multiply-adds per
// second on a 512-token prompt (nbits_benchmark's GemmInt8 against gemm_benchmark).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/simd/nbits.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/nbits_gemm.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

constexpr int64_t kPanelCols = 16;
constexpr int64_t kTileRows = 4;

// The targets nbits.cc's Int4ByteProductsSupported says yes for.
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// Highway 1.0.3 has no u8 x i8 pairwise product: the one raw intrinsic of this file.
HWY_INLINE hn::Vec256<int16_t> BytePairs(hn::Vec256<uint8_t> u, hn::Vec256<int8_t> s) {
  return hn::Vec256<int16_t>{_mm256_maddubs_epi16(u.raw, s.raw)};
}

// Unpacks W's rows [n0, n0 + cols) (cols <= kPanelCols; the other columns zeros) into the panel
// layout, and per chunk of `chunk` k the columns' scales and scale * zero.
void UnpackPanel(const Int4Weights& w, int64_t n0, int64_t cols, int64_t chunk,
                 uint8_t* HWY_RESTRICT panel, float* HWY_RESTRICT w_scales,
                 float* HWY_RESTRICT w_zero_scales) {
  const int64_t blocks = w.blocks(), block = w.block, padded = blocks * block;
  const int64_t chunks_per_block = block / chunk;
  // Runs of elements whose bytes are contiguous in either layout (a block, or half a 64-element
  // step of the interleaved one).
  const int64_t run = std::min<int64_t>(block, 32);
  for (int64_t c = 0; c < kPanelCols; ++c) {
    if (c >= cols) {
      for (int64_t g = 0; g < padded / 4; ++g) std::memset(panel + g * 64 + c * 4, 0, 4);
      for (int64_t ch = 0; ch < padded / chunk; ++ch) {
        w_scales[ch * kPanelCols + c] = 0.0f;
        w_zero_scales[ch * kPanelCols + c] = 0.0f;
      }
      continue;
    }
    const int64_t n = n0 + c;
    for (int64_t b = 0; b < blocks; ++b) {
      const float scale = w.Scale(n, b, blocks), zero = w.Zero(n, b, blocks);
      for (int64_t ch = b * chunks_per_block; ch < (b + 1) * chunks_per_block; ++ch) {
        w_scales[ch * kPanelCols + c] = scale;
        w_zero_scales[ch * kPanelCols + c] = scale * zero;
      }
      for (int64_t k = b * block; k < (b + 1) * block; k += run) {
        const uint8_t* bytes = w.Bytes(n, k, blocks);
        if (run == 32) {
          // 16 bytes: their nibbles interleaved into element order, then 4 at a time into place.
          const hn::Full128<uint8_t> d8;
          const hn::Full128<uint16_t> d16;
          const auto v = hn::LoadU(d8, bytes), mask = hn::Set(d8, uint8_t{0xF});
          const auto lo = hn::And(v, mask);
          const auto hi = hn::And(hn::BitCast(d8, hn::ShiftRight<4>(hn::BitCast(d16, v))), mask);
          HWY_ALIGN uint8_t values[32];
          hn::Store(hn::InterleaveLower(d8, lo, hi), d8, values);
          hn::Store(hn::InterleaveUpper(d8, lo, hi), d8, values + 16);
          for (int64_t j = 0; j < 32; j += 4) {
            std::memcpy(panel + (k + j) / 4 * 64 + c * 4, values + j, 4);
          }
          continue;
        }
        for (int64_t j = 0; j < run; j += 4) {
          const uint8_t b0 = bytes[j / 2], b1 = bytes[j / 2 + 1];
          uint8_t* dst = panel + (k + j) / 4 * 64 + c * 4;
          dst[0] = b0 & 0xF;
          dst[1] = b0 >> 4;
          dst[2] = b1 & 0xF;
          dst[3] = b1 >> 4;
        }
      }
    }
  }
}

// y rows [r0, r0 + kRows) x the panel's `cols` columns (header comment's arithmetic).
template <int64_t kRows>
HWY_NOINLINE void Tile(const Int4QuantizedRows& a, int64_t r0, const uint8_t* HWY_RESTRICT panel,
                       const float* HWY_RESTRICT w_scales, const float* HWY_RESTRICT w_zero_scales,
                       int64_t cols, float* HWY_RESTRICT y, int64_t ldy) {
  const hn::Full256<uint8_t> du8;
  const hn::Full256<int8_t> di8;
  const hn::Full256<int16_t> d16;
  const hn::Full256<int32_t> d32;
  const hn::Full256<float> df;
  using V16 = hn::Vec<decltype(d16)>;
  using VF = hn::Vec<decltype(df)>;
  constexpr size_t L = hn::MaxLanes(df);
  const int64_t chunks = a.stride / a.chunk, groups = a.chunk / 4;
  const int8_t* rows[kRows];
  const float* a_scales[kRows];
  const float* a_sums[kRows];
  for (int64_t r = 0; r < kRows; ++r) {
    rows[r] = a.q.data() + (r0 + r) * a.stride;
    a_scales[r] = a.scales.data() + (r0 + r) * chunks;
    a_sums[r] = a.scaled_sums.data() + (r0 + r) * chunks;
  }
  // The float sums live in L1, touched once per chunk: the registers hold the int16 ones.
  HWY_ALIGN float acc[kRows][kPanelCols] = {};
  const V16 ones = hn::Set(d16, int16_t{1});
  for (int64_t ch = 0; ch < chunks; ++ch) {
    V16 sums[kRows][2];
    HWY_UNROLL(6)
    for (int64_t r = 0; r < kRows; ++r) sums[r][0] = sums[r][1] = hn::Zero(d16);
    const uint8_t* p = panel + ch * groups * 64;
    const int64_t k0 = ch * a.chunk;
    for (int64_t g = 0; g < groups; ++g) {
      const auto w0 = hn::Load(du8, p + g * 64);
      const auto w1 = hn::Load(du8, p + g * 64 + 32);
      HWY_UNROLL(6)
      for (int64_t r = 0; r < kRows; ++r) {
        int32_t four;
        std::memcpy(&four, rows[r] + k0 + 4 * g, 4);
        const auto ar = hn::BitCast(di8, hn::Set(d32, four));
        sums[r][0] = hn::Add(sums[r][0], BytePairs(w0, ar));
        sums[r][1] = hn::Add(sums[r][1], BytePairs(w1, ar));
        // Keeps each row's sums in registers, updated in place, one row after another: without
        // it GCC hoists every row's broadcast and spills the sums.
        asm volatile("" : "+x"(sums[r][0].raw), "+x"(sums[r][1].raw));
      }
    }
    const VF ws[2] = {hn::Load(df, w_scales + ch * kPanelCols),
                      hn::Load(df, w_scales + ch * kPanelCols + L)};
    const VF wz[2] = {hn::Load(df, w_zero_scales + ch * kPanelCols),
                      hn::Load(df, w_zero_scales + ch * kPanelCols + L)};
    HWY_UNROLL(6)
    for (int64_t r = 0; r < kRows; ++r) {
      const VF as = hn::Set(df, a_scales[r][ch]), asum = hn::Set(df, a_sums[r][ch]);
      for (int64_t v = 0; v < 2; ++v) {
        auto unused = hn::Zero(d32);
        const auto dot = hn::Add(
            hn::ReorderWidenMulAccumulate(d32, sums[r][v], ones, hn::Zero(d32), unused), unused);
        VF x = hn::Load(df, acc[r] + v * L);
        x = hn::MulAdd(hn::ConvertTo(df, dot), hn::Mul(as, ws[v]), x);
        x = hn::NegMulAdd(asum, wz[v], x);
        hn::Store(x, df, acc[r] + v * L);
      }
    }
  }
  for (int64_t r = 0; r < kRows; ++r) std::copy(acc[r], acc[r] + cols, y + (r0 + r) * ldy);
}

using TileFn = void (*)(const Int4QuantizedRows&, int64_t, const uint8_t*, const float*,
                        const float*, int64_t, float*, int64_t);

template <int64_t... kR>
TileFn PickTile(int64_t rows, std::integer_sequence<int64_t, kR...>) {
  TileFn fn = nullptr;
  ((rows == kR + 1 ? (fn = &Tile<kR + 1>, 0) : 0), ...);
  return fn;
}

void Int4GemmInt8Impl(const Int4QuantizedRows& a, const Int4Weights& w, int64_t n0, int64_t n1,
                      void* scratch, float* y, int64_t ldy) {
  const int64_t padded = a.stride, chunks = padded / a.chunk;
  uint8_t* panel = static_cast<uint8_t*>(scratch);
  float* w_scales = reinterpret_cast<float*>(panel + padded * kPanelCols);
  float* w_zero_scales = w_scales + chunks * kPanelCols;
  const TileFn full = &Tile<kTileRows>;
  for (int64_t n = n0; n < n1; n += kPanelCols) {
    const int64_t cols = std::min(kPanelCols, n1 - n);
    UnpackPanel(w, n, cols, a.chunk, panel, w_scales, w_zero_scales);
    for (int64_t r0 = 0; r0 < a.m; r0 += kTileRows) {
      const int64_t rows = std::min(kTileRows, a.m - r0);
      const TileFn fn = rows == kTileRows
                            ? full
                            : PickTile(rows, std::make_integer_sequence<int64_t, kTileRows>());
      fn(a, r0, panel, w_scales, w_zero_scales, cols, y + (n - n0), ldy);
    }
  }
}
#else
void Int4GemmInt8Impl(const Int4QuantizedRows&, const Int4Weights&, int64_t, int64_t, void*, float*,
                      int64_t) {
  HWY_ABORT("Int4GemmInt8 on a target without byte products (Int4GemmInt8Supported is false)");
}
#endif

int64_t ScratchBytesImpl(const Int4Weights& w) {
  const int64_t padded = w.blocks() * w.block,
                chunks = padded / Int4QuantizedRows::ChunkFor(w.block);
  return padded * kPanelCols + chunks * kPanelCols * 2 * static_cast<int64_t>(sizeof(float)) + 64;
}

}  // namespace
}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(Int4GemmInt8Impl);
HWY_EXPORT(ScratchBytesImpl);

bool Int4GemmInt8Supported(const Int4Weights& w) {
  return w.float_zeros == nullptr && Int4ByteProductsSupported();
}

Int4QuantizedRows Int4QuantizedRowsFor(const Int4Weights& w, int64_t m) {
  Int4QuantizedRows rows;
  rows.m = m;
  rows.stride = w.blocks() * w.block;
  rows.chunk = Int4QuantizedRows::ChunkFor(w.block);
  const int64_t chunks = rows.stride / rows.chunk;
  rows.q.resize(static_cast<size_t>(m * rows.stride));
  rows.scales.resize(static_cast<size_t>(m * chunks));
  rows.scaled_sums.resize(static_cast<size_t>(m * chunks));
  return rows;
}

void QuantizeRowsInt8(const float* a, const Int4Weights& w, int64_t r0, int64_t r1,
                      Int4QuantizedRows& rows) {
  const int64_t blocks = w.blocks(), chunks = rows.stride / rows.chunk;
  const int64_t chunks_per_block = w.block / rows.chunk;
  std::vector<float> block_scales(static_cast<size_t>(blocks));
  std::vector<int32_t> block_sums(static_cast<size_t>(blocks));
  for (int64_t r = r0; r < r1; ++r) {
    int8_t* q = rows.q.data() + r * rows.stride;
    QuantizeRowInt8(a + r * w.k, w, q, block_scales.data(), block_sums.data());
    for (int64_t ch = 0; ch < chunks; ++ch) {
      // A chunk that is its block has the block's sum; a block of several chunks sums each.
      int32_t sum = block_sums[ch / chunks_per_block];
      if (chunks_per_block > 1) {
        sum = 0;
        for (int64_t i = ch * rows.chunk; i < (ch + 1) * rows.chunk; ++i) sum += q[i];
      }
      const float scale = block_scales[ch / chunks_per_block];
      rows.scales[r * chunks + ch] = scale;
      rows.scaled_sums[r * chunks + ch] = scale * static_cast<float>(sum);
    }
  }
}

int64_t Int4GemmInt8ScratchBytes(const Int4Weights& w) {
  return HWY_DYNAMIC_DISPATCH(ScratchBytesImpl)(w);
}

void Int4GemmInt8(const Int4QuantizedRows& a, const Int4Weights& w, int64_t n0, int64_t n1,
                  void* scratch, float* y, int64_t ldy) {
  HWY_DYNAMIC_DISPATCH(Int4GemmInt8Impl)(a, w, n0, n1, scratch, y, ldy);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
