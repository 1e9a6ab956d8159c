#include "shape/shape_inference.h"

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/pass_registry.h"
#include "shape/analysis_builder.h"
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

 private:
  absl::Status InferNode(Node& node) {
    const int64_t opset = model_.OpsetVersion(node.domain());
    AnalysisBuilder builder(node, state_, &subgraph_inferer_);
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

  // Merges an inferred result into the value's declared type, writes it back, remembers it.
  absl::Status Record(const Node& node, Value* v, const TensorInfo& inferred) {
    MergeResult merged = MergeInferredType(inferred, v->type());
    if (merged.conflict) {
      return absl::InvalidArgumentError(
          absl::StrCat(node.Describe(), ": output '", v->name(), "' is inferred as ",
                       std::string(ElementTypeName(inferred.type)),
                       inferred.dims ? DimsToString(*inferred.dims) : "[unknown rank]",
                       " but declared ", v->type().ToString(), " (", merged.conflict_detail, ")"));
    }
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

  absl::StatusOr<std::vector<TensorInfo>> InferSubgraph(const Graph& body,
                                                        const std::vector<TensorInfo>& inputs) {
    for (size_t i = 0; i < body.inputs().size(); ++i) {
      const Value* in = body.inputs()[i];
      TensorInfo given = i < inputs.size() ? inputs[i] : TensorInfo{};
      state_.Set(in, RefineWithDeclared(std::move(given), in->type()));
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
  bool changed_ = false;
};

}  // namespace

absl::StatusOr<bool> InferShapes(Model& model, const ShapeInferenceOptions& options,
                                 PassContext* ctx) {
  // The run's symbols and questionmarks live as long as the run: only text survives it.
  ScopedIndexExprContext index_exprs;
  Inferencer inferencer(model, options, ctx);
  ANVIL_RETURN_IF_ERROR(inferencer.InferGraph(model.graph()));
  return inferencer.changed();
}

absl::StatusOr<bool> ShapeInferencePass::Run(Model& model, PassContext& ctx) {
  ShapeInferenceOptions options;
  if (*unknown_ops_ == "skip") {
    options.skip_unknown_ops = true;
  } else if (*unknown_ops_ != "error") {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape-inference: unknown-ops must be 'error' or 'skip', got '", *unknown_ops_, "'"));
  }
  return InferShapes(model, options, &ctx);
}

ANVIL_REGISTER_PASS(ShapeInferencePass);

}  // namespace anvil
