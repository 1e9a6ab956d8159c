#include "lower/passes/access.h"

#include <utility>

#include "lower/ir/equal.h"
#include "lower/ir/functor.h"
#include "lower/ir/simplify.h"

namespace anvil::lower {
namespace {

using tir::Expr;
using tir::Stmt;

class AccessCollector final : public tir::IRVisitor {
 public:
  AccessSummary summary;

 protected:
  void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
    Record(Access::Kind::kLoad, n.tensor, n.indices, e.type().lanes());
    for (const Expr& i : n.indices) Visit(i);
  }
  void VisitStore(const tir::StoreNode& n, const Stmt&) override {
    Record(Access::Kind::kStore, n.tensor, n.indices, n.value.type().lanes());
    for (const Expr& i : n.indices) Visit(i);
    Visit(n.value);
  }
  void VisitTensorPtr(const tir::TensorPtrNode& n, const Expr&) override {
    Record(Access::Kind::kOpaque, n.tensor, {}, 1);
    for (const Expr& i : n.indices) Visit(i);
  }
  // A bare tensor: an operand of a kernel call.
  void VisitTensor(const tir::TensorNode&, const Expr& e) override {
    Record(Access::Kind::kOpaque, e, {}, 1);
  }
  void VisitIntrinsic(const tir::IntrinsicNode& n, const Expr& e) override {
    if (tir::IsKernelIntrinsic(n.op)) summary.has_effects = true;
    IRVisitor::VisitIntrinsic(n, e);
  }
  void VisitCall(const tir::CallNode& n, const Expr& e) override {
    summary.has_effects = true;
    IRVisitor::VisitCall(n, e);
  }
  void VisitAssign(const tir::AssignNode& n, const Stmt& s) override {
    summary.assigned.insert(n.var.get());
    Visit(n.value);
  }
  void VisitAssert(const tir::AssertNode& n, const Stmt& s) override {
    summary.has_assert = true;
    IRVisitor::VisitAssert(n, s);
  }
  void VisitDefine(const tir::DefineNode& n, const Stmt&) override {
    if (n.target.as<tir::TensorNode>()) {
      summary.defined_tensors.insert(n.target.get());
      if (n.tensor.view_of.defined()) {
        summary.views.emplace_back(n.target.get(), n.tensor.view_of.get());
        Record(Access::Kind::kOpaque, n.tensor.view_of, {}, 1);
        Record(Access::Kind::kOpaque, n.target, {}, 1);
      }
      for (const Expr& d : n.target.as<tir::TensorNode>()->dims) Visit(d);
      Visit(n.tensor.offset);
    } else {
      summary.defined.insert(n.target.get());
      Visit(n.init);
    }
  }
  void VisitFor(const tir::ForNode& n, const Stmt&) override {
    summary.defined.insert(n.var.get());
    Visit(n.begin);
    Visit(n.end);
    Visit(n.step);
    loops_.push_back(n.var.get());
    Visit(n.body);
    loops_.pop_back();
  }

 private:
  void Record(Access::Kind kind, const Expr& tensor, std::vector<Expr> indices, int lanes) {
    summary.accesses.push_back({kind, tensor.get(), std::move(indices), lanes, loops_});
  }

  std::vector<const tir::ExprNode*> loops_;
};

class VarCollector final : public tir::IRVisitor {
 public:
  explicit VarCollector(absl::flat_hash_set<const tir::ExprNode*>* out) : out_(out) {}

 protected:
  void VisitVar(const tir::VarNode&, const Expr& e) override { out_->insert(e.get()); }

 private:
  absl::flat_hash_set<const tir::ExprNode*>* out_;
};

class CostCounter final : public tir::IRVisitor {
 public:
  ExprCost cost;

  void Visit(const Expr& e) override {
    if (!e.defined()) return;
    ++cost.nodes;
    IRVisitor::Visit(e);
  }

 protected:
  void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
    ++cost.loads;
    IRVisitor::VisitIndexing(n, e);
  }
  void VisitIntrinsic(const tir::IntrinsicNode& n, const Expr& e) override {
    switch (n.op) {
      case tir::IntrinsicOp::kAbs:
      case tir::IntrinsicOp::kIsInf:
      case tir::IntrinsicOp::kIsNaN:
      case tir::IntrinsicOp::kFma:
      case tir::IntrinsicOp::kFloor:
      case tir::IntrinsicOp::kCeil:
      case tir::IntrinsicOp::kRound:
        break;
      default:
        cost.expensive = true;
    }
    IRVisitor::VisitIntrinsic(n, e);
  }
  void VisitCall(const tir::CallNode& n, const Expr& e) override {
    cost.expensive = true;
    IRVisitor::VisitCall(n, e);
  }
};

}  // namespace

bool AccessSummary::Writes(const tir::ExprNode* t) const {
  for (const Access& a : accesses) {
    if (a.tensor == t && a.kind != Access::Kind::kLoad) return true;
  }
  return false;
}

bool AccessSummary::Touches(const tir::ExprNode* t) const {
  for (const Access& a : accesses) {
    if (a.tensor == t) return true;
  }
  return false;
}

AccessSummary SummarizeAccesses(const Stmt& s) {
  AccessCollector c;
  c.Visit(s);
  return std::move(c.summary);
}

void FreeVars(const Expr& e, absl::flat_hash_set<const tir::ExprNode*>* out) {
  VarCollector c(out);
  c.Visit(e);
}

bool ContainsLoop(const Stmt& s) {
  class Finder final : public tir::IRVisitor {
   public:
    bool found = false;

   protected:
    void VisitFor(const tir::ForNode&, const Stmt&) override { found = true; }
  } finder;
  finder.Visit(s);
  return finder.found;
}

std::vector<Stmt> Statements(const Stmt& s) {
  if (const auto* b = s.as<tir::BlockNode>()) return b->stmts;
  return {s};
}

Stmt SingleStatement(const Stmt& s) {
  const auto* b = s.as<tir::BlockNode>();
  if (b == nullptr) return s;
  return b->stmts.size() == 1 ? SingleStatement(b->stmts[0]) : Stmt();
}

bool SameIndex(const Expr& a, const Expr& b) {
  return tir::IdenticalExpr(tir::Simplify(a), tir::Simplify(b));
}

bool Mentions(const Expr& e, const tir::ExprNode* var) {
  absl::flat_hash_set<const tir::ExprNode*> vars;
  FreeVars(e, &vars);
  return vars.contains(var);
}

bool MovableOver(const Stmt& s) {
  if (s.as<tir::CommentNode>()) return true;
  if (const auto* a = s.as<tir::AssertNode>()) return SummarizeAccesses(a->cond).accesses.empty();
  const auto* d = s.as<tir::DefineNode>();
  if (d == nullptr) return false;
  if (d->target.as<tir::VarNode>()) return !d->init.defined();
  return !d->tensor.offset.defined();
}

bool MentionsVar(const Stmt& s, const tir::ExprNode* var) {
  class Finder final : public tir::IRVisitor {
   public:
    explicit Finder(const tir::ExprNode* var) : var_(var) {}
    bool found = false;

   protected:
    void VisitVar(const tir::VarNode&, const Expr& e) override { found |= e.get() == var_; }

   private:
    const tir::ExprNode* var_;
  } finder(var);
  finder.Visit(s);
  return finder.found;
}

AccessSummary SummarizeAccesses(const Expr& e) {
  AccessCollector c;
  c.Visit(e);
  return std::move(c.summary);
}

ExprCost CostOf(const Expr& e) {
  CostCounter c;
  c.Visit(e);
  return c.cost;
}

}  // namespace anvil::lower
