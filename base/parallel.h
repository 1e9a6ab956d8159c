// Intra-op parallelism: the one interface through which kernels, the runtime and compiled code
// split work across threads. Backed by OpenMP (GCC's libgomp, which ships with the toolchain: no
// pool of Anvil's own); a build without OpenMP (the clang fuzz build) runs every loop serially.
//
// The thread count is per calling thread, set for a scope by whoever owns the work (a Session's
// Run, a benchmark): kernels do not take a pool parameter, they call parallel::For and get
// whatever the caller allowed, so every kernel signature stays as it is.
//
//   parallel::ThreadScope threads(4);                 // this thread's loops may use 4 threads
//   parallel::For(rows, /*min_chunk=*/64, [&](int64_t begin, int64_t end) { ... });
//
// Contract of For:
//  - fn(begin, end) is called on disjoint, contiguous chunks that cover [0, n) exactly once;
//    chunks run concurrently, so fn must only write what its chunk owns.
//  - The partition depends only on (n, min_chunk, threads): a kernel whose chunks do not
//    change its arithmetic order gives bit-identical results for every thread count.
//  - Serial (one call fn(0, n) on the calling thread) when the scope allows one thread, when n
//    is below 2 * min_chunk, and inside another For's chunk: nested loops never oversubscribe.
//  - Chunks see the caller's scratch pool (base/scratch.h) on whichever thread runs them.
#ifndef ANVIL_BASE_PARALLEL_H_
#define ANVIL_BASE_PARALLEL_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace anvil::parallel {

// False in a build without OpenMP, where every For is serial.
bool Supported();

// Logical CPUs this process may run on (sched_getaffinity; at least 1).
int HardwareThreads();

// Threads the calling thread's For loops may use (1 outside any ThreadScope, and inside a For).
int CurrentThreads();

// Sets CurrentThreads() for the calling thread until destroyed (then restores the previous
// value). threads <= 0 means HardwareThreads().
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
};

// For tests: while alive, For on this thread ignores min_chunk (any n >= 2 splits into up to
// CurrentThreads() chunks), so small test inputs run the parallel paths.
class ScopedSplitAll {
 public:
  ScopedSplitAll();
  ~ScopedSplitAll();
  ScopedSplitAll(const ScopedSplitAll&) = delete;
  ScopedSplitAll& operator=(const ScopedSplitAll&) = delete;

 private:
  bool previous_;
};

// Chunks For would use for (n, min_chunk) under the current scope (1: serial).
int64_t ChunkCount(int64_t n, int64_t min_chunk);

// See the contract above. min_chunk: the smallest amount of work worth a thread (in units of
// n), so small loops stay serial.
void For(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn);

// How many items a chunk needs to hold `min_work` when one item costs `work_per_item` (both in
// the same unit: elements touched, flops): the min_chunk argument of For.
inline int64_t MinChunk(double work_per_item, double min_work) {
  if (work_per_item <= 0) return 1;
  const double items = min_work / work_per_item;
  return items <= 1 ? 1 : items >= 9e18 ? int64_t{1} << 62 : static_cast<int64_t>(items + 0.999);
}

// Streaming work (element-wise, normalization, pooling) worth a thread: ~2.5 us of it (with
// kMinChunkFlops below, the batch-1 transformer and MobileNet at 2 threads ran 10-20% faster
// than with 1 << 15).
constexpr double kMinChunkElements = 1 << 13;
// Arithmetic (GEMM, convolution) worth a thread: ~2.5 us at 100 GFLOP/s, well over a fork-join
// on OpenMP's waiting threads (measured at 2 threads: the generated CNN at batch 1 runs 25%
// faster than with 1 << 20, the batch-1 MLP and MobileNet 10-15%; large batches split anyway).
constexpr double kMinChunkFlops = 1 << 18;

// The bounds of chunk c of `chunks` over [0, n): near-equal, contiguous, in order.
inline int64_t ChunkBegin(int64_t n, int64_t chunks, int64_t c) {
  return n / chunks * c + (c < n % chunks ? c : n % chunks);
}

}  // namespace anvil::parallel

#endif  // ANVIL_BASE_PARALLEL_H_
