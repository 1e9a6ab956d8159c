// Pooling: MaxPool (with Indices, storage_order, dilations, ceil_mode), AveragePool
// (count_include_pad), LpPool, the global pools and MaxUnpool.
//
// Windowed pools normalize 1-, 2- and 3-D inputs to three spatial dims and precompute, per dim
// and output coordinate, the first valid input coordinate and the number of valid taps, so the
// inner loops never test for padding. ceil_mode only changes the output size (which the
// ShapeHelper computed); a last window that runs past the end pads simply has fewer valid taps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

enum class PoolKind { kMax, kAverage, kLp };

// The valid taps of each output coordinate along one dim.
struct DimTaps {
  std::vector<int64_t> first;   // first valid input coordinate
  std::vector<int64_t> count;   // valid taps (inside the input)
  std::vector<int64_t> padded;  // taps inside input + pads (count_include_pad's divisor)
  int64_t dilation = 1;
  int64_t in = 1;
  // Output coordinates [full_begin, full_end) have every tap inside the input, the first at
  // o * stride - pad_begin: the loops there need no per-coordinate lookups.
  int64_t kernel = 1, stride = 1, pad_begin = 0;
  int64_t full_begin = 0, full_end = 0;
};

DimTaps ComputeTaps(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t dilation,
                    int64_t pad_begin, int64_t pad_end) {
  DimTaps t;
  t.dilation = dilation;
  t.in = in;
  for (int64_t o = 0; o < out; ++o) {
    const int64_t start = o * stride - pad_begin;
    const int64_t k_first = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
    const int64_t k_last =
        in - 1 - start < 0 ? -1 : std::min(kernel - 1, (in - 1 - start) / dilation);
    const int64_t p_last = in + pad_end - 1 - start < 0
                               ? -1
                               : std::min(kernel - 1, (in + pad_end - 1 - start) / dilation);
    t.first.push_back(start + k_first * dilation);
    t.count.push_back(std::max<int64_t>(0, k_last - k_first + 1));
    t.padded.push_back(p_last + 1);
  }
  t.kernel = kernel;
  t.stride = stride;
  t.pad_begin = pad_begin;
  // Full windows: start >= 0 and start + (kernel - 1) * dilation <= in - 1.
  // A negative pad_begin (a crop, which the shape rule allows) starts every window inside.
  t.full_begin = pad_begin <= 0 ? 0 : std::min(out, (pad_begin + stride - 1) / stride);
  const int64_t last_start = in - 1 - (kernel - 1) * dilation + pad_begin;  // o * stride <= this
  t.full_end =
      last_start < 0 ? t.full_begin : std::clamp(last_start / stride + 1, t.full_begin, out);
  return t;
}

class PoolKernel final : public OpKernel {
 public:
  PoolKernel(PoolKind kind, WindowAttrs attrs, bool count_include_pad, int64_t storage_order,
             double p)
      : kind_(kind),
        attrs_(std::move(attrs)),
        count_include_pad_(count_include_pad),
        storage_order_(storage_order),
        p_(p) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    const int64_t S = x.rank() - 2;
    if (S < 1 || S > 3) {
      return absl::UnimplementedError(absl::StrCat(ctx.node().Describe(), ": pooling over ", S,
                                                   " spatial dims is not supported (1 to 3)"));
    }
    const Shape in(x.dims.begin() + 2, x.dims.end());
    const Shape out(y.dims.begin() + 2, y.dims.end());
    ANVIL_ASSIGN_OR_RETURN(WindowGeometry g,
                           ResolveWindow(ctx.node(), attrs_, in, out, attrs_.kernel_shape));
    const bool want_indices = kind_ == PoolKind::kMax && ctx.HasOutput(1);
    if (kind_ == PoolKind::kMax && !want_indices && x.type == ElementType::kFloat && IsFull2x2(g)) {
      return MaxPool2x2(x, y, g);
    }
    DimTaps taps[3];  // D, H, W
    for (int64_t d = 0; d < 3; ++d) {
      const int64_t k = d - (3 - S);  // spatial dim, or < 0 for a padding dim of size 1
      taps[d] = k < 0 ? ComputeTaps(1, 1, 1, 1, 1, 0, 0)
                      : ComputeTaps(g.in[k], g.out[k], g.kernel[k], g.strides[k], g.dilations[k],
                                    g.pad_begin[k], g.pad_end[k]);
    }
    int64_t* indices = want_indices ? ctx.output(1).As<int64_t>() : nullptr;
    const char* op = kind_ == PoolKind::kMax       ? "MaxPool"
                     : kind_ == PoolKind::kAverage ? "AveragePool"
                                                   : "LpPool";
    if (kind_ != PoolKind::kMax && !IsFloating(x.type)) return UnsupportedType(op, x.type);
    return DispatchArithmetic(x.type, op, [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x);
      DenseOutput<C> yd(y);
      const int64_t planes = x.dims[0] * x.dims[1];
      const double plane_work = static_cast<double>(g.in_size + g.out_size * g.kernel_size);
      parallel::For(planes, parallel::MinChunk(plane_work, parallel::kMinChunkElements),
                    [&](int64_t begin, int64_t end) {
                      std::vector<double> acc;
                      for (int64_t plane = begin; plane < end; ++plane) {
                        const C* xp = xd.data() + plane * g.in_size;
                        C* yp = yd.data() + plane * g.out_size;
                        if (indices == nullptr && kind_ != PoolKind::kLp) {
                          PlaneByRows<C>(taps, xp, yp, acc);
                        } else {
                          Plane<C>(taps, xp, yp,
                                   indices != nullptr ? indices + plane * g.out_size : nullptr,
                                   plane * g.in_size);
                        }
                      }
                    });
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  static bool IsFloating(ElementType t) {
    return t == ElementType::kFloat || t == ElementType::kDouble || t == ElementType::kFloat16 ||
           t == ElementType::kBfloat16;
  }

  // 2-D windows of 2x2 at stride 2, dilation 1, all inside the input (no pads, no ceil_mode
  // partial windows): simd::MaxPool2x2Planes' case.
  // Whether every window is a whole 2x2 block of a 2-D input, stride 2 (no padding reached,
  // no dilation): simd::MaxPool2x2Planes' case, decided from the geometry alone so that the
  // common pool of a CNN builds no tap tables.
  static bool IsFull2x2(const WindowGeometry& g) {
    if (g.spatial != 2) return false;
    for (int d = 0; d < 2; ++d) {
      if (g.kernel[d] != 2 || g.strides[d] != 2 || g.dilations[d] != 1 || g.pad_begin[d] != 0 ||
          2 * g.out[d] > g.in[d]) {
        return false;
      }
    }
    return true;
  }

  static absl::Status MaxPool2x2(const TensorView& x, TensorView& y, const WindowGeometry& g) {
    DenseInput<float> xd(x);
    DenseOutput<float> yd(y);
    const int64_t planes = x.dims[0] * x.dims[1];
    const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
    // Whole windows fold in registers, ~4x faster per element than the streaming work
    // kMinChunkElements is sized for: its work is its outputs (at 2 threads a batch-1
    // [1,16,32,32] pool split in two took 3.1-4.1 us against 3.2 serially).
    parallel::For(planes,
                  parallel::MinChunk(static_cast<double>(OH * OW), parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    simd::MaxPool2x2Planes(xd.data() + begin * H * W, end - begin, H, W,
                                           yd.data() + begin * OH * OW, OH, OW);
                  });
    yd.Commit();
    return absl::OkStatus();
  }

  // Max and average pools without Indices, one output row at a time: each tap row of the window
  // is folded into a row of accumulators, so the inner loop runs over contiguous outputs (with a
  // constant stride into the input row, which the compiler vectorizes for the full windows).
  // Each output folds its taps in the order Plane does: the same values, bit for bit.
  template <typename C>
  void PlaneByRows(const DimTaps* taps, const C* x, C* y, std::vector<double>& acc) const {
    const DimTaps& td = taps[0];
    const DimTaps& th = taps[1];
    const DimTaps& tw = taps[2];
    const int64_t H = th.in, W = tw.in;
    const int64_t OD = td.first.size(), OH = th.first.size(), OW = tw.first.size();
    const int64_t s = tw.stride, dil = tw.dilation, kw = tw.kernel, pad = tw.pad_begin;
    if constexpr (std::is_same_v<C, float>) {
      if (kind_ == PoolKind::kMax) {
        // A whole depth slice per call: the full windows' columns with vectors
        // (simd::MaxPoolRows, which starts them from -inf for the first depth tap and stores
        // each once), then the edge columns, which start from -inf here. Each output still
        // folds its taps in (depth, row, column) order.
        const bool full_columns = tw.full_begin < tw.full_end;
        constexpr float kNegInf = -std::numeric_limits<float>::infinity();
        for (int64_t od = 0; od < OD; ++od) {
          float* yp = y + od * OH * OW;
          if (td.count[od] == 0 || !full_columns) {
            std::fill(yp, yp + OH * OW, kNegInf);
          } else {
            for (int64_t oh = 0; oh < OH; ++oh) {
              std::fill(yp + oh * OW, yp + oh * OW + tw.full_begin, kNegInf);
              std::fill(yp + oh * OW + tw.full_end, yp + (oh + 1) * OW, kNegInf);
            }
          }
          for (int64_t a = 0; a < td.count[od]; ++a) {
            const float* slice = x + (td.first[od] + a * td.dilation) * H * W;
            if (full_columns) {
              simd::MaxPoolRows(slice, W, th.first.data(), th.count.data(), th.dilation, OH,
                                tw.full_begin * s - pad, s, kw, dil, /*accumulate=*/a > 0, yp, OW,
                                tw.full_begin, tw.full_end);
            }
            if (tw.full_begin == 0 && tw.full_end == OW) continue;
            for (int64_t oh = 0; oh < OH; ++oh) {
              for (int64_t b = 0; b < th.count[oh]; ++b) {
                const float* row = slice + (th.first[oh] + b * th.dilation) * W;
                for (int64_t ow = 0; ow < OW; ++ow) {
                  if (ow == tw.full_begin) ow = std::max(ow, tw.full_end);
                  if (ow >= OW) break;
                  float& m = yp[oh * OW + ow];
                  for (int64_t c = 0; c < tw.count[ow]; ++c) {
                    const float v = row[tw.first[ow] + c * dil];
                    m = v > m ? v : m;
                  }
                }
              }
            }
          }
        }
        return;
      }
    }
    acc.resize(OW);
    for (int64_t od = 0; od < OD; ++od) {
      for (int64_t oh = 0; oh < OH; ++oh) {
        C* yr = y + (od * OH + oh) * OW;
        if (kind_ == PoolKind::kMax) {
          std::fill(yr, yr + OW,
                    std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                         : std::numeric_limits<C>::lowest());
        } else {
          std::fill(acc.begin(), acc.end(), 0.0);
        }
        for (int64_t a = 0; a < td.count[od]; ++a) {
          const int64_t id = td.first[od] + a * td.dilation;
          for (int64_t b = 0; b < th.count[oh]; ++b) {
            const C* row = x + (id * H + th.first[oh] + b * th.dilation) * W;
            auto edge = [&](int64_t ow) {
              for (int64_t c = 0; c < tw.count[ow]; ++c) {
                const C v = row[tw.first[ow] + c * dil];
                if (kind_ == PoolKind::kMax) {
                  yr[ow] = v > yr[ow] ? v : yr[ow];
                } else {
                  acc[ow] += static_cast<double>(v);
                }
              }
            };
            for (int64_t ow = 0; ow < tw.full_begin; ++ow) edge(ow);
            if (kind_ == PoolKind::kMax) {
              for (int64_t ow = tw.full_begin; ow < tw.full_end; ++ow) {
                const C* p = row + ow * s - pad;
                C m = yr[ow];
                for (int64_t c = 0; c < kw; ++c) m = p[c * dil] > m ? p[c * dil] : m;
                yr[ow] = m;
              }
            } else {
              for (int64_t ow = tw.full_begin; ow < tw.full_end; ++ow) {
                const C* p = row + ow * s - pad;
                double sum = acc[ow];
                for (int64_t c = 0; c < kw; ++c) sum += static_cast<double>(p[c * dil]);
                acc[ow] = sum;
              }
            }
            for (int64_t ow = tw.full_end; ow < OW; ++ow) edge(ow);
          }
        }
        if (kind_ == PoolKind::kAverage) {
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t n = count_include_pad_ ? td.padded[od] * th.padded[oh] * tw.padded[ow]
                                                 : td.count[od] * th.count[oh] * tw.count[ow];
            yr[ow] = static_cast<C>(acc[ow] / static_cast<double>(n));
          }
        }
      }
    }
  }

  // Calls f(value, id, ih, iw) for each input element of output (od, oh, ow)'s window, in
  // (depth, row, column) order.
  template <typename C, typename F>
  static void ForEachTap(const DimTaps* taps, const C* x, int64_t od, int64_t oh, int64_t ow,
                         F&& f) {
    const DimTaps& td = taps[0];
    const DimTaps& th = taps[1];
    const DimTaps& tw = taps[2];
    for (int64_t a = 0; a < td.count[od]; ++a) {
      const int64_t id = td.first[od] + a * td.dilation;
      for (int64_t b = 0; b < th.count[oh]; ++b) {
        const int64_t ih = th.first[oh] + b * th.dilation;
        const C* row = x + (id * th.in + ih) * tw.in;
        for (int64_t c = 0; c < tw.count[ow]; ++c) {
          const int64_t iw = tw.first[ow] + c * tw.dilation;
          f(row[iw], id, ih, iw);
        }
      }
    }
  }

  template <typename C>
  void Plane(const DimTaps* taps, const C* x, C* y, int64_t* indices, int64_t index_base) const {
    const DimTaps& td = taps[0];
    const DimTaps& th = taps[1];
    const DimTaps& tw = taps[2];
    const int64_t H = th.in, W = tw.in, D = td.in;
    const int64_t OD = td.first.size(), OH = th.first.size(), OW = tw.first.size();
    for (int64_t od = 0; od < OD; ++od) {
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          const int64_t o = (od * OH + oh) * OW + ow;
          if (kind_ == PoolKind::kMax) {
            C best = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity()
                                                          : std::numeric_limits<C>::lowest();
            int64_t best_d = td.first[od], best_h = th.first[oh], best_w = tw.first[ow];
            ForEachTap(taps, x, od, oh, ow, [&](C v, int64_t id, int64_t ih, int64_t iw) {
              if (v > best) {
                best = v;
                best_d = id;
                best_h = ih;
                best_w = iw;
              }
            });
            y[o] = best;
            if (indices != nullptr) {
              // storage_order 1: column-major over the spatial dims.
              indices[o] = index_base + (storage_order_ == 0 ? (best_d * H + best_h) * W + best_w
                                                             : (best_w * H + best_h) * D + best_d);
            }
            continue;
          }
          double sum = 0;
          ForEachTap(taps, x, od, oh, ow, [&](C e, int64_t, int64_t, int64_t) {
            const double v = static_cast<double>(e);
            if (kind_ == PoolKind::kAverage) {
              sum += v;
            } else if (p_ == 2) {
              sum += v * v;
            } else {
              sum += std::pow(std::fabs(v), p_);
            }
          });
          if (kind_ == PoolKind::kAverage) {
            const int64_t n = count_include_pad_ ? td.padded[od] * th.padded[oh] * tw.padded[ow]
                                                 : td.count[od] * th.count[oh] * tw.count[ow];
            y[o] = static_cast<C>(sum / static_cast<double>(n));
          } else {
            y[o] = static_cast<C>(p_ == 2 ? std::sqrt(sum) : std::pow(sum, 1.0 / p_));
          }
        }
      }
    }
  }

  PoolKind kind_;
  WindowAttrs attrs_;
  bool count_include_pad_;
  int64_t storage_order_;
  double p_;
};

// LpPool-1 and GlobalLpPool-1 have a float `p`; later versions an int.
double ReadP(const Node& node) {
  const Attribute* attr = node.FindAttribute("p");
  if (attr == nullptr) return 2.0;
  return attr->type() == AttributeType::kFloat ? static_cast<double>(attr->f)
                                               : static_cast<double>(attr->i);
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: one value per (n, c) plane.
class GlobalPoolKernel final : public OpKernel {
 public:
  GlobalPoolKernel(PoolKind kind, double p) : kind_(kind), p_(p) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    if (x.rank() < 2) return ctx.Error("X must be [N, C, spatial...]");
    const char* op = kind_ == PoolKind::kMax       ? "GlobalMaxPool"
                     : kind_ == PoolKind::kAverage ? "GlobalAveragePool"
                                                   : "GlobalLpPool";
    return DispatchFloat(x.type, op, [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x);
      DenseOutput<C> yd(y);
      const int64_t planes = x.dims[0] * x.dims[1];
      const int64_t n = Product(x.dims, 2);
      for (int64_t i = 0; i < planes; ++i) yd.data()[i] = Reduce<C>(xd.data() + i * n, n);
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  template <typename C>
  C Reduce(const C* x, int64_t n) const {
    if constexpr (std::is_same_v<C, float>) {
      switch (kind_) {
        case PoolKind::kMax:
          return simd::ReduceMax(x, n);
        case PoolKind::kAverage:
          return simd::ReduceSum(x, n) / static_cast<float>(n);
        case PoolKind::kLp:
          if (p_ == 2) return std::sqrt(simd::ReduceSumSquares(x, n));
          break;
      }
    }
    if (kind_ == PoolKind::kMax) {
      C best = -std::numeric_limits<C>::infinity();
      for (int64_t i = 0; i < n; ++i) best = std::isnan(x[i]) || x[i] > best ? x[i] : best;
      return best;
    }
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double v = x[i];
      sum += kind_ == PoolKind::kAverage ? v : (p_ == 2 ? v * v : std::pow(std::fabs(v), p_));
    }
    if (kind_ == PoolKind::kAverage) return static_cast<C>(sum / static_cast<double>(n));
    return static_cast<C>(p_ == 2 ? std::sqrt(sum) : std::pow(sum, 1.0 / p_));
  }

  PoolKind kind_;
  double p_;
};

// MaxUnpool: Y zeros except Y[I[i]] = X[i]. The indices are flat positions in the unpooled
// shape [N, C, (in - 1) * stride - pad_begin - pad_end + kernel...], as MaxPool produced them;
// with an output_shape input of another size the coordinates are kept (the extra rows and
// columns stay zero), which is what the ONNX reference data expects.
class MaxUnpoolKernel final : public OpKernel {
 public:
  explicit MaxUnpoolKernel(WindowAttrs attrs) : attrs_(std::move(attrs)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const TensorView& ind = ctx.input(1);
    TensorView& y = ctx.output(0);
    const int64_t S = x.rank() - 2;
    if (S < 1 || static_cast<int64_t>(attrs_.kernel_shape.size()) != S) {
      return ctx.Error("kernel_shape must have one value per spatial dim of X");
    }
    Shape unpooled = {x.dims[0], x.dims[1]};
    for (int64_t d = 0; d < S; ++d) {
      const int64_t s = attrs_.strides.empty() ? 1 : attrs_.strides[d];
      const int64_t pads = attrs_.pads.empty() ? 0 : attrs_.pads[d] + attrs_.pads[d + S];
      unpooled.push_back((x.dims[d + 2] - 1) * s - pads + attrs_.kernel_shape[d]);
    }
    if (y.rank() != x.rank()) return ctx.Error("output_shape has the wrong rank");
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> index, ReadInt64s(ind, "MaxUnpool"));
    if (static_cast<int64_t>(index.size()) != x.NumElements()) {
      return ctx.Error("I must have X's shape");
    }
    const int64_t unpooled_size = Product(unpooled);
    const Shape y_strides = DenseStrides(y.dims);
    return DispatchBySize(x.type, "MaxUnpool", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      std::memset(y.data, 0, y.NumElements() * sizeof(T));
      std::vector<T> values(x.NumElements());
      CopyConvert<T, T>(x, values.data());
      T* out = y.As<T>();
      for (size_t i = 0; i < index.size(); ++i) {
        int64_t flat = index[i];
        if (flat < 0 || flat >= unpooled_size) {
          return ctx.Error(absl::StrCat("index ", flat, " is out of range for the unpooled size ",
                                        unpooled_size));
        }
        int64_t offset = 0;
        bool inside = true;
        for (int64_t d = x.rank() - 1; d >= 0; --d) {
          const int64_t c = flat % unpooled[d];
          flat /= unpooled[d];
          inside &= c < y.dims[d];
          offset += c * y_strides[d];
        }
        if (inside) out[offset] = values[i];
      }
      return absl::OkStatus();
    });
  }

 private:
  WindowAttrs attrs_;
};

}  // namespace

KernelOr CreatePool(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(node));
  if (attrs.kernel_shape.empty()) return NodeError(node, "attribute 'kernel_shape' is required");
  for (int64_t k : attrs.kernel_shape) {
    if (k < 1) return NodeError(node, "kernel_shape values must be >= 1");
  }
  const std::string& op = node.op_type();
  const PoolKind kind = op == "MaxPool"       ? PoolKind::kMax
                        : op == "AveragePool" ? PoolKind::kAverage
                                              : PoolKind::kLp;
  const int64_t storage_order = node.GetInt("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) {
    return NodeError(node, absl::StrCat("storage_order ", storage_order, " is not 0 or 1"));
  }
  return std::unique_ptr<OpKernel>(new PoolKernel(kind, std::move(attrs),
                                                  node.GetInt("count_include_pad", 0) != 0,
                                                  storage_order, ReadP(node)));
}

KernelOr CreateGlobalPool(const Node& node, int64_t) {
  const std::string& op = node.op_type();
  const PoolKind kind = op == "GlobalMaxPool"       ? PoolKind::kMax
                        : op == "GlobalAveragePool" ? PoolKind::kAverage
                                                    : PoolKind::kLp;
  return std::unique_ptr<OpKernel>(new GlobalPoolKernel(kind, ReadP(node)));
}

KernelOr CreateMaxUnpool(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(node));
  if (attrs.kernel_shape.empty()) return NodeError(node, "attribute 'kernel_shape' is required");
  return std::unique_ptr<OpKernel>(new MaxUnpoolKernel(std::move(attrs)));
}

}  // namespace anvil::compute_ops
