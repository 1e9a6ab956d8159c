#include "lower/ir/type.h"

#include <string>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "kernels/dispatch.h"

namespace anvil::tir {
namespace {

struct KindName {
  ScalarKind kind;
  const char* name;
  ElementType element;
};

// Sorted to stay in ScalarKind's order.
constexpr KindName kKinds[] = {
    {ScalarKind::kVoid, "void", ElementType::kUndefined},
    {ScalarKind::kBool, "bool", ElementType::kBool},
    {ScalarKind::kS8, "s8", ElementType::kInt8},
    {ScalarKind::kS16, "s16", ElementType::kInt16},
    {ScalarKind::kS32, "s32", ElementType::kInt32},
    {ScalarKind::kS64, "s64", ElementType::kInt64},
    {ScalarKind::kU8, "u8", ElementType::kUint8},
    {ScalarKind::kU16, "u16", ElementType::kUint16},
    {ScalarKind::kU32, "u32", ElementType::kUint32},
    {ScalarKind::kU64, "u64", ElementType::kUint64},
    {ScalarKind::kF16, "f16", ElementType::kFloat16},
    {ScalarKind::kBF16, "bf16", ElementType::kBfloat16},
    {ScalarKind::kF32, "f32", ElementType::kFloat},
    {ScalarKind::kF64, "f64", ElementType::kDouble},
    {ScalarKind::kIndex, "index", ElementType::kUndefined},
    {ScalarKind::kC64, "c64", ElementType::kComplex64},
    {ScalarKind::kC128, "c128", ElementType::kComplex128},
    {ScalarKind::kString, "string", ElementType::kString},
    {ScalarKind::kValue, "value", ElementType::kUndefined},
};

const KindName& Info(ScalarKind kind) { return kKinds[static_cast<int>(kind)]; }

}  // namespace

bool DataType::is_float() const {
  if (pointer_) return false;
  return kind_ == ScalarKind::kF16 || kind_ == ScalarKind::kBF16 || kind_ == ScalarKind::kF32 ||
         kind_ == ScalarKind::kF64;
}

bool DataType::is_signed_int() const {
  if (pointer_) return false;
  return kind_ == ScalarKind::kS8 || kind_ == ScalarKind::kS16 || kind_ == ScalarKind::kS32 ||
         kind_ == ScalarKind::kS64 || kind_ == ScalarKind::kIndex;
}

bool DataType::is_unsigned_int() const {
  if (pointer_) return false;
  return kind_ == ScalarKind::kU8 || kind_ == ScalarKind::kU16 || kind_ == ScalarKind::kU32 ||
         kind_ == ScalarKind::kU64;
}

bool DataType::is_int() const { return is_signed_int() || is_unsigned_int(); }

bool DataType::is_tensor_element() const {
  return !pointer_ && lanes_ == 1 && kind_ != ScalarKind::kVoid && kind_ != ScalarKind::kIndex;
}

int DataType::bits() const {
  switch (kind_) {
    case ScalarKind::kVoid:
    case ScalarKind::kString:
    case ScalarKind::kValue:
      return 0;
    case ScalarKind::kBool:
    case ScalarKind::kS8:
    case ScalarKind::kU8:
      return 8;
    case ScalarKind::kS16:
    case ScalarKind::kU16:
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
      return 16;
    case ScalarKind::kS32:
    case ScalarKind::kU32:
    case ScalarKind::kF32:
      return 32;
    case ScalarKind::kS64:
    case ScalarKind::kU64:
    case ScalarKind::kF64:
    case ScalarKind::kIndex:
    case ScalarKind::kC64:
      return 64;
    case ScalarKind::kC128:
      return 128;
  }
  return 0;
}

std::string DataType::ToString() const {
  std::string out = Info(kind_).name;
  if (lanes_ > 1) absl::StrAppend(&out, "x", lanes_);
  if (pointer_) out.push_back('*');
  return out;
}

std::optional<DataType> ParseDataType(std::string_view text) {
  bool pointer = false;
  if (!text.empty() && text.back() == '*') {
    pointer = true;
    text.remove_suffix(1);
  }
  for (const KindName& k : kKinds) {
    const std::string_view name = k.name;
    if (text.substr(0, name.size()) != name) continue;
    std::string_view rest = text.substr(name.size());
    if (rest.empty()) return DataType(k.kind, 1, pointer);
    int lanes = 0;
    if (rest[0] == 'x' && absl::SimpleAtoi(AsAbsl(rest.substr(1)), &lanes) && lanes >= 2 &&
        lanes <= 64 && std::to_string(lanes) == rest.substr(1)) {
      return DataType(k.kind, lanes, pointer);
    }
  }
  return std::nullopt;
}

std::optional<ScalarKind> ScalarKindOf(ElementType type) {
  if (type == ElementType::kUndefined) return std::nullopt;
  for (const KindName& k : kKinds) {
    if (k.element == type) return k.kind;
  }
  return std::nullopt;
}

ElementType ElementTypeOf(ScalarKind kind) { return Info(kind).element; }

double RoundToFloat(ScalarKind kind, double v) {
  switch (kind) {
    case ScalarKind::kF32:
      return static_cast<float>(v);
    case ScalarKind::kF16:
      return static_cast<float>(Half(static_cast<float>(v)));
    case ScalarKind::kBF16:
      return static_cast<float>(BFloat16(static_cast<float>(v)));
    default:
      return v;
  }
}

int64_t WrapToInt(ScalarKind kind, int64_t v) {
  switch (kind) {
    case ScalarKind::kBool:
      return v != 0;
    case ScalarKind::kS8:
      return static_cast<int8_t>(v);
    case ScalarKind::kS16:
      return static_cast<int16_t>(v);
    case ScalarKind::kS32:
      return static_cast<int32_t>(v);
    case ScalarKind::kU8:
      return static_cast<uint8_t>(v);
    case ScalarKind::kU16:
      return static_cast<uint16_t>(v);
    case ScalarKind::kU32:
      return static_cast<uint32_t>(v);
    default:
      return v;
  }
}

}  // namespace anvil::tir
