#include "graph/element_type.h"

#include <array>
#include <cstring>

#include "base/float16.h"

namespace anvil {
namespace {

struct ElementTypeInfo {
  ElementType type;
  size_t size;
  std::string_view name;
};

// Indexed by the enum's value.
constexpr std::array<ElementTypeInfo, 17> kInfo = {{
    {ElementType::kUndefined, 0, "undefined"},
    {ElementType::kFloat, 4, "float"},
    {ElementType::kUint8, 1, "uint8"},
    {ElementType::kInt8, 1, "int8"},
    {ElementType::kUint16, 2, "uint16"},
    {ElementType::kInt16, 2, "int16"},
    {ElementType::kInt32, 4, "int32"},
    {ElementType::kInt64, 8, "int64"},
    {ElementType::kString, 0, "string"},
    {ElementType::kBool, 1, "bool"},
    {ElementType::kFloat16, 2, "float16"},
    {ElementType::kDouble, 8, "double"},
    {ElementType::kUint32, 4, "uint32"},
    {ElementType::kUint64, 8, "uint64"},
    {ElementType::kComplex64, 8, "complex64"},
    {ElementType::kComplex128, 16, "complex128"},
    {ElementType::kBfloat16, 2, "bfloat16"},
}};

}  // namespace

bool IsValidElementType(int32_t value) { return value >= 1 && value <= 16; }

bool IsIntegerType(ElementType type) {
  switch (type) {
    case ElementType::kInt8:
    case ElementType::kInt16:
    case ElementType::kInt32:
    case ElementType::kInt64:
    case ElementType::kUint8:
    case ElementType::kUint16:
    case ElementType::kUint32:
    case ElementType::kUint64:
      return true;
    default:
      return false;
  }
}

size_t ElementSize(ElementType type) {
  const auto index = static_cast<int32_t>(type);
  return IsValidElementType(index) ? kInfo[index].size : 0;
}

std::string_view ElementTypeName(ElementType type) {
  const auto index = static_cast<int32_t>(type);
  return IsValidElementType(index) ? kInfo[index].name : "undefined";
}

ElementType ElementTypeFromName(std::string_view name) {
  for (const ElementTypeInfo& info : kInfo) {
    if (info.name == name) return info.type;
  }
  return ElementType::kUndefined;
}

float HalfBitsToFloat(uint16_t h) { return fp16::HalfToFloat(h); }

float Bfloat16BitsToFloat(uint16_t h) { return fp16::Bfloat16ToFloat(h); }

}  // namespace anvil
