// SGEMM/DGEMM throughput, one thread and all of them (BM_GemmAllThreads): `bazel run -c opt
// //kernels:gemm_benchmark`. Reports GFLOP/s (2*M*N*K per call) as the "FLOPS" counter.
#include <cstdint>
#include <random>
#include <vector>

#include "base/parallel.h"
#include "benchmark/benchmark.h"
#include "kernels/simd/gemm.h"

namespace anvil::simd {
namespace {

template <typename T>
std::vector<T> RandomMatrix(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> v(n);
  for (T& x : v) x = dist(rng);
  return v;
}

// Args: M, N, K, trans_a, trans_b; threads from the scope the caller sets.
template <typename T>
void GemmLoop(benchmark::State& state) {
  const int64_t M = state.range(0), N = state.range(1), K = state.range(2);
  const bool trans_a = state.range(3) != 0, trans_b = state.range(4) != 0;
  const std::vector<T> a = RandomMatrix<T>(M * K, 1), b = RandomMatrix<T>(K * N, 2);
  std::vector<T> c(M * N);
  for (auto _ : state) {
    if constexpr (sizeof(T) == 4) {
      Sgemm(trans_a, trans_b, M, N, K, 1.0f, a.data(), trans_a ? M : K, b.data(), trans_b ? K : N,
            0.0f, c.data(), N);
    } else {
      Dgemm(trans_a, trans_b, M, N, K, 1.0, a.data(), trans_a ? M : K, b.data(), trans_b ? K : N,
            0.0, c.data(), N);
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["FLOPS"] = benchmark::Counter(
      2.0 * M * N * K, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

void GemmShapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K", "tA", "tB"});
  b->Args({512, 256, 256, 0, 0});  // the reference shape
  b->Args({512, 256, 256, 1, 1});
  b->Args({256, 256, 256, 0, 0});
  b->Args({1024, 1024, 1024, 0, 0});
  b->Args({1024, 1024, 1024, 0, 1});
  b->Args({64, 3136, 576, 0, 0});  // a 3x3 conv as im2col (64 ch, 56x56)
  b->Args({197, 768, 768, 0, 1});  // a ViT linear layer
  b->Args({1, 4096, 1024, 0, 1});  // batch-1 fully connected (GEMV)
  b->Args({1, 4096, 1024, 0, 0});
  b->Args({1024, 1, 1024, 0, 0});
  // The generated transformer at [8, 128, 64]: projections, FFN, attention per head.
  b->Args({1024, 64, 64, 0, 0});
  b->Args({1024, 256, 64, 0, 0});
  b->Args({1024, 64, 256, 0, 0});
  b->Args({128, 128, 16, 0, 0});  // Q K^T
  b->Args({128, 16, 128, 0, 0});  // attention x V
  // The generated CNN's convolutions as im2col GEMMs, per image and for 16 images side by side.
  b->Args({16, 1024, 27, 0, 0});
  b->Args({32, 256, 144, 0, 0});
  b->Args({64, 64, 288, 0, 0});
  b->Args({32, 4096, 144, 0, 0});
  b->Args({64, 1024, 288, 0, 0});
}

template <typename T>
void BM_Gemm(benchmark::State& state) {
  GemmLoop<T>(state);
}

// All the machine's threads (base/parallel.h).
void BM_GemmAllThreads(benchmark::State& state) {
  parallel::ThreadScope threads(0);
  GemmLoop<float>(state);
}

BENCHMARK(BM_Gemm<float>)->Apply(GemmShapes);
BENCHMARK(BM_GemmAllThreads)->Apply(GemmShapes)->UseRealTime();
BENCHMARK(BM_Gemm<double>)->Args({512, 256, 256, 0, 0});

}  // namespace
}  // namespace anvil::simd
