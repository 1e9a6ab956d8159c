// Runtime dispatch of simd/nbits.h. The row a is first rewritten per block into the order the
// nibbles unpack in - per group of 2L elements (L: int16 or float lanes of the target), the L even
// elements, then the L odd ones - so that a group's low nibbles (elements 2j) and high nibbles
// (2j + 1), widened lane by lane from L bytes, meet their a values without a shuffle. The
// rewrite and the products run in the same dispatched target, which fixes L for both.
#include "kernels/simd/nbits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/nbits.cc"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

// Columns a pass over the row of a computes at once (sharing its loads).
constexpr int64_t kColumns = 4;
// How far ahead of its reads the byte path prefetches each weight row.
constexpr int64_t kPrefetchBytes = 1024;

// 127 / max|a|, or 0 when that is not finite (max|a| = 0, or so small that the quotient
// overflows: the block is zeros to int8).
inline float QuantizationFactor(float amax) {
  return std::isfinite(127.0f / amax) ? 127.0f / amax : 0.0f;
}

// Elements [from, begin + block) of a block [begin, end) quantized into q (zeros past end);
// returns their sum.
template <typename T>
int32_t QuantizeTail(const float* a, int64_t from, int64_t begin, int64_t end, int64_t block,
                     float inverse, T* q) {
  int32_t sum = 0;
  for (int64_t i = from; i < begin + block; ++i) {
    const int32_t v =
        i < end ? static_cast<int32_t>(std::nearbyint(std::clamp(a[i] * inverse, -127.0f, 127.0f)))
                : 0;
    q[i] = static_cast<T>(v);
    sum += v;
  }
  return sum;
}

// The int8 arithmetic's quantization of a, per block: q[i] = round_half_even(a[i] * 127 / max|a|)
// (zeros past K, up to whole blocks), scales[b] = max|a| / 127 and, when `sums` is given, sums[b]
// = the block's sum of q. T: the type the caller's products read q as.
template <typename T>
void QuantizeBlocks(const float* a, const Int4Weights& w, T* q, float* scales, int32_t* sums) {
  const int64_t blocks = w.blocks(), block = w.block;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * block, end = std::min(begin + block, w.k);
    float amax = 0.0f;
    for (int64_t i = begin; i < end; ++i) amax = std::max(amax, std::fabs(a[i]));
    const int32_t sum = QuantizeTail(a, begin, begin, end, block, QuantizationFactor(amax), q);
    scales[b] = amax / 127.0f;
    if (sums != nullptr) sums[b] = sum;
  }
}

// QuantizeBlocks for int8 with vectors (the same bits: the same product, clamp and rounding to
// nearest even): a prompt's rows are quantized on every call.
void QuantizeRowInt8Impl(const float* a, const Int4Weights& w, int8_t* q, float* scales,
                         int32_t* sums) {
#if HWY_TARGET == HWY_SCALAR
  QuantizeBlocks(a, w, q, scales, sums);
#else
  const hn::CappedTag<float, 8> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<int8_t, decltype(df)> d8;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const int64_t blocks = w.blocks(), block = w.block;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = b * block, end = std::min(begin + block, w.k);
    const int64_t full = begin + (end - begin) / L * L;
    auto vmax = hn::Zero(df);
    for (int64_t i = begin; i < full; i += L) vmax = hn::Max(vmax, hn::Abs(hn::LoadU(df, a + i)));
    float amax = hn::GetLane(hn::MaxOfLanes(df, vmax));
    for (int64_t i = full; i < end; ++i) amax = std::max(amax, std::fabs(a[i]));
    const float inverse = QuantizationFactor(amax);
    const auto vinv = hn::Set(df, inverse), lo = hn::Set(df, -127.0f), hi = hn::Set(df, 127.0f);
    auto vsum = hn::Zero(di);
    for (int64_t i = begin; i < full; i += L) {
      const auto v = hn::NearestInt(hn::Min(hn::Max(hn::Mul(hn::LoadU(df, a + i), vinv), lo), hi));
      vsum = hn::Add(vsum, v);
      hn::StoreU(hn::DemoteTo(d8, v), d8, q + i);
    }
    const int32_t sum = hn::GetLane(hn::SumOfLanes(di, vsum)) +
                        QuantizeTail(a, full, begin, end, block, inverse, q);
    scales[b] = amax / 127.0f;
    if (sums != nullptr) sums[b] = sum;
  }
#endif
}

// The rows a pass computes: n to n + 3, the last repeated where fewer than 4 remain (results of
// the repeats are not stored), and their weights in ONNX Runtime's layout.
struct ColumnGroup {
  ColumnGroup(const Int4Weights& w, int64_t n, int64_t n1, int64_t row_bytes)
      : cols(std::min(kColumns, n1 - n)) {
    for (int64_t c = 0; c < kColumns; ++c) {
      rows[c] = n + std::min(c, cols - 1);
      q[c] = w.q + rows[c] * row_bytes;
    }
  }
  int64_t cols;
  int64_t rows[kColumns];
  const uint8_t* q[kColumns];
};

#if HWY_TARGET != HWY_SCALAR
// Elements per nibble group for a block: 2L, with L lanes of the widest tag of at most kMax lanes,
// and no more than half a block.
template <class D>
int64_t GroupLanes(D d, int64_t block) {
  return std::min<int64_t>(static_cast<int64_t>(hn::Lanes(d)), block / 2);
}

// dst (blocks * block values) = src (k values, zeros past k) in nibble-group order with L lanes.
template <typename T>
void PermuteToGroups(const T* src, int64_t k, int64_t padded, int64_t lanes, T* dst) {
  for (int64_t g = 0; g < padded; g += 2 * lanes) {
    for (int64_t j = 0; j < lanes; ++j) {
      const int64_t even = g + 2 * j, odd = even + 1;
      dst[g + j] = even < k ? src[even] : T(0);
      dst[g + lanes + j] = odd < k ? src[odd] : T(0);
    }
  }
}

// The int8 arithmetic with groups of L = Lanes(d16) int16 lanes (L <= block / 2).
template <class D16>
void MatVecInt8(D16 d16, const float* a, const Int4Weights& w, int64_t n0, int64_t n1,
                void* scratch, float* y) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(d16));
  const int64_t blocks = w.blocks(), block = w.block, padded = blocks * block;
  const int64_t row_bytes = blocks * block / 2;
  int16_t* aq = static_cast<int16_t*>(scratch);
  float* a_scales = reinterpret_cast<float*>(aq + padded);
  int16_t* natural = reinterpret_cast<int16_t*>(a_scales + 2 * blocks);
  QuantizeBlocks(a, w, natural, a_scales, nullptr);
  PermuteToGroups(natural, padded, padded, L, aq);

  const hn::Repartition<int32_t, D16> d32;
  const hn::Rebind<float, decltype(d32)> df;
  const hn::Rebind<uint8_t, D16> d8;
  const hn::RebindToUnsigned<D16> du16;
  using VI = hn::Vec<decltype(d32)>;
  using VF = hn::Vec<decltype(df)>;
  const auto low_mask = hn::Set(d16, int16_t{0xF});
  // Four columns per pass, in named registers (arrays of vectors went through the stack: half the
  // time was spent zeroing them per block).
  for (int64_t n = n0; n < n1; n += kColumns) {
    const ColumnGroup group(w, n, n1, row_bytes);
    const int64_t cols = group.cols;
    const uint8_t *r0 = group.q[0], *r1 = group.q[1], *r2 = group.q[2], *r3 = group.q[3];
    VF acc0 = hn::Zero(df), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    const bool fixed_zero = w.packed_zeros == nullptr && w.float_zeros == nullptr;
    auto z0 = hn::Set(d16, int16_t{8}), z1 = z0, z2 = z0, z3 = z0;
    for (int64_t b = 0; b < blocks; ++b) {
      VI dot0 = hn::Zero(d32), dot1 = dot0, dot2 = dot0, dot3 = dot0;
      VI odd0 = dot0, odd1 = dot0, odd2 = dot0, odd3 = dot0;
      if (!fixed_zero) {
        const auto zero = [&](int64_t c) HWY_ATTR {
          return hn::Set(d16, static_cast<int16_t>(w.Zero(group.rows[c], b, blocks)));
        };
        z0 = zero(0);
        z1 = zero(1);
        z2 = zero(2);
        z3 = zero(3);
      }
      const int16_t* ab = aq + b * block;
      const int64_t byte0 = b * block / 2;
      for (int64_t g = 0; g < block; g += 2 * L) {
        const auto a_even = hn::LoadU(d16, ab + g);
        const auto a_odd = hn::LoadU(d16, ab + g + L);
        const int64_t byte = byte0 + g / 2;
        // (q - zero) in int16, exact: |q - zero| <= 15, |a_q| <= 127.
        const auto column = [&](const uint8_t* row, decltype(z0) z, VI& dot, VI& odd) HWY_ATTR {
          const auto bytes = hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(d8, row + byte)));
          const auto lo = hn::Sub(hn::And(bytes, low_mask), z);
          const auto hi = hn::Sub(hn::ShiftRight<4>(bytes), z);
          dot = hn::ReorderWidenMulAccumulate(d32, lo, a_even, dot, odd);
          dot = hn::ReorderWidenMulAccumulate(d32, hi, a_odd, dot, odd);
        };
        column(r0, z0, dot0, odd0);
        column(r1, z1, dot1, odd1);
        column(r2, z2, dot2, odd2);
        column(r3, z3, dot3, odd3);
      }
      const float* scales = w.scales + n * blocks + b;
      const float a_scale = a_scales[b];
      // ReorderWidenMulAccumulate may leave products in `odd` on some targets.
      const auto finish = [&](int64_t c, VI dot, VI odd, VF& acc) HWY_ATTR {
        acc =
            hn::MulAdd(hn::ConvertTo(df, hn::Add(dot, odd)),
                       hn::Set(df, a_scale * scales[std::min<int64_t>(c, cols - 1) * blocks]), acc);
      };
      finish(0, dot0, odd0, acc0);
      finish(1, dot1, odd1, acc1);
      finish(2, dot2, odd2, acc2);
      finish(3, dot3, odd3, acc3);
    }
    const VF accs[kColumns] = {acc0, acc1, acc2, acc3};
    for (int64_t c = 0; c < cols; ++c) y[n - n0 + c] = hn::GetLane(hn::SumOfLanes(df, accs[c]));
  }
}

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// The int8 arithmetic for blocks of 32 or more with byte products: vpmaddubsw multiplies the
// weights' unsigned nibbles by a's int8 values and adds adjacent pairs into int16 (at most
// 2 * 15 * 127 per pair, two products summed: no saturation), halving the work of the int16 path
// per weight. Highway 1.0.3 has no such op: a raw intrinsic, as ColumnSums'. 64 weights (32
// bytes) per step: a is laid out per 64 as its 32 even elements, then its 32 odd ones, as int8;
// the zero point's part is taken off each block's exact int32 sum as zero * sum(a_q).
HWY_INLINE hn::Vec256<int16_t> ByteProducts(hn::Vec256<uint8_t> u, hn::Vec256<int8_t> s) {
  return hn::Vec256<int16_t>{_mm256_maddubs_epi16(u.raw, s.raw)};
}

// Per 128-bit half, the sums of 4 columns' 4 lanes: [c0, c1, c2, c3 | c0, c1, c2, c3]. Three
// in-lane horizontal adds (no Highway op) take the place of 4 conversions and scalings per step.
HWY_INLINE hn::Vec256<int32_t> ColumnSums(hn::Vec256<int32_t> d0, hn::Vec256<int32_t> d1,
                                          hn::Vec256<int32_t> d2, hn::Vec256<int32_t> d3) {
  return hn::Vec256<int32_t>{
      _mm256_hadd_epi32(_mm256_hadd_epi32(d0.raw, d1.raw), _mm256_hadd_epi32(d2.raw, d3.raw))};
}

// dot += the int32 sums (by 4 bytes) of 64 weights at `bytes` times a's even and odd values.
HWY_INLINE void ByteColumn(const uint8_t* bytes_at, hn::Vec256<int8_t> a_even,
                           hn::Vec256<int8_t> a_odd, hn::Vec256<int32_t>& dot) {
  const hn::Full256<uint8_t> du8;
  const hn::Full256<int16_t> d16;
  const hn::Full256<int32_t> d32;
  const auto low_mask = hn::Set(du8, uint8_t{0xF});
  const auto bytes = hn::LoadU(du8, bytes_at);
  const auto lo = hn::And(bytes, low_mask);
  const auto hi = hn::And(hn::BitCast(du8, hn::ShiftRight<4>(hn::BitCast(d16, bytes))), low_mask);
  const auto pairs = hn::Add(ByteProducts(lo, a_even), ByteProducts(hi, a_odd));
  auto unused = hn::Zero(d32);
  dot = hn::Add(hn::ReorderWidenMulAccumulate(d32, pairs, hn::Set(d16, int16_t{1}), dot, unused),
                unused);
}

void MatVecInt8Bytes(const float* a, const Int4Weights& w, int64_t n0, int64_t n1, void* scratch,
                     float* y) {
  const hn::Full256<int8_t> di8;
  const hn::Full256<int32_t> d32;
  const hn::Full256<float> df;
  const hn::Full128<float> dh;
  using VI = hn::Vec<decltype(d32)>;
  using VF = hn::Vec<decltype(df)>;
  const int64_t blocks = w.blocks(), block = w.block, padded = blocks * block;
  const int64_t row_bytes = padded / 2, steps = padded / 64;
  const bool two_blocks = block == 32;
  // Scratch: a_q permuted (padded bytes); per block a's scale and sum; a_q in order; per
  // 64-weight step (two blocks of 32) or per block (larger blocks) the lane vectors of a's scales
  // and of the zero point 8's part, by ColumnSums' halves: [block b x4, block b + 1 x4] (two
  // blocks), or the block's in all lanes (its scale) and in the lower half (8 * sum(a_q), which
  // each column's lower half sum holds once).
  int8_t* aq = static_cast<int8_t*>(scratch);
  float* a_scales = reinterpret_cast<float*>(aq + padded);
  int32_t* a_sums = reinterpret_cast<int32_t*>(a_scales + blocks);
  int8_t* natural = reinterpret_cast<int8_t*>(a_sums + blocks);
  const int64_t lane_vectors = two_blocks ? steps : blocks;
  float* lane_scales = reinterpret_cast<float*>(natural + padded);
  int32_t* lane_zeros = reinterpret_cast<int32_t*>(lane_scales + 8 * lane_vectors);
  QuantizeRowInt8Impl(a, w, natural, a_scales, a_sums);
  PermuteToGroups(natural, padded, padded, 32, aq);
  for (int64_t v = 0; v < lane_vectors; ++v) {
    for (int64_t lane = 0; lane < 8; ++lane) {
      const int64_t b = two_blocks ? 2 * v + lane / 4 : v;
      lane_scales[8 * v + lane] = a_scales[b];
      lane_zeros[8 * v + lane] = two_blocks || lane < 4 ? 8 * a_sums[b] : 0;
    }
  }
  const bool fixed_zero = w.packed_zeros == nullptr;
  for (int64_t n = n0; n < n1; n += kColumns) {
    const ColumnGroup group(w, n, n1, row_bytes);
    const int64_t cols = group.cols;
    const int64_t* rows = group.rows;
    const uint8_t *q0 = group.q[0], *q1 = group.q[1], *q2 = group.q[2], *q3 = group.q[3];
    int64_t step_bytes = 32;
    if (w.interleaved) {  // n is a multiple of 4 (callers split by column groups)
      q0 = w.Bytes(n, 0, blocks);
      q1 = q0 + 32;
      q2 = q0 + 64;
      q3 = q0 + 96;
      step_bytes = 128;
    }
    // Lanes [c0, c1, c2, c3 | c0, c1, c2, c3] (ColumnSums' order): a column's result is the sum
    // of its two lanes.
    VF acc = hn::Zero(df);
    VI dot0 = hn::Zero(d32), dot1 = dot0, dot2 = dot0, dot3 = dot0;
    for (int64_t step = 0; step < steps; ++step) {
      const auto a_even = hn::LoadU(di8, aq + step * 64);
      const auto a_odd = hn::LoadU(di8, aq + step * 64 + 32);
      const int64_t byte = step * step_bytes;
      // The rows stream from memory: ask for them a few steps ahead of the hardware prefetcher.
      if (w.interleaved) {
        hwy::Prefetch(q0 + byte + 4 * kPrefetchBytes);
        hwy::Prefetch(q0 + byte + 4 * kPrefetchBytes + 64);
      } else if ((step & 1) == 0) {
        hwy::Prefetch(q0 + byte + kPrefetchBytes);
        hwy::Prefetch(q1 + byte + kPrefetchBytes);
        hwy::Prefetch(q2 + byte + kPrefetchBytes);
        hwy::Prefetch(q3 + byte + kPrefetchBytes);
      }
      ByteColumn(q0 + byte, a_even, a_odd, dot0);
      ByteColumn(q1 + byte, a_even, a_odd, dot1);
      ByteColumn(q2 + byte, a_even, a_odd, dot2);
      ByteColumn(q3 + byte, a_even, a_odd, dot3);
      if (!two_blocks && (step + 1) * 64 % block != 0) continue;  // the block goes on
      const int64_t b = two_blocks ? 2 * step : step * 64 / block;
      const int64_t v = two_blocks ? step : b;
      VI dots = ColumnSums(dot0, dot1, dot2, dot3);
      // The columns' scales in the lanes' order; the interleaved layout stores them so.
      VF w_lanes;
      if (w.interleaved) {
        // (n is a multiple of 4: column c's scales follow at + c, block b + 1's at + 4)
        const float* group_scales =
            w.scales + Int4Weights::InterleavedScaleIndex(n, b, blocks, block);
        w_lanes = two_blocks
                      ? hn::LoadU(df, group_scales)
                      : hn::Combine(df, hn::LoadU(dh, group_scales), hn::LoadU(dh, group_scales));
      } else {
        alignas(32) float lanes[8];
        for (int64_t lane = 0; lane < 8; ++lane) {
          lanes[lane] = w.scales[rows[lane % 4] * blocks + b + (two_blocks ? lane / 4 : 0)];
        }
        w_lanes = hn::Load(df, lanes);
      }
      if (fixed_zero) {
        dots = hn::Sub(dots, hn::LoadU(d32, lane_zeros + 8 * v));
      } else {
        // Zero points of each column's block(s) times a's sums, by the lanes' blocks.
        alignas(32) int32_t lanes[8] = {};
        for (int64_t c = 0; c < kColumns; ++c) {
          lanes[c] = static_cast<int32_t>(w.Zero(rows[c], b, blocks)) * a_sums[b];
          if (two_blocks) {
            lanes[4 + c] = static_cast<int32_t>(w.Zero(rows[c], b + 1, blocks)) * a_sums[b + 1];
          }
        }
        dots = hn::Sub(dots, hn::Load(d32, lanes));
      }
      acc = hn::MulAdd(hn::ConvertTo(df, dots),
                       hn::Mul(hn::LoadU(df, lane_scales + 8 * v), w_lanes), acc);
      dot0 = dot1 = dot2 = dot3 = hn::Zero(d32);
    }
    alignas(32) float sums[8];
    hn::Store(acc, df, sums);
    for (int64_t c = 0; c < cols; ++c) y[n - n0 + c] = sums[c] + sums[c + 4];
  }
}
#endif

// The float arithmetic with groups of L = Lanes(df) float lanes (L <= block / 2).
template <class DF>
void MatVecFloat(DF df, const float* a, const Int4Weights& w, int64_t n0, int64_t n1, void* scratch,
                 float* y) {
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const int64_t blocks = w.blocks(), block = w.block, padded = blocks * block;
  const int64_t row_bytes = blocks * block / 2;
  float* ap = static_cast<float*>(scratch);
  PermuteToGroups(a, w.k, padded, L, ap);
  const hn::RebindToSigned<DF> d32;
  const hn::Rebind<uint8_t, DF> d8;
  using VF = hn::Vec<DF>;
  const auto low_mask = hn::Set(d32, 0xF);
  for (int64_t n = n0; n < n1; n += kColumns) {
    const ColumnGroup group(w, n, n1, row_bytes);
    const int64_t cols = group.cols;
    const int64_t* rows = group.rows;
    const uint8_t *r0 = group.q[0], *r1 = group.q[1], *r2 = group.q[2], *r3 = group.q[3];
    VF acc0 = hn::Zero(df), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    for (int64_t b = 0; b < blocks; ++b) {
      VF dot0 = hn::Zero(df), dot1 = dot0, dot2 = dot0, dot3 = dot0;
      const VF z0 = hn::Set(df, w.Zero(rows[0], b, blocks));
      const VF z1 = hn::Set(df, w.Zero(rows[1], b, blocks));
      const VF z2 = hn::Set(df, w.Zero(rows[2], b, blocks));
      const VF z3 = hn::Set(df, w.Zero(rows[3], b, blocks));
      const float* ab = ap + b * block;
      const int64_t byte0 = b * block / 2;
      for (int64_t g = 0; g < block; g += 2 * L) {
        const auto a_even = hn::LoadU(df, ab + g);
        const auto a_odd = hn::LoadU(df, ab + g + L);
        const int64_t byte = byte0 + g / 2;
        const auto column = [&](const uint8_t* row, VF zero, VF& dot) HWY_ATTR {
          const auto bytes = hn::PromoteTo(d32, hn::LoadU(d8, row + byte));
          const auto lo = hn::Sub(hn::ConvertTo(df, hn::And(bytes, low_mask)), zero);
          const auto hi = hn::Sub(hn::ConvertTo(df, hn::ShiftRight<4>(bytes)), zero);
          dot = hn::MulAdd(lo, a_even, dot);
          dot = hn::MulAdd(hi, a_odd, dot);
        };
        column(r0, z0, dot0);
        column(r1, z1, dot1);
        column(r2, z2, dot2);
        column(r3, z3, dot3);
      }
      const float* scales = w.scales + n * blocks + b;
      acc0 = hn::MulAdd(dot0, hn::Set(df, scales[0]), acc0);
      if (cols > 1) acc1 = hn::MulAdd(dot1, hn::Set(df, scales[blocks]), acc1);
      if (cols > 2) acc2 = hn::MulAdd(dot2, hn::Set(df, scales[2 * blocks]), acc2);
      if (cols > 3) acc3 = hn::MulAdd(dot3, hn::Set(df, scales[3 * blocks]), acc3);
    }
    const VF accs[kColumns] = {acc0, acc1, acc2, acc3};
    for (int64_t c = 0; c < cols; ++c) y[n - n0 + c] = hn::GetLane(hn::SumOfLanes(df, accs[c]));
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

#if HWY_TARGET == HWY_SCALAR
// One lane: the arithmetic of the vector paths written out (groups of one).
void MatVecScalar(const float* a, const Int4Weights& w, bool int8, int64_t n0, int64_t n1,
                  void* scratch, float* y) {
  const int64_t blocks = w.blocks(), block = w.block, padded = blocks * block;
  const int64_t row_bytes = blocks * block / 2;
  float* values = static_cast<float*>(scratch);
  std::vector<float> a_scales(blocks, 1.0f);
  if (int8) {
    QuantizeBlocks(a, w, values, a_scales.data(), nullptr);
  } else {
    std::copy(a, a + w.k, values);
    std::fill(values + w.k, values + padded, 0.0f);
  }
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* row = w.q + n * row_bytes;
    float acc = 0.0f;
    for (int64_t b = 0; b < blocks; ++b) {
      const float zero = w.Zero(n, b, blocks);
      float dot = 0.0f;
      int32_t idot = 0;
      for (int64_t i = b * block; i < (b + 1) * block; ++i) {
        const uint8_t byte = row[i / 2];
        const int q = (i & 1) ? byte >> 4 : byte & 0xF;
        if (int8) {
          idot += (q - static_cast<int32_t>(zero)) * static_cast<int32_t>(values[i]);
        } else {
          dot += (static_cast<float>(q) - zero) * values[i];
        }
      }
      const float s = w.scales[n * blocks + b];
      if (int8) {
        acc += static_cast<float>(idot) * (a_scales[b] * s);
      } else {
        acc += dot * s;
      }
    }
    y[n - n0] = acc;
  }
  (void)padded;
}
#endif

void Int4MatVecImpl(const float* a, const Int4Weights& w, bool int8, int64_t n0, int64_t n1,
                    void* scratch, float* y) {
#if HWY_TARGET == HWY_SCALAR
  return MatVecScalar(a, w, int8, n0, n1, scratch, y);
#else
  // Groups of at most 16 lanes (8 for blocks of 16), so that a block holds whole groups.
  if (int8) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    // (Whole 64-weight steps only: an odd count of blocks of 32 takes the int16 path.)
    if (w.block >= 64 || (w.block == 32 && w.blocks() % 2 == 0)) {
      return MatVecInt8Bytes(a, w, n0, n1, scratch, y);
    }
#endif
    const hn::CappedTag<int16_t, 16> d16;
    if (GroupLanes(d16, w.block) == static_cast<int64_t>(hn::Lanes(d16))) {
      return MatVecInt8(d16, a, w, n0, n1, scratch, y);
    }
    return MatVecInt8(hn::CappedTag<int16_t, 8>(), a, w, n0, n1, scratch, y);
  }
  const hn::CappedTag<float, 8> df;
  if (GroupLanes(df, w.block) == static_cast<int64_t>(hn::Lanes(df))) {
    return MatVecFloat(df, a, w, n0, n1, scratch, y);
  }
  return MatVecFloat(hn::CappedTag<float, 4>(), a, w, n0, n1, scratch, y);
#endif
}

// Rows of W in float: per block, the nibbles of 8 bytes (16 values) at a time, widened to float,
// less the zero point, times the scale.
// out[0, count) = (q - zero) * scale for the count elements whose nibbles are bytes[0, count / 2)
// (count even).
void DequantizeRun(const uint8_t* bytes, int64_t count, float zero, float scale, float* out) {
  int64_t k = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::CappedTag<float, 8> df;
  const int64_t L = static_cast<int64_t>(hn::Lanes(df));
  const hn::RebindToSigned<decltype(df)> d32;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const auto vz = hn::Set(df, zero), vs = hn::Set(df, scale);
  // L bytes hold 2L values: the low nibbles are elements 2j, the high ones 2j + 1; the two float
  // vectors are interleaved back into element order.
  for (; k + 2 * L <= count; k += 2 * L) {
    const auto v = hn::PromoteTo(d32, hn::LoadU(d8, bytes + k / 2));
    const auto lo = hn::Mul(hn::Sub(hn::ConvertTo(df, hn::And(v, hn::Set(d32, 0xF))), vz), vs);
    const auto hi = hn::Mul(hn::Sub(hn::ConvertTo(df, hn::ShiftRight<4>(v)), vz), vs);
    hn::StoreInterleaved2(lo, hi, df, out + k);
  }
#endif
  for (; k < count; ++k) {
    const uint8_t byte = bytes[k / 2];
    const int q = (k & 1) ? byte >> 4 : byte & 0xF;
    out[k] = (static_cast<float>(q) - zero) * scale;
  }
}

// Rows of W in float, block by block (in the interleaved layout, by runs of 32 elements: the half
// of a step one row's 16 bytes hold).
void DequantizeInt4RowsImpl(const Int4Weights& w, int64_t n0, int64_t n1, float* dst) {
  const int64_t blocks = w.blocks(), block = w.block;
  for (int64_t n = n0; n < n1; ++n) {
    float* out = dst + (n - n0) * w.k;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t begin = b * block, end = std::min(begin + block, w.k);
      const float zero = w.Zero(n, b, blocks), scale = w.Scale(n, b, blocks);
      if (!w.interleaved) {
        // (the last block's run may end at K, odd: the scalar tail takes the last element)
        DequantizeRun(w.Bytes(n, begin, blocks), end - begin, zero, scale, out + begin);
        continue;
      }
      for (int64_t k = begin; k < end; k += 32) {
        DequantizeRun(w.Bytes(n, k, blocks), std::min<int64_t>(32, end - k), zero, scale, out + k);
      }
    }
  }
}
// Whether this target's int8 path has the byte products (and so reads the interleaved layout).
bool HasByteProductsImpl() {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  return true;
#else
  return false;
#endif
}

}  // namespace
}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace anvil::simd {

HWY_EXPORT(Int4MatVecImpl);
HWY_EXPORT(DequantizeInt4RowsImpl);
HWY_EXPORT(HasByteProductsImpl);
HWY_EXPORT(QuantizeRowInt8Impl);

bool Int4InterleavedSupported(const Int4Weights& w) {
  const bool layout = w.block >= 64 || (w.block == 32 && w.blocks() % 2 == 0);
  return layout && w.float_zeros == nullptr && Int4ByteProductsSupported();
}

bool Int4ByteProductsSupported() { return HWY_DYNAMIC_DISPATCH(HasByteProductsImpl)(); }

Int4Interleaved PackInt4Interleaved(const Int4Weights& w) {
  const int64_t blocks = w.blocks(), row_bytes = blocks * w.block / 2;
  const int64_t groups = (w.n + 3) / 4;
  Int4Interleaved p;
  p.q.assign(static_cast<size_t>(groups * 4 * row_bytes), 0);
  p.scales.assign(static_cast<size_t>(groups * 4 * blocks), 0.0f);
  for (int64_t n = 0; n < w.n; ++n) {
    for (int64_t k = 0; k < 2 * row_bytes; k += 64) {  // 64 elements, 32 bytes, per step
      const uint8_t* step = w.Bytes(n, k, blocks);
      std::copy(step, step + 32, p.q.begin() + Int4Weights::InterleavedByteIndex(n, k, row_bytes));
    }
    for (int64_t b = 0; b < blocks; ++b) {
      p.scales[Int4Weights::InterleavedScaleIndex(n, b, blocks, w.block)] = w.Scale(n, b, blocks);
    }
  }
  return p;
}

int64_t Int4MatVecScratchBytes(const Int4Weights& w) {
  const int64_t padded = w.blocks() * w.block;
  // float mode: the permuted row; int8 mode: permuted and natural int16 rows, scales and sums.
  // (int8 byte path: 2 * padded + 8 * blocks + 64 * blocks, within the int16 path's size)
  return std::max<int64_t>(padded * 4, padded * 2 * 2 + w.blocks() * 72) + 64;
}

void Int4MatVec(const float* a, const Int4Weights& w, bool int8, int64_t n0, int64_t n1,
                void* scratch, float* y) {
  HWY_DYNAMIC_DISPATCH(Int4MatVecImpl)(a, w, int8, n0, n1, scratch, y);
}

void QuantizeRowInt8(const float* a, const Int4Weights& w, int8_t* q, float* scales,
                     int32_t* sums) {
  HWY_DYNAMIC_DISPATCH(QuantizeRowInt8Impl)(a, w, q, scales, sums);
}

void DequantizeInt4Rows(const Int4Weights& w, int64_t n0, int64_t n1, float* dst) {
  HWY_DYNAMIC_DISPATCH(DequantizeInt4RowsImpl)(w, n0, n1, dst);
}

}  // namespace anvil::simd
#endif  // HWY_ONCE
