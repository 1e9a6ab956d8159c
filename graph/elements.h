// Constant tensor payloads. The graph holds every constant (initializer, Constant-node value,
// tensor attribute) as a shared `Elements` handle and never assumes how it is stored: dense bytes
// (`DenseElements`, here) and constprop's disposable views implement the same interface, so a
// reader works with either.
//
// Contract: elements are immutable once built and are laid out (logically) row-major. Numeric
// data is read as little-endian dense bytes in the layout of element_type.h. String tensors
// expose `strings()` instead of bytes.
#ifndef ANVIL_GRAPH_ELEMENTS_H_
#define ANVIL_GRAPH_ELEMENTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "graph/element_type.h"

namespace anvil {

// Bytes owned somewhere: a heap vector, a memory-mapped file range, a pool buffer.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual const uint8_t* data() const = 0;
  virtual size_t size() const = 0;
  // Lets the OS drop the resident pages of a file mapping (they are read from the file again on
  // the next access); nothing for memory that is not file-backed.
  virtual void DropResidentPages() const {}
  // Whether the bytes are a file mapping (pages the OS can drop and read again), not memory.
  virtual bool FileBacked() const { return false; }
};

// A heap-owned buffer.
class OwnedBuffer final : public Buffer {
 public:
  explicit OwnedBuffer(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  const uint8_t* data() const override { return bytes_.data(); }
  size_t size() const override { return bytes_.size(); }

 private:
  std::vector<uint8_t> bytes_;
};

class Elements {
 public:
  virtual ~Elements() = default;

  virtual ElementType element_type() const = 0;
  virtual absl::Span<const int64_t> dims() const = 0;

  int64_t NumElements() const;
  // NumElements() * ElementSize(element_type()); 0 for strings.
  size_t ByteSize() const;

  // The dense row-major bytes when they exist contiguously without a copy; nullptr otherwise
  // (views, lazy transforms). Never nullptr for DenseElements of a numeric type.
  virtual const uint8_t* ContiguousData() const { return nullptr; }

  // Writes the ByteSize() dense row-major bytes to `dst`. Numeric types only.
  virtual void CopyTo(uint8_t* dst) const = 0;

  // Writes the ElementSize() bytes of element `i` (row-major) to `dst`. Numeric types only. The
  // default materializes the whole tensor; implementations whose storage is not dense override.
  virtual void ReadElement(int64_t i, uint8_t* dst) const;

  // Calls `fn` with the dense row-major bytes in order, in pieces of at most `max_chunk_bytes`
  // (but at least one element), never holding a dense copy of the whole tensor when the storage
  // can produce it piecewise. Stops at, and returns, the first error of `fn`. Numeric types only.
  using ChunkFn = std::function<absl::Status(absl::Span<const uint8_t>)>;
  virtual absl::Status ForEachChunk(size_t max_chunk_bytes, const ChunkFn& fn) const;

  // Drops the resident pages of file-mapped storage this constant reads: for a one-time full
  // read (export, a fold) of data that may not be read again.
  virtual void DropResidentPages() const {}

  // Whether the values are read from a file mapping (external data mapped at load) rather than
  // held in memory: what memory accounting counts as mapped weights.
  virtual bool FileBacked() const { return false; }

  // The values of a string tensor; empty for other types.
  virtual absl::Span<const std::string> strings() const { return {}; }

  // Reads element `i` (row-major) converted to double / int64. Numeric types only; slow path
  // meant for small tensors (shapes, axes), not for bulk data.
  double GetDouble(int64_t i) const;
  int64_t GetInt64(int64_t i) const;

  // True when both hold the same element type, dims and values (bitwise for floats).
  bool Equals(const Elements& other) const;
};

// Element `index` of dense little-endian data of `type`, converted to int64 / double (numeric
// types only). What Elements::GetInt64/GetDouble do, for callers holding raw buffers.
int64_t ReadElementAsInt64(ElementType type, const uint8_t* data, int64_t index);
double ReadElementAsDouble(ElementType type, const uint8_t* data, int64_t index);

// Dense row-major constant data held in a shared Buffer (or a string vector).
class DenseElements final : public Elements {
 public:
  // `buffer` must hold exactly NumElements() * ElementSize(type) bytes starting at `offset`.
  DenseElements(ElementType type, std::vector<int64_t> dims, std::shared_ptr<const Buffer> buffer,
                size_t offset = 0);
  // A string tensor.
  DenseElements(std::vector<int64_t> dims, std::vector<std::string> strings);

  // Copies `bytes` into a new owned buffer.
  static std::shared_ptr<const DenseElements> FromBytes(ElementType type, std::vector<int64_t> dims,
                                                        const void* bytes, size_t size);
  template <typename T>
  static std::shared_ptr<const DenseElements> FromVector(ElementType type,
                                                         std::vector<int64_t> dims,
                                                         const std::vector<T>& values) {
    return FromBytes(type, std::move(dims), values.data(), values.size() * sizeof(T));
  }

  ElementType element_type() const override { return type_; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  const uint8_t* ContiguousData() const override;
  void CopyTo(uint8_t* dst) const override;
  void ReadElement(int64_t i, uint8_t* dst) const override;
  void DropResidentPages() const override;
  bool FileBacked() const override { return buffer_ != nullptr && buffer_->FileBacked(); }
  absl::Span<const std::string> strings() const override { return strings_; }

 private:
  ElementType type_;
  std::vector<int64_t> dims_;
  std::shared_ptr<const Buffer> buffer_;
  size_t offset_ = 0;
  std::vector<std::string> strings_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_ELEMENTS_H_
