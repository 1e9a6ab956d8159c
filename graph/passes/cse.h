// `cse`: common-subexpression elimination.
//
// Two nodes compute the same thing when they have the same op type and domain,
// the same inputs (the same Value objects, in the same slots; trailing omitted
// optional inputs do not count; the two inputs of a commutative binary op such
// as Add or Mul may come in either order), equal attributes (Attribute::Equals,
// in any order) and the same output slots present. The later node is then
// removed and its results are taken from the earlier one.
//
// Scoping: nodes are visited in order with a scoped table of available
// expressions, as in a dominator-tree walk. A subgraph sees the expressions of
// its enclosing graphs computed before the node that owns it (its nodes may
// reuse them through captures), but what it computes is not visible outside it
// or in sibling subgraphs.
//
// Never merged: nodes with subgraph attributes (If/Loop/Scan bodies are
// compared by identity anyway), random ops (RandomNormal, RandomUniform,
// RandomNormalLike, RandomUniformLike, Multinomial, Bernoulli, and Dropout,
// which draws a mask in training mode), nodes of non-ONNX domains (their
// determinism is unknown), and nodes without outputs.
//
// Graph outputs keep their names. For each result of the later node that is a
// graph output:
//  - if the earlier result is in the same graph and is not a graph output
//    itself, it becomes that output: it takes the later result's name and
//    declared type (and leaves value_info), and nothing moves;
//  - otherwise the later result is rebuilt as `name = Identity(earlier)`
//    (this needs the default ONNX domain imported; without it the pair is
//    left alone).
//
// Initializers: identical initializers of the same graph (Elements::Equals:
// type, dims and bits) that are neither graph inputs nor outputs are merged
// into the first, up to `max-initializer-bytes` each (large weights are rarely
// duplicated and comparing them costs a full read; 0 disables, -1 removes the
// limit). Constant nodes need nothing special: equal `value` attributes make
// them ordinary duplicates.
//
// Statistics: nodes-erased, initializers-erased, identities-inserted.
#ifndef ANVIL_GRAPH_PASSES_CSE_H_
#define ANVIL_GRAPH_PASSES_CSE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"

namespace anvil {

class CsePass : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  std::string_view description() const override {
    return "Merges identical nodes and small identical initializers, subgraphs "
           "included.";
  }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

 private:
  PassOption<int64_t> max_initializer_bytes_{
      this, "max-initializer-bytes", 4096,
      "Merge identical initializers up to this size (0: never, -1: no limit).", -1};
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_PASSES_CSE_H_
