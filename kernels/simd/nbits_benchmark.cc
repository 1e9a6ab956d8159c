// Int4MatVec (MatMulNBits' decode path) in weights per second, one thread: `bazel run -c opt
// //kernels:nbits_benchmark`. Args: N, K, block, int8; the "weights/s" counter is N * K per call.
// Small N x K stay in cache (the kernel's arithmetic); 4864 x 4864 (11 MiB) streams from memory.
#include <cstdint>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "kernels/simd/nbits.h"

namespace anvil::simd {
namespace {

void MatVec(benchmark::State& state) {
  const int64_t n = state.range(0), k = state.range(1), block = state.range(2);
  const bool int8 = state.range(3) != 0;
  const int64_t blocks = (k + block - 1) / block;
  std::mt19937 rng(7);
  std::vector<uint8_t> q(n * blocks * block / 2);
  for (uint8_t& b : q) b = static_cast<uint8_t>(rng());
  std::vector<float> scales(n * blocks, 0.01f), a(k), y(n);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : a) v = dist(rng);
  Int4Weights w;
  w.q = q.data();
  w.scales = scales.data();
  w.n = n;
  w.k = k;
  w.block = block;
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
    ->Args({4864, 4864, 32, 0});

}  // namespace
}  // namespace anvil::simd
