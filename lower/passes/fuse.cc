#include "lower/passes/fuse.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lower/ir/builder.h"
#include "lower/ir/equal.h"
#include "lower/ir/functor.h"
#include "lower/ir/simplify.h"
#include "lower/passes/access.h"
#include "lower/passes/entry_rewrite.h"

namespace anvil::lower {
namespace {

using tir::Expr;
using tir::ExprNode;
using tir::Stmt;

// A producer eligible for inlining: `for v0 { ... for vk { T[idx] = value } }` where each
// subscript is a loop variable (each once, in any order) or 0 on an axis of extent 1.
struct PureNest {
  Expr tensor;
  std::vector<Expr> indices;  // the store's subscripts
  Expr value;
};

std::optional<PureNest> MatchPureNest(const Stmt& s) {
  std::vector<const ExprNode*> vars;
  Stmt cur = SingleStatement(s);
  while (cur.defined()) {
    const auto* f = cur.as<tir::ForNode>();
    if (f == nullptr) break;
    if (!tir::IsIntConstant(f->begin, 0) || !tir::IsIntConstant(f->step, 1)) return std::nullopt;
    vars.push_back(f->var.get());
    cur = SingleStatement(f->body);
  }
  const auto* store = cur.defined() ? cur.as<tir::StoreNode>() : nullptr;
  if (store == nullptr || store->value.type().lanes() != 1) return std::nullopt;
  const auto* t = store->tensor.as<tir::TensorNode>();
  // Every loop variable is one subscript, and that axis's extent is the loop's.
  std::vector<bool> used(vars.size(), false);
  for (size_t k = 0; k < store->indices.size(); ++k) {
    const Expr& i = store->indices[k];
    if (tir::IsIntConstant(i, 0) && tir::IsIntConstant(t->dims[k], 1)) continue;
    auto it = std::find(vars.begin(), vars.end(), i.get());
    if (it == vars.end() || used[it - vars.begin()]) return std::nullopt;
    used[it - vars.begin()] = true;
  }
  if (std::find(used.begin(), used.end(), false) != used.end()) return std::nullopt;
  // Loop extents must be the tensor's dims: re-walk and compare.
  cur = SingleStatement(s);
  while (const auto* f = cur.defined() ? cur.as<tir::ForNode>() : nullptr) {
    for (size_t k = 0; k < store->indices.size(); ++k) {
      if (store->indices[k].get() == f->var.get() && !tir::IdenticalExpr(f->end, t->dims[k])) {
        return std::nullopt;
      }
    }
    cur = SingleStatement(f->body);
  }
  return PureNest{store->tensor, store->indices, store->value};
}

// Replaces loads of `tensor` by the producer's value at the load's subscripts.
class Inliner final : public tir::IRMutator {
 public:
  explicit Inliner(const PureNest& p) : p_(p) {}

 protected:
  Expr MutateIndexing(const tir::IndexingNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateIndexing(n, e);
    const auto* load = rebuilt.as<tir::IndexingNode>();
    if (load == nullptr || !load->tensor.same(p_.tensor)) return rebuilt;
    Expr value = p_.value;
    for (size_t k = 0; k < p_.indices.size(); ++k) {
      if (p_.indices[k].as<tir::VarNode>()) {
        value = tir::Substitute(value, p_.indices[k], load->indices[k]);
      }
    }
    return value;
  }

 private:
  const PureNest& p_;
};

// Whether every access of the summary to `t` is a one-lane load or store.
bool OnlyElementAccesses(const AccessSummary& s, const ExprNode* t, bool allow_stores) {
  for (const Access& a : s.accesses) {
    if (a.tensor != t) continue;
    if (a.kind == Access::Kind::kOpaque || a.lanes != 1) return false;
    if (a.kind == Access::Kind::kStore && !allow_stores) return false;
  }
  return true;
}

class Fuser {
 public:
  explicit Fuser(FuseStats* stats) : stats_(stats) {}

  std::vector<Stmt> Run(std::vector<Stmt> stmts) {
    stmts_ = std::move(stmts);
    Analyze();
    Inline();
    std::vector<Stmt> live;
    for (size_t k = 0; k < stmts_.size(); ++k) {
      if (alive_[k]) live.push_back(stmts_[k]);
    }
    live = FuseAdjacent(std::move(live));
    return Contract(std::move(live));
  }

 private:
  void Analyze() {
    alive_.assign(stmts_.size(), true);
    summaries_.clear();
    for (size_t k = 0; k < stmts_.size(); ++k) {
      summaries_.push_back(SummarizeAccesses(stmts_[k]));
      for (auto [view, base] : summaries_[k].views) {
        aliased_.insert(view);
        aliased_.insert(base);
      }
      const auto* d = stmts_[k].as<tir::DefineNode>();
      if (d != nullptr && d->target.as<tir::TensorNode>()) {
        if (!d->tensor.view_of.defined() && !d->tensor.offset.defined() && !d->tensor.dynamic) {
          locals_[d->target.get()] = static_cast<int>(k);
        }
        continue;
      }
      for (const Access& a : summaries_[k].accesses) {
        uses_[a.tensor].insert(static_cast<int>(k));
      }
    }
  }

  bool Eligible(const ExprNode* t) const { return locals_.contains(t) && !aliased_.contains(t); }

  void Inline() {
    for (size_t k = 0; k < stmts_.size(); ++k) {
      if (!alive_[k] || stmts_[k].as<tir::DefineNode>()) continue;
      const AccessSummary& producer = summaries_[k];
      if (producer.has_effects || producer.has_assert) continue;
      std::optional<PureNest> p = MatchPureNest(stmts_[k]);
      if (!p || !Eligible(p->tensor.get())) continue;
      const ExprNode* t = p->tensor.get();
      std::vector<int> consumers;
      bool ok = true;
      int sites = 0;
      bool replicated = false;
      for (int c : uses_[t]) {
        if (c == static_cast<int>(k)) continue;
        if (c < static_cast<int>(k) || !alive_[c] ||
            !OnlyElementAccesses(summaries_[c], t, false)) {
          ok = false;
          break;
        }
        consumers.push_back(c);
        for (const Access& a : summaries_[c].accesses) {
          if (a.tensor != t) continue;
          ++sites;
          absl::flat_hash_set<const ExprNode*> vars;
          for (const Expr& i : a.indices) FreeVars(i, &vars);
          for (const ExprNode* loop : a.loops) replicated |= !vars.contains(loop);
        }
      }
      if (!ok || consumers.empty()) continue;
      const ExprCost cost = CostOf(p->value);
      const bool cheap = !cost.expensive && cost.nodes <= 24 && cost.loads <= 4;
      if (!cheap && (sites > 1 || replicated)) continue;
      // What the value reads must not change between producer and consumers (each tensor has
      // one writer in lowered code, but the IR allows more).
      AccessSummary reads = SummarizeAccesses(p->value);
      const int last = consumers.back();
      for (const Access& a : reads.accesses) {
        for (int j : uses_[a.tensor]) {
          if (j > static_cast<int>(k) && j < last && alive_[j] && summaries_[j].Writes(a.tensor)) {
            ok = false;
          }
        }
      }
      if (!ok) continue;
      for (int c : consumers) {
        Inliner inliner(*p);
        Stmt inlined = inliner.Mutate(stmts_[c]);
        if (!inliner.status().ok()) {
          ok = false;
          break;
        }
        stmts_[c] = inlined;
      }
      if (!ok) continue;  // cannot happen for well-typed IR; the consumers are unchanged
      for (int c : consumers) {
        summaries_[c] = SummarizeAccesses(stmts_[c]);
        for (const Access& a : reads.accesses) uses_[a.tensor].insert(c);
      }
      alive_[k] = false;
      alive_[locals_[t]] = false;
      uses_.erase(t);
      if (stats_) ++stats_->inlined;
    }
  }

  // Narrows `axes` to those at which every access of the nest to `t` is exactly the loop
  // variable `var`; clears `ok` on an opaque or vector access.
  static void IntersectAxes(const AccessSummary& s, const ExprNode* t, const ExprNode* var,
                            std::vector<bool>* axes, bool* ok) {
    for (const Access& a : s.accesses) {
      if (a.tensor != t) continue;
      if (a.kind == Access::Kind::kOpaque || a.lanes != 1) {
        *ok = false;
        return;
      }
      if (axes->empty()) axes->assign(a.indices.size(), true);
      for (size_t k = 0; k < a.indices.size() && k < axes->size(); ++k) {
        if (a.indices[k].get() != var) (*axes)[k] = false;
      }
    }
  }

  std::optional<Stmt> TryFuse(const Stmt& s1, const Stmt& s2) {
    const auto* f1 = s1.as<tir::ForNode>();
    const auto* f2 = s2.as<tir::ForNode>();
    if (f1 == nullptr || f2 == nullptr) return std::nullopt;
    if (!tir::IdenticalExpr(f1->begin, f2->begin) || !tir::IdenticalExpr(f1->end, f2->end) ||
        !tir::IdenticalExpr(f1->step, f2->step) || !(f1->attrs == f2->attrs)) {
      return std::nullopt;
    }
    const AccessSummary a = SummarizeAccesses(f1->body);
    const AccessSummary b = SummarizeAccesses(f2->body);
    if (a.has_effects || b.has_effects) return std::nullopt;
    for (const AccessSummary* s : {&a, &b}) {
      for (const ExprNode* v : s->assigned) {
        if (!s->defined.contains(v)) return std::nullopt;
      }
    }
    // Dependences between the two bodies.
    absl::flat_hash_set<const ExprNode*> shared;
    for (const Access& x : a.accesses) {
      if (b.Touches(x.tensor) && (x.kind != Access::Kind::kLoad || b.Writes(x.tensor))) {
        shared.insert(x.tensor);
      }
    }
    for (const ExprNode* t : shared) {
      if (aliased_.contains(t)) return std::nullopt;
      std::vector<bool> axes;
      bool ok = true;
      IntersectAxes(a, t, f1->var.get(), &axes, &ok);
      std::vector<bool> axes_b;
      IntersectAxes(b, t, f2->var.get(), &axes_b, &ok);
      if (!ok || axes.size() != axes_b.size()) return std::nullopt;
      bool any = false;
      for (size_t k = 0; k < axes.size(); ++k) any |= axes[k] && axes_b[k];
      if (!any) return std::nullopt;
    }
    std::vector<Stmt> body = Statements(f1->body);
    for (const Stmt& s : Statements(tir::Substitute(f2->body, f2->var, f1->var))) {
      body.push_back(s);
    }
    body = FuseAdjacent(std::move(body));
    absl::StatusOr<Stmt> fused = tir::MakeFor(f1->var, f1->begin, f1->end, f1->step,
                                              tir::MakeBlock(std::move(body)), f1->attrs);
    if (!fused.ok()) return std::nullopt;
    if (stats_) ++stats_->fused;
    return *fused;
  }

  std::vector<Stmt> FuseAdjacent(std::vector<Stmt> stmts) {
    std::vector<Stmt> out;
    for (Stmt& s : stmts) {
      if (s.as<tir::ForNode>()) {
        // The previous loop, across Defines only.
        int p = static_cast<int>(out.size()) - 1;
        while (p >= 0 && MovableOver(out[p])) --p;
        if (p >= 0 && out[p].as<tir::ForNode>()) {
          if (std::optional<Stmt> fused = TryFuse(out[p], s)) {
            out.erase(out.begin() + p);
            out.push_back(*fused);
            continue;
          }
        }
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  // ---- Contraction ----

  // Replaces element accesses of `from` by accesses of `to` without the axes `drop` (or, when
  // `scalar` is set, by the variable).
  class Contractor final : public tir::IRMutator {
   public:
    Contractor(Expr from, Expr to, std::vector<bool> drop)
        : from_(std::move(from)), to_(std::move(to)), drop_(std::move(drop)) {}

   protected:
    Expr MutateIndexing(const tir::IndexingNode& n, const Expr& e) override {
      Expr rebuilt = IRMutator::MutateIndexing(n, e);
      const auto* load = rebuilt.as<tir::IndexingNode>();
      if (load == nullptr || !load->tensor.same(from_)) return rebuilt;
      if (to_.as<tir::VarNode>()) return to_;
      return Take(tir::MakeIndexing(to_, Kept(load->indices)), rebuilt);
    }
    Stmt MutateStore(const tir::StoreNode& n, const Stmt& s) override {
      Stmt rebuilt = IRMutator::MutateStore(n, s);
      const auto* store = rebuilt.as<tir::StoreNode>();
      if (store == nullptr || !store->tensor.same(from_)) return rebuilt;
      if (to_.as<tir::VarNode>()) return Take(tir::MakeAssign(to_, store->value), rebuilt);
      return Take(tir::MakeStore(to_, Kept(store->indices), store->value), rebuilt);
    }

   private:
    std::vector<Expr> Kept(const std::vector<Expr>& indices) const {
      std::vector<Expr> kept;
      for (size_t k = 0; k < indices.size(); ++k) {
        if (!drop_[k]) kept.push_back(indices[k]);
      }
      return kept;
    }
    Expr from_, to_;
    std::vector<bool> drop_;
  };

  // Puts `define` first in the body of the loop of variable `var`.
  class DefineInserter final : public tir::IRMutator {
   public:
    DefineInserter(const ExprNode* var, Stmt define) : var_(var), define_(std::move(define)) {}

   protected:
    Stmt MutateFor(const tir::ForNode& n, const Stmt& s) override {
      if (n.var.get() != var_) return IRMutator::MutateFor(n, s);
      // After the Defines already there, so they read in the order they were made.
      std::vector<Stmt> body = Statements(n.body);
      size_t at = 0;
      while (at < body.size() && body[at].as<tir::DefineNode>()) ++at;
      body.insert(body.begin() + at, define_);
      return Take(
          tir::MakeFor(n.var, n.begin, n.end, n.step, tir::MakeBlock(std::move(body)), n.attrs), s);
    }

   private:
    const ExprNode* var_;
    Stmt define_;
  };

  std::vector<Stmt> Contract(std::vector<Stmt> stmts) {
    // Which top-level statements touch each tensor.
    absl::flat_hash_map<const ExprNode*, std::vector<int>> touched;
    std::vector<AccessSummary> summaries;
    for (size_t k = 0; k < stmts.size(); ++k) {
      summaries.push_back(SummarizeAccesses(stmts[k]));
      if (stmts[k].as<tir::DefineNode>()) continue;
      for (const Access& a : summaries[k].accesses) {
        std::vector<int>& list = touched[a.tensor];
        if (list.empty() || list.back() != static_cast<int>(k)) list.push_back(static_cast<int>(k));
      }
    }
    std::vector<bool> alive(stmts.size(), true);
    for (size_t d = 0; d < stmts.size(); ++d) {
      const auto* def = stmts[d].as<tir::DefineNode>();
      if (def == nullptr || !Eligible(def->target.get())) continue;
      const ExprNode* t = def->target.get();
      auto it = touched.find(t);
      if (it == touched.end() || it->second.size() != 1) continue;
      const int k = it->second[0];
      const AccessSummary& s = summaries[k];
      if (!OnlyElementAccesses(s, t, true)) continue;
      // The loops around every access.
      std::vector<const ExprNode*> chain;
      bool first = true;
      for (const Access& a : s.accesses) {
        if (a.tensor != t) continue;
        if (first) {
          chain = a.loops;
          first = false;
          continue;
        }
        size_t common = 0;
        while (common < chain.size() && common < a.loops.size() &&
               chain[common] == a.loops[common]) {
          ++common;
        }
        chain.resize(common);
      }
      const auto* tensor = def->target.as<tir::TensorNode>();
      std::vector<bool> drop(tensor->dims.size(), false);
      int deepest = -1;
      for (size_t axis = 0; axis < tensor->dims.size(); ++axis) {
        const ExprNode* var = nullptr;
        bool same = true;
        for (const Access& a : s.accesses) {
          if (a.tensor != t) continue;
          const ExprNode* i = a.indices[axis].get();
          if (var == nullptr) var = i;
          same &= i == var;
        }
        // An axis of extent 1 (subscript 0 everywhere) goes too.
        if (tir::IsIntConstant(tensor->dims[axis], 1)) {
          drop[axis] = true;
          continue;
        }
        auto pos = std::find(chain.begin(), chain.end(), var);
        if (!same || pos == chain.end()) continue;
        drop[axis] = true;
        deepest = std::max(deepest, static_cast<int>(pos - chain.begin()));
      }
      if (deepest < 0) continue;
      std::vector<Expr> kept;
      for (size_t axis = 0; axis < drop.size(); ++axis) {
        if (!drop[axis]) kept.push_back(tensor->dims[axis]);
      }
      tir::Builder b;
      Expr to = kept.empty() ? b.Var(tensor->name, tensor->type())
                             : b.Tensor(tensor->name, tensor->type(), std::move(kept));
      Stmt define = b.Define(to);
      if (!b.ok()) continue;
      Contractor contractor(def->target, to, drop);
      Stmt contracted = contractor.Mutate(stmts[k]);
      DefineInserter inserter(chain[deepest], define);
      contracted = inserter.Mutate(contracted);
      if (!contractor.status().ok() || !inserter.status().ok()) continue;
      stmts[k] = contracted;
      summaries[k] = SummarizeAccesses(contracted);
      alive[d] = false;
      if (stats_) ++stats_->contracted;
    }
    std::vector<Stmt> out;
    for (size_t k = 0; k < stmts.size(); ++k) {
      if (alive[k]) out.push_back(std::move(stmts[k]));
    }
    return out;
  }

  FuseStats* stats_;
  std::vector<Stmt> stmts_;
  std::vector<bool> alive_;
  std::vector<AccessSummary> summaries_;
  // Plain local intermediates: tensor -> its Define's position.
  absl::flat_hash_map<const ExprNode*, int> locals_;
  absl::flat_hash_set<const ExprNode*> aliased_;
  absl::flat_hash_map<const ExprNode*, std::set<int>> uses_;
};

}  // namespace

tir::Function Fuse(const tir::Function& f, FuseStats* stats) {
  Fuser fuser(stats);
  tir::Function out = f;
  out.body = tir::MakeBlock(fuser.Run(Statements(f.body)));
  return tir::Simplify(out);
}

absl::StatusOr<bool> FusePass::Run(tir::Module& module, PassContext& ctx) {
  return RewriteEntry(module, [&](const tir::Function& f) {
    FuseStats s;
    tir::Function fused = Fuse(f, &s);
    ReportCounts(ctx, {{"inlined-producers", s.inlined, &stats_.inlined},
                       {"fused-loops", s.fused, &stats_.fused},
                       {"contracted-intermediates", s.contracted, &stats_.contracted}});
    return fused;
  });
}

ANVIL_REGISTER_TIR_PASS(FusePass);

}  // namespace anvil::lower
