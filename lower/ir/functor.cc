#include "lower/ir/functor.h"

#include <utility>
#include <vector>

namespace anvil::tir {

// ---- IRVisitor ----

void IRVisitor::Visit(const Expr& e) {
  if (!e.defined()) return;
  switch (e.kind()) {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  case ExprKind::k##kind:                          \
    return Visit##kind(*e.as<node_class>(), e);
#include "lower/ir/node_kinds.inc"
  }
}

void IRVisitor::Visit(const Stmt& s) {
  if (!s.defined()) return;
  switch (s.kind()) {
#define ANVIL_TIR_STMT(kind, node_class) \
  case StmtKind::k##kind:                \
    return Visit##kind(*s.as<node_class>(), s);
#include "lower/ir/node_kinds.inc"
  }
}

void IRVisitor::Visit(const Function& f) { Visit(f.body); }

namespace {

// The children of each expression class, for the default visitor.
template <typename V>
void VisitChildren(V& v, const ConstantNode&) {}
template <typename V>
void VisitChildren(V& v, const VarNode&) {}
template <typename V>
void VisitChildren(V& v, const TensorNode&) {}
template <typename V>
void VisitChildren(V& v, const CastNode& n) {
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const BroadcastNode& n) {
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const BinaryNode& n) {
  v.Visit(n.a);
  v.Visit(n.b);
}
template <typename V>
void VisitChildren(V& v, const UnaryNode& n) {
  v.Visit(n.a);
}
template <typename V>
void VisitChildren(V& v, const SelectNode& n) {
  v.Visit(n.cond);
  v.Visit(n.if_true);
  v.Visit(n.if_false);
}
template <typename V>
void VisitChildren(V& v, const IndexingNode& n) {
  v.Visit(n.tensor);
  for (const Expr& i : n.indices) v.Visit(i);
}
template <typename V>
void VisitChildren(V& v, const TensorPtrNode& n) {
  v.Visit(n.tensor);
  for (const Expr& i : n.indices) v.Visit(i);
}
template <typename V>
void VisitChildren(V& v, const CallNode& n) {
  for (const Expr& a : n.args) v.Visit(a);
}
template <typename V>
void VisitChildren(V& v, const IntrinsicNode& n) {
  for (const Expr& a : n.args) v.Visit(a);
}

template <typename V>
void VisitChildren(V& v, const AssignNode& n) {
  v.Visit(n.var);
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const StoreNode& n) {
  v.Visit(n.tensor);
  for (const Expr& i : n.indices) v.Visit(i);
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const BlockNode& n) {
  for (const Stmt& s : n.stmts) v.Visit(s);
}
template <typename V>
void VisitChildren(V& v, const IfElseNode& n) {
  v.Visit(n.cond);
  v.Visit(n.then_body);
  v.Visit(n.else_body);
}
template <typename V>
void VisitChildren(V& v, const ForNode& n) {
  v.Visit(n.var);
  v.Visit(n.begin);
  v.Visit(n.end);
  v.Visit(n.step);
  v.Visit(n.body);
}
template <typename V>
void VisitChildren(V& v, const EvaluateNode& n) {
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const ReturnNode& n) {
  v.Visit(n.value);
}
template <typename V>
void VisitChildren(V& v, const DefineNode& n) {
  v.Visit(n.target);
  v.Visit(n.init);
  v.Visit(n.tensor.offset);
}
template <typename V>
void VisitChildren(V& v, const AssertNode& n) {
  v.Visit(n.cond);
}
template <typename V>
void VisitChildren(V&, const CommentNode&) {}

}  // namespace

#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  void IRVisitor::Visit##kind(const node_class& n, const Expr&) { VisitChildren(*this, n); }
#define ANVIL_TIR_STMT(kind, node_class) \
  void IRVisitor::Visit##kind(const node_class& n, const Stmt&) { VisitChildren(*this, n); }
#include "lower/ir/node_kinds.inc"

// ---- IRMutator ----

Expr IRMutator::Mutate(const Expr& e) {
  if (!e.defined()) return e;
  switch (e.kind()) {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  case ExprKind::k##kind:                          \
    return Mutate##kind(*e.as<node_class>(), e);
#include "lower/ir/node_kinds.inc"
  }
  return e;
}

Stmt IRMutator::Mutate(const Stmt& s) {
  if (!s.defined()) return s;
  switch (s.kind()) {
#define ANVIL_TIR_STMT(kind, node_class) \
  case StmtKind::k##kind:                \
    return Mutate##kind(*s.as<node_class>(), s);
#include "lower/ir/node_kinds.inc"
  }
  return s;
}

Function IRMutator::Mutate(const Function& f) {
  Function out = f;
  out.body = Mutate(f.body);
  return out;
}

Expr IRMutator::Take(absl::StatusOr<Expr> made, const Expr& fallback) {
  if (!made.ok()) {
    Fail(made.status());
    return fallback;
  }
  return *std::move(made);
}

Stmt IRMutator::Take(absl::StatusOr<Stmt> made, const Stmt& fallback) {
  if (!made.ok()) {
    Fail(made.status());
    return fallback;
  }
  return *std::move(made);
}

bool IRMutator::MutateAll(const std::vector<Expr>& in, std::vector<Expr>* out) {
  bool changed = false;
  out->clear();
  out->reserve(in.size());
  for (const Expr& e : in) {
    out->push_back(Mutate(e));
    changed |= !out->back().same(e);
  }
  return changed;
}

namespace {

Expr Rebuild(IRMutator&, const ConstantNode&, const Expr& e) { return e; }
Expr Rebuild(IRMutator&, const VarNode&, const Expr& e) { return e; }
Expr Rebuild(IRMutator&, const TensorNode&, const Expr& e) { return e; }

Expr Rebuild(IRMutator& m, const CastNode& n, const Expr& e) {
  Expr v = m.Mutate(n.value);
  if (v.same(n.value)) return e;
  return m.Take(MakeCast(n.type(), v), e);
}

Expr Rebuild(IRMutator& m, const BroadcastNode& n, const Expr& e) {
  Expr v = m.Mutate(n.value);
  if (v.same(n.value)) return e;
  return m.Take(MakeBroadcast(v, n.type().lanes()), e);
}

Expr Rebuild(IRMutator& m, const BinaryNode& n, const Expr& e) {
  Expr a = m.Mutate(n.a), b = m.Mutate(n.b);
  if (a.same(n.a) && b.same(n.b)) return e;
  return m.Take(MakeBinary(n.kind(), a, b), e);
}

Expr Rebuild(IRMutator& m, const UnaryNode& n, const Expr& e) {
  Expr a = m.Mutate(n.a);
  if (a.same(n.a)) return e;
  return m.Take(MakeUnary(n.kind(), a), e);
}

Expr Rebuild(IRMutator& m, const SelectNode& n, const Expr& e) {
  Expr c = m.Mutate(n.cond), t = m.Mutate(n.if_true), f = m.Mutate(n.if_false);
  if (c.same(n.cond) && t.same(n.if_true) && f.same(n.if_false)) return e;
  return m.Take(MakeSelect(c, t, f), e);
}

Expr Rebuild(IRMutator& m, const IndexingNode& n, const Expr& e) {
  Expr t = m.Mutate(n.tensor);
  std::vector<Expr> indices;
  const bool changed = m.MutateAll(n.indices, &indices);
  if (!changed && t.same(n.tensor)) return e;
  return m.Take(MakeIndexing(t, std::move(indices), n.type().lanes()), e);
}

Expr Rebuild(IRMutator& m, const TensorPtrNode& n, const Expr& e) {
  Expr t = m.Mutate(n.tensor);
  std::vector<Expr> indices;
  const bool changed = m.MutateAll(n.indices, &indices);
  if (!changed && t.same(n.tensor)) return e;
  return m.Take(MakeTensorPtr(t, std::move(indices)), e);
}

Expr Rebuild(IRMutator& m, const CallNode& n, const Expr& e) {
  std::vector<Expr> args;
  if (!m.MutateAll(n.args, &args)) return e;
  return m.Take(MakeCall(n.callee, n.type(), std::move(args)), e);
}

Expr Rebuild(IRMutator& m, const IntrinsicNode& n, const Expr& e) {
  std::vector<Expr> args;
  if (!m.MutateAll(n.args, &args)) return e;
  return m.Take(MakeIntrinsic(n.op, std::move(args)), e);
}

Stmt Rebuild(IRMutator& m, const AssignNode& n, const Stmt& s) {
  Expr v = m.Mutate(n.var), x = m.Mutate(n.value);
  if (v.same(n.var) && x.same(n.value)) return s;
  return m.Take(MakeAssign(v, x), s);
}

Stmt Rebuild(IRMutator& m, const StoreNode& n, const Stmt& s) {
  Expr t = m.Mutate(n.tensor);
  std::vector<Expr> indices;
  const bool changed = m.MutateAll(n.indices, &indices);
  Expr x = m.Mutate(n.value);
  if (!changed && t.same(n.tensor) && x.same(n.value)) return s;
  return m.Take(MakeStore(t, std::move(indices), x), s);
}

Stmt Rebuild(IRMutator& m, const BlockNode& n, const Stmt& s) {
  std::vector<Stmt> stmts;
  stmts.reserve(n.stmts.size());
  bool changed = false;
  for (const Stmt& c : n.stmts) {
    stmts.push_back(m.Mutate(c));
    changed |= !stmts.back().same(c);
  }
  if (!changed) return s;
  return MakeBlock(std::move(stmts));
}

Stmt Rebuild(IRMutator& m, const IfElseNode& n, const Stmt& s) {
  Expr c = m.Mutate(n.cond);
  Stmt t = m.Mutate(n.then_body), f = m.Mutate(n.else_body);
  if (c.same(n.cond) && t.same(n.then_body) && f.same(n.else_body)) return s;
  return m.Take(MakeIfElse(c, t, f), s);
}

Stmt Rebuild(IRMutator& m, const ForNode& n, const Stmt& s) {
  Expr v = m.Mutate(n.var), b = m.Mutate(n.begin), e = m.Mutate(n.end), st = m.Mutate(n.step);
  Stmt body = m.Mutate(n.body);
  if (v.same(n.var) && b.same(n.begin) && e.same(n.end) && st.same(n.step) && body.same(n.body)) {
    return s;
  }
  return m.Take(MakeFor(v, b, e, st, body, n.attrs), s);
}

Stmt Rebuild(IRMutator& m, const EvaluateNode& n, const Stmt& s) {
  Expr v = m.Mutate(n.value);
  if (v.same(n.value)) return s;
  return m.Take(MakeEvaluate(v), s);
}

Stmt Rebuild(IRMutator& m, const ReturnNode& n, const Stmt& s) {
  Expr v = m.Mutate(n.value);
  if (v.same(n.value)) return s;
  return m.Take(MakeReturn(v), s);
}

Stmt Rebuild(IRMutator& m, const DefineNode& n, const Stmt& s) {
  Expr t = m.Mutate(n.target), i = m.Mutate(n.init), o = m.Mutate(n.tensor.offset);
  if (t.same(n.target) && i.same(n.init) && o.same(n.tensor.offset)) return s;
  TensorAttrs attrs = n.tensor;
  attrs.offset = o;
  return m.Take(MakeDefine(t, i, attrs), s);
}

Stmt Rebuild(IRMutator& m, const AssertNode& n, const Stmt& s) {
  Expr c = m.Mutate(n.cond);
  if (c.same(n.cond)) return s;
  return m.Take(MakeAssert(c, n.message), s);
}

Stmt Rebuild(IRMutator&, const CommentNode&, const Stmt& s) { return s; }

}  // namespace

#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  Expr IRMutator::Mutate##kind(const node_class& n, const Expr& e) { return Rebuild(*this, n, e); }
#define ANVIL_TIR_STMT(kind, node_class) \
  Stmt IRMutator::Mutate##kind(const node_class& n, const Stmt& s) { return Rebuild(*this, n, s); }
#include "lower/ir/node_kinds.inc"

}  // namespace anvil::tir
