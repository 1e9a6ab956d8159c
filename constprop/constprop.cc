#include "constprop/constprop.h"

#include <memory>
#include <vector>

#include "base/status_macros.h"
#include "constprop/fold_pattern.h"
#include "constprop/fold_rewriter.h"
#include "constprop/gc.h"
#include "graph/op_table.h"
#include "graph/pass_registry.h"
#include "shape/index_expr.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

constexpr int kMaxIterations = 64;

// Ops of the op table (ONNX's domains and the contrib ops Anvil runs): their kernels give their
// values. A custom domain's op is opaque, whatever its name.
bool IsKnownOp(const Node& n) { return FindOpAnyVersion(n.domain(), n.op_type()) != nullptr; }

// Sweeps the graph with the fold patterns until nothing changes. Each sweep walks a snapshot of
// the nodes in order (constants cascade within a sweep); shape inference runs before every sweep,
// the first time over the whole model and then only where the last sweep changed something.
class Folder {
 public:
  Folder(Model& model, const ConstPropOptions& options, DisposablePool& pool, PassContext* ctx)
      : shapes_(model, ShapeInferenceOptions{/*skip_unknown_ops=*/true}),
        rewriter_(model, options, pool, shapes_, ctx),
        patterns_(DefaultFoldPatterns()),
        model_(model) {}

  absl::StatusOr<bool> Run() {
    bool any = false;
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
      rewriter_.Count("iterations", 1);
      ANVIL_RETURN_IF_ERROR(iteration == 0 ? shapes_.InferAll().status()
                                           : shapes_.InferDirty().status());
      changed_ = false;
      rewriter_.BeginSweep();
      ANVIL_RETURN_IF_ERROR(Sweep(model_.graph()));
      if (!changed_) break;
      any = true;
    }
    rewriter_.Count("nodes-reinferred", shapes_.nodes_reinferred());
    return any;
  }

 private:
  absl::Status Sweep(Graph& g) {
    for (Node* node : g.NodesSnapshot()) {
      if (rewriter_.WasErased(node)) continue;  // a rewrite of an earlier node dropped it
      FoldResult result = FoldResult::kNoMatch;
      if (IsKnownOp(*node) && !IsRandom(*node)) {
        for (const std::unique_ptr<FoldPattern>& pattern : patterns_) {
          ANVIL_ASSIGN_OR_RETURN(result, pattern->Apply(g, *node, rewriter_));
          if (result != FoldResult::kNoMatch) break;
        }
        // The pattern's references are gone: what the fold dropped can be freed now.
        if (result != FoldResult::kNoMatch) rewriter_.ReleaseDropped();
      }
      if (result != FoldResult::kNoMatch) changed_ = true;
      if (result == FoldResult::kErased) continue;
      for (Graph* sub : node->Subgraphs()) ANVIL_RETURN_IF_ERROR(Sweep(*sub));
    }
    return absl::OkStatus();
  }

  ShapeInference shapes_;
  FoldRewriter rewriter_;
  std::vector<std::unique_ptr<FoldPattern>> patterns_;
  Model& model_;
  bool changed_ = false;
};

}  // namespace

absl::StatusOr<bool> PropagateConstants(Model& model, const ConstPropOptions& options,
                                        DisposablePool& pool, PassContext* ctx) {
  Folder folder(model, options, pool, ctx);
  return folder.Run();
}

absl::StatusOr<bool> ConstPropPass::Run(Model& model, PassContext& ctx) {
  ScopedIndexExprContext index_exprs;  // the run's symbolic dims go with it
  ConstPropOptions options;
  options.max_expansion = *max_expansion_;
  options.max_bytes = *max_bytes_;
  options.use_views = *views_;
  options.lazy = *lazy_;
  options.lazy_min_bytes = *lazy_min_bytes_;
  options.in_place = *in_place_;
  options.collect = *collect_;
  options.fold_dequantize = *fold_dequantize_;
  return PropagateConstants(model, options, PoolFor(model), &ctx);
}

ANVIL_REGISTER_PASS(ConstPropPass);

}  // namespace anvil
