#include "base/parallel.h"

#include <sched.h>

#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "base/scratch.h"

namespace anvil::parallel {
namespace {

thread_local int t_threads = 1;
// Set while the thread runs a chunk of a For: nested loops run serially.
thread_local bool t_in_chunk = false;
thread_local bool t_split_all = false;

// Marks the current thread as inside a chunk for its lifetime.
class InChunk {
 public:
  InChunk() : previous_(t_in_chunk) { t_in_chunk = true; }
  ~InChunk() { t_in_chunk = previous_; }

 private:
  bool previous_;
};

}  // namespace

bool Supported() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

int HardwareThreads() {
  static const int count = [] {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
    return 1;
  }();
  return count;
}

int CurrentThreads() { return t_in_chunk ? 1 : t_threads; }

ThreadScope::ThreadScope(int threads) : previous_(t_threads) {
  t_threads = threads <= 0 ? HardwareThreads() : threads;
}

ThreadScope::~ThreadScope() { t_threads = previous_; }

ScopedSplitAll::ScopedSplitAll() : previous_(t_split_all) { t_split_all = true; }
ScopedSplitAll::~ScopedSplitAll() { t_split_all = previous_; }

int64_t ChunkCount(int64_t n, int64_t min_chunk) {
  const int64_t threads = CurrentThreads();
  if (threads <= 1 || n <= 0) return 1;
  if (t_split_all) min_chunk = 1;
  return std::max<int64_t>(1, std::min(threads, n / std::max<int64_t>(1, min_chunk)));
}

void For(int64_t n, int64_t min_chunk, absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (n <= 0) return;
  const int64_t chunks = ChunkCount(n, min_chunk);
  if (chunks <= 1) {  // not a parallel region: loops inside fn may still split
    fn(0, n);
    return;
  }
#ifdef _OPENMP
  // The chunks lease scratch from the caller's pool, whichever thread runs them.
  ScratchPool* const scratch = CurrentScratchPool();
  // The team may be smaller than asked (OMP_THREAD_LIMIT, nested limits): each member then
  // takes every team-size-th chunk, so the partition stays the one ChunkBegin defines.
#pragma omp parallel num_threads(static_cast <int>(chunks))
  {
    InChunk in_chunk;
    ScratchScope scratch_scope(scratch);
    const int64_t team = omp_get_num_threads();
    for (int64_t c = omp_get_thread_num(); c < chunks; c += team) {
      fn(ChunkBegin(n, chunks, c), ChunkBegin(n, chunks, c + 1));
    }
  }
#else
  InChunk in_chunk;
  for (int64_t c = 0; c < chunks; ++c) fn(ChunkBegin(n, chunks, c), ChunkBegin(n, chunks, c + 1));
#endif
}

}  // namespace anvil::parallel
