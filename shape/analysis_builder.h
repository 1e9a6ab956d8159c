// The analysis IndexExprBuilder: how ShapeHelpers see operands during the shape-inference pass.
// Dims come from what analysis knows about each value (ShapeState): declared types for graph
// inputs (dim_params become symbols), constants' dims and small integer contents, and the
// results of earlier nodes, including symbolic `values` of shape computations.
#ifndef ANVIL_SHAPE_ANALYSIS_BUILDER_H_
#define ANVIL_SHAPE_ANALYSIS_BUILDER_H_

#include <deque>
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
  void Set(const Value* v, TensorInfo info);
  bool Has(const Value* v) const { return Slot(v) >= 0; }
  // Drops what is known of `v` (before it is erased).
  void Erase(const Value* v) {
    if (v->id() < slot_by_id_.size()) slot_by_id_[v->id()] = -1;
  }
  // Room for values with ids below `n` (a whole-graph inference knows the model's bound).
  void Reserve(size_t n) { slot_by_id_.reserve(n); }

  // The compile-time constant behind `v`: an initializer, or a Constant node's `value`.
  static std::shared_ptr<const Elements> ConstantOf(const Value* v);

 private:
  int64_t Slot(const Value* v) const {
    return v->id() < slot_by_id_.size() ? slot_by_id_[v->id()] : -1;
  }

  // Infos live in a deque (stable addresses: Get's references survive later Sets) indexed by
  // value id: no hashing, and no empty slots the size of a TensorInfo.
  std::deque<TensorInfo> infos_;
  std::vector<int64_t> slot_by_id_;
};

// Infers a subgraph's outputs from its inputs' infos (the pass supplies it).
using SubgraphInferer = std::function<absl::StatusOr<std::vector<TensorInfo>>(
    const Graph& body, const std::vector<TensorInfo>& inputs)>;

// The name of a data-dependent dim of `node`: `<node>_<suffix>`, where <node> is the node's first
// named output, after the path of the subgraphs it is in (the owner's, then the attribute:
// `y/then_branch/nz`), with every run of characters other than letters and digits made one '_'
// and then, when that changed the text, a 6-digit hex hash of it (so "a.b" and "a_b" differ),
// and the op type in front unless the name holds it: NonZero with output "nz" -> `NonZero_nz_n`.
// Names are unique in the model (output names are unique in their graph) and stable: they do
// not depend on the node's position, so inferring again (Loop rounds, passes) gives the same.
std::string DataDependentSymbolName(const Node& node, std::string_view suffix);

class AnalysisBuilder final : public IndexExprBuilder {
 public:
  // `bounded_dims` false: data-dependent dims are questionmarks, as other builders give.
  AnalysisBuilder(const Node& node, ShapeState& state, const SubgraphInferer* subgraphs,
                  bool bounded_dims = true)
      : node_(node), state_(state), subgraphs_(subgraphs), bounded_dims_(bounded_dims) {}

  bool HasInput(int i) const override;
  TensorInfo Input(int i) const override;
  std::shared_ptr<const Elements> InputConstant(int i) const override;
  absl::StatusOr<std::vector<TensorInfo>> InferSubgraph(
      const Graph& body, const std::vector<TensorInfo>& inputs) const override;
  // The symbol DataDependentSymbolName(node, suffix) with the range [lo, hi] of the bounds'
  // RangeOf (IndexExpr::BoundedSymbol: the same symbol when the node is inferred again).
  IndexExpr DataDependentDim(const Node& node, std::string_view suffix, const IndexExpr& lo,
                             const IndexExpr& hi) const override;

 private:
  const Node& node_;
  ShapeState& state_;
  const SubgraphInferer* subgraphs_;
  bool bounded_dims_;
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_ANALYSIS_BUILDER_H_
