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
#include <utility>

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

// ---- Type dispatch: one switch, instantiated only for the types of a set ----

// Sets of element types (bit i = ElementType i).
constexpr uint32_t TypeBit(ElementType t) { return 1u << static_cast<int>(t); }
constexpr uint32_t kFloatTypes = TypeBit(ElementType::kFloat) | TypeBit(ElementType::kDouble) |
                                 TypeBit(ElementType::kFloat16) | TypeBit(ElementType::kBfloat16);
constexpr uint32_t kSignedIntTypes = TypeBit(ElementType::kInt8) | TypeBit(ElementType::kInt16) |
                                     TypeBit(ElementType::kInt32) | TypeBit(ElementType::kInt64);
constexpr uint32_t kUnsignedIntTypes =
    TypeBit(ElementType::kUint8) | TypeBit(ElementType::kUint16) | TypeBit(ElementType::kUint32) |
    TypeBit(ElementType::kUint64);
constexpr uint32_t kIntTypes = kSignedIntTypes | kUnsignedIntTypes;
constexpr uint32_t kSignedTypes = kFloatTypes | kSignedIntTypes;
// Numbers that arithmetic applies to (no bool).
constexpr uint32_t kNumericTypes = kFloatTypes | kIntTypes;
constexpr uint32_t kBoolType = TypeBit(ElementType::kBool);
// Every type with a numeric storage, bool included.
constexpr uint32_t kAllNumericTypes = kNumericTypes | kBoolType;

// Calls f(T{}) for the storage type of `type` when `type` is in kTypes (only those are
// instantiated); Unimplemented naming `op` and the type otherwise.
template <uint32_t kTypes, typename F>
absl::Status DispatchTypes(ElementType type, std::string_view op, F&& f) {
#define ANVIL_DISPATCH_CASE(kType, Storage)                      \
  case ElementType::kType:                                       \
    if constexpr ((kTypes & TypeBit(ElementType::kType)) != 0) { \
      return f(Storage{});                                       \
    }                                                            \
    break;
  switch (type) {
    ANVIL_DISPATCH_CASE(kFloat, float)
    ANVIL_DISPATCH_CASE(kDouble, double)
    ANVIL_DISPATCH_CASE(kFloat16, Half)
    ANVIL_DISPATCH_CASE(kBfloat16, BFloat16)
    ANVIL_DISPATCH_CASE(kInt8, int8_t)
    ANVIL_DISPATCH_CASE(kInt16, int16_t)
    ANVIL_DISPATCH_CASE(kInt32, int32_t)
    ANVIL_DISPATCH_CASE(kInt64, int64_t)
    ANVIL_DISPATCH_CASE(kUint8, uint8_t)
    ANVIL_DISPATCH_CASE(kUint16, uint16_t)
    ANVIL_DISPATCH_CASE(kUint32, uint32_t)
    ANVIL_DISPATCH_CASE(kUint64, uint64_t)
    ANVIL_DISPATCH_CASE(kBool, bool)
    default:
      break;
  }
#undef ANVIL_DISPATCH_CASE
  return UnsupportedType(op, type);
}

// The common sets by name.
template <typename F>
absl::Status DispatchNumeric(ElementType type, std::string_view op, F&& f) {  // bool included
  return DispatchTypes<kAllNumericTypes>(type, op, std::forward<F>(f));
}
template <typename F>
absl::Status DispatchArithmetic(ElementType type, std::string_view op, F&& f) {  // no bool
  return DispatchTypes<kNumericTypes>(type, op, std::forward<F>(f));
}
template <typename F>
absl::Status DispatchFloat(ElementType type, std::string_view op, F&& f) {
  return DispatchTypes<kFloatTypes>(type, op, std::forward<F>(f));
}

// The type arithmetic on T happens in: float for float16/bfloat16, T otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIsHalfLike<T>, float, T>;

// Floating types, calling f with the compute type: float for float, float16 and bfloat16 (one
// instantiation for the three), double for double.
template <typename F>
absl::Status DispatchFloatCompute(ElementType type, std::string_view op, F&& f) {
  return DispatchFloat(type, op, [&](auto tag) { return f(ComputeType<decltype(tag)>{}); });
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
