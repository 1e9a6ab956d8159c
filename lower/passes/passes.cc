#include "lower/passes/passes.h"

#include <memory>
#include <utility>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "lower/ir/functor.h"
#include "lower/passes/tir_instrumentation.h"

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

std::string ModulePassPipeline(const ModulePassOptions& options) {
  if (options.pipeline.has_value()) return *options.pipeline;
  std::vector<std::string> passes;
  if (options.fuse) passes.push_back("fuse");
  if (options.tile_rows) {
    TileRowsPass tile_rows;
    // Values that do not parse cannot come from an int64; below-minimum ones are refused when
    // the pipeline is parsed, as lower-to-tir's options would refuse them.
    tile_rows.tile_bytes().set_value(options.row_tiles.tile_bytes);
    tile_rows.weight_bytes().set_value(options.row_tiles.weight_bytes);
    passes.push_back(tile_rows.ToPipelineText());
  }
  if (options.plan_buffers) passes.push_back("plan-buffers");
  if (options.collapse_loops) passes.push_back("collapse-loops");
  if (options.mark_loops) passes.push_back("mark-loops");
  return absl::StrJoin(passes, ",");
}

absl::StatusOr<tir::Module> RunModulePasses(tir::Module module, const ModulePassOptions& options,
                                            ModulePassStats* stats) {
  ANVIL_ASSIGN_OR_RETURN(tir::PassManager manager,
                         tir::PassManager::Parse(ModulePassPipeline(options)));
  manager.AddInstrumentation(
      std::make_unique<tir::VerifierInstrumentation>(/*verify_unchanged=*/true));
  for (tir::PassInstrumentation* instrumentation : options.instrumentations) {
    manager.AddExternalInstrumentation(instrumentation);
  }
  ANVIL_RETURN_IF_ERROR(manager.Run(module));
  if (stats == nullptr) return std::move(module);
  for (const std::unique_ptr<tir::Pass>& pass : manager.passes()) {
    if (const auto* p = dynamic_cast<const FusePass*>(pass.get())) {
      stats->fuse.inlined += p->stats().inlined;
      stats->fuse.fused += p->stats().fused;
      stats->fuse.contracted += p->stats().contracted;
    } else if (const auto* p = dynamic_cast<const TileRowsPass*>(pass.get())) {
      stats->row_tiles.runs += p->stats().runs;
      stats->row_tiles.gemms += p->stats().gemms;
      stats->row_tiles.nests += p->stats().nests;
      stats->row_tiles.contracted += p->stats().contracted;
    } else if (const auto* p = dynamic_cast<const PlanBuffersPass*>(pass.get())) {
      stats->plan.buffers += p->stats().buffers;
      stats->plan.dynamic = stats->plan.dynamic || p->stats().dynamic;
      stats->plan.workspace_bytes += p->stats().workspace_bytes;
      stats->plan.unshared_bytes += p->stats().unshared_bytes;
    } else if (const auto* p = dynamic_cast<const CollapseLoopsPass*>(pass.get())) {
      stats->collapse.collapsed += p->stats().collapsed;
      stats->collapse.views += p->stats().views;
    } else if (const auto* p = dynamic_cast<const MarkLoopsPass*>(pass.get())) {
      stats->mark.parallel += p->stats().parallel;
      stats->mark.vectorized += p->stats().vectorized;
    }
  }
  return std::move(module);
}

ModuleCounts CountLoops(const tir::Module& module) {
  Counter c;
  if (const tir::Function* f = module.FindFunction(module.entry)) c.Visit(*f);
  return c.counts;
}

}  // namespace anvil::lower
