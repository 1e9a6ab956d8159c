#include "constprop/constprop.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "constprop/gc.h"
#include "exec/interpreter.h"
#include "exec/node_executor.h"
#include "graph/op_table.h"
#include "graph/pass_registry.h"
#include "shape/analysis_builder.h"
#include "shape/index_expr.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"
#include "shape/shape_inference.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

constexpr int kMaxIterations = 64;

bool IsDefaultDomain(const Node& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

std::shared_ptr<const Elements> ConstantOf(const Value* v) { return ShapeState::ConstantOf(v); }

// The single value every element holds, as double, when the constant is a splat.
std::optional<double> SplatValue(const Elements& e) {
  const int64_t n = e.NumElements();
  if (n == 0 || e.element_type() == ElementType::kString) return std::nullopt;
  const double first = e.GetDouble(0);
  if (auto d = dynamic_cast<const DisposableElements*>(&e); d != nullptr && d->IsSplat()) {
    return first;
  }
  if (n > 4096) return std::nullopt;  // not worth scanning
  for (int64_t i = 1; i < n; ++i) {
    if (e.GetDouble(i) != first) return std::nullopt;
  }
  return first;
}

std::vector<int64_t> StaticDims(const Type& t) {
  std::vector<int64_t> dims;
  for (const Dim& d : t.shape()) dims.push_back(*d.value);
  return dims;
}

class Folder {
 public:
  Folder(Model& model, const ConstPropOptions& options, DisposablePool& pool, PassContext* ctx)
      : model_(model), options_(options), pool_(pool), ctx_(ctx) {}

  absl::StatusOr<bool> Run() {
    bool any = false;
    for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
      Count("iterations", 1);
      ShapeInferenceOptions shape_options;
      shape_options.skip_unknown_ops = true;
      absl::StatusOr<bool> inferred = InferShapes(model_, shape_options);
      if (!inferred.ok()) return inferred.status();
      changed_ = false;
      ANVIL_RETURN_IF_ERROR(FoldGraph(model_.graph()));
      if (!changed_) break;
      any = true;
    }
    return any;
  }

 private:
  absl::Status FoldGraph(Graph& g) {
    for (Node* node : g.NodesSnapshot()) {
      absl::StatusOr<bool> done = TryAll(g, node);
      if (!done.ok()) return done.status();
      if (*done) {
        changed_ = true;
        continue;  // the node is gone
      }
      for (Graph* sub : node->Subgraphs()) {
        ANVIL_RETURN_IF_ERROR(FoldGraph(*sub));
      }
    }
    return absl::OkStatus();
  }

  // True when `node` was replaced (and erased).
  absl::StatusOr<bool> TryAll(Graph& g, Node* node) {
    if (!IsDefaultDomain(*node) || IsRandom(*node)) return false;
    if (node->op_type() == "If") {
      if (absl::StatusOr<bool> r = TryInlineIf(g, node); !r.ok() || *r) return r;
    }
    if (absl::StatusOr<bool> r = TryFoldConstant(g, node); !r.ok() || *r) return r;
    if (absl::StatusOr<bool> r = TryFoldShape(g, node); !r.ok() || *r) return r;
    if (absl::StatusOr<bool> r = TryIdentity(g, node); !r.ok() || *r) return r;
    return TryReassociate(g, node);
  }

  // ---- Replacement helpers ----

  // Makes output `i` of `node` read `replacement` instead, keeping graph-output names: a graph
  // output gets an Identity of the replacement when the replacement is an existing value, or
  // takes over the name when the replacement is `fresh` (created for this rewrite).
  void ReplaceOutputWithValue(Graph& g, Node* node, int i, Value* replacement, bool fresh = false) {
    Value* out = node->output(i);
    if (out == nullptr) return;
    if (!out->IsGraphOutput()) {
      out->ReplaceAllUsesWith(replacement);
      return;
    }
    if (fresh && !replacement->IsGraphOutput() && replacement->graph() == &g) {
      pending_renames_.push_back({replacement, out->name()});
      out->ReplaceAllUsesWith(replacement);
      return;
    }
    Node* id = g.InsertNodeBefore(node, "Identity");
    id->AddInput(replacement);
    Value* id_out = id->AddOutput(g.UniqueName(absl::StrCat(out->name(), "_id")));
    id_out->set_type(out->type());
    pending_renames_.push_back({id_out, out->name()});
    out->ReplaceAllUsesWith(id_out);
  }

  // Erases `node` after its outputs were redirected, then gives fresh replacement values the
  // names the erased outputs had.
  void EraseAndRename(Graph& g, Node* node) {
    g.EraseNode(node);
    for (auto& [value, name] : pending_renames_) value->SetName(name);
    pending_renames_.clear();
  }

  void ReplaceWithConstants(Graph& g, Node* node,
                            std::vector<std::shared_ptr<const Elements>> results) {
    std::vector<Value*> inputs(node->inputs().begin(), node->inputs().end());
    for (int i = 0; i < node->num_outputs(); ++i) {
      Value* out = node->output(i);
      if (out == nullptr) continue;
      Value* init = g.AddInitializer(g.UniqueName(absl::StrCat(out->name(), "_const")),
                                     std::move(results[i]));
      pending_renames_.push_back({init, out->name()});
      out->ReplaceAllUsesWith(init);
    }
    EraseAndRename(g, node);
    DropDeadConstants(inputs);
  }

  // Constants that fed a folded node and have no other reader: their memory can go now.
  void DropDeadConstants(const std::vector<Value*>& values) {
    for (Value* v : values) {
      if (v == nullptr || v->HasUses() || v->IsGraphOutput() || v->IsGraphInput()) continue;
      if (std::find(dropped_.begin(), dropped_.end(), v) != dropped_.end()) continue;
      if (v->IsInitializer()) {
        dropped_.push_back(v);
        v->graph()->EraseValue(v);
      } else if (Node* producer = v->producer(); producer != nullptr &&
                                                 producer->op_type() == "Constant" &&
                                                 producer->num_outputs() == 1) {
        dropped_.push_back(v);
        producer->graph()->EraseNode(producer);
      }
    }
    dropped_.clear();
  }

  void MaybeCollect(int64_t materialized_bytes) {
    if (!options_.collect || materialized_bytes < options_.collect_bytes) return;
    pool_.ReleaseUnreachable(ReachableBuffers(model_));
  }

  // ---- Folds ----

  absl::StatusOr<bool> TryFoldConstant(Graph& g, Node* node) {
    if (node->op_type() == "Constant") {
      // Every constant ends up an initializer (value_float(s)/value_int(s) included).
      std::shared_ptr<const Elements> value = ConstantOf(node->output(0));
      if (value == nullptr) {
        const int64_t opset = model_.OpsetVersion(node->domain());
        std::vector<std::shared_ptr<const Elements>> results(1);
        absl::Status status = RunNodeOnViews(
            *node, opset, {},
            [&](int, ElementType type,
                absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
              int64_t n = 1;
              for (int64_t d : dims) n *= d;
              std::shared_ptr<PoolBuffer> buffer = pool_.Allocate(n * ElementSize(type));
              results[0] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
              return TensorView::Dense(type, buffer->mutable_data(), dims);
            });
        if (!status.ok() || results[0] == nullptr) return false;
        value = results[0];
      }
      ReplaceWithConstants(g, node, {value});
      return true;
    }
    if (node->num_inputs() == 0) return false;
    std::vector<std::shared_ptr<const Elements>> inputs(node->num_inputs());
    int64_t input_bytes = 0;
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input(i) == nullptr) continue;
      inputs[i] = ConstantOf(node->input(i));
      if (inputs[i] == nullptr) return false;
      input_bytes += static_cast<int64_t>(inputs[i]->ByteSize());
    }
    if (!node->Subgraphs().empty() && !SubgraphsCaptureOnlyConstants(*node)) return false;
    const int64_t opset = model_.OpsetVersion(node->domain());

    if (options_.use_views) {
      absl::StatusOr<std::shared_ptr<const Elements>> view = TryView(*node, opset, inputs);
      if (!view.ok()) return view.status();
      if (*view != nullptr) {
        if (!WithinExpansion((*view)->ByteSize(), input_bytes)) return false;
        Count("views", 1);
        Count("nodes-folded", 1);
        ReplaceWithConstants(g, node, {*view});
        return true;
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
      if (!WithinExpansion(bytes, input_bytes)) {
        too_big = true;
        return absl::ResourceExhaustedError("fold exceeds max-expansion");
      }
      std::shared_ptr<PoolBuffer> buffer = pool_.Allocate(bytes);
      materialized += static_cast<int64_t>(bytes);
      results[i] = DisposableElements::Dense(buffer, type, {dims.begin(), dims.end()});
      return TensorView::Dense(type, buffer->mutable_data(), dims);
    };
    NodeExecOptions run_options;
    run_options.subgraph_runner =
        InterpreterSubgraphRunner(model_, [this](const Value* v) { return OuterTensor(v); });
    absl::Status status = RunNodeOnViews(*node, opset, views, make_output, run_options);
    if (too_big) {
      Count("skipped-expansion", 1);
      return false;
    }
    if (!status.ok()) {
      // The op cannot be evaluated here (no kernel, or the data is invalid): leave it for the
      // runtime, which will report it.
      Count("fold-failures", 1);
      return false;
    }
    Count("nodes-folded", 1);
    temporaries.clear();
    ReplaceWithConstants(g, node, std::move(results));
    MaybeCollect(materialized);
    return true;
  }

  const Tensor* OuterTensor(const Value* v) {
    auto it = outer_tensors_.find(v);
    if (it != outer_tensors_.end()) return &it->second;
    std::shared_ptr<const Elements> c = ConstantOf(v);
    if (c == nullptr) return nullptr;
    return &outer_tensors_.emplace(v, Tensor::FromElements(*c)).first->second;
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
            if (!inside && ConstantOf(in) == nullptr) ok = false;
          }
        }
      });
    }
    return ok;
  }

  bool WithinExpansion(size_t output_bytes, int64_t input_bytes) const {
    if (options_.max_expansion <= 0) return true;
    return static_cast<double>(output_bytes) <=
           options_.max_expansion * static_cast<double>(std::max<int64_t>(input_bytes, 1));
  }

  // View ops: the result shares the input's buffer. nullptr when `node` is not one (or the view
  // is impossible, e.g. Reshape of a strided view).
  absl::StatusOr<std::shared_ptr<const Elements>> TryView(
      const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& in) {
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

    std::shared_ptr<const DisposableElements> x = DisposableElements::Wrap(in[0], pool_);
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

  absl::StatusOr<bool> TryFoldShape(Graph& g, Node* node) {
    const std::string& op = node->op_type();
    if ((op != "Shape" && op != "Size") || node->num_inputs() < 1 || node->input(0) == nullptr) {
      return false;
    }
    const Type& t = node->input(0)->type();
    if (!t.is_tensor() || !t.IsStatic()) return false;
    std::vector<int64_t> dims = StaticDims(t);
    std::vector<int64_t> values;
    std::vector<int64_t> out_dims;
    if (op == "Size") {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      values = {n};
    } else {
      const int64_t rank = static_cast<int64_t>(dims.size());
      int64_t start = node->GetInt("start", 0), end = node->GetInt("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, 0, rank);
      for (int64_t k = start; k < end; ++k) values.push_back(dims[k]);
      out_dims = {static_cast<int64_t>(values.size())};
    }
    auto buffer = pool_.Allocate(values.size() * sizeof(int64_t));
    std::memcpy(buffer->mutable_data(), values.data(), values.size() * sizeof(int64_t));
    Count("shapes-folded", 1);
    ReplaceWithConstants(g, node,
                         {DisposableElements::Dense(buffer, ElementType::kInt64, out_dims)});
    return true;
  }

  // x+0, 0+x, x-0, x*1, 1*x, x/1; Where with a splat condition.
  absl::StatusOr<bool> TryIdentity(Graph& g, Node* node) {
    const std::string& op = node->op_type();
    if (node->num_outputs() != 1 || node->output(0) == nullptr) return false;
    const Type& out_type = node->output(0)->type();
    auto same_type = [&](const Value* v) {
      return v != nullptr && v->type().is_tensor() && out_type.is_tensor() &&
             v->type().has_shape() && out_type.has_shape() &&
             v->type().element_type() == out_type.element_type() &&
             v->type().shape() == out_type.shape();
    };
    Value* keep = nullptr;
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && node->num_inputs() == 2 &&
        model_.OpsetVersion("") >= 7) {
      const double neutral = (op == "Add" || op == "Sub") ? 0.0 : 1.0;
      const bool commutative = op == "Add" || op == "Mul";
      for (int c = 1; c >= (commutative ? 0 : 1); --c) {
        std::shared_ptr<const Elements> k = ConstantOf(node->input(c));
        if (k == nullptr) continue;
        std::optional<double> splat = SplatValue(*k);
        Value* x = node->input(1 - c);
        if (splat && *splat == neutral && same_type(x) && ConstantOf(x) == nullptr) {
          keep = x;
          break;
        }
      }
    } else if (op == "Where" && node->num_inputs() == 3) {
      std::shared_ptr<const Elements> cond = ConstantOf(node->input(0));
      if (cond != nullptr) {
        if (std::optional<double> splat = SplatValue(*cond)) {
          Value* chosen = node->input(*splat != 0 ? 1 : 2);
          if (same_type(chosen)) keep = chosen;
        }
      }
    }
    if (keep == nullptr) return false;
    Count("identities", 1);
    std::vector<Value*> inputs(node->inputs().begin(), node->inputs().end());
    ReplaceOutputWithValue(g, node, 0, keep);
    EraseAndRename(g, node);
    DropDeadConstants(inputs);
    return true;
  }

  // (x op c1) op c2 -> x op (c1 op c2) for op in {Add, Mul}: the constants then fold together.
  absl::StatusOr<bool> TryReassociate(Graph& g, Node* node) {
    const std::string& op = node->op_type();
    if ((op != "Add" && op != "Mul") || node->num_inputs() != 2) return false;
    for (int c2_index = 0; c2_index < 2; ++c2_index) {
      Value* c2 = node->input(c2_index);
      Value* y = node->input(1 - c2_index);
      if (ConstantOf(c2) == nullptr || y == nullptr || ConstantOf(y) != nullptr) continue;
      Node* inner = y->producer();
      if (inner == nullptr || inner->op_type() != op || inner->graph() != &g ||
          y->uses().size() != 1 || y->IsGraphOutput() || inner->num_inputs() != 2) {
        continue;
      }
      for (int c1_index = 0; c1_index < 2; ++c1_index) {
        Value* c1 = inner->input(c1_index);
        Value* x = inner->input(1 - c1_index);
        if (ConstantOf(c1) == nullptr || x == nullptr || ConstantOf(x) != nullptr) continue;
        // Types must agree so combining the constants first changes nothing but rounding.
        if (c1->type().element_type() != c2->type().element_type()) continue;
        Node* combined = g.InsertNodeBefore(node, op);
        combined->AddInput(c1);
        combined->AddInput(c2);
        combined->AddOutput(g.UniqueName(absl::StrCat(node->output(0)->name(), "_c")));
        node->SetInput(c2_index, combined->output(0));
        node->SetInput(1 - c2_index, x);
        g.EraseNode(inner);
        Count("reassociations", 1);
        changed_ = true;
        return false;  // the node stays (rewired); its new constant folds next iteration
      }
    }
    return false;
  }

  // If with a constant condition: the taken branch's nodes move into this graph.
  absl::StatusOr<bool> TryInlineIf(Graph& g, Node* node) {
    std::shared_ptr<const Elements> cond = ConstantOf(node->input(0));
    if (cond == nullptr || cond->NumElements() != 1) return false;
    const Attribute* branch_attr =
        node->FindAttribute(cond->GetDouble(0) != 0 ? "then_branch" : "else_branch");
    if (branch_attr == nullptr || branch_attr->graphs.empty()) return false;
    const Graph& branch = *branch_attr->graphs[0];
    if (branch.outputs().size() != static_cast<size_t>(node->num_outputs())) return false;
    absl::flat_hash_map<const Value*, Value*> map;
    for (const Value* init : branch.initializers()) {
      map[init] = g.AddInitializer(g.UniqueName(init->name()), init->constant());
    }
    for (const Node* inner : branch.nodes()) {
      Node* copy = g.CloneNode(*inner, &map);
      g.MoveNodeBefore(copy, node);
    }
    for (int i = 0; i < node->num_outputs(); ++i) {
      Value* from = branch.outputs()[i];
      auto it = map.find(from);
      if (it == map.end()) {
        ReplaceOutputWithValue(g, node, i, from);
      } else {
        ReplaceOutputWithValue(g, node, i, it->second, /*fresh=*/true);
      }
    }
    Count("branches-inlined", 1);
    EraseAndRename(g, node);
    return true;
  }

  void Count(std::string_view name, int64_t delta) {
    if (ctx_ != nullptr) ctx_->AddStatistic(name, delta);
  }

  Model& model_;
  ConstPropOptions options_;
  DisposablePool& pool_;
  PassContext* ctx_;
  bool changed_ = false;
  std::vector<std::pair<Value*, std::string>> pending_renames_;
  std::vector<Value*> dropped_;
  absl::flat_hash_map<const Value*, Tensor> outer_tensors_;
};

}  // namespace

absl::StatusOr<bool> PropagateConstants(Model& model, const ConstPropOptions& options,
                                        DisposablePool& pool, PassContext* ctx) {
  Folder folder(model, options, pool, ctx);
  return folder.Run();
}

absl::StatusOr<bool> ConstPropPass::Run(Model& model, PassContext& ctx) {
  ScopedIndexExprContext index_exprs;  // the run's symbolic dims go with it
  ConstPropOptions options;
  options.max_expansion = *max_expansion_;
  options.use_views = *views_;
  options.collect = *collect_;
  return PropagateConstants(model, options, PoolFor(model), &ctx);
}

ANVIL_REGISTER_PASS(ConstPropPass);

}  // namespace anvil
