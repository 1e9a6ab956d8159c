#include "base/checked_math.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace anvil {

std::string DimsToString(absl::Span<const int64_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) absl::StrAppend(&s, i ? "," : "", dims[i]);
  return s + "]";
}

absl::StatusOr<int64_t> CheckedElementCount(absl::Span<const int64_t> dims) {
  int64_t count = 1;
  bool overflow = false;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dims ", DimsToString(dims), " have a negative dim ", d));
    }
    if (d == 0) return 0;  // before overflow: [2^62, 4, 0] is empty, not too large
    if (std::optional<int64_t> p = CheckedMul(count, d)) {
      count = *p;
    } else {
      overflow = true;  // keep looking for a zero or a negative dim
    }
  }
  if (overflow) {
    return absl::OutOfRangeError(
        absl::StrCat("dims ", DimsToString(dims), " have more than 2^63 elements"));
  }
  return count;
}

absl::StatusOr<int64_t> CheckedByteSize(absl::Span<const int64_t> dims, int64_t element_size) {
  ANVIL_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(dims));
  std::optional<int64_t> bytes = CheckedMul(count, element_size);
  if (!bytes) {
    return absl::OutOfRangeError(absl::StrCat("dims ", DimsToString(dims), " of ", element_size,
                                              "-byte elements are more than 2^63 bytes"));
  }
  return *bytes;
}

std::string HumanBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  if (v < 10) return absl::StrFormat("%.1f %s", v, kUnits[unit]);
  return absl::StrFormat("%.0f %s", v, kUnits[unit]);
}

}  // namespace anvil
