// Einsum's shape facts, once: the size of every label of a bound equation, merged over its
// occurrences, and from them the output dims. The Einsum ShapeHelper, the Einsum kernel (literal
// dims) and the einsum-decompose rewrite (symbolic dims) all call these.
//
// Merge rule: occurrences of a label in different operands broadcast like numpy dims
// (BroadcastDim: equal sizes stay, a literal 1 yields, ...), and so do the dims of "..."; the
// occurrences of a label repeated within one operand (a diagonal) must be equal, as numpy
// requires. A conflict is an error naming the equation, the column and both sizes.
#ifndef ANVIL_SHAPE_EINSUM_DIMS_H_
#define ANVIL_SHAPE_EINSUM_DIMS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "shape/einsum_equation.h"
#include "shape/index_expr.h"

namespace anvil {

// Sizes indexed by label (size eq.num_labels()). `dims[i]` are operand i's dims, nullptr when
// unknown; a label seen only in operands of unknown dims is a fresh questionmark, a label seen
// nowhere is undefined.
absl::StatusOr<std::vector<IndexExpr>> EinsumLabelSizes(const einsum::BoundEquation& eq,
                                                        absl::Span<const DimsExpr* const> dims);

// The output dims: the sizes of eq.output. Precondition: eq.output_known.
DimsExpr EinsumOutputDims(const einsum::BoundEquation& eq, absl::Span<const IndexExpr> sizes);

}  // namespace anvil

#endif  // ANVIL_SHAPE_EINSUM_DIMS_H_
