#include "kernels/dispatch.h"

#include <cmath>

#include "base/absl_compat.h"

namespace anvil {

uint16_t Half::FromFloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero): round to nearest even
    float magnitude;
    std::memcpy(&magnitude, &abs, sizeof(magnitude));
    const float scaled = magnitude * 16777216.0f;  // 2^24: units of the smallest subnormal
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent, round the mantissa to nearest even.
  uint32_t h = ((abs >> 13) - ((127 - 15) << 10));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t BFloat16::FromFloat(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof(x));
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

absl::Status UnsupportedType(std::string_view op, ElementType type) {
  return absl::UnimplementedError(absl::StrCat(
      AsAbsl(op), ": element type ", std::string(ElementTypeName(type)), " is not supported"));
}

}  // namespace anvil
