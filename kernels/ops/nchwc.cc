// The com.anvil.nchwc family: the blocked channel layout's ops that the nchwc pass
// (kernels/nchwc_layout.h) puts around chains of depthwise and pointwise convolutions.
//
//   ReorderInput  <block>            X [N, C, spatial...]  -> Y blocked [N, ceil(C / B) * B, ...]
//   ReorderOutput <block, channels>  X blocked [N, Cp, ...] -> Y [N, channels, ...]
//   Conv <block, Conv's attributes, activation, activation_params>(X, W, B?, Sum?)
//       X blocked, W and B in ONNX's layout (float32 or float16 constants, packed once here as
//       float32), Sum (optional) a blocked tensor of Y's shape added before the activation;
//       Y blocked.
//   GlobalAveragePool <block>        X blocked [N, Cp, H, W] -> Y blocked [N, Cp, 1, 1]
//   Mul <block>                      X blocked [N, Cp, H, W] times S blocked [N, Cp, 1, 1]
//                                    (a per-channel scale) -> Y blocked [N, Cp, H, W]
//   MaxPool <block, kernel_shape, strides, pads>  no dilation, pads smaller than the window;
//                                    X, Y blocked
//   Pad <block, input_channels, channels>   zero channels appended: X blocked (of
//                                    input_channels) -> Y blocked (of channels)
//
// A blocked tensor of C channels holds, per image, [ceil(C / B)][pixels][B] floats
// (simd/nchwc.h) and is typed [N, ceil(C / B) * B, spatial...]: padded lanes are part of the
// tensor, so same-shape element-wise ops (Add, Relu, ...) run on it unchanged. B is `block`, which
// must be this CPU's NchwcBlock(): a model blocked on another machine is refused with an error
// naming both.
//
// Conv covers the forms the blocked kernels compute: depthwise (group = C = M, square 3x3 or 5x5
// kernel, stride 1 or 2, no dilation), pointwise (1x1, stride 1, no pads, group 1), and with
// `planar_input` = 1 a dense convolution (group 1, no dilation) whose X is NCHW, not blocked (a
// network's first layer: few input channels). Its
// results are those of the blocked kernels: a depthwise layer gives the bits of the NCHW
// depthwise kernels; a pointwise layer sums input channels in order with FMAs, so it differs from
// the GEMM's blocked order in the last bits.
#include "kernels/simd/nchwc.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/kernel_rules.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"

namespace anvil::compute_ops {
namespace {

// The node's `block`, checked against the CPU's.
absl::StatusOr<int64_t> ReadBlock(const Node& node) {
  const int64_t block = node.GetInt("block", 0);
  if (block != simd::NchwcBlock()) {
    return absl::InvalidArgumentError(absl::StrCat(
        node.Describe(), ": blocked for ", block, " channels per vector, but this CPU's vectors ",
        "hold ", simd::NchwcBlock(), " (the nchwc pass ran on another machine: run it here)"));
  }
  return block;
}

// [N, C, spatial...] float32 input of a reorder, as N, C and the pixels per image.
absl::Status CheckReorderInput(const KernelContext& ctx, const TensorView& x) {
  if (x.type != ElementType::kFloat) {
    return ctx.Error(absl::StrCat("X ", x.DebugString(), " must be float32"));
  }
  if (x.rank() < 2) return ctx.Error(absl::StrCat("X ", x.DebugString(), " must have rank >= 2"));
  return absl::OkStatus();
}

// Pixels per unit of a pointwise layer split by pixels: whole tiles of the kernel's 6 and 8.
constexpr int64_t kPixelUnit = 48;

// Splits the (image, block) pairs of `images` images of `blocks` blocks across threads (each pair
// `work` units of work, chunks of at least `min_work`) and calls fn(n, b0, b1) for the blocks
// [b0, b1) of image n that a chunk holds.
template <typename Fn>
void ForEachBlockRange(int64_t images, int64_t blocks, double work, double min_work, Fn&& fn) {
  parallel::For(images * blocks, parallel::MinChunk(work, min_work),
                [&](int64_t begin, int64_t end) {
                  for (int64_t i = begin; i < end;) {
                    const int64_t n = i / blocks, b0 = i % blocks;
                    const int64_t b1 = std::min(blocks, b0 + (end - i));
                    fn(n, b0, b1);
                    i += b1 - b0;
                  }
                });
}

// A blocked [N, C, H, W] float32 input: C a multiple of the block.
absl::Status CheckBlocked(const KernelContext& ctx, const TensorView& x, int64_t block) {
  if (x.type != ElementType::kFloat || x.rank() != 4 || x.dims[1] % block != 0) {
    return ctx.Error(absl::StrCat("blocked X ", x.DebugString(), " must be float32 [N, C, H, W]",
                                  " with C a multiple of ", block));
  }
  return absl::OkStatus();
}

int64_t Pixels(const TensorView& x) {
  int64_t pixels = 1;
  for (int64_t i = 2; i < x.rank(); ++i) pixels *= x.dims[i];
  return pixels;
}

class ReorderKernel final : public OpKernel {
 public:
  ReorderKernel(bool to_blocked, int64_t block, int64_t channels)
      : to_blocked_(to_blocked), block_(block), channels_(channels) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckReorderInput(ctx, x));
    const int64_t B = block_;
    const int64_t N = x.dims[0], pixels = Pixels(x);
    const int64_t channels = to_blocked_ ? x.dims[1] : channels_;
    const int64_t blocks = (channels + B - 1) / B;
    const int64_t blocked = to_blocked_ ? blocks * B : x.dims[1];
    if (!to_blocked_ && blocked != blocks * B) {
      return ctx.Error(absl::StrCat("blocked X ", x.DebugString(), " does not hold ", channels,
                                    " channels in blocks of ", B));
    }
    DenseInput<float> xd(x);
    float* y = ctx.output(0).As<float>();
    const int64_t in_image = (to_blocked_ ? channels : blocked) * pixels;
    const int64_t out_image = (to_blocked_ ? blocked : channels) * pixels;
    ForEachBlockRange(N, blocks, static_cast<double>(pixels * B), parallel::kMinChunkElements,
                      [&](int64_t n, int64_t b0, int64_t b1) {
                        const int64_t c0 = b0 * B, count = std::min(channels, b1 * B) - c0;
                        const float* src = xd.data() + n * in_image + c0 * pixels;
                        float* dst = y + n * out_image + c0 * pixels;
                        if (to_blocked_) {
                          simd::ReorderToBlocked(src, count, pixels, dst);
                        } else {
                          simd::ReorderFromBlocked(src, count, pixels, dst);
                        }
                      });
    return absl::OkStatus();
  }

 private:
  bool to_blocked_;
  int64_t block_;
  int64_t channels_;
};

KernelOr CreateReorder(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(const int64_t block, ReadBlock(node));
  const bool to_blocked = node.op_type() == "ReorderInput";
  const int64_t channels = node.GetInt("channels", -1);
  if (!to_blocked && channels < 0) {
    return NodeError(node, "attribute 'channels' (>= 0) is required");
  }
  return std::unique_ptr<OpKernel>(new ReorderKernel(to_blocked, block, channels));
}

// GlobalAveragePool and Mul: per-channel ops over the pixels of a blocked [N, Cp, H, W].
class ChannelKernel final : public OpKernel {
 public:
  ChannelKernel(bool scale, int64_t block) : scale_(scale), block_(block) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const int64_t B = block_;
    ANVIL_RETURN_IF_ERROR(CheckBlocked(ctx, x, B));
    const int64_t N = x.dims[0], blocks = x.dims[1] / B, pixels = x.dims[2] * x.dims[3];
    DenseInput<float> xd(x), sd;
    if (scale_) {
      const TensorView& s = ctx.input(1);
      if (s.type != ElementType::kFloat || s.dims != Shape{x.dims[0], x.dims[1], 1, 1}) {
        return ctx.Error(absl::StrCat("S ", s.DebugString(), " must be float32 [", x.dims[0], ", ",
                                      x.dims[1], ", 1, 1] for X ", x.DebugString()));
      }
      sd.Reset(s);
    }
    float* y = ctx.output(0).As<float>();
    const int64_t image = blocks * pixels * B;
    ForEachBlockRange(N, blocks, static_cast<double>(pixels * B), parallel::kMinChunkElements,
                      [&](int64_t n, int64_t b0, int64_t b1) {
                        const float* xb = xd.data() + n * image + b0 * pixels * B;
                        if (scale_) {
                          simd::BlockedScaleChannels(xb, sd.data() + (n * blocks + b0) * B, b1 - b0,
                                                     pixels, y + n * image + b0 * pixels * B);
                        } else {
                          simd::BlockedGlobalAveragePool(xb, b1 - b0, pixels,
                                                         y + (n * blocks + b0) * B);
                        }
                      });
    return absl::OkStatus();
  }

 private:
  bool scale_;
  int64_t block_;
};

KernelOr CreateChannelOp(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(const int64_t block, ReadBlock(node));
  return std::unique_ptr<OpKernel>(new ChannelKernel(node.op_type() == "Mul", block));
}

// MaxPool and the channel Pad: blocked in, blocked out, image by image and block by block.
class BlockedLayoutKernel final : public OpKernel {
 public:
  static KernelOr Create(const Node& node, int64_t) {
    auto kernel = std::unique_ptr<BlockedLayoutKernel>(new BlockedLayoutKernel());
    ANVIL_ASSIGN_OR_RETURN(kernel->block_, ReadBlock(node));
    kernel->pad_ = node.op_type() == "Pad";
    if (kernel->pad_) {
      kernel->in_channels_ = node.GetInt("input_channels", -1);
      kernel->out_channels_ = node.GetInt("channels", -1);
      if (kernel->in_channels_ < 0 || kernel->out_channels_ < kernel->in_channels_) {
        return NodeError(node, "attributes 'input_channels' >= 0 and 'channels' >= it required");
      }
      return std::unique_ptr<OpKernel>(std::move(kernel));
    }
    const std::vector<int64_t> k = node.GetInts("kernel_shape");
    std::vector<int64_t> s = node.GetInts("strides");
    if (s.empty()) s = {1, 1};
    if (k.size() != 2 || s.size() != 2 || k[0] < 1 || k[1] < 1 || s[0] < 1 || s[1] < 1) {
      return NodeError(node, "a blocked MaxPool takes 2-D kernel_shape and strides (>= 1)");
    }
    std::vector<int64_t> p = node.GetInts("pads");
    if (p.empty()) p = {0, 0, 0, 0};
    if (p.size() != 4 || p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0 || p[0] >= k[0] ||
        p[2] >= k[0] || p[1] >= k[1] || p[3] >= k[1]) {
      return NodeError(node, "a blocked MaxPool takes 4 pads (>= 0, smaller than the window)");
    }
    kernel->kernel_ = {k[0], k[1]};
    kernel->strides_ = {s[0], s[1]};
    kernel->pads_ = {p[0], p[1], p[2], p[3]};
    return std::unique_ptr<OpKernel>(std::move(kernel));
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    const int64_t B = block_;
    ANVIL_RETURN_IF_ERROR(CheckBlocked(ctx, x, B));
    const int64_t N = x.dims[0], H = x.dims[2], W = x.dims[3];
    const int64_t OH = y.dims[2], OW = y.dims[3];
    const int64_t in_blocks = x.dims[1] / B, out_blocks = y.dims[1] / B;
    DenseInput<float> xd(x);
    float* out = y.As<float>();
    if (pad_) {
      if (in_blocks != (in_channels_ + B - 1) / B) {
        return ctx.Error(absl::StrCat("blocked X ", x.DebugString(), " does not hold ",
                                      in_channels_, " channels in blocks of ", B));
      }
      const int64_t pixels = H * W;
      parallel::For(N, 1, [&](int64_t begin, int64_t end) {
        for (int64_t n = begin; n < end; ++n) {
          simd::BlockedPadChannels(xd.data() + n * in_blocks * pixels * B, in_channels_, pixels,
                                   out + n * out_blocks * pixels * B, out_blocks);
        }
      });
      return absl::OkStatus();
    }
    if (OH < 1 || OW < 1 || (OH - 1) * strides_[0] + kernel_[0] > H + pads_[0] + pads_[2] ||
        (OW - 1) * strides_[1] + kernel_[1] > W + pads_[1] + pads_[3]) {
      return ctx.Error(absl::StrCat("Y ", y.DebugString(), " does not fit the windows over X ",
                                    x.DebugString()));
    }
    ForEachBlockRange(N, in_blocks, static_cast<double>(OH * OW * B), parallel::kMinChunkElements,
                      [&](int64_t n, int64_t b0, int64_t b1) {
                        simd::BlockedMaxPool(xd.data() + (n * in_blocks + b0) * H * W * B, b1 - b0,
                                             H, W, kernel_[0], kernel_[1], strides_[0], strides_[1],
                                             pads_[0], pads_[1],
                                             out + (n * in_blocks + b0) * OH * OW * B, OH, OW);
                      });
    return absl::OkStatus();
  }

 private:
  BlockedLayoutKernel() = default;
  int64_t block_ = 0;
  bool pad_ = false;
  int64_t in_channels_ = 0, out_channels_ = 0;
  std::array<int64_t, 2> kernel_{}, strides_{};
  std::array<int64_t, 4> pads_{};  // top, left, bottom, right
};

class NchwcConvKernel final : public OpKernel {
 public:
  static KernelOr Create(const Node& node) {
    auto kernel = std::unique_ptr<NchwcConvKernel>(new NchwcConvKernel());
    ANVIL_ASSIGN_OR_RETURN(kernel->block_, ReadBlock(node));
    ANVIL_ASSIGN_OR_RETURN(ConvAttrs attrs, ReadConvAttrs(node));
    ANVIL_ASSIGN_OR_RETURN(std::optional<simd::Epilogue> epilogue, ReadFusedActivation(node));
    if (!epilogue.has_value()) {
      return absl::UnimplementedError(
          absl::StrCat(node.Describe(), ": blocked Conv activation HardSigmoid is not supported"));
    }
    kernel->epilogue_ = *epilogue;
    kernel->attrs_ = std::move(attrs.window);
    kernel->group_ = attrs.group;
    ANVIL_RETURN_IF_ERROR(kernel->PackWeights(node));
    return std::unique_ptr<OpKernel>(std::move(kernel));
  }

  bool KeepsOwnCopyOf(int input) const override { return input == 1 || input == 2; }
  int64_t OwnedBytes() const override {
    return static_cast<int64_t>((weights_.size() + bias_.size()) * sizeof(float));
  }

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    const int64_t B = block_;
    if (planar_) return ComputePlanar(ctx, x, y);
    if (x.type != ElementType::kFloat || x.rank() != 4 || x.dims[1] != in_blocks_ * B) {
      return ctx.Error(absl::StrCat("blocked X ", x.DebugString(), " must be float32 [N, ",
                                    in_blocks_ * B, ", H, W]"));
    }
    const int64_t N = x.dims[0], H = x.dims[2], W = x.dims[3];
    const int64_t OH = y.dims[2], OW = y.dims[3];
    const float* sum = nullptr;
    DenseInput<float> sd;
    if (ctx.HasInput(3)) {
      const TensorView& s = ctx.input(3);
      if (s.type != ElementType::kFloat || s.dims != y.dims) {
        return ctx.Error(absl::StrCat("Sum ", s.DebugString(), " must be float32 of Y's dims ",
                                      y.DebugString()));
      }
      sd.Reset(s);
      sum = sd.data();
    }
    DenseInput<float> xd(x);
    const float* bias = has_bias_ ? bias_.data() : nullptr;
    float* out = y.As<float>();
    const int64_t in_image = in_blocks_ * B * H * W, out_image = out_blocks_ * B * OH * OW;
    if (depthwise_) {
      if (sum != nullptr) return ctx.Error("a depthwise blocked Conv takes no Sum");
      ANVIL_ASSIGN_OR_RETURN(
          WindowGeometry g,
          ResolveWindow(ctx.node(), attrs_, Shape{H, W}, Shape{OH, OW}, Shape{kernel_, kernel_}));
      const int64_t taps = kernel_ * kernel_;
      const int64_t scratch_size = simd::BlockedDepthwiseScratchSize(kernel_, g.strides[0], OH, OW);
      const double block_work = static_cast<double>(OH * OW * taps * B);
      ForEachBlockRange(N, in_blocks_, block_work, parallel::kMinChunkElements,
                        [&](int64_t n, int64_t b0, int64_t b1) {
                          ScratchBuffers scratch;
                          simd::BlockedDepthwiseConv(
                              xd.data() + n * in_image + b0 * H * W * B, b1 - b0, H, W, kernel_,
                              g.strides[0], g.pad_begin[0], g.pad_begin[1],
                              weights_.data() + b0 * taps * B,
                              bias != nullptr ? bias + b0 * B : nullptr, epilogue_,
                              out + n * out_image + b0 * OH * OW * B, OH, OW,
                              scratch.Get<float>(0, scratch_size));
                        });
      return absl::OkStatus();
    }
    if (OH != H || OW != W) {
      return ctx.Error(absl::StrCat("a pointwise blocked Conv keeps the pixels: X ",
                                    x.DebugString(), ", Y ", y.DebugString()));
    }
    const int64_t pixels = H * W;
    const int64_t w_block = in_blocks_ * B * B;  // one output block's packed weights
    const double block_flops = 2.0 * static_cast<double>(pixels * w_block);
    // A batch-1 layer of one or two output blocks (a projection to 16-32 channels at 112x112)
    // has too few (image, block) pairs for the threads, and a chunk of one block loses the
    // kernel's pairing of two (which halves its broadcasts): it splits its pixels instead,
    // every output block per chunk, when each chunk gets several units of them.
    const int64_t pixel_units = (pixels + kPixelUnit - 1) / kPixelUnit;
    const int64_t pixel_min = parallel::MinChunk(
        2.0 * static_cast<double>(kPixelUnit * w_block * out_blocks_), parallel::kMinChunkFlops);
    const int64_t pixel_chunks = parallel::ChunkCount(N * pixel_units, pixel_min);
    const int64_t block_chunks = parallel::ChunkCount(
        N * out_blocks_, parallel::MinChunk(block_flops, parallel::kMinChunkFlops));
    if (pixel_chunks > block_chunks ||
        (pixel_chunks == block_chunks && block_chunks > 1 && N * out_blocks_ < 2 * block_chunks &&
         N * pixel_units >= 4 * pixel_chunks)) {
      parallel::For(N * pixel_units, pixel_min, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end;) {
          const int64_t n = i / pixel_units, u0 = i % pixel_units;
          const int64_t u1 = std::min(pixel_units, u0 + (end - i));
          const int64_t offset = n * out_image;
          simd::BlockedPointwiseConv(xd.data() + n * in_image, in_channels_, pixels,
                                     weights_.data(), bias, sum != nullptr ? sum + offset : nullptr,
                                     epilogue_, out + offset, out_blocks_, u0 * kPixelUnit,
                                     std::min(pixels, u1 * kPixelUnit));
          i += u1 - u0;
        }
      });
      return absl::OkStatus();
    }
    ForEachBlockRange(N, out_blocks_, block_flops, parallel::kMinChunkFlops,
                      [&](int64_t n, int64_t o0, int64_t o1) {
                        const int64_t offset = n * out_image + o0 * pixels * B;
                        simd::BlockedPointwiseConv(xd.data() + n * in_image, in_channels_, pixels,
                                                   weights_.data() + o0 * w_block,
                                                   bias != nullptr ? bias + o0 * B : nullptr,
                                                   sum != nullptr ? sum + offset : nullptr,
                                                   epilogue_, out + offset, o1 - o0);
                      });
    return absl::OkStatus();
  }

 private:
  NchwcConvKernel() = default;

  absl::Status ComputePlanar(KernelContext& ctx, const TensorView& x, TensorView& y) {
    const int64_t B = block_;
    if (x.type != ElementType::kFloat || x.rank() != 4 || x.dims[1] != in_channels_) {
      return ctx.Error(
          absl::StrCat("X ", x.DebugString(), " must be float32 [N, ", in_channels_, ", H, W]"));
    }
    if (ctx.HasInput(3)) return ctx.Error("a planar-input blocked Conv takes no Sum");
    const int64_t N = x.dims[0], H = x.dims[2], W = x.dims[3];
    const int64_t OH = y.dims[2], OW = y.dims[3];
    ANVIL_ASSIGN_OR_RETURN(
        WindowGeometry g,
        ResolveWindow(ctx.node(), attrs_, Shape{H, W}, Shape{OH, OW}, Shape{kernel_, kernel_w_}));
    DenseInput<float> xd(x);
    const float* bias = has_bias_ ? bias_.data() : nullptr;
    float* out = y.As<float>();
    // Threads split the output rows, every block in each (split by blocks, a first layer's two
    // blocks ran a block per thread in one-block tiles, which the broadcasts bound: 1.2x faster
    // at 2 threads than at 1 on MobileNetV2's first layer, against ONNX Runtime's 1.5x).
    const double row_flops =
        2.0 * static_cast<double>(OW * out_blocks_ * in_channels_ * kernel_ * kernel_w_ * B);
    parallel::For(N * OH, parallel::MinChunk(row_flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end;) {
                      const int64_t n = i / OH, r0 = i % OH;
                      const int64_t r1 = std::min(OH, r0 + (end - i));
                      simd::BlockedConvFromPlanar(
                          xd.data() + n * in_channels_ * H * W, in_channels_, H, W, kernel_,
                          kernel_w_, g.strides[0], g.strides[1], g.pad_begin[0], g.pad_begin[1],
                          weights_.data(), bias, epilogue_, out + n * out_blocks_ * OH * OW * B,
                          out_blocks_, OH, OW, r0, r1);
                      i += r1 - r0;
                    }
                  });
    return absl::OkStatus();
  }

  // Reads the constant W [M, C / group, k, k] and B [M] and packs them for the blocked kernels.
  absl::Status PackWeights(const Node& node) {
    std::optional<ConstantFloats> w = ReadConstantFloats(node, 1);
    if (!w.has_value() || w->dims.size() != 4) {
      return NodeError(node, "W must be a constant [M, C / group, kH, kW] float tensor");
    }
    const int64_t M = w->dims[0], Cg = w->dims[1], KH = w->dims[2], KW = w->dims[3];
    const int64_t B = block_;
    const WindowAttrs& a = attrs_;
    const bool unit_dilation =
        std::all_of(a.dilations.begin(), a.dilations.end(), [](int64_t d) { return d == 1; });
    const bool unit_stride =
        std::all_of(a.strides.begin(), a.strides.end(), [](int64_t s) { return s == 1; });
    const bool no_pads =
        std::all_of(a.pads.begin(), a.pads.end(), [](int64_t p) { return p == 0; });
    const int64_t stride = a.strides.empty() ? 1 : a.strides[0];
    const bool square_stride =
        std::all_of(a.strides.begin(), a.strides.end(), [&](int64_t s) { return s == stride; });
    planar_ = node.GetInt("planar_input", 0) == 1;
    depthwise_ = !planar_ && Cg == 1 && group_ == M && KH == KW &&
                 simd::BlockedDepthwiseSupports(KH, stride) && square_stride && unit_dilation;
    const bool pointwise = !planar_ && group_ == 1 && KH == 1 && KW == 1 && unit_stride && no_pads;
    if (planar_ && (group_ != 1 || !unit_dilation || a.strides.size() > 2)) {
      return NodeError(node, absl::StrCat("a planar-input blocked Conv has group 1 and no ",
                                          "dilation (group ", group_, ")"));
    }
    if (!planar_ && !depthwise_ && !pointwise) {
      return NodeError(node, absl::StrCat("W [", M, ", ", Cg, ", ", KH, ", ", KW, "], group ",
                                          group_, ": a blocked Conv is depthwise (3x3 or 5x5, ",
                                          "stride 1 or 2, no dilation) or pointwise (1x1, stride ",
                                          "1, no pads)"));
    }
    kernel_ = KH;
    kernel_w_ = KW;
    in_channels_ = Cg * group_;
    in_blocks_ = (Cg * group_ + B - 1) / B;
    out_blocks_ = (M + B - 1) / B;
    std::optional<ConstantFloats> b = ReadConstantFloats(node, 2);
    has_bias_ = node.num_inputs() > 2 && node.input(2) != nullptr;
    if (has_bias_ && (!b.has_value() || b->dims.size() != 1 || b->dims[0] != M)) {
      return NodeError(node, absl::StrCat("B must be a constant float tensor [", M, "]"));
    }
    if (planar_) {
      weights_.resize(simd::BlockedPlanarWeightsSize(M, Cg, KH * KW));
      simd::PackBlockedPlanarWeights(w->data, M, Cg, KH * KW, weights_.data());
      bias_.assign(out_blocks_ * B, 0.0f);
      if (has_bias_) std::copy(b->data, b->data + M, bias_.begin());
    } else if (depthwise_) {
      weights_.resize(out_blocks_ * KH * KW * B);
      bias_.resize(out_blocks_ * B);
      simd::PackBlockedDepthwiseWeights(w->data, has_bias_ ? b->data : nullptr, M, KH * KW,
                                        weights_.data(), has_bias_ ? bias_.data() : nullptr);
    } else {
      weights_.resize(simd::BlockedPointwiseWeightsSize(M, Cg));
      simd::PackBlockedPointwiseWeights(w->data, M, Cg, weights_.data());
      bias_.assign(out_blocks_ * B, 0.0f);
      if (has_bias_) std::copy(b->data, b->data + M, bias_.begin());
    }
    return absl::OkStatus();
  }

  int64_t block_ = 0;
  WindowAttrs attrs_;
  int64_t group_ = 1;
  simd::Epilogue epilogue_;
  bool planar_ = false;  // X is NCHW
  bool depthwise_ = false;
  int64_t kernel_ = 1, kernel_w_ = 1;
  int64_t in_channels_ = 0;
  int64_t in_blocks_ = 0, out_blocks_ = 0;
  bool has_bias_ = false;
  std::vector<float> weights_, bias_;  // packed
};

KernelOr CreateNchwcConv(const Node& node, int64_t) { return NchwcConvKernel::Create(node); }

}  // namespace
}  // namespace anvil::compute_ops

namespace anvil::kernel_rules {

namespace ops = ::anvil::compute_ops;

const KernelRule kNchwcKernels[] = {
    {"com.anvil.nchwc", "Conv", ops::CreateNchwcConv},
    {"com.anvil.nchwc", "GlobalAveragePool", ops::CreateChannelOp},
    {"com.anvil.nchwc", "MaxPool", ops::BlockedLayoutKernel::Create},
    {"com.anvil.nchwc", "Mul", ops::CreateChannelOp},
    {"com.anvil.nchwc", "Pad", ops::BlockedLayoutKernel::Create},
    {"com.anvil.nchwc", "ReorderInput", ops::CreateReorder},
    {"com.anvil.nchwc", "ReorderOutput", ops::CreateReorder},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
