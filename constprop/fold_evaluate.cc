// The evaluation pattern: a node whose inputs are all constants becomes constants (see
// fold_pattern.h). View ops (Transpose, Reshape, Slice, Cast, ...) become DisposableElements views
// of their input's buffer; anything else runs its kernel (exec/node_executor.h) with the inputs'
// memory as views and the outputs in pool buffers, within max-expansion; a Constant node becomes
// an initializer.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "constprop/fold_pattern.h"
#include "exec/interpreter.h"
#include "exec/node_executor.h"
#include "graph/op_table.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

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
        absl::Status status = RunNodeOnViews(
            *node, opset, {},
            [&](int, ElementType type,
                absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
              int64_t n = 1;
              for (int64_t d : dims) n *= d;
              std::shared_ptr<PoolBuffer> buffer = rw.pool().Allocate(n * ElementSize(type));
              results[0] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
              return TensorView::Dense(type, buffer->mutable_data(), dims);
            });
        if (!status.ok() || results[0] == nullptr) return FoldResult::kNoMatch;
        value = results[0];
      }
      rw.ReplaceWithConstants(g, node, {value});
      return FoldResult::kErased;
    }
    if (node->num_inputs() == 0) return FoldResult::kNoMatch;
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

    if (rw.options().use_views) {
      absl::StatusOr<std::shared_ptr<const Elements>> view = TryView(*node, opset, inputs, rw);
      if (!view.ok()) return view.status();
      if (*view != nullptr) {
        if (!rw.WithinExpansion((*view)->ByteSize(), input_bytes)) return FoldResult::kNoMatch;
        rw.Count("views", 1);
        rw.Count("nodes-folded", 1);
        rw.ReplaceWithConstants(g, node, {*view});
        return FoldResult::kErased;
      }
    }

    // Evaluate with the kernel: inputs as views of the constants' memory (materialized only
    // when a constant is itself a strided view), outputs into pool buffers.
    // Strided or lazily cast inputs are materialized into temporaries that die with this fold.
    std::vector<Tensor> temporaries(inputs.size());
    std::vector<TensorView> views(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == nullptr) continue;
      if (const uint8_t* data = inputs[i]->ContiguousData()) {
        views[i] = TensorView::Dense(inputs[i]->element_type(), const_cast<uint8_t*>(data),
                                     inputs[i]->dims());
      } else {
        temporaries[i] = Tensor::FromElements(*inputs[i]);
        views[i] = temporaries[i].view();
      }
    }
    int64_t materialized = 0;
    std::vector<std::shared_ptr<const Elements>> results(node->num_outputs());
    bool too_big = false;
    OutputFactory make_output = [&](int i, ElementType type,
                                    absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      const size_t bytes = static_cast<size_t>(n) * ElementSize(type);
      if (!rw.WithinExpansion(bytes, input_bytes)) {
        too_big = true;
        return absl::ResourceExhaustedError("fold exceeds max-expansion");
      }
      std::shared_ptr<PoolBuffer> buffer = rw.pool().Allocate(bytes);
      materialized += static_cast<int64_t>(bytes);
      results[i] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
      return TensorView::Dense(type, buffer->mutable_data(), dims);
    };
    NodeExecOptions run_options;
    run_options.subgraph_runner =
        InterpreterSubgraphRunner(rw.model(), [&rw](const Value* v) { return rw.OuterTensor(v); });
    absl::Status status = RunNodeOnViews(*node, opset, views, make_output, run_options);
    if (too_big) {
      rw.Count("skipped-expansion", 1);
      return FoldResult::kNoMatch;
    }
    if (!status.ok()) {
      // The op cannot be evaluated here (no kernel, or the data is invalid): leave it for the
      // runtime, which will report it.
      rw.Count("fold-failures", 1);
      return FoldResult::kNoMatch;
    }
    rw.Count("nodes-folded", 1);
    temporaries.clear();
    rw.ReplaceWithConstants(g, node, std::move(results));
    rw.MaybeCollect(materialized);
    return FoldResult::kErased;
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

  // View ops: the result shares the input's buffer. nullptr when `node` is not one (or the view
  // is impossible, e.g. Reshape of a strided view).
  absl::StatusOr<std::shared_ptr<const Elements>> TryView(
      const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& in,
      FoldRewriter& rw) {
    const std::string& op = node.op_type();
    static const char* const kViewOps[] = {"Cast",      "CastLike", "Expand", "Flatten",
                                           "Identity",  "Reshape",  "Slice",  "Squeeze",
                                           "Transpose", "Unsqueeze"};
    if (std::find_if(std::begin(kViewOps), std::end(kViewOps),
                     [&](const char* v) { return op == v; }) == std::end(kViewOps)) {
      return nullptr;
    }
    if (in.empty() || in[0] == nullptr || in[0]->element_type() == ElementType::kString) {
      return nullptr;
    }
    // Output dims and type from the ShapeHelper (runtime builder over the constants).
    std::vector<RuntimeOperand> operands(in.size());
    std::vector<Tensor> temporaries(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == nullptr) continue;
      const void* data = in[i]->ContiguousData();
      if (data == nullptr && i > 0) {  // shape/axes inputs must be readable (they are small)
        temporaries[i] = Tensor::FromElements(*in[i]);
        data = temporaries[i].data();
      }
      operands[i] = {in[i]->element_type(), in[i]->dims(), data};
    }
    RuntimeBuilder builder(operands);
    ShapeContext shape_ctx(node, opset, builder);
    if (!InferNodeShapes(shape_ctx).ok()) return nullptr;
    const TensorInfo& info = shape_ctx.output(0);
    const std::optional<std::vector<int64_t>> literal_dims = LiteralDims(info);
    if (!literal_dims) return nullptr;
    const std::vector<int64_t>& out_dims = *literal_dims;
    if (info.type == ElementType::kString) return nullptr;

    std::shared_ptr<const DisposableElements> x = DisposableElements::Wrap(in[0], rw.pool());
    if (op == "Identity") return std::shared_ptr<const Elements>(x);
    if (op == "Cast" || op == "CastLike")
      return std::shared_ptr<const Elements>(x->Cast(info.type));
    if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
      return std::shared_ptr<const Elements>(x->Reshape(out_dims));
    }
    if (op == "Expand") return std::shared_ptr<const Elements>(x->BroadcastTo(out_dims));
    if (op == "Transpose") {
      std::vector<int64_t> perm = node.GetInts("perm");
      if (perm.empty()) {
        for (int64_t k = static_cast<int64_t>(x->dims().size()) - 1; k >= 0; --k) {
          perm.push_back(k);
        }
      }
      return std::shared_ptr<const Elements>(x->Transpose(perm));
    }
    if (op == "Slice") return SliceView(node, opset, *x, in, out_dims);
    return nullptr;
  }

  // Slice as (start, step) per dim; the ShapeHelper already computed the output dims.
  std::shared_ptr<const Elements> SliceView(const Node& node, int64_t opset,
                                            const DisposableElements& x,
                                            const std::vector<std::shared_ptr<const Elements>>& in,
                                            const std::vector<int64_t>& out_dims) {
    const int64_t rank = static_cast<int64_t>(x.dims().size());
    std::vector<int64_t> starts, ends, axes, steps;
    auto read = [&](int i) {
      std::vector<int64_t> v;
      if (i < static_cast<int>(in.size()) && in[i] != nullptr) {
        for (int64_t k = 0; k < in[i]->NumElements(); ++k) v.push_back(in[i]->GetInt64(k));
      }
      return v;
    };
    if (opset < 10) {
      starts = node.GetInts("starts");
      ends = node.GetInts("ends");
      axes = node.GetInts("axes");
    } else {
      starts = read(1);
      ends = read(2);
      axes = read(3);
      steps = read(4);
    }
    if (axes.empty()) {
      for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    std::vector<int64_t> start_of(rank, 0), step_of(rank, 1);
    for (size_t j = 0; j < axes.size(); ++j) {
      int64_t axis = axes[j] < 0 ? axes[j] + rank : axes[j];
      if (axis < 0 || axis >= rank || steps[j] == 0) return nullptr;
      const int64_t n = x.dims()[axis];
      int64_t s = starts[j];
      if (s < 0) s += n;
      s = steps[j] > 0 ? std::clamp<int64_t>(s, 0, n) : std::clamp<int64_t>(s, 0, n - 1);
      start_of[axis] = s;
      step_of[axis] = steps[j];
    }
    return x.Slice(start_of, step_of, out_dims);
  }
};

}  // namespace

std::unique_ptr<FoldPattern> MakeEvaluatePattern() { return std::make_unique<EvaluatePattern>(); }

}  // namespace anvil
