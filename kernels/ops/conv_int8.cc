// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; FillRows' copies (any
// length) need its dynamic cost model, which is what -O3 uses: without it the im2col fill took
// half of a 1x1 convolution's time. Set before any include, as in elementwise_cast.cc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include "kernels/ops/conv_int8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/parallel.h"
#include "base/scratch.h"
#include "kernels/ops/conv_direct.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/simd/quantize.h"

namespace anvil::compute_ops {
namespace {

// A 1-D or 2-D window as 2-D (a 1-D one is one row high).
struct Window2d {
  int64_t in_h, in_w, out_h, out_w, k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
};

Window2d As2d(const WindowGeometry& g) {
  if (g.spatial == 1) {
    return {1, g.in[0],      1, g.out[0],       1, g.kernel[0],
            1, g.strides[0], 1, g.dilations[0], 0, g.pad_begin[0]};
  }
  return {g.in[0],        g.in[1],        g.out[0],       g.out[1],
          g.kernel[0],    g.kernel[1],    g.strides[0],   g.strides[1],
          g.dilations[0], g.dilations[1], g.pad_begin[0], g.pad_begin[1]};
}

// Output positions per block, in whole panels: the GEMM streams the weight rows once per block
// (megabytes in a late layer), so blocks are wide, while a k slice of the block's panels (256
// pairs x 4 bytes per position) stays within L2 (simd/qgemm.cc).
constexpr int64_t kBlockColumns = 256;

// Rows per task when a layer has too few blocks for every thread (a late layer's 7 x 7 image is
// one block): whole micro-tiles of every target.
constexpr int64_t kRowUnit = 24;

// The input planes less `zero` as int16, each inside the zeros of the window's padding
// (the padding is the zero point, which is 0 less itself), hp x wp per plane: the rows and
// columns every tap reads, so that the im2col fill copies runs with no bounds to test.
struct Padded {
  int64_t hp = 0, wp = 0;
};

Padded PaddedSize(const Window2d& v) {
  return {(v.out_h - 1) * v.stride_h + (v.k_h - 1) * v.dil_h + 1,
          (v.out_w - 1) * v.stride_w + (v.k_w - 1) * v.dil_w + 1};
}

template <typename T>
void PadPlanes(const Window2d& v, const Padded& p, const T* x, int64_t begin, int64_t end,
               int32_t zero, int16_t* out) {
  // The input rows and columns the taps reach: none when the padding covers every read (a pad
  // may exceed the extent the taps read when the stride does: rows = 1, pad = 2, stride 3).
  const int64_t rows = std::clamp<int64_t>(p.hp - v.pad_h, 0, v.in_h);
  const int64_t cols = std::clamp<int64_t>(p.wp - v.pad_w, 0, v.in_w);
  for (int64_t plane = begin; plane < end; ++plane) {
    const T* src = x + plane * v.in_h * v.in_w;
    int16_t* dst = out + plane * p.hp * p.wp;
    std::fill(dst, dst + p.hp * p.wp, int16_t{0});
    for (int64_t y = 0; y < rows; ++y) {
      int16_t* row = dst + (v.pad_h + y) * p.wp + v.pad_w;
      const T* in = src + y * v.in_w;
      for (int64_t i = 0; i < cols; ++i) row[i] = static_cast<int16_t>(in[i] - zero);
    }
  }
}

// rows[t * ld + (j - j0)] = window tap t of output position j, for positions [j0, j0 + count)
// of the Cg padded planes at `planes`: runs of a row copied as they are (stride 1) or gathered.
void FillRows(const Window2d& v, const Padded& p, const int16_t* planes, int64_t Cg, int64_t j0,
              int64_t count, int16_t* rows, int64_t ld) {
  int16_t* row = rows;
  for (int64_t c = 0; c < Cg; ++c) {
    const int16_t* plane = planes + c * p.hp * p.wp;
    for (int64_t ky = 0; ky < v.k_h; ++ky) {
      for (int64_t kx = 0; kx < v.k_w; ++kx, row += ld) {
        int64_t oh = j0 / v.out_w, ow = j0 % v.out_w;
        int16_t* dst = row;
        for (int64_t left = count; left > 0; ++oh, ow = 0) {
          const int64_t seg = std::min(v.out_w - ow, left);
          const int16_t* src =
              plane + (oh * v.stride_h + ky * v.dil_h) * p.wp + ow * v.stride_w + kx * v.dil_w;
          if (v.stride_w == 1) {
            std::memcpy(dst, src, static_cast<size_t>(seg) * sizeof(int16_t));
          } else {
            for (int64_t o = 0; o < seg; ++o) dst[o] = src[o * v.stride_w];
          }
          dst += seg;
          left -= seg;
        }
      }
    }
  }
}

}  // namespace

QConvWeights PackQConvWeights(const void* w, bool is_signed, int64_t M, int64_t K, int64_t group,
                              const int32_t* w_zero, bool per_channel, bool with_columns) {
  QConvWeights packed;
  packed.M = M;
  packed.K = K;
  const int64_t Mg = group > 0 ? M / group : 0;
  std::vector<uint8_t> transposed;
  for (int64_t gi = 0; gi < group; ++gi) {
    const uint8_t* rows = static_cast<const uint8_t*>(w) + gi * Mg * K;
    const int32_t* zero = w_zero == nullptr ? nullptr : per_channel ? w_zero + gi * Mg : w_zero;
    packed.groups.push_back(simd::PackQRows(rows, is_signed, K, Mg, K, zero, per_channel));
    if (with_columns) {
      transposed.resize(static_cast<size_t>(K * Mg));
      Transpose(rows, Mg, K, transposed.data());
      packed.columns.push_back(
          simd::PackQColumns(transposed.data(), is_signed, Mg, K, Mg, zero, per_channel));
    }
  }
  return packed;
}

bool QConvTransposes(int64_t out_size) { return out_size <= 64; }

bool QConvSupports(const WindowGeometry& g) { return g.spatial == 1 || g.spatial == 2; }

bool QDepthwiseSupports(const WindowGeometry& g, int64_t C, int64_t group) {
  return g.spatial == 2 && group == C && g.kernel_size < 258;
}

void QDepthwiseForward(const WindowGeometry& g, int64_t N, int64_t C, const void* x, bool x_signed,
                       int32_t x_zero, const QConvWeights& w, QConvStore store) {
  const int64_t group = static_cast<int64_t>(w.groups.size());
  if (N <= 0 || group == 0 || w.M <= 0 || g.out_size <= 0) return;
  const int64_t M = w.M, Mg = M / group, K = w.K, K2 = (K + 1) / 2;
  // W - w_zero as floats, taken back out of the packed int16 pairs.
  std::vector<float> weights(static_cast<size_t>(M * K));
  for (int64_t gi = 0; gi < group; ++gi) {
    const std::vector<int32_t>& pairs = w.groups[gi].pairs;
    for (int64_t r = 0; r < Mg; ++r) {
      for (int64_t t = 0; t < K; ++t) {
        const uint32_t pair = static_cast<uint32_t>(pairs[r * K2 + t / 2]);
        weights[(gi * Mg + r) * K + t] =
            static_cast<int16_t>(t % 2 == 0 ? pair & 0xFFFF : pair >> 16);
      }
    }
  }
  const int64_t in_count = N * C * g.in_size, out_count = N * M * g.out_size;
  ScratchLease lease;
  float* xf = lease.Get<float>(0, static_cast<size_t>(in_count));
  float* yf = lease.Get<float>(1, static_cast<size_t>(out_count));
  int32_t* acc = lease.Get<int32_t>(2, static_cast<size_t>(out_count));
  // Planes converted and stored in parallel (DepthwiseConv2D splits its planes itself).
  const double plane_in = static_cast<double>(g.in_size);
  const double plane_out = static_cast<double>(g.out_size);
  parallel::For(N * C, parallel::MinChunk(plane_in, parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  const int64_t at = begin * g.in_size;
                  // Exactly x - x_zero.
                  simd::DequantizeLinear(static_cast<const uint8_t*>(x) + at, x_signed,
                                         (end - begin) * g.in_size, 1.0f, x_zero, xf + at);
                });
  DepthwiseConv2D(g, N, C, M, group, xf, weights.data(), nullptr, simd::Epilogue(), yf);
  parallel::For(N * M, parallel::MinChunk(plane_out, parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  for (int64_t nm = begin; nm < end; ++nm) {
                    const int64_t n = nm / M, m = nm % M;
                    int32_t* plane = acc + nm * g.out_size;
                    for (int64_t i = 0; i < g.out_size; ++i) {
                      plane[i] = static_cast<int32_t>(yf[nm * g.out_size + i]);
                    }
                    store(n, m / Mg, m % Mg, m % Mg + 1, 0, g.out_size, plane, g.out_size);
                  }
                });
}

namespace {

// QConvForward with the output positions as the GEMM's rows, for layers of few positions:
// per (image, group) the windows of every position (from the padded planes) as QRows, times
// the weights' columns (threaded by simd::QGemm), transposed back for `store`.
void TransposedForward(const Window2d& v, const Padded& p, const int16_t* planes, int64_t N,
                       int64_t C, const QConvWeights& w, QConvStore store) {
  const int64_t group = static_cast<int64_t>(w.groups.size());
  const int64_t Cg = C / group, Mg = w.M / group, K = w.K, K2 = (K + 1) / 2;
  const int64_t count = v.out_h * v.out_w;
  ScratchLease lease;
  int32_t* acc_t = lease.Get<int32_t>(0, static_cast<size_t>(count * Mg));
  int32_t* acc = lease.Get<int32_t>(1, static_cast<size_t>(count * Mg));
  simd::QRows rows;
  rows.m = count;
  rows.k = K;
  rows.pairs.resize(static_cast<size_t>(count * K2));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t gi = 0; gi < group; ++gi) {
      const int16_t* first = planes + (n * C + gi * Cg) * p.hp * p.wp;
      // Row j's pairs hold taps (2q, 2q + 1) as int16, the lower tap in the low half: as int16
      // values, tap t of row j at [j * K2 * 2 + t] (little-endian), an odd K's last one 0.
      int16_t* taps = reinterpret_cast<int16_t*>(rows.pairs.data());
      for (int64_t j = 0; j < count; ++j) {
        const int64_t oh = j / v.out_w, ow = j % v.out_w;
        int16_t* dst = taps + j * K2 * 2;
        int64_t t = 0;
        for (int64_t c = 0; c < Cg; ++c) {
          const int16_t* plane = first + c * p.hp * p.wp;
          for (int64_t ky = 0; ky < v.k_h; ++ky) {
            const int16_t* src = plane + (oh * v.stride_h + ky * v.dil_h) * p.wp + ow * v.stride_w;
            for (int64_t kx = 0; kx < v.k_w; ++kx) dst[t++] = src[kx * v.dil_w];
          }
        }
        if (K % 2 != 0) dst[K] = 0;
      }
      simd::QGemm(rows, w.columns[gi], acc_t, Mg);
      Transpose(acc_t, count, Mg, acc);
      store(n, gi, 0, Mg, 0, count, acc, count);
    }
  }
}

}  // namespace

void QConvForward(const WindowGeometry& g, int64_t N, int64_t C, const void* x, bool x_signed,
                  int32_t x_zero, const QConvWeights& w, QConvStore store) {
  const int64_t group = static_cast<int64_t>(w.groups.size());
  if (N <= 0 || group == 0 || w.M <= 0 || g.out_size <= 0) return;
  const Window2d v = As2d(g);
  const int64_t Cg = C / group, Mg = w.M / group, K = w.K, K2 = (K + 1) / 2;
  const int64_t width = simd::QPanelWidth();
  const int64_t threads = parallel::CurrentThreads();
  int64_t bw = g.out_size <= kBlockColumns ? g.out_size : kBlockColumns / width * width;
  if (N * group * ((g.out_size + bw - 1) / bw) < threads) {
    // Too few blocks for every thread: narrower ones, in whole panels, so that each thread fills
    // only its own columns (a 14 x 14 layer's fill costs as much as its multiply-adds).
    const int64_t split = (threads + N * group - 1) / (N * group);
    const int64_t narrow = ((g.out_size + split - 1) / split + width - 1) / width * width;
    bw = std::min(bw, std::max(width, narrow));
  }
  const int64_t bw_panels = (bw + width - 1) / width * width;
  const int64_t blocks = (g.out_size + bw - 1) / bw;
  // Row chunks when there are still too few blocks: each fills its block's columns itself (the
  // fill is K x bw of the chunk's rows x K x bw multiply-adds).
  // A pointwise convolution's input planes are the GEMM's rows of k as they are.
  const bool pointwise = v.k_h == 1 && v.k_w == 1 && v.stride_h == 1 && v.stride_w == 1 &&
                         v.pad_h == 0 && v.pad_w == 0 && v.out_h == v.in_h && v.out_w == v.in_w;
  int64_t row_chunks = 1;
  if (N * group * blocks < 2 * threads) {
    row_chunks = std::clamp<int64_t>((2 * threads + N * group * blocks - 1) / (N * group * blocks),
                                     1, std::max<int64_t>(1, Mg / kRowUnit));
  }
  const int64_t rows_per_chunk = (Mg + row_chunks - 1) / row_chunks;
  const double task_flops =
      2.0 * static_cast<double>(rows_per_chunk) * static_cast<double>(K) * static_cast<double>(bw);
  // Every input plane padded once, for all the blocks that read it.
  const Padded padded = PaddedSize(v);
  ScratchLease pad_lease;
  int16_t* planes = nullptr;
  if (!pointwise) {
    planes = pad_lease.Get<int16_t>(0, static_cast<size_t>(N * C * padded.hp * padded.wp));
    parallel::For(
        N * C,
        parallel::MinChunk(static_cast<double>(padded.hp * padded.wp), parallel::kMinChunkElements),
        [&](int64_t begin, int64_t end) {
          if (x_signed) {
            PadPlanes(v, padded, static_cast<const int8_t*>(x), begin, end, x_zero, planes);
          } else {
            PadPlanes(v, padded, static_cast<const uint8_t*>(x), begin, end, x_zero, planes);
          }
        });
    if (!w.columns.empty() && QConvTransposes(g.out_size)) {
      TransposedForward(v, padded, planes, N, C, w, store);
      return;
    }
  }
  parallel::For(
      N * group * blocks * row_chunks, parallel::MinChunk(task_flops, parallel::kMinChunkFlops),
      [&](int64_t begin, int64_t end) {
        ScratchLease lease;
        int16_t* rows = lease.Get<int16_t>(0, static_cast<size_t>(pointwise ? 1 : K * bw + 1));
        int16_t* panels = lease.Get<int16_t>(1, static_cast<size_t>(K2 * bw_panels * 2 + 1));
        int32_t* acc = lease.Get<int32_t>(2, static_cast<size_t>(rows_per_chunk * bw));
        int64_t filled = -1;  // the (image, group, block) whose panels are in `panels`
        for (int64_t task = begin; task < end; ++task) {
          const int64_t chunk = task % row_chunks, block_task = task / row_chunks;
          const int64_t blk = block_task % blocks, gi = (block_task / blocks) % group,
                        n = block_task / (blocks * group);
          const int64_t j0 = blk * bw, count = std::min(bw, g.out_size - j0);
          if (filled != block_task) {
            const int64_t first_plane = (n * C + gi * Cg) * g.in_size;
            if (pointwise) {
              const int64_t at = first_plane + j0;  // bytes
              simd::PackPanelsFromBytes(static_cast<const uint8_t*>(x) + at, x_signed, g.in_size,
                                        x_zero, K, count, panels);
            } else {
              FillRows(v, padded, planes + (n * C + gi * Cg) * padded.hp * padded.wp, Cg, j0, count,
                       rows, count);
            }
            if (!pointwise) simd::PackPanels(rows, count, K, count, panels);
            filled = block_task;
          }
          const int64_t r0 = chunk * rows_per_chunk, r1 = std::min(Mg, r0 + rows_per_chunk);
          if (r0 >= r1) continue;
          simd::QGemmPanels(w.groups[gi], r0, r1, panels, count, acc, count);
          store(n, gi, r0, r1, j0, count, acc, count);
        }
      });
}

}  // namespace anvil::compute_ops
