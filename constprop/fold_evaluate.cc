// The evaluation pattern: a node whose inputs are all constants becomes constants (see
// fold_pattern.h). Layout ops and large elementwise ops fold without computing anything
// (fold_deferred.h); anything else runs its kernel (exec/node_executor.h) with the inputs' memory
// as views and the outputs in pool buffers (or over input 0's buffer, for an elementwise op whose
// input nothing else reads), within max-expansion; a Constant node becomes an initializer.
#include <algorithm>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "constprop/fold_deferred.h"
#include "constprop/fold_pattern.h"
#include "exec/interpreter.h"
#include "exec/node_executor.h"
#include "graph/op_table.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

// DequantizeLinear (ONNX's or com.microsoft's) of a constant stored quantized (an integer or
// float8 tensor): a quantized weight, which stays unless fold-dequantize (constprop_options.h).
bool DequantizesStoredWeight(const Node& node) {
  if (node.op_type() != "DequantizeLinear" ||
      (!node.domain().empty() && node.domain() != "com.microsoft") || node.input(0) == nullptr) {
    return false;
  }
  const std::shared_ptr<const Elements> x = FoldRewriter::ConstantOf(node.input(0));
  if (x == nullptr) return false;
  const ElementType t = x->element_type();
  return t != ElementType::kFloat && t != ElementType::kDouble && t != ElementType::kFloat16 &&
         t != ElementType::kBfloat16;
}

class EvaluatePattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "evaluate"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node_ref, FoldRewriter& rw) override {
    Node* node = &node_ref;
    if (node->op_type() == "Constant") {
      // Every constant ends up an initializer (value_float(s)/value_int(s) included).
      std::shared_ptr<const Elements> value = FoldRewriter::ConstantOf(node->output(0));
      if (value == nullptr) {
        const int64_t opset = rw.model().OpsetVersion(node->domain());
        std::vector<std::shared_ptr<const Elements>> results(1);
        Tensor strings;
        absl::Status status = RunNodeOnViews(
            *node, opset, {},
            [&](int, ElementType type,
                absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
              if (type == ElementType::kString) {
                strings = Tensor(type, dims);
                return strings.view();
              }
              ANVIL_ASSIGN_OR_RETURN(int64_t bytes, CheckedByteSize(dims, ElementSize(type)));
              std::shared_ptr<PoolBuffer> buffer = rw.pool().Allocate(bytes);
              results[0] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
              return TensorView::Dense(type, buffer->mutable_data(), dims);
            });
        if (status.ok() && strings.defined()) results[0] = strings.ToElements();
        if (!status.ok() || results[0] == nullptr) return FoldResult::kNoMatch;
        value = results[0];
      }
      rw.ReplaceWithConstants(g, node, {value});
      return FoldResult::kErased;
    }
    if (node->num_inputs() == 0) return FoldResult::kNoMatch;
    if (!rw.options().fold_dequantize && DequantizesStoredWeight(*node)) {
      rw.Count("kept-dequantize", 1);
      return FoldResult::kNoMatch;
    }
    std::vector<std::shared_ptr<const Elements>> inputs(node->num_inputs());
    int64_t input_bytes = 0;
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input(i) == nullptr) continue;
      inputs[i] = FoldRewriter::ConstantOf(node->input(i));
      if (inputs[i] == nullptr) return FoldResult::kNoMatch;
      input_bytes += static_cast<int64_t>(inputs[i]->ByteSize());
    }
    if (!node->Subgraphs().empty() && !SubgraphsCaptureOnlyConstants(*node)) {
      return FoldResult::kNoMatch;
    }
    const int64_t opset = rw.model().OpsetVersion(node->domain());

    // The output's type and dims, for the folds that need them before any kernel runs.
    const std::optional<ConstantOutput> output =
        MayFoldWithoutKernel(*node, opset, inputs, rw.options())
            ? InferConstantOutput(*node, opset, inputs)
            : std::nullopt;
    if (output && !rw.WithinLimits(*node, output->type, output->dims, input_bytes)) {
      return FoldResult::kNoMatch;
    }
    if (output && rw.options().use_views && node->op_type() == "Split") {
      std::vector<std::shared_ptr<const Elements>> parts =
          SplitAsViews(*node, opset, inputs, rw.pool());
      for (const auto& part : parts) {
        if (!rw.WithinLimits(*node, part->element_type(), part->dims(), input_bytes)) {
          return FoldResult::kNoMatch;
        }
      }
      if (!parts.empty()) {
        rw.Count("views", 1);
        rw.Count("nodes-folded", 1);
        rw.ReplaceWithConstants(g, node, std::move(parts));
        return FoldResult::kErased;
      }
    }
    std::shared_ptr<const Elements> deferred;
    if (output && rw.options().use_views) {
      std::string_view kind;
      deferred = FoldAsView(*node, opset, inputs, *output, rw.options(), rw.pool(), &kind);
      if (deferred != nullptr) rw.Count(kind, 1);
    }
    // An elementwise op: lazy when it may stay so, else computed now tile by tile (no full-size
    // temporary even for strided or lazy inputs), over input 0's buffer when nothing else reads it.
    std::shared_ptr<const DisposableElements> expression;
    if (output && deferred == nullptr && WorthTiling(*output, inputs, rw.options())) {
      expression = ElementwiseExpression(*node, opset, inputs, *output, rw.pool());
    }
    if (expression != nullptr && rw.options().lazy &&
        MayStayLazy(*node, *expression, rw.options())) {
      deferred = expression;
      rw.Count("lazy-ops", 1);
    }
    if (deferred != nullptr) {
      if (!rw.WithinLimits(*node, deferred->element_type(), deferred->dims(), input_bytes)) {
        return FoldResult::kNoMatch;
      }
      rw.Count("nodes-folded", 1);
      rw.ReplaceWithConstants(g, node, {deferred});
      return FoldResult::kErased;
    }
    if (expression != nullptr && rw.options().tiled) {
      absl::StatusOr<FoldResult> result =
          EvaluateTiled(g, *node, opset, inputs, input_bytes, *expression, rw);
      if (!result.ok() || *result != FoldResult::kNoMatch) return result;
    }
    expression.reset();  // its views would count as other readers of input 0's buffer

    // Evaluate with the kernel: inputs as views of the constants' memory (strided views as they
    // are; lazy ones, or ones with negative strides, materialized into temporaries that die with
    // this fold), outputs into pool buffers.
    std::vector<Tensor> temporaries(inputs.size());
    std::vector<TensorView> views(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == nullptr) continue;
      // Strings are std::string objects only a Tensor holds (Elements keep a vector of them).
      if (inputs[i]->element_type() == ElementType::kString) {
        temporaries[i] = Tensor::FromElements(*inputs[i]);
        views[i] = temporaries[i].view();
      } else if (const uint8_t* data = inputs[i]->ContiguousData()) {
        views[i] = TensorView::Dense(inputs[i]->element_type(), const_cast<uint8_t*>(data),
                                     inputs[i]->dims());
      } else if (std::optional<TensorView> view = StridedView(*inputs[i])) {
        views[i] = *view;
      } else {
        temporaries[i] = Tensor::FromElements(*inputs[i]);
        views[i] = temporaries[i].view();
      }
    }
    int64_t materialized = 0;
    std::vector<std::shared_ptr<const Elements>> results(node->num_outputs());
    std::vector<Tensor> string_results(node->num_outputs());  // become DenseElements after the run
    bool too_big = false;
    OutputFactory make_output = [&](int i, ElementType type,
                                    absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
      if (!rw.WithinLimits(*node, type, dims, input_bytes)) {
        too_big = true;
        return absl::ResourceExhaustedError("fold exceeds max-expansion or max-bytes");
      }
      if (type == ElementType::kString) {
        string_results[i] = Tensor(type, dims);
        return string_results[i].view();
      }
      const size_t bytes = static_cast<size_t>(ElementSize(type)) * NumElementsOf(dims);
      std::shared_ptr<PoolBuffer> reuse =
          i == 0 ? InPlaceBuffer(*node, opset, inputs,
                                 ConstantOutput{type, {dims.begin(), dims.end()}}, rw)
                 : nullptr;
      if (reuse != nullptr && reuse->size() == bytes) {
        rw.Count("in-place", 1);
        results[0] = DisposableElements::Dense(reuse, type, {dims.begin(), dims.end()});
        return TensorView::Dense(type, reuse->mutable_data(), dims);
      }
      std::shared_ptr<PoolBuffer> buffer = rw.pool().Allocate(bytes);
      materialized += static_cast<int64_t>(bytes);
      results[i] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
      return TensorView::Dense(type, buffer->mutable_data(), dims);
    };
    NodeExecOptions run_options;
    // A body's own tensors (a folded If/Loop/Scan) stay within max-bytes too.
    run_options.max_allocation_bytes =
        rw.options().max_bytes > 0 ? rw.options().max_bytes : kNoAllocationLimit;
    run_options.subgraph_runner = InterpreterSubgraphRunner(
        rw.model(), [&rw](const Value* v) { return rw.OuterTensor(v); }, /*observer=*/nullptr,
        run_options.max_allocation_bytes);
    absl::Status status = RunNodeOnViews(*node, opset, views, make_output, run_options);
    if (too_big) return FoldResult::kNoMatch;
    if (!status.ok()) {
      // The op cannot be evaluated here (no kernel, or the data is invalid): leave it for the
      // runtime, which will report it.
      rw.Count("fold-failures", 1);
      return FoldResult::kNoMatch;
    }
    rw.Count("nodes-folded", 1);
    for (size_t i = 0; i < string_results.size(); ++i) {
      if (string_results[i].defined()) results[i] = string_results[i].ToElements();
    }
    temporaries.clear();
    // A one-time read of mapped weights: their pages need not stay resident.
    for (const auto& input : inputs) {
      if (input != nullptr) input->DropResidentPages();
    }
    rw.ReplaceWithConstants(g, node, std::move(results));
    rw.MaybeCollect(materialized);
    return FoldResult::kErased;
  }

  // Computes an elementwise expression now into a pool buffer (or input 0's, see InPlaceBuffer).
  // kNoMatch when it cannot be computed (the kernel path then reports why) or is too big.
  absl::StatusOr<FoldResult> EvaluateTiled(
      Graph& g, Node& node, int64_t opset,
      const std::vector<std::shared_ptr<const Elements>>& inputs, int64_t input_bytes,
      const DisposableElements& expression, FoldRewriter& rw) {
    if (!rw.WithinLimits(node, expression.element_type(), expression.dims(), input_bytes)) {
      return FoldResult::kNoMatch;
    }
    const size_t bytes = expression.ByteSize();
    const ConstantOutput output{expression.element_type(),
                                {expression.dims().begin(), expression.dims().end()}};
    // Over the input only when no tile can fail half way (the first element shows the types
    // and attributes are fine); otherwise into a new buffer, dropped on an error.
    uint8_t first[16];
    std::shared_ptr<PoolBuffer> buffer;
    if (CannotFailOnData(node, output.type) && expression.NumElements() > 0 &&
        expression.Evaluate(0, 1, 0, 1, first, 1).ok()) {
      // The expression's view of input 0 holds its buffer too.
      buffer = InPlaceBuffer(node, opset, inputs, output, rw, /*other_buffer_holders=*/1);
    }
    const bool in_place = buffer != nullptr;
    if (!in_place) buffer = rw.pool().Allocate(bytes);
    if (!expression.EvaluateInto(buffer->mutable_data()).ok()) return FoldResult::kNoMatch;
    rw.Count(in_place ? "in-place" : "tiled", 1);
    rw.Count("nodes-folded", 1);
    for (const auto& input : inputs) {
      if (input != nullptr) input->DropResidentPages();
    }
    rw.ReplaceWithConstants(g, &node,
                            {DisposableElements::Dense(buffer, output.type, output.dims)});
    if (!in_place) rw.MaybeCollect(static_cast<int64_t>(bytes));
    return FoldResult::kErased;
  }

  static int64_t NumElementsOf(absl::Span<const int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;  // checked by WithinLimits first
    return n;
  }

  // View ops, remaps and selections; elementwise ops that may be lazy or tiled (inputs that are
  // lazy or large enough for a large result). Small elementwise folds go straight to the kernel.
  static bool MayFoldWithoutKernel(const Node& node, int64_t opset,
                                   const std::vector<std::shared_ptr<const Elements>>& inputs,
                                   const ConstPropOptions& options) {
    if (HasTrait(node, kView)) return true;
    const OpInfo* info = FindOp(node.domain(), node.op_type(), opset);
    if (info == nullptr || !info->Has(kElementwise)) return false;
    for (const auto& input : inputs) {
      if (input == nullptr) continue;
      const auto* d = dynamic_cast<const DisposableElements*>(input.get());
      // A result type may be 8 times wider than its input's (bool to double).
      if ((d != nullptr && d->is_lazy()) ||
          static_cast<int64_t>(input->ByteSize()) * 8 >= options.lazy_min_bytes) {
        return true;
      }
    }
    return false;
  }

  // Whether an elementwise fold is worth an expression (a copy of the node and its kernel): a
  // large result, or lazy inputs (which the kernel path would copy whole). Small dense folds
  // just run the kernel.
  static bool WorthTiling(const ConstantOutput& output,
                          const std::vector<std::shared_ptr<const Elements>>& inputs,
                          const ConstPropOptions& options) {
    int64_t bytes = static_cast<int64_t>(ElementSize(output.type));
    for (int64_t d : output.dims) bytes *= d;
    if (bytes >= options.lazy_min_bytes) return true;
    for (const auto& input : inputs) {
      const auto* d = dynamic_cast<const DisposableElements*>(input.get());
      if (d != nullptr && d->is_lazy()) return true;
    }
    return false;
  }

  // A constant's elements as a strided TensorView of its buffer, when it is a view with
  // non-negative strides (kernels take strided inputs; negative strides they are not promised).
  static std::optional<TensorView> StridedView(const Elements& e) {
    const auto* d = dynamic_cast<const DisposableElements*>(&e);
    if (d == nullptr || d->is_lazy()) return std::nullopt;
    TensorView view;
    view.type = d->element_type();
    view.data = const_cast<uint8_t*>(d->buffer()->data()) +
                d->offset() * static_cast<int64_t>(ElementSize(view.type));
    for (size_t k = 0; k < d->dims().size(); ++k) {
      if (d->strides()[k] < 0) return std::nullopt;
      view.dims.push_back(d->dims()[k]);
      view.strides.push_back(d->strides()[k]);
    }
    return view;
  }

  bool SubgraphsCaptureOnlyConstants(const Node& node) {
    bool ok = true;
    for (Graph* sub : node.Subgraphs()) {
      sub->ForEachGraph([&](Graph& body) {
        for (const Node* n : body.nodes()) {
          if (IsRandom(*n)) ok = false;
          for (const Value* in : n->inputs()) {
            if (in == nullptr) continue;
            // Captured from outside the node's subgraphs: must be a constant.
            bool inside = false;
            for (const Graph* g = in->graph(); g != nullptr; g = g->parent()) {
              if (g == sub) inside = true;
            }
            if (!inside && FoldRewriter::ConstantOf(in) == nullptr) ok = false;
          }
        }
      });
    }
    return ok;
  }

  // The buffer of input 0 when `node` may compute its result over it: an in-place elementwise
  // op (op table trait) whose input 0 is a dense pool buffer of the output's size that nothing
  // but this node reads (one graph use; the buffer and its elements held by no one else).
  static std::shared_ptr<PoolBuffer> InPlaceBuffer(
      const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
      const ConstantOutput& output, FoldRewriter& rw, int64_t other_buffer_holders = 0) {
    if (!rw.options().in_place || inputs.empty() || inputs[0] == nullptr) return nullptr;
    const OpInfo* info = FindOp(node.domain(), node.op_type(), opset);
    if (info == nullptr || !info->Has(kInPlace) || node.num_outputs() != 1) return nullptr;
    const Value* v = node.input(0);
    if (v->uses().size() != 1 || v->IsGraphOutput() || v->IsGraphInput()) return nullptr;
    // Held by the value's constant and by `inputs` only.
    if (inputs[0].use_count() != 2) return nullptr;
    const auto* x = dynamic_cast<const DisposableElements*>(inputs[0].get());
    if (x == nullptr || !x->IsDense() || x->offset() != 0) return nullptr;
    if (ElementSize(output.type) != ElementSize(x->element_type()) ||
        !std::equal(output.dims.begin(), output.dims.end(), x->dims().begin(), x->dims().end())) {
      return nullptr;
    }
    // The buffer held by `x` and the pool only (and the caller's known holders).
    if (!rw.pool().IsUnused(x->buffer().get(), 1 + other_buffer_holders)) return nullptr;
    auto buffer = std::dynamic_pointer_cast<const PoolBuffer>(x->buffer());
    if (buffer == nullptr || buffer->size() != x->ByteSize()) return nullptr;
    return std::const_pointer_cast<PoolBuffer>(buffer);
  }
};

}  // namespace

std::unique_ptr<FoldPattern> MakeEvaluatePattern() { return std::make_unique<EvaluatePattern>(); }

}  // namespace anvil
