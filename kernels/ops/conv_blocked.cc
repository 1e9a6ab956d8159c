#include "kernels/ops/conv_blocked.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/parallel.h"
#include "kernels/ops/conv_direct.h"
#include "kernels/ops/conv_internal.h"
#include "kernels/ops/scratch.h"
#include "kernels/simd/nchwc.h"

namespace anvil::compute_ops {
namespace {

// The measured range (see the header): strided, few input channels, twice as many outputs.
constexpr int64_t kMaxInputChannels = 32;

}  // namespace

std::unique_ptr<const BlockedConvWeights> PrepareBlockedConvWeights(const Node& node) {
  if (node.num_inputs() < 2 || node.GetInt("group", 1) != 1) return nullptr;
  if (!AllOnes(node.GetInts("dilations"))) return nullptr;
  const std::vector<int64_t> strides = node.GetInts("strides");
  if (strides.size() != 2 || strides[0] < 2 || strides[1] < 2) return nullptr;
  std::optional<ConstantFloats> weight = ReadConstantFloats(node, 1);
  if (!weight.has_value()) return nullptr;
  const Shape& dims = weight->dims;
  if (dims.size() != 4) return nullptr;
  const int64_t M = dims[0], C = dims[1], KH = dims[2], KW = dims[3];
  if (C < 1 || C > kMaxInputChannels || M < 2 * C || KH < 1 || KW < 1 ||
      C * KH * KW <= kMaxDirectDepth) {
    return nullptr;
  }
  const int64_t count = M * C * KH * KW;
  if (!std::all_of(weight->data, weight->data + count, [](float v) { return std::isfinite(v); })) {
    return nullptr;
  }
  auto w = std::make_unique<BlockedConvWeights>();
  w->out_channels = M;
  w->in_channels = C;
  w->kernel_h = KH;
  w->kernel_w = KW;
  w->packed.resize(simd::BlockedPlanarWeightsSize(M, C, KH * KW));
  simd::PackBlockedPlanarWeights(weight->data, M, C, KH * KW, w->packed.data());
  return w;
}

bool BlockedConvApplies(const WindowGeometry& g, const BlockedConvWeights& w) {
  return g.spatial == 2 && g.kernel[0] == w.kernel_h && g.kernel[1] == w.kernel_w &&
         g.dilations[0] == 1 && g.dilations[1] == 1;
}

void BlockedConv2D(const WindowGeometry& g, int64_t N, const BlockedConvWeights& w, const float* x,
                   const float* bias, const simd::Epilogue& epilogue, float* y) {
  const int64_t B = simd::NchwcBlock();
  const int64_t M = w.out_channels, C = w.in_channels, blocks = (M + B - 1) / B;
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t plane = OH * OW;
  ScratchBuffers scratch;
  float* blocked = scratch.Get<float>(0, blocks * B * plane);
  float* packed_bias = nullptr;
  if (bias != nullptr) {
    packed_bias = scratch.Get<float>(1, blocks * B);
    std::fill(packed_bias, packed_bias + blocks * B, 0.0f);
    std::copy(bias, bias + M, packed_bias);
  }
  const double row_flops = 2.0 * static_cast<double>(OW * blocks * B * C * g.kernel_size);
  const double block_elements = static_cast<double>(plane * B);
  for (int64_t n = 0; n < N; ++n) {
    // Threads split the output rows, every block in each (a tile shares each input broadcast
    // among up to four blocks).
    parallel::For(OH, parallel::MinChunk(row_flops, parallel::kMinChunkFlops),
                  [&](int64_t begin, int64_t end) {
                    simd::BlockedConvFromPlanar(
                        x + n * C * H * W, C, H, W, g.kernel[0], g.kernel[1], g.strides[0],
                        g.strides[1], g.pad_begin[0], g.pad_begin[1], w.packed.data(), packed_bias,
                        epilogue, blocked, blocks, OH, OW, begin, end);
                  });
    parallel::For(blocks, parallel::MinChunk(block_elements, parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t b = begin; b < end; ++b) {
                      simd::ReorderFromBlocked(blocked + b * plane * B, std::min(B, M - b * B),
                                               plane, y + (n * M + b * B) * plane);
                    }
                  });
  }
}

}  // namespace anvil::compute_ops
