// MatMulNBits' kernels, one thread: `bazel run -c opt //kernels:nbits_benchmark`. Int4MatVec (the
// decode path) in weights per second, args N, K, block, int8 (with int8, the weights packed as
// MatMulNBits packs constant ones); the "weights/s" counter is N * K per call. Small N x K stay in
// cache (the kernel's arithmetic); 4864 x 4864 (11 MiB) streams from memory. Int4GemmInt8 (a prompt
// with accuracy_level 4) below.
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/simd/nbits.h"

namespace anvil::simd {
namespace {

// Random 4-bit weights N x K (zero point 8, every scale 0.01) and m rows of A in [-1, 1).
struct Operands {
  Operands(int64_t m, int64_t n, int64_t k, int64_t block) {
    const int64_t blocks = (k + block - 1) / block;
    std::mt19937 rng(7);
    q.resize(n * blocks * block / 2);
    for (uint8_t& b : q) b = static_cast<uint8_t>(rng());
    scales.assign(n * blocks, 0.01f);
    a.resize(m * k);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : a) v = dist(rng);
    w.q = q.data();
    w.scales = scales.data();
    w.n = n;
    w.k = k;
    w.block = block;
  }
  std::vector<uint8_t> q;
  std::vector<float> scales, a;
  Int4Weights w;
};

void MatVec(benchmark::State& state) {
  const int64_t n = state.range(0), k = state.range(1), block = state.range(2);
  const bool int8 = state.range(3) != 0;
  const Operands o(1, n, k, block);
  Int4Weights w = o.w;
  // Constant weights with the int8 arithmetic are packed at load, as MatMulNBits does.
  Int4Interleaved packed;
  if (int8 && Int4InterleavedSupported(w)) {
    packed = PackInt4Interleaved(w);
    w.q = packed.q.data();
    w.scales = packed.scales.data();
    w.interleaved = true;
  }
  const std::vector<float>& a = o.a;
  std::vector<float> y(n);
  std::vector<uint8_t> scratch(Int4MatVecScratchBytes(w) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  for (auto _ : state) {
    Int4MatVec(a.data(), w, int8, 0, n, aligned, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["weights/s"] =
      benchmark::Counter(static_cast<double>(n * k), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(MatVec)
    ->ArgNames({"N", "K", "block", "int8"})
    ->Args({256, 896, 32, 1})
    ->Args({256, 896, 32, 0})
    ->Args({256, 896, 128, 1})
    ->Args({4864, 4864, 32, 1})
    ->Args({4864, 4864, 32, 0})
    ->Args({151936, 896, 32, 1});  // a 0.5B decoder's LM head (85 MB): from memory

// Int4GemmInt8 (the prompt path with accuracy_level 4) on M rows, one thread, A's quantization
// included: the "MAC/s" counter is M * N * K per call. Args: M, N, K, block.
void GemmInt8(benchmark::State& state) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2), block = state.range(3);
  const Operands o(m, n, k, block);
  const Int4Weights& w = o.w;
  const std::vector<float>& a = o.a;
  std::vector<float> y(m * n);
  if (!Int4GemmInt8Supported(w)) {
    state.SkipWithError("no byte products on this CPU");
    return;
  }
  std::vector<uint8_t> scratch(Int4GemmInt8ScratchBytes(w) + 64);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  for (auto _ : state) {
    Int4QuantizedRows rows = Int4QuantizedRowsFor(w, m);
    QuantizeRowsInt8(a.data(), w, 0, m, rows);
    Int4GemmInt8(rows, w, 0, n, aligned, y.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(m * n * k),
                                               benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(GemmInt8)
    ->ArgNames({"M", "N", "K", "block"})
    ->Args({512, 896, 896, 32})
    ->Args({512, 896, 4864, 32})
    ->Args({64, 896, 896, 32});

}  // namespace
}  // namespace anvil::simd
