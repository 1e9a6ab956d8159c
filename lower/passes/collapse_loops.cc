#include "lower/passes/collapse_loops.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
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

// The one loop a loop's body consists of, or null.
const tir::ForNode* OnlyLoop(const Stmt& body) {
  if (const auto* f = body.as<tir::ForNode>()) return f;
  const auto* block = body.as<tir::BlockNode>();
  if (block == nullptr || block->stmts.size() != 1) return nullptr;
  return block->stmts[0].as<tir::ForNode>();
}

// Replaces accesses t[..., a, b] of the tensors in `views` by view[..., ab].
class Rewriter final : public tir::IRMutator {
 public:
  Rewriter(const absl::flat_hash_map<const ExprNode*, Expr>& views, const ExprNode* a,
           const ExprNode* b, Expr ab)
      : views_(views), a_(a), b_(b), ab_(std::move(ab)) {}

 protected:
  Expr MutateIndexing(const tir::IndexingNode& n, const Expr& e) override {
    Expr rebuilt = IRMutator::MutateIndexing(n, e);
    const auto* load = rebuilt.as<tir::IndexingNode>();
    const Expr* view = load == nullptr ? nullptr : Find(load->tensor, load->indices);
    if (view == nullptr) return rebuilt;
    return Take(tir::MakeIndexing(*view, Merged(load->indices)), rebuilt);
  }
  Stmt MutateStore(const tir::StoreNode& n, const Stmt& s) override {
    Stmt rebuilt = IRMutator::MutateStore(n, s);
    const auto* store = rebuilt.as<tir::StoreNode>();
    const Expr* view = store == nullptr ? nullptr : Find(store->tensor, store->indices);
    if (view == nullptr) return rebuilt;
    return Take(tir::MakeStore(*view, Merged(store->indices), store->value), rebuilt);
  }

 private:
  const Expr* Find(const Expr& tensor, const std::vector<Expr>& indices) const {
    auto it = views_.find(tensor.get());
    if (it == views_.end() || indices.size() < 2) return nullptr;
    const size_t n = indices.size();
    if (indices[n - 2].get() != a_ || indices[n - 1].get() != b_) return nullptr;
    return &it->second;
  }
  std::vector<Expr> Merged(const std::vector<Expr>& indices) const {
    std::vector<Expr> merged(indices.begin(), indices.end() - 2);
    merged.push_back(ab_);
    return merged;
  }

  const absl::flat_hash_map<const ExprNode*, Expr>& views_;
  const ExprNode* a_;
  const ExprNode* b_;
  Expr ab_;
};

class Collapser {
 public:
  Collapser(absl::flat_hash_set<const ExprNode*> local_tensors, CollapseStats* stats)
      : local_tensors_(std::move(local_tensors)), stats_(stats) {}

  // `s` with its collapsible pairs collapsed; the views it reads are appended to *defines.
  Stmt Run(const Stmt& s, std::vector<Stmt>* defines) {
    defines_ = defines;
    return Visit(s);
  }

 private:
  Stmt Visit(const Stmt& s) {
    if (const auto* block = s.as<tir::BlockNode>()) {
      std::vector<Stmt> stmts;
      bool changed = false;
      for (const Stmt& child : block->stmts) {
        stmts.push_back(Visit(child));
        changed |= !stmts.back().same(child);
      }
      return changed ? tir::MakeBlock(std::move(stmts)) : s;
    }
    const auto* f = s.as<tir::ForNode>();
    if (f == nullptr) return s;
    const Stmt body = Visit(f->body);
    Stmt loop = s;
    if (!body.same(f->body)) {
      absl::StatusOr<Stmt> made = tir::MakeFor(f->var, f->begin, f->end, f->step, body, f->attrs);
      if (!made.ok()) return s;
      loop = *std::move(made);
    }
    const auto* outer = loop.as<tir::ForNode>();
    const tir::ForNode* inner = OnlyLoop(outer->body);
    if (inner == nullptr) return loop;
    std::optional<Stmt> collapsed = TryCollapse(*outer, *inner);
    return collapsed ? *std::move(collapsed) : loop;
  }

  std::optional<Stmt> TryCollapse(const tir::ForNode& outer, const tir::ForNode& inner) {
    const ExprNode* a = outer.var.get();
    const ExprNode* b = inner.var.get();
    for (const tir::ForNode* l : {&outer, &inner}) {
      if (!tir::IsIntConstant(l->begin, 0) || !tir::IsIntConstant(l->step, 1) ||
          !(l->attrs == tir::ForAttrs{})) {
        return std::nullopt;
      }
    }
    if (Mentions(inner.end, a) || ContainsLoop(inner.body)) return std::nullopt;
    const AccessSummary body = SummarizeAccesses(inner.body);
    if (body.has_effects || !body.defined_tensors.empty()) return std::nullopt;
    // The tensors whose last two axes the pair runs over, and their views in the order of first
    // access (the order their Defines are printed and emitted in).
    absl::flat_hash_map<const ExprNode*, Expr> views;
    std::vector<Expr> ordered;
    for (const Access& access : body.accesses) {
      if (access.kind == Access::Kind::kOpaque || access.lanes != 1) return std::nullopt;
      const std::vector<Expr>& idx = access.indices;
      const size_t n = idx.size();
      bool mentions = false;
      for (const Expr& i : idx) mentions |= Mentions(i, a) || Mentions(i, b);
      if (!mentions) continue;
      if (n < 2 || idx[n - 2].get() != a || idx[n - 1].get() != b) return std::nullopt;
      for (size_t k = 0; k + 2 < n; ++k) {
        if (Mentions(idx[k], a) || Mentions(idx[k], b)) return std::nullopt;
      }
      const auto* tensor = static_cast<const tir::TensorNode*>(access.tensor);
      if (local_tensors_.contains(tensor)) return std::nullopt;
      if (!SameIndex(tensor->dims[n - 2], outer.end) ||
          !SameIndex(tensor->dims[n - 1], inner.end)) {
        return std::nullopt;
      }
      if (!views.contains(tensor)) {
        std::optional<Expr> view = ViewOf(*tensor, access.tensor);
        if (!view) return std::nullopt;
        views.emplace(tensor, *view);
        ordered.push_back(*std::move(view));
      }
    }
    const auto* a_var = outer.var.as<tir::VarNode>();
    const auto* b_var = inner.var.as<tir::VarNode>();
    absl::StatusOr<Expr> ab = tir::MakeVar(absl::StrCat(a_var->name, b_var->name), a_var->type());
    absl::StatusOr<Expr> extent = tir::MakeBinary(tir::ExprKind::kMul, outer.end, inner.end);
    if (!ab.ok() || !extent.ok()) return std::nullopt;
    Rewriter rewriter(views, a, b, *ab);
    const Stmt rewritten = rewriter.Mutate(inner.body);
    if (!rewriter.status().ok() || MentionsVar(rewritten, a) || MentionsVar(rewritten, b)) {
      return std::nullopt;
    }
    absl::StatusOr<Stmt> loop = tir::MakeFor(*ab, tir::IndexConst(0), tir::Simplify(*extent),
                                             tir::IndexConst(1), rewritten);
    if (!loop.ok()) return std::nullopt;
    // The views are kept from here on (one per tensor, reused by later pairs).
    for (const Expr& view : ordered) {
      if (defined_.insert(view.get()).second) {
        defines_->push_back(pending_defines_.find(view.get())->second);
        if (stats_) ++stats_->views;
      }
    }
    if (stats_) ++stats_->collapsed;
    return *std::move(loop);
  }

  // The view of `tensor` with its last two dims merged: made once, defined (before the nest)
  // only when a collapse uses it.
  std::optional<Expr> ViewOf(const tir::TensorNode& tensor, const ExprNode* key) {
    if (auto it = view_of_.find(key); it != view_of_.end()) return it->second;
    const size_t n = tensor.dims.size();
    std::vector<Expr> dims(tensor.dims.begin(), tensor.dims.end() - 2);
    absl::StatusOr<Expr> merged =
        tir::MakeBinary(tir::ExprKind::kMul, tensor.dims[n - 2], tensor.dims[n - 1]);
    if (!merged.ok()) return std::nullopt;
    dims.push_back(tir::Simplify(*merged));
    absl::StatusOr<Expr> view =
        tir::MakeTensor(absl::StrCat(tensor.name, "_flat"), tensor.type(), std::move(dims));
    if (!view.ok()) return std::nullopt;
    // The tensor itself, found again through the access (a TensorNode handle).
    auto handle = tensors_.find(key);
    if (handle == tensors_.end()) return std::nullopt;
    absl::StatusOr<Stmt> define = tir::MakeDefine(*view, Expr(), {.view_of = handle->second});
    if (!define.ok()) return std::nullopt;
    pending_defines_.emplace(view->get(), *std::move(define));
    view_of_.emplace(key, *view);
    tensors_.emplace(view->get(), *view);  // an outer pair may view the view
    return *view;
  }

 public:
  // Handles of the tensors (accesses carry only the node pointer).
  absl::flat_hash_map<const ExprNode*, Expr> tensors_;

 private:
  absl::flat_hash_set<const ExprNode*> local_tensors_;
  CollapseStats* stats_;
  std::vector<Stmt>* defines_ = nullptr;
  absl::flat_hash_map<const ExprNode*, Expr> view_of_;
  absl::flat_hash_map<const ExprNode*, Stmt> pending_defines_;
  absl::flat_hash_set<const ExprNode*> defined_;
};

// Every tensor handle a statement mentions, by node.
void CollectTensors(const Stmt& s, absl::flat_hash_map<const ExprNode*, Expr>* out) {
  class Collector final : public tir::IRVisitor {
   public:
    explicit Collector(absl::flat_hash_map<const ExprNode*, Expr>* out) : out_(out) {}

   protected:
    void VisitTensor(const tir::TensorNode&, const Expr& e) override { out_->emplace(e.get(), e); }

   private:
    absl::flat_hash_map<const ExprNode*, Expr>* out_;
  } collector(out);
  collector.Visit(s);
}

}  // namespace

tir::Function CollapseLoops(const tir::Function& f, CollapseStats* stats) {
  tir::Function out = f;
  const auto* block = f.body.as<tir::BlockNode>();
  if (block == nullptr) return out;
  std::vector<Stmt> stmts;
  bool changed = false;
  for (const Stmt& s : block->stmts) {
    if (s.as<tir::ForNode>() == nullptr) {
      stmts.push_back(s);
      continue;
    }
    // Tensors defined inside the nest cannot be viewed from before it.
    Collapser collapser(SummarizeAccesses(s).defined_tensors, stats);
    CollectTensors(s, &collapser.tensors_);
    std::vector<Stmt> defines;
    Stmt collapsed = collapser.Run(s, &defines);
    changed |= !collapsed.same(s);
    for (Stmt& d : defines) stmts.push_back(std::move(d));
    stmts.push_back(std::move(collapsed));
  }
  if (changed) out.body = tir::MakeBlock(std::move(stmts));
  return out;
}

absl::StatusOr<bool> CollapseLoopsPass::Run(tir::Module& module, PassContext& ctx) {
  return RewriteEntry(module, [&](const tir::Function& f) {
    CollapseStats s;
    tir::Function collapsed = CollapseLoops(f, &s);
    ReportCounts(ctx, {{"collapsed-loops", s.collapsed, &stats_.collapsed},
                       {"views", s.views, &stats_.views}});
    return collapsed;
  });
}

ANVIL_REGISTER_TIR_PASS(CollapseLoopsPass);

}  // namespace anvil::lower
