// The statement part of the Tensor IR text parser (private to //lower:ir): function definitions
// `func name(params) -> type [attrs(...)] { ... }`, blocks and the statements in them (var,
// tensor, if/else, for, evaluate, return, assert, comments, assignments and stores).
//
// Contracts (besides parser_expr.h's): a block is a scope (a `for` adds one for its variable);
// a name is usable from its declaration to the end of its scope. ParseFunctionDef restarts the
// record of the function's names (function_names()), so after it that record is the function's.
#ifndef ANVIL_LOWER_IR_PARSER_STMT_H_
#define ANVIL_LOWER_IR_PARSER_STMT_H_

#include "lower/ir/module.h"
#include "lower/ir/parser_expr.h"
#include "lower/ir/stmt.h"

namespace anvil::tir::parser_internal {

class StmtParser : public ExprParser {
 public:
  using ExprParser::ExprParser;

 protected:
  Function ParseFunctionDef();

 private:
  // `{ stmt* }`.
  Stmt ParseBlock();
  Stmt ParseStmt();
  // A `for` loop, after its keyword.
  Stmt ParseFor();
};

}  // namespace anvil::tir::parser_internal

#endif  // ANVIL_LOWER_IR_PARSER_STMT_H_
