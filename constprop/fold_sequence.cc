// The Sequence fold pattern (fold_pattern.h): sequences and optionals of constants. ONNX has no
// sequence initializers, so a constant sequence lives in the rewriter's value constants while
// the pass runs; the ops reading it fold through their kernels like any other, and a tensor they
// produce (SequenceAt, ConcatFromSequence, SequenceLength, OptionalGetElement, ...) becomes an
// initializer. The sequence-making nodes are then unread and dce removes them.
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "constprop/fold_pattern.h"
#include "exec/node_executor.h"
#include "graph/op_table.h"

namespace anvil {
namespace {

// Ops that make a sequence or optional from tensors alone.
bool MakesSequenceOrOptional(std::string_view op) {
  return op == "SequenceEmpty" || op == "SequenceConstruct" || op == "SplitToSequence" ||
         op == "Optional";
}

class SequencePattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "sequence"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node, FoldRewriter& rw) override {
    // Decided before any input is read: a dense copy of a lazy constant costs its whole size.
    bool reads_value_constant = false;
    for (int i = 0; i < node.num_inputs(); ++i) {
      if (node.input(i) != nullptr && rw.ValueConstant(node.input(i)) != nullptr) {
        reads_value_constant = true;
      }
    }
    if (!reads_value_constant && !MakesSequenceOrOptional(node.op_type())) {
      return FoldResult::kNoMatch;
    }
    std::vector<Tensor> inputs(node.num_inputs());
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Value* v = node.input(i);
      if (v == nullptr) continue;
      if (const Tensor* value = rw.ValueConstant(v)) {
        inputs[i] = *value;
        continue;
      }
      std::shared_ptr<const Elements> c = FoldRewriter::ConstantOf(v);
      if (c == nullptr) return FoldResult::kNoMatch;
      inputs[i] = Tensor::FromElements(*c);
    }
    // Already folded into value constants on an earlier sweep.
    bool done = true;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (node.output(i) != nullptr && rw.ValueConstant(node.output(i)) == nullptr) done = false;
    }
    if (done) return FoldResult::kNoMatch;
    if (!node.Subgraphs().empty()) return FoldResult::kNoMatch;  // SequenceMap: left to run

    const int64_t opset = rw.model().OpsetVersion(node.domain());
    NodeExecOptions options;
    options.max_allocation_bytes =
        rw.options().max_bytes > 0 ? rw.options().max_bytes : kNoAllocationLimit;
    absl::StatusOr<std::vector<Tensor>> outputs = RunNode(node, opset, inputs, options);
    if (!outputs.ok()) {
      rw.Count("fold-failures", 1);  // left for the runtime, which reports it
      return FoldResult::kNoMatch;
    }
    bool all_tensors = true;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (node.output(i) != nullptr && !(*outputs)[i].is_tensor()) all_tensors = false;
    }
    if (all_tensors) {
      std::vector<std::shared_ptr<const Elements>> results(node.num_outputs());
      for (int i = 0; i < node.num_outputs(); ++i) {
        if (node.output(i) != nullptr) results[i] = (*outputs)[i].ToElements();
      }
      rw.Count("nodes-folded", 1);
      rw.ReplaceWithConstants(g, &node, std::move(results));
      return FoldResult::kErased;
    }
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (node.output(i) != nullptr) rw.SetValueConstant(node.output(i), (*outputs)[i]);
    }
    rw.Count("sequences-folded", 1);
    return FoldResult::kNoMatch;
  }
};

}  // namespace

std::unique_ptr<FoldPattern> MakeSequencePattern() { return std::make_unique<SequencePattern>(); }

}  // namespace anvil
