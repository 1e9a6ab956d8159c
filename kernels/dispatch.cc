#include "kernels/dispatch.h"

#include <cmath>

#include "base/absl_compat.h"
#include "base/float16.h"

namespace anvil {

uint16_t Half::FromFloat(float f) { return fp16::FloatToHalf(f); }

uint16_t BFloat16::FromFloat(float f) { return fp16::FloatToBfloat16(f); }

absl::Status UnsupportedType(std::string_view op, ElementType type) {
  return absl::UnimplementedError(absl::StrCat(
      AsAbsl(op), ": element type ", std::string(ElementTypeName(type)), " is not supported"));
}

}  // namespace anvil
