#include "graph/ir.h"

#include <algorithm>
#include <queue>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"

namespace anvil {
namespace {

void EraseFirst(std::vector<Value*>& list, const Value* v) {
  auto it = std::find(list.begin(), list.end(), v);
  if (it != list.end()) list.erase(it);
}

// Values of `graph` (produced by its nodes) that `node`'s subgraphs capture: implicit inputs.
void CollectCapturedValues(const Node& node, const Graph& graph, absl::flat_hash_set<Value*>* out) {
  for (Graph* sub : node.Subgraphs()) {
    for (Node* inner : sub->nodes()) {
      for (Value* v : inner->inputs()) {
        if (v != nullptr && v->graph() == &graph) out->insert(v);
      }
      CollectCapturedValues(*inner, graph, out);
    }
    for (Value* v : sub->outputs()) {
      if (v != nullptr && v->graph() == &graph) out->insert(v);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Attribute: the members that own or copy subgraphs (attribute.h declares Graph only).

Attribute::Attribute() = default;
Attribute::Attribute(std::string name, AttributeType type) : name_(std::move(name)), type_(type) {}
Attribute::~Attribute() = default;
Attribute::Attribute(Attribute&&) noexcept = default;
Attribute& Attribute::operator=(Attribute&&) noexcept = default;

Attribute Attribute::Clone(Graph* subgraph_parent,
                           const absl::flat_hash_map<const Value*, Value*>& outer_map) const {
  Attribute a(name_, type_);
  a.f = f;
  a.i = i;
  a.s = s;
  a.floats = floats;
  a.ints = ints;
  a.strings = strings;
  a.tensors = tensors;  // Elements are immutable: sharing is a copy.
  a.serialized_protos = serialized_protos;
  a.types = types;
  a.doc_string = doc_string;
  a.ref_attr_name = ref_attr_name;
  for (const auto& g : graphs) {
    a.graphs.push_back(g->Clone(subgraph_parent->model(), subgraph_parent, outer_map));
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// Value

void Value::SetName(std::string name) {
  // The name table's key views name_: drop it before the characters change.
  graph_->ForgetName(this);
  name_ = std::move(name);
  graph_->AddName(this);
}

void Value::set_constant(std::shared_ptr<const Elements> elements) {
  constant_ = std::move(elements);
}

void Value::AddUse(Node* user, int index) {
  if (user->input_use_pos_.size() < user->inputs_.size()) {
    user->input_use_pos_.resize(user->inputs_.size(), -1);
  }
  user->input_use_pos_[index] = static_cast<int32_t>(uses_.size());
  uses_.push_back({user, index});
}

void Value::RemoveUse(Node* user, int index) {
  const int32_t pos =
      index < static_cast<int>(user->input_use_pos_.size()) ? user->input_use_pos_[index] : -1;
  if (pos < 0 || pos >= static_cast<int32_t>(uses_.size()) || !(uses_[pos] == Use{user, index})) {
    return;
  }
  const Use last = uses_.back();
  uses_[pos] = last;
  last.user->input_use_pos_[last.input_index] = pos;
  uses_.pop_back();
  user->input_use_pos_[index] = -1;
}

void Value::ReplaceAllUsesWith(Value* other) {
  if (other == this) return;
  std::vector<Use> uses = std::move(uses_);
  uses_.clear();
  for (const Use& use : uses) {
    use.user->inputs_[use.input_index] = other;
    other->AddUse(use.user, use.input_index);
  }
  if (output_refs_ > 0) {
    graph_->model()->graph().ForEachGraph([&](Graph& g) {
      for (size_t i = 0; i < g.outputs_.size(); ++i) {
        if (g.outputs_[i] == this) g.SetOutput(static_cast<int>(i), other);
      }
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Node

void Node::SetInput(int i, Value* v) {
  if (inputs_[i] == v) return;
  if (inputs_[i] != nullptr) inputs_[i]->RemoveUse(this, i);
  inputs_[i] = v;
  if (v != nullptr) v->AddUse(this, i);
}

void Node::AddInput(Value* v) {
  inputs_.push_back(v);
  if (v != nullptr) v->AddUse(this, static_cast<int>(inputs_.size()) - 1);
}

void Node::TruncateInputs(int count) {
  for (int i = static_cast<int>(inputs_.size()) - 1; i >= count; --i) {
    if (inputs_[i] != nullptr) inputs_[i]->RemoveUse(this, i);
  }
  if (count < static_cast<int>(inputs_.size())) {
    inputs_.resize(count);
    input_use_pos_.resize(count);
  }
}

Value* Node::AddOutput(std::string name) {
  if (name.empty()) {
    outputs_.push_back(nullptr);
    return nullptr;
  }
  Value* v = graph_->NewValue(std::move(name));
  v->producer_ = this;
  v->producer_output_ = static_cast<int>(outputs_.size());
  outputs_.push_back(v);
  return v;
}

const Attribute* Node::FindAttribute(std::string_view name) const {
  for (const Attribute& a : attributes_) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

Attribute* Node::FindAttribute(std::string_view name) {
  for (Attribute& a : attributes_) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

void Node::SetAttribute(Attribute attr) {
  for (auto& g : attr.graphs) g->set_owner_node(this);
  if (Attribute* existing = FindAttribute(attr.name())) {
    *existing = std::move(attr);
  } else {
    attributes_.push_back(std::move(attr));
  }
}

bool Node::RemoveAttribute(std::string_view name) {
  auto it = std::find_if(attributes_.begin(), attributes_.end(),
                         [&](const Attribute& a) { return a.name() == name; });
  if (it == attributes_.end()) return false;
  attributes_.erase(it);
  return true;
}

int64_t Node::GetInt(std::string_view name, int64_t default_value) const {
  const Attribute* a = FindAttribute(name);
  return a != nullptr && a->type() == AttributeType::kInt ? a->i : default_value;
}

float Node::GetFloat(std::string_view name, float default_value) const {
  const Attribute* a = FindAttribute(name);
  return a != nullptr && a->type() == AttributeType::kFloat ? a->f : default_value;
}

std::string Node::GetString(std::string_view name, std::string_view default_value) const {
  const Attribute* a = FindAttribute(name);
  return a != nullptr && a->type() == AttributeType::kString ? a->s : std::string(default_value);
}

std::vector<int64_t> Node::GetInts(std::string_view name) const {
  const Attribute* a = FindAttribute(name);
  return a != nullptr && a->type() == AttributeType::kInts ? a->ints : std::vector<int64_t>{};
}

std::vector<Graph*> Node::Subgraphs() const {
  std::vector<Graph*> result;
  for (const Attribute& a : attributes_) {
    for (const auto& g : a.graphs) result.push_back(g.get());
  }
  return result;
}

std::string Node::Describe() const {
  // Names come from the model: quoted printable and bounded (base/excerpt.h).
  const std::string op = domain_.empty()
                             ? Printable(op_type_)
                             : absl::StrCat(Printable(domain_), ".", Printable(op_type_));
  if (!name_.empty()) return absl::StrCat("node ", Quoted(name_), " (", op, ")");
  const int64_t index = graph_->NodeIndex(this);
  std::string first_output;
  for (Value* v : outputs_) {
    if (v != nullptr) {
      first_output = absl::StrCat(", output ", Quoted(v->name()));
      break;
    }
  }
  return absl::StrCat("node #", index, " (", op, first_output, ")");
}

// ---------------------------------------------------------------------------------------------
// Graph

Graph::Graph(Model* model, Graph* parent) : model_(model), parent_(parent) {}

Graph::~Graph() {
  // Nodes go first, while values still exist; a subgraph's nodes drop the uses they hold on
  // values of enclosing graphs, which outlive it.
  for (auto& node : nodes_) {
    for (int i = 0; i < node->num_inputs(); ++i) {
      Value* v = node->inputs_[i];
      if (v != nullptr && v->graph_ != this) v->RemoveUse(node.get(), i);
    }
  }
  for (Value* v : outputs_) {
    if (v != nullptr && v->graph_ != this) --v->output_refs_;
  }
  // This graph's values die with it: forget their uses first, so that subgraphs destroyed with
  // the nodes below find nothing to unlink (their use lists would point at freed nodes).
  for (const auto& v : values_) v->uses_.clear();
  nodes_.clear();
  for (const auto& v : values_) ForgetName(v.get());
}

Value* Graph::NewValue(std::string name) {
  values_.push_back(
      std::unique_ptr<Value>(new Value(this, std::move(name), model_->next_value_id_++)));
  Value* v = values_.back().get();
  v->self_ = std::prev(values_.end());
  if (!v->name_.empty()) {
    values_by_name_.emplace(absl::string_view(v->name_), v);
    CountName(v->name_, +1);
  }
  return v;
}

void Graph::CountName(const std::string& name, int delta) {
  // The model's own graph answers NameInUse itself; only subgraph names need counting.
  if (parent_ == nullptr || name.empty()) return;
  auto& counts = model_->subgraph_name_counts_;
  if (delta > 0) {
    ++counts[name];
  } else if (auto it = counts.find(name); it != counts.end() && --it->second == 0) {
    counts.erase(it);
  }
}

void Graph::AddName(Value* v) {
  if (v->name_.empty()) return;
  // Re-key rather than overwrite: a key must view the characters of the value it maps to.
  values_by_name_.erase(absl::string_view(v->name_));
  values_by_name_.emplace(absl::string_view(v->name_), v);
  CountName(v->name_, +1);
}

void Graph::ForgetName(const Value* v) {
  if (v->name_.empty()) return;
  auto it = values_by_name_.find(absl::string_view(v->name_));
  if (it != values_by_name_.end() && it->second == v) values_by_name_.erase(it);
  CountName(v->name_, -1);
}

Value* Graph::FindValue(std::string_view name) const {
  auto it = values_by_name_.find(AsAbsl(name));
  return it == values_by_name_.end() ? nullptr : it->second;
}

Value* Graph::LookupInScope(std::string_view name) const {
  for (const Graph* g = this; g != nullptr; g = g->parent_) {
    if (Value* v = g->FindValue(name)) return v;
  }
  return nullptr;
}

std::string Graph::UniqueName(std::string_view hint) const {
  std::string base(hint.empty() ? "v" : hint);
  auto taken = [&](const std::string& name) {
    return LookupInScope(name) != nullptr || model_->NameInUse(name);
  };
  if (!taken(base)) return base;
  for (int64_t k = 1;; ++k) {
    std::string candidate = absl::StrCat(base, "_", k);
    if (!taken(candidate)) return candidate;
  }
}

Value* Graph::AddInput(std::string name, Type type) {
  Value* v = NewValue(std::move(name));
  v->type_ = std::move(type);
  v->is_graph_input_ = true;
  inputs_.push_back(v);
  return v;
}

void Graph::AddOutput(Value* v) {
  outputs_.push_back(v);
  if (v != nullptr) ++v->output_refs_;
}

void Graph::SetOutput(int i, Value* v) {
  if (outputs_[i] == v) return;
  if (outputs_[i] != nullptr) --outputs_[i]->output_refs_;
  outputs_[i] = v;
  if (v != nullptr) ++v->output_refs_;
}

void Graph::RemoveOutput(int i) {
  if (outputs_[i] != nullptr) --outputs_[i]->output_refs_;
  outputs_.erase(outputs_.begin() + i);
}

Value* Graph::AddInitializer(std::string name, std::shared_ptr<const Elements> elements) {
  Value* v = NewValue(std::move(name));
  std::vector<Dim> dims;
  for (int64_t d : elements->dims()) dims.push_back(Dim::Literal(d));
  v->type_ = Type::Tensor(elements->element_type(), std::move(dims));
  v->constant_ = std::move(elements);
  Append(initializers_, v, &Value::initializer_pos_);
  return v;
}

void Graph::MakeInitializer(Value* input, std::shared_ptr<const Elements> elements) {
  input->constant_ = std::move(elements);
  Append(initializers_, input, &Value::initializer_pos_);
}

void Graph::AddValueInfo(Value* v) {
  if (v->in_value_info_) return;
  v->in_value_info_ = true;
  Append(value_info_, v, &Value::value_info_pos_);
}

void Graph::RemoveValueInfo(Value* v) {
  if (!v->in_value_info_) return;
  v->in_value_info_ = false;
  Remove(value_info_, value_info_holes_, v, &Value::value_info_pos_);
}

const std::vector<Value*>& Graph::Compacted(std::vector<Value*>& list, int64_t& holes,
                                            int32_t Value::*pos) {
  if (holes == 0) return list;
  size_t out = 0;
  for (Value* v : list) {
    if (v == nullptr) continue;
    v->*pos = static_cast<int32_t>(out);
    list[out++] = v;
  }
  list.resize(out);
  holes = 0;
  return list;
}

void Graph::Append(std::vector<Value*>& list, Value* v, int32_t Value::*pos) {
  v->*pos = static_cast<int32_t>(list.size());
  list.push_back(v);
}

void Graph::Remove(std::vector<Value*>& list, int64_t& holes, Value* v, int32_t Value::*pos) {
  const int32_t at = v->*pos;
  if (at < 0 || at >= static_cast<int32_t>(list.size()) || list[at] != v) return;
  list[at] = nullptr;
  v->*pos = -1;
  ++holes;
}

void Graph::EraseValue(Value* v) {
  if (v->is_graph_input_) EraseFirst(inputs_, v);
  if (v->constant_ != nullptr) {
    Remove(initializers_, initializer_holes_, v, &Value::initializer_pos_);
  }
  RemoveValueInfo(v);
  if (v->producer_ != nullptr) v->producer_->outputs_[v->producer_output_] = nullptr;
  ForgetName(v);
  values_.erase(v->self_);
}

Graph::NodeRange Graph::nodes() const { return NodeRange(&nodes_); }

std::vector<Node*> Graph::NodesSnapshot() const {
  std::vector<Node*> result;
  result.reserve(nodes_.size());
  for (const auto& n : nodes_) result.push_back(n.get());
  return result;
}

Node* Graph::AddNode(std::string op_type, std::string domain) {
  return InsertNodeBefore(nullptr, std::move(op_type), std::move(domain));
}

Node* Graph::InsertNodeBefore(Node* before, std::string op_type, std::string domain) {
  auto pos = before == nullptr ? nodes_.end() : before->self_;
  auto it = nodes_.insert(
      pos, std::unique_ptr<Node>(new Node(this, std::move(op_type), std::move(domain))));
  (*it)->self_ = it;
  const bool index_valid = node_index_version_ == node_order_version_ && !node_index_.empty();
  ++node_order_version_;
  if (index_valid && before == nullptr) {  // appending keeps every other position
    node_index_[it->get()] = static_cast<int64_t>(nodes_.size()) - 1;
    node_index_version_ = node_order_version_;
  }
  return it->get();
}

void Graph::MoveNodeBefore(Node* node, Node* before) {
  auto pos = before == nullptr ? nodes_.end() : before->self_;
  nodes_.splice(pos, nodes_, node->self_);
  ++node_order_version_;
}

void Graph::EraseNode(Node* node) {
  for (int i = 0; i < node->num_inputs(); ++i) {
    if (node->inputs_[i] != nullptr) node->inputs_[i]->RemoveUse(node, i);
  }
  node->inputs_.clear();
  node->input_use_pos_.clear();
  for (Value* v : node->outputs_) {
    if (v == nullptr) continue;
    v->producer_ = nullptr;
    RemoveValueInfo(v);
    ForgetName(v);
    values_.erase(v->self_);
  }
  node->outputs_.clear();
  nodes_.erase(node->self_);
  ++node_order_version_;
}

int64_t Graph::NodeIndex(const Node* node) const {
  // Positions are recomputed once per change of the node order, so that describing every node
  // (errors, remarks) stays linear.
  if (node_index_version_ != node_order_version_ || node_index_.empty()) {
    node_index_.clear();
    int64_t i = 0;
    for (const auto& n : nodes_) node_index_[n.get()] = i++;
    node_index_version_ = node_order_version_;
  }
  auto it = node_index_.find(node);
  return it == node_index_.end() ? -1 : it->second;
}

Node* Graph::CloneNode(const Node& node, absl::flat_hash_map<const Value*, Value*>* value_map) {
  Node* copy = AddNode(node.op_type(), node.domain());
  copy->name_ = node.name_;
  copy->doc_string_ = node.doc_string_;
  for (Value* in : node.inputs()) {
    auto it = in == nullptr ? value_map->end() : value_map->find(in);
    copy->AddInput(it == value_map->end() ? in : it->second);
  }
  for (Value* out : node.outputs()) {
    if (out == nullptr) {
      copy->AddOutput("");
      continue;
    }
    Value* v = copy->AddOutput(UniqueName(out->name()));
    v->type_ = out->type_;
    v->doc_string_ = out->doc_string_;
    (*value_map)[out] = v;
  }
  for (const Attribute& a : node.attributes()) {
    Attribute clone = a.Clone(this, *value_map);
    for (auto& g : clone.graphs) g->set_owner_node(copy);
    copy->attributes_.push_back(std::move(clone));
  }
  return copy;
}

bool Graph::TopologicalSort(std::string* cycle_node) {
  std::vector<Node*> order = NodesSnapshot();
  absl::flat_hash_map<const Node*, int> position;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) position[order[i]] = i;

  // Dependencies among this graph's nodes, captured values included.
  std::vector<int> pending(order.size(), 0);
  std::vector<std::vector<int>> dependents(order.size());
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    absl::flat_hash_set<Value*> deps(order[i]->inputs().begin(), order[i]->inputs().end());
    CollectCapturedValues(*order[i], *this, &deps);
    absl::flat_hash_set<int> producers;
    for (Value* v : deps) {
      if (v == nullptr || v->graph() != this || v->producer() == nullptr) continue;
      producers.insert(position[v->producer()]);
    }
    for (int p : producers) {
      ++pending[i];
      dependents[p].push_back(i);
    }
  }
  // Kahn's algorithm, always taking the earliest ready node: a valid order is kept as is.
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<int> sorted;
  sorted.reserve(order.size());
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    sorted.push_back(i);
    for (int d : dependents[i]) {
      if (--pending[d] == 0) ready.push(d);
    }
  }
  if (sorted.size() != order.size()) {
    if (cycle_node != nullptr) {
      // An unscheduled node may only sit downstream of a cycle. Walk from it to unscheduled
      // producers until a node repeats: that node is on the cycle.
      int current = 0;
      while (pending[current] == 0) ++current;
      std::vector<bool> seen(order.size(), false);
      while (!seen[current]) {
        seen[current] = true;
        absl::flat_hash_set<Value*> deps(order[current]->inputs().begin(),
                                         order[current]->inputs().end());
        CollectCapturedValues(*order[current], *this, &deps);
        for (Value* v : deps) {
          if (v == nullptr || v->graph() != this || v->producer() == nullptr) continue;
          const int p = position[v->producer()];
          if (pending[p] > 0) {
            current = p;
            break;
          }
        }
      }
      *cycle_node = order[current]->Describe();
    }
    return false;
  }
  for (int i : sorted) MoveNodeBefore(order[i], nullptr);
  return true;
}

void Graph::ForEachGraph(const std::function<void(Graph&)>& fn) {
  fn(*this);
  for (auto& node : nodes_) {
    for (Graph* g : node->Subgraphs()) g->ForEachGraph(fn);
  }
}

std::unique_ptr<Graph> Graph::Clone(
    Model* new_model, Graph* new_parent,
    const absl::flat_hash_map<const Value*, Value*>& outer_map) const {
  auto copy = std::make_unique<Graph>(new_model, new_parent);
  copy->name_ = name_;
  copy->doc_string_ = doc_string_;
  copy->opaque_ = opaque_;
  absl::flat_hash_map<const Value*, Value*> map = outer_map;
  auto copy_value_fields = [](const Value& from, Value* to) {
    to->type_ = from.type_;
    to->doc_string_ = from.doc_string_;
    to->initializer_doc_string_ = from.initializer_doc_string_;
  };
  for (Value* in : inputs_) {
    Value* v = copy->AddInput(copy->UniqueName(in->name()), in->type_);
    copy_value_fields(*in, v);
    map[in] = v;
  }
  for (Value* init : initializers()) {
    if (init->is_graph_input_) {
      copy->MakeInitializer(map[init], init->constant_);
      continue;
    }
    Value* v = copy->AddInitializer(copy->UniqueName(init->name()), init->constant_);
    copy_value_fields(*init, v);
    map[init] = v;
  }
  for (const auto& node : nodes_) copy->CloneNode(*node, &map);
  for (Value* v : value_info()) {
    auto it = map.find(v);
    if (it != map.end()) copy->AddValueInfo(it->second);
  }
  for (Value* out : outputs_) {
    auto it = out == nullptr ? map.end() : map.find(out);
    copy->AddOutput(it == map.end() ? out : it->second);
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Model

Model::Model() : graph_(std::make_unique<Graph>(this, nullptr)) {}
Model::~Model() = default;

int64_t Model::OpsetVersion(std::string_view domain) const {
  const bool is_default = domain.empty() || domain == "ai.onnx";
  for (const OpsetImport& op : opset_imports) {
    const bool op_default = op.domain.empty() || op.domain == "ai.onnx";
    if (is_default ? op_default : op.domain == domain) return op.version;
  }
  return -1;
}

bool Model::NameInUse(std::string_view name) const {
  return (graph_ != nullptr && graph_->FindValue(name) != nullptr) ||
         subgraph_name_counts_.contains(AsAbsl(name));
}

std::unique_ptr<Model> Model::Clone() const {
  auto copy = std::make_unique<Model>();
  copy->ir_version = ir_version;
  copy->opset_imports = opset_imports;
  copy->producer_name = producer_name;
  copy->producer_version = producer_version;
  copy->domain = domain;
  copy->model_version = model_version;
  copy->doc_string = doc_string;
  copy->metadata_props = metadata_props;
  copy->opaque = opaque;
  copy->graph_ = graph_->Clone(copy.get(), nullptr, {});
  return copy;
}

}  // namespace anvil
