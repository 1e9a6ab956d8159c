#include "graph/mapped_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"

namespace anvil {
namespace {

class MappedBuffer final : public Buffer {
 public:
  MappedBuffer(void* base, size_t mapped, size_t delta, size_t size)
      : base_(base), mapped_(mapped), delta_(delta), size_(size) {}
  ~MappedBuffer() override {
    if (base_ != nullptr) munmap(base_, mapped_);
  }
  const uint8_t* data() const override { return static_cast<const uint8_t*>(base_) + delta_; }
  size_t size() const override { return size_; }
  void DropResidentPages() const override {
    // A private mapping never written to: dropping only forgets the copies of file pages.
    if (base_ != nullptr) madvise(base_, mapped_, MADV_DONTNEED);
  }
  bool FileBacked() const override { return true; }

 private:
  void* base_;
  size_t mapped_;
  size_t delta_;
  size_t size_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<const Buffer>> MapFileRange(int fd, uint64_t offset, uint64_t size,
                                                           const std::string& label) {
  if (size == 0) return std::make_shared<MappedBuffer>(nullptr, 0, 0, 0);
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = offset / page * page;
  const uint64_t delta = offset - start;
  void* base = mmap(nullptr, size + delta, PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
  if (base == MAP_FAILED) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat(label, ": cannot map ", size, " bytes at offset ", offset));
  }
  return std::make_shared<MappedBuffer>(base, size + delta, delta, size);
}

}  // namespace anvil
