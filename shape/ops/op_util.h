// Helpers shared by the ShapeHelper families in shape/ops/. Private to the shape package.
#ifndef ANVIL_SHAPE_OPS_OP_UTIL_H_
#define ANVIL_SHAPE_OPS_OP_UTIL_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"

namespace anvil::shape_ops {

// Multidirectional (numpy) broadcasting of `shapes`. Per position: equal dims stay; a literal 1
// yields to the other; a literal > 1 wins over a symbol (the symbol must be that value or 1);
// two different symbolic dims give max(a, b), exact for valid models where one of them is 1
// (assumption: a dynamic dim broadcast against a different one is not 0). Two different literals
// neither of which is 1 are an error naming the node and both shapes.
absl::StatusOr<DimsExpr> BroadcastDims(const ShapeContext& ctx,
                                       const std::vector<DimsExpr>& shapes);
// The same over borrowed shapes (no copies: the runtime runs this on every shape change).
absl::StatusOr<DimsExpr> BroadcastDims(const ShapeContext& ctx,
                                       absl::Span<const DimsExpr* const> shapes);

// Broadcast of the dims of the given inputs; nullopt if any rank is unknown.
absl::StatusOr<std::optional<DimsExpr>> BroadcastInputs(const ShapeContext& ctx,
                                                        const std::vector<int>& inputs);

// Product of dims (the element count).
IndexExpr NumElements(const DimsExpr& dims);

// Reads int64 "axes"-like data for opsets where it moved from an attribute to an input: the
// attribute `attr_name` when present (an int or ints), else input `input_index` (-1: none) when
// given. `present` says whether either was given, `known` whether the values are literals.
struct IntList {
  bool present = false;  // attribute or input given
  bool known = false;    // values known
  absl::InlinedVector<int64_t, 8> values;
};
IntList ReadIntList(const ShapeContext& ctx, std::string_view attr_name, int input_index);

// The largest rank a rule derives from the length of a shape-like input (Reshape's shape,
// MaxUnpool's output_shape): a declared length beyond it leaves the rank unknown rather than
// building millions of questionmarks for a hostile [2^40] input.
inline constexpr int64_t kMaxDerivedRank = 1024;

// `n` fresh questionmarks (n at most kMaxDerivedRank, or a rank of existing dims).
DimsExpr UnknownDims(int64_t rank);

}  // namespace anvil::shape_ops

#endif  // ANVIL_SHAPE_OPS_OP_UTIL_H_
