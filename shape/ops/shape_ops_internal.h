// The "shape op" family (tensor creation, layout and indexing ops: Reshape, Slice, Gather, ...):
// its ShapeFns, spread over shape_ops.cc (the table, shape/creation ops), shape_ops_layout.cc
// and shape_ops_index.cc, and the value-propagation helpers they share. Private to the shape
// package.
//
// Value propagation: these ops are where shape computations happen (Shape -> Gather -> Concat ->
// Reshape), so besides dims they fill `TensorInfo::values` for small integer outputs. Values are
// IndexExprs, so a Shape of [N, 3] has values [N, 3] and a later Reshape to them gets N exactly.
#ifndef ANVIL_SHAPE_OPS_SHAPE_OPS_INTERNAL_H_
#define ANVIL_SHAPE_OPS_SHAPE_OPS_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil::shape_ops::shape_family {

// Largest tensor whose contents are tracked as `values`: the builders' limit.
inline constexpr int64_t kMaxValues = kMaxTrackedValues;

// Sets `out.values` when there are at most kMaxValues of them.
void SetValues(TensorInfo& out, IndexExprList values);

// Predicates decided true / false (an undecided predicate is neither).
inline bool IsTrue(const IndexExpr& p) { return p.IsKnown() && p.literal() != 0; }
inline bool IsFalse(const IndexExpr& p) { return p.IsKnown() && p.literal() == 0; }

// Contents of integer input `i`: its tracked values, else a small integer constant's. Values may
// be symbolic (e.g. dims read by Shape).
std::optional<IndexExprList> IntValues(const ShapeContext& ctx, int i);
// Number of elements of 1-D (or scalar: 1) input `i` when known: from its values or its dims.
std::optional<int64_t> InputLength(const ShapeContext& ctx, int i);
// Contents of numeric input `i` as doubles (float scales, Range bounds): a constant's payload,
// else literal values; nullopt otherwise.
std::optional<std::vector<double>> DoubleValues(const ShapeContext& ctx, int i);

// Normalizes possibly negative `axes` against `rank`; out of range or repeated is an error.
absl::StatusOr<std::vector<int64_t>> NormalizeAxes(const ShapeContext& ctx,
                                                   absl::Span<const int64_t> axes, int64_t rank);

// The values of a row-major tensor of literal dims `in_dims` broadcast to `out_dims` (numpy
// rules; the caller has checked the dims broadcast).
IndexExprList BroadcastValues(const IndexExprList& values, const std::vector<int64_t>& in_dims,
                              const std::vector<int64_t>& out_dims);

// ---- ShapeFns (one per op; versions handled inside) ----
// shape_ops.cc
absl::Status InferConstant(ShapeContext& ctx);
absl::Status InferConstantOfShape(ShapeContext& ctx);
absl::Status InferMultinomial(ShapeContext& ctx);
absl::Status InferRandom(ShapeContext& ctx);  // RandomNormal, RandomUniform
absl::Status InferRange(ShapeContext& ctx);
absl::Status InferShape(ShapeContext& ctx);
absl::Status InferSize(ShapeContext& ctx);
absl::Status InferTfIdfVectorizer(ShapeContext& ctx);
// shape_ops_layout.cc
absl::Status InferDepthToSpace(ShapeContext& ctx);
absl::Status InferExpand(ShapeContext& ctx);
absl::Status InferFlatten(ShapeContext& ctx);
absl::Status InferPad(ShapeContext& ctx);
absl::Status InferReshape(ShapeContext& ctx);
absl::Status InferResize(ShapeContext& ctx);
absl::Status InferSpaceToDepth(ShapeContext& ctx);
absl::Status InferSqueeze(ShapeContext& ctx);
absl::Status InferTile(ShapeContext& ctx);
absl::Status InferTranspose(ShapeContext& ctx);
absl::Status InferUnsqueeze(ShapeContext& ctx);
absl::Status InferUpsample(ShapeContext& ctx);
// shape_ops_index.cc
absl::Status InferCompress(ShapeContext& ctx);
absl::Status InferConcat(ShapeContext& ctx);
// Concat of inputs first_input, first_input + stride, ... (QLinearConcat's X_i are every third
// input from 2) along `axis_value`; the output has `type`, or the first present input's type when
// undefined.
absl::Status ConcatLike(ShapeContext& ctx, int first_input, int stride, ElementType type,
                        int64_t axis_value);
absl::Status InferGather(ShapeContext& ctx);
absl::Status InferGatherElements(ShapeContext& ctx);
absl::Status InferGatherND(ShapeContext& ctx);
absl::Status InferOneHot(ShapeContext& ctx);
absl::Status InferSameAsData(ShapeContext& ctx);  // Scatter*, ReverseSequence
absl::Status InferSlice(ShapeContext& ctx);
absl::Status InferSplit(ShapeContext& ctx);

}  // namespace anvil::shape_ops::shape_family

#endif  // ANVIL_SHAPE_OPS_SHAPE_OPS_INTERNAL_H_
