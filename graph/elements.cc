#include "graph/elements.h"

#include <algorithm>
#include <cstring>

#include "base/status_macros.h"

namespace anvil {
namespace {

template <typename T>
T LoadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Reads one element at byte pointer `p` as double.
double ReadAsDouble(ElementType type, const uint8_t* p) {
  switch (type) {
    case ElementType::kFloat:
      return LoadAs<float>(p);
    case ElementType::kDouble:
      return LoadAs<double>(p);
    case ElementType::kUint8:
      return LoadAs<uint8_t>(p);
    case ElementType::kInt8:
      return LoadAs<int8_t>(p);
    case ElementType::kUint16:
      return LoadAs<uint16_t>(p);
    case ElementType::kInt16:
      return LoadAs<int16_t>(p);
    case ElementType::kInt32:
      return LoadAs<int32_t>(p);
    case ElementType::kInt64:
      return static_cast<double>(LoadAs<int64_t>(p));
    case ElementType::kUint32:
      return LoadAs<uint32_t>(p);
    case ElementType::kUint64:
      return static_cast<double>(LoadAs<uint64_t>(p));
    case ElementType::kBool:
      return *p != 0;
    case ElementType::kFloat16:
      return HalfBitsToFloat(LoadAs<uint16_t>(p));
    case ElementType::kBfloat16:
      return Bfloat16BitsToFloat(LoadAs<uint16_t>(p));
    case ElementType::kComplex64:
      return LoadAs<float>(p);  // real part
    case ElementType::kComplex128:
      return LoadAs<double>(p);
    default:
      return 0;
  }
}

int64_t ReadAsInt64(ElementType type, const uint8_t* p) {
  switch (type) {
    case ElementType::kInt64:
      return LoadAs<int64_t>(p);
    case ElementType::kUint64:
      return static_cast<int64_t>(LoadAs<uint64_t>(p));
    case ElementType::kInt32:
      return LoadAs<int32_t>(p);
    case ElementType::kUint32:
      return LoadAs<uint32_t>(p);
    case ElementType::kInt16:
      return LoadAs<int16_t>(p);
    case ElementType::kUint16:
      return LoadAs<uint16_t>(p);
    case ElementType::kInt8:
      return LoadAs<int8_t>(p);
    case ElementType::kUint8:
      return LoadAs<uint8_t>(p);
    case ElementType::kBool:
      return *p != 0;
    default:
      return static_cast<int64_t>(ReadAsDouble(type, p));
  }
}

}  // namespace

int64_t ReadElementAsInt64(ElementType type, const uint8_t* data, int64_t index) {
  return ReadAsInt64(type, data + index * ElementSize(type));
}

double ReadElementAsDouble(ElementType type, const uint8_t* data, int64_t index) {
  return ReadAsDouble(type, data + index * ElementSize(type));
}

int64_t Elements::NumElements() const {
  int64_t n = 1;
  for (int64_t d : dims()) n *= d;
  return n;
}

size_t Elements::ByteSize() const {
  return static_cast<size_t>(NumElements()) * ElementSize(element_type());
}

double Elements::GetDouble(int64_t i) const {
  uint8_t element[16];
  ReadElement(i, element);
  return ReadAsDouble(element_type(), element);
}

int64_t Elements::GetInt64(int64_t i) const {
  uint8_t element[16];
  ReadElement(i, element);
  return ReadAsInt64(element_type(), element);
}

void Elements::ReadElement(int64_t i, uint8_t* dst) const {
  const size_t size = ElementSize(element_type());
  if (const uint8_t* data = ContiguousData()) {
    std::memcpy(dst, data + i * size, size);
    return;
  }
  std::vector<uint8_t> all(ByteSize());
  CopyTo(all.data());
  std::memcpy(dst, all.data() + i * size, size);
}

absl::Status Elements::ForEachChunk(size_t max_chunk_bytes, const ChunkFn& fn) const {
  const size_t total = ByteSize();
  if (total == 0) return absl::OkStatus();
  const size_t element = ElementSize(element_type());
  const size_t chunk = std::max(element, max_chunk_bytes / element * element);
  std::vector<uint8_t> copy;
  const uint8_t* data = ContiguousData();
  if (data == nullptr) {  // storage that cannot do better: one dense copy
    copy.resize(total);
    CopyTo(copy.data());
    data = copy.data();
  }
  for (size_t done = 0; done < total; done += chunk) {
    ANVIL_RETURN_IF_ERROR(fn(absl::MakeConstSpan(data + done, std::min(chunk, total - done))));
  }
  return absl::OkStatus();
}

bool Elements::Equals(const Elements& other) const {
  if (this == &other) return true;
  if (element_type() != other.element_type()) return false;
  if (dims().size() != other.dims().size() ||
      !std::equal(dims().begin(), dims().end(), other.dims().begin())) {
    return false;
  }
  if (element_type() == ElementType::kString) {
    auto a = strings();
    auto b = other.strings();
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  const size_t n = ByteSize();
  const uint8_t* a = ContiguousData();
  const uint8_t* b = other.ContiguousData();
  std::vector<uint8_t> a_copy, b_copy;
  if (a == nullptr) {
    a_copy.resize(n);
    CopyTo(a_copy.data());
    a = a_copy.data();
  }
  if (b == nullptr) {
    b_copy.resize(n);
    other.CopyTo(b_copy.data());
    b = b_copy.data();
  }
  return n == 0 || std::memcmp(a, b, n) == 0;
}

DenseElements::DenseElements(ElementType type, std::vector<int64_t> dims,
                             std::shared_ptr<const Buffer> buffer, size_t offset)
    : type_(type), dims_(std::move(dims)), buffer_(std::move(buffer)), offset_(offset) {}

DenseElements::DenseElements(std::vector<int64_t> dims, std::vector<std::string> strings)
    : type_(ElementType::kString), dims_(std::move(dims)), strings_(std::move(strings)) {}

std::shared_ptr<const DenseElements> DenseElements::FromBytes(ElementType type,
                                                              std::vector<int64_t> dims,
                                                              const void* bytes, size_t size) {
  const auto* begin = static_cast<const uint8_t*>(bytes);
  auto buffer = std::make_shared<OwnedBuffer>(std::vector<uint8_t>(begin, begin + size));
  return std::make_shared<DenseElements>(type, std::move(dims), std::move(buffer));
}

const uint8_t* DenseElements::ContiguousData() const {
  if (buffer_ == nullptr) return nullptr;
  return buffer_->data() + offset_;
}

void DenseElements::CopyTo(uint8_t* dst) const {
  const size_t n = ByteSize();
  if (n > 0 && buffer_ != nullptr) std::memcpy(dst, buffer_->data() + offset_, n);
}

void DenseElements::ReadElement(int64_t i, uint8_t* dst) const {
  const size_t size = ElementSize(type_);
  std::memcpy(dst, buffer_->data() + offset_ + i * size, size);
}

void DenseElements::DropResidentPages() const {
  if (buffer_ != nullptr) buffer_->DropResidentPages();
}

}  // namespace anvil
