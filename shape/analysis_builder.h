// The analysis IndexExprBuilder: how ShapeHelpers see operands during the shape-inference pass.
// Dims come from what analysis knows about each value (ShapeState): declared types for graph
// inputs (dim_params become symbols), constants' dims and small integer contents, and the
// results of earlier nodes, including symbolic `values` of shape computations.
#ifndef ANVIL_SHAPE_ANALYSIS_BUILDER_H_
#define ANVIL_SHAPE_ANALYSIS_BUILDER_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "graph/ir.h"
#include "shape/shape_helper.h"

namespace anvil {

// What analysis knows about every value of a model (all graphs, keyed by Value*).
class ShapeState {
 public:
  // The info of `v`, created on first use from its constant payload or declared type (so an
  // unknown declared dim becomes one questionmark, the same on every read).
  const TensorInfo& Get(const Value* v);
  void Set(const Value* v, TensorInfo info) { info_[v] = std::move(info); }
  bool Has(const Value* v) const { return info_.contains(v); }
  // Drops what is known of `v` (before it is erased: its address may be reused).
  void Erase(const Value* v) { info_.erase(v); }

  // The compile-time constant behind `v`: an initializer, or a Constant node's `value`.
  static std::shared_ptr<const Elements> ConstantOf(const Value* v);

 private:
  absl::flat_hash_map<const Value*, TensorInfo> info_;
};

// Infers a subgraph's outputs from its inputs' infos (the pass supplies it).
using SubgraphInferer = std::function<absl::StatusOr<std::vector<TensorInfo>>(
    const Graph& body, const std::vector<TensorInfo>& inputs)>;

class AnalysisBuilder final : public IndexExprBuilder {
 public:
  AnalysisBuilder(const Node& node, ShapeState& state, const SubgraphInferer* subgraphs)
      : node_(node), state_(state), subgraphs_(subgraphs) {}

  bool HasInput(int i) const override;
  TensorInfo Input(int i) const override;
  std::shared_ptr<const Elements> InputConstant(int i) const override;
  absl::StatusOr<std::vector<TensorInfo>> InferSubgraph(
      const Graph& body, const std::vector<TensorInfo>& inputs) const override;

 private:
  const Node& node_;
  ShapeState& state_;
  const SubgraphInferer* subgraphs_;
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_ANALYSIS_BUILDER_H_
