// The shape-inference pass: refines the element type and shape of every value of the model
// (all graphs, subgraphs included) by running each node's ShapeHelper with the analysis builder,
// in order. Dynamic dims stay exact symbolic expressions over the inputs' dim_params (`N`,
// `floor((H - 1) / 2) + 1`), written back into the model as dim_param text, so an exported model
// carries them; shape computations (Shape -> Gather -> Concat -> Reshape, ...) are propagated as
// symbolic values so that Reshape/Expand/Tile/ConstantOfShape/Range/Resize targets built from
// dynamic dims get exact shapes. Data-dependent dims (NonZero's count, Unique's size, ...) are
// symbols named after their node with a range (shape_helper.h, DataDependentDim), kept in the
// model's metadata (dim_ranges.h); the model's own ranges are read first.
//
// Inferred types are merged with declared ones (value_info, graph outputs): known facts win, a
// declared literal wins over a symbolic inference, and a contradiction — two different literals,
// a different rank or element type — is an InvalidArgument naming the node, op and dims. A model
// contradiction found by a ShapeHelper (incompatible broadcast, MatMul K mismatch, reshape of 10
// elements into 3x4) is an error naming node, op and dims too.
//
// Options: `unknown-ops=error` (default) fails with Unimplemented on an op without a shape rule,
// naming op and opset; `unknown-ops=skip` keeps that node's declared output types and goes on.
// `bounded-dims=false` leaves data-dependent dims unknown (questionmarks) instead of naming them.
// `input-ranges="N=1:16,S=1:"` adds ranges of graph inputs' symbolic dims to the model's
// (dim_ranges.h) before inferring.
// Establishes "shapes-inferred". Statistics: values-typed, dims-literal, dims-symbolic,
// dims-bounded (symbolic with a finite upper bound), dims-unknown, nodes-unimplemented.
#ifndef ANVIL_SHAPE_SHAPE_INFERENCE_H_
#define ANVIL_SHAPE_SHAPE_INFERENCE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "shape/analysis_builder.h"
#include "shape/index_expr.h"

namespace anvil {

struct ShapeInferenceOptions {
  bool skip_unknown_ops = false;
  // Data-dependent dims as bounded symbols (false: questionmarks).
  bool bounded_dims = true;
};

// Runs inference on `model`; true when any value's type changed. `ctx` may be null.
absl::StatusOr<bool> InferShapes(Model& model, const ShapeInferenceOptions& options = {},
                                 PassContext* ctx = nullptr);

// Shape inference that keeps what it knows between calls, for passes that rewrite a few nodes at
// a time (constprop): InferAll() infers everything once; after rewrites, the pass says which nodes
// are new or read changed values (MarkDirty, MarkUsersDirty) and which values it is about to
// erase (Forget), and InferDirty() re-infers just those nodes and, transitively, the readers of
// every output whose inferred info changed. A node inside a subgraph re-infers its outermost
// owner. The symbolic dims and values it knows live in its own IndexExprContext.
class ShapeInference {
 public:
  ShapeInference(Model& model, const ShapeInferenceOptions& options = {},
                 PassContext* ctx = nullptr);
  ~ShapeInference();
  ShapeInference(const ShapeInference&) = delete;
  ShapeInference& operator=(const ShapeInference&) = delete;

  // Infers every node; true when any value's type changed.
  absl::StatusOr<bool> InferAll();
  // Re-infers the dirty nodes and what their changes reach; true when any type changed.
  absl::StatusOr<bool> InferDirty();

  void MarkDirty(const Node& node);
  void MarkUsersDirty(const Value& value);
  // Before `value` is erased.
  void Forget(const Value& value);
  // Before `node` is erased: its outputs and every value of its subgraphs.
  void ForgetNode(const Node& node);

  // Nodes InferDirty() re-inferred so far (statistics, tests).
  int64_t nodes_reinferred() const;

  // What inference knows of every value (dims with their symbols and questionmark identities,
  // values of shape computations), for code that runs ShapeHelpers over the same knowledge with
  // its own builder (lowering). Its IndexExprs live in context(): install it (a Scope) while
  // using them.
  ShapeState& state();
  IndexExprContext& context();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

class ShapeInferencePass : public Pass {
 public:
  std::string_view name() const override { return "shape-inference"; }
  std::string_view description() const override {
    return "infers element types and symbolic shapes of every value";
  }
  std::vector<std::string> Establishes() const override { return {"shapes-inferred"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<std::string> unknown_ops_{this, "unknown-ops", "error",
                                       "ops without a shape rule: error or skip"};
  PassOption<bool> bounded_dims_{this, "bounded-dims", true,
                                 "name data-dependent dims with bounded symbols (false: unknown)"};
  PassOption<std::string> input_ranges_{
      this, "input-ranges", "",
      "ranges of graph inputs' symbolic dims, added to the model's first (\"N=1:16,S=1:\")"};
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_SHAPE_INFERENCE_H_
