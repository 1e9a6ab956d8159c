// ConvTranspose: the adjoint of Conv, by GEMM and col2im (conv_im2col.h). Per (image, group),
// col = W_g^T x X_g, then col2im scatters (adds) each column of col into the output, which starts
// as the bias.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "kernels/ops/compute_util.h"
#include "kernels/ops/conv_im2col.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"

namespace anvil::compute_ops {
namespace {

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
                    ScratchBuffers scratch;
                    T* col = scratch.Get<T>(0, rows * chunk);
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

}  // namespace

KernelOr CreateConvTranspose(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(ConvAttrs attrs, ReadConvAttrs(node));
  return std::unique_ptr<OpKernel>(
      new ConvTransposeKernel(std::move(attrs.window), attrs.group, node.GetInts("output_padding"),
                              node.FindAttribute("output_shape") != nullptr));
}

}  // namespace anvil::compute_ops
