// Reads the Tensor IR's text form (printer.h) back into IR: ParseModule(PrintModule(m)) is
// structurally equal to m (globals come back without contents, kernel bindings without nodes).
// Tests write IR by hand in the same syntax. Errors are InvalidArgument with line and column:
// "tir:3:14: expected ')'", or the factory's message when a node is ill-typed.
#ifndef ANVIL_LOWER_IR_PARSER_H_
#define ANVIL_LOWER_IR_PARSER_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lower/ir/module.h"

namespace anvil::tir {

absl::StatusOr<Module> ParseModule(std::string_view text);
// One function in a module of its own (a `func ...` without the `module { }` around it).
absl::StatusOr<Function> ParseFunction(std::string_view text);
// One expression over the given variables and tensors (found by their names).
absl::StatusOr<Expr> ParseExpr(std::string_view text, const std::vector<Expr>& names);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_PARSER_H_
