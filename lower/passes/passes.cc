#include "lower/passes/passes.h"

#include <utility>

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
      ++counts.stored_intermediates;
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

absl::StatusOr<tir::Module> RunModulePasses(tir::Module module, const ModulePassOptions& options) {
  (void)options;
  return std::move(module);
}

ModuleCounts CountLoops(const tir::Module& module) {
  Counter c;
  if (const tir::Function* f = module.FindFunction(module.entry)) c.Visit(*f);
  return c.counts;
}

}  // namespace anvil::lower
