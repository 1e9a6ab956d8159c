#include "lower/ir/parser_stmt.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"

namespace anvil::tir::parser_internal {

Function StmtParser::ParseFunctionDef() {
  Function f;
  ClearFunctionNames();
  if (!ExpectWord("func")) return f;
  f.name = TakeName();
  if (!Expect("(")) return f;
  PushScope();
  while (ok() && !Peek(")")) {
    const std::string name = TakeName();
    if (!Expect(":")) break;
    Expr p = Peek("[") ? ParseTensorType(name) : Take(MakeVar(name, TakeType()));
    if (!ok()) break;
    Declare(name, p);
    f.params.push_back(p);
    if (!Peek(")")) Expect(",");
  }
  Expect(")");
  if (Expect("->")) f.ret = TakeType();
  if (AcceptWord("attrs")) {
    Expect("(");
    while (ok() && !Peek(")")) {
      std::string key = TakeName();
      Expect("=");
      f.attrs.emplace_back(std::move(key), TakeString());
      if (!Peek(")")) Expect(",");
    }
    Expect(")");
  }
  f.body = ParseBlock();
  PopScope();
  return f;
}

Stmt StmtParser::ParseBlock() {
  if (!Expect("{")) return Stmt();
  PushScope();
  std::vector<Stmt> stmts;
  while (ok() && !Peek("}")) {
    if (Cur().kind == Tok::kEnd) {
      Fail("expected '}'");
      break;
    }
    Stmt s = ParseStmt();
    if (ok()) stmts.push_back(std::move(s));
  }
  Expect("}");
  PopScope();
  return MakeBlock(std::move(stmts));
}

Stmt StmtParser::ParseStmt() {
  if (Peek("{")) return ParseBlock();
  if (Cur().kind == Tok::kComment) {
    std::string text = Cur().text;
    Advance();
    return MakeComment(std::move(text));
  }
  if (AcceptWord("var")) {
    const std::string name = TakeName();
    if (!Expect(":")) return Stmt();
    Expr v = Take(MakeVar(name, TakeType()));
    Expr init;
    if (Accept("=")) init = ParseExpr();
    if (!ok()) return Stmt();
    Declare(name, v);
    return Take(MakeDefine(v, init));
  }
  if (AcceptWord("tensor")) {
    const std::string name = TakeName();
    if (!Expect(":")) return Stmt();
    Expr t = ParseTensorType(name);
    TensorAttrs attrs;
    if (AcceptWord("view")) attrs.view_of = TakeReference();
    if (AcceptWord("at")) attrs.offset = ParseExpr();
    if (AcceptWord("dynamic")) attrs.dynamic = true;
    if (AcceptWord("bound")) {
      const Expr bound = ParseExpr();
      if (ok() && (!AsIntConstant(bound, &attrs.max_bytes) || attrs.max_bytes < 0)) {
        Fail("a tensor's bound is a byte count");
        return Stmt();
      }
    }
    if (!ok()) return Stmt();
    Declare(name, t);
    return Take(MakeDefine(t, Expr(), attrs));
  }
  if (AcceptWord("if")) {
    if (!Expect("(")) return Stmt();
    Expr cond = ParseExpr();
    if (!Expect(")")) return Stmt();
    Stmt then_body = ParseBlock();
    Stmt else_body;
    if (AcceptWord("else")) else_body = ParseBlock();
    if (!ok()) return Stmt();
    return Take(MakeIfElse(cond, then_body, else_body));
  }
  if (AcceptWord("for")) return ParseFor();
  if (AcceptWord("evaluate")) {
    Expr e = ParseExpr();
    if (!ok()) return Stmt();
    return Take(MakeEvaluate(e));
  }
  if (AcceptWord("return")) {
    Expr e;
    if (!Peek("}")) e = ParseExpr();
    if (!ok()) return Stmt();
    return Take(MakeReturn(e));
  }
  if (AcceptWord("assert")) {
    if (!Expect("(")) return Stmt();
    Expr cond = ParseExpr();
    Expect(",");
    std::string message = TakeString();
    if (!Expect(")")) return Stmt();
    return Take(MakeAssert(cond, std::move(message)));
  }
  // Assignment or store.
  Expr target = TakeReference();
  if (!ok()) return Stmt();
  if (Accept("[")) {
    std::vector<Expr> indices = ParseIndexList();
    if (!Expect("]") || !Expect("=")) return Stmt();
    Expr value = ParseExpr();
    if (!ok()) return Stmt();
    return Take(MakeStore(target, std::move(indices), value));
  }
  if (!Expect("=")) return Stmt();
  Expr value = ParseExpr();
  if (!ok()) return Stmt();
  return Take(MakeAssign(target, value));
}

// `for name in (begin, end, step) [parallel] [vectorize(n)] [unroll(n)] { ... }`, after `for`.
Stmt StmtParser::ParseFor() {
  const std::string name = TakeName();
  if (!ExpectWord("in") || !Expect("(")) return Stmt();
  Expr begin = ParseExpr();
  Expect(",");
  Expr end = ParseExpr();
  Expect(",");
  Expr step = ParseExpr();
  if (!Expect(")")) return Stmt();
  ForAttrs attrs;
  while (ok()) {
    if (AcceptWord("parallel")) {
      attrs.parallel = true;
    } else if (PeekWord("vectorize") || PeekWord("unroll")) {
      const bool vectorize = Cur().text == "vectorize";
      Advance();
      int64_t n;
      if (!Expect("(") || !TakeInt(&n) || !Expect(")")) return Stmt();
      (vectorize ? attrs.vectorize : attrs.unroll) = static_cast<int>(n);
    } else {
      break;
    }
  }
  Expr var = Take(MakeVar(name, DataType::Index()));
  PushScope();
  Declare(name, var);
  Stmt body = ParseBlock();
  PopScope();
  if (!ok()) return Stmt();
  return Take(MakeFor(var, begin, end, step, body, attrs));
}

}  // namespace anvil::tir::parser_internal
