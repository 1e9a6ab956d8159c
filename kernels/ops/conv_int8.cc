// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; FillRows' copies (any
// length) need its dynamic cost model, which is what -O3 uses: without it the im2col fill took
// half of a 1x1 convolution's time. Set before any include, as in elementwise_cast.cc.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include "kernels/ops/conv_int8.h"

#include <algorithm>
#include <cstdint>
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

// rows[t * ld + (j - j0)] = window tap t of output position j, less `zero` (0 in the padding),
// for positions [j0, j0 + count) of the Cg channel planes from `x` (image n's first channel of
// the group).
template <typename T>
void FillRows(const Window2d& v, const T* x, int64_t Cg, int32_t zero, int64_t j0, int64_t count,
              int16_t* rows, int64_t ld) {
  const int64_t plane_size = v.in_h * v.in_w;
  int16_t* row = rows;
  for (int64_t c = 0; c < Cg; ++c) {
    const T* plane = x + c * plane_size;
    for (int64_t ky = 0; ky < v.k_h; ++ky) {
      for (int64_t kx = 0; kx < v.k_w; ++kx, row += ld) {
        const int64_t off = kx * v.dil_w - v.pad_w;
        const auto [inside_lo, inside_hi] = InsideRange(v.out_w, v.in_w, off, v.stride_w);
        int64_t oh = j0 / v.out_w, ow = j0 % v.out_w;
        int16_t* dst = row;
        for (int64_t left = count; left > 0; ++oh, ow = 0) {
          const int64_t seg = std::min(v.out_w - ow, left);
          const int64_t iy = oh * v.stride_h - v.pad_h + ky * v.dil_h;
          if (iy < 0 || iy >= v.in_h) {
            std::fill(dst, dst + seg, int16_t{0});
          } else {
            const T* src = plane + iy * v.in_w + off;
            const int64_t lo = std::clamp(inside_lo, ow, ow + seg);
            const int64_t hi = std::clamp(inside_hi, lo, ow + seg);
            std::fill(dst, dst + (lo - ow), int16_t{0});
            if (v.stride_w == 1) {
              for (int64_t o = lo; o < hi; ++o) dst[o - ow] = static_cast<int16_t>(src[o] - zero);
            } else {
              for (int64_t o = lo; o < hi; ++o) {
                dst[o - ow] = static_cast<int16_t>(src[o * v.stride_w] - zero);
              }
            }
            std::fill(dst + (hi - ow), dst + seg, int16_t{0});
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
                              const int32_t* w_zero, bool per_channel) {
  QConvWeights packed;
  packed.M = M;
  packed.K = K;
  const int64_t Mg = group > 0 ? M / group : 0;
  for (int64_t gi = 0; gi < group; ++gi) {
    const void* rows = static_cast<const uint8_t*>(w) + gi * Mg * K;
    const int32_t* zero = w_zero == nullptr ? nullptr : per_channel ? w_zero + gi * Mg : w_zero;
    packed.groups.push_back(simd::PackQRows(rows, is_signed, K, Mg, K, zero, per_channel));
  }
  return packed;
}

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
            } else if (x_signed) {
              FillRows(v, static_cast<const int8_t*>(x) + first_plane, Cg, x_zero, j0, count, rows,
                       count);
            } else {
              FillRows(v, static_cast<const uint8_t*>(x) + first_plane, Cg, x_zero, j0, count, rows,
                       count);
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
