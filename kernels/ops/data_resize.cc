// Resize (opset 10, 11, 13) and Upsample (1, 7, 9): nearest, N-D linear and cubic interpolation
// with every coordinate_transformation_mode. Semantics follow the numpy reference that generated
// the backend tests (onnx/backend/test/case/node/resize.py), including its choice of
// `scale * input_length` (not the rounded output length) as the resized length in align_corners,
// pytorch_half_pixel and tf_crop_and_resize. The exception: a float linear resize of the last two
// dims (rank 2, or rank 4 with N and C kept), the common image case, computes ONNX Runtime's
// bits instead (OrtBilinear below), within the suite's tolerance of the reference.
//
// Interpolation is separable: each output coordinate of each dim maps to at most 4 (input
// offset, weight) taps, computed once per dim; an output element is the sum over the tensor
// product of its dims' taps (outer dims blended row-wise first, see ResizeInterpolate). Taps of
// zero weight are dropped, so dims that are not resized (N and C, usually) cost one tap.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "base/axes.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/dispatch.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/data_internal.h"
#include "kernels/simd/elementwise.h"

namespace anvil::data_ops {
namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Coord {
  kHalfPixel,
  kAsymmetric,
  kAlignCorners,
  kPytorchHalfPixel,
  kTfHalfPixelForNn,
  kTfCropAndResize,
  kHalfPixelSymmetric,  // opset 19
};
// kSimple is Upsample's and Resize-10's rounding (as ONNX Runtime): floor when upsampling,
// ceil when downsampling.
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeParams {
  Mode mode = Mode::kNearest;
  Coord coord = Coord::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
};

// Where every output coordinate of one dim reads: up to 4 taps (input element offset, weight)
// each, or `outside` (tf_crop_and_resize past the input: the extrapolation value).
struct DimTaps {
  static constexpr int kMaxTaps = 4;
  struct Tap {
    int64_t offset;
    double weight;
  };
  std::vector<Tap> taps;       // kMaxTaps per coordinate
  std::vector<uint8_t> count;  // taps used per coordinate
  std::vector<uint8_t> outside;
};

// The input coordinate output coordinate `x` maps to.
double SourceCoordinate(const ResizeParams& p, double x, double scale, int64_t in_length,
                        int64_t out_length, double roi_start, double roi_end) {
  const double in = static_cast<double>(in_length);
  const double resized = scale * in;  // as the reference: not rounded to the output length
  switch (p.coord) {
    case Coord::kHalfPixel:
      return (x + 0.5) / scale - 0.5;
    case Coord::kHalfPixelSymmetric: {
      // half_pixel, shifted so that the rounding of the output length is shared by both ends.
      const double adjustment = static_cast<double>(out_length) / resized;
      return in / 2 * (1 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    case Coord::kAsymmetric:
      return x / scale;
    case Coord::kAlignCorners:
      return resized == 1 ? 0 : x * (in - 1) / (resized - 1);
    case Coord::kPytorchHalfPixel:
      return resized == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case Coord::kTfHalfPixelForNn:
      return (x + 0.5) / scale;
    case Coord::kTfCropAndResize: {
      const double base = roi_start * (in - 1);
      return resized == 1 ? base + (roi_end - roi_start) * (in - 1) / 2
                          : base + x * (roi_end - roi_start) * (in - 1) / (resized - 1);
    }
  }
  return 0;
}

int64_t NearestIndex(NearestMode mode, double x, double scale) {
  const double lower = std::floor(x);
  if (x == lower) return static_cast<int64_t>(x);
  const double frac = x - lower;
  switch (mode) {
    case NearestMode::kRoundPreferFloor:
      return static_cast<int64_t>(frac <= 0.5 ? lower : lower + 1);
    case NearestMode::kRoundPreferCeil:
      return static_cast<int64_t>(frac < 0.5 ? lower : lower + 1);
    case NearestMode::kFloor:
      return static_cast<int64_t>(lower);
    case NearestMode::kCeil:
      return static_cast<int64_t>(lower + 1);
    case NearestMode::kSimple:
      return scale < 1 ? static_cast<int64_t>(std::ceil(x)) : static_cast<int64_t>(x);
  }
  return static_cast<int64_t>(lower);
}

DimTaps ComputeTaps(const ResizeParams& p, int64_t in_length, int64_t out_length, double scale,
                    int64_t stride, double roi_start, double roi_end) {
  DimTaps d;
  d.taps.resize(out_length * DimTaps::kMaxTaps);
  d.count.resize(out_length);
  d.outside.resize(out_length);
  const int64_t last = in_length - 1;
  for (int64_t x = 0; x < out_length; ++x) {
    const double src = SourceCoordinate(p, static_cast<double>(x), scale, in_length, out_length,
                                        roi_start, roi_end);
    if (p.coord == Coord::kTfCropAndResize && (src < 0 || src > static_cast<double>(last))) {
      d.outside[x] = 1;
      continue;
    }
    DimTaps::Tap* taps = &d.taps[x * DimTaps::kMaxTaps];
    int n = 0;
    auto add = [&](int64_t index, double weight) {
      if (weight == 0) return;
      taps[n++] = {std::clamp<int64_t>(index, 0, last) * stride, weight};
    };
    if (p.mode == Mode::kNearest) {
      add(NearestIndex(p.nearest, src, scale), 1);
    } else {
      const double lower = std::floor(src);
      const int64_t i0 = static_cast<int64_t>(lower);
      const double r = src - lower;
      if (p.mode == Mode::kLinear) {
        add(i0, 1 - r);
        add(i0 + 1, r);
      } else {
        const double a = p.cubic_a;
        const double s = 1 - r;
        double c[4] = {
            ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
            ((a + 2) * r - (a + 3)) * r * r + 1,
            ((a + 2) * s - (a + 3)) * s * s + 1,
            ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a,
        };
        if (p.exclude_outside) {
          double sum = 0;
          for (int t = 0; t < 4; ++t) {
            const int64_t i = i0 - 1 + t;
            if (i < 0 || i > last) c[t] = 0;
            sum += c[t];
          }
          if (sum != 0) {
            for (double& v : c) v /= sum;
          }
        }
        for (int t = 0; t < 4; ++t) add(i0 - 1 + t, c[t]);
      }
    }
    d.count[x] = static_cast<uint8_t>(n);
  }
  return d;
}

// Acc -> T: floating types directly, integers rounded to nearest and saturated.
template <typename T, typename Acc>
T FromAcc(Acc v) {
  if constexpr (std::is_integral_v<T>) {
    const double r = std::nearbyint(static_cast<double>(v));
    if (!(r > static_cast<double>(std::numeric_limits<T>::lowest()))) {
      return std::numeric_limits<T>::lowest();
    }
    if (!(r < static_cast<double>(std::numeric_limits<T>::max()))) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(r);
  } else {
    return ConvertElement<T>(v);
  }
}

// The index over the first n dims of `dims` of the flat (row-major) position `flat`, stepped by
// Advance(): the odometer each chunk of rows or planes that threads split starts.
class OuterIndex {
 public:
  OuterIndex(absl::Span<const int64_t> dims, int64_t n, int64_t flat)
      : dims_(dims.first(n)), index_(n, 0) {
    for (int64_t k = n - 1; k >= 0; --k) {
      index_[k] = flat % dims_[k];
      flat /= dims_[k];
    }
  }
  int64_t operator[](int64_t k) const { return index_[k]; }
  void Advance() {
    for (int64_t k = static_cast<int64_t>(index_.size()) - 1; k >= 0; --k) {
      if (++index_[k] < dims_[k]) return;
      index_[k] = 0;
    }
  }

 private:
  absl::Span<const int64_t> dims_;
  std::vector<int64_t> index_;
};

// Nearest: pure data movement, by element size. Output rows that read the same input row as
// the previous one (upsampled outer dims) copy that output row.
template <typename T>
void ResizeNearest(const TensorView& in, const TensorView& out, const std::vector<DimTaps>& dims,
                   const char* extrapolation) {
  const int64_t rank = out.rank();
  const T* src = in.As<T>();
  T fill;
  std::memcpy(&fill, extrapolation, sizeof(T));
  const int64_t width = out.dims[rank - 1];
  const int64_t rows = out.NumElements() / width;
  const DimTaps& inner = dims[rank - 1];
  // The innermost offsets, compact (the taps are 64 bytes apart per coordinate).
  std::vector<int64_t> offsets(width);
  bool any_outside = false;
  for (int64_t x = 0; x < width; ++x) {
    offsets[x] = inner.taps[x * DimTaps::kMaxTaps].offset;
    any_outside = any_outside || inner.outside[x];
  }
  // Rows split across threads (base/parallel.h); each chunk starts its own odometer.
  parallel::For(rows, parallel::MinChunk(width, parallel::kMinChunkElements),
                [&](int64_t row_begin, int64_t row_end) {
                  OuterIndex index(out.dims, rank - 1, row_begin);
                  T* dst = out.As<T>() + row_begin * width;
                  // The input row offset of the previous output row; -1: none or outside.
                  int64_t previous = -1;
                  for (int64_t r = row_begin; r < row_end; ++r, dst += width) {
                    int64_t base = 0;
                    bool outside = false;
                    for (int64_t k = 0; k + 1 < rank; ++k) {
                      const DimTaps& d = dims[k];
                      outside = outside || d.outside[index[k]];
                      if (!outside) base += d.taps[index[k] * DimTaps::kMaxTaps].offset;
                    }
                    if (outside) {
                      std::fill_n(dst, width, fill);
                      previous = -1;
                    } else if (base == previous) {
                      std::memcpy(dst, dst - width, width * sizeof(T));
                    } else if (!any_outside) {
                      const T* row = src + base;
                      for (int64_t x = 0; x < width; ++x) dst[x] = row[offsets[x]];
                      previous = base;
                    } else {
                      for (int64_t x = 0; x < width; ++x) {
                        dst[x] = inner.outside[x] ? fill : src[base + offsets[x]];
                      }
                      previous = base;
                    }
                    index.Advance();
                  }
                });
}

// The planar path of ResizeInterpolate for float: when only the last two dims interpolate (every
// outer dim maps each output index to one input index with weight 1; nothing outside the input)
// and the input rows are contiguous, each plane is done the other way round: every input row
// the H taps read is interpolated along W once (`interpolate_row`), then each output row blends
// those rows with contiguous vector axpys. The row-by-row path below blends a pair of input rows
// and then interpolates along W for every output row, so an upsampling by 2 interpolated each
// input row twice, with gathers, and paid three dispatched calls per output row of 32 values.
// Results differ from that order by rounding. Returns false (nothing written) when it does not
// apply.
template <class InterpolateRow>
bool ResizePlanes(const TensorView& in, const TensorView& out, const std::vector<DimTaps>& dims,
                  const InterpolateRow& interpolate_row) {
  const int64_t rank = out.rank();
  if (rank < 2 || in.strides[rank - 1] != 1) return false;
  for (int64_t k = 0; k < rank; ++k) {
    const DimTaps& d = dims[k];
    for (int64_t x = 0; x < out.dims[k]; ++x) {
      if (d.outside[x]) return false;
      if (k < rank - 2 && (d.count[x] != 1 || d.taps[x * DimTaps::kMaxTaps].weight != 1.0)) {
        return false;
      }
      if (k == rank - 2 && d.count[x] == 0) return false;
    }
  }
  const int64_t height = out.dims[rank - 2], width = out.dims[rank - 1];
  const int64_t in_height = in.dims[rank - 2], row_stride = in.strides[rank - 2];
  if (row_stride <= 0 || height == 0 || width == 0) return false;
  const DimTaps& rows = dims[rank - 2];
  std::vector<uint8_t> needed(in_height, 0);
  for (int64_t y = 0; y < height; ++y) {
    for (int t = 0; t < rows.count[y]; ++t) {
      needed[rows.taps[y * DimTaps::kMaxTaps + t].offset / row_stride] = 1;
    }
  }
  const int64_t planes = out.NumElements() / (height * width);
  const float* src = in.As<float>();
  float* dst = out.As<float>();
  parallel::For(planes,
                parallel::MinChunk(static_cast<double>((height + in_height) * width),
                                   parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  std::vector<float> across(in_height * width);  // the W-interpolated input rows
                  OuterIndex index(out.dims, rank - 2, begin);
                  for (int64_t plane = begin; plane < end; ++plane) {
                    int64_t offset = 0;
                    for (int64_t k = 0; k + 2 < rank; ++k) {
                      offset += dims[k].taps[index[k] * DimTaps::kMaxTaps].offset;
                    }
                    for (int64_t y = 0; y < in_height; ++y) {
                      if (needed[y])
                        interpolate_row(src + offset + y * row_stride, &across[y * width]);
                    }
                    float* plane_out = dst + plane * height * width;
                    for (int64_t y = 0; y < height; ++y) {
                      const DimTaps::Tap* taps = &rows.taps[y * DimTaps::kMaxTaps];
                      float* o = plane_out + y * width;
                      simd::BinaryVectorScalar(
                          simd::BinaryOp::kMul, &across[taps[0].offset / row_stride * width],
                          static_cast<float>(taps[0].weight), o, static_cast<size_t>(width));
                      for (int t = 1; t < rows.count[y]; ++t) {
                        simd::AddScaled(&across[taps[t].offset / row_stride * width],
                                        static_cast<float>(taps[t].weight), o,
                                        static_cast<size_t>(width));
                      }
                    }
                    index.Advance();
                  }
                });
  return true;
}

// Linear and cubic, in two passes per output row: the input rows the outer dims' taps select
// (their tensor product, usually one or two rows) are blended into one row in `Acc`, which the
// innermost dim's taps then interpolate. The blend is a vectorizable axpy over the input width,
// so the per-element work is only the innermost taps. The innermost DimTaps index that blended
// row (stride 1).
template <typename T>
void ResizeInterpolate(const TensorView& in, const TensorView& out,
                       const std::vector<DimTaps>& dims, double extrapolation) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  struct Combo {
    int64_t offset;
    Acc weight;
  };
  const int64_t rank = out.rank();
  const T* src = in.As<T>();
  const T fill = FromAcc<T>(static_cast<Acc>(extrapolation));
  const int64_t width = out.dims[rank - 1];
  const int64_t in_width = in.dims[rank - 1];
  const int64_t in_stride = in.strides[rank - 1];
  const int64_t rows = out.NumElements() / width;
  const DimTaps& inner = dims[rank - 1];
  // The innermost taps are the same for every row. For float, outputs [two_lo, two_hi) - linear
  // interpolation away from the borders, where clamping leaves one tap - have exactly two inside
  // the input: flattened once, they are interpolated with vectors (simd::Interpolate2, the same
  // operations as the general loop below).
  auto two = [&](int64_t x) { return !inner.outside[x] && inner.count[x] == 2; };
  int64_t two_lo = 0, two_hi = 0;
  if (std::is_same_v<T, float> && in_width <= std::numeric_limits<int32_t>::max()) {
    while (two_lo < width && !two(two_lo)) ++two_lo;
    two_hi = two_lo;
    while (two_hi < width && two(two_hi)) ++two_hi;
  }
  std::vector<int32_t> o0(width), o1(width);
  std::vector<Acc> w0(width), w1(width);
  for (int64_t x = two_lo; x < two_hi; ++x) {
    const DimTaps::Tap* taps = &inner.taps[x * DimTaps::kMaxTaps];
    o0[x] = static_cast<int32_t>(taps[0].offset);
    o1[x] = static_cast<int32_t>(taps[1].offset);
    w0[x] = static_cast<Acc>(taps[0].weight);
    w1[x] = static_cast<Acc>(taps[1].weight);
  }
  // The innermost dim's taps applied to one (blended) input row `b` of in_width values.
  auto interpolate_row = [&](const Acc* b, T* dst) {
    auto general = [&](int64_t x) {
      if (inner.outside[x]) {
        dst[x] = fill;
        return;
      }
      const DimTaps::Tap* taps = &inner.taps[x * DimTaps::kMaxTaps];
      Acc sum = 0;
      for (int t = 0; t < inner.count[x]; ++t) {
        sum += static_cast<Acc>(taps[t].weight) * b[taps[t].offset];
      }
      dst[x] = FromAcc<T>(sum);
    };
    for (int64_t x = 0; x < two_lo; ++x) general(x);
    if constexpr (std::is_same_v<T, float>) {
      simd::Interpolate2(b, static_cast<size_t>(in_width), o0.data() + two_lo, o1.data() + two_lo,
                         w0.data() + two_lo, w1.data() + two_lo, dst + two_lo,
                         static_cast<size_t>(two_hi - two_lo));
    }
    for (int64_t x = two_hi; x < width; ++x) general(x);
  };
  if constexpr (std::is_same_v<T, float>) {
    if (ResizePlanes(in, out, dims, interpolate_row)) return;
  }
  // Rows split across threads (base/parallel.h); each chunk starts its own odometer.
  parallel::For(rows, parallel::MinChunk(width + in_width, parallel::kMinChunkElements),
                [&](int64_t row_begin, int64_t row_end) {
                  OuterIndex index(out.dims, rank - 1, row_begin);
                  std::vector<Combo> combos, next;
                  std::vector<Acc> blended(in_width);
                  T* dst = out.As<T>() + row_begin * width;
                  for (int64_t r = row_begin; r < row_end; ++r, dst += width) {
                    combos.assign(1, {0, Acc(1)});
                    bool outside = false;
                    for (int64_t k = 0; k + 1 < rank && !outside; ++k) {
                      const DimTaps& d = dims[k];
                      const int64_t x = index[k];
                      if (d.outside[x]) {
                        outside = true;
                        break;
                      }
                      const DimTaps::Tap* taps = &d.taps[x * DimTaps::kMaxTaps];
                      if (d.count[x] == 1) {  // the common case: no new combinations
                        for (Combo& c : combos) {
                          c.offset += taps[0].offset;
                          c.weight *= static_cast<Acc>(taps[0].weight);
                        }
                        continue;
                      }
                      next.clear();
                      for (const Combo& c : combos) {
                        for (int t = 0; t < d.count[x]; ++t) {
                          next.push_back({c.offset + taps[t].offset,
                                          c.weight * static_cast<Acc>(taps[t].weight)});
                        }
                      }
                      combos.swap(next);
                    }
                    if (outside) {
                      std::fill_n(dst, width, fill);
                    } else {
                      Acc* b = blended.data();
                      for (size_t c = 0; c < combos.size(); ++c) {
                        const T* p = src + combos[c].offset;
                        const Acc w = combos[c].weight;
                        if constexpr (std::is_same_v<T, float>) {
                          if (in_stride == 1) {  // the same operations, in vectors
                            if (c == 0) {
                              simd::BinaryVectorScalar(simd::BinaryOp::kMul, p, w, b,
                                                       static_cast<size_t>(in_width));
                            } else {
                              simd::AddScaled(p, w, b, static_cast<size_t>(in_width));
                            }
                            continue;
                          }
                        }
                        if (c == 0) {
                          for (int64_t i = 0; i < in_width; ++i)
                            b[i] = w * ConvertElement<Acc>(p[i * in_stride]);
                        } else {
                          for (int64_t i = 0; i < in_width; ++i)
                            b[i] += w * ConvertElement<Acc>(p[i * in_stride]);
                        }
                      }
                      interpolate_row(b, dst);
                    }
                    index.Advance();
                  }
                });
}

// ONNX Runtime's bilinear resize. A float resize of the last two dims only (rank 2, or rank 4
// with N and C kept) computes what ONNX Runtime's CPU kernel computes, bit for bit: coordinates in
// float (the scale of `sizes` as the float ratio of the lengths), clamped to the input, weights
// as distances to both neighbours (one half each where they coincide), and one four-term blend
// per output. The separable passes above round differently in the last bit; a model that
// quantizes a resized tensor dynamically (DynamicQuantizeLinear derives its scale from the data)
// turns such a bit into a changed quantization step, which grows from layer to layer.
struct BilinearAxis {
  std::vector<int32_t> i1, i2;   // the neighbours, i1 <= i2
  std::vector<float> d1, d2;     // the distances to them: d1 weighs i2, d2 weighs i1
  std::vector<uint8_t> outside;  // tf_crop_and_resize past the input: the extrapolation value
};

float OrtSourceCoordinate(Coord coord, float x, float scale, float in_len, float out_len,
                          float roi_start, float roi_end) {
  switch (coord) {
    case Coord::kHalfPixel:
    case Coord::kHalfPixelSymmetric:  // not taken: OrtBilinear leaves it to the general path
      return ((x + 0.5f) / scale) - 0.5f;
    case Coord::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case Coord::kAsymmetric:
      return x / scale;
    case Coord::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case Coord::kAlignCorners:
      return out_len == 1 ? 0.0f : (x * (in_len - 1)) / (out_len - 1);
    case Coord::kTfCropAndResize:
      return out_len > 1 ? roi_start * (in_len - 1) +
                               ((x * (roi_end - roi_start)) * (in_len - 1)) / (out_len - 1)
                         : static_cast<float>(0.5 * (roi_start + roi_end) * (in_len - 1));
  }
  return 0;
}

// `resized_length`: the output length the modes that use one (align_corners,
// pytorch_half_pixel, tf_crop_and_resize) divide by.
BilinearAxis OrtBilinearAxis(Coord coord, int64_t in_length, int64_t out_length, float scale,
                             float resized_length, float roi_start, float roi_end) {
  BilinearAxis a;
  a.i1.resize(out_length);
  a.i2.resize(out_length);
  a.d1.resize(out_length);
  a.d2.resize(out_length);
  a.outside.resize(out_length);
  const int32_t last = static_cast<int32_t>(in_length - 1);
  const float last_f = static_cast<float>(last);
  for (int64_t x = 0; x < out_length; ++x) {
    const float xf = static_cast<float>(x);
    // A scale of exactly 1 maps every index to itself, whatever the mode (and roi) say.
    float v = scale == 1 ? xf
                         : OrtSourceCoordinate(coord, xf, scale, static_cast<float>(in_length),
                                               resized_length, roi_start, roi_end);
    a.outside[x] = coord == Coord::kTfCropAndResize && (v < 0 || v > last_f);
    v = std::max(0.0f, std::min(v, last_f));
    const int32_t i1 = std::min(static_cast<int32_t>(v), last);
    const int32_t i2 = std::min(i1 + 1, last);
    a.i1[x] = i1;
    a.i2[x] = i2;
    a.d1[x] = i1 == i2 ? 0.5f : std::fabs(v - static_cast<float>(i1));
    a.d2[x] = i1 == i2 ? 0.5f : std::fabs(v - static_cast<float>(i2));
  }
  return a;
}

// Resizes `in` into `out` (float32, dense) as above and returns true, or returns false (nothing
// written) when the resize is not one of those shapes. `from_sizes`: the scales are the ratio of
// `sizes` to the input dims.
bool OrtBilinear(const ResizeParams& p, const TensorView& in, const TensorView& out,
                 const std::vector<double>& scales, const std::vector<double>& roi,
                 bool from_sizes) {
  const int64_t rank = in.rank();
  if (p.mode != Mode::kLinear || p.coord == Coord::kHalfPixelSymmetric ||
      !(rank == 2 || rank == 4) || !in.Contiguous() || !out.Contiguous()) {
    return false;
  }
  for (int64_t k = 0; k + 2 < rank; ++k) {
    if (scales[k] != 1 || in.dims[k] != out.dims[k]) return false;
    if (!roi.empty() && (roi[k] != 0 || roi[k + rank] != 1)) return false;
  }
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  const int64_t h = in.dims[rank - 2], w = in.dims[rank - 1];
  const int64_t out_h = out.dims[rank - 2], out_w = out.dims[rank - 1];
  if (h > kMaxIndex || w > kMaxIndex || out_h > kMaxIndex || out_w > kMaxIndex) return false;
  auto axis = [&](int64_t k) {
    const float scale = from_sizes
                            ? static_cast<float>(out.dims[k]) / static_cast<float>(in.dims[k])
                            : static_cast<float>(scales[k]);
    // ONNX Runtime divides by the output length; the reference (and the backend suite) by scale x
    // input length. They differ only where that product is fractional (a 0.6 downscale of 4
    // values: 2 against 2.4); there the reference's value is taken.
    const double product = scales[k] * static_cast<double>(in.dims[k]);
    const float resized_length = from_sizes || product == static_cast<double>(out.dims[k])
                                     ? static_cast<float>(out.dims[k])
                                     : static_cast<float>(product);
    return OrtBilinearAxis(p.coord, in.dims[k], out.dims[k], scale, resized_length,
                           roi.empty() ? 0.0f : static_cast<float>(roi[k]),
                           roi.empty() ? 1.0f : static_cast<float>(roi[k + rank]));
  };
  const BilinearAxis rows = axis(rank - 2), cols = axis(rank - 1);
  std::vector<int64_t> outside_cols;
  for (int64_t x = 0; x < out_w; ++x) {
    if (cols.outside[x]) outside_cols.push_back(x);
  }
  const float fill = static_cast<float>(p.extrapolation);
  const float* src = in.As<float>();
  float* dst = out.As<float>();
  const int64_t out_rows = out.NumElements() / out_w;
  parallel::For(out_rows, parallel::MinChunk(4.0 * out_w, parallel::kMinChunkElements),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const int64_t plane = r / out_h, y = r % out_h;
                    float* o = dst + r * out_w;
                    if (rows.outside[y]) {
                      std::fill_n(o, out_w, fill);
                      continue;
                    }
                    const float* base = src + plane * h * w;
                    simd::BlendBilinearRow(base + rows.i1[y] * w, base + rows.i2[y] * w,
                                           static_cast<size_t>(w), cols.i1.data(), cols.i2.data(),
                                           cols.d1.data(), cols.d2.data(), rows.d1[y], rows.d2[y],
                                           o, static_cast<size_t>(out_w));
                    for (int64_t x : outside_cols) o[x] = fill;
                  }
                });
  return true;
}

// Where the scales come from.
enum class ScaleSource {
  kResize10,   // input 1
  kResize11,   // roi input 1, scales input 2 or sizes input 3
  kUpsample1,  // attributes height_scale, width_scale (4-D)
  kUpsample7,  // attribute scales
  kUpsample9,  // input 1
};

class ResizeKernel final : public OpKernel {
 public:
  ResizeKernel(ResizeParams params, ScaleSource source, std::vector<double> attr_scales,
               std::vector<int64_t> axes = {})
      : params_(params),
        source_(source),
        attr_scales_(std::move(attr_scales)),
        axes_(std::move(axes)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& in = ctx.input(0);
    ANVIL_ASSIGN_OR_RETURN(TensorView * out_or, PreallocatedOutput(ctx, 0));
    const TensorView& out = *out_or;
    const int64_t rank = in.rank();
    if (out.rank() != rank || out.type != in.type) {
      return ctx.Error(absl::StrCat("output ", out.DebugString(), " for input ", in.DebugString()));
    }
    std::vector<double> scales, roi;
    bool from_sizes = false;
    absl::Status s = ReadScales(ctx, in, out, &scales, &roi, &from_sizes);
    if (!s.ok()) return s;
    if (static_cast<int64_t>(scales.size()) != rank) {
      return ctx.Error(absl::StrCat(scales.size(), " scales for input ", in.DebugString()));
    }
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
    if (out.NumElements() == 0) return absl::OkStatus();
    if (rank == 0) {
      CopyView(out, in);
      return absl::OkStatus();
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (in.dims[k] == 0) {
        return ctx.Error(absl::StrCat("cannot resize empty dim ", k, " of ", in.DebugString(),
                                      " to ", out.dims[k]));
      }
      if (!(scales[k] > 0)) {
        return ctx.Error(absl::StrCat("scale ", scales[k], " of dim ", k, " is not positive"));
      }
    }
    // Every dim's taps, for the paths that take them (OrtBilinear computes its own).
    auto taps = [&]() {
      std::vector<DimTaps> dims;
      for (int64_t k = 0; k < rank; ++k) {
        const double roi_start = roi.empty() ? 0 : roi[k];
        const double roi_end = roi.empty() ? 1 : roi[k + rank];
        // Interpolation reads the innermost dim from a blended dense row (ResizeInterpolate).
        const int64_t stride = params_.mode != Mode::kNearest && k == rank - 1 ? 1 : in.strides[k];
        dims.push_back(
            ComputeTaps(params_, in.dims[k], out.dims[k], scales[k], stride, roi_start, roi_end));
      }
      return dims;
    };
    if (params_.mode == Mode::kNearest) {
      alignas(16) char fill[16] = {};
      if (params_.coord == Coord::kTfCropAndResize) {
        s = ConvertScalar(params_.extrapolation, in.type, ctx.node().op_type(), fill);
        if (!s.ok()) return s;
      }
      const std::vector<DimTaps> dims = taps();
      return DispatchBySize(in.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
        ResizeNearest<decltype(tag)>(in, out, dims, fill);
        return absl::OkStatus();
      });
    }
    if (in.type == ElementType::kBool) return UnsupportedType(ctx.node().op_type(), in.type);
    if (in.type == ElementType::kFloat16 && in.Contiguous() && out.Contiguous()) {
      // float16 interpolates in float32 either way; widened in one pass, it takes the float32
      // path's planar SIMD rows instead of one scalar conversion per tap (the taps' strides are
      // the dense input's, which the widened copy shares).
      compute_ops::DenseInput<float> wide_in(in);
      compute_ops::DenseOutput<float> wide_out(out);
      const TensorView wide_in_view =
          TensorView::Dense(ElementType::kFloat, const_cast<float*>(wide_in.data()), in.dims);
      const TensorView wide_out_view =
          TensorView::Dense(ElementType::kFloat, wide_out.data(), out.dims);
      if (!OrtBilinear(params_, wide_in_view, wide_out_view, scales, roi, from_sizes)) {
        ResizeInterpolate<float>(wide_in_view, wide_out_view, taps(), params_.extrapolation);
      }
      wide_out.Commit();
      return absl::OkStatus();
    }
    if (in.type == ElementType::kFloat && OrtBilinear(params_, in, out, scales, roi, from_sizes)) {
      return absl::OkStatus();
    }
    const std::vector<DimTaps> dims = taps();
    return DispatchNumeric(in.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      ResizeInterpolate<decltype(tag)>(in, out, dims, params_.extrapolation);
      return absl::OkStatus();
    });
  }

 private:
  absl::Status ReadScales(const KernelContext& ctx, const TensorView& in, const TensorView& out,
                          std::vector<double>* scales, std::vector<double>* roi,
                          bool* from_sizes) const {
    const int64_t rank = in.rank();
    auto read = [&](int i, std::vector<double>* v) -> absl::Status {
      if (!ctx.HasInput(i)) return absl::OkStatus();
      ANVIL_ASSIGN_OR_RETURN(*v, ReadDoubles(ctx, i));
      return absl::OkStatus();
    };
    switch (source_) {
      case ScaleSource::kResize10:
      case ScaleSource::kUpsample9:
        return read(1, scales);
      case ScaleSource::kUpsample1:
      case ScaleSource::kUpsample7:
        *scales = attr_scales_;
        return absl::OkStatus();
      case ScaleSource::kResize11:
        break;
    }
    // Resize-18's axes: roi and scales of those dims only; the rest are whole and unscaled.
    std::vector<int64_t> axes;
    for (int64_t a : axes_) {
      if (a < -rank || a >= rank) {
        return ctx.Error(absl::StrCat("axes value ", a, " is out of range for ", in.DebugString()));
      }
      axes.push_back(a < 0 ? a + rank : a);
    }
    const int64_t given = axes.empty() ? rank : static_cast<int64_t>(axes.size());
    if (params_.coord == Coord::kTfCropAndResize) {
      ANVIL_RETURN_IF_ERROR(read(1, roi));
      if (!roi->empty() && static_cast<int64_t>(roi->size()) != 2 * given) {
        return ctx.Error(
            absl::StrCat("roi of ", roi->size(), " values for input ", in.DebugString()));
      }
      if (!roi->empty() && !axes.empty())
        *roi = SpreadOverAxes<double>(*roi, axes, rank, {0.0, 1.0});
    }
    ANVIL_RETURN_IF_ERROR(read(2, scales));
    if (!scales->empty() && !axes.empty()) {
      if (static_cast<int64_t>(scales->size()) != given) {
        return ctx.Error(absl::StrCat(scales->size(), " scales for ", given, " axes"));
      }
      *scales = SpreadOverAxes<double>(*scales, axes, rank, {1.0});
    }
    if (!scales->empty()) return absl::OkStatus();
    // From `sizes`: the ShapeHelper made them the output dims; the scale is their ratio.
    if (!ctx.HasInput(3) || ctx.input(3).NumElements() == 0) {
      return ctx.Error("neither scales nor sizes is given");
    }
    *from_sizes = true;
    for (int64_t k = 0; k < rank; ++k) {
      scales->push_back(in.dims[k] == 0
                            ? 1.0
                            : static_cast<double>(out.dims[k]) / static_cast<double>(in.dims[k]));
    }
    return absl::OkStatus();
  }

  ResizeParams params_;
  ScaleSource source_;
  std::vector<double> attr_scales_;
  std::vector<int64_t> axes_;
};

absl::Status InvalidAttr(const Node& node, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": ", what));
}

// Resize-18's attributes that change the result, at the values that keep Resize-13's meaning:
// antialias 0 and keep_aspect_ratio_policy stretch.
absl::Status CheckResize18Attributes(const Node& node) {
  if (node.GetInt("antialias", 0) != 0) {
    return absl::UnimplementedError(absl::StrCat(node.Describe(), ": antialias is not supported"));
  }
  const std::string policy = node.GetString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch") {
    return absl::UnimplementedError(absl::StrCat(node.Describe(), ": keep_aspect_ratio_policy '",
                                                 policy, "' is not supported (stretch is)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> MakeResize(const Node& node, int64_t opset) {
  ResizeParams p;
  const std::string mode = node.GetString("mode", "nearest");
  if (mode == "nearest") {
    p.mode = Mode::kNearest;
  } else if (mode == "linear") {
    p.mode = Mode::kLinear;
  } else if (mode == "cubic" && opset >= 11) {
    p.mode = Mode::kCubic;
  } else {
    return InvalidAttr(node, absl::StrCat("unknown mode '", mode, "'"));
  }
  if (opset < 11) {
    // Resize-10 is Upsample-9 under another name: asymmetric coordinates, simple rounding.
    p.coord = Coord::kAsymmetric;
    p.nearest = NearestMode::kSimple;
    return std::unique_ptr<OpKernel>(new ResizeKernel(p, ScaleSource::kResize10, {}));
  }
  const std::string coord = node.GetString("coordinate_transformation_mode", "half_pixel");
  if (coord == "half_pixel") {
    p.coord = Coord::kHalfPixel;
  } else if (coord == "asymmetric") {
    p.coord = Coord::kAsymmetric;
  } else if (coord == "align_corners") {
    p.coord = Coord::kAlignCorners;
  } else if (coord == "pytorch_half_pixel") {
    p.coord = Coord::kPytorchHalfPixel;
  } else if (coord == "tf_half_pixel_for_nn") {
    p.coord = Coord::kTfHalfPixelForNn;
  } else if (coord == "tf_crop_and_resize") {
    p.coord = Coord::kTfCropAndResize;
  } else if (coord == "half_pixel_symmetric" && opset >= 19) {
    p.coord = Coord::kHalfPixelSymmetric;
  } else {
    return InvalidAttr(node, absl::StrCat("unknown coordinate_transformation_mode '", coord, "'"));
  }
  const std::string nearest = node.GetString("nearest_mode", "round_prefer_floor");
  if (nearest == "round_prefer_floor") {
    p.nearest = NearestMode::kRoundPreferFloor;
  } else if (nearest == "round_prefer_ceil") {
    p.nearest = NearestMode::kRoundPreferCeil;
  } else if (nearest == "floor") {
    p.nearest = NearestMode::kFloor;
  } else if (nearest == "ceil") {
    p.nearest = NearestMode::kCeil;
  } else {
    return InvalidAttr(node, absl::StrCat("unknown nearest_mode '", nearest, "'"));
  }
  p.cubic_a = node.GetFloat("cubic_coeff_a", -0.75f);
  p.exclude_outside = node.GetInt("exclude_outside", 0) != 0;
  p.extrapolation = node.GetFloat("extrapolation_value", 0.0f);
  std::vector<int64_t> axes;
  if (opset >= 18) {
    ANVIL_RETURN_IF_ERROR(CheckResize18Attributes(node));
    axes = node.GetInts("axes");
  }
  return std::unique_ptr<OpKernel>(
      new ResizeKernel(p, ScaleSource::kResize11, {}, std::move(axes)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeUpsample(const Node& node, int64_t opset) {
  ResizeParams p;
  p.coord = Coord::kAsymmetric;
  p.nearest = NearestMode::kSimple;
  const std::string mode = node.GetString("mode", "nearest");
  if (mode == "nearest") {
    p.mode = Mode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    p.mode = Mode::kLinear;
  } else {
    return InvalidAttr(node, absl::StrCat("unknown mode '", mode, "'"));
  }
  if (opset < 7) {
    std::vector<double> scales = {1, 1, node.GetFloat("height_scale", 1),
                                  node.GetFloat("width_scale", 1)};
    return std::unique_ptr<OpKernel>(new ResizeKernel(p, ScaleSource::kUpsample1, scales));
  }
  if (opset < 9) {
    const Attribute* a = node.FindAttribute("scales");
    if (a == nullptr) return InvalidAttr(node, "missing attribute scales");
    return std::unique_ptr<OpKernel>(new ResizeKernel(
        p, ScaleSource::kUpsample7, std::vector<double>(a->floats.begin(), a->floats.end())));
  }
  return std::unique_ptr<OpKernel>(new ResizeKernel(p, ScaleSource::kUpsample9, {}));
}

}  // namespace anvil::data_ops
