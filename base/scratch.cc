#include "base/scratch.h"

#include <utility>

namespace anvil {
namespace {

// The pool a ScratchScope installed on this thread: the configuration of the work running here
// (as parallel's thread count is), pointing at memory its owner holds; null outside any scope.
thread_local ScratchPool* t_scratch = nullptr;

}  // namespace

int64_t ScratchSet::bytes() const {
  int64_t total = 0;
  for (const Buffer& b : buffers_) total += b.data != nullptr ? static_cast<int64_t>(b.bytes) : 0;
  return total;
}

int64_t ScratchPool::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t total = 0;
  for (const std::unique_ptr<ScratchSet>& set : free_) total += set->bytes();
  return total;
}

std::unique_ptr<ScratchSet> ScratchPool::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.empty()) return std::make_unique<ScratchSet>();
  std::unique_ptr<ScratchSet> set = std::move(free_.back());
  free_.pop_back();
  return set;
}

void ScratchPool::Give(std::unique_ptr<ScratchSet> set) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(set));
}

ScratchScope::ScratchScope(ScratchPool* pool) : previous_(t_scratch) { t_scratch = pool; }

ScratchScope::~ScratchScope() { t_scratch = previous_; }

ScratchPool* CurrentScratchPool() { return t_scratch; }

ScratchLease::ScratchLease()
    : pool_(t_scratch), set_(pool_ != nullptr ? pool_->Take() : std::make_unique<ScratchSet>()) {}

ScratchLease::~ScratchLease() {
  if (pool_ != nullptr) pool_->Give(std::move(set_));
}

}  // namespace anvil
