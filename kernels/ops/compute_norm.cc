// Normalizations: Softmax, LogSoftmax, Hardmax, BatchNormalization (inference and training),
// InstanceNormalization, GroupNormalization, LayerNormalization, LRN. (MeanVarianceNormalization
// shares the reduction engine in compute_reduce.cc.)
//
// float runs through simd/reduce.h row routines: a softmax row is max, exp-and-sum, scale; a
// normalized row is mean, sum of squared deviations (two passes: numerically stable), then one
// fused (x - mean) * inv_std * scale + bias pass.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

template <typename C>
C MaxOf(const C* x, int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    return simd::ReduceMax(x, n);
  } else {
    C m = -std::numeric_limits<C>::infinity();
    for (int64_t i = 0; i < n; ++i) m = std::isnan(x[i]) || x[i] > m ? x[i] : m;
    return m;
  }
}

// Softmax family over one contiguous row.
template <typename C>
void SoftmaxRow(SoftmaxKind kind, const C* x, C* y, int64_t n) {
  if (kind == SoftmaxKind::kHardmax) {
    int64_t best = 0;  // the first maximum, as numpy.argmax
    for (int64_t i = 1; i < n; ++i) {
      if (x[i] > x[best]) best = i;
    }
    std::fill(y, y + n, C(0));
    if (n > 0) y[best] = C(1);
    return;
  }
  const C m = MaxOf(x, n);
  if constexpr (std::is_same_v<C, float>) {
    // Highway's Exp is only valid for finite arguments; NaN and infinities take the scalar path.
    if (std::isfinite(m)) {
      if (kind == SoftmaxKind::kSoftmax) {
        const float sum = simd::ExpShiftSum(x, m, y, n);
        simd::ScaleShift(y, 1.0f / sum, 0.0f, y, n);
      } else {
        const float sum = simd::ExpShiftSum(x, m, nullptr, n);
        simd::ScaleShift(x, 1.0f, -(m + std::log(sum)), y, n);
      }
      return;
    }
  }
  C sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - m);
  if (kind == SoftmaxKind::kSoftmax) {
    for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i] - m) / sum;
  } else {
    const C shift = m + std::log(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  }
}

// Softmax family along the middle axis of a [n, inner] block: vectorized across `inner`.
template <typename C>
void SoftmaxColumns(SoftmaxKind kind, const C* x, C* y, int64_t n, int64_t inner, std::vector<C>& m,
                    std::vector<C>& sum) {
  m.assign(x, x + inner);
  for (int64_t a = 1; a < n; ++a) {
    const C* row = x + a * inner;
    for (int64_t j = 0; j < inner; ++j) {
      if (kind == SoftmaxKind::kHardmax) {
        m[j] = row[j] > m[j] ? row[j] : m[j];
      } else {
        m[j] = std::isnan(row[j]) || row[j] > m[j] ? row[j] : m[j];
      }
    }
  }
  if (kind == SoftmaxKind::kHardmax) {
    std::vector<bool> done(inner, false);
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t j = 0; j < inner; ++j) {
        const bool hit = !done[j] && x[a * inner + j] == m[j];
        y[a * inner + j] = hit ? C(1) : C(0);
        if (hit) done[j] = true;
      }
    }
    return;
  }
  bool finite = true;
  for (const C& v : m) finite &= std::isfinite(v);
  sum.assign(inner, C(0));
  for (int64_t a = 0; a < n; ++a) {
    const C* xr = x + a * inner;
    C* yr = y + a * inner;
    if constexpr (std::is_same_v<C, float>) {
      if (finite) {
        simd::ExpSub(xr, m.data(), yr, inner);
        simd::AccumulateSum(sum.data(), yr, inner);
        continue;
      }
    }
    for (int64_t j = 0; j < inner; ++j) {
      yr[j] = std::exp(xr[j] - m[j]);
      sum[j] += yr[j];
    }
  }
  if (kind == SoftmaxKind::kSoftmax) {
    for (C& s : sum) s = C(1) / s;
    for (int64_t a = 0; a < n; ++a) {
      C* yr = y + a * inner;
      if constexpr (std::is_same_v<C, float>) {
        simd::Multiply(yr, sum.data(), yr, inner);
      } else {
        for (int64_t j = 0; j < inner; ++j) yr[j] *= sum[j];
      }
    }
  } else {
    for (int64_t j = 0; j < inner; ++j) sum[j] = m[j] + std::log(sum[j]);
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t j = 0; j < inner; ++j) y[a * inner + j] = x[a * inner + j] - sum[j];
    }
  }
}

// Before opset 13 the input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (default
// axis 1); from 13 the op runs along the one `axis` (default -1).
class SoftmaxKernel final : public OpKernel {
 public:
  SoftmaxKernel(SoftmaxKind kind, int64_t axis, bool flatten)
      : kind_(kind), axis_(axis), flatten_(flatten) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    const int64_t rank = x.rank();
    if (rank == 0) return ctx.Error("input must have rank >= 1");
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.node(), axis_, rank));
    const int64_t outer = Product(x.dims, 0, axis);
    const int64_t n = flatten_ ? Product(x.dims, axis) : x.dims[axis];
    const int64_t inner = flatten_ ? 1 : Product(x.dims, axis + 1);
    return DispatchFloat(x.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      // Nothing to normalize (and no first row to start the column maxima from: an empty axis
      // with columns left was read past the end; the model fuzzer found it).
      if (outer == 0 || n == 0 || inner == 0) return absl::OkStatus();
      DenseInput<C> xd(x);
      DenseOutput<C> yd(y);
      const double block = static_cast<double>(n) * static_cast<double>(inner);
      parallel::For(outer, parallel::MinChunk(block, parallel::kMinChunkElements),
                    [&](int64_t begin, int64_t end) {
                      std::vector<C> m, sum;
                      for (int64_t o = begin; o < end; ++o) {
                        const C* xo = xd.data() + o * n * inner;
                        C* yo = yd.data() + o * n * inner;
                        if (inner == 1) {
                          SoftmaxRow<C>(kind_, xo, yo, n);
                        } else {
                          SoftmaxColumns<C>(kind_, xo, yo, n, inner, m, sum);
                        }
                      }
                    });
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  SoftmaxKind kind_;
  int64_t axis_;
  bool flatten_;
};

// mean and population variance of x[0, n).
template <typename C>
void MeanVar(const C* x, int64_t n, C* mean, C* var) {
  if (n == 0) {
    *mean = C(0);
    *var = C(0);
    return;
  }
  if constexpr (std::is_same_v<C, float>) {
    *mean = simd::ReduceSum(x, n) / static_cast<float>(n);
    *var = simd::ReduceSumSquaredDiff(x, *mean, n) / static_cast<float>(n);
  } else {
    C s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[i];
    const C m = s / static_cast<C>(n);
    C ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += (x[i] - m) * (x[i] - m);
    *mean = m;
    *var = ss / static_cast<C>(n);
  }
}

// y = x * a + b.
template <typename C>
void ScaleShiftRow(const C* x, C a, C b, C* y, int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    simd::ScaleShift(x, a, b, y, n);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * a + b;
  }
}

// BatchNormalization. Inference: y = (x - mean) / sqrt(var + eps) * scale + B per channel.
// Training (training_mode from opset 14; before, whenever a statistics output is requested):
// the batch's mean and population variance normalize, and the running statistics are
// input * momentum + batch * (1 - momentum). Before opset 9, spatial = 0 keeps one statistic per
// element of C x D1 x ... rather than per channel.
class BatchNormKernel final : public OpKernel {
 public:
  BatchNormKernel(int64_t opset, float epsilon, float momentum, bool training_mode, bool spatial)
      : opset_(opset),
        epsilon_(epsilon),
        momentum_(momentum),
        training_mode_(training_mode),
        spatial_(spatial) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    const int64_t N = x.rank() >= 1 ? x.dims[0] : 1;
    const int64_t channels = spatial_ ? (x.rank() >= 2 ? x.dims[1] : 1) : Product(x.dims, 1);
    const int64_t inner = spatial_ ? Product(x.dims, 2) : 1;
    bool training = training_mode_;
    if (opset_ < 14) {
      for (int i = 1; i <= 4; ++i) training |= ctx.HasOutput(i);
    }
    for (int i = 1; i <= 4; ++i) {
      if (ctx.input(i).NumElements() != channels) {
        return ctx.Error(absl::StrCat("input ", i, " ", ctx.input(i).DebugString(), " must have ",
                                      channels, " values"));
      }
    }
    return DispatchFloat(x.type, "BatchNormalization", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), scale(ctx.input(1)), bias(ctx.input(2)), mean(ctx.input(3)),
          var(ctx.input(4));
      DenseOutput<C> yd(y);
      std::vector<C> batch_mean(channels), batch_var(channels);
      if (training) {
        for (int64_t c = 0; c < channels; ++c) {
          // Two passes over the channel's N planes: sum, then squared deviations.
          C s = 0;
          for (int64_t n = 0; n < N; ++n) {
            const C* p = xd.data() + (n * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i) s += p[i];
          }
          const C count = static_cast<C>(N * inner);
          const C m = count > 0 ? s / count : C(0);
          C ss = 0;
          for (int64_t n = 0; n < N; ++n) {
            const C* p = xd.data() + (n * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i) ss += (p[i] - m) * (p[i] - m);
          }
          batch_mean[c] = m;
          batch_var[c] = count > 0 ? ss / count : C(0);
        }
      }
      const C* use_mean = training ? batch_mean.data() : mean.data();
      const C* use_var = training ? batch_var.data() : var.data();
      for (int64_t c = 0; c < channels; ++c) {
        const C a = scale.data()[c] / std::sqrt(use_var[c] + static_cast<C>(epsilon_));
        const C b = bias.data()[c] - use_mean[c] * a;
        for (int64_t n = 0; n < N; ++n) {
          const int64_t offset = (n * channels + c) * inner;
          ScaleShiftRow<C>(xd.data() + offset, a, b, yd.data() + offset, inner);
        }
      }
      yd.Commit();
      if (training) {
        const C mom = static_cast<C>(momentum_);
        for (int i = 1; i <= 4; ++i) {
          if (!ctx.HasOutput(i)) continue;
          ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, i, channels));
        }
        auto write = [&](int i, auto value) {
          if (!ctx.HasOutput(i)) return;
          DenseOutput<C> out(ctx.output(i));
          for (int64_t c = 0; c < channels; ++c) out.data()[c] = value(c);
          out.Commit();
        };
        write(1, [&](int64_t c) { return mean.data()[c] * mom + batch_mean[c] * (1 - mom); });
        write(2, [&](int64_t c) { return var.data()[c] * mom + batch_var[c] * (1 - mom); });
        write(3, [&](int64_t c) { return batch_mean[c]; });
        write(4, [&](int64_t c) { return batch_var[c]; });
      }
      return absl::OkStatus();
    });
  }

 private:
  int64_t opset_;
  float epsilon_;
  float momentum_;
  bool training_mode_;
  bool spatial_;
};

// GroupNormalization: channels in `groups` runs of C / groups; per (n, group) block,
// y = (x - mean) / sqrt(var + eps) * scale + bias, with scale and bias per channel (opset 21) or
// per group (opset 18, deprecated). Statistics in float for float16 (stash_type 1, the default).
// InstanceNormalization is the case of one group per channel (groups 0 here).
class GroupNormKernel final : public OpKernel {
 public:
  GroupNormKernel(int64_t groups, float epsilon, bool per_channel)
      : groups_(groups), epsilon_(epsilon), per_channel_(per_channel) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    if (x.rank() < 2) return ctx.Error("X must be [N, C, spatial...]");
    const int64_t N = x.dims[0], channels = x.dims[1], inner = Product(x.dims, 2);
    const int64_t groups = groups_ > 0 ? groups_ : channels;
    const int64_t params = per_channel_ ? channels : groups;
    if (ctx.input(1).NumElements() != params || ctx.input(2).NumElements() != params) {
      return ctx.Error(absl::StrCat("scale ", ctx.input(1).DebugString(), " and bias ",
                                    ctx.input(2).DebugString(), " must have ", params, " values (",
                                    per_channel_ ? "one per channel" : "one per group", ")"));
    }
    if (groups == 0) return absl::OkStatus();  // no channels: nothing to normalize
    if (channels % groups != 0) {
      return ctx.Error(absl::StrCat(channels, " channels of X ", x.DebugString(),
                                    " do not split into ", groups, " groups"));
    }
    const int64_t per_group = channels / groups;
    return DispatchFloat(x.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), scale(ctx.input(1)), bias(ctx.input(2));
      DenseOutput<C> yd(ctx.output(0));
      parallel::For(
          N * groups,
          parallel::MinChunk(static_cast<double>(per_group * inner), parallel::kMinChunkElements),
          [&](int64_t begin, int64_t end) {
            for (int64_t ng = begin; ng < end; ++ng) {
              const int64_t g = ng % groups;
              const int64_t offset = ng * per_group * inner;
              C mean, var;
              MeanVar<C>(xd.data() + offset, per_group * inner, &mean, &var);
              const C sd = std::sqrt(var + static_cast<C>(epsilon_));
              for (int64_t k = 0; k < per_group; ++k) {
                const int64_t p = per_channel_ ? g * per_group + k : g;
                const C a = scale.data()[p] / sd;
                ScaleShiftRow<C>(xd.data() + offset + k * inner, a, bias.data()[p] - mean * a,
                                 yd.data() + offset + k * inner, inner);
              }
            }
          });
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  int64_t groups_;
  float epsilon_;
  bool per_channel_;
};

// LayerNormalization-17: normalizes over dims [axis, rank); Scale and B broadcast to those
// dims; the optional Mean and InvStdDev outputs (stash_type) keep the reduced dims as 1s.
class LayerNormKernel final : public OpKernel {
 public:
  LayerNormKernel(int64_t axis, float epsilon) : axis_(axis), epsilon_(epsilon) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.node(), axis_, x.rank()));
    const int64_t outer = Product(x.dims, 0, axis);
    const int64_t n = Product(x.dims, axis);
    const Shape norm_dims(x.dims.begin() + axis, x.dims.end());
    ANVIL_ASSIGN_OR_RETURN(const TensorView scale_view, NormalizationParameter(ctx, 1, norm_dims));
    TensorView bias_view;
    const bool has_bias = ctx.HasInput(2);
    if (has_bias) {
      ANVIL_ASSIGN_OR_RETURN(bias_view, NormalizationParameter(ctx, 2, norm_dims));
    }
    return DispatchFloat(x.type, "LayerNormalization", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), scale(scale_view), bias;
      if (has_bias) bias.Reset(bias_view);
      DenseOutput<C> yd(ctx.output(0));
      std::vector<C> means(outer), inv_stds(outer);
      const C* b = has_bias ? bias.data() : nullptr;
      parallel::For(outer, parallel::MinChunk(n, parallel::kMinChunkElements),
                    [&](int64_t begin, int64_t end) {
                      if constexpr (std::is_same_v<C, float>) {
                        simd::LayerNormRows(xd.data() + begin * n, end - begin, n, epsilon_,
                                            scale.data(), b, yd.data() + begin * n,
                                            means.data() + begin, inv_stds.data() + begin);
                      } else {
                        for (int64_t o = begin; o < end; ++o) {
                          const C* xr = xd.data() + o * n;
                          C* yr = yd.data() + o * n;
                          C mean, var;
                          MeanVar<C>(xr, n, &mean, &var);
                          const C inv = C(1) / std::sqrt(var + static_cast<C>(epsilon_));
                          means[o] = mean;
                          inv_stds[o] = inv;
                          for (int64_t i = 0; i < n; ++i) {
                            yr[i] = (xr[i] - mean) * inv * scale.data()[i] +
                                    (b != nullptr ? b[i] : C(0));
                          }
                        }
                      }
                    });
      yd.Commit();
      for (auto [i, values] : {std::pair(1, &means), std::pair(2, &inv_stds)}) {
        if (!ctx.HasOutput(i)) continue;
        ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, i, outer));
        DenseOutput<C> out(ctx.output(i));
        std::copy(values->begin(), values->end(), out.data());
        out.Commit();
      }
      return absl::OkStatus();
    });
  }

 private:
  int64_t axis_;
  float epsilon_;
};

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channel window)^beta, the window
// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] clipped to the channels.
class LrnKernel final : public OpKernel {
 public:
  LrnKernel(int64_t size, float alpha, float beta, float bias)
      : size_(size), alpha_(alpha), beta_(beta), bias_(bias) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    if (x.rank() < 2) return ctx.Error("input must be [N, C, spatial...]");
    const int64_t N = x.dims[0], channels = x.dims[1], inner = Product(x.dims, 2);
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    return DispatchFloat(x.type, "LRN", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x);
      DenseOutput<C> yd(ctx.output(0));
      std::vector<C> squares(channels * inner), window(inner);
      const C scale = static_cast<C>(alpha_) / static_cast<C>(size_);
      for (int64_t n = 0; n < N; ++n) {
        const C* xn = xd.data() + n * channels * inner;
        C* yn = yd.data() + n * channels * inner;
        for (int64_t i = 0; i < channels * inner; ++i) squares[i] = xn[i] * xn[i];
        for (int64_t c = 0; c < channels; ++c) {
          std::fill(window.begin(), window.end(), C(0));
          const int64_t lo = std::max<int64_t>(0, c - before);
          const int64_t hi = std::min<int64_t>(channels - 1, c + after);
          for (int64_t k = lo; k <= hi; ++k) {
            const C* sq = squares.data() + k * inner;
            for (int64_t i = 0; i < inner; ++i) window[i] += sq[i];
          }
          for (int64_t i = 0; i < inner; ++i) {
            yn[c * inner + i] =
                xn[c * inner + i] /
                std::pow(static_cast<C>(bias_) + scale * window[i], static_cast<C>(beta_));
          }
        }
      }
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  int64_t size_;
  float alpha_, beta_, bias_;
};

}  // namespace

void SoftmaxRowFloat(const float* x, float* y, int64_t n) {
  SoftmaxRow<float>(SoftmaxKind::kSoftmax, x, y, n);
}

void SoftcapScores(float* x, int64_t n, float cap) {
  if (cap <= 0.0f) return;
  for (int64_t i = 0; i < n; ++i) x[i] = cap * std::tanh(x[i] / cap);
}

KernelOr CreateSoftmax(const Node& node, int64_t opset) {
  const std::string& op = node.op_type();
  const SoftmaxKind kind = op == "Softmax"      ? SoftmaxKind::kSoftmax
                           : op == "LogSoftmax" ? SoftmaxKind::kLogSoftmax
                                                : SoftmaxKind::kHardmax;
  const bool flatten = opset < 13;
  return std::unique_ptr<OpKernel>(
      new SoftmaxKernel(kind, node.GetInt("axis", flatten ? 1 : -1), flatten));
}

KernelOr CreateBatchNormalization(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(
      new BatchNormKernel(opset, node.GetFloat("epsilon", 1e-5f), node.GetFloat("momentum", 0.9f),
                          opset >= 14 && node.GetInt("training_mode", 0) != 0,
                          opset >= 9 || node.GetInt("spatial", 1) != 0));
}

KernelOr CreateInstanceNormalization(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(
      new GroupNormKernel(/*groups=*/0, node.GetFloat("epsilon", 1e-5f), /*per_channel=*/true));
}

KernelOr CreateGroupNormalization(const Node& node, int64_t opset) {
  const int64_t groups = node.GetInt("num_groups", 0);
  if (groups < 1) return NodeError(node, absl::StrCat("num_groups ", groups, " must be >= 1"));
  if (opset >= 21 && node.GetInt("stash_type", 1) != 1) {
    return absl::UnimplementedError(absl::StrCat(node.Describe(), ": stash_type ",
                                                 node.GetInt("stash_type", 1),
                                                 " is not supported (1, float statistics, is)"));
  }
  return std::unique_ptr<OpKernel>(
      new GroupNormKernel(groups, node.GetFloat("epsilon", 1e-5f), opset >= 21));
}

KernelOr CreateLayerNormalization(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(
      new LayerNormKernel(node.GetInt("axis", -1), node.GetFloat("epsilon", 1e-5f)));
}

KernelOr CreateLrn(const Node& node, int64_t) {
  const int64_t size = node.GetInt("size", 0);
  if (size < 1) return NodeError(node, "attribute 'size' must be >= 1");
  return std::unique_ptr<OpKernel>(new LrnKernel(size, node.GetFloat("alpha", 1e-4f),
                                                 node.GetFloat("beta", 0.75f),
                                                 node.GetFloat("bias", 1.0f)));
}

}  // namespace anvil::compute_ops
