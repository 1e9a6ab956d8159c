// Folds that need not compute anything when they fold: a view (Transpose, Reshape, Squeeze,
// Unsqueeze, Flatten, Identity, Expand, Slice over the input's buffer) or an elementwise
// expression (lazy_op.h) over the inputs, whose elements are computed when read (export, a
// kernel), only those read. Used by the evaluation pattern (fold_evaluate.cc), which also
// evaluates elementwise expressions that may not stay lazy, tile by tile.
#ifndef ANVIL_CONSTPROP_FOLD_DEFERRED_H_
#define ANVIL_CONSTPROP_FOLD_DEFERRED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "constprop/constprop.h"
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

// `node` as a view of its input 0, or (Concat, Gather with a scalar or 1-D index; with laziness
// on and a result of at least options.lazy_min_bytes) a selection from its inputs; nullptr when
// it is not such an op or the layout forbids a view.
std::shared_ptr<const Elements> FoldAsView(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    const ConstantOutput& output, const ConstPropOptions& options, DisposablePool& pool);

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
