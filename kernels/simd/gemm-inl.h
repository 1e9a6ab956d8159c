// Per-target body of simd/gemm.h (Highway's -inl.h convention: gemm.cc includes this once per
// SIMD target through foreach_target.h). See gemm.h for the contract.
//
// Layout of the packed path (the classic Goto/BLIS scheme, specialized for a row-major C whose
// rows are the vector direction):
//   for each NC-wide column block of B and C:
//     for each KC-deep slice of K:
//       pack B[kslice, cblock] into NR-wide panels (row k of a panel is NR contiguous values)
//       for each MR-row panel of A (packed only when alpha != 1, which packing folds in; else
//       read in place), for every B panel run the MR x NR micro-kernel, which keeps the whole C
//       tile in registers for the KC loop.
// The A panel (MR x KC, 8 KiB) stays in L1 across the sweep over B panels; the packed B block
// (KC x NC, <= 512 KiB) stays in L2. Packing B makes every vector load unit-stride whatever ldb
// and the transpose are; A is only ever broadcast one value at a time.
#if defined(ANVIL_KERNELS_SIMD_GEMM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ANVIL_KERNELS_SIMD_GEMM_INL_H_
#undef ANVIL_KERNELS_SIMD_GEMM_INL_H_
#else
#define ANVIL_KERNELS_SIMD_GEMM_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "base/scratch.h"
#include "hwy/highway.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/masked_load-inl.h"
#include "kernels/simd/vector_math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace anvil::simd::HWY_NAMESPACE {
namespace gemm_internal {

namespace hn = hwy::HWY_NAMESPACE;

// Register tile of the micro-kernel: kMR rows x kNRV vectors of C. The accumulators plus kNRV B
// vectors and one broadcast A value must fit the register file: 8 x 3 = 24 (+4) of the 32 zmm
// registers with AVX-512, 6 x 2 = 12 (+3) of the 16 registers of AVX2/SSE4.
template <typename T>
struct Tile {
  static constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<T>());
  static constexpr size_t kVectorBytes = kLanes * sizeof(T);
  static constexpr size_t kMR = kVectorBytes >= 64 ? 8 : (kVectorBytes >= 16 ? 6 : 4);
  static constexpr size_t kNRV = kVectorBytes >= 64 ? 3 : 2;
  static constexpr size_t kNR = kNRV * kLanes;
  // K slice: an MR x KC panel of A is 8 KiB of float (L1-resident).
  static constexpr size_t kKC = 256;
  // Packed B block KC x NC: at most half of the 1 MiB L2.
  static constexpr size_t kBBlockBytes = 512 * 1024;
};

// Products with M (or N) at most this take the unpacked matrix-vector-like paths.
constexpr int64_t kSmallDim = 4;

// Scratch memory of one serial call (packing, gathering), given back when the call returns: no
// buffer is tied to a thread. Up to kStack elements live on the stack (an A panel, the small
// products' gathers: nothing to allocate for the many small products); more is a lease
// (base/scratch.h) from the scratch pool of whoever runs the work (a Session's, reused across its
// calls), or with none installed an allocation of the call's own, whose cost is small against the
// product that needs it (a packed B block: at least 5 rows x 2 flops per element packed).
template <typename T, size_t kStack = 16 * 1024 / sizeof(T)>
class CallScratch {
 public:
  explicit CallScratch(size_t n) : heap_(n > kStack ? lease_.emplace().Get<T>(0, n) : nullptr) {}
  CallScratch(const CallScratch&) = delete;
  CallScratch& operator=(const CallScratch&) = delete;

  T* get() { return heap_ != nullptr ? heap_ : stack_; }

 private:
  HWY_ALIGN_MAX T stack_[kStack];
  std::optional<ScratchLease> lease_;  // before heap_, which points into it
  T* heap_;
};

// `e`'s activation of the final results v (float; an epilogue is never given for double).
template <class D, class V>
HWY_INLINE V Activate(D d, const Epilogue* e, V v) {
  if constexpr (std::is_same_v<hn::TFromD<D>, float>) {
    if (e != nullptr) return ApplyEpilogue(d, *e, v);
  }
  return v;
}

// Stores one vector of results into C row `c` (n <= lanes valid columns): c = v + beta * c, C
// not read when beta == 0; then `e`'s activation (null: none), in registers, when these are
// the final results.
template <class D, class V, typename T = hn::TFromD<D>>
HWY_INLINE void StoreResult(D d, V v, T beta, size_t n, T* HWY_RESTRICT c,
                            const Epilogue* e = nullptr) {
  constexpr size_t L = hn::MaxLanes(D());
  if (n >= L) {
    if (beta == T(1)) {
      v = hn::Add(hn::LoadU(d, c), v);
    } else if (beta != T(0)) {
      v = hn::MulAdd(hn::Set(d, beta), hn::LoadU(d, c), v);
    }
    hn::StoreU(Activate(d, e, v), d, c);
  } else {
    const auto mask = hn::FirstN(d, n);
    if (beta == T(1)) {
      v = hn::Add(SafeMaskedLoad(mask, d, c), v);
    } else if (beta != T(0)) {
      v = hn::MulAdd(hn::Set(d, beta), SafeMaskedLoad(mask, d, c), v);
    }
    hn::BlendedStore(Activate(d, e, v), mask, d, c);
  }
}

// ---------------------------------------------------------------------------------------------
// Packed path
// ---------------------------------------------------------------------------------------------

// C[kRows, n] (n <= kVecs * lanes) = A_panel * B_panel (+ bias[r] to row r when bias is not
// null) + beta * C over a K slice of `kc`, then `epilogue`'s activation when not null (the last
// K slice's call: the final results).
// `b`: packed B panel, row k holds kVecs * lanes values. A's value (row r, step k) is
// a[r * a_rs + k * a_ks]: a packed panel (a_rs = 1, a_ks = kMR; kPackedA makes them constants)
// or op(A) read in place, as MLAS does - packing A only pays when it folds alpha in, and for
// small N (few B panels to amortize it over) it costs as much as the FMAs.
template <typename T, size_t kRows, size_t kVecs, bool kPackedA>
HWY_NOINLINE void MicroKernel(size_t kc, const T* HWY_RESTRICT a, size_t a_rs, size_t a_ks,
                              const T* HWY_RESTRICT b, T* HWY_RESTRICT c, size_t ldc, size_t n,
                              T beta, const T* HWY_RESTRICT bias, const T* HWY_RESTRICT col_bias,
                              const Epilogue* epilogue) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t L = Tile<T>::kLanes;
  constexpr size_t kBStride = kVecs * L;
  const size_t rs = kPackedA ? 1 : a_rs;
  const size_t ks = kPackedA ? Tile<T>::kMR : a_ks;
  V acc[kRows][kVecs];
  HWY_UNROLL(8)
  for (size_t r = 0; r < kRows; ++r) {
    HWY_UNROLL(3)
    for (size_t v = 0; v < kVecs; ++v) acc[r][v] = hn::Zero(d);
  }
  for (size_t p = 0; p < kc; ++p) {
    V bv[kVecs];
    HWY_UNROLL(3)
    for (size_t v = 0; v < kVecs; ++v) bv[v] = hn::LoadU(d, b + v * L);
    HWY_UNROLL(8)
    for (size_t r = 0; r < kRows; ++r) {
      const V ar = hn::Set(d, a[r * rs]);
      HWY_UNROLL(3)
      for (size_t v = 0; v < kVecs; ++v) acc[r][v] = hn::MulAdd(ar, bv[v], acc[r][v]);
    }
    a += ks;
    b += kBStride;
  }
  HWY_UNROLL(8)
  for (size_t r = 0; r < kRows; ++r) {
    HWY_UNROLL(3)
    for (size_t v = 0; v < kVecs; ++v) {
      // bias + acc: the bits of a C filled with the bias and accumulated onto (beta = 1).
      if (bias != nullptr) acc[r][v] = hn::Add(hn::Set(d, bias[r]), acc[r][v]);
      if (col_bias != nullptr && v * L < n) {
        const auto vb = n - v * L >= L
                            ? hn::LoadU(d, col_bias + v * L)
                            : SafeMaskedLoad(hn::FirstN(d, n - v * L), d, col_bias + v * L);
        acc[r][v] = hn::Add(vb, acc[r][v]);
      }
      if (v * L < n) StoreResult(d, acc[r][v], beta, n - v * L, c + r * ldc + v * L, epilogue);
    }
  }
}

// Column panels at most this wide (a 7x7 image's 49th column) take DotTail, not a micro-kernel
// that would fill one vector lane in eight with the same broadcasts and FMAs as a full vector.
constexpr size_t kMaxDotTail = 3;

// MicroKernel's contract for a panel of w <= kMaxDotTail columns with A read in place, rows
// along k (a_ks = 1): each element as a dot product along k, vectors of A's row against `bt`,
// the panel transposed (column j's kc values at bt[j * kc]). A's rows are in L1 from the row
// tile's earlier panels, so the cost is a vector load pair per FMA instead of a broadcast per
// row per k.
template <typename T, size_t kRows>
HWY_NOINLINE void DotTail(size_t kc, const T* HWY_RESTRICT a, size_t a_rs, const T* HWY_RESTRICT bt,
                          T* HWY_RESTRICT c, size_t ldc, size_t w, T beta,
                          const T* HWY_RESTRICT bias, const T* HWY_RESTRICT col_bias,
                          const Epilogue* epilogue) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t L = Tile<T>::kLanes;
  const size_t full = kc / L * L;
  const auto tail = hn::FirstN(d, kc - full);
  HWY_ALIGN T sums[L] = {};
  for (size_t r = 0; r < kRows; ++r) {
    const T* ar = a + r * a_rs;
    for (size_t j = 0; j < w; ++j) {
      const T* bj = bt + j * kc;
      V acc0 = hn::Zero(d), acc1 = hn::Zero(d);
      size_t k = 0;
      for (; k + 2 * L <= full; k += 2 * L) {
        acc0 = hn::MulAdd(hn::LoadU(d, ar + k), hn::LoadU(d, bj + k), acc0);
        acc1 = hn::MulAdd(hn::LoadU(d, ar + k + L), hn::LoadU(d, bj + k + L), acc1);
      }
      if (k < full) acc0 = hn::MulAdd(hn::LoadU(d, ar + k), hn::LoadU(d, bj + k), acc0);
      if (full < kc) {
        acc1 = hn::MulAdd(SafeMaskedLoad(tail, d, ar + full), SafeMaskedLoad(tail, d, bj + full),
                          acc1);
      }
      sums[j] = hn::GetLane(hn::SumOfLanes(d, hn::Add(acc0, acc1)));
    }
    V v = hn::Load(d, sums);
    if (bias != nullptr) v = hn::Add(hn::Set(d, bias[r]), v);
    if (col_bias != nullptr) v = hn::Add(SafeMaskedLoad(hn::FirstN(d, w), d, col_bias), v);
    StoreResult(d, v, beta, w, c + r * ldc, epilogue);
  }
}

template <typename T>
using DotTailFn = void (*)(size_t, const T*, size_t, const T*, T*, size_t, size_t, T, const T*,
                           const T*, const Epilogue*);

template <typename T, size_t... kR>
DotTailFn<T> PickDotTail(size_t rows, std::index_sequence<kR...>) {
  DotTailFn<T> fn = nullptr;
  ((rows == kR + 1 ? (fn = &DotTail<T, kR + 1>, 0) : 0), ...);
  return fn;
}

template <typename T>
using MicroKernelFn = void (*)(size_t, const T*, size_t, size_t, const T*, T*, size_t, size_t, T,
                               const T*, const T*, const Epilogue*);

template <typename T, size_t kRows, bool kPackedA>
MicroKernelFn<T> KernelWithRows(size_t vecs) {
  if constexpr (Tile<T>::kNRV >= 3) {
    if (vecs >= 3) return &MicroKernel<T, kRows, 3, kPackedA>;
  }
  if (vecs >= 2) return &MicroKernel<T, kRows, 2, kPackedA>;
  return &MicroKernel<T, kRows, 1, kPackedA>;
}

template <typename T, bool kPackedA, size_t... kR>
MicroKernelFn<T> PickKernel(size_t rows, size_t vecs, std::index_sequence<kR...>) {
  MicroKernelFn<T> fn = nullptr;
  ((rows == kR + 1 ? (fn = KernelWithRows<T, kR + 1, kPackedA>(vecs), true) : false) || ...);
  return fn;
}

template <typename T>
MicroKernelFn<T> PickKernel(bool packed_a, size_t rows, size_t vecs) {
  constexpr size_t kMR = Tile<T>::kMR;
  return packed_a ? PickKernel<T, true>(rows, vecs, std::make_index_sequence<kMR>())
                  : PickKernel<T, false>(rows, vecs, std::make_index_sequence<kMR>());
}

// Packs rows [i0, i0 + mr) x K slice [p0, p0 + kc) of alpha * op(A): dst[k * kMR + r].
template <typename T>
void PackA(bool trans_a, const T* A, size_t lda, size_t i0, size_t mr, size_t p0, size_t kc,
           T alpha, T* HWY_RESTRICT dst) {
  constexpr size_t kMR = Tile<T>::kMR;
  if (trans_a) {  // A stored K x M: each k gives mr contiguous values
    for (size_t k = 0; k < kc; ++k) {
      const T* src = A + (p0 + k) * lda + i0;
      for (size_t r = 0; r < mr; ++r) dst[k * kMR + r] = alpha * src[r];
    }
  } else {
    const T* rows[kMR];
    for (size_t r = 0; r < mr; ++r) rows[r] = A + (i0 + r) * lda + p0;
    for (size_t k = 0; k < kc; ++k) {
      for (size_t r = 0; r < mr; ++r) dst[k * kMR + r] = alpha * rows[r][k];
    }
  }
}

// Packs K slice [p0, p0 + kc) x columns [j0, j0 + w) of op(B) into rows of `pw` >= w values
// (zero-filled past w; pw a multiple of the lanes): dst[k * pw + j]. Rows of B are copied a vector
// at a time; a transposed B (each column of op(B) a row of B) is gathered a vector of columns at
// a time, where the hardware gathers: element by element, the transpose of an attention head's
// keys (128 x 16) took a quarter of its Q K^T.
template <typename T>
void PackB(bool trans_b, const T* B, size_t ldb, size_t p0, size_t kc, size_t j0, size_t w,
           size_t pw, T* HWY_RESTRICT dst) {
  const hn::ScalableTag<T> d;
  const size_t L = hn::Lanes(d);
  if (trans_b) {
    size_t gathered = 0;  // columns [0, gathered) a vector at a time
    const hn::RebindToSigned<decltype(d)> di;
    using TI = hn::TFromD<decltype(di)>;
    if (w >= L && ldb <= static_cast<size_t>(std::numeric_limits<TI>::max()) / L) {
      HWY_ALIGN TI offsets[hn::MaxLanes(di)];
      for (size_t i = 0; i < L; ++i) offsets[i] = static_cast<TI>(i * ldb);
      const auto index = hn::Load(di, offsets);
      gathered = w / L * L;
      for (size_t k = 0; k < kc; ++k) {
        const T* src = B + j0 * ldb + p0 + k;
        for (size_t j = 0; j < gathered; j += L) {
          hn::StoreU(hn::GatherIndex(d, src + j * ldb, index), d, dst + k * pw + j);
        }
      }
    }
    for (size_t j = gathered; j < w; ++j) {
      const T* src = B + (j0 + j) * ldb + p0;
      for (size_t k = 0; k < kc; ++k) dst[k * pw + j] = src[k];
    }
    if (w < pw) {
      for (size_t k = 0; k < kc; ++k) std::fill(dst + k * pw + w, dst + (k + 1) * pw, T(0));
    }
    return;
  }
  const size_t full = w / L * L;
  for (size_t k = 0; k < kc; ++k) {
    const T* src = B + (p0 + k) * ldb + j0;
    T* out = dst + k * pw;
    for (size_t j = 0; j < full; j += L) hn::StoreU(hn::LoadU(d, src + j), d, out + j);
    // The tail element by element: a masked load may read past the end of B on targets that
    // emulate it.
    std::copy(src + full, src + w, out + full);
    std::fill(out + w, out + pw, T(0));
  }
}

// Splits `total` into the fewest chunks of at most `max_chunk`, of near-equal size (a 300-deep K
// becomes 150 + 150 rather than 256 + 44), rounded up to a multiple of `multiple`.
inline size_t BalancedChunk(size_t total, size_t max_chunk, size_t multiple) {
  const size_t chunks = (total + max_chunk - 1) / max_chunk;
  size_t chunk = (total + chunks - 1) / chunks;
  chunk = (chunk + multiple - 1) / multiple * multiple;
  return std::min(chunk, max_chunk);
}

// The blocking of the packed path for op(B) of K x N: K slices of at most kc_max, column blocks
// of at most nc_max. A pre-packed B (PackAllB) is laid out block by block in the order the loop
// visits them (column block outer, K slice inner), so both sides must agree on these.
template <typename T>
struct Blocking {
  size_t kc_max, nc_max;
  Blocking(size_t N, size_t K) {
    using Cfg = Tile<T>;
    constexpr size_t kNR = Cfg::kNR;
    kc_max = BalancedChunk(K, Cfg::kKC, 1);
    const size_t nc_limit = std::max(kNR, Cfg::kBBlockBytes / (Cfg::kKC * sizeof(T)) / kNR * kNR);
    nc_max = BalancedChunk(N, nc_limit, kNR);
  }
};

// How many of op(B)'s last columns a call of N columns with A read in place takes by DotTail:
// the last column block's columns past its whole panels, when they are few enough. A split of
// the columns must give exactly these to a call of their own to keep their summation order.
template <typename T>
size_t DotTailColumns(size_t N, size_t K) {
  if (N == 0) return 0;
  const Blocking<T> blocking(N, K);
  const size_t last_block = N - (N - 1) / blocking.nc_max * blocking.nc_max;
  const size_t tail = last_block % Tile<T>::kNR;
  return tail <= kMaxDotTail ? tail : 0;
}

// The packed path's loops; get_b(jc, nc, pc, kc) returns the packed panels of op(B)'s block
// [pc, pc + kc) x [jc, jc + nc) (called once per block, in the order PackAllB lays them out).
// row_bias (M values, or null) is added to each row, col_bias (N values, or null) to each column,
// with the first K slice; `epilogue` (float, or null) activates the results of the last.
template <typename T, class GetB>
void GemmPackedLoop(bool trans_a, size_t M, size_t N, size_t K, T alpha, const T* A, size_t lda,
                    T beta, T* C, size_t ldc, const T* row_bias, const T* col_bias, GetB&& get_b,
                    size_t col_begin = 0, size_t col_end = ~size_t{0},
                    const Epilogue* epilogue = nullptr) {
  using Cfg = Tile<T>;
  constexpr size_t L = Cfg::kLanes;
  constexpr size_t kNR = Cfg::kNR;
  constexpr size_t kMR = Cfg::kMR;
  const Blocking<T> blocking(N, K);
  // alpha != 1 is folded into a packed copy of A; otherwise the micro-kernel reads op(A) in
  // place (the same products in the same order: alpha * a == a exactly when alpha is 1).
  const bool pack_a = alpha != T(1);
  // kc_max <= kKC: the panel always fits the stack part (8 KiB of float).
  CallScratch<T, kMR * Cfg::kKC> a_scratch(pack_a ? kMR * blocking.kc_max : 0);
  T* a_pack = pack_a ? a_scratch.get() : nullptr;
  const size_t a_rs = trans_a ? 1 : lda, a_ks = trans_a ? lda : 1;
  HWY_ALIGN T tail_scratch[kMaxDotTail * Cfg::kKC];
  // Columns [col_begin, col_end) only (a pre-packed B split across threads by panels: col_begin
  // is a multiple of kNR, col_end too or N); get_b is called for every block they touch.
  col_end = std::min(col_end, N);
  const size_t jc_begin = std::min(N, col_begin / blocking.nc_max * blocking.nc_max);
  for (size_t jc = jc_begin; jc < col_end; jc += blocking.nc_max) {
    const size_t nc = std::min(blocking.nc_max, N - jc);
    const size_t panel_begin = col_begin > jc ? (col_begin - jc) / kNR : 0;
    const size_t panels = (std::min(nc, col_end - jc) + kNR - 1) / kNR;
    for (size_t pc = 0; pc < K; pc += blocking.kc_max) {
      const size_t kc = std::min(blocking.kc_max, K - pc);
      // Later K slices accumulate onto the first one's result.
      const T beta_slice = pc == 0 ? beta : T(1);
      const T* b_pack = get_b(jc, nc, pc, kc);
      // A last panel of a few columns, transposed for DotTail (A read in place along k only).
      const T* dot_tail = nullptr;
      const size_t tail_w = nc % kNR, tail_panel = (nc - 1) / kNR;
      if (!pack_a && !trans_a && tail_w != 0 && tail_w <= kMaxDotTail &&
          tail_panel >= panel_begin && tail_panel < panels) {
        const T* panel = b_pack + tail_panel * kNR * kc;
        const size_t pw = (tail_w + L - 1) / L * L;
        for (size_t j = 0; j < tail_w; ++j) {
          for (size_t k = 0; k < kc; ++k) tail_scratch[j * kc + k] = panel[k * pw + j];
        }
        dot_tail = tail_scratch;
      }
      for (size_t ic = 0; ic < M; ic += kMR) {
        const size_t mr = std::min(kMR, M - ic);
        const T* a_panel = A + ic * a_rs + pc * a_ks;
        if (pack_a) {
          PackA(trans_a, A, lda, ic, mr, pc, kc, alpha, a_pack);
          a_panel = a_pack;
        }
        const MicroKernelFn<T> full = PickKernel<T>(pack_a, mr, Cfg::kNRV);
        for (size_t p = panel_begin; p < panels; ++p) {
          const size_t w = std::min(kNR, nc - p * kNR);
          if (dot_tail != nullptr && p == tail_panel) {
            PickDotTail<T>(mr, std::make_index_sequence<kMR>())(
                kc, a_panel, a_rs, dot_tail, C + ic * ldc + jc + p * kNR, ldc, w, beta_slice,
                pc == 0 && row_bias != nullptr ? row_bias + ic : nullptr,
                pc == 0 && col_bias != nullptr ? col_bias + jc + p * kNR : nullptr,
                pc + kc == K ? epilogue : nullptr);
            continue;
          }
          const MicroKernelFn<T> fn = w == kNR ? full : PickKernel<T>(pack_a, mr, (w + L - 1) / L);
          fn(kc, a_panel, a_rs, a_ks, b_pack + p * kNR * kc, C + ic * ldc + jc + p * kNR, ldc, w,
             beta_slice, pc == 0 && row_bias != nullptr ? row_bias + ic : nullptr,
             pc == 0 && col_bias != nullptr ? col_bias + jc + p * kNR : nullptr,
             pc + kc == K ? epilogue : nullptr);
        }
      }
    }
  }
}

// Fills the block [pc, pc + kc) x [jc, jc + nc) of op(B) into panels at dst, one call of
// fill(k0, kc, j0, w, pw, panel) per panel: rows [k0, k0 + kc) x columns [j0, j0 + w), each row
// zero-padded to pw columns (PackB's contract; gemm.h's BPanelFiller).
template <typename T, class Fill>
void FillBlock(Fill&& fill, size_t jc, size_t nc, size_t pc, size_t kc, T* dst) {
  constexpr size_t L = Tile<T>::kLanes;
  constexpr size_t kNR = Tile<T>::kNR;
  const size_t panels = (nc + kNR - 1) / kNR;
  for (size_t p = 0; p < panels; ++p) {
    const size_t w = std::min(kNR, nc - p * kNR);
    fill(pc, kc, jc + p * kNR, w, (w + L - 1) / L * L, dst + p * kNR * kc);
  }
}

// Packs the block [pc, pc + kc) x [jc, jc + nc) of op(B) into panels at dst.
template <typename T>
void PackBlock(bool trans_b, const T* B, size_t ldb, size_t jc, size_t nc, size_t pc, size_t kc,
               T* dst) {
  FillBlock<T>([&](size_t k0, size_t rows, size_t j0, size_t w, size_t pw,
                   T* panel) { PackB(trans_b, B, ldb, k0, rows, j0, w, pw, panel); },
               jc, nc, pc, kc, dst);
}

// The packed path with op(B)'s panels from `fill` (FillBlock's contract), packed per block into
// this call's scratch; `epilogue` (float, or null) activates the results.
template <typename T, class Fill>
void GemmFilled(bool trans_a, size_t M, size_t N, size_t K, T alpha, const T* A, size_t lda,
                Fill&& fill, const T* row_bias, T beta, T* C, size_t ldc,
                const Epilogue* epilogue = nullptr) {
  constexpr size_t kNR = Tile<T>::kNR;
  const Blocking<T> blocking(N, K);
  CallScratch<T> b_scratch((blocking.nc_max + kNR - 1) / kNR * kNR * blocking.kc_max);
  T* b_pack = b_scratch.get();
  GemmPackedLoop(
      trans_a, M, N, K, alpha, A, lda, beta, C, ldc, row_bias, static_cast<const T*>(nullptr),
      [&](size_t jc, size_t nc, size_t pc, size_t kc) {
        FillBlock<T>(fill, jc, nc, pc, kc, b_pack);
        return static_cast<const T*>(b_pack);
      },
      0, ~size_t{0}, epilogue);
}

template <typename T>
void GemmPacked(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, T alpha, const T* A,
                size_t lda, const T* B, size_t ldb, T beta, T* C, size_t ldc) {
  GemmFilled<T>(
      trans_a, M, N, K, alpha, A, lda,
      [&](size_t k0, size_t rows, size_t j0, size_t w, size_t pw, T* panel) {
        PackB(trans_b, B, ldb, k0, rows, j0, w, pw, panel);
      },
      static_cast<const T*>(nullptr), beta, C, ldc);
}

// Elements of a pre-packed op(B) of K x N: every block's panels, zero-padded to kNR columns.
template <typename T>
size_t PackedBSize(size_t N, size_t K) {
  constexpr size_t kNR = Tile<T>::kNR;
  const Blocking<T> blocking(N, K);
  size_t total = 0;
  for (size_t jc = 0; jc < N; jc += blocking.nc_max) {
    const size_t panels = (std::min(blocking.nc_max, N - jc) + kNR - 1) / kNR;
    total += panels * kNR * K;  // the block's K slices together cover K
  }
  return total;
}

template <typename T>
void PackAllB(bool trans_b, size_t K, size_t N, const T* B, size_t ldb, T* dst) {
  constexpr size_t kNR = Tile<T>::kNR;
  const Blocking<T> blocking(N, K);
  for (size_t jc = 0; jc < N; jc += blocking.nc_max) {
    const size_t nc = std::min(blocking.nc_max, N - jc);
    const size_t panels = (nc + kNR - 1) / kNR;
    for (size_t pc = 0; pc < K; pc += blocking.kc_max) {
      const size_t kc = std::min(blocking.kc_max, K - pc);
      PackBlock(trans_b, B, ldb, jc, nc, pc, kc, dst);
      dst += panels * kNR * kc;
    }
  }
}

// The packed path on a B that PackAllB laid out, over its columns [col_begin, col_end) (col_begin
// a multiple of the target's kNR, col_end too or N): no packing of B per call. col_bias (N
// values, or null) is added to each column.
template <typename T>
void GemmPrepacked(bool trans_a, size_t M, size_t N, size_t K, T alpha, const T* A, size_t lda,
                   const T* packed, T beta, T* C, size_t ldc, size_t col_begin, size_t col_end,
                   const T* col_bias = nullptr) {
  constexpr size_t kNR = Tile<T>::kNR;
  const Blocking<T> blocking(N, K);
  const T* next = packed;
  for (size_t jc = 0; jc + blocking.nc_max <= col_begin && jc < N; jc += blocking.nc_max) {
    next += (std::min(blocking.nc_max, N - jc) + kNR - 1) / kNR * kNR * K;
  }
  GemmPackedLoop(
      trans_a, M, N, K, alpha, A, lda, beta, C, ldc, static_cast<const T*>(nullptr), col_bias,
      [&](size_t, size_t nc, size_t, size_t kc) {
        const T* block = next;
        next += (nc + kNR - 1) / kNR * kNR * kc;
        return block;
      },
      col_begin, col_end);
}

// ---------------------------------------------------------------------------------------------
// Unpacked paths for M <= 4 or N <= 4
// ---------------------------------------------------------------------------------------------

// out(r, s) = alpha * dot(x row r, y row s) + beta * out(r, s) for r < kRX, s < kRY, where
// rows are K contiguous values and out(r, s) = out[r * out_rs + s * out_cs].
template <typename T, size_t kRX, size_t kRY>
HWY_NOINLINE void DotTile(size_t K, const T* HWY_RESTRICT x, size_t ldx, const T* HWY_RESTRICT y,
                          size_t ldy, T* out, size_t out_rs, size_t out_cs, T alpha, T beta) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t L = Tile<T>::kLanes;
  V acc[kRX][kRY];
  for (size_t r = 0; r < kRX; ++r) {
    for (size_t s = 0; s < kRY; ++s) acc[r][s] = hn::Zero(d);
  }
  size_t k = 0;
  for (; k + L <= K; k += L) {
    V xv[kRX];
    HWY_UNROLL(4)
    for (size_t r = 0; r < kRX; ++r) xv[r] = hn::LoadU(d, x + r * ldx + k);
    HWY_UNROLL(4)
    for (size_t s = 0; s < kRY; ++s) {
      const V yv = hn::LoadU(d, y + s * ldy + k);
      HWY_UNROLL(4)
      for (size_t r = 0; r < kRX; ++r) acc[r][s] = hn::MulAdd(xv[r], yv, acc[r][s]);
    }
  }
  if (k < K) {
    const auto mask = hn::FirstN(d, K - k);
    V xv[kRX];
    for (size_t r = 0; r < kRX; ++r) xv[r] = SafeMaskedLoad(mask, d, x + r * ldx + k);
    for (size_t s = 0; s < kRY; ++s) {
      const V yv = SafeMaskedLoad(mask, d, y + s * ldy + k);
      for (size_t r = 0; r < kRX; ++r) acc[r][s] = hn::MulAdd(xv[r], yv, acc[r][s]);
    }
  }
  for (size_t r = 0; r < kRX; ++r) {
    for (size_t s = 0; s < kRY; ++s) {
      T* o = out + r * out_rs + s * out_cs;
      const T dot = alpha * hn::GetLane(hn::SumOfLanes(d, acc[r][s]));
      *o = beta == T(0) ? dot : dot + beta * *o;
    }
  }
}

template <typename T>
using DotTileFn = void (*)(size_t, const T*, size_t, const T*, size_t, T*, size_t, size_t, T, T);

template <typename T, size_t kRX, size_t... kS>
DotTileFn<T> PickDotY(size_t ry, std::index_sequence<kS...>) {
  DotTileFn<T> fn = nullptr;
  ((ry == kS + 1 ? (fn = &DotTile<T, kRX, kS + 1>, true) : false) || ...);
  return fn;
}

template <typename T, size_t... kR>
DotTileFn<T> PickDot(size_t rx, size_t ry, std::index_sequence<kR...>) {
  DotTileFn<T> fn = nullptr;
  ((rx == kR + 1 ? (fn = PickDotY<T, kR + 1>(ry, std::make_index_sequence<kSmallDim>()), true)
                 : false) ||
   ...);
  return fn;
}

// out(r, col) = alpha * sum_k x[r * ldx + k] * y[k * ldy + col] + beta * out(r, col) for r <
// kRX, col < ncols, out(r, col) = out[r * out_rs + col * out_cs], vectorized along col.
//
// The accumulators of a block of columns live in an L1-resident buffer and the k loop is
// outermost within the block, so y is read row by row in long contiguous runs. (Register tiles
// that walk all K rows per few columns instead stride through y, touching a new page per row —
// a TLB miss per load for a large y.) Four rows of y per pass keep the accumulator traffic at
// one load and store per four FMAs.
template <typename T, size_t kRX>
HWY_NOINLINE void AxpyTile(size_t K, const T* HWY_RESTRICT x, size_t ldx, const T* HWY_RESTRICT y,
                           size_t ldy, size_t ncols, T* out, size_t out_rs, size_t out_cs, T alpha,
                           T beta) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  constexpr size_t L = Tile<T>::kLanes;
  constexpr size_t kBufferElements = 16 * 1024 / sizeof(T);
  constexpr size_t kBlock = kBufferElements / kRX / L * L;  // columns per block
  HWY_ALIGN_MAX T acc[kRX * kBlock];
  const V valpha = hn::Set(d, alpha);
  for (size_t col0 = 0; col0 < ncols; col0 += kBlock) {
    const size_t n = std::min(kBlock, ncols - col0);
    const size_t full = n / L;            // whole vectors
    const size_t vecs = (n + L - 1) / L;  // including a partial last one
    const auto tail = hn::FirstN(d, n - full * L);
    for (size_t r = 0; r < kRX; ++r) std::fill(acc + r * kBlock, acc + r * kBlock + vecs * L, T(0));
    // One step over `rows` (1 to 4) rows of y starting at k.
    auto step = [&](size_t k, size_t rows) HWY_ATTR {
      V xv[kRX][4];
      for (size_t r = 0; r < kRX; ++r) {
        for (size_t i = 0; i < 4; ++i) xv[r][i] = hn::Set(d, i < rows ? x[r * ldx + k + i] : T(0));
      }
      const T* y0 = y + k * ldy + col0;
      auto update = [&](size_t v, V b0, V b1, V b2, V b3) HWY_ATTR {
        HWY_UNROLL(4)
        for (size_t r = 0; r < kRX; ++r) {
          T* a = acc + r * kBlock + v * L;
          V s = hn::MulAdd(xv[r][0], b0, hn::Load(d, a));
          s = hn::MulAdd(xv[r][1], b1, s);
          s = hn::MulAdd(xv[r][2], b2, s);
          s = hn::MulAdd(xv[r][3], b3, s);
          hn::Store(s, d, a);
        }
      };
      const V zero = hn::Zero(d);
      for (size_t v = 0; v < full; ++v) {
        const T* p = y0 + v * L;
        update(v, hn::LoadU(d, p), rows > 1 ? hn::LoadU(d, p + ldy) : zero,
               rows > 2 ? hn::LoadU(d, p + 2 * ldy) : zero,
               rows > 3 ? hn::LoadU(d, p + 3 * ldy) : zero);
      }
      if (full < vecs) {
        const T* p = y0 + full * L;
        update(full, SafeMaskedLoad(tail, d, p), rows > 1 ? SafeMaskedLoad(tail, d, p + ldy) : zero,
               rows > 2 ? SafeMaskedLoad(tail, d, p + 2 * ldy) : zero,
               rows > 3 ? SafeMaskedLoad(tail, d, p + 3 * ldy) : zero);
      }
    };
    size_t k = 0;
    for (; k + 4 <= K; k += 4) step(k, 4);
    if (k < K) step(k, K - k);
    for (size_t r = 0; r < kRX; ++r) {
      for (size_t v = 0; v < vecs; ++v) {
        const size_t count = std::min(L, n - v * L);
        const V result = hn::Mul(hn::Load(d, acc + r * kBlock + v * L), valpha);
        T* o = out + r * out_rs + (col0 + v * L) * out_cs;
        if (out_cs == 1) {
          StoreResult(d, result, beta, count, o);
          continue;
        }
        HWY_ALIGN_MAX T lanes[L];
        hn::Store(result, d, lanes);
        for (size_t j = 0; j < count; ++j) {
          T* oj = o + j * out_cs;
          *oj = beta == T(0) ? lanes[j] : lanes[j] + beta * *oj;
        }
      }
    }
  }
}

template <typename T>
using AxpyTileFn = void (*)(size_t, const T*, size_t, const T*, size_t, size_t, T*, size_t, size_t,
                            T, T);

template <typename T, size_t... kR>
AxpyTileFn<T> PickAxpy(size_t rx, std::index_sequence<kR...>) {
  AxpyTileFn<T> fn = nullptr;
  ((rx == kR + 1 ? (fn = &AxpyTile<T, kR + 1>, true) : false) || ...);
  return fn;
}

// M <= kSmallDim: each row of C from the (at most 4) rows of op(A) and one pass over B.
template <typename T>
void GemmSmallM(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, T alpha, const T* A,
                size_t lda, const T* B, size_t ldb, T beta, T* C, size_t ldc) {
  const T* x = A;
  size_t ldx = lda;
  CallScratch<T> gathered(trans_a ? M * K : 0);
  if (trans_a) {  // gather the M rows of op(A) into contiguous rows
    T* rows = gathered.get();
    for (size_t k = 0; k < K; ++k) {
      for (size_t r = 0; r < M; ++r) rows[r * K + k] = A[k * lda + r];
    }
    x = rows;
    ldx = K;
  }
  if (trans_b) {  // columns of op(B) are contiguous rows of B: dot products
    for (size_t j0 = 0; j0 < N; j0 += kSmallDim) {
      const size_t ry = std::min<size_t>(kSmallDim, N - j0);
      PickDot<T>(M, ry, std::make_index_sequence<kSmallDim>())(K, x, ldx, B + j0 * ldb, ldb, C + j0,
                                                               ldc, 1, alpha, beta);
    }
  } else {
    PickAxpy<T>(M, std::make_index_sequence<kSmallDim>())(K, x, ldx, B, ldb, N, C, ldc, 1, alpha,
                                                          beta);
  }
}

// N <= kSmallDim (and M > kSmallDim): the transposed problem of GemmSmallM.
template <typename T>
void GemmSmallN(bool trans_a, bool trans_b, size_t M, size_t N, size_t K, T alpha, const T* A,
                size_t lda, const T* B, size_t ldb, T beta, T* C, size_t ldc) {
  const T* y = B;  // row j: column j of op(B)
  size_t ldy = ldb;
  CallScratch<T> gathered(!trans_b ? N * K : 0);
  if (!trans_b) {
    T* rows = gathered.get();
    for (size_t k = 0; k < K; ++k) {
      for (size_t j = 0; j < N; ++j) rows[j * K + k] = B[k * ldb + j];
    }
    y = rows;
    ldy = K;
  }
  if (!trans_a) {
    for (size_t i0 = 0; i0 < M; i0 += kSmallDim) {
      const size_t rx = std::min<size_t>(kSmallDim, M - i0);
      PickDot<T>(rx, N, std::make_index_sequence<kSmallDim>())(K, A + i0 * lda, lda, y, ldy,
                                                               C + i0 * ldc, ldc, 1, alpha, beta);
    }
  } else {  // A stored K x M: stream it once, vectorized along M; C written with stride ldc
    PickAxpy<T>(N, std::make_index_sequence<kSmallDim>())(K, y, ldy, A, lda, M, C, 1, ldc, alpha,
                                                          beta);
  }
}

template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
          int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0 || alpha == T(0)) {  // C = beta * C; A and B are not read
    for (int64_t i = 0; i < M; ++i) {
      T* c = C + i * ldc;
      for (int64_t j = 0; j < N; ++j) c[j] = beta == T(0) ? T(0) : beta * c[j];
    }
    return;
  }
  if (M <= kSmallDim) {
    GemmSmallM<T>(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else if (N <= kSmallDim) {
    GemmSmallN<T>(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  } else {
    GemmPacked<T>(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
}

}  // namespace gemm_internal
}  // namespace anvil::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ANVIL_KERNELS_SIMD_GEMM_INL_H_
