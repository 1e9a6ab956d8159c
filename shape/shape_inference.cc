#include "shape/shape_inference.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "graph/pass_registry.h"
#include "shape/analysis_builder.h"
#include "shape/dim_ranges.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

class Inferencer {
 public:
  Inferencer(Model& model, const ShapeInferenceOptions& options, PassContext* ctx)
      : model_(model), options_(options), ctx_(ctx) {
    subgraph_inferer_ = [this](const Graph& body, const std::vector<TensorInfo>& inputs) {
      return InferSubgraph(body, inputs);
    };
  }

  absl::Status InferGraph(const Graph& graph) {
    for (Node* node : graph.nodes()) {
      ANVIL_RETURN_IF_ERROR(InferNode(*node));
    }
    return absl::OkStatus();
  }

  bool changed() const { return changed_; }
  // Starts a run: nothing changed yet, and the types values have now are their declarations.
  void ResetChanged() {
    changed_ = false;
    declared_.clear();
  }
  ShapeState& state() { return state_; }
  void ResetState() { state_ = ShapeState(); }

  absl::Status InferNode(Node& node) {
    const int64_t opset = model_.OpsetVersion(node.domain());
    AnalysisBuilder builder(node, state_, &subgraph_inferer_, options_.bounded_dims);
    ShapeContext ctx(node, opset, builder);
    absl::Status status = InferNodeShapes(ctx);
    if (absl::IsUnimplemented(status) && options_.skip_unknown_ops) {
      Count("nodes-unimplemented", 1);
      return absl::OkStatus();  // outputs keep their declared types
    }
    if (!status.ok()) return status;
    for (int i = 0; i < node.num_outputs(); ++i) {
      Value* v = node.output(i);
      if (v == nullptr) continue;
      ANVIL_RETURN_IF_ERROR(Record(node, v, ctx.output(i)));
    }
    return absl::OkStatus();
  }

 private:
  // Merges an inferred result into the value's declared type, writes it back, remembers it.
  absl::Status Record(const Node& node, Value* v, const TensorInfo& inferred) {
    const Type& declared = Declared(v);
    MergeResult merged = MergeInferredType(inferred, declared);
    if (merged.conflict) {
      return absl::InvalidArgumentError(
          absl::StrCat(node.Describe(), ": output '", v->name(), "' is inferred as ",
                       std::string(ElementTypeName(inferred.type)),
                       inferred.dims ? DimsToString(*inferred.dims) : "[unknown rank]",
                       " but declared ", declared.ToString(), " (", merged.conflict_detail, ")"));
    }
    ANVIL_RETURN_IF_ERROR(CheckSize(node, v, inferred));
    if (!(merged.type == v->type())) {
      v->set_type(merged.type);
      changed_ = true;
    }
    if (!v->IsGraphOutput() && v->type().has_value() && !v->in_value_info()) {
      v->graph()->AddValueInfo(v);
      changed_ = true;
    }
    const TensorInfo refined = RefineWithDeclared(inferred, v->type());
    CountDims(refined);
    state_.Set(v, refined);
    return absl::OkStatus();
  }

  // The type `v` had when this run began. A subgraph may be inferred more than once in a run (a
  // loop body until its carried values are stable, each round more general than the last): what
  // an earlier round wrote is no declaration, or a dim a later round widened would keep the
  // first round's value, a promise the later iterations break. Main-graph values are inferred
  // once per run and read their type as it is.
  const Type& Declared(const Value* v) {
    if (v->graph()->owner_node() == nullptr) return v->type();
    return declared_.try_emplace(v, v->type()).first->second;
  }

  // A tensor whose byte size does not fit in int64 can never exist: the model is wrong, and
  // saying so here names the node instead of letting a later size computation wrap around.
  static absl::Status CheckSize(const Node& node, const Value* v, const TensorInfo& inferred) {
    if (!inferred.dims) return absl::OkStatus();
    std::vector<int64_t> dims;
    dims.reserve(inferred.dims->size());
    for (const IndexExpr& d : *inferred.dims) {
      if (!d.IsLiteral()) return absl::OkStatus();
      dims.push_back(d.literal());
    }
    const int64_t element_size = std::max<int64_t>(1, ElementSize(inferred.type));
    absl::StatusOr<int64_t> bytes = CheckedByteSize(dims, element_size);
    if (bytes.ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": output '", v->name(),
                                                   "' cannot exist: ", bytes.status().message()));
  }

  absl::StatusOr<std::vector<TensorInfo>> InferSubgraph(const Graph& body,
                                                        const std::vector<TensorInfo>& inputs) {
    for (size_t i = 0; i < body.inputs().size(); ++i) {
      Value* in = body.inputs()[i];
      TensorInfo given = i < inputs.size() ? inputs[i] : TensorInfo{};
      // A body input declared without a type (exporters' Loop bodies often are) takes what its
      // owner gives; the last inference of the body, the most general, is the one that stays.
      if (!Declared(in).has_value()) {
        Type type = MergeInferredType(given, Declared(in)).type;
        if (!(type == in->type())) {
          in->set_type(std::move(type));
          changed_ = true;
        }
      }
      state_.Set(in, RefineWithDeclared(std::move(given), Declared(in)));
    }
    ANVIL_RETURN_IF_ERROR(InferGraph(body));
    std::vector<TensorInfo> outputs;
    for (const Value* out : body.outputs()) outputs.push_back(state_.Get(out));
    return outputs;
  }

  void CountDims(const TensorInfo& info) {
    if (ctx_ == nullptr) return;
    if (!info.dims) return;
    Count("values-typed", 1);
    for (const IndexExpr& d : *info.dims) {
      Count(d.IsLiteral()        ? "dims-literal"
            : d.IsQuestionmark() ? "dims-unknown"
                                 : "dims-symbolic",
            1);
      if (!d.IsLiteral() && RangeOf(d).hi.has_value()) Count("dims-bounded", 1);
    }
  }

  void Count(std::string_view name, int64_t delta) {
    if (ctx_ != nullptr) ctx_->AddStatistic(name, delta);
  }

  Model& model_;
  ShapeInferenceOptions options_;
  PassContext* ctx_;
  ShapeState state_;
  SubgraphInferer subgraph_inferer_;
  absl::flat_hash_map<const Value*, Type> declared_;  // subgraph values, at this run's start
  bool changed_ = false;
};

bool SameInfo(const TensorInfo& a, const TensorInfo& b) {
  return a.type == b.type && a.dims == b.dims && a.values == b.values;
}

// The node of the main graph that `node` is in (itself, or the owner of its outermost subgraph).
const Node* Outermost(const Node& node) {
  const Node* n = &node;
  while (n->graph()->owner_node() != nullptr) n = n->graph()->owner_node();
  return n;
}

}  // namespace

class ShapeInference::Impl {
 public:
  Impl(Model& model, const ShapeInferenceOptions& options, PassContext* ctx)
      : model_(model), inferencer_(model, options, ctx) {}

  absl::StatusOr<bool> InferAll() {
    IndexExprContext::Scope scope(index_exprs_);
    inferencer_.ResetChanged();
    inferencer_.ResetState();  // everything is read afresh from the model
    inferencer_.state().Reserve(model_.value_id_bound());
    dirty_.clear();
    // Ranges the model carries (--input-ranges, an earlier inference) before any symbol is made.
    // (A malformed value is no ranges: the model still runs where ONNX Runtime runs it.)
    const std::vector<SymbolRange> ranges = ModelRangesOrNone(model_);
    ANVIL_RETURN_IF_ERROR(DeclareRanges(ranges));
    ANVIL_RETURN_IF_ERROR(inferencer_.InferGraph(model_.graph()));
    WriteRanges(!ranges.empty());
    return inferencer_.changed();
  }

  // The ranges of the symbols the types now name go into the model's metadata (a walk over every
  // dim, so only when there are ranges to write or to remove).
  void WriteRanges(bool model_had_ranges) {
    if (!model_had_ranges && !index_exprs_.has_ranges()) return;
    std::vector<SymbolRange> ranges = RangesOfTypes(model_);
    absl::StatusOr<std::vector<SymbolRange>> before = ReadModelRanges(model_);
    if (before.ok() && *before == ranges) return;
    if (!before.ok() && ranges.empty()) return;  // a malformed value is left as it was
    WriteModelRanges(model_, std::move(ranges));
  }

  absl::StatusOr<bool> InferDirty() {
    if (dirty_.empty()) return false;
    IndexExprContext::Scope scope(index_exprs_);
    inferencer_.ResetChanged();
    ShapeState& state = inferencer_.state();
    // One sweep in graph order: readers come after what they read, so a change marks nodes the
    // sweep has yet to reach.
    for (Node* node : model_.graph().nodes()) {
      if (!dirty_.contains(node)) continue;
      ++reinferred_;
      std::vector<std::optional<TensorInfo>> before(node->num_outputs());
      for (int i = 0; i < node->num_outputs(); ++i) {
        if (node->output(i) != nullptr && state.Has(node->output(i))) {
          before[i] = state.Get(node->output(i));
        }
      }
      ANVIL_RETURN_IF_ERROR(inferencer_.InferNode(*node));
      for (int i = 0; i < node->num_outputs(); ++i) {
        const Value* v = node->output(i);
        if (v == nullptr) continue;
        if (!before[i] || !state.Has(v) || !SameInfo(*before[i], state.Get(v))) {
          MarkUsersDirty(*v);
        }
      }
    }
    dirty_.clear();
    return inferencer_.changed();
  }

  void MarkDirty(const Node& node) { dirty_.insert(Outermost(node)); }

  void MarkUsersDirty(const Value& value) {
    for (const Use& use : value.uses()) MarkDirty(*use.user);
  }

  void Forget(const Value& value) { inferencer_.state().Erase(&value); }

  void ForgetNode(const Node& node) {
    dirty_.erase(&node);
    for (const Value* v : node.outputs()) {
      if (v != nullptr) Forget(*v);
    }
    for (Graph* sub : node.Subgraphs()) {
      sub->ForEachGraph([&](Graph& g) {
        for (const Value* v : g.inputs()) Forget(*v);
        for (const Value* v : g.initializers()) Forget(*v);
        for (const Node* n : g.nodes()) {
          for (const Value* v : n->outputs()) {
            if (v != nullptr) Forget(*v);
          }
        }
      });
    }
  }

  int64_t reinferred() const { return reinferred_; }
  ShapeState& state() { return inferencer_.state(); }
  IndexExprContext& context() { return index_exprs_; }

 private:
  Model& model_;
  IndexExprContext index_exprs_;  // what the state holds lives as long as this object
  Inferencer inferencer_;
  absl::flat_hash_set<const Node*> dirty_;  // nodes of the main graph
  int64_t reinferred_ = 0;
};

ShapeInference::ShapeInference(Model& model, const ShapeInferenceOptions& options, PassContext* ctx)
    : impl_(std::make_unique<Impl>(model, options, ctx)) {}
ShapeInference::~ShapeInference() = default;
absl::StatusOr<bool> ShapeInference::InferAll() { return impl_->InferAll(); }
absl::StatusOr<bool> ShapeInference::InferDirty() { return impl_->InferDirty(); }
void ShapeInference::MarkDirty(const Node& node) { impl_->MarkDirty(node); }
void ShapeInference::MarkUsersDirty(const Value& value) { impl_->MarkUsersDirty(value); }
void ShapeInference::Forget(const Value& value) { impl_->Forget(value); }
void ShapeInference::ForgetNode(const Node& node) { impl_->ForgetNode(node); }
int64_t ShapeInference::nodes_reinferred() const { return impl_->reinferred(); }
ShapeState& ShapeInference::state() { return impl_->state(); }
IndexExprContext& ShapeInference::context() { return impl_->context(); }

absl::StatusOr<bool> InferShapes(Model& model, const ShapeInferenceOptions& options,
                                 PassContext* ctx) {
  // The run's symbols and questionmarks live as long as the run: only text survives it.
  return ShapeInference(model, options, ctx).InferAll();
}

absl::StatusOr<bool> ShapeInferencePass::Run(Model& model, PassContext& ctx) {
  ShapeInferenceOptions options;
  if (*unknown_ops_ == "skip") {
    options.skip_unknown_ops = true;
  } else if (*unknown_ops_ != "error") {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape-inference: unknown-ops must be 'error' or 'skip', got '", *unknown_ops_, "'"));
  }
  options.bounded_dims = *bounded_dims_;
  if (!input_ranges_->empty()) {
    absl::StatusOr<std::vector<SymbolRange>> ranges = ParseSymbolRanges(*input_ranges_);
    if (!ranges.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape-inference: input-ranges: ", ranges.status().message()));
    }
    if (absl::Status s = AddInputRanges(model, *ranges); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("shape-inference: ", s.message()));
    }
  }
  return InferShapes(model, options, &ctx);
}

ANVIL_REGISTER_PASS(ShapeInferencePass);

}  // namespace anvil
