// Constant folding as a list of patterns applied by one driver (constprop.cc). A pattern looks at
// one node and either leaves it (kNoMatch), replaces it (kErased: the node is gone), or rewires it
// in place (kRewired: it stays, and its new inputs fold on a later sweep). Patterns change the
// graph only through the FoldRewriter, which tells incremental shape inference what changed.
//
// The order is part of the behaviour: per node, the first pattern that matches wins, in
//   InlineIf, Sequence, Evaluate, ShapeSize, Identity, Reassociate
// (an all-constant If is inlined, not evaluated; Shape of a constant is evaluated, not read off
// its type; (x + 0) + c simplifies before it reassociates).
#ifndef ANVIL_CONSTPROP_FOLD_PATTERN_H_
#define ANVIL_CONSTPROP_FOLD_PATTERN_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "constprop/fold_rewriter.h"
#include "graph/ir.h"

namespace anvil {

enum class FoldResult { kNoMatch, kErased, kRewired };

class FoldPattern {
 public:
  virtual ~FoldPattern() = default;
  virtual std::string_view name() const = 0;
  // `node` is in `g`, of the default domain and not random.
  virtual absl::StatusOr<FoldResult> Apply(Graph& g, Node& node, FoldRewriter& rewriter) = 0;
};

// If with a constant condition: the taken branch's nodes move into the graph (fold_structure.cc).
std::unique_ptr<FoldPattern> MakeInlineIfPattern();
// Sequences and optionals of constants: the ops making them from constant tensors, and any op
// reading one (FoldRewriter::ValueConstant), run by their kernels; a tensor result becomes an
// initializer, a sequence or optional one a value constant (fold_sequence.cc).
std::unique_ptr<FoldPattern> MakeSequencePattern();
// Every input constant: a view (Transpose, Reshape, Slice, Cast, ...) or the kernel's result
// into the pool, within max-expansion; a Constant node becomes an initializer (fold_evaluate.cc).
std::unique_ptr<FoldPattern> MakeEvaluatePattern();
// Shape and Size of a static input (fold_structure.cc).
std::unique_ptr<FoldPattern> MakeShapeSizePattern();
// x+0, 0+x, x-0, x*1, 1*x, x/1, Where with a splat condition (fold_algebra.cc).
std::unique_ptr<FoldPattern> MakeIdentityPattern();
// (x op c1) op c2 -> x op (c1 op c2) for Add and Mul (fold_algebra.cc).
std::unique_ptr<FoldPattern> MakeReassociatePattern();

// All of the above, in the order above.
std::vector<std::unique_ptr<FoldPattern>> DefaultFoldPatterns();

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_FOLD_PATTERN_H_
