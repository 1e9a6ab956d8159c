// The graph edits fold patterns share (fold_pattern.h), and the state of one constprop run: the
// pool folded constants go to, the options, the statistics. Every edit also tells incremental
// shape inference (shape/shape_inference.h) which nodes are new or read changed values and which
// values are about to go, so the next sweep's types are right without re-inferring the graph.
#ifndef ANVIL_CONSTPROP_FOLD_REWRITER_H_
#define ANVIL_CONSTPROP_FOLD_REWRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "constprop/constprop_options.h"
#include "constprop/disposable.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "kernels/tensor.h"
#include "shape/shape_inference.h"

namespace anvil {

class FoldRewriter {
 public:
  FoldRewriter(Model& model, const ConstPropOptions& options, DisposablePool& pool,
               ShapeInference& shapes, PassContext* ctx)
      : model_(model), options_(options), pool_(pool), shapes_(shapes), ctx_(ctx) {}

  Model& model() { return model_; }
  const ConstPropOptions& options() const { return options_; }
  DisposablePool& pool() { return pool_; }

  // The compile-time constant behind `v` (an initializer or a Constant node's value), or nullptr.
  static std::shared_ptr<const Elements> ConstantOf(const Value* v);

  // ---- Replacing a node ----

  // Makes output `i` of `node` read `replacement` instead, keeping graph-output names: a graph
  // output gets an Identity of the replacement when the replacement is an existing value, or
  // takes over the name when the replacement is `fresh` (created for this rewrite).
  void ReplaceOutputWithValue(Graph& g, Node* node, int i, Value* replacement, bool fresh = false);
  // Erases `node` after its outputs were redirected, then gives fresh replacement values the
  // names the erased outputs had.
  void EraseAndRename(Graph& g, Node* node);
  // Every output of `node` becomes an initializer holding `results[i]`, under the output's name;
  // then `node` goes, and the constants that only it read.
  void ReplaceWithConstants(Graph& g, Node* node,
                            std::vector<std::shared_ptr<const Elements>> results);
  // Constants that fed a folded node and have no other reader: their memory can go now.
  void DropDeadConstants(const std::vector<Value*>& values);
  // Returns to the pool the buffers of constants dropped since the last call that nothing reads
  // any more (the driver calls it after each fold, once the pattern's own references are gone).
  void ReleaseDropped();

  // ---- Other edits ----

  Node* InsertNodeBefore(Graph& g, Node* before, std::string op_type);
  // A node the pattern made some other way (a clone).
  void NodeAdded(const Node& node) { shapes_.MarkDirty(node); }
  void SetInput(Node* node, int i, Value* v);
  void EraseNode(Graph& g, Node* node);

  // ---- Memory ----

  // Releases unreachable pool buffers after a fold that materialized enough (options.collect).
  void MaybeCollect(int64_t materialized_bytes);
  // Whether `node` may fold into an output of `type` and `dims` (checked one output at a time)
  // from inputs of `input_bytes`: a byte size that fits in int64, within max-expansion and
  // max-bytes. A refusal is counted (skipped-expansion, skipped-size); size refusals leave a
  // remark naming the node, op and dims, once per node.
  bool WithinLimits(const Node& node, ElementType type, absl::Span<const int64_t> dims,
                    int64_t input_bytes);
  // A dense copy of the constant captured value `v` (subgraphs read it), kept for the run.
  const Tensor* OuterTensor(const Value* v);
  // Sequence and optional constants: values that are constant but cannot be initializers (ONNX
  // initializers are tensors), kept here for the run so that what reads them folds; the nodes
  // computing them stay until dce finds them unread.
  const Tensor* ValueConstant(const Value* v) const {
    auto it = value_constants_.find(v);
    return it == value_constants_.end() ? nullptr : &it->second;
  }
  void SetValueConstant(const Value* v, Tensor value) { value_constants_[v] = std::move(value); }

  // ---- Bookkeeping ----

  void Count(std::string_view name, int64_t delta) {
    if (ctx_ != nullptr) ctx_->AddStatistic(name, delta);
  }
  // Whether a node was erased since the sweep began (a snapshot of nodes may still name it).
  bool WasErased(const Node* node) const { return erased_.contains(node); }
  void BeginSweep() { erased_.clear(); }

 private:
  void Forget(const Value* v);

  Model& model_;
  ConstPropOptions options_;
  DisposablePool& pool_;
  ShapeInference& shapes_;
  PassContext* ctx_;
  void NoteDropped(const std::shared_ptr<const Elements>& constant);

  std::vector<std::pair<Value*, std::string>> pending_renames_;
  std::vector<const Buffer*> dropped_buffers_;
  absl::flat_hash_set<const Node*> erased_;
  absl::flat_hash_set<const Node*> size_remarked_;  // nodes with a max-bytes remark
  absl::flat_hash_map<const Value*, Tensor> outer_tensors_;
  absl::flat_hash_map<const Value*, Tensor> value_constants_;
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_FOLD_REWRITER_H_
