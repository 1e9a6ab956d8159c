#include "exec/interpreter.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"

namespace anvil {

absl::StatusOr<std::vector<Tensor>> InterpretGraph(const Model& model, const Graph& graph,
                                                   const std::vector<Tensor>& inputs,
                                                   const OuterValues& outer,
                                                   const ValueObserver& observer,
                                                   int64_t max_allocation_bytes) {
  absl::flat_hash_map<const Value*, Tensor> env;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    if (i < inputs.size() && inputs[i].defined()) {
      env[graph.inputs()[i]] = inputs[i];
      if (observer) ANVIL_RETURN_IF_ERROR(observer(*graph.inputs()[i], inputs[i]));
    }
  }
  for (const Value* init : graph.initializers()) {
    if (!env.contains(init)) env[init] = Tensor::FromElements(*init->constant());
  }
  auto lookup = [&](const Value* v) -> const Tensor* {
    auto it = env.find(v);
    if (it != env.end()) return &it->second;
    return outer ? outer(v) : nullptr;
  };
  NodeExecOptions options;
  options.subgraph_runner =
      InterpreterSubgraphRunner(model, lookup, observer, max_allocation_bytes);
  options.max_allocation_bytes = max_allocation_bytes;
  for (const Node* node : graph.nodes()) {
    std::vector<Tensor> node_inputs(node->num_inputs());
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Value* v = node->input(i);
      if (v == nullptr) continue;
      const Tensor* t = lookup(v);
      if (t == nullptr) {
        return absl::FailedPreconditionError(
            absl::StrCat(node->Describe(), ": input '", v->name(), "' has no value"));
      }
      node_inputs[i] = *t;
    }
    ANVIL_ASSIGN_OR_RETURN(
        std::vector<Tensor> outputs,
        RunNode(*node, model.OpsetVersion(node->domain()), node_inputs, options));
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (node->output(i) == nullptr) continue;
      if (observer) ANVIL_RETURN_IF_ERROR(observer(*node->output(i), outputs[i]));
      env[node->output(i)] = std::move(outputs[i]);
    }
  }
  std::vector<Tensor> results;
  for (const Value* out : graph.outputs()) {
    const Tensor* t = lookup(out);
    if (t == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("graph output '", out->name(), "' has no value"));
    }
    results.push_back(*t);
  }
  return results;
}

KernelContext::SubgraphRunner InterpreterSubgraphRunner(const Model& model, OuterValues outer,
                                                        ValueObserver observer,
                                                        int64_t max_allocation_bytes) {
  return [&model, outer = std::move(outer), observer = std::move(observer), max_allocation_bytes](
             const Graph& body,
             const std::vector<TensorView>& inputs) -> absl::StatusOr<std::vector<Tensor>> {
    std::vector<Tensor> owned;
    owned.reserve(inputs.size());
    for (const TensorView& v : inputs) owned.push_back(Tensor::CopyOf(v));
    return InterpretGraph(model, body, owned, outer, observer, max_allocation_bytes);
  };
}

}  // namespace anvil
