// What a host of emitted code provides besides kernel calls (emit/abi.h): gemm, with constant
// f32 weights packed once into the layout the micro-kernel reads (as the interpreter's MatMul
// and Gemm kernels pack theirs), and parallel_for on base/parallel's threads. The JIT's host and
// the AOT kernel host (emit/aot_host.h) both use these, so compiled code computes the same
// either way.
#ifndef ANVIL_LOWER_JIT_HOST_SUPPORT_H_
#define ANVIL_LOWER_JIT_HOST_SUPPORT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/simd/gemm.h"
#include "runtime/memory_planner.h"

namespace anvil::lower {

// Packed copies of constant f32 weights (simd::PackB), each for the gemm calls with B at the
// weight's address and one set of parameters. The copies are immutable and shared: copying a
// PackedWeights, or Share, hands out the same copies, which are freed with their last holder.
// An AOT library's contexts share its weights this way (emit/aot_host.h).
class PackedWeights {
 public:
  // Packs the weight at `data` (`elements` floats, constant while any holder of the copy lives)
  // for gemm calls with B = data and these parameters. A use whose rows do not lie inside the
  // weight is left to the unpacked path (nothing is packed).
  void Pack(const float* data, int64_t elements, bool trans_b, int64_t k, int64_t n, int64_t ldb);

  // Holds every packed copy of `other` that this one lacks (the same copies: nothing is packed).
  void Share(const PackedWeights& other);

  // The packed copy for a gemm with B = data and these parameters, shared; null when none.
  std::shared_ptr<const simd::PackedB> Find(const void* data, bool trans_b, int64_t k, int64_t n,
                                            int64_t ldb) const;

 private:
  friend class GemmHost;
  struct Packed {
    bool trans_b;
    int64_t ldb;
    std::shared_ptr<const simd::PackedB> packed;
  };
  const Packed* Lookup(const void* data, bool trans_b, int64_t k, int64_t n, int64_t ldb) const;

  absl::flat_hash_map<const void*, std::vector<Packed>> packed_;
};

class GemmHost {
 public:
  // Packs a weight for this host's gemm calls (PackedWeights::Pack).
  void PackWeight(const float* data, int64_t elements, bool trans_b, int64_t k, int64_t n,
                  int64_t ldb) {
    weights_.Pack(data, elements, trans_b, k, n, ldb);
  }
  // Uses the packed copies of `weights` too, sharing them (an AOT library's, which its contexts'
  // hosts hold one copy of between them).
  void ShareWeights(const PackedWeights& weights) { weights_.Share(weights); }
  const PackedWeights& weights() const { return weights_; }

  // C = alpha op(A) op(B) + beta C (row-major, AnvilHost's gemm): SgemmPackedB when B is a packed
  // weight with these parameters (any rows: batch-1 layers too, as the interpreter runs them),
  // else Sgemm or Dgemm. Hosts that pack the same weights compute the same bits (the evaluator
  // packs what compiled code does). InvalidArgument for a negative size. Safe to call
  // concurrently (compiled code's parallel loops).
  absl::Status Gemm(bool f64, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                    double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                    double beta, void* c, int64_t ldc) const;

  // Gemm calls so far that ran on a packed weight (SgemmPackedB): tests check that constant
  // weights are used packed (the unpacked path gives the same products).
  int64_t packed_products() const { return packed_products_.load(std::memory_order_relaxed); }

 private:
  PackedWeights weights_;
  mutable std::atomic<int64_t> packed_products_{0};
};

// The per-run placement of a module's workspace buffers (emit_cc.h: EmittedModule::lifetimes and
// its sizes function), with the runtime's MemoryPlanner: buffers whose lifetimes overlap never
// share bytes; re-planned only when a size changed.
class WorkspacePlan {
 public:
  // Lifetimes as [first, last] top-level steps; InvalidArgument for one that runs backwards.
  static absl::StatusOr<WorkspacePlan> Make(absl::Span<const std::pair<int, int>> lifetimes);

  // Places buffers of `sizes` bytes (one per lifetime; -1 is what a sizes function reports for
  // a byte size that overflows) and writes their 64-byte aligned offsets; returns the
  // workspace's bytes. InvalidArgument naming the buffer for a negative size, one whose aligned
  // sum overflows, or a count other than the lifetimes'.
  absl::StatusOr<int64_t> Place(absl::Span<const int64_t> sizes, absl::Span<int64_t> offsets);

 private:
  explicit WorkspacePlan(std::unique_ptr<MemoryPlanner> planner) : planner_(std::move(planner)) {}
  std::unique_ptr<MemoryPlanner> planner_;
  size_t count_ = 0;
};

// AnvilHost's parallel_for: chunk(closure, lo, hi) over [0, trips) through parallel::For with
// the calling thread's ThreadScope; nonzero when a chunk returned nonzero.
int32_t HostParallelFor(int64_t trips, int64_t work_per_trip,
                        int32_t (*chunk)(void* closure, int64_t lo, int64_t hi), void* closure);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_JIT_HOST_SUPPORT_H_
