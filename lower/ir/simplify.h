// The Tensor IR simplifier: what lowering and fusion leave behind made small and canonical.
//
//  - Constant folding of every operator on constants (integers wrap, floats round to their type,
//    exactly as the evaluator computes).
//  - Identities that hold bit for bit: x + 0, x - 0, x * 1, x / 1, floordiv(x, 1), x % 1 -> 0,
//    x * 0 -> 0 and min/max(x, x) -> x for integers; x * 1, x / 1, x - 0.0 for floats (not
//    x + 0.0: -0.0 + 0.0 is +0.0); select with a constant or repeated branch; !!b, constant
//    && and ||; a cast of a constant; a cast to the operand's own type.
//  - Index arithmetic is canonical: an `index` expression over constants and variables known to
//    lie in [0, 2^31) — index parameters (dims), loop variables whose range starts at or above 0,
//    and Defines of such expressions — goes through IndexExpr (index_expr_bridge.h), so
//    `(i + 1) * N - N` becomes `i * N` and two spellings of one bound become one expression;
//    comparisons IndexExpr decides become constants.
//  - Statements: blocks flattened, empty ones dropped; an if with a constant condition becomes
//    its branch; a loop of no iteration disappears; a loop of exactly one iteration becomes its
//    body with the variable replaced by the start.
//
// Semantics are preserved exactly (the evaluator gives bit-identical results before and after).
#ifndef ANVIL_LOWER_IR_SIMPLIFY_H_
#define ANVIL_LOWER_IR_SIMPLIFY_H_

#include "lower/ir/expr.h"
#include "lower/ir/module.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

// Expression alone: index variables count as in [0, 2^31) (dims and loop indices).
Expr Simplify(const Expr& e);
Stmt Simplify(const Stmt& s);
Function Simplify(const Function& f);
Module Simplify(const Module& m);

// Replaces every use of variable `var` by `value` (same type) in `s` / `e`.
Stmt Substitute(const Stmt& s, const Expr& var, const Expr& value);
Expr Substitute(const Expr& e, const Expr& var, const Expr& value);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_SIMPLIFY_H_
