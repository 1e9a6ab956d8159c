// Fuzzes the Einsum equation parser: any text is refused with a message, or parses.
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "shape/einsum_equation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)anvil::einsum::Equation::Parse(text);
  return 0;
}
