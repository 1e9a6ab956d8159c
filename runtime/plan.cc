#include "runtime/plan.h"

#include <algorithm>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "graph/op_table.h"

namespace anvil {
namespace {

// Values of `graph` read from inside `sub` (at any depth): what a node owning `sub` reads
// besides its inputs.
void CollectCaptured(const Graph& sub, const Graph& graph, absl::flat_hash_set<const Value*>& out) {
  for (const Node* node : sub.nodes()) {
    for (const Value* in : node->inputs()) {
      if (in != nullptr && in->graph() == &graph) out.insert(in);
    }
    for (const Graph* nested : node->Subgraphs()) CollectCaptured(*nested, graph, out);
  }
  for (const Value* v : sub.outputs()) {
    if (v->graph() == &graph) out.insert(v);
  }
}

}  // namespace

ReuseKind ReuseKindOf(const Node& node) {
  // The op table's traits: views alias input 0; pure elementwise maps may overwrite it.
  if (HasTrait(node, kAlias)) return ReuseKind::kAlias;
  if (HasTrait(node, kInPlace)) return ReuseKind::kInPlace;
  return ReuseKind::kNone;
}

absl::StatusOr<std::unique_ptr<GraphPlan>> GraphPlan::Build(const Model& model,
                                                            const Graph& graph) {
  std::unique_ptr<GraphPlan> plan(new GraphPlan());
  if (absl::Status s = plan->Init(model, graph); !s.ok()) return s;
  return plan;
}

int GraphPlan::AddSlot(const Value* v, SlotKind kind) {
  const int index = static_cast<int>(slots_.size());
  slots_.push_back(Slot{});
  slots_.back().value = v;
  slots_.back().kind = kind;
  slot_of_[v] = index;
  return index;
}

int64_t GraphPlan::TotalSteps() const {
  int64_t n = static_cast<int64_t>(steps_.size());
  for (const auto& [g, sub] : subplans_) n += sub->TotalSteps();
  return n;
}

absl::Status GraphPlan::Init(const Model& model, const Graph& graph) {
  graph_ = &graph;
  // Constants: a view of the initializer's bytes when they are dense in memory (no copy).
  auto set_constant = [](Slot& slot, const Elements& elements) {
    if (const uint8_t* data = elements.ContiguousData()) {
      slot.constant_view =
          TensorView::Dense(elements.element_type(), const_cast<uint8_t*>(data), elements.dims());
    } else {
      slot.constant = Tensor::FromElements(elements);
      slot.constant_view = slot.constant.view();
    }
  };
  for (const Value* in : graph.inputs()) {
    const int slot = AddSlot(in, SlotKind::kInput);
    input_slots_.push_back(slot);
    // An input that is also an initializer: the initializer is its default.
    if (in->IsInitializer()) set_constant(slots_[slot], *in->constant());
  }
  for (const Value* init : graph.initializers()) {
    if (slot_of_.contains(init)) continue;
    const int slot = AddSlot(init, SlotKind::kConstant);
    set_constant(slots_[slot], *init->constant());
  }

  auto resolve = [&](const Node& node, const Value* v) -> absl::StatusOr<int> {
    if (int slot = SlotOf(v); slot >= 0) return slot;
    if (v->graph() != &graph) return AddSlot(v, SlotKind::kCaptured);
    return absl::FailedPreconditionError(
        absl::StrCat(node.Describe(), ": input '", v->name(), "' is used before it is defined"));
  };

  for (const Node* node : graph.nodes()) {
    const int64_t opset = model.OpsetVersion(node->domain());
    std::vector<int> inputs(node->num_inputs(), -1);
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input(i) == nullptr) continue;
      absl::StatusOr<int> slot = resolve(*node, node->input(i));
      if (!slot.ok()) return slot.status();
      inputs[i] = *slot;
    }
    // A Constant node is computed now, once: its output is a constant like an initializer, so
    // its values also reach shape computations before anything runs.
    if (node->op_type() == "Constant" && node->domain().empty() && node->num_inputs() == 0) {
      absl::StatusOr<std::vector<Tensor>> value = RunNode(*node, opset, {});
      if (!value.ok()) return value.status();
      for (int i = 0; i < node->num_outputs(); ++i) {
        if (node->output(i) == nullptr) continue;
        const int slot = AddSlot(node->output(i), SlotKind::kConstant);
        slots_[slot].constant = (*value)[i];
        slots_[slot].constant_view = slots_[slot].constant.view();
      }
      continue;
    }

    Step step;
    step.node = node;
    step.opset = opset;
    step.inputs = std::move(inputs);
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(*node, opset);
    if (!kernel.ok()) return kernel.status();
    step.kernel = *std::move(kernel);
    const std::vector<Graph*> subgraphs = node->Subgraphs();
    if (subgraphs.empty()) {
      ANVIL_ASSIGN_OR_RETURN(step.shape_fn, ShapeFnFor(*node, opset));
    }
    absl::flat_hash_set<const Value*> captured;
    for (const Graph* sub : subgraphs) {
      absl::StatusOr<std::unique_ptr<GraphPlan>> subplan = Build(model, *sub);
      if (!subplan.ok()) return subplan.status();
      subplans_[sub] = *std::move(subplan);
      CollectCaptured(*sub, graph, captured);
    }
    for (const Value* v : captured) {
      absl::StatusOr<int> slot = resolve(*node, v);
      if (!slot.ok()) return slot.status();
      step.captured.push_back(*slot);
    }
    std::sort(step.captured.begin(), step.captured.end());
    const int index = static_cast<int>(steps_.size());
    step.outputs.assign(node->num_outputs(), -1);
    for (int i = 0; i < node->num_outputs(); ++i) {
      if (node->output(i) == nullptr) continue;
      const int slot = AddSlot(node->output(i), SlotKind::kComputed);
      slots_[slot].producer = index;
      step.outputs[i] = slot;
    }
    step.reuse = ReuseKindOf(*node);
    steps_.push_back(std::move(step));
  }

  for (const Value* out : graph.outputs()) {
    int slot = SlotOf(out);
    if (slot < 0) {
      if (out->graph() == &graph) {
        return absl::FailedPreconditionError(
            absl::StrCat("graph output '", out->name(), "' is never defined"));
      }
      slot = AddSlot(out, SlotKind::kCaptured);
    }
    slots_[slot].graph_output = true;
    output_slots_.push_back(slot);
  }

  // Liveness: the last step reading each slot, directly or through a subgraph.
  for (int s = 0; s < static_cast<int>(steps_.size()); ++s) {
    for (int slot : steps_[s].inputs) {
      if (slot >= 0) slots_[slot].last_use = s;
    }
    for (int slot : steps_[s].captured) slots_[slot].last_use = s;
  }
  for (int slot = 0; slot < num_slots(); ++slot) {
    if (slots_[slot].last_use >= 0 && !slots_[slot].graph_output) {
      steps_[slots_[slot].last_use].dying.push_back(slot);
    }
  }
  return absl::OkStatus();
}

}  // namespace anvil
