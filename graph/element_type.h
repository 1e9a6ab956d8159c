// Element types of tensors, numbered as ONNX's TensorProto.DataType so that import and export are
// a cast. Sizes are the in-memory size of one element in Anvil's dense little-endian layout:
// bool is one byte, float16/bfloat16 two, complex64 eight; strings have no fixed size (0).
#ifndef ANVIL_GRAPH_ELEMENT_TYPE_H_
#define ANVIL_GRAPH_ELEMENT_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace anvil {

enum class ElementType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
};

// Bytes per element in dense storage; 0 for kString and kUndefined.
size_t ElementSize(ElementType type);

// The ONNX textual-syntax name: "float", "int64", "bfloat16", ...; "undefined" if unknown.
std::string_view ElementTypeName(ElementType type);

// Parses a name produced by ElementTypeName. Returns kUndefined when unknown.
ElementType ElementTypeFromName(std::string_view name);

// True for the values 1..16 listed above.
bool IsValidElementType(int32_t value);

// int8..int64 and uint8..uint64.
bool IsIntegerType(ElementType type);
// Integers and bool: the types whose contents are exact small integers (shapes, axes, masks).
inline bool IsIntegerOrBoolType(ElementType type) {
  return IsIntegerType(type) || type == ElementType::kBool;
}

// IEEE binary16 and bfloat16 bit patterns to float, exactly (subnormals, inf and NaN kept).
float HalfBitsToFloat(uint16_t bits);
float Bfloat16BitsToFloat(uint16_t bits);

}  // namespace anvil

#endif  // ANVIL_GRAPH_ELEMENT_TYPE_H_
