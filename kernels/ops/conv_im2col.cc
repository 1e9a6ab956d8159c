#include "kernels/ops/conv_im2col.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/parallel.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/im2col.h"

namespace anvil::compute_ops {
namespace {

// Elements of `col` per chunk: 4 MiB of float, so the packed GEMM streams it from L2/L3 while
// the im2col of the next chunk does not evict the weights.
constexpr int64_t kColBudget = int64_t{1} << 20;
// Chunks narrower than this would make the GEMM's N too small to run at full speed.
constexpr int64_t kMinChunkColumns = 256;

// Row-major strides of the spatial dims `dims`.
Shape SpatialStrides(const Shape& dims) {
  Shape strides(dims.size(), 1);
  for (int64_t k = static_cast<int64_t>(dims.size()) - 2; k >= 0; --k) {
    strides[k] = strides[k + 1] * dims[k + 1];
  }
  return strides;
}

// Walks the columns [p0, p1) of the col matrix of one (channel, kernel offset) row: calls
// seg(src_offset_of_first_valid, lo, hi, dst_begin, dst_end) per innermost-dim segment, where
// positions p in [dst_begin, dst_end) (relative to p0) belong to one row of `iter` dims; within
// it those in [lo, hi) map to `other` offsets src_offset + (p - lo) * stride_last and the rest
// are outside `other` (padding). `iter` is the side enumerated by p (Conv: the output; the
// transpose: the input), `other` the side addressed through the window.
//
// For Conv: iter = out, other = in, coordinate map other = iter * stride - pad + k * dilation.
// For ConvTranspose: iter = in, other = out, same map.
template <class Segment>
void ForEachSegment(const WindowGeometry& g, const Shape& iter, const Shape& other,
                    const Shape& other_strides, const Shape& koff, int64_t p0, int64_t p1,
                    Segment&& seg) {
  const int64_t S = g.spatial;
  const int64_t IT = iter[S - 1], OT = other[S - 1];
  const int64_t s = g.strides[S - 1];
  const int64_t woff = koff[S - 1] * g.dilations[S - 1] - g.pad_begin[S - 1];
  // Valid iter positions along the last dim: 0 <= w * s + woff < OT.
  const int64_t w_lo = woff >= 0 ? 0 : (-woff + s - 1) / s;
  const int64_t w_hi = OT - 1 - woff < 0 ? 0 : std::min(IT, (OT - 1 - woff) / s + 1);
  int64_t p = p0;
  while (p < p1) {
    const int64_t row = p / IT;
    const int64_t w0 = p % IT;
    const int64_t w1 = std::min(IT, w0 + (p1 - p));
    bool inside = true;
    int64_t base = 0;
    int64_t r = row;
    for (int64_t d = S - 2; d >= 0; --d) {
      const int64_t o = r % iter[d];
      r /= iter[d];
      const int64_t c = o * g.strides[d] - g.pad_begin[d] + koff[d] * g.dilations[d];
      if (c < 0 || c >= other[d]) {
        inside = false;
        break;
      }
      base += c * other_strides[d];
    }
    int64_t lo = w1, hi = w1;
    if (inside) {
      lo = std::clamp(w_lo, w0, w1);
      hi = std::clamp(w_hi, lo, w1);
    }
    seg(base + lo * s + woff, lo - w0, hi - w0, p - p0, p - p0 + (w1 - w0), s);
    p += w1 - w0;
  }
}

// Unravels kernel offset index `kidx` into per-dim offsets.
void KernelOffsets(const WindowGeometry& g, int64_t kidx, Shape* koff) {
  for (int64_t d = g.spatial - 1; d >= 0; --d) {
    (*koff)[d] = kidx % g.kernel[d];
    kidx /= g.kernel[d];
  }
}

// Im2Col for whole 2-D images (p0 = 0, p1 = out_size), the common case, without the general
// walker's per-segment bookkeeping: per kernel column the valid output columns [lo, hi) are
// the same for every output row, so each row is zeros, a (strided) copy, zeros.
template <typename T>
void Im2Col2D(const WindowGeometry& g, const T* x, int64_t channels, T* col, int64_t ld) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dilations[0], dw = g.dilations[1];
  const int64_t ph = g.pad_begin[0], pw = g.pad_begin[1], KH = g.kernel[0], KW = g.kernel[1];
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * g.in_size;
    for (int64_t kh = 0; kh < KH; ++kh) {
      for (int64_t kw = 0; kw < KW; ++kw) {
        T* dst = col + ((c * KH + kh) * KW + kw) * ld;
        // Output columns ow with 0 <= ow * sw - pw + kw * dw < W.
        const int64_t off = kw * dw - pw;
        const auto [lo, hi] = InsideRange(OW, W, off, sw);
        for (int64_t oh = 0; oh < OH; ++oh) {
          T* out = dst + oh * OW;
          const int64_t ih = oh * sh - ph + kh * dh;
          if (ih < 0 || ih >= H) {
            std::fill(out, out + OW, T(0));
            continue;
          }
          const T* src = xc + ih * W + off;
          std::fill(out, out + lo, T(0));
          if (sw == 1) {
            std::copy(src + lo, src + hi, out + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) out[ow] = src[ow * sw];
          }
          std::fill(out + hi, out + OW, T(0));
        }
      }
    }
  }
}

// The input planes of a few images zero-padded so that every kernel tap of a 2-D convolution
// reads inside them: an im2col row segment is then a plain (strided) copy.
class PaddedPlanes {
 public:
  // Rows and columns every tap can reach: padded row r is input row r - pad_begin[0].
  static int64_t Height(const WindowGeometry& g) {
    return (g.out[0] - 1) * g.strides[0] + (g.kernel[0] - 1) * g.dilations[0] + 1;
  }
  static int64_t Width(const WindowGeometry& g) {
    return (g.out[1] - 1) * g.strides[1] + (g.kernel[1] - 1) * g.dilations[1] + 1;
  }
  // Floats `buffer` needs for `planes` planes, with the slack FillIm2ColRows may read past them.
  static int64_t Size(const WindowGeometry& g, int64_t planes) {
    return planes * Height(g) * Width(g) + simd::kIm2ColReadSlack;
  }

  // Pads `images` images of `channels` planes each (images `image_stride` apart in x, planes
  // g.in_size apart) into `buffer`.
  PaddedPlanes(const WindowGeometry& g, const float* x, int64_t images, int64_t image_stride,
               int64_t channels, float* buffer)
      : height(Height(g)), width(Width(g)), data(buffer) {
    const int64_t H = g.in[0], W = g.in[1], ph = g.pad_begin[0], pw = g.pad_begin[1];
    // Input columns [lo, hi) land in padded columns [lo + pw, hi + pw) inside the width.
    const int64_t lo = std::min(W, std::max<int64_t>(0, -pw));
    const int64_t hi = std::max(lo, std::min(W, width - pw));
    // Zeros everywhere first, in one pass, then one copy per input row: late layers' planes are
    // small (10 x 10 padded), and three calls per row cost more than the copy itself.
    const int64_t planes = images * channels;
    std::fill(buffer, buffer + planes * height * width + simd::kIm2ColReadSlack, 0.0f);
    if (hi <= lo) return;
    const int64_t r_lo = std::max<int64_t>(0, ph), r_hi = std::min(height, H + ph);
    for (int64_t p = 0; p < planes; ++p) {
      const float* plane = x + p / channels * image_stride + p % channels * g.in_size;
      float* out = buffer + p * height * width + lo + pw;
      for (int64_t r = r_lo; r < r_hi; ++r) {
        std::copy(plane + (r - ph) * W + lo, plane + (r - ph) * W + hi, out + r * width);
      }
    }
  }

  int64_t height, width;
  const float* data;
};

// The im2col matrix of whole 2-D images side by side (column j: image j / out_size, output
// position j % out_size; row (c * KH + kh) * KW + kw), produced panel by panel for
// simd::SgemmFilledB from the padded planes instead of being stored: the GEMM's B packing and

// the im2col become one copy, and the matrix never leaves L1/L2.
class Im2ColPanels {
 public:
  // `rows`: the matrix's K (channels x kernel taps) over the planes of `padded`.
  Im2ColPanels(const WindowGeometry& g, const PaddedPlanes& padded, int64_t rows)
      : g_(g), padded_(padded), taps_(rows) {
    const int64_t KH = g.kernel[0], KW = g.kernel[1];
    const int64_t plane = padded.height * padded.width;
    for (int64_t k = 0; k < rows; ++k) {
      const int64_t c = k / (KH * KW), kh = k / KW % KH, kw = k % KW;
      taps_[k] = c * plane + kh * g.dilations[0] * padded.width + kw * g.dilations[1];
    }
    image_size_ = rows / (KH * KW) * plane;
  }

  void operator()(int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) const {
    // The panel's columns as runs along one output row of one image, kMaxRuns at a time.
    constexpr int64_t kMaxRuns = 64;
    simd::Im2ColRun runs[kMaxRuns];
    const int64_t OW = g_.out[1];
    for (int64_t j = 0; j < w;) {
      int64_t count = 0;
      for (; j < w && count < kMaxRuns; ++count) {
        const int64_t col = j0 + j, image = col / g_.out_size, p = col % g_.out_size;
        const int64_t oh = p / OW, ow = p % OW, len = std::min(OW - ow, w - j);
        runs[count] = {
            image * image_size_ + oh * g_.strides[0] * padded_.width + ow * g_.strides[1], len, j};
        j += len;
      }
      simd::FillIm2ColRows(padded_.data, g_.strides[1], taps_.data() + k0, kc, runs, count, pw,
                           dst);
    }
    if (w < pw) {
      for (int64_t k = 0; k < kc; ++k) std::fill(dst + k * pw + w, dst + (k + 1) * pw, 0.0f);
    }
  }

 private:
  const WindowGeometry& g_;
  const PaddedPlanes& padded_;
  std::vector<int64_t> taps_;  // per row: offset of its first read in an image's padded planes
  int64_t image_size_ = 0;
};

// col[(c * k + kidx) * ld + p - p0] = x[c, window position of output p] for output positions
// [p0, p1) of `channels` input planes at `x`; rows of `col` are `ld` apart (default p1 - p0).
template <typename T>
void Im2Col(const WindowGeometry& g, const T* x, int64_t channels, int64_t p0, int64_t p1, T* col,
            int64_t ld = 0) {
  const int64_t cols = ld > 0 ? ld : p1 - p0;
  if (g.spatial == 2 && p0 == 0 && p1 == g.out_size) return Im2Col2D(g, x, channels, col, cols);
  const Shape in_strides = SpatialStrides(g.in);
  Shape koff(g.spatial);
  for (int64_t kidx = 0; kidx < g.kernel_size; ++kidx) {
    KernelOffsets(g, kidx, &koff);
    for (int64_t c = 0; c < channels; ++c) {
      const T* xc = x + c * g.in_size;
      T* dst = col + (c * g.kernel_size + kidx) * cols;
      ForEachSegment(g, g.out, g.in, in_strides, koff, p0, p1,
                     [&](int64_t src, int64_t lo, int64_t hi, int64_t b, int64_t e, int64_t s) {
                       T* out = dst + b;
                       const int64_t n = e - b;
                       std::fill(out, out + lo, T(0));
                       if (s == 1) {
                         std::copy(xc + src, xc + src + (hi - lo), out + lo);
                       } else {
                         for (int64_t w = lo; w < hi; ++w) out[w] = xc[src + (w - lo) * s];
                       }
                       std::fill(out + hi, out + n, T(0));
                     });
    }
  }
}

// y[m, window position of input p] += col[(m * k + kidx), p - p0] for input positions [p0, p1):
// the adjoint of Im2Col, with `g.in` the transpose's input and `g.out` its output.
// Col2Im for whole 2-D inputs (p0 = 0, p1 = in_size): per kernel column the input columns that
// land inside the output are the same for every row. Contributions reach each output in the
// general walker's order (kernel offset by kernel offset).
template <typename T>
void Col2Im2D(const WindowGeometry& g, const T* col, int64_t channels, T* y) {
  const int64_t IH = g.in[0], IW = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dilations[0], dw = g.dilations[1];
  const int64_t KH = g.kernel[0], KW = g.kernel[1];
  const int64_t cols = g.in_size;
  for (int64_t kh = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw) {
      // Input columns iw with 0 <= iw * sw + off < OW.
      const int64_t off = kw * dw - g.pad_begin[1];
      const auto [lo, hi] = InsideRange(IW, OW, off, sw);
      // Stride 2 with the next tap landing on the odd columns (a 2x2 stride-2 upsampling, or
      // any even-wide kernel with dilation 1): both taps in one interleaved pass, done at the
      // even tap.
      auto pairs_with_next = [&](int64_t k) {
        const int64_t o = k * dw - g.pad_begin[1];
        return std::is_same_v<T, float> && sw == 2 && dw == 1 && k % 2 == 0 && k + 1 < KW &&
               InsideRange(IW, OW, o + 1, sw) == InsideRange(IW, OW, o, sw);
      };
      if (kw % 2 == 1 && pairs_with_next(kw - 1)) continue;  // added with tap kw - 1
      const bool paired = pairs_with_next(kw);
      for (int64_t m = 0; m < channels; ++m) {
        T* ym = y + m * g.out_size;
        const T* src_row = col + (m * g.kernel_size + kh * KW + kw) * cols;
        if constexpr (std::is_same_v<T, float>) {
          if (paired) {
            for (int64_t ih = 0; ih < IH; ++ih) {
              const int64_t oh = ih * sh - g.pad_begin[0] + kh * dh;
              if (oh < 0 || oh >= OH || hi <= lo) continue;
              simd::AddInterleaved2(src_row + ih * IW + lo, src_row + cols + ih * IW + lo,
                                    ym + oh * OW + off + lo * 2, static_cast<size_t>(hi - lo));
            }
            continue;
          }
        }
        for (int64_t ih = 0; ih < IH; ++ih) {
          const int64_t oh = ih * sh - g.pad_begin[0] + kh * dh;
          if (oh < 0 || oh >= OH) continue;
          const T* src = src_row + ih * IW;
          T* dst = ym + oh * OW + off;
          if (sw == 1) {
            for (int64_t iw = lo; iw < hi; ++iw) dst[iw] += src[iw];
          } else {
            for (int64_t iw = lo; iw < hi; ++iw) dst[iw * sw] += src[iw];
          }
        }
      }
    }
  }
}

bool IsPointwise(const WindowGeometry& g) {
  for (int64_t d = 0; d < g.spatial; ++d) {
    if (g.kernel[d] != 1 || g.strides[d] != 1 || g.pad_begin[d] != 0 || g.in[d] != g.out[d]) {
      return false;
    }
  }
  return true;
}

// Taps from which a 1-D convolution's windows are read in place (StridedWindows1D) rather than
// through im2col: a long kernel (an STFT's 400-1024 taps) makes im2col a copy of the input
// kernel / stride times over (3.2x for 512 taps at stride 160), then packed again by the GEMM.
constexpr int64_t kMinInPlaceTaps = 32;

// Whether a 1-D convolution's windows are rows of a strided view of each input channel: window
// t of channel c is x[c][t * stride, t * stride + kernel), all inside the input (no padding
// reached, dilation 1). Then im2col's column t is that view's row t, and the product is a GEMM
// with B transposed, B's rows `stride` apart (overlapping): no im2col.
bool StridedWindows1D(const WindowGeometry& g) {
  return g.spatial == 1 && g.kernel[0] >= kMinInPlaceTaps && g.dilations[0] == 1 &&
         g.pad_begin[0] == 0 && g.out[0] > 0 &&
         (g.out[0] - 1) * g.strides[0] + g.kernel[0] <= g.in[0];
}

// C[Mg, cols] = W[Mg, K] x im2col of the images at x (image_stride apart) + bias (Mg values, or
// null) through Im2ColPanels (X's own rows for one image of a pointwise convolution), when the
// packed GEMM path would run (float, 2-D or pointwise, more than 4 rows and columns): the bits
// of the im2col + GEMM it replaces. False (nothing done) otherwise. The padded planes go in
// slot 0 of `scratch`.
template <typename T>
bool ImplicitConvGemm(const WindowGeometry& g, int64_t Mg, int64_t cols, int64_t K, const T* w,
                      const T* x, int64_t image_stride, const T* bias, T* c, int64_t ldc,
                      ScratchBuffers& scratch, const simd::Epilogue* epilogue) {
  if constexpr (std::is_same_v<T, float>) {
    if (IsPointwise(g) && Mg > 4 && cols > 4 && image_stride == 0) {
      // B is X itself (K channels of in_size values): panels copied as Sgemm would pack them,
      // so the bias goes in the epilogue rather than in a pass over C.
      auto rows = [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) {
        simd::PackRowsOfB(x, g.in_size, k0, kc, j0, w, pw, dst);
      };
      simd::SgemmFilledB(Mg, cols, K, w, K, rows, bias, 0.0f, c, ldc, epilogue);
      return true;
    }
    if (g.spatial == 2 && Mg > 4 && cols > 4) {
      const int64_t images = cols / g.out_size, channels = K / g.kernel_size;
      float* buffer = scratch.Get<float>(0, PaddedPlanes::Size(g, images * channels));
      const PaddedPlanes padded(g, x, images, image_stride, channels, buffer);
      simd::SgemmFilledB(Mg, cols, K, w, K, Im2ColPanels(g, padded, K), bias, 0.0f, c, ldc,
                         epilogue);
      return true;
    }
  }
  return false;
}

}  // namespace

int64_t ChunkColumns(int64_t rows, int64_t total) {
  const int64_t by_budget = rows > 0 ? kColBudget / rows : total;
  return std::max<int64_t>(1, std::min(total, std::max(by_budget, kMinChunkColumns)));
}

template <typename T>
void Col2Im(const WindowGeometry& g, const T* col, int64_t channels, int64_t p0, int64_t p1, T* y) {
  const int64_t cols = p1 - p0;
  if (g.spatial == 2 && p0 == 0 && p1 == g.in_size) return Col2Im2D(g, col, channels, y);
  const Shape out_strides = SpatialStrides(g.out);
  Shape koff(g.spatial);
  for (int64_t kidx = 0; kidx < g.kernel_size; ++kidx) {
    KernelOffsets(g, kidx, &koff);
    for (int64_t m = 0; m < channels; ++m) {
      T* ym = y + m * g.out_size;
      const T* src_row = col + (m * g.kernel_size + kidx) * cols;
      ForEachSegment(g, g.in, g.out, out_strides, koff, p0, p1,
                     [&](int64_t dst, int64_t lo, int64_t hi, int64_t b, int64_t, int64_t s) {
                       const T* src = src_row + b;
                       for (int64_t w = lo; w < hi; ++w) ym[dst + (w - lo) * s] += src[w];
                     });
    }
  }
}

template <typename T>
bool Im2ColGemmConv(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                    const T* x, const T* w, const T* bias, T* y, const simd::Epilogue* epilogue) {
  const int64_t Cg = C / group, Mg = M / group;
  const int64_t K = Cg * g.kernel_size;
  const bool pointwise = IsPointwise(g);
  const int64_t chunk = ChunkColumns(K, g.out_size);
  // Small outputs go several images at a time: their im2col matrices side by side make one GEMM
  // wide enough to run at full speed (and pack the weights once per batch, not per image); the
  // product lands in a scratch matrix and is copied to each image's planes. Outputs of more than
  // 4 positions take the GEMM path and K order they would per image: the same bits.
  const int64_t batch =
      pointwise || g.out_size >= kMinChunkColumns
          ? 1
          : std::clamp<int64_t>(std::min(4 * kMinChunkColumns / std::max<int64_t>(1, g.out_size),
                                         kColBudget / std::max<int64_t>(1, K * g.out_size)),
                                1, N);
  const int64_t batches = (N + batch - 1) / batch;
  // The epilogue goes into the GEMM when every pair takes ImplicitConvGemm's packed path (its
  // conditions with the narrowest product a pair can have: one image).
  if (epilogue != nullptr && !(std::is_same_v<T, float> && K > 0 && Mg > 4 && g.out_size > 4 &&
                               (pointwise ? batch == 1 : g.spatial == 2))) {
    epilogue = nullptr;
  }
  // (image batch, group) pairs split across threads when one pair's GEMM is too small to split
  // by itself; each chunk has its own buffers.
  const double pair_flops = 2.0 * static_cast<double>(Mg) * static_cast<double>(g.out_size) *
                            static_cast<double>(K) * static_cast<double>(batch);
  parallel::For(
      batches * group, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
      [&](int64_t begin, int64_t end) {
        ScratchBuffers scratch;
        auto col_buffer = [&] {
          return scratch.Get<T>(0, K * (batch > 1 ? batch * g.out_size : chunk));
        };
        T* product = batch > 1 ? scratch.Get<T>(1, Mg * batch * g.out_size) : nullptr;
        for (int64_t pair = begin; pair < end; ++pair) {
          const int64_t n0 = pair / group * batch, gi = pair % group;
          const T* wg = w + gi * Mg * K;
          const T* gbias = bias != nullptr ? bias + gi * Mg : nullptr;
          // C = bias, to accumulate the product onto (beta = 1) in the explicit paths.
          auto fill_bias = [&](T* c, int64_t cols) {
            if (gbias == nullptr) return T(0);
            for (int64_t m = 0; m < Mg; ++m) std::fill(c + m * cols, c + (m + 1) * cols, gbias[m]);
            return T(1);
          };
          if (batch > 1) {
            const int64_t nb = std::min(batch, N - n0);
            const int64_t cols = nb * g.out_size;
            const T* xb = x + (n0 * C + gi * Cg) * g.in_size;
            if (!ImplicitConvGemm(g, Mg, cols, K, wg, xb, C * g.in_size, gbias, product, cols,
                                  scratch, epilogue)) {
              const T beta = fill_bias(product, cols);
              T* col = col_buffer();
              for (int64_t j = 0; j < nb; ++j) {
                Im2Col(g, xb + j * C * g.in_size, Cg, 0, g.out_size, col + j * g.out_size, cols);
              }
              Gemm<T>(false, false, Mg, cols, K, T(1), wg, K, col, cols, beta, product, cols);
            }
            for (int64_t j = 0; j < nb; ++j) {
              for (int64_t m = 0; m < Mg; ++m) {
                const T* src = product + m * cols + j * g.out_size;
                std::copy(src, src + g.out_size, y + ((n0 + j) * M + gi * Mg + m) * g.out_size);
              }
            }
            continue;
          }
          const T* xg = x + (n0 * C + gi * Cg) * g.in_size;
          T* yg = y + (n0 * M + gi * Mg) * g.out_size;
          if (ImplicitConvGemm(g, Mg, g.out_size, K, wg, xg, 0, gbias, yg, g.out_size, scratch,
                               epilogue)) {
            continue;
          }
          const T beta = fill_bias(yg, g.out_size);
          if (batch == 1 && StridedWindows1D(g)) {
            // One product per input channel, accumulated: W's columns of channel c against the
            // windows of channel c, read in place.
            const int64_t taps = g.kernel[0];
            for (int64_t c = 0; c < Cg; ++c) {
              Gemm<T>(false, true, Mg, g.out_size, taps, T(1), wg + c * taps, K, xg + c * g.in_size,
                      g.strides[0], c == 0 ? beta : T(1), yg, g.out_size);
            }
            continue;
          }
          if (pointwise) {
            Gemm<T>(false, false, Mg, g.out_size, Cg, T(1), wg, K, xg, g.in_size, beta, yg,
                    g.out_size);
            continue;
          }
          T* col = col_buffer();
          for (int64_t p0 = 0; p0 < g.out_size; p0 += chunk) {
            const int64_t p1 = std::min(g.out_size, p0 + chunk);
            Im2Col(g, xg, Cg, p0, p1, col);
            Gemm<T>(false, false, Mg, p1 - p0, K, T(1), wg, K, col, p1 - p0, beta, yg + p0,
                    g.out_size);
          }
        }
      });
  return epilogue != nullptr;
}

template void Col2Im<float>(const WindowGeometry&, const float*, int64_t, int64_t, int64_t, float*);
template void Col2Im<double>(const WindowGeometry&, const double*, int64_t, int64_t, int64_t,
                             double*);
template bool Im2ColGemmConv<float>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                    const float*, const float*, const float*, float*,
                                    const simd::Epilogue*);
template bool Im2ColGemmConv<double>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                     const double*, const double*, const double*, double*,
                                     const simd::Epilogue*);
template bool Im2ColGemmConv<int32_t>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                      const int32_t*, const int32_t*, const int32_t*, int32_t*,
                                      const simd::Epilogue*);

}  // namespace anvil::compute_ops
