#include "lower/passes/passes.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lower/ir/functor.h"

namespace anvil::lower {
namespace {

class Counter final : public tir::IRVisitor {
 public:
  ModuleCounts counts;

 protected:
  void VisitFor(const tir::ForNode& n, const tir::Stmt& s) override {
    ++counts.loops;
    if (depth_ == 0) ++counts.nests;
    ++depth_;
    IRVisitor::VisitFor(n, s);
    --depth_;
  }
  void VisitDefine(const tir::DefineNode& n, const tir::Stmt& s) override {
    if (n.target.as<tir::TensorNode>() && !n.tensor.view_of.defined() && !n.tensor.dynamic) {
      ++(depth_ == 0 ? counts.stored_intermediates : counts.local_buffers);
    }
    IRVisitor::VisitDefine(n, s);
  }
  void VisitIntrinsic(const tir::IntrinsicNode& n, const tir::Expr& e) override {
    if (tir::IsKernelIntrinsic(n.op)) ++counts.kernel_calls;
    IRVisitor::VisitIntrinsic(n, e);
  }

 private:
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<tir::Module> RunModulePasses(tir::Module module, const ModulePassOptions& options,
                                            ModulePassStats* stats) {
  ModulePassStats ignored;
  if (stats == nullptr) stats = &ignored;
  auto verified = [](const tir::Module& m, const char* pass) -> absl::Status {
    absl::Status s = tir::VerifyModule(m);
    if (s.ok()) return s;
    return absl::InternalError(absl::StrCat("tensor IR after ", pass, ": ", s.message()));
  };
  tir::Function* entry = module.FindFunction(module.entry);
  if (entry == nullptr) return std::move(module);
  if (options.fuse) {
    *entry = Fuse(*entry, &stats->fuse);
    ANVIL_RETURN_IF_ERROR(verified(module, "fuse"));
  }
  if (options.tile_rows) {
    module = FuseRowTiles(std::move(module), options.row_tiles, &stats->row_tiles);
    ANVIL_RETURN_IF_ERROR(verified(module, "tile-rows"));
  }
  if (options.plan_buffers) {
    ANVIL_ASSIGN_OR_RETURN(module, PlanBuffers(std::move(module), &stats->plan));
    ANVIL_RETURN_IF_ERROR(verified(module, "plan-buffers"));
  }
  if (options.collapse_loops) {
    entry = module.FindFunction(module.entry);
    *entry = CollapseLoops(*entry, &stats->collapse);
    ANVIL_RETURN_IF_ERROR(verified(module, "collapse-loops"));
  }
  if (options.mark_loops) {
    entry = module.FindFunction(module.entry);
    *entry = MarkLoops(*entry, &stats->mark);
    ANVIL_RETURN_IF_ERROR(verified(module, "mark-loops"));
  }
  return std::move(module);
}

ModuleCounts CountLoops(const tir::Module& module) {
  Counter c;
  if (const tir::Function* f = module.FindFunction(module.entry)) c.Visit(*f);
  return c.counts;
}

}  // namespace anvil::lower
