// Element-type dispatch for kernels: calls a generic lambda with a value of the C++ type that
// stores each ONNX element type, so a kernel body is written once as a template.
//
//   return DispatchNumeric(x.type, ctx, [&](auto tag) -> absl::Status {
//     using T = decltype(tag);
//     ...
//   });
//
// float16 and bfloat16 are the Half and BFloat16 value types below: 16-bit storage, arithmetic
// through float (explicit conversions), round-to-nearest-even when narrowing.
#ifndef ANVIL_KERNELS_DISPATCH_H_
#define ANVIL_KERNELS_DISPATCH_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/element_type.h"

namespace anvil {

// IEEE binary16 storage.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
  static uint16_t FromFloat(float f);
};

// bfloat16 storage (the top half of a float).
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return Bfloat16BitsToFloat(bits); }
  static uint16_t FromFloat(float f);
};

template <typename T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloatLike = std::is_floating_point_v<T> || kIsHalfLike<T>;

// Converts between storage types through float/double/int64 as appropriate (C++ semantics for
// float->int: truncation; out-of-range is the caller's concern).
template <typename To, typename From>
inline To ConvertElement(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalfLike<From>) {
    return ConvertElement<To>(static_cast<float>(v));
  } else if constexpr (kIsHalfLike<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else {
    return static_cast<To>(v);
  }
}

absl::Status UnsupportedType(std::string_view op, ElementType type);

// Calls f(T{}) for the storage type of `type` among the numeric types (float, double, float16,
// bfloat16, int8..int64, uint8..uint64, bool); Unimplemented for others.
template <typename F>
absl::Status DispatchNumeric(ElementType type, std::string_view op, F&& f) {
  switch (type) {
    case ElementType::kFloat:
      return f(float{});
    case ElementType::kDouble:
      return f(double{});
    case ElementType::kFloat16:
      return f(Half{});
    case ElementType::kBfloat16:
      return f(BFloat16{});
    case ElementType::kInt8:
      return f(int8_t{});
    case ElementType::kInt16:
      return f(int16_t{});
    case ElementType::kInt32:
      return f(int32_t{});
    case ElementType::kInt64:
      return f(int64_t{});
    case ElementType::kUint8:
      return f(uint8_t{});
    case ElementType::kUint16:
      return f(uint16_t{});
    case ElementType::kUint32:
      return f(uint32_t{});
    case ElementType::kUint64:
      return f(uint64_t{});
    case ElementType::kBool:
      return f(bool{});
    default:
      return UnsupportedType(op, type);
  }
}

// Floating types only (float, double, float16, bfloat16).
template <typename F>
absl::Status DispatchFloat(ElementType type, std::string_view op, F&& f) {
  switch (type) {
    case ElementType::kFloat:
      return f(float{});
    case ElementType::kDouble:
      return f(double{});
    case ElementType::kFloat16:
      return f(Half{});
    case ElementType::kBfloat16:
      return f(BFloat16{});
    default:
      return UnsupportedType(op, type);
  }
}

// Integer types only (int8..int64, uint8..uint64).
template <typename F>
absl::Status DispatchInteger(ElementType type, std::string_view op, F&& f) {
  switch (type) {
    case ElementType::kInt8:
      return f(int8_t{});
    case ElementType::kInt16:
      return f(int16_t{});
    case ElementType::kInt32:
      return f(int32_t{});
    case ElementType::kInt64:
      return f(int64_t{});
    case ElementType::kUint8:
      return f(uint8_t{});
    case ElementType::kUint16:
      return f(uint16_t{});
    case ElementType::kUint32:
      return f(uint32_t{});
    case ElementType::kUint64:
      return f(uint64_t{});
    default:
      return UnsupportedType(op, type);
  }
}

// Any type by element size only (data movement: copy, transpose, gather): f(uintN_t{}).
template <typename F>
absl::Status DispatchBySize(ElementType type, std::string_view op, F&& f) {
  switch (ElementSize(type)) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    case 16: {
      struct Bytes16 {
        uint64_t lo, hi;
      };
      return f(Bytes16{});
    }
    default:
      return UnsupportedType(op, type);
  }
}

}  // namespace anvil

#endif  // ANVIL_KERNELS_DISPATCH_H_
