// Convolutions: Conv, ConvInteger, QLinearConv, ConvTranspose, for any number of spatial dims.
//
// Conv is im2col + GEMM per (image, group): Y_g[Mg, out] = W_g[Mg, Cg * k] x col[Cg * k, out],
// where column p of `col` holds the input window of output position p (zeros in the padding).
// Float 2-D convolutions never store `col`: the GEMM's packed B panels are filled from the
// images directly (Im2ColPanels, simd/im2col.h) and the bias is added in the GEMM's epilogue.
// Other types and ranks store it in chunks of output positions so that `col` stays a few MB
// whatever the image size; a 1x1 convolution with unit strides and no padding multiplies X
// directly. ConvTranspose
// is the adjoint: col = W_g^T x X_g, then col2im scatters (adds) each column into the output.
// The integer convolutions run the same code on int32 after subtracting the zero points (so the
// zero padding is the zero point, as the spec says).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_winograd.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/depthwise.h"
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

int64_t ChunkColumns(int64_t rows, int64_t total) {
  const int64_t by_budget = rows > 0 ? kColBudget / rows : total;
  return std::max<int64_t>(1, std::min(total, std::max(by_budget, kMinChunkColumns)));
}

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

// The positions o in [0, count) whose window tap lands inside [0, length), where position o
// reads o * stride + off: the range [first, second).
std::pair<int64_t, int64_t> InsideRange(int64_t count, int64_t length, int64_t off,
                                        int64_t stride) {
  const int64_t lo = std::min(count, off >= 0 ? int64_t{0} : (-off + stride - 1) / stride);
  const int64_t hi =
      length - 1 - off < 0 ? lo : std::clamp((length - 1 - off) / stride + 1, lo, count);
  return {lo, hi};
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

bool IsPointwise(const WindowGeometry& g) {
  for (int64_t d = 0; d < g.spatial; ++d) {
    if (g.kernel[d] != 1 || g.strides[d] != 1 || g.pad_begin[d] != 0 || g.in[d] != g.out[d]) {
      return false;
    }
  }
  return true;
}

// Where each tap of a 2-D window reads, for the direct kernels (simd/depthwise.h), which read
// input planes in place, or, with a column stride, split into their column phases (phase p
// holds columns p, p + sw, ...: plane_w = ceil(W / sw) wide) so that every tap reads
// contiguous runs.
class DirectTaps {
 public:
  explicit DirectTaps(const WindowGeometry& g)
      : H_(g.in[0]), W_(g.in[1]), sw_(g.strides[1]), plane_w_((W_ + sw_ - 1) / sw_) {
    const int64_t OH = g.out[0], OW = g.out[1], sh = g.strides[0];
    const int64_t dh = g.dilations[0], dw = g.dilations[1];
    const int64_t KH = g.kernel[0], KW = g.kernel[1];
    // Per kernel column: the valid output columns [lo, hi) and where the first one reads.
    lo_.resize(KW);
    hi_.resize(KW);
    col_offset_.resize(KW);
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t off = kw * dw - g.pad_begin[1];
      std::tie(lo_[kw], hi_[kw]) = InsideRange(OW, W_, off, sw_);
      const int64_t col = off + lo_[kw] * sw_;  // the first valid input column (when any)
      col_offset_[kw] = sw_ == 1 ? col : (col % sw_) * H_ * plane_w_ + col / sw_;
    }
    // Per kernel row: the valid output rows [row_lo, row_hi) (0 <= oh * sh - ph + kh * dh < H).
    row_lo_.resize(KH);
    row_hi_.resize(KH);
    row_offset_.resize(KH);
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t first = kh * dh - g.pad_begin[0];  // input row of output row 0
      std::tie(row_lo_[kh], row_hi_[kh]) = InsideRange(OH, H_, first, sh);
      row_offset_[kh] = (row_lo_[kh] * sh + first) * plane_w_;
    }
    taps_.kernel_h = KH;
    taps_.kernel_w = KW;
    taps_.out_h = OH;
    taps_.out_w = OW;
    taps_.row_step = sh * plane_w_;
    taps_.row_lo = row_lo_.data();
    taps_.row_hi = row_hi_.data();
    taps_.row_offset = row_offset_.data();
    taps_.col_lo = lo_.data();
    taps_.col_hi = hi_.data();
    taps_.col_offset = col_offset_.data();
  }

  const simd::DepthwiseTaps& taps() const { return taps_; }
  // Floats of one plane as the kernels read it (its phases with a column stride).
  int64_t PhasedSize() const { return sw_ * H_ * plane_w_; }
  bool NeedsPhases() const { return sw_ != 1; }

  // Splits the input plane x (H x W) into its column phases at `phases` (PhasedSize() floats).
  void SplitPhases(const float* x, float* phases) const {
    for (int64_t ih = 0; ih < H_; ++ih) {
      const float* src = x + ih * W_;
      if (sw_ == 2) {
        simd::Deinterleave(src, phases + ih * plane_w_, phases + (H_ + ih) * plane_w_,
                           static_cast<size_t>(W_));
        continue;
      }
      for (int64_t p = 0; p < sw_; ++p) {
        float* dst = phases + (p * H_ + ih) * plane_w_;
        for (int64_t j = 0; p + j * sw_ < W_; ++j) dst[j] = src[p + j * sw_];
      }
    }
  }

 private:
  int64_t H_, W_, sw_, plane_w_;
  std::vector<int64_t> lo_, hi_, col_offset_, row_lo_, row_hi_, row_offset_;
  simd::DepthwiseTaps taps_;
};

// Depthwise 2-D convolution (one input channel per group, any number of outputs per group)
// without im2col: each output row accumulates, tap by tap, a fused multiply-add of the shifted
// (for strides > 1, gathered) input row. That is the sequence of fused operations, in the same
// tap order, that the GEMM runs down the im2col column (padding taps add w * 0, which changes
// nothing for finite weights), so results are the GEMM path's bits at a fraction of its cost.
void DepthwiseConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                     const float* x, const float* w, const float* bias,
                     const simd::Epilogue& epilogue, float* y) {
  const int64_t Mg = M / group;
  const DirectTaps direct(g);
  const double plane_work = static_cast<double>(g.out_size * g.kernel_size);
  parallel::For(N * M, parallel::MinChunk(plane_work, parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  float* phases =
                      direct.NeedsPhases() ? ConvScratch<float>(0, direct.PhasedSize()) : nullptr;
                  for (int64_t nm = begin; nm < end; ++nm) {
                    const int64_t n = nm / M, m = nm % M;
                    const float* xc = x + (n * C + m / Mg) * g.in_size;
                    if (phases != nullptr && (nm == begin || m % Mg == 0)) {
                      direct.SplitPhases(xc, phases);
                    }
                    simd::DepthwisePlane(
                        direct.taps(), phases != nullptr ? phases : xc, w + m * g.kernel_size,
                        bias != nullptr ? bias + m : nullptr, epilogue, y + nm * g.out_size);
                  }
                });
}

// Input channels x taps up to which a dense 2-D convolution runs the direct kernel
// (simd::DirectConvPlanes) instead of im2col + GEMM: a 3-channel 3x3 first layer (27) fills too
// short a GEMM K to amortize the panel fill (measured 0.236 -> 0.197 ms on [16, 3, 32, 32] ->
// 16 channels, 3x3).
constexpr int64_t kMaxDirectDepth = 32;

bool UsesDirectConv(const WindowGeometry& g, int64_t Cg, int64_t group) {
  // 1x1 kernels stay with the GEMM, which reads X itself (measured: MobileNet's 1x1
  // squeeze-excitation and expansion layers of 16-32 channels are slower direct).
  return g.spatial == 2 && group == 1 && g.kernel_size > 1 && Cg * g.kernel_size <= kMaxDirectDepth;
}

// A dense 2-D convolution with few input channels, by the direct kernel: the im2col GEMM's bits
// (see simd/depthwise.h). Threads split (image, block of output channels) pairs.
void DirectConv2D(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, const float* x,
                  const float* w, const float* bias, const simd::Epilogue& epilogue, float* y) {
  const DirectTaps direct(g);
  constexpr int64_t kOutBlock = 4;  // the kernel's output channels at a time
  const int64_t blocks = (M + kOutBlock - 1) / kOutBlock;
  const double pair_flops = 2.0 * static_cast<double>(g.out_size * g.kernel_size * C * kOutBlock);
  parallel::For(N * blocks, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
                [&](int64_t begin, int64_t end) {
                  const int64_t plane = direct.NeedsPhases() ? direct.PhasedSize() : g.in_size;
                  float* phases = direct.NeedsPhases() ? ConvScratch<float>(0, C * plane) : nullptr;
                  for (int64_t pair = begin; pair < end; ++pair) {
                    const int64_t n = pair / blocks, k0 = pair % blocks * kOutBlock;
                    const float* xn = x + n * C * g.in_size;
                    if (phases != nullptr && (pair == begin || k0 == 0)) {
                      for (int64_t c = 0; c < C; ++c)
                        direct.SplitPhases(xn + c * g.in_size, phases + c * plane);
                    }
                    const int64_t outs = std::min(kOutBlock, M - k0);
                    simd::DirectConvPlanes(direct.taps(), phases != nullptr ? phases : xn, plane, C,
                                           w + k0 * C * g.kernel_size, outs,
                                           bias != nullptr ? bias + k0 : nullptr, epilogue,
                                           y + (n * M + k0) * g.out_size, g.out_size);
                  }
                });
}

// C[Mg, cols] = W[Mg, K] x im2col of the images at x (image_stride apart) + bias (Mg values, or
// null) through Im2ColPanels (X's own rows for one image of a pointwise convolution), when the
// packed GEMM path would run (float, 2-D or pointwise, more than 4 rows and columns): the bits
// of the im2col + GEMM it replaces. False (nothing done) otherwise.
template <typename T>
bool ImplicitConvGemm(const WindowGeometry& g, int64_t Mg, int64_t cols, int64_t K, const T* w,
                      const T* x, int64_t image_stride, const T* bias, T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (IsPointwise(g) && Mg > 4 && cols > 4 && image_stride == 0) {
      // B is X itself (K channels of in_size values): panels copied as Sgemm would pack them,
      // so the bias goes in the epilogue rather than in a pass over C.
      auto rows = [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) {
        for (int64_t k = 0; k < kc; ++k) {
          const float* src = x + (k0 + k) * g.in_size + j0;
          std::copy(src, src + w, dst + k * pw);
          std::fill(dst + k * pw + w, dst + (k + 1) * pw, 0.0f);
        }
      };
      simd::SgemmFilledB(Mg, cols, K, w, K, rows, bias, 0.0f, c, ldc);
      return true;
    }
    if (g.spatial == 2 && Mg > 4 && cols > 4) {
      const int64_t images = cols / g.out_size, channels = K / g.kernel_size;
      float* buffer = ConvScratch<float>(0, PaddedPlanes::Size(g, images * channels));
      const PaddedPlanes padded(g, x, images, image_stride, channels, buffer);
      simd::SgemmFilledB(Mg, cols, K, w, K, Im2ColPanels(g, padded, K), bias, 0.0f, c, ldc);
      return true;
    }
  }
  return false;
}

template <typename T>
bool ConvForward(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                 const T* x, const T* w, const T* bias, T* y,
                 const simd::Epilogue* epilogue = nullptr);

// The output rows (outermost spatial dim) [lo, hi) whose windows may reach the input: those
// before lo end above it, those from hi on start below it, so they read nothing but padding.
std::pair<int64_t, int64_t> RowsReachingInput(const WindowGeometry& g) {
  const int64_t out = g.out[0], s = g.strides[0], pb = g.pad_begin[0];
  const int64_t span = (g.kernel[0] - 1) * g.dilations[0];  // last tap's offset
  // lo: the first o with o * s - pb + span >= 0; hi: one past the last with o * s - pb <= in - 1.
  const int64_t need = pb - span;
  const int64_t lo = need <= 0 ? 0 : std::min(out, (need + s - 1) / s);
  const int64_t last = g.in[0] - 1 + pb;
  const int64_t hi = last < 0 ? 0 : std::min(out, last / s + 1);
  return {lo, std::max(lo, hi)};
}

// Convolutions whose outermost output rows lie wholly in the padding (a pad larger than the
// kernel: a hostile model's 2^20 rows of padding cost 268 million multiply-adds through im2col)
// give those rows bias + 0 and convolve only the rows [lo, hi) that reach the input. A padded
// row's sum is exactly 0 in integers (ConvInteger pads the shifted input with its zero) and +0 in
// floating point (products 0 * w of finite weights, summed from +0), so these are the values
// and bits of the whole convolution; a weight with an inf or NaN (0 * inf is NaN) takes the
// whole convolution. False (nothing done) when every row reaches the input.
template <typename T>
bool ConvPaddedRows(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                    const T* x, const T* w, const T* bias, T* y) {
  if (g.spatial < 1 || g.out[0] == 0) return false;
  const auto [lo, hi] = RowsReachingInput(g);
  if (lo == 0 && hi == g.out[0]) return false;
  if constexpr (std::is_floating_point_v<T>) {
    const int64_t weights = M * (C / group) * g.kernel_size;
    if (!std::all_of(w, w + weights, [](T v) { return std::isfinite(v); })) return false;
  }
  const int64_t row = g.out_size / g.out[0];  // outputs per row of a plane
  std::vector<T> inner;
  if (hi > lo) {
    WindowGeometry sub = g;
    sub.out[0] = hi - lo;
    sub.pad_begin[0] = g.pad_begin[0] - lo * g.strides[0];
    sub.pad_end[0] = (sub.out[0] - 1) * g.strides[0] + (g.kernel[0] - 1) * g.dilations[0] + 1 -
                     g.in[0] - sub.pad_begin[0];
    sub.out_size = row * sub.out[0];
    inner.resize(N * M * sub.out_size);
    ConvForward<T>(sub, N, C, M, group, x, w, bias, inner.data());
  }
  for (int64_t plane = 0; plane < N * M; ++plane) {
    const T b = (bias != nullptr ? bias[plane % M] : T(0)) + T(0);
    T* yp = y + plane * g.out_size;
    std::fill(yp, yp + lo * row, b);
    if (hi > lo) {
      const T* src = inner.data() + plane * (hi - lo) * row;
      std::copy(src, src + (hi - lo) * row, yp + lo * row);
    }
    std::fill(yp + hi * row, yp + g.out_size, b);
  }
  return true;
}

// Y[N, M, out...] = conv(X[N, C, in...], W[M, C / group, k...]) + bias[M] (bias may be null).
// With an epilogue, the paths that apply it in registers (the direct kernels) do so and return
// true; the others leave Y without it and return false.
template <typename T>
bool ConvForward(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                 const T* x, const T* w, const T* bias, T* y, const simd::Epilogue* epilogue) {
  // No output: nothing to compute (an empty batch made the batching below divide by zero).
  if (N <= 0 || M <= 0 || g.out_size <= 0) return false;
  const int64_t Cg = C / group, Mg = M / group;
  if (ConvPaddedRows(g, N, C, M, group, x, w, bias, y)) return false;
  if constexpr (std::is_same_v<T, float>) {
    const simd::Epilogue none;
    const simd::Epilogue& e = epilogue != nullptr ? *epilogue : none;
    if (g.spatial == 2 && Cg == 1 && group > 1) {
      DepthwiseConv2D(g, N, C, M, group, x, w, bias, e, y);
      return epilogue != nullptr;
    }
    if (UsesDirectConv(g, Cg, group)) {
      DirectConv2D(g, N, C, M, x, w, bias, e, y);
      return epilogue != nullptr;
    }
  }
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
  // (image batch, group) pairs split across threads when one pair's GEMM is too small to split
  // by itself; each chunk has its own buffers.
  const double pair_flops = 2.0 * static_cast<double>(Mg) * static_cast<double>(g.out_size) *
                            static_cast<double>(K) * static_cast<double>(batch);
  parallel::For(
      batches * group, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
      [&](int64_t begin, int64_t end) {
        auto col_buffer = [&] {
          return ConvScratch<T>(0, K * (batch > 1 ? batch * g.out_size : chunk));
        };
        T* product = batch > 1 ? ConvScratch<T>(1, Mg * batch * g.out_size) : nullptr;
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
            if (!ImplicitConvGemm(g, Mg, cols, K, wg, xb, C * g.in_size, gbias, product, cols)) {
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
          if (ImplicitConvGemm(g, Mg, g.out_size, K, wg, xg, 0, gbias, yg, g.out_size)) continue;
          const T beta = fill_bias(yg, g.out_size);
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
  return false;
}

absl::Status CheckConvShapes(const KernelContext& ctx, const TensorView& x, const TensorView& w,
                             int64_t group) {
  if (x.rank() < 3 || w.rank() != x.rank()) {
    return ctx.Error(absl::StrCat("X ", x.DebugString(), " and W ", w.DebugString(),
                                  " must be [N, C, spatial...] and [M, C/group, kernel...]"));
  }
  if (x.dims[1] != w.dims[1] * group || w.dims[0] % group != 0) {
    return ctx.Error(absl::StrCat("X ", x.DebugString(), " and W ", w.DebugString(),
                                  " do not match for group ", group));
  }
  return absl::OkStatus();
}

// The optional bias B (input `index`: 2, or QLinearConv's 8) of a convolution with `channels`
// output channels: 1-D with one value per channel, as the kernels read it.
absl::Status CheckConvBias(const KernelContext& ctx, int64_t channels, int index = 2) {
  if (!ctx.HasInput(index)) return absl::OkStatus();
  const TensorView& b = ctx.input(index);
  if (b.rank() != 1 || b.dims[0] != channels) {
    return ctx.Error(absl::StrCat("B ", b.DebugString(), " must be 1-D with one value per output",
                                  " channel (", channels, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<WindowGeometry> ConvGeometry(const KernelContext& ctx, const WindowAttrs& attrs,
                                            const TensorView& x, const TensorView& w,
                                            const TensorView& y) {
  const Shape in(x.dims.begin() + 2, x.dims.end());
  const Shape out(y.dims.begin() + 2, y.dims.end());
  const Shape kernel(w.dims.begin() + 2, w.dims.end());
  return ResolveWindow(ctx.node(), attrs, in, out, kernel);
}

class ConvKernel final : public OpKernel {
 public:
  ConvKernel(WindowAttrs attrs, int64_t group) : attrs_(std::move(attrs)), group_(group) {}

  // Prepares the Winograd path when the node's weight and attributes allow it.
  void PrepareFor(const Node& node) { winograd_ = PrepareWinogradWeights(node); }

  absl::Status Compute(KernelContext& ctx) override {
    bool applied = false;
    return ComputeWithEpilogue(ctx, nullptr, &applied);
  }

  // Compute, with `epilogue` (or none: null) applied in registers by the paths that can (the
  // direct kernels and Winograd, on float32); *applied says whether it was.
  absl::Status ComputeWithEpilogue(KernelContext& ctx, const simd::Epilogue* epilogue,
                                   bool* applied) {
    *applied = false;
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(1);
    TensorView& y = ctx.output(0);
    ANVIL_RETURN_IF_ERROR(CheckConvShapes(ctx, x, w, group_));
    ANVIL_RETURN_IF_ERROR(CheckConvBias(ctx, w.dims[0]));
    absl::StatusOr<WindowGeometry> g = ConvGeometry(ctx, attrs_, x, w, y);
    if (!g.ok()) return g.status();
    // Only on float32: a 16-bit float's activation kernel runs on the rounded values.
    if (x.type != ElementType::kFloat) epilogue = nullptr;
    return DispatchFloat(x.type, "Conv", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), wd(w), bd;
      if (ctx.HasInput(2)) bd.Reset(ctx.input(2));
      DenseOutput<C> yd(y);
      if constexpr (std::is_same_v<C, float>) {
        // The prepared weight is the node's constant: its dims are checked, not its bytes.
        if (winograd_ != nullptr && w.dims[0] == winograd_->out_channels &&
            w.dims[1] == winograd_->in_channels && group_ == 1 &&
            WinogradApplies(*g, x.dims[0], *winograd_)) {
          WinogradConv2D(*g, x.dims[0], *winograd_, xd.data(),
                         ctx.HasInput(2) ? bd.data() : nullptr,
                         epilogue != nullptr ? *epilogue : simd::Epilogue(), yd.data());
          *applied = epilogue != nullptr;
          yd.Commit();
          return absl::OkStatus();
        }
      }
      *applied = ConvForward<C>(*g, x.dims[0], x.dims[1], w.dims[0], group_, xd.data(), wd.data(),
                                ctx.HasInput(2) ? bd.data() : nullptr, yd.data(), epilogue);
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_;
  std::unique_ptr<const WinogradWeights> winograd_;
};

bool IsQuantized(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

// x - x_zero_point (a scalar) as dense int32.
std::vector<int32_t> ShiftedInput(const TensorView& x, const KernelContext& ctx, int zp_index) {
  DenseInput<int32_t> xd(x);
  std::vector<int32_t> v(xd.data(), xd.data() + xd.size());
  if (ctx.HasInput(zp_index) && ctx.input(zp_index).NumElements() > 0) {
    const int32_t zp = static_cast<int32_t>(ReadDouble(ctx.input(zp_index), 0));
    for (int32_t& e : v) e -= zp;
  }
  return v;
}

// w - w_zero_point (a scalar or one per output channel) as dense int32.
absl::StatusOr<std::vector<int32_t>> ShiftedWeights(const TensorView& w, const KernelContext& ctx,
                                                    int zp_index) {
  DenseInput<int32_t> wd(w);
  std::vector<int32_t> v(wd.data(), wd.data() + wd.size());
  if (ctx.HasInput(zp_index) && ctx.input(zp_index).NumElements() > 0) {
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> zps, ReadInt64s(ctx, zp_index));
    const int64_t per_channel = w.dims[0] > 0 ? static_cast<int64_t>(v.size()) / w.dims[0] : 0;
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] -= static_cast<int32_t>(zps.size() == 1 ? zps[0] : zps[i / per_channel]);
    }
  }
  return v;
}

// ConvInteger-10: int32 Y = conv(x - x_zero_point, w - w_zero_point).
class ConvIntegerKernel final : public OpKernel {
 public:
  ConvIntegerKernel(WindowAttrs attrs, int64_t group) : attrs_(std::move(attrs)), group_(group) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(1);
    TensorView& y = ctx.output(0);
    if (!IsQuantized(x.type)) return UnsupportedType("ConvInteger", x.type);
    if (!IsQuantized(w.type)) return UnsupportedType("ConvInteger", w.type);
    ANVIL_RETURN_IF_ERROR(CheckConvShapes(ctx, x, w, group_));
    absl::StatusOr<WindowGeometry> g = ConvGeometry(ctx, attrs_, x, w, y);
    if (!g.ok()) return g.status();
    const std::vector<int32_t> xs = ShiftedInput(x, ctx, 2);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int32_t> ws, ShiftedWeights(w, ctx, 3));
    ConvForward<int32_t>(*g, x.dims[0], x.dims[1], w.dims[0], group_, xs.data(), ws.data(), nullptr,
                         y.As<int32_t>());
    return absl::OkStatus();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_;
};

// QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
// optional int32 bias. y = saturate(round_half_even((acc + bias) * x_scale * w_scale[m] /
// y_scale) + y_zero_point), the multiplier in float as ONNX Runtime computes it.
class QLinearConvKernel final : public OpKernel {
 public:
  QLinearConvKernel(WindowAttrs attrs, int64_t group) : attrs_(std::move(attrs)), group_(group) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(3);
    TensorView& y = ctx.output(0);
    if (!IsQuantized(x.type)) return UnsupportedType("QLinearConv", x.type);
    if (!IsQuantized(w.type)) return UnsupportedType("QLinearConv", w.type);
    if (!IsQuantized(y.type)) return UnsupportedType("QLinearConv", y.type);
    for (const auto& [index, name] :
         {std::pair(1, "x_scale"), std::pair(6, "y_scale"), std::pair(7, "y_zero_point")}) {
      if (!ctx.HasInput(index) || ctx.input(index).NumElements() != 1) {
        return ctx.Error(absl::StrCat(
            name, " must hold one value, is ",
            ctx.HasInput(index) ? ctx.input(index).DebugString() : std::string("missing")));
      }
    }
    ANVIL_RETURN_IF_ERROR(CheckConvShapes(ctx, x, w, group_));
    absl::StatusOr<WindowGeometry> g = ConvGeometry(ctx, attrs_, x, w, y);
    if (!g.ok()) return g.status();
    const std::vector<int32_t> xs = ShiftedInput(x, ctx, 2);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int32_t> ws, ShiftedWeights(w, ctx, 5));
    ANVIL_RETURN_IF_ERROR(CheckConvBias(ctx, w.dims[0], 8));
    DenseInput<int32_t> bias;
    if (ctx.HasInput(8)) bias.Reset(ctx.input(8));
    std::vector<int32_t> acc(y.NumElements());
    const int64_t N = x.dims[0], M = w.dims[0];
    ConvForward<int32_t>(*g, N, x.dims[1], M, group_, xs.data(), ws.data(),
                         ctx.HasInput(8) ? bias.data() : nullptr, acc.data());

    const float x_scale = static_cast<float>(ReadDouble(ctx.input(1), 0));
    const float y_scale = static_cast<float>(ReadDouble(ctx.input(6), 0));
    const int64_t y_zp = static_cast<int64_t>(ReadDouble(ctx.input(7), 0));
    const TensorView& w_scale = ctx.input(4);
    const int64_t n_scales = w_scale.NumElements();
    if (n_scales != 1 && n_scales != M) {
      return ctx.Error(absl::StrCat("w_scale has ", n_scales, " values for ", M, " channels"));
    }
    const int64_t lo = y.type == ElementType::kUint8 ? 0 : -128;
    const int64_t hi = y.type == ElementType::kUint8 ? 255 : 127;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t m = 0; m < M; ++m) {
        const float multiplier =
            x_scale * static_cast<float>(ReadDouble(w_scale, n_scales == 1 ? 0 : m)) / y_scale;
        const int64_t base = (n * M + m) * g->out_size;
        for (int64_t p = 0; p < g->out_size; ++p) {
          const float scaled = std::nearbyint(static_cast<float>(acc[base + p]) * multiplier);
          const int64_t q = std::clamp<int64_t>(static_cast<int64_t>(scaled) + y_zp, lo, hi);
          if (y.type == ElementType::kUint8) {
            y.As<uint8_t>()[base + p] = static_cast<uint8_t>(q);
          } else {
            y.As<int8_t>()[base + p] = static_cast<int8_t>(q);
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  WindowAttrs attrs_;
  int64_t group_;
};

// ConvTranspose: X [N, C, in...], W [C, M / group, k...], bias [M] -> Y [N, M, out...].
class ConvTransposeKernel final : public OpKernel {
 public:
  ConvTransposeKernel(WindowAttrs attrs, int64_t group, std::vector<int64_t> output_padding,
                      bool has_output_shape)
      : attrs_(std::move(attrs)),
        group_(group),
        output_padding_(std::move(output_padding)),
        has_output_shape_(has_output_shape) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& w = ctx.input(1);
    TensorView& y = ctx.output(0);
    if (x.rank() < 3 || w.rank() != x.rank() || x.dims[1] != w.dims[0] || x.dims[1] % group_ != 0) {
      return ctx.Error(absl::StrCat("X ", x.DebugString(), " and W ", w.DebugString(),
                                    " must be [N, C, spatial...] and [C, M/group, kernel...]"));
    }
    ANVIL_RETURN_IF_ERROR(CheckConvBias(ctx, w.dims[1] * group_));
    const int64_t S = x.rank() - 2;
    const Shape in(x.dims.begin() + 2, x.dims.end());
    const Shape out(y.dims.begin() + 2, y.dims.end());
    const Shape kernel(w.dims.begin() + 2, w.dims.end());
    // The transpose's window maps input positions into the output: resolve with in/out swapped
    // for pads given explicitly, then fix the begin pads for SAME / output_shape.
    WindowAttrs attrs = attrs_;
    const AutoPad auto_pad = attrs.auto_pad;
    attrs.auto_pad = auto_pad == AutoPad::kValid ? AutoPad::kValid : AutoPad::kNotSet;
    absl::StatusOr<WindowGeometry> g = ResolveWindow(ctx.node(), attrs, in, out, kernel);
    if (!g.ok()) return g.status();
    if (!output_padding_.empty() && static_cast<int64_t>(output_padding_.size()) != S) {
      return ctx.Error("output_padding has the wrong number of values");
    }
    if (has_output_shape_ || auto_pad == AutoPad::kSameUpper || auto_pad == AutoPad::kSameLower) {
      // Spec: total = stride * (in - 1) + output_padding + (kernel - 1) * dilation + 1 - out;
      // SAME_UPPER pads total / 2 at the beginning, otherwise total - total / 2. The division
      // floors (as in the reference): an output_shape larger than the full result (total < 0)
      // extends it with zeros at the end.
      for (int64_t d = 0; d < S; ++d) {
        const int64_t total = g->strides[d] * (in[d] - 1) +
                              (output_padding_.empty() ? 0 : output_padding_[d]) +
                              (kernel[d] - 1) * g->dilations[d] + 1 - out[d];
        const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
        g->pad_begin[d] = auto_pad == AutoPad::kSameUpper ? half : total - half;
      }
    }
    return DispatchFloat(x.type, "ConvTranspose", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), wd(w), bd;
      if (ctx.HasInput(2)) bd.Reset(ctx.input(2));
      DenseOutput<C> yd(y);
      Run<C>(*g, x.dims[0], x.dims[1], w.dims[1] * group_, xd.data(), wd.data(),
             ctx.HasInput(2) ? bd.data() : nullptr, yd.data());
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  template <typename T>
  void Run(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, const T* x, const T* w,
           const T* bias, T* y) {
    const int64_t Cg = C / group_, Mg = M / group_;
    const int64_t rows = Mg * g.kernel_size;
    const int64_t chunk = ChunkColumns(rows, g.in_size);
    // (image, group) pairs split across threads, each chunk with its own col buffer; a pair's
    // GEMM splits itself when there is only one chunk.
    const double pair_flops =
        2.0 * static_cast<double>(rows) * static_cast<double>(g.in_size) * static_cast<double>(Cg);
    parallel::For(N * group_, parallel::MinChunk(pair_flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    T* col = ConvScratch<T>(0, rows * chunk);
                    for (int64_t pair = begin; pair < end; ++pair) {
                      const int64_t n = pair / group_, gi = pair % group_;
                      const T* xg = x + (n * C + gi * Cg) * g.in_size;
                      const T* wg = w + gi * Cg * rows;
                      T* yg = y + (n * M + gi * Mg) * g.out_size;
                      for (int64_t m = 0; m < Mg; ++m) {
                        std::fill(yg + m * g.out_size, yg + (m + 1) * g.out_size,
                                  bias != nullptr ? bias[gi * Mg + m] : T(0));
                      }
                      for (int64_t p0 = 0; p0 < g.in_size; p0 += chunk) {
                        const int64_t p1 = std::min(g.in_size, p0 + chunk);
                        // col[Mg * k, cols] = W_g^T [Mg * k, Cg] x X_g[:, p0:p1]
                        Gemm<T>(true, false, rows, p1 - p0, Cg, T(1), wg, rows, xg + p0, g.in_size,
                                T(0), col, p1 - p0);
                        Col2Im(g, col, Mg, p0, p1, yg);
                      }
                    }
                  });
  }

  WindowAttrs attrs_;
  int64_t group_;
  std::vector<int64_t> output_padding_;
  bool has_output_shape_;
};

absl::StatusOr<int64_t> ReadGroup(const Node& node) {
  const int64_t group = node.GetInt("group", 1);
  if (group < 1) return NodeError(node, absl::StrCat("group ", group, " must be >= 1"));
  return group;
}

// The kernel of a Conv-like node, its window attributes and group read and checked (a Conv's
// Winograd weight prepared).
template <class Kernel>
absl::StatusOr<std::unique_ptr<Kernel>> MakeConvKernel(const Node& node) {
  absl::StatusOr<WindowAttrs> attrs = ReadWindowAttrs(node);
  if (!attrs.ok()) return attrs.status();
  absl::StatusOr<int64_t> group = ReadGroup(node);
  if (!group.ok()) return group.status();
  auto kernel = std::make_unique<Kernel>(*std::move(attrs), *group);
  if constexpr (std::is_same_v<Kernel, ConvKernel>) kernel->PrepareFor(node);
  return kernel;
}

template <class Kernel>
KernelOr MakeConvLike(const Node& node) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = MakeConvKernel<Kernel>(node);
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<OpKernel>(*std::move(kernel));
}

// com.microsoft FusedConv (ONNX Runtime's contrib op, which the fuse-activations pass makes):
// Conv, then the activation named by `activation` (Relu, LeakyRelu, Sigmoid, Tanh, Clip,
// HardSigmoid; `activation_params` as ONNX Runtime orders them): in registers by the Conv paths
// that take an epilogue, else applied to the output in place by that activation's own kernel
// from the registry, while the output is in cache. Either way the bits of the two nodes it
// replaces. The optional Z input (a sum) is not supported.
class FusedConvKernel final : public OpKernel {
 public:
  static KernelOr Create(const Node& node) {
    auto kernel = std::unique_ptr<FusedConvKernel>(new FusedConvKernel());
    ANVIL_ASSIGN_OR_RETURN(kernel->conv_, MakeConvKernel<ConvKernel>(node));
    const std::string activation = node.GetString("activation", "");
    std::vector<float> params;
    if (const Attribute* a = node.FindAttribute("activation_params")) params = a->floats;
    // The standalone activation node, at opset 6 (Clip's bounds as attributes).
    Node* act = kernel->model_.graph().AddNode(activation);
    size_t want = 0;
    // The epilogue the direct and Winograd paths apply in registers (HardSigmoid's kernel is
    // scalar code, so it always runs after).
    simd::Epilogue& e = kernel->epilogue_;
    if (activation == "LeakyRelu") {
      want = 1;
      if (params.size() == want) act->SetAttribute(Attribute::Float("alpha", params[0]));
      if (params.size() == want) e = {simd::Activation::kLeakyRelu, params[0], 0.0f};
    } else if (activation == "HardSigmoid" || activation == "Clip") {
      want = 2;
      const bool clip = activation == "Clip";
      if (params.size() == want) {
        act->SetAttribute(Attribute::Float(clip ? "min" : "alpha", params[0]));
        act->SetAttribute(Attribute::Float(clip ? "max" : "beta", params[1]));
        if (clip) e = {simd::Activation::kClip, params[0], params[1]};
      }
    } else if (activation == "Relu") {
      e.activation = simd::Activation::kRelu;
    } else if (activation == "Sigmoid") {
      e.activation = simd::Activation::kSigmoid;
    } else if (activation == "Tanh") {
      e.activation = simd::Activation::kTanh;
    } else {
      return absl::UnimplementedError(absl::StrCat(node.Describe(), ": FusedConv activation '",
                                                   activation, "' is not supported"));
    }
    if (params.size() != want) {
      return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": FusedConv activation ",
                                                     activation, " takes ", want,
                                                     " activation_params, got ", params.size()));
    }
    act->AddInput(kernel->model_.graph().AddInput("x", Type()));
    act->AddOutput("y");
    kernel->act_node_ = act;
    ANVIL_ASSIGN_OR_RETURN(kernel->act_, CreateKernel(*act, kActivationOpset));
    return std::unique_ptr<OpKernel>(std::move(kernel));
  }

  absl::Status Compute(KernelContext& ctx) override {
    if (ctx.HasInput(3))
      return absl::UnimplementedError(
          absl::StrCat(ctx.node().Describe(), ": FusedConv with Z (a sum input) is not supported"));
    bool applied = false;
    ANVIL_RETURN_IF_ERROR(conv_->ComputeWithEpilogue(
        ctx, epilogue_.activation != simd::Activation::kNone ? &epilogue_ : nullptr, &applied));
    if (applied) return absl::OkStatus();
    KernelContext act(*act_node_, kActivationOpset);
    act.SetInputs({ctx.output(0)});
    act.SetOutputs({ctx.output(0)}, {true}, {true});
    return act_->Compute(act);
  }

 private:
  static constexpr int64_t kActivationOpset = 6;
  FusedConvKernel() = default;
  std::unique_ptr<ConvKernel> conv_;
  std::unique_ptr<OpKernel> act_;
  simd::Epilogue epilogue_;
  Model model_;  // holds act_node_
  const Node* act_node_ = nullptr;
};

}  // namespace

KernelOr CreateConv(const Node& node, int64_t) { return MakeConvLike<ConvKernel>(node); }

KernelOr CreateFusedConv(const Node& node, int64_t) { return FusedConvKernel::Create(node); }

KernelOr CreateConvInteger(const Node& node, int64_t) {
  return MakeConvLike<ConvIntegerKernel>(node);
}

KernelOr CreateQLinearConv(const Node& node, int64_t) {
  return MakeConvLike<QLinearConvKernel>(node);
}

KernelOr CreateConvTranspose(const Node& node, int64_t) {
  absl::StatusOr<WindowAttrs> attrs = ReadWindowAttrs(node);
  if (!attrs.ok()) return attrs.status();
  absl::StatusOr<int64_t> group = ReadGroup(node);
  if (!group.ok()) return group.status();
  return std::unique_ptr<OpKernel>(
      new ConvTransposeKernel(*std::move(attrs), *group, node.GetInts("output_padding"),
                              node.FindAttribute("output_shape") != nullptr));
}

}  // namespace anvil::compute_ops
