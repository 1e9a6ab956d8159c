// The expression part of the Tensor IR text parser (private to //lower:ir): expressions with
// the printer's precedences, literals, index lists and tensor types `[f32 x d0, d1]`, whose dims
// are expressions.
//
// Contracts (besides parser_base.h's): every name an expression uses must be declared in an
// enclosing scope; nodes are made by the factories of expr.h, whose errors (an ill-typed node)
// become the parse error at the token after the node.
#ifndef ANVIL_LOWER_IR_PARSER_EXPR_H_
#define ANVIL_LOWER_IR_PARSER_EXPR_H_

#include <string>
#include <utility>
#include <vector>

#include "lower/ir/expr.h"
#include "lower/ir/parser_base.h"

namespace anvil::tir::parser_internal {

class ExprParser : public ParserBase {
 public:
  using ParserBase::ParserBase;

 protected:
  // One expression, binary operators folded by precedence (|| lowest, then &&, comparisons,
  // + -, * / %); unary - and ! bind tighter.
  Expr ParseExpr() { return ParseBinary(1); }
  // `e, e, ...` up to (not taking) a closing `]`; empty before `]`.
  std::vector<Expr> ParseIndexList();
  // `[type x d0, d1, ...]` (or `[type]`, a scalar tensor): a tensor named `name`, declaring
  // nothing.
  Expr ParseTensorType(const std::string& name);

 private:
  Expr ParseBinary(int min_precedence);
  Expr ParseUnary();
  // A literal: 3 (index), 1.5f (f32), 7:s32, 0.5:f64, nan:f32, inf:f16, true, false.
  Expr ParseNumber(bool negative);
  // `(e, e, ...)`.
  std::vector<Expr> ParseArgs();
  // A literal, `(e)`, `&t[indices]`, a call-like form (cast<T>(e), call<T> f(...),
  // broadcast(e, n), min/max/floordiv/select(...), an intrinsic) or a name, indexed `t[i, j]`
  // or `t[i:lanes]`.
  Expr ParsePrimary();
};

}  // namespace anvil::tir::parser_internal

#endif  // ANVIL_LOWER_IR_PARSER_EXPR_H_
