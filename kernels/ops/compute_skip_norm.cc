// The normalizations of ONNX Runtime's transformer graphs, which its model builder writes into
// every decoder LLM:
//
//   SimplifiedLayerNormalization (ONNX domain, ONNX Runtime's own), and ONNX's RMSNormalization
//   (opset 23): X, scale -> Y, inv_std_var?
//     RMS norm over dims [axis, rank): Y = X / sqrt(mean(X^2) + epsilon) * scale, scale
//     broadcasting to those dims (NormalizationParameter)
//   com.microsoft SkipSimplifiedLayerNormalization: input, skip, gamma, bias? ->
//     output, mean?, inv_std_var?, input_skip_bias_sum?
//   com.microsoft SkipLayerNormalization: input, skip, gamma, beta?, bias? -> the same outputs
//     sum = input + skip (+ bias); output = RMS norm of sum * gamma, or its layer norm * gamma +
//     beta
//
// skip is [B, S, H], [1, S, H] or [S, H] (repeated over the batch); gamma, beta and bias are [H].
// input_skip_bias_sum (the residual stream the next layer adds to) comes out of the same pass as
// the norm: the sum is not written and read back. mean is 0 for the simplified op, and the
// statistics outputs have the input's dims with the last set to 1. epsilon defaults to 1e-12
// (the skip ops) or 1e-5. float and float16 (computed in float), as ONNX Runtime's CPU kernels.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/parallel.h"
#include "graph/node_errors.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

// One row of n values (already summed): y = (x - mean) * inv * gamma (+ beta), with mean 0 for
// the RMS norm. Writes the row's statistics.
void NormalizeRow(const float* x, int64_t n, float epsilon, bool simplified, const float* gamma,
                  const float* beta, float* y, float* mean_out, float* inv_out) {
  float mean = 0.0f, var;
  if (simplified) {
    var = n > 0 ? simd::ReduceSumSquares(x, n) / static_cast<float>(n) : 0.0f;
  } else {
    mean = n > 0 ? simd::ReduceSum(x, n) / static_cast<float>(n) : 0.0f;
    var = n > 0 ? simd::ReduceSumSquaredDiff(x, mean, n) / static_cast<float>(n) : 0.0f;
  }
  const float inv = 1.0f / std::sqrt(var + epsilon);
  simd::Normalize(x, mean, inv, gamma, beta, y, n);
  *mean_out = mean;
  *inv_out = inv;
}

class SkipNormKernel final : public OpKernel {
 public:
  // skip < 0: SimplifiedLayerNormalization (axis, no skip); beta/bias: their input indices or -1.
  SkipNormKernel(bool simplified, int skip, int beta, int bias, int64_t axis, float epsilon)
      : simplified_(simplified),
        skip_(skip),
        beta_(beta),
        bias_(bias),
        axis_(axis),
        epsilon_(epsilon) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    if (x.type != ElementType::kFloat && x.type != ElementType::kFloat16) {
      return ctx.Error(absl::StrCat("input ", x.DebugString(), ": float or float16 only"));
    }
    const int gamma_index = skip_ < 0 ? 1 : 2;
    int64_t n = 0;
    // The RMS norm's scale may broadcast to the normalized dims (ONNX's RMSNormalization).
    TensorView gamma_view = ctx.input(gamma_index);
    if (skip_ < 0) {
      ANVIL_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx.node(), axis_, x.rank()));
      n = Product(x.dims, axis);
      const Shape norm_dims(x.dims.begin() + axis, x.dims.end());
      ANVIL_ASSIGN_OR_RETURN(gamma_view, NormalizationParameter(ctx, gamma_index, norm_dims));
    } else {
      if (x.rank() != 2 && x.rank() != 3) {
        return ctx.Error(absl::StrCat("input ", x.DebugString(), " must be 2-D or 3-D"));
      }
      n = x.dims.back();
    }
    const int64_t rows = n > 0 ? x.NumElements() / n : 0;
    auto vector = [&](int i, const char* name) -> absl::Status {
      const TensorView& v = i == gamma_index ? gamma_view : ctx.input(i);
      if (v.NumElements() != n || v.type != x.type) {
        return ctx.Error(absl::StrCat(name, " ", v.DebugString(), " must hold ", n,
                                      " values of the input's type"));
      }
      return absl::OkStatus();
    };
    ANVIL_RETURN_IF_ERROR(vector(gamma_index, skip_ < 0 ? "scale" : "gamma"));
    const bool has_beta = beta_ >= 0 && ctx.HasInput(beta_);
    const bool has_bias = bias_ >= 0 && ctx.HasInput(bias_);
    if (has_beta) ANVIL_RETURN_IF_ERROR(vector(beta_, "beta"));
    if (has_bias) ANVIL_RETURN_IF_ERROR(vector(bias_, "bias"));
    int64_t skip_elems = 0;
    DenseInput<float> xd(x), skip, gamma(gamma_view), beta, bias;
    if (skip_ >= 0) {
      const TensorView& s = ctx.input(skip_);
      const int64_t r = s.rank();
      // The last two dims equal the input's; a leading batch of 1 (or none) repeats.
      const bool fits = s.type == x.type && (r == 2 || r == 3) && s.dims[r - 1] == n &&
                        (x.rank() < 2 || s.dims[r - 2] == x.dims[x.rank() - 2]) &&
                        (r == 2 || s.dims[0] == 1 || (x.rank() == 3 && s.dims[0] == x.dims[0]));
      if (!fits) {
        return ctx.Error(absl::StrCat("skip ", s.DebugString(), " does not fit input ",
                                      x.DebugString(), ": [B, S, H], [1, S, H] or [S, H]"));
      }
      skip.Reset(s);
      skip_elems = s.NumElements();
    }
    if (has_beta) beta.Reset(ctx.input(beta_));
    if (has_bias) bias.Reset(ctx.input(bias_));
    DenseOutput<float> y(ctx.output(0));
    // Statistics and the sum: outputs the graph uses (the RMS norm has inv_std_var at 1).
    const int mean_output = skip_ < 0 ? -1 : 1, inv_output = skip_ < 0 ? 1 : 2;
    const int sum_output = skip_ < 0 ? -1 : 3;
    std::optional<DenseOutput<float>> sum_out, mean_out, inv_out;
    for (auto [i, out] : {std::pair(sum_output, &sum_out), std::pair(mean_output, &mean_out),
                          std::pair(inv_output, &inv_out)}) {
      if (i < 0 || !ctx.HasOutput(i)) continue;
      ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, i, i == sum_output ? rows * n : rows));
      out->emplace(ctx.output(i));
    }
    parallel::For(rows, parallel::MinChunk(static_cast<double>(n), parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    std::vector<float> summed(skip_ >= 0 && !sum_out ? n : 0);
                    for (int64_t r = begin; r < end; ++r) {
                      const float* in = xd.data() + r * n;
                      const float* row = in;
                      if (skip_ >= 0) {
                        float* sum = sum_out ? sum_out->data() + r * n : summed.data();
                        const float* sk = skip.data() + (r * n) % skip_elems;
                        for (int64_t i = 0; i < n; ++i) sum[i] = in[i] + sk[i];
                        if (has_bias) simd::AccumulateSum(sum, bias.data(), n);
                        row = sum;
                      }
                      float mean, inv;
                      NormalizeRow(row, n, epsilon_, simplified_, gamma.data(),
                                   has_beta ? beta.data() : nullptr, y.data() + r * n, &mean, &inv);
                      if (mean_out) mean_out->data()[r] = mean;
                      if (inv_out) inv_out->data()[r] = inv;
                    }
                  });
    y.Commit();
    for (auto* out : {&sum_out, &mean_out, &inv_out}) {
      if (*out) (*out)->Commit();
    }
    return absl::OkStatus();
  }

 private:
  bool simplified_;
  int skip_, beta_, bias_;
  int64_t axis_;
  float epsilon_;
};

absl::StatusOr<float> Epsilon(const Node& node, float fallback) {
  const float epsilon = node.GetFloat("epsilon", fallback);
  if (!(epsilon >= 0.0f))
    return NodeError(node, absl::StrCat("epsilon ", epsilon, " must be >= 0"));
  return epsilon;
}

}  // namespace

KernelOr CreateSimplifiedLayerNormalization(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(const float epsilon, Epsilon(node, 1e-5f));
  return std::unique_ptr<OpKernel>(
      new SkipNormKernel(true, -1, -1, -1, node.GetInt("axis", -1), epsilon));
}

KernelOr CreateSkipSimplifiedLayerNormalization(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(const float epsilon, Epsilon(node, 1e-12f));
  return std::unique_ptr<OpKernel>(new SkipNormKernel(true, 1, -1, 3, -1, epsilon));
}

KernelOr CreateSkipLayerNormalization(const Node& node, int64_t) {
  ANVIL_ASSIGN_OR_RETURN(const float epsilon, Epsilon(node, 1e-12f));
  return std::unique_ptr<OpKernel>(new SkipNormKernel(false, 1, 3, 4, -1, epsilon));
}

}  // namespace anvil::compute_ops
