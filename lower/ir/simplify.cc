#include "lower/ir/simplify.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lower/ir/equal.h"
#include "lower/ir/functor.h"
#include "lower/ir/index_expr_bridge.h"
#include "lower/ir/scalar.h"
#include "shape/index_expr.h"

namespace anvil::tir {
namespace {

bool IsConst(const Expr& e) { return e.kind() == ExprKind::kConstant; }

Scalar ConstValue(const Expr& e) {
  const ConstantNode* c = e.as<ConstantNode>();
  return Scalar{c->int_value, c->float_value};
}

Expr MakeConst(DataType type, Scalar v) {
  if (type.is_float()) return *MakeFloatConstant(type, v.f);
  return *MakeIntConstant(type, v.i);
}

bool IsZero(const Expr& e) {
  const ConstantNode* c = e.as<ConstantNode>();
  if (c == nullptr) return false;
  return c->type().is_float() ? (c->float_value == 0 && !std::signbit(c->float_value))
                              : c->int_value == 0;
}
bool IsOne(const Expr& e) {
  const ConstantNode* c = e.as<ConstantNode>();
  if (c == nullptr) return false;
  return c->type().is_float() ? c->float_value == 1 : c->int_value == 1;
}

bool IsArithmeticIndexKind(ExprKind k) {
  switch (k) {
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax:
    case ExprKind::kNeg:
      return true;
    default:
      return false;
  }
}

// Variables assigned anywhere: their value is not their definition's, so they get no symbol.
class AssignedVars final : public IRVisitor {
 public:
  absl::flat_hash_set<const ExprNode*> vars;

 protected:
  void VisitAssign(const AssignNode& n, const Stmt& s) override {
    vars.insert(n.var.get());
    IRVisitor::VisitAssign(n, s);
  }
};

class Simplifier final : public IRMutator {
 public:
  // `all_index_vars_nonneg`: every index variable counts as a symbol (expressions simplified
  // alone); otherwise only those registered.
  explicit Simplifier(bool all_index_vars_nonneg) : all_nonneg_(all_index_vars_nonneg) {}

  void RegisterNonNeg(const Expr& var) {
    if (!var.type().is_index() || symbol_of_.contains(var.get()) ||
        assigned_.vars.contains(var.get())) {
      return;
    }
    const std::string name =
        absl::StrCat(var.as<VarNode>()->name, "\x01", symbol_of_.size());
    symbol_of_[var.get()] = IndexExpr::Symbol(name);
    var_of_symbol_[name] = var;
  }

  void ScanAssignments(const Stmt& s) { assigned_.Visit(s); }

 protected:
  // ---- Expressions ----
  Expr MutateVar(const VarNode&, const Expr& e) override {
    if (all_nonneg_) RegisterNonNeg(e);
    return e;
  }

  std::optional<IndexExpr> ToIndex(const Expr& e) {
    return FromTir(e, [this](const VarNode&, const Expr& v) -> std::optional<IndexExpr> {
      auto it = symbol_of_.find(v.get());
      if (it == symbol_of_.end()) return std::nullopt;
      return it->second;
    });
  }

  Expr FromIndex(const IndexExpr& x, const Expr& fallback) {
    absl::StatusOr<Expr> e = ToTir(x, [this](const IndexAtom& a) -> absl::StatusOr<Expr> {
      auto it = var_of_symbol_.find(a.name);
      if (a.kind != IndexAtom::Kind::kSymbol || it == var_of_symbol_.end()) {
        return absl::InternalError("unknown symbol");
      }
      return it->second;
    });
    if (!e.ok()) return fallback;
    return IdenticalExpr(*e, fallback) ? fallback : *e;
  }

  // Canonical index arithmetic and decided index comparisons.
  Expr CanonicalIndex(const Expr& e) {
    if (e.type().is_index() && IsArithmeticIndexKind(e.kind())) {
      if (std::optional<IndexExpr> x = ToIndex(e)) return FromIndex(*x, e);
      return e;
    }
    const BinaryNode* b = e.as<BinaryNode>();
    if (b != nullptr && b->a.type().is_index() && e.type().is_bool()) {
      std::optional<IndexExpr> x = ToIndex(b->a), y = ToIndex(b->b);
      if (!x || !y) return e;
      IndexExpr p;
      switch (e.kind()) {
        case ExprKind::kCmpEq:
          p = Eq(*x, *y);
          break;
        case ExprKind::kCmpNe:
          p = Ne(*x, *y);
          break;
        case ExprKind::kCmpLt:
          p = Lt(*x, *y);
          break;
        case ExprKind::kCmpLe:
          p = Le(*x, *y);
          break;
        case ExprKind::kCmpGt:
          p = Gt(*x, *y);
          break;
        case ExprKind::kCmpGe:
          p = Ge(*x, *y);
          break;
        default:
          return e;
      }
      if (p.IsKnown()) return BoolConst(p.literal() != 0);
    }
    return e;
  }

  Expr Binary(const BinaryNode& n, const Expr& e) {
    Expr rebuilt = IRMutator::MutateAdd(n, e);  // any binary kind: rebuilds children
    const BinaryNode* b = rebuilt.as<BinaryNode>();
    if (b == nullptr) return rebuilt;
    const Expr& x = b->a;
    const Expr& y = b->b;
    const DataType t = x.type();
    if (IsConst(x) && IsConst(y)) {
      absl::StatusOr<Scalar> v = ApplyBinary(rebuilt.kind(), t, ConstValue(x), ConstValue(y));
      if (v.ok()) return MakeConst(rebuilt.type(), *v);
      return rebuilt;  // a division by zero stays, to fail at run time
    }
    const bool is_int = t.is_int();
    switch (rebuilt.kind()) {
      case ExprKind::kAdd:
        if (is_int && IsZero(x)) return y;
        if (is_int && IsZero(y)) return x;
        break;
      case ExprKind::kSub:
        if (IsZero(y)) return x;  // x - 0.0 is x bit for bit, -0.0 included
        if (is_int && x.same(y)) return MakeConst(t, Scalar{});
        break;
      case ExprKind::kMul:
        if (IsOne(y)) return x;
        if (IsOne(x)) return y;
        if (is_int && (IsZero(x) || IsZero(y))) return MakeConst(t, Scalar{});
        break;
      case ExprKind::kDiv:
      case ExprKind::kFloorDiv:
        if (IsOne(y)) return x;
        break;
      case ExprKind::kMod:
        if (IsOne(y)) return MakeConst(t, Scalar{});
        break;
      case ExprKind::kMin:
      case ExprKind::kMax:
        if (IdenticalExpr(x, y)) return x;
        break;
      case ExprKind::kAnd:
        if (IsConst(x)) return IsOne(x) ? y : x;
        if (IsConst(y)) return IsOne(y) ? x : y;
        break;
      case ExprKind::kOr:
        if (IsConst(x)) return IsOne(x) ? x : y;
        if (IsConst(y)) return IsOne(y) ? y : x;
        break;
      default:
        break;
    }
    return CanonicalIndex(rebuilt);
  }

#define ANVIL_TIR_SIMPLIFY_BINARY(kind) \
  Expr Mutate##kind(const BinaryNode& n, const Expr& e) override { return Binary(n, e); }
  ANVIL_TIR_SIMPLIFY_BINARY(Add)
  ANVIL_TIR_SIMPLIFY_BINARY(Sub)
  ANVIL_TIR_SIMPLIFY_BINARY(Mul)
  ANVIL_TIR_SIMPLIFY_BINARY(Div)
  ANVIL_TIR_SIMPLIFY_BINARY(FloorDiv)
  ANVIL_TIR_SIMPLIFY_BINARY(Mod)
  ANVIL_TIR_SIMPLIFY_BINARY(Min)
  ANVIL_TIR_SIMPLIFY_BINARY(Max)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpEq)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpNe)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpLt)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpLe)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpGt)
  ANVIL_TIR_SIMPLIFY_BINARY(CmpGe)
  ANVIL_TIR_SIMPLIFY_BINARY(And)
  ANVIL_TIR_SIMPLIFY_BINARY(Or)
#undef ANVIL_TIR_SIMPLIFY_BINARY

  Expr Unary(const UnaryNode& n, const Expr& e) {
    Expr rebuilt = IRMutator::MutateNeg(n, e);
    const UnaryNode* u = rebuilt.as<UnaryNode>();
    if (u == nullptr) return rebuilt;
    if (IsConst(u->a)) return MakeConst(rebuilt.type(), ApplyUnary(rebuilt.kind(), rebuilt.type(), ConstValue(u->a)));
    // --x and !!x.
    if (const UnaryNode* inner = u->a.as<UnaryNode>(); inner != nullptr && inner->kind() == rebuilt.kind()) {
      return inner->a;
    }
    return CanonicalIndex(rebuilt);
  }
  Expr MutateNeg(const UnaryNode& n, const Expr& e) override { return Unary(n, e); }
  Expr MutateNot(const UnaryNode& n, const Expr& e) override { return Unary(n, e); }

  Expr MutateCast(const CastNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateCast(n, e);
    const CastNode* c = rebuilt.as<CastNode>();
    if (c == nullptr) return rebuilt;
    if (IsConst(c->value)) {
      return MakeConst(rebuilt.type(), ApplyCast(rebuilt.type(), c->value.type(), ConstValue(c->value)));
    }
    // index <-> s64 and back is the identity.
    if (const CastNode* inner = c->value.as<CastNode>()) {
      const DataType a = inner->value.type(), m = inner->type(), z = rebuilt.type();
      const bool lossless = (m.kind() == ScalarKind::kS64 || m.kind() == ScalarKind::kIndex) &&
                            (a.kind() == ScalarKind::kS64 || a.kind() == ScalarKind::kIndex);
      if (lossless && a == z) return inner->value;
    }
    return rebuilt;
  }

  Expr MutateSelect(const SelectNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateSelect(n, e);
    const SelectNode* s = rebuilt.as<SelectNode>();
    if (s == nullptr) return rebuilt;
    if (IsConst(s->cond)) return IsOne(s->cond) ? s->if_true : s->if_false;
    if (IdenticalExpr(s->if_true, s->if_false)) {
      return s->if_true;
    }
    return rebuilt;
  }

  Expr MutateIntrinsic(const IntrinsicNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateIntrinsic(n, e);
    const IntrinsicNode* c = rebuilt.as<IntrinsicNode>();
    if (c == nullptr || IsKernelIntrinsic(c->op) || c->op == IntrinsicOp::kReduceAdd ||
        c->op == IntrinsicOp::kReduceMax || c->op == IntrinsicOp::kReduceMin) {
      return rebuilt;
    }
    std::vector<Scalar> args;
    for (const Expr& a : c->args) {
      if (!IsConst(a)) return rebuilt;
      args.push_back(ConstValue(a));
    }
    absl::StatusOr<Scalar> v = ApplyIntrinsic(c->op, c->args[0].type(), args);
    if (!v.ok()) return rebuilt;
    return MakeConst(rebuilt.type(), *v);
  }

  // ---- Statements ----
  Stmt MutateBlock(const BlockNode& n, const Stmt& s) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (const Stmt& c : n.stmts) {
      Stmt m = Mutate(c);
      changed |= !m.same(c);
      // Nested blocks are flattened (identity, not names, keeps Defines apart); empty ones go.
      if (const BlockNode* b = m.as<BlockNode>()) {
        changed = true;
        for (const Stmt& inner : b->stmts) out.push_back(inner);
      } else {
        out.push_back(m);
      }
    }
    if (!changed) return s;
    return MakeBlock(std::move(out));
  }

  Stmt MutateIfElse(const IfElseNode& n, const Stmt& s) override {
    Expr cond = Mutate(n.cond);
    if (IsConst(cond)) {
      const Stmt& taken = IsOne(cond) ? n.then_body : n.else_body;
      if (!taken.defined()) return MakeBlock({});
      return Mutate(taken);
    }
    Stmt t = Mutate(n.then_body), f = Mutate(n.else_body);
    if (cond.same(n.cond) && t.same(n.then_body) && f.same(n.else_body)) return s;
    if (const BlockNode* fb = f.as<BlockNode>(); fb != nullptr && fb->stmts.empty()) f = Stmt();
    return Take(MakeIfElse(cond, t, f), s);
  }

  Stmt MutateFor(const ForNode& n, const Stmt& s) override {
    Expr begin = Mutate(n.begin), end = Mutate(n.end), step = Mutate(n.step);
    std::optional<IndexExpr> b = ToIndex(begin), e = ToIndex(end);
    int64_t step_value = 0;
    const bool constant_step = AsIntConstant(step, &step_value) && step_value > 0;
    if (b && e && constant_step) {
      const IndexExpr span = *e - *b;
      const IndexExpr empty = Le(span, 0);
      if (empty.IsKnown() && empty.literal() == 1) return MakeBlock({});
      const IndexExpr one_trip = Le(span, step_value);
      const IndexExpr nonempty = Gt(span, 0);
      if (one_trip.IsKnown() && one_trip.literal() == 1 && nonempty.IsKnown() &&
          nonempty.literal() == 1) {
        return Mutate(Substitute(n.body, n.var, begin));
      }
    }
    if (b) {
      const IndexExpr nonneg = Ge(*b, 0);
      if (nonneg.IsKnown() && nonneg.literal() == 1) RegisterNonNeg(n.var);
    }
    Stmt body = Mutate(n.body);
    if (begin.same(n.begin) && end.same(n.end) && step.same(n.step) && body.same(n.body)) return s;
    return Take(MakeFor(n.var, begin, end, step, body, n.attrs), s);
  }

  Stmt MutateDefine(const DefineNode& n, const Stmt& s) override {
    Stmt rebuilt = IRMutator::MutateDefine(n, s);
    const DefineNode* d = rebuilt.as<DefineNode>();
    if (d != nullptr && d->target.as<VarNode>() && d->init.defined()) {
      if (std::optional<IndexExpr> x = ToIndex(d->init)) {
        const IndexExpr nonneg = Ge(*x, 0);
        if (nonneg.IsKnown() && nonneg.literal() == 1) RegisterNonNeg(d->target);
      }
    }
    return rebuilt;
  }

  Stmt MutateAssert(const AssertNode& n, const Stmt& s) override {
    Stmt rebuilt = IRMutator::MutateAssert(n, s);
    const AssertNode* a = rebuilt.as<AssertNode>();
    if (a != nullptr && IsConst(a->cond) && IsOne(a->cond)) return MakeBlock({});
    return rebuilt;
  }

 private:
  bool all_nonneg_;
  ScopedIndexExprContext context_;
  AssignedVars assigned_;
  absl::flat_hash_map<const ExprNode*, IndexExpr> symbol_of_;
  absl::flat_hash_map<std::string, Expr> var_of_symbol_;
};

class Substituter final : public IRMutator {
 public:
  Substituter(Expr var, Expr value) : var_(std::move(var)), value_(std::move(value)) {}

 protected:
  Expr MutateVar(const VarNode&, const Expr& e) override { return e.same(var_) ? value_ : e; }

 private:
  Expr var_, value_;
};

}  // namespace

Expr Simplify(const Expr& e) {
  Simplifier s(/*all_index_vars_nonneg=*/true);
  return s.Mutate(e);
}

Stmt Simplify(const Stmt& stmt) {
  Simplifier s(/*all_index_vars_nonneg=*/true);
  s.ScanAssignments(stmt);
  return s.Mutate(stmt);
}

Function Simplify(const Function& f) {
  Simplifier s(/*all_index_vars_nonneg=*/false);
  s.ScanAssignments(f.body);
  for (const Expr& p : f.params) {
    if (p.as<VarNode>() && p.type().is_index()) s.RegisterNonNeg(p);
  }
  Function out = f;
  out.body = s.Mutate(f.body);
  if (out.body.as<BlockNode>() == nullptr) out.body = MakeBlock({out.body});
  return out;
}

Module Simplify(const Module& m) {
  Module out = m;
  for (Function& f : out.functions) f = Simplify(f);
  return out;
}

Stmt Substitute(const Stmt& s, const Expr& var, const Expr& value) {
  Substituter sub(var, value);
  return sub.Mutate(s);
}

Expr Substitute(const Expr& e, const Expr& var, const Expr& value) {
  Substituter sub(var, value);
  return sub.Mutate(e);
}

}  // namespace anvil::tir
