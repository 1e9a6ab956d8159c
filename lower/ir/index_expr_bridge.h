// Between shape/'s IndexExpr (exact canonical integer expressions) and Tensor IR index
// expressions. Lowering turns a ShapeHelper's output dims into loop bounds with ToTir; the
// simplifier canonicalizes index arithmetic by a round trip FromTir -> IndexExpr -> ToTir, so
// equal bounds become structurally equal IR ("IndexExpr-style canonical sums").
//
// ToTir writes the canonical form in its canonical order: higher-degree terms first, `c*x`
// products, subtraction for negative coefficients, the constant last: M + 2*N - 1 becomes
// `M + 2 * N - 1`; floor(a / b) becomes floordiv(a, b); min/max nest left to right.
#ifndef ANVIL_LOWER_IR_INDEX_EXPR_BRIDGE_H_
#define ANVIL_LOWER_IR_INDEX_EXPR_BRIDGE_H_

#include <functional>
#include <optional>

#include "absl/status/statusor.h"
#include "lower/ir/expr.h"
#include "shape/index_expr.h"

namespace anvil::tir {

// How a symbol or questionmark atom becomes IR (a dim parameter, a loop variable, ...); an error
// (e.g. a questionmark nobody bound) is returned as is.
using AtomToTir = std::function<absl::StatusOr<Expr>(const IndexAtom& atom)>;

// `e` must be a literal or symbolic IndexExpr (not a predicate, not undefined).
absl::StatusOr<Expr> ToTir(const IndexExpr& e, const AtomToTir& atom);

// How a variable becomes an IndexExpr: a symbol for a variable known to be in [0, 2^31) (dims,
// loop variables over non-negative ranges), nullopt for any other.
using VarToIndexExpr = std::function<std::optional<IndexExpr>(const VarNode& var, const Expr& e)>;

// The IndexExpr of an `index` expression built from constants, variables, + - * floordiv % min
// max, unary minus and (for operands provably non-negative) `/`; nullopt for anything else (a
// tensor read, a cast, a select, a variable without a symbol) or on overflow.
std::optional<IndexExpr> FromTir(const Expr& e, const VarToIndexExpr& var);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_INDEX_EXPR_BRIDGE_H_
