// Scratch memory for kernels, owned by whoever runs them and reused across their calls, so that
// steady-state runs neither allocate nor touch fresh pages (for the megabyte buffers of im2col
// and Winograd blocks those cost more than the work they hold) while no memory is held by the
// process or by a thread: a ScratchPool belongs to a Session, a compiled model's host or a Tensor
// IR session, and goes with it.
//
//   ScratchScope scratch(&pool_);   // for a run: this thread's kernels lease from pool_
//   ...                             // parallel::For hands the pool to its chunks' threads
//   ScratchLease lease;             // in a kernel call or a chunk of its parallel loop
//   float* col = lease.Get<float>(0, n);
//
// A lease takes a set of buffers from the pool installed on its thread and gives it back when it
// ends (kept for the next lease); with no pool installed it has buffers of its own, freed when it
// ends. Leases alive at once (concurrent chunks, nested calls) never share a buffer.
//
// ScratchLease::Get<T>(slot, n): room for n values of T, 64-byte aligned, uninitialized (an
// earlier lease's bytes may be there). Asking a slot again for no more returns the same buffer
// with its contents; for more, a new larger one (the earlier pointer dies, its contents are not
// kept). Slots are independent: one lease holds up to ScratchSet::kSlots buffers at once.
#ifndef ANVIL_BASE_SCRATCH_H_
#define ANVIL_BASE_SCRATCH_H_

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace anvil {

// The buffers of one lease.
class ScratchSet {
 public:
  static constexpr int kSlots = 3;

  template <typename T>
  T* Get(int slot, size_t n) {
    assert(slot >= 0 && slot < kSlots);
    Buffer& b = buffers_[slot];
    const size_t bytes = n * sizeof(T);
    if (b.data == nullptr || b.bytes < bytes) {
      b.data.reset();  // first: the old and the new buffer are never both held
      b.data.reset(::operator new(bytes > 0 ? bytes : 1, std::align_val_t{kAlignment}));
      b.bytes = bytes;
    }
    return static_cast<T*>(b.data.get());
  }

  // Bytes of the buffers held.
  int64_t bytes() const;

 private:
  static constexpr size_t kAlignment = 64;
  struct Free {
    void operator()(void* p) const { ::operator delete(p, std::align_val_t{kAlignment}); }
  };
  struct Buffer {
    std::unique_ptr<void, Free> data;
    size_t bytes = 0;
  };
  Buffer buffers_[kSlots];
};

class ScratchPool {
 public:
  ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  // Bytes of the buffers the pool keeps for later leases (not those leased now).
  int64_t bytes() const;

 private:
  friend class ScratchLease;
  // A free set (the most recently given back: its buffers are the likeliest in cache), or a new
  // one.
  std::unique_ptr<ScratchSet> Take();
  void Give(std::unique_ptr<ScratchSet> set);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<ScratchSet>> free_;  // guarded by mu_
};

// Installs `pool` (or none: null) as the calling thread's scratch pool until destroyed, then
// restores the previous one. Scopes nest; the pool must outlive the scope.
class ScratchScope {
 public:
  explicit ScratchScope(ScratchPool* pool);
  ~ScratchScope();
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;

 private:
  ScratchPool* previous_;
};

// The pool installed on the calling thread; null when none is.
ScratchPool* CurrentScratchPool();

class ScratchLease {
 public:
  ScratchLease();
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  template <typename T>
  T* Get(int slot, size_t n) {
    return set_->Get<T>(slot, n);
  }

 private:
  ScratchPool* pool_;
  std::unique_ptr<ScratchSet> set_;
};

}  // namespace anvil

#endif  // ANVIL_BASE_SCRATCH_H_
