// Size arithmetic that cannot wrap: element counts and byte sizes of tensors whose dims come
// from untrusted models. Every allocation of a tensor computes its size through these, so a
// product near 2^63 is an error rather than a small, wrong allocation.
//
// Contract: dims are validated here too — a negative dim is an error, not a silent zero.
#ifndef ANVIL_BASE_CHECKED_MATH_H_
#define ANVIL_BASE_CHECKED_MATH_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace anvil {

// a * b, or nullopt when it overflows int64.
inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, or nullopt when it overflows int64.
inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// "[2,3,4]": how size errors quote dims.
std::string DimsToString(absl::Span<const int64_t> dims);

// The product of `dims`. InvalidArgument naming the dims when one is negative; OutOfRange when
// the product does not fit in int64 (a dim of 0 makes the product 0 whatever the others are).
absl::StatusOr<int64_t> CheckedElementCount(absl::Span<const int64_t> dims);

// CheckedElementCount(dims) * element_size, with the same errors; OutOfRange also when the byte
// size does not fit in int64.
absl::StatusOr<int64_t> CheckedByteSize(absl::Span<const int64_t> dims, int64_t element_size);

// "1.5 GiB", "512 MiB", "12 KiB", "7 B": byte counts in messages.
std::string HumanBytes(int64_t bytes);

}  // namespace anvil

#endif  // ANVIL_BASE_CHECKED_MATH_H_
