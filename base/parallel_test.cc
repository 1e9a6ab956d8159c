#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "base/scratch.h"
#include "gtest/gtest.h"

namespace anvil::parallel {
namespace {

std::vector<std::pair<int64_t, int64_t>> Chunks(int64_t n, int64_t min_chunk) {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  For(n, min_chunk, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    chunks.emplace_back(b, e);
  });
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

TEST(ParallelTest, SerialOutsideAScope) {
  EXPECT_EQ(CurrentThreads(), 1);
  EXPECT_EQ(Chunks(1000, 1), (std::vector<std::pair<int64_t, int64_t>>{{0, 1000}}));
}

TEST(ParallelTest, ChunksCoverTheRangeOnceInOrder) {
  ThreadScope scope(4);
  for (int64_t n : {1, 2, 7, 8, 9, 1000, 1001}) {
    const auto chunks = Chunks(n, 1);
    ASSERT_EQ(static_cast<int64_t>(chunks.size()), std::min<int64_t>(4, n)) << n;
    int64_t next = 0;
    for (const auto& [b, e] : chunks) {
      EXPECT_EQ(b, next) << n;
      EXPECT_LT(b, e) << n;
      next = e;
    }
    EXPECT_EQ(next, n);
  }
}

TEST(ParallelTest, MinChunkKeepsSmallLoopsSerial) {
  ThreadScope scope(4);
  EXPECT_EQ(Chunks(100, 64).size(), 1u);
  EXPECT_EQ(Chunks(200, 64).size(), 3u);
  EXPECT_EQ(ChunkCount(0, 1), 1);
}

TEST(ParallelTest, SplitAllIgnoresTheMinimumChunk) {
  ThreadScope scope(2);
  EXPECT_EQ(Chunks(100, 64).size(), 1u);
  {
    ScopedSplitAll split;
    EXPECT_EQ(Chunks(100, 64).size(), 2u);
    EXPECT_EQ(Chunks(1, 64).size(), 1u);
  }
  EXPECT_EQ(Chunks(100, 64).size(), 1u);
}

TEST(ParallelTest, RunsOnSeveralThreadsAndNestedLoopsAreSerial) {
  ThreadScope scope(2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<int> nested_chunks{0};
  For(2, 1, [&](int64_t, int64_t) {
    EXPECT_EQ(CurrentThreads(), 1);
    For(100, 1, [&](int64_t, int64_t) { ++nested_chunks; });
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(nested_chunks.load(), 2);  // one serial call per outer chunk
  if (Supported()) {
    EXPECT_EQ(ids.size(), 2u);
  }
}

TEST(ParallelTest, ASerialOuterLoopLeavesInnerLoopsParallel) {
  ThreadScope scope(2);
  std::atomic<int> inner_chunks{0};
  For(1, 1, [&](int64_t, int64_t) {
    EXPECT_EQ(CurrentThreads(), 2);
    For(100, 1, [&](int64_t, int64_t) { ++inner_chunks; });
  });
  EXPECT_EQ(inner_chunks.load(), 2);
}

TEST(ParallelTest, ScopesNestAndRestore) {
  {
    ThreadScope outer(3);
    EXPECT_EQ(CurrentThreads(), 3);
    {
      ThreadScope inner(0);
      EXPECT_EQ(CurrentThreads(), HardwareThreads());
    }
    EXPECT_EQ(CurrentThreads(), 3);
  }
  EXPECT_EQ(CurrentThreads(), 1);
}

// Scratch: a lease from the installed pool reuses what an earlier lease gave back (no new
// buffer), leases alive at once never share one, chunks on other threads lease from the caller's
// pool, and without a pool a lease's buffers are its own.
TEST(ScratchTest, LeasesReuseThePoolsBuffersAndNeverShareThem) {
  EXPECT_EQ(CurrentScratchPool(), nullptr);
  {
    ScratchLease own;  // no pool: its own buffer, freed with it
    float* p = own.Get<float>(0, 100);
    p[99] = 1.0f;
    EXPECT_EQ(own.Get<float>(0, 50), p);  // no more: the same buffer
  }
  ScratchPool pool;
  {
    ScratchScope scope(&pool);
    EXPECT_EQ(CurrentScratchPool(), &pool);
    float* first = nullptr;
    {
      ScratchLease lease;
      first = lease.Get<float>(0, 1000);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
      ScratchLease nested;  // alive at once: other buffers
      EXPECT_NE(nested.Get<float>(0, 1000), first);
    }
    EXPECT_EQ(pool.bytes(), 2 * 1000 * static_cast<int64_t>(sizeof(float)));
    {
      ScratchLease again;  // the set given back last (the outer lease's): its buffer again
      EXPECT_EQ(again.Get<float>(0, 10), first);
      EXPECT_EQ(pool.bytes(), 1000 * static_cast<int64_t>(sizeof(float)));  // one set lent out
    }
    ThreadScope threads(4);
    ScopedSplitAll split;
    std::atomic<int> from_pool{0};
    For(4, 1, [&](int64_t b, int64_t e) {
      if (CurrentScratchPool() == &pool) from_pool.fetch_add(static_cast<int>(e - b));
    });
    EXPECT_EQ(from_pool.load(), 4);
  }
  EXPECT_EQ(CurrentScratchPool(), nullptr);  // the scope restored none
  EXPECT_GT(pool.bytes(), 0);                // kept for later leases until the pool goes
}

}  // namespace
}  // namespace anvil::parallel
