// Data types of the Tensor IR: a scalar kind, a number of vector lanes, and whether the value is
// a pointer to such elements. `f32` is one float, `f32x16` sixteen floats in one vector value,
// `f32*` a pointer to floats (what a kernel intrinsic receives), `index` the type of loop
// variables, tensor dims and subscripts (64-bit signed, like int64_t).
//
// Semantics of arithmetic on each kind are defined once, in expr.h.
#ifndef ANVIL_LOWER_IR_TYPE_H_
#define ANVIL_LOWER_IR_TYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/element_type.h"

namespace anvil::tir {

enum class ScalarKind : uint8_t {
  kVoid,
  kBool,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kIndex,
  // Element kinds a tensor may hold but no expression computes on (kernel calls move them).
  kC64,
  kC128,
  kString,
  // A whole runtime value that is not a tensor: a sequence, or an optional (empty, or holding a
  // tensor or sequence). A tensor of this kind has rank 0 and stands for the value itself; only
  // kernel calls read and write it (emitted code passes its buffer, whose data points at the
  // host's Tensor object, from call to call).
  kValue,
};

class DataType {
 public:
  constexpr DataType() = default;
  constexpr DataType(ScalarKind kind, int lanes = 1, bool pointer = false)  // NOLINT
      : kind_(kind), lanes_(static_cast<uint16_t>(lanes)), pointer_(pointer) {}

  static constexpr DataType Void() { return DataType(ScalarKind::kVoid); }
  static constexpr DataType Bool(int lanes = 1) { return DataType(ScalarKind::kBool, lanes); }
  static constexpr DataType Index() { return DataType(ScalarKind::kIndex); }
  static constexpr DataType F32(int lanes = 1) { return DataType(ScalarKind::kF32, lanes); }
  static constexpr DataType F64(int lanes = 1) { return DataType(ScalarKind::kF64, lanes); }
  static constexpr DataType S64(int lanes = 1) { return DataType(ScalarKind::kS64, lanes); }

  ScalarKind kind() const { return kind_; }
  int lanes() const { return lanes_; }
  bool is_pointer() const { return pointer_; }
  bool is_vector() const { return lanes_ > 1; }

  bool is_void() const { return kind_ == ScalarKind::kVoid && !pointer_; }
  bool is_bool() const { return kind_ == ScalarKind::kBool && !pointer_; }
  // f16, bf16, f32, f64 (not pointers).
  bool is_float() const;
  // Signed or unsigned integers and index (not bool, not pointers).
  bool is_int() const;
  bool is_signed_int() const;
  bool is_unsigned_int() const;
  bool is_index() const { return kind_ == ScalarKind::kIndex && !pointer_ && lanes_ == 1; }
  // Types expressions compute on: numbers and bools (not void, complex or string).
  bool is_arithmetic() const { return (is_float() || is_int() || is_bool()); }
  // Whether a tensor may hold elements of this kind (a scalar of any kind but void and index).
  bool is_tensor_element() const;

  // The same kind with `lanes` lanes / as a scalar / as a pointer.
  DataType with_lanes(int lanes) const { return DataType(kind_, lanes, pointer_); }
  DataType element() const { return DataType(kind_, 1, false); }
  DataType pointer_to() const { return DataType(kind_, 1, true); }

  // Bits of one lane's value (bool: 8, index: 64); 0 for void, string and value.
  int bits() const;

  // "f32", "f32x16", "f32*", "index", "bool", "void".
  std::string ToString() const;

  bool operator==(const DataType& o) const = default;

 private:
  ScalarKind kind_ = ScalarKind::kVoid;
  uint16_t lanes_ = 1;
  bool pointer_ = false;
};

// Parses ToString()'s form; nullopt when it is not a type.
std::optional<DataType> ParseDataType(std::string_view text);

// The scalar kind holding ONNX elements of `type` (string and complex as opaque kinds); nullopt
// for kUndefined.
std::optional<ScalarKind> ScalarKindOf(ElementType type);
// The ONNX element type of a tensor element kind (kUndefined for void and index).
ElementType ElementTypeOf(ScalarKind kind);

// Rounds `v` to what a float of `kind` holds (f16, bf16, f32; f64 unchanged).
double RoundToFloat(ScalarKind kind, double v);
// Wraps `v` to the width and signedness of an integer or bool kind.
int64_t WrapToInt(ScalarKind kind, int64_t v);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_TYPE_H_
