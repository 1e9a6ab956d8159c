#include "lower/passes/mark_loops.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/element_type.h"
#include "lower/ir/functor.h"
#include "lower/passes/access.h"
#include "lower/passes/entry_rewrite.h"

namespace anvil::lower {
namespace {

using tir::ExprNode;
using tir::Stmt;

constexpr int kVectorBytes = 64;

// Whether iterations of the loop over `var` with body summary `s` are independent.
bool Independent(const AccessSummary& s, const ExprNode* var) {
  if (s.has_effects) return false;
  for (const ExprNode* v : s.assigned) {
    if (!s.defined.contains(v)) return false;
  }
  // Per tensor stored to: the axes at which every access is exactly `var`.
  absl::flat_hash_map<const ExprNode*, std::vector<bool>> axes;
  for (const Access& a : s.accesses) {
    if (a.kind == Access::Kind::kStore && !s.defined_tensors.contains(a.tensor)) {
      axes.emplace(a.tensor, std::vector<bool>(a.indices.size(), true));
    }
  }
  for (const Access& a : s.accesses) {
    auto it = axes.find(a.tensor);
    if (it == axes.end()) continue;
    if (a.kind == Access::Kind::kOpaque || a.lanes != 1) return false;
    for (size_t k = 0; k < a.indices.size(); ++k) {
      if (a.indices[k].get() != var) it->second[k] = false;
    }
  }
  for (const auto& [t, ok] : axes) {
    if (std::find(ok.begin(), ok.end(), true) == ok.end()) return false;
  }
  return true;
}

class Marker final : public tir::IRMutator {
 public:
  explicit Marker(MarkStats* stats) : stats_(stats) {}

  Stmt MarkTop(const Stmt& s) {
    const auto* f = s.as<tir::ForNode>();
    if (f == nullptr) return s;
    top_ = true;
    return Mutate(s);
  }

 protected:
  Stmt MutateFor(const tir::ForNode& n, const Stmt& s) override {
    const bool outermost = top_;
    top_ = false;
    Stmt rebuilt = IRMutator::MutateFor(n, s);
    const auto* f = rebuilt.as<tir::ForNode>();
    if (f == nullptr) return rebuilt;
    tir::ForAttrs attrs = f->attrs;
    const AccessSummary body = SummarizeAccesses(f->body);
    const bool independent = Independent(body, f->var.get());
    if (outermost && independent && !attrs.parallel) {
      attrs.parallel = true;
      if (stats_) ++stats_->parallel;
    }
    if (independent && attrs.vectorize == 0 && tir::IsIntConstant(f->step, 1) &&
        !ContainsLoop(f->body)) {
      size_t widest = 0;
      bool unit_stride = true;
      for (const Access& a : body.accesses) {
        if (a.kind != Access::Kind::kStore || body.defined_tensors.contains(a.tensor)) continue;
        unit_stride &= !a.indices.empty() && a.indices.back().get() == f->var.get();
        widest = std::max(widest, ElementSize(tir::ElementTypeOf(a.tensor->type().kind())));
      }
      if (unit_stride && widest > 0) {
        attrs.vectorize = static_cast<int>(kVectorBytes / widest);
        if (stats_) ++stats_->vectorized;
      }
    }
    if (attrs == f->attrs) return rebuilt;
    return Take(tir::MakeFor(f->var, f->begin, f->end, f->step, f->body, attrs), rebuilt);
  }

 private:
  MarkStats* stats_;
  bool top_ = false;
};

}  // namespace

tir::Function MarkLoops(const tir::Function& f, MarkStats* stats) {
  tir::Function out = f;
  const auto* block = f.body.as<tir::BlockNode>();
  if (block == nullptr) return out;
  std::vector<Stmt> stmts;
  for (const Stmt& s : block->stmts) {
    Marker marker(stats);
    Stmt marked = marker.MarkTop(s);
    stmts.push_back(marker.status().ok() ? marked : s);
  }
  out.body = tir::MakeBlock(std::move(stmts));
  return out;
}

absl::StatusOr<bool> MarkLoopsPass::Run(tir::Module& module, PassContext& ctx) {
  return RewriteEntry(module, [&](const tir::Function& f) {
    MarkStats s;
    tir::Function marked = MarkLoops(f, &s);
    ReportCounts(ctx, {{"parallel-loops", s.parallel, &stats_.parallel},
                       {"vectorized-loops", s.vectorized, &stats_.vectorized}});
    return marked;
  });
}

ANVIL_REGISTER_TIR_PASS(MarkLoopsPass);

}  // namespace anvil::lower
