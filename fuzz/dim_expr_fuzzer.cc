// Fuzzes the dim-expression parser (IndexExpr::Parse, which reads dim_params): any text is
// refused, or gives an expression whose printed form reads back to the same expression.
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.h"
#include "shape/index_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  anvil::ScopedIndexExprContext context;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)anvil::IndexExpr::FromDimParam(text);
  absl::StatusOr<anvil::IndexExpr> e = anvil::IndexExpr::Parse(text);
  if (!e.ok()) return 0;
  // The printed form reads back as the same expression (through FromDimParam, which also takes
  // a lone symbol that is not an identifier); questionmarks and undefined values do not.
  const std::string printed = e->ToString();
  if (printed.find_first_of("?<") != std::string::npos) return 0;
  if (anvil::IndexExpr::FromDimParam(printed).ToString() != printed) std::abort();
  return 0;
}
