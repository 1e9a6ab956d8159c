#include "lower/ir/parser_expr.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lower/ir/expr.h"

namespace anvil::tir::parser_internal {
namespace {

// The precedence of the binary operator at `t` (1 lowest) and its kind; 0 when `t` is none.
int BinaryPrecedence(const Token& t, ExprKind* kind) {
  if (t.kind != Tok::kPunct) return 0;
  struct Op {
    const char* text;
    ExprKind kind;
    int precedence;
  };
  static constexpr Op kOps[] = {
      {"||", ExprKind::kOr, 1},    {"&&", ExprKind::kAnd, 2},   {"==", ExprKind::kCmpEq, 3},
      {"!=", ExprKind::kCmpNe, 3}, {"<", ExprKind::kCmpLt, 4},  {"<=", ExprKind::kCmpLe, 4},
      {">", ExprKind::kCmpGt, 4},  {">=", ExprKind::kCmpGe, 4}, {"+", ExprKind::kAdd, 5},
      {"-", ExprKind::kSub, 5},    {"*", ExprKind::kMul, 6},    {"/", ExprKind::kDiv, 6},
      {"%", ExprKind::kMod, 6}};
  for (const Op& op : kOps) {
    if (t.text == op.text) {
      *kind = op.kind;
      return op.precedence;
    }
  }
  return 0;
}

}  // namespace

Expr ExprParser::ParseTensorType(const std::string& name) {
  if (!Expect("[")) return Expr();
  DataType element = TakeType();
  std::vector<Expr> dims;
  if (AcceptWord("x")) {
    do {
      dims.push_back(ParseExpr());
    } while (ok() && Accept(","));
  }
  if (!Expect("]")) return Expr();
  return Take(MakeTensor(name, element, std::move(dims)));
}

std::vector<Expr> ExprParser::ParseIndexList() {
  std::vector<Expr> indices;
  if (Peek("]")) return indices;
  do {
    indices.push_back(ParseExpr());
  } while (ok() && Accept(","));
  return indices;
}

Expr ExprParser::ParseBinary(int min_precedence) {
  Expr left = ParseUnary();
  while (ok()) {
    ExprKind kind;
    const int p = BinaryPrecedence(Cur(), &kind);
    if (p == 0 || p < min_precedence) break;
    Advance();
    Expr right = ParseBinary(p + 1);
    if (!ok()) break;
    left = Take(MakeBinary(kind, left, right));
  }
  return left;
}

Expr ExprParser::ParseUnary() {
  if (Peek("-")) {
    // A negative literal is a constant, not a negation.
    if (At(1).kind == Tok::kNumber || (At(1).kind == Tok::kIdent && At(1).text == "inf")) {
      Advance();
      return ParseNumber(/*negative=*/true);
    }
    Advance();
    Expr a = ParseUnary();
    if (!ok()) return Expr();
    return Take(MakeUnary(ExprKind::kNeg, a));
  }
  if (Accept("!")) {
    Expr a = ParseUnary();
    if (!ok()) return Expr();
    return Take(MakeUnary(ExprKind::kNot, a));
  }
  return ParsePrimary();
}

// A literal: 3 (index), 1.5f (f32), 7:s32, 0.5:f64, nan:f32, inf:f16, true, false.
Expr ExprParser::ParseNumber(bool negative) {
  const Token t = Cur();
  Advance();
  std::string text = t.text;
  bool f32 = false;
  if (t.kind == Tok::kNumber && !text.empty() && text.back() == 'f') {
    f32 = true;
    text.pop_back();
  }
  std::optional<DataType> type;
  if (f32) {
    type = DataType::F32();
  } else if (Peek(":") && At(1).kind == Tok::kIdent && ParseDataType(At(1).text)) {
    Advance();
    type = ParseDataType(Cur().text);
    Advance();
  } else if (t.kind == Tok::kIdent) {
    Fail(absl::StrCat(t.text, " needs a type: ", t.text, ":f32"));
    return Expr();
  } else {
    type = DataType::Index();
  }
  if (type->is_float()) {
    double v;
    if (text == "nan") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else if (text == "inf") {
      v = std::numeric_limits<double>::infinity();
    } else if (!absl::SimpleAtod(text, &v)) {
      Fail(absl::StrCat("bad number ", text));
      return Expr();
    }
    return Take(MakeFloatConstant(*type, negative ? -v : v));
  }
  if (type->kind() == ScalarKind::kU64) {
    uint64_t u;
    if (!absl::SimpleAtoi(text, &u)) {
      Fail(absl::StrCat("bad integer ", text));
      return Expr();
    }
    return Take(MakeIntConstant(*type, static_cast<int64_t>(negative ? 0 - u : u)));
  }
  int64_t v;
  // INT64_MIN reads as "-9223372036854775808": parse with the sign.
  if (!absl::SimpleAtoi(negative ? "-" + text : text, &v)) {
    Fail(absl::StrCat("bad integer ", text));
    return Expr();
  }
  return Take(MakeIntConstant(*type, v));
}

std::vector<Expr> ExprParser::ParseArgs() {
  std::vector<Expr> args;
  if (!Expect("(")) return args;
  while (ok() && !Peek(")")) {
    args.push_back(ParseExpr());
    if (!Peek(")")) Expect(",");
  }
  Expect(")");
  return args;
}

Expr ExprParser::ParsePrimary() {
  if (!ok()) return Expr();
  if (Cur().kind == Tok::kNumber) return ParseNumber(false);
  if (Accept("(")) {
    Expr e = ParseExpr();
    Expect(")");
    return e;
  }
  if (Accept("&")) {
    Expr t = TakeReference();
    if (!Expect("[")) return Expr();
    std::vector<Expr> indices = ParseIndexList();
    if (!Expect("]")) return Expr();
    return Take(MakeTensorPtr(t, std::move(indices)));
  }
  if (Cur().kind == Tok::kIdent) {
    const std::string word = Cur().text;
    const bool call = At(1).kind == Tok::kPunct && (At(1).text == "(" || At(1).text == "<");
    if (word == "true" || word == "false") {
      Advance();
      return BoolConst(word == "true");
    }
    if (word == "nan" || word == "inf") return ParseNumber(false);
    if (call && word == "cast") {
      Advance();
      Expect("<");
      DataType type = TakeType();
      Expect(">");
      std::vector<Expr> args = ParseArgs();
      if (!ok()) return Expr();
      if (args.size() != 1) return Fail("cast takes one operand"), Expr();
      return Take(MakeCast(type, args[0]));
    }
    if (call && word == "call") {
      Advance();
      Expect("<");
      DataType type = TakeType();
      Expect(">");
      std::string callee = TakeName();
      std::vector<Expr> args = ParseArgs();
      if (!ok()) return Expr();
      return Take(MakeCall(callee, type, std::move(args)));
    }
    if (call && At(1).text == "(") {
      if (word == "broadcast") {
        Advance();
        Expect("(");
        Expr v = ParseExpr();
        Expect(",");
        int64_t lanes;
        if (!TakeInt(&lanes) || !Expect(")")) return Expr();
        return Take(MakeBroadcast(v, static_cast<int>(lanes)));
      }
      ExprKind binary;
      bool is_binary = true;
      if (word == "min") {
        binary = ExprKind::kMin;
      } else if (word == "max") {
        binary = ExprKind::kMax;
      } else if (word == "floordiv") {
        binary = ExprKind::kFloorDiv;
      } else {
        is_binary = false;
      }
      if (is_binary || word == "select") {
        Advance();
        std::vector<Expr> args = ParseArgs();
        if (!ok()) return Expr();
        if (word == "select") {
          if (args.size() != 3) return Fail("select takes three operands"), Expr();
          return Take(MakeSelect(args[0], args[1], args[2]));
        }
        if (args.size() != 2) return Fail(absl::StrCat(word, " takes two operands")), Expr();
        return Take(MakeBinary(binary, args[0], args[1]));
      }
      IntrinsicOp op;
      if (IntrinsicFromName(word, &op)) {
        Advance();
        std::vector<Expr> args = ParseArgs();
        if (!ok()) return Expr();
        return Take(MakeIntrinsic(op, std::move(args)));
      }
    }
  }
  if (PeekName()) {
    Expr e = TakeReference();
    if (!ok()) return Expr();
    if (!Accept("[")) return e;
    std::vector<Expr> indices = ParseIndexList();
    int64_t lanes = 1;
    if (Accept(":") && !TakeInt(&lanes)) return Expr();
    if (!Expect("]")) return Expr();
    return Take(MakeIndexing(e, std::move(indices), static_cast<int>(lanes)));
  }
  Fail("expected an expression");
  return Expr();
}

}  // namespace anvil::tir::parser_internal
