// The blocked (NCHWc) convolution kernels on MobileNet layers, one thread:
//   bazel run -c opt //kernels:nchwc_benchmark
// BM_MobileNetV2Body runs every layer after the first convolution (17 inverted residual blocks:
// pointwise expansion with ReLU6, depthwise 3x3 with ReLU6, pointwise projection with the
// residual sum; then the 320 -> 1280 pointwise layer), in the blocked layout end to end, as the
// nchwc pass (kernels/nchwc_layout.h) leaves the network; the single-layer rows are its costliest
// layers, MobileNetV3's 5x5 layers and the first layers on RGB. Compare with
// `anvil-run --profile=nodes` and ONNX Runtime's trace on testdata/zoo/mobilenetv2.onnx
// (tools/op_profile_vs_ort.sh).
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/simd/nchwc.h"

namespace anvil::simd {
namespace {

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

int64_t Blocks(int64_t channels) { return (channels + NchwcBlock() - 1) / NchwcBlock(); }

struct Pointwise {
  int64_t in, out, pixels;
  bool relu6, residual;
  std::vector<float> w, bias;
  Pointwise(int64_t in_channels, int64_t out_channels, int64_t pixel_count, bool clip, bool sum)
      : in(in_channels), out(out_channels), pixels(pixel_count), relu6(clip), residual(sum) {
    const std::vector<float> dense = Random(out * in, 1);
    w.resize(BlockedPointwiseWeightsSize(out, in));
    PackBlockedPointwiseWeights(dense.data(), out, in, w.data());
    bias = Random(Blocks(out) * NchwcBlock(), 2);
  }
  void Run(const float* x, const float* sum, float* y) const {
    Epilogue e;
    if (relu6) {
      e.activation = Activation::kClip;
      e.beta = 6.0f;
    }
    BlockedPointwiseConv(x, in, pixels, w.data(), bias.data(), residual ? sum : nullptr, e, y,
                         Blocks(out));
  }
};

struct Depthwise {
  int64_t channels, h, w, stride, kernel, out_h, out_w;
  std::vector<float> weights, bias;
  mutable std::vector<float> scratch;
  Depthwise(int64_t c, int64_t height, int64_t width, int64_t s, int64_t k = 3)
      : channels(c), h(height), w(width), stride(s), kernel(k) {
    const int64_t pad = k / 2;
    out_h = (h + 2 * pad - k) / s + 1;
    out_w = (w + 2 * pad - k) / s + 1;
    scratch.resize(BlockedDepthwiseScratchSize(k, s, out_h, out_w));
    const std::vector<float> dense = Random(c * k * k, 3), b = Random(c, 4);
    weights.resize(Blocks(c) * k * k * NchwcBlock());
    bias.resize(Blocks(c) * NchwcBlock());
    PackBlockedDepthwiseWeights(dense.data(), b.data(), c, k * k, weights.data(), bias.data());
  }
  void Run(const float* x, float* y) const {
    Epilogue e;
    e.activation = Activation::kClip;
    e.beta = 6.0f;
    BlockedDepthwiseConv(x, Blocks(channels), h, w, kernel, stride, kernel / 2, kernel / 2,
                         weights.data(), bias.data(), e, y, out_h, out_w, scratch.data());
  }
};

// MobileNetV2 after its first convolution: per block (expansion t, output channels c, repeats
// n, first stride s).
struct Body {
  struct Layer {
    std::vector<Pointwise> pointwise;  // expansion (if any), projection
    Depthwise depthwise;
  };
  std::vector<Layer> layers;
  Pointwise last{320, 1280, 49, true, false};
  size_t max_floats = 0;
  Body() {
    const int64_t settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                    {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    int64_t channels = 32, size = 112;
    for (const auto& [t, c, n, s] : settings) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t stride = i == 0 ? s : 1, hidden = channels * t;
        const int64_t out_size = (size + 2 - 3) / stride + 1;
        Layer layer{{}, Depthwise(hidden, size, size, stride)};
        if (t != 1) layer.pointwise.emplace_back(channels, hidden, size * size, true, false);
        layer.pointwise.emplace_back(hidden, c, out_size * out_size, false,
                                     stride == 1 && channels == c);
        max_floats = std::max<size_t>(
            max_floats, Blocks(std::max(hidden, channels)) * NchwcBlock() * size * size);
        layers.push_back(std::move(layer));
        channels = c;
        size = out_size;
      }
    }
  }
  // x in the first of three buffers, the result in the second. Each block's projection writes
  // over its input (its residual sum, read before each element is written).
  void Run(std::vector<float>* buffers) const {
    float* x = buffers[0].data();
    float* expanded = buffers[1].data();
    float* depthwise = buffers[2].data();
    for (const Layer& layer : layers) {
      if (layer.pointwise.size() == 2) layer.pointwise[0].Run(x, nullptr, expanded);
      layer.depthwise.Run(layer.pointwise.size() == 2 ? expanded : x, depthwise);
      layer.pointwise.back().Run(depthwise, x, x);
    }
    last.Run(x, nullptr, expanded);
  }
};

void BM_MobileNetV2Body(benchmark::State& state) {
  const Body body;
  std::vector<float> buffers[3];
  for (std::vector<float>& b : buffers) b = Random(body.max_floats, 5);
  for (auto _ : state) {
    body.Run(buffers);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MobileNetV2Body)->Unit(benchmark::kMillisecond);

// One pointwise layer: in, out channels, pixels.
void BM_Pointwise(benchmark::State& state) {
  const Pointwise layer(state.range(0), state.range(1), state.range(2), true, false);
  const std::vector<float> x = Random(Blocks(layer.in) * NchwcBlock() * layer.pixels, 6);
  std::vector<float> y(Blocks(layer.out) * NchwcBlock() * layer.pixels);
  for (auto _ : state) {
    layer.Run(x.data(), nullptr, y.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Pointwise)
    ->Args({32, 16, 112 * 112})
    ->Args({16, 96, 112 * 112})
    ->Args({96, 24, 56 * 56})
    ->Args({24, 144, 56 * 56})
    ->Args({144, 24, 56 * 56})
    ->Args({144, 32, 28 * 28})
    ->Args({32, 192, 28 * 28})
    ->Args({192, 32, 28 * 28})
    ->Args({192, 64, 14 * 14})
    ->Args({64, 384, 14 * 14})
    ->Args({384, 64, 14 * 14})
    ->Args({96, 576, 14 * 14})
    ->Args({576, 96, 14 * 14})
    ->Args({160, 960, 7 * 7})
    ->Args({960, 160, 7 * 7})
    ->Args({960, 320, 7 * 7})
    ->Args({320, 1280, 7 * 7})
    ->Unit(benchmark::kMicrosecond);

// One depthwise layer: channels, size, stride, kernel (MobileNetV2's 3x3, MobileNetV3's 5x5).
void BM_Depthwise(benchmark::State& state) {
  const Depthwise layer(state.range(0), state.range(1), state.range(1), state.range(2),
                        state.range(3));
  const std::vector<float> x = Random(Blocks(layer.channels) * NchwcBlock() * layer.h * layer.w, 7);
  std::vector<float> y(Blocks(layer.channels) * NchwcBlock() * layer.out_h * layer.out_w);
  for (auto _ : state) {
    layer.Run(x.data(), y.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Depthwise)
    ->Args({32, 112, 1, 3})
    ->Args({96, 112, 2, 3})
    ->Args({144, 56, 2, 3})
    ->Args({576, 14, 2, 3})
    ->Args({384, 14, 1, 3})
    ->Args({960, 7, 1, 3})
    ->Args({96, 28, 2, 5})
    ->Args({24, 64, 1, 5})
    ->Args({48, 32, 1, 5})
    ->Args({144, 14, 1, 5})
    ->Args({240, 14, 1, 5})
    ->Args({576, 7, 1, 5})
    ->Unit(benchmark::kMicrosecond);

// A first layer on planar RGB: output channels, size (224: MobileNet's 3x3 stride 2).
void BM_Planar(benchmark::State& state) {
  const int64_t m = state.range(0), size = state.range(1), out = (size + 2 - 3) / 2 + 1;
  const std::vector<float> x = Random(3 * size * size, 8), w = Random(m * 27, 9), b = Random(m, 4);
  std::vector<float> packed(BlockedPlanarWeightsSize(m, 3, 9));
  PackBlockedPlanarWeights(w.data(), m, 3, 9, packed.data());
  std::vector<float> bias(Blocks(m) * NchwcBlock(), 0.0f);
  std::copy(b.begin(), b.end(), bias.begin());
  std::vector<float> y(Blocks(m) * NchwcBlock() * out * out);
  Epilogue e;
  e.activation = Activation::kClip;
  e.beta = 6.0f;
  for (auto _ : state) {
    BlockedConvFromPlanar(x.data(), 3, size, size, 3, 3, 2, 2, 1, 1, packed.data(), bias.data(), e,
                          y.data(), Blocks(m), out, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Planar)->Args({16, 224})->Args({32, 224})->Unit(benchmark::kMicrosecond);

// ResNet's pool after its stem: 3x3 windows at stride 2, one pixel of padding, 64 channels of
// 112x112.
void BM_MaxPool(benchmark::State& state) {
  const int64_t blocks = Blocks(64), size = 112, out = 56;
  const std::vector<float> x = Random(blocks * NchwcBlock() * size * size, 10);
  std::vector<float> y(blocks * NchwcBlock() * out * out);
  for (auto _ : state) {
    BlockedMaxPool(x.data(), blocks, size, size, 3, 3, 2, 2, 1, 1, y.data(), out, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_MaxPool)->Unit(benchmark::kMicrosecond);

// A dense convolution on a planar input of many channels (UNet's and ResNet's layers): input
// channels, output channels, size, kernel, stride; pads kernel / 2.
void BM_PlanarDense(benchmark::State& state) {
  const int64_t c = state.range(0), m = state.range(1), size = state.range(2);
  const int64_t k = state.range(3), s = state.range(4), out = (size + 2 * (k / 2) - k) / s + 1;
  const std::vector<float> x = Random(c * size * size, 8), w = Random(m * c * k * k, 9);
  std::vector<float> packed(BlockedPlanarWeightsSize(m, c, k * k));
  PackBlockedPlanarWeights(w.data(), m, c, k * k, packed.data());
  const std::vector<float> bias = Random(Blocks(m) * NchwcBlock(), 4);
  std::vector<float> y(Blocks(m) * NchwcBlock() * out * out);
  Epilogue e;
  e.activation = Activation::kRelu;
  for (auto _ : state) {
    BlockedConvFromPlanar(x.data(), c, size, size, k, k, s, s, k / 2, k / 2, packed.data(),
                          bias.data(), e, y.data(), Blocks(m), out, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_PlanarDense)
    ->Args({16, 16, 128, 3, 1})
    ->Args({32, 16, 128, 3, 1})
    ->Args({16, 32, 64, 3, 1})
    ->Args({32, 32, 64, 3, 1})
    ->Args({64, 32, 64, 3, 1})
    ->Args({128, 64, 32, 3, 1})
    ->Args({128, 128, 16, 3, 1})
    ->Args({64, 128, 56, 3, 2})
    ->Args({128, 256, 28, 3, 2})
    ->Args({256, 512, 14, 3, 2})
    ->Args({3, 64, 224, 7, 2})
    ->Args({16, 32, 80, 3, 2})
    ->Args({32, 64, 40, 3, 2})
    ->Args({64, 128, 20, 3, 2})
    ->Args({128, 256, 10, 3, 2})
    ->Args({32, 32, 40, 3, 1})
    ->Args({128, 128, 10, 3, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace anvil::simd
