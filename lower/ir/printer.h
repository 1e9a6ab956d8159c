// The Tensor IR's text form, read back by parser.h (Parse(Print(m)) is structurally equal to m):
//
//   module {
//     kernel 0 = Conv "conv1" opset 11 intrinsic slots(0, 1, -1)
//     global W: [f32 x 64, 64] = "w"
//     entry main {
//       dim N = input 0 axis 0
//       input "x" = X
//       output "y" = Y
//     }
//     func main(N: index, X: [f32 x N, 16], Y: [f32 x N, 16]) -> void {
//       for i in (0, N, 1) parallel {
//         for j in (0, 16, 1) vectorize(16) {
//           Y[i, j] = max(X[i, j], 0.0f)
//         }
//       }
//     }
//   }
//
// Expressions: infix + - * / % == != < <= > >= && || with C precedence, unary - and !; calls
// min, max, floordiv, select, cast<T>(x), broadcast(x, lanes), intrinsics by name
// (exp(x), kernel(3, X, Y), ...), call<T> f(args); t[i, j] reads an element, t[i, j:16] sixteen
// lanes, &t[i, j] its address. Constants: index integers bare (`3`), f32 as `1.5f`, bools as
// `true`/`false`, every other type as `value:type` (`7:s32`, `0.5:f64`, `nan:f32`).
// Statements: `var x: f32 = e`, `tensor T: [f32 x N] [view X] [at off] [dynamic]`, `x = e`,
// `T[i] = e`, `if (c) {...} else {...}`, `for i in (b, e, s) [parallel] [vectorize(n)]
// [unroll(n)] {...}`, `evaluate e`, `return [e]`, `assert(c, "message")`, `{...}`.
// Names that are not identifiers print `between backquotes`; two different variables or tensors
// of one name in a function print apart as name, name.1, name.2, ...
#ifndef ANVIL_LOWER_IR_PRINTER_H_
#define ANVIL_LOWER_IR_PRINTER_H_

#include <string>

#include "lower/ir/expr.h"
#include "lower/ir/module.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

std::string PrintExpr(const Expr& e);
std::string PrintStmt(const Stmt& s);
std::string PrintFunction(const Function& f);
std::string PrintModule(const Module& m);

// The text form of a constant's value without its type suffix where one is implied.
std::string PrintConstant(const ConstantNode& c);

// Words of the syntax (and intrinsic names); a variable or tensor so named prints backquoted.
bool IsReservedWord(std::string_view name);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_PRINTER_H_
