// Folds that need not compute anything when they fold: a view (Transpose, Reshape, Squeeze,
// Unsqueeze, Flatten, Identity, Expand, Slice, Split over the input's buffer), a remap or a
// selection (Reshape, Gather, Concat; disposable.h) or an elementwise expression (lazy_op.h) over
// the inputs, whose elements are computed when read (export, a kernel), only those read. Used by
// the evaluation pattern (fold_evaluate.cc), which also evaluates elementwise expressions that may
// not stay lazy, tile by tile.
#ifndef ANVIL_CONSTPROP_FOLD_DEFERRED_H_
#define ANVIL_CONSTPROP_FOLD_DEFERRED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "constprop/constprop_options.h"
#include "constprop/disposable.h"
#include "graph/ir.h"

namespace anvil {

// Output 0 of a node over constant inputs, as its ShapeHelper computes it.
struct ConstantOutput {
  ElementType type = ElementType::kUndefined;
  std::vector<int64_t> dims;
};

// Output 0 of `node` on `inputs`; nullopt when the dims are not all literal (or inference
// fails). Small inputs (shape, axes) are read; large non-contiguous ones are not materialized.
std::optional<ConstantOutput> InferConstantOutput(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs);
// Outputs 0 to count - 1 alike.
std::optional<std::vector<ConstantOutput>> InferConstantOutputs(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    int count);

// `node`, an op the op table marks kView (graph/op_table.h) other than Split, as a view of its
// input 0 (Identity, Transpose, Expand, Slice; Reshape, Flatten, Squeeze and Unsqueeze where the
// strides allow), or, with laziness on and a result of at least options.lazy_min_bytes, a remap
// of it (any other Reshape; Gather with constant indices of any rank) or a selection from its
// inputs (Concat); nullptr when it is not such an op or none applies. Layout ops of lazy ops push
// into their operands, so nothing is computed now and only the elements kept are computed later.
// `kind` says which: "views", "remaps" or "selections".
std::shared_ptr<const Elements> FoldAsView(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    const ConstantOutput& output, const ConstPropOptions& options, DisposablePool& pool,
    std::string_view* kind);

// Split as one Slice view of its input per output; empty when `node` is not a Split whose
// outputs' dims are all literal.
std::vector<std::shared_ptr<const Elements>> SplitAsViews(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    DisposablePool& pool);

// `node` as an elementwise expression (a lazy op, lazy_op.h) over its inputs; nullptr when it is
// not an elementwise op (op table trait) of one output with numpy broadcasting over numeric
// inputs, or its kernel cannot be created. Evaluating the expression computes exactly what the
// kernel computes on the whole tensors, tile by tile, with no full-size temporary.
std::shared_ptr<const DisposableElements> ElementwiseExpression(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    const ConstantOutput& output, DisposablePool& pool);

// Whether the kernel of elementwise `node` can only fail on types or attributes, never on data
// (a floating or bool result, or Cast/CastLike between numeric types): once one element
// computes, all do.
bool CannotFailOnData(const Node& node, ElementType result);

// Whether `expression` (of `node`) may stay lazy: its kernel cannot fail on data (a floating or
// bool result, or Cast/CastLike between numeric types), it has at least options.lazy_min_bytes
// and at most options.max_lazy_ops ops, and its first element computes without error.
bool MayStayLazy(const Node& node, const DisposableElements& expression,
                 const ConstPropOptions& options);

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_FOLD_DEFERRED_H_
