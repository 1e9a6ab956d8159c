#include "runtime/plan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "graph/elements.h"
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

absl::StatusOr<std::unique_ptr<GraphPlan>> GraphPlan::Build(const Model& model, const Graph& graph,
                                                            bool release_copied_constants) {
  std::unique_ptr<GraphPlan> plan(new GraphPlan());
  plan->release_copied_constants_ = release_copied_constants;
  ANVIL_RETURN_IF_ERROR(plan->Init(model, graph));
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

namespace {

// An initializer whose bytes a kernel's own copy replaced (Build with release_copied_constants):
// its type and dims stay; reading its values is a programming error.
class ReleasedElements final : public Elements {
 public:
  ReleasedElements(std::string name, ElementType type, absl::Span<const int64_t> dims)
      : name_(std::move(name)), type_(type), dims_(dims.begin(), dims.end()) {}
  ElementType element_type() const override { return type_; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  void CopyTo(uint8_t*) const override {
    std::fprintf(stderr,
                 "anvil: initializer '%s' was released after its kernel packed its own copy "
                 "(SessionOptions::release_packed_weights); its values cannot be read\n",
                 name_.c_str());
    std::abort();
  }

 private:
  std::string name_;
  ElementType type_;
  std::vector<int64_t> dims_;
};

}  // namespace

GraphPlan::ConstantBytes GraphPlan::constant_bytes() const {
  ConstantBytes bytes;
  for (const Slot& s : slots_) {
    if (s.kind != SlotKind::kConstant && s.kind != SlotKind::kInput) continue;
    if (s.constant_view.data == nullptr) continue;  // released, or an input with no default
    const int64_t size =
        s.constant_view.NumElements() * static_cast<int64_t>(ElementSize(s.constant_view.type));
    const Elements* e = s.value->IsInitializer() ? s.value->constant().get() : nullptr;
    if (s.constant.data() == nullptr && e != nullptr && e->FileBacked()) {
      bytes.mapped += size;
    } else {
      bytes.in_memory += size;
    }
  }
  for (const Step& step : steps_) {
    if (step.kernel != nullptr) bytes.kernel_copies += step.kernel->OwnedBytes();
  }
  for (const auto& [graph, plan] : subplans_) {
    const ConstantBytes sub = plan->constant_bytes();
    bytes.mapped += sub.mapped;
    bytes.in_memory += sub.in_memory;
    bytes.kernel_copies += sub.kernel_copies;
  }
  return bytes;
}

void GraphPlan::ReleaseConstant(int slot) {
  Slot& s = slots_[slot];
  Value* v = const_cast<Value*>(s.value);  // the caller's model, which Build may change
  released_bytes_ += static_cast<int64_t>(v->constant()->ByteSize());
  v->set_constant(
      std::make_shared<ReleasedElements>(v->name(), s.constant_view.type, s.constant_view.dims));
  s.constant = Tensor();
  s.constant_view.data = nullptr;
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
  // Initializers whose readers may all keep their own copies: read only by nodes of this graph
  // (not by a subgraph, not as a graph output). Each is released as soon as the last of its
  // readers' kernels exists, so that at no point do all weights exist twice.
  absl::flat_hash_map<int, int> pending_readers;
  if (release_copied_constants_) {
    for (const Value* init : graph.initializers()) {
      const int slot = SlotOf(init);
      if (slots_[slot].kind != SlotKind::kConstant || init->IsGraphOutput() ||
          init->IsGraphInput() || init->uses().empty()) {
        continue;
      }
      bool local = true;
      for (const Use& use : init->uses()) local = local && use.user->graph() == &graph;
      if (local) pending_readers[slot] = static_cast<int>(init->uses().size());
    }
  }

  auto resolve = [&](const Node& node, const Value* v) -> absl::StatusOr<int> {
    if (int slot = SlotOf(v); slot >= 0) return slot;
    if (v->graph() != &graph) return AddSlot(v, SlotKind::kCaptured);
    return absl::FailedPreconditionError(absl::StrCat(
        node.Describe(), ": input ", Quoted(v->name()), " is used before it is defined"));
  };

  for (const Node* node : graph.nodes()) {
    const int64_t opset = model.OpsetVersion(node->domain());
    std::vector<int> inputs(node->num_inputs(), -1);
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input(i) == nullptr) continue;
      ANVIL_ASSIGN_OR_RETURN(inputs[i], resolve(*node, node->input(i)));
    }
    // A Constant node is computed now, once: its output is a constant like an initializer, so
    // its values also reach shape computations before anything runs.
    if (node->op_type() == "Constant" && node->domain().empty() && node->num_inputs() == 0) {
      ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> value, RunNode(*node, opset, {}));
      for (int i = 0; i < node->num_outputs(); ++i) {
        if (node->output(i) == nullptr) continue;
        const int slot = AddSlot(node->output(i), SlotKind::kConstant);
        slots_[slot].constant = value[i];
        slots_[slot].constant_view = slots_[slot].constant.view();
      }
      continue;
    }

    Step step;
    step.node = node;
    step.opset = opset;
    step.inputs = std::move(inputs);
    ANVIL_ASSIGN_OR_RETURN(step.kernel, CreateKernel(*node, opset));
    for (int i = 0; i < static_cast<int>(step.inputs.size()); ++i) {
      auto it = pending_readers.find(step.inputs[i]);
      if (it == pending_readers.end()) continue;
      if (!step.kernel->KeepsOwnCopyOf(i)) {
        pending_readers.erase(it);  // this reader needs the bytes
      } else if (--it->second == 0) {
        ReleaseConstant(it->first);
        pending_readers.erase(it);
      }
    }
    const std::vector<Graph*> subgraphs = node->Subgraphs();
    if (subgraphs.empty()) {
      ANVIL_ASSIGN_OR_RETURN(step.shape_fn, ShapeFnFor(*node, opset));
    }
    absl::flat_hash_set<const Value*> captured;
    for (const Graph* sub : subgraphs) {
      ANVIL_ASSIGN_OR_RETURN(subplans_[sub], Build(model, *sub));
      CollectCaptured(*sub, graph, captured);
    }
    for (const Value* v : captured) {
      ANVIL_ASSIGN_OR_RETURN(int slot, resolve(*node, v));
      step.captured.push_back(slot);
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
            absl::StrCat("graph output ", Quoted(out->name()), " is never defined"));
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
