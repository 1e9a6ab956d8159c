#include "lower/passes/plan_buffers.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "lower/ir/builder.h"
#include "lower/ir/simplify.h"
#include "lower/passes/access.h"
#include "lower/passes/entry_rewrite.h"
#include "runtime/memory_planner.h"

namespace anvil::lower {
namespace {

using tir::Expr;
using tir::ExprNode;
using tir::Stmt;

}  // namespace

absl::StatusOr<tir::Module> PlanBuffers(tir::Module module, PlanStats* stats) {
  tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr || !module.workspace.empty()) return module;
  const auto* block = entry->body.as<tir::BlockNode>();
  if (block == nullptr) return module;
  std::vector<Stmt> stmts = block->stmts;

  // Sizes are computed before the body runs: only dims over the entry's parameters qualify.
  absl::flat_hash_set<const ExprNode*> params;
  for (const Expr& p : entry->params) params.insert(p.get());
  auto over_params = [&](const tir::TensorNode& t) {
    absl::flat_hash_set<const ExprNode*> vars;
    for (const Expr& d : t.dims) FreeVars(d, &vars);
    for (const ExprNode* v : vars) {
      if (!params.contains(v)) return false;
    }
    return true;
  };
  // Candidates and the tensor each view's bytes belong to.
  absl::flat_hash_map<const ExprNode*, int> candidate;  // tensor -> buffer number
  absl::flat_hash_map<const ExprNode*, const ExprNode*> root;
  std::vector<int> define_at;
  std::vector<Lifetime> lifetimes;
  auto root_of = [&](const ExprNode* t) {
    for (auto it = root.find(t); it != root.end(); it = root.find(t)) t = it->second;
    return t;
  };
  for (size_t k = 0; k < stmts.size(); ++k) {
    const AccessSummary s = SummarizeAccesses(stmts[k]);
    for (auto [view, base] : s.views) root[view] = base;
    const auto* d = stmts[k].as<tir::DefineNode>();
    if (d != nullptr && d->target.as<tir::TensorNode>() && !d->tensor.view_of.defined() &&
        !d->tensor.offset.defined() && !d->tensor.dynamic &&
        (over_params(*d->target.as<tir::TensorNode>()) || d->tensor.max_bytes >= 0) &&
        ElementSize(tir::ElementTypeOf(d->target.type().kind())) > 0) {
      candidate[d->target.get()] = static_cast<int>(define_at.size());
      define_at.push_back(static_cast<int>(k));
      lifetimes.push_back({static_cast<int>(k), static_cast<int>(k)});
      continue;
    }
    for (const Access& a : s.accesses) {
      auto it = candidate.find(root_of(a.tensor));
      if (it != candidate.end()) lifetimes[it->second].last = static_cast<int>(k);
    }
  }
  if (define_at.empty()) return module;

  // Byte sizes.
  tir::Builder b;
  std::vector<Expr> bytes;
  std::vector<int64_t> sizes;
  bool all_static = true;
  for (int k : define_at) {
    const auto* d = stmts[k].as<tir::DefineNode>();
    const auto* t = d->target.as<tir::TensorNode>();
    if (!over_params(*t)) {
      // Dims the run learns, within bounds: the bytes at those bounds.
      sizes.push_back(d->tensor.max_bytes);
      bytes.push_back(tir::IndexConst(d->tensor.max_bytes));
      continue;
    }
    Expr n =
        tir::IndexConst(static_cast<int64_t>(ElementSize(tir::ElementTypeOf(t->type().kind()))));
    for (const Expr& d : t->dims) n = b.Mul(n, d);
    n = tir::Simplify(n);
    int64_t c = 0;
    if (tir::AsIntConstant(n, &c)) {
      sizes.push_back(c);
    } else {
      all_static = false;
      sizes.push_back(-1);
    }
    bytes.push_back(n);
  }
  if (!b.ok()) return b.status();

  auto place = [&](int buffer, Expr offset) {
    const int k = define_at[buffer];
    const auto* d = stmts[k].as<tir::DefineNode>();
    tir::TensorAttrs attrs = d->tensor;
    attrs.offset = std::move(offset);
    stmts[k] = b.Define(d->target, Expr(), attrs);
  };
  if (all_static) {
    MemoryPlanner planner(lifetimes, {});
    planner.Plan(sizes);
    for (size_t k = 0; k < define_at.size(); ++k) {
      place(static_cast<int>(k), tir::IndexConst(planner.offset(static_cast<int>(k))));
    }
    module.workspace.bytes = tir::IndexConst(planner.arena_bytes());
    if (stats) {
      stats->workspace_bytes = planner.arena_bytes();
      stats->unshared_bytes = planner.unshared_bytes();
    }
  } else {
    Expr offsets = b.Tensor("__offsets", tir::DataType::S64(),
                            {tir::IndexConst(static_cast<int64_t>(define_at.size()))});
    for (size_t k = 0; k < define_at.size(); ++k) {
      Expr at = b.Cast(tir::DataType::Index(),
                       b.Load(offsets, {tir::IndexConst(static_cast<int64_t>(k))}));
      place(static_cast<int>(k), at);
      module.workspace.buffers.push_back({stmts[define_at[k]].as<tir::DefineNode>()->target,
                                          bytes[k], lifetimes[k].first, lifetimes[k].last});
    }
    module.workspace.offsets = offsets;
  }
  if (!b.ok()) return b.status();
  if (stats) {
    stats->buffers = static_cast<int64_t>(define_at.size());
    stats->dynamic = !all_static;
  }
  entry->body = tir::MakeBlock(std::move(stmts));
  return module;
}

absl::StatusOr<bool> PlanBuffersPass::Run(tir::Module& module, PassContext& ctx) {
  const tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr) return false;
  const tir::Function before = *entry;
  PlanStats s;
  ANVIL_ASSIGN_OR_RETURN(module, PlanBuffers(std::move(module), &s));
  ctx.AddStatistic("workspace-buffers", s.buffers);
  if (!s.dynamic) {
    ctx.AddStatistic("workspace-bytes", s.workspace_bytes);
    ctx.AddStatistic("workspace-bytes-unshared", s.unshared_bytes);
  }
  stats_.buffers += s.buffers;
  stats_.dynamic = stats_.dynamic || s.dynamic;
  stats_.workspace_bytes += s.workspace_bytes;
  stats_.unshared_bytes += s.unshared_bytes;
  return s.buffers > 0 || EntryChanged(module, before);
}

ANVIL_REGISTER_TIR_PASS(PlanBuffersPass);

}  // namespace anvil::lower
