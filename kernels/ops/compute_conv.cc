// The Conv and FusedConv kernels, and ConvForward (conv_internal.h), which picks the algorithm
// of every convolution but ConvTranspose: output rows that read only padding are filled
// directly; float 2-D convolutions run the direct kernels (conv_direct.h) when depthwise or with
// few input channels, the blocked direct path (conv_blocked.h, strided, a constant weight of few
// inputs and at least twice as many outputs; it fills padded rows itself), or Winograd
// (conv_winograd.h, Conv with a constant 3x3 weight only); the rest im2col + GEMM
// (conv_im2col.h). The integer convolutions (compute_conv_integer.cc) run the same code on int32
// after subtracting the zero points; ConvTranspose is compute_conv_transpose.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_blocked.h"
#include "kernels/ops/conv_direct.h"
#include "kernels/ops/conv_im2col.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/conv_winograd.h"
#include "kernels/simd/activation.h"

namespace anvil::compute_ops {
namespace {

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

class ConvKernel final : public OpKernel {
 public:
  ConvKernel(WindowAttrs attrs, int64_t group) : attrs_(std::move(attrs)), group_(group) {}

  // Prepares the Winograd path when the node's weight and attributes allow it, and widens a
  // constant float16 / bfloat16 weight and bias once (the convolution runs in float32).
  void PrepareFor(const Node& node) {
    winograd_ = PrepareWinogradWeights(node);
    // A Winograd weight read as a copy (widened from 16 bits, or gathered) is the kernel's one
    // copy; otherwise a 16-bit weight is widened here.
    if (!WinogradHoldsCopy()) widened_weight_ = ReadConstantFloats(node, 1, /*float32_too=*/false);
    widened_bias_ = ReadConstantFloats(node, 2, /*float32_too=*/false);
    blocked_ = PrepareBlockedConvWeights(node);
  }

  // The widened weight replaces the node's: its bytes may be released.
  bool KeepsOwnCopyOf(int input) const override {
    return (input == 1 && (widened_weight_.has_value() || WinogradHoldsCopy())) ||
           (input == 2 && widened_bias_.has_value());
  }
  // The widened weight and bias; a Winograd weight's own copy and its transforms.
  int64_t OwnedBytes() const override {
    int64_t bytes = 0;
    for (const auto* c : {&widened_weight_, &widened_bias_}) {
      if (c->has_value()) bytes += static_cast<int64_t>((*c)->widened.size() * sizeof(float));
    }
    if (winograd_ != nullptr) bytes += winograd_->OwnedBytes();
    if (blocked_ != nullptr) bytes += blocked_->OwnedBytes();
    return bytes;
  }

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
    ANVIL_ASSIGN_OR_RETURN(WindowGeometry g, ConvGeometry(ctx, attrs_, x, w, y));
    // A 16-bit float's activation runs on the rounded values: in the epilogue (before rounding)
    // only where that gives the same bits.
    if (epilogue != nullptr && x.type != ElementType::kFloat &&
        !simd::CommutesWithRounding(*epilogue, x.type == ElementType::kFloat16)) {
      epilogue = nullptr;
    }
    return DispatchFloat(x.type, "Conv", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x), wd, bd;
      const C* wdata = nullptr;
      const C* bdata = nullptr;
      if constexpr (std::is_same_v<C, float>) {
        if (widened_weight_.has_value() && widened_weight_->dims == w.dims) {
          wdata = widened_weight_->data;
        } else if (WinogradHoldsCopy() && winograd_->source.dims == w.dims) {
          wdata = winograd_->source.data;
        }
        if (ctx.HasInput(2) && widened_bias_.has_value() &&
            widened_bias_->dims == ctx.input(2).dims) {
          bdata = widened_bias_->data;
        }
      }
      if (wdata == nullptr) {
        if (w.data == nullptr) return ctx.Error("W's bytes were released for a widened copy");
        wd.Reset(w);
        wdata = wd.data();
      }
      if (ctx.HasInput(2) && bdata == nullptr) {
        if (ctx.input(2).data == nullptr) {
          return ctx.Error("B's bytes were released for a widened copy");
        }
        bd.Reset(ctx.input(2));
        bdata = bd.data();
      }
      DenseOutput<C> yd(y);
      if constexpr (std::is_same_v<C, float>) {
        // The prepared weights are the node's constant: their dims are checked, not their bytes.
        if (blocked_ != nullptr && w.dims[0] == blocked_->out_channels &&
            w.dims[1] == blocked_->in_channels && group_ == 1 && BlockedConvApplies(g, *blocked_)) {
          BlockedConv2D(g, x.dims[0], *blocked_, xd.data(), bdata,
                        epilogue != nullptr ? *epilogue : simd::Epilogue(), yd.data());
          if (ctx.stats() != nullptr) ++ctx.stats()->blocked_convolutions;
          *applied = epilogue != nullptr;
          yd.Commit();
          return absl::OkStatus();
        }
        if (winograd_ != nullptr && w.dims[0] == winograd_->out_channels &&
            w.dims[1] == winograd_->in_channels && group_ == 1 &&
            WinogradApplies(g, x.dims[0], *winograd_)) {
          const bool small_tiles =
              WinogradConv2D(g, x.dims[0], *winograd_, xd.data(), bdata,
                             epilogue != nullptr ? *epilogue : simd::Epilogue(), yd.data());
          if (ctx.stats() != nullptr) {
            ++ctx.stats()->winograd_convolutions;
            if (small_tiles) ++ctx.stats()->winograd_2x2_convolutions;
          }
          *applied = epilogue != nullptr;
          yd.Commit();
          return absl::OkStatus();
        }
      }
      *applied = ConvForward<C>(g, x.dims[0], x.dims[1], w.dims[0], group_, xd.data(), wdata, bdata,
                                yd.data(), epilogue);
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  bool WinogradHoldsCopy() const {
    return winograd_ != nullptr && !winograd_->source.widened.empty();
  }

  WindowAttrs attrs_;
  int64_t group_;
  std::unique_ptr<const WinogradWeights> winograd_;
  std::unique_ptr<const BlockedConvWeights> blocked_;
  std::optional<ConstantFloats> widened_weight_, widened_bias_;  // of 16-bit float constants
};

// The kernel of a Conv node, its attributes read and checked and its Winograd weight prepared.
absl::StatusOr<std::unique_ptr<ConvKernel>> MakeConvKernel(const Node& node) {
  ANVIL_ASSIGN_OR_RETURN(ConvAttrs attrs, ReadConvAttrs(node));
  auto kernel = std::make_unique<ConvKernel>(std::move(attrs.window), attrs.group);
  kernel->PrepareFor(node);
  return kernel;
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
    ANVIL_ASSIGN_OR_RETURN(kernel->conv_, MakeConvKernel(node));
    ANVIL_ASSIGN_OR_RETURN(std::optional<simd::Epilogue> epilogue, ReadFusedActivation(node));
    // HardSigmoid has no epilogue (its kernel is scalar code): it always runs after.
    if (epilogue.has_value()) kernel->epilogue_ = *epilogue;
    const std::string activation = node.GetString("activation", "");
    // (ONNX Runtime's FusedConv has no HardSwish: only Anvil's blocked Conv takes it.)
    if (activation.empty() || activation == "HardSwish") {
      return absl::UnimplementedError(absl::StrCat(node.Describe(), ": FusedConv activation '",
                                                   activation, "' is not supported"));
    }
    std::vector<float> params;
    if (const Attribute* a = node.FindAttribute("activation_params")) params = a->floats;
    // The standalone activation node, at opset 6 (Clip's bounds as attributes).
    Node* act = kernel->model_.graph().AddNode(activation);
    if (activation == "LeakyRelu") {
      act->SetAttribute(Attribute::Float("alpha", params[0]));
    } else if (activation == "HardSigmoid" || activation == "Clip") {
      const bool clip = activation == "Clip";
      act->SetAttribute(Attribute::Float(clip ? "min" : "alpha", params[0]));
      act->SetAttribute(Attribute::Float(clip ? "max" : "beta", params[1]));
    }
    act->AddInput(kernel->model_.graph().AddInput("x", Type()));
    act->AddOutput("y");
    kernel->act_node_ = act;
    ANVIL_ASSIGN_OR_RETURN(kernel->act_, CreateKernel(*act, kActivationOpset));
    return std::unique_ptr<OpKernel>(std::move(kernel));
  }

  // The Conv's widened weight and bias (float16 / bfloat16 constants) replace the node's.
  bool KeepsOwnCopyOf(int input) const override { return conv_->KeepsOwnCopyOf(input); }
  int64_t OwnedBytes() const override { return conv_->OwnedBytes(); }

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

// The paths in order of preference. Rows in the padding are split off first, and the rest is
// convolved through this function again without an epilogue, so that case reports none applied.
template <typename T>
bool ConvForward(const WindowGeometry& g, int64_t N, int64_t C, int64_t M, int64_t group,
                 const T* x, const T* w, const T* bias, T* y, const simd::Epilogue* epilogue) {
  // No output: nothing to compute (an empty batch made the batching below divide by zero).
  if (N <= 0 || M <= 0 || g.out_size <= 0) return false;
  const int64_t Cg = C / group;
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
  return Im2ColGemmConv(g, N, C, M, group, x, w, bias, y, epilogue);
}

template bool ConvForward<float>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                 const float*, const float*, const float*, float*,
                                 const simd::Epilogue*);
template bool ConvForward<double>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                  const double*, const double*, const double*, double*,
                                  const simd::Epilogue*);
template bool ConvForward<int32_t>(const WindowGeometry&, int64_t, int64_t, int64_t, int64_t,
                                   const int32_t*, const int32_t*, const int32_t*, int32_t*,
                                   const simd::Epilogue*);

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

absl::Status CheckConvBias(const KernelContext& ctx, int64_t channels, int index) {
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

absl::StatusOr<std::optional<simd::Epilogue>> ReadFusedActivation(const Node& node) {
  const std::string activation = node.GetString("activation", "");
  std::vector<float> params;
  if (const Attribute* a = node.FindAttribute("activation_params")) params = a->floats;
  const int known = simd::FusedActivationParams(activation);
  const size_t want = known > 0 ? static_cast<size_t>(known) : 0;
  simd::Epilogue e;
  std::optional<simd::Epilogue> result = e;
  if (known < 0 && (!activation.empty() || node.FindAttribute("activation") != nullptr)) {
    return absl::UnimplementedError(absl::StrCat(
        node.Describe(), ": ", node.op_type(), " activation '", activation, "' is not supported"));
  }
  if (activation == "LeakyRelu") {
    if (params.size() == want) result = simd::Epilogue{simd::Activation::kLeakyRelu, params[0], 0};
  } else if (activation == "Clip") {
    if (params.size() == want) {
      result = simd::Epilogue{simd::Activation::kClip, params[0], params[1]};
    }
  } else if (activation == "HardSigmoid") {
    result = std::nullopt;
  } else if (activation == "Relu") {
    result->activation = simd::Activation::kRelu;
  } else if (activation == "Sigmoid") {
    result->activation = simd::Activation::kSigmoid;
  } else if (activation == "Tanh") {
    result->activation = simd::Activation::kTanh;
  } else if (activation == "HardSwish") {
    result->activation = simd::Activation::kHardSwish;
  }
  if (params.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": ", node.op_type(),
                                                   " activation ", activation, " takes ", want,
                                                   " activation_params, got ", params.size()));
  }
  return result;
}

absl::StatusOr<ConvAttrs> ReadConvAttrs(const Node& node) {
  ConvAttrs attrs;
  ANVIL_ASSIGN_OR_RETURN(attrs.window, ReadWindowAttrs(node));
  attrs.group = node.GetInt("group", 1);
  if (attrs.group < 1) return NodeError(node, absl::StrCat("group ", attrs.group, " must be >= 1"));
  return attrs;
}

KernelOr CreateConv(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<ConvKernel> kernel, MakeConvKernel(node));
  return std::unique_ptr<OpKernel>(std::move(kernel));
}

KernelOr CreateFusedConv(const Node& node, int64_t) { return FusedConvKernel::Create(node); }

}  // namespace anvil::compute_ops
