// Builder: the factories behind an interface that reads like the IR, for code that makes a lot of
// it (lowering rules, passes). A refused node does not interrupt the caller: the first refusal is
// kept as status(), later calls on bad operands return null handles, and the caller checks
// status() once when done. Nothing else is hidden: every node is still made by its validating
// factory.
//
//   Builder b;
//   Expr y = b.Max(b.Load(x, {i}), b.Zero(x.type()));
//   b.Emit(b.Store(out, {i}, y));
//   ANVIL_RETURN_IF_ERROR(b.status());
#ifndef ANVIL_LOWER_IR_BUILDER_H_
#define ANVIL_LOWER_IR_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

class Builder {
 public:
  const absl::Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  // ---- Leaves ----
  Expr Var(std::string name, DataType type);
  Expr Tensor(std::string name, DataType element, std::vector<Expr> dims);
  Expr Index(int64_t v) { return IndexConst(v); }
  Expr Bool(bool v) { return BoolConst(v); }
  // A constant of scalar `type` with value `v` (converted as a Cast from f64 would).
  Expr Const(DataType type, double v);
  Expr Zero(DataType type) { return Const(type, 0); }
  Expr One(DataType type) { return Const(type, 1); }

  // ---- Operators ----
  Expr Binary(ExprKind kind, Expr a, Expr b) { return Take(MakeBinary(kind, a, b)); }
  Expr Add(Expr a, Expr b) { return Binary(ExprKind::kAdd, a, b); }
  Expr Sub(Expr a, Expr b) { return Binary(ExprKind::kSub, a, b); }
  Expr Mul(Expr a, Expr b) { return Binary(ExprKind::kMul, a, b); }
  Expr Div(Expr a, Expr b) { return Binary(ExprKind::kDiv, a, b); }
  Expr FloorDiv(Expr a, Expr b) { return Binary(ExprKind::kFloorDiv, a, b); }
  Expr Mod(Expr a, Expr b) { return Binary(ExprKind::kMod, a, b); }
  Expr Min(Expr a, Expr b) { return Binary(ExprKind::kMin, a, b); }
  Expr Max(Expr a, Expr b) { return Binary(ExprKind::kMax, a, b); }
  Expr Eq(Expr a, Expr b) { return Binary(ExprKind::kCmpEq, a, b); }
  Expr Ne(Expr a, Expr b) { return Binary(ExprKind::kCmpNe, a, b); }
  Expr Lt(Expr a, Expr b) { return Binary(ExprKind::kCmpLt, a, b); }
  Expr Le(Expr a, Expr b) { return Binary(ExprKind::kCmpLe, a, b); }
  Expr Gt(Expr a, Expr b) { return Binary(ExprKind::kCmpGt, a, b); }
  Expr Ge(Expr a, Expr b) { return Binary(ExprKind::kCmpGe, a, b); }
  Expr And(Expr a, Expr b) { return Binary(ExprKind::kAnd, a, b); }
  Expr Or(Expr a, Expr b) { return Binary(ExprKind::kOr, a, b); }
  Expr Neg(Expr a) { return Take(MakeUnary(ExprKind::kNeg, a)); }
  Expr Not(Expr a) { return Take(MakeUnary(ExprKind::kNot, a)); }
  Expr Select(Expr c, Expr t, Expr f) { return Take(MakeSelect(c, t, f)); }
  Expr Cast(DataType type, Expr v) { return Take(MakeCast(type, v)); }
  Expr Broadcast(Expr v, int lanes) { return Take(MakeBroadcast(v, lanes)); }
  Expr Call(IntrinsicOp op, std::vector<Expr> args) { return Take(MakeIntrinsic(op, std::move(args))); }
  Expr Load(Expr tensor, std::vector<Expr> indices, int lanes = 1) {
    return Take(MakeIndexing(tensor, std::move(indices), lanes));
  }
  Expr Ptr(Expr tensor, std::vector<Expr> indices) {
    return Take(MakeTensorPtr(tensor, std::move(indices)));
  }

  // ---- Statements ----
  Stmt Store(Expr tensor, std::vector<Expr> indices, Expr value) {
    return Take(MakeStore(tensor, std::move(indices), value));
  }
  Stmt Assign(Expr var, Expr value) { return Take(MakeAssign(var, value)); }
  Stmt Define(Expr target, Expr init = Expr(), TensorAttrs attrs = {}) {
    return Take(MakeDefine(target, init, std::move(attrs)));
  }
  Stmt For(Expr var, Expr begin, Expr end, Stmt body, ForAttrs attrs = {}) {
    return Take(MakeFor(var, begin, end, IndexConst(1), body, attrs));
  }
  Stmt If(Expr cond, Stmt then_body, Stmt else_body = Stmt()) {
    return Take(MakeIfElse(cond, then_body, else_body));
  }
  Stmt Evaluate(Expr e) { return Take(MakeEvaluate(e)); }
  Stmt Assert(Expr cond, std::string message) { return Take(MakeAssert(cond, std::move(message))); }

  // A loop nest over `extents` (outermost first) around `body(indices)`: one index variable per
  // extent, named prefix0, prefix1, ...
  template <typename BodyFn>
  Stmt Nest(const std::vector<Expr>& extents, const std::string& prefix, BodyFn body) {
    std::vector<Expr> vars;
    for (size_t k = 0; k < extents.size(); ++k) {
      vars.push_back(Var(prefix + std::to_string(k), DataType::Index()));
    }
    Stmt s = body(vars);
    for (size_t k = extents.size(); k-- > 0;) s = For(vars[k], IndexConst(0), extents[k], s);
    return s;
  }

 private:
  Expr Take(absl::StatusOr<Expr> e);
  Stmt Take(absl::StatusOr<Stmt> s);

  absl::Status status_;
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_BUILDER_H_
