#include "graph/passes/match.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "graph/attribute.h"
#include "graph/elements.h"

namespace anvil::match {

bool Is(const Node* node, std::string_view op_type) {
  return node != nullptr && node->op_type() == op_type && node->domain().empty();
}

const Elements* RunConstant(const Value* v) {
  if (v == nullptr || !v->IsInitializer() || v->IsGraphInput()) return nullptr;
  return v->constant().get();
}

bool OneElement(const Value* v) {
  if (v == nullptr) return false;
  const Type& t = v->type();
  if (!t.is_tensor() || t.rank() < 0) return false;
  for (const Dim& d : t.shape()) {
    if (!d.is_literal() || *d.value != 1) return false;
  }
  return true;
}

bool FloatTensor(const Value* v) {
  const ElementType t = v->type().is_tensor() ? v->type().element_type() : ElementType::kUndefined;
  return t == ElementType::kFloat || t == ElementType::kDouble || t == ElementType::kFloat16;
}

std::optional<double> Scalar(const Value* v) {
  if (v == nullptr) return std::nullopt;
  const Elements* e = nullptr;
  if (v->IsInitializer()) {
    if (v->IsGraphInput()) return std::nullopt;
    e = v->constant().get();
  } else if (const Node* p = v->producer(); Is(p, "Constant")) {
    const Attribute* a = p->FindAttribute("value");
    if (a != nullptr && a->type() == AttributeType::kTensor && a->tensors.size() == 1) {
      e = a->tensors[0].elements.get();
    }
  }
  if (e == nullptr || e->NumElements() != 1) return std::nullopt;
  const ElementType t = e->element_type();
  if (t != ElementType::kFloat && t != ElementType::kDouble && t != ElementType::kFloat16) {
    return std::nullopt;
  }
  return e->GetDouble(0);
}

bool IsScalar(const Value* v, double want) {
  const std::optional<double> s = Scalar(v);
  return s.has_value() && std::fabs(*s - want) <= 1e-7 * std::fabs(want);
}

std::optional<int64_t> Rank(const Value* v) {
  if (v == nullptr || !v->type().is_tensor() || !v->type().has_shape()) return std::nullopt;
  return static_cast<int64_t>(v->type().shape().size());
}

bool SameDim(const Dim& a, const Dim& b) {
  return a.is_literal() ? a.value == b.value : a.is_param() && a.param == b.param;
}

bool SameRank(const Value* a, const Value* b) {
  const std::optional<int64_t> rank = Rank(a);
  return rank.has_value() && rank == Rank(b);
}

bool OnlyFeeds(const Value* v, const Node* user) {
  if (v == nullptr || v->IsGraphOutput() || v->uses().empty()) return false;
  for (const auto& use : v->uses()) {
    if (use.user != user) return false;
  }
  return true;
}

bool AllIn(const Graph& graph, const std::vector<Node*>& nodes) {
  for (const Node* n : nodes) {
    if (n == nullptr || n->graph() != &graph) return false;
  }
  return true;
}

bool UseContribOpset(Model& model) {
  constexpr char kContribDomain[] = "com.microsoft";
  const int64_t contrib = model.OpsetVersion(kContribDomain);
  if (contrib != -1 && contrib != 1) return false;
  if (contrib == -1) model.opset_imports.push_back({kContribDomain, 1});
  return true;
}

Node* ReplaceWith(Graph& graph, Node* last, const std::string& op_type, const std::string& domain,
                  const std::vector<Value*>& inputs, std::vector<Attribute> attrs,
                  const std::vector<Node*>& dead, absl::flat_hash_set<const Node*>* erased) {
  Node* node = graph.InsertNodeBefore(last, op_type, domain);
  for (Value* in : inputs) node->AddInput(in);
  for (Attribute& a : attrs) node->SetAttribute(std::move(a));
  node->set_name(last->name());
  Value* y = last->output(0);
  const std::string name = y->name();
  Value* out = node->AddOutput(graph.UniqueName(name + "_fused"));
  out->set_type(y->type());
  y->ReplaceAllUsesWith(out);
  auto erase = [&](Node* d) {
    graph.EraseNode(d);
    erased->insert(d);
  };
  erase(last);
  // Consumers before their producers: erasing a node frees its output values, which a dead
  // consumer erased after it would still read (its inputs' use lists). Each round erases the
  // nodes nothing reads any more; the patterns are a few nodes.
  auto read = [](const Node* d) {
    return std::any_of(d->outputs().begin(), d->outputs().end(),
                       [](const Value* v) { return v != nullptr && v->HasUses(); });
  };
  std::vector<Node*> pending(dead.begin(), dead.end());
  while (!pending.empty()) {
    const auto unread = std::stable_partition(pending.begin(), pending.end(), read);
    if (unread == pending.end()) {  // still read by a live node: a pattern's bug, erased anyway
      for (Node* d : pending) erase(d);
      break;
    }
    for (auto it = unread; it != pending.end(); ++it) erase(*it);
    pending.erase(unread, pending.end());
  }
  out->SetName(name);
  return node;
}

bool IsFloat16Tensor(const Value* v) {
  return v != nullptr && v->type().is_tensor() && v->type().element_type() == ElementType::kFloat16;
}

Value* WidenFloat16(Graph& graph, Value* v, Node* before, bool* cast) {
  Value* out = nullptr;
  if (const Elements* c = RunConstant(v)) {
    std::vector<float> values(c->NumElements());
    for (int64_t i = 0; i < c->NumElements(); ++i) values[i] = static_cast<float>(c->GetDouble(i));
    out = graph.AddInitializer(
        graph.UniqueName(v->name() + "_f32"),
        DenseElements::FromVector(
            ElementType::kFloat, std::vector<int64_t>(c->dims().begin(), c->dims().end()), values));
    if (cast != nullptr) *cast = false;
  } else {
    Node* node = graph.InsertNodeBefore(before, "Cast");
    node->SetAttribute(Attribute::Int("to", static_cast<int64_t>(ElementType::kFloat)));
    node->AddInput(v);
    out = node->AddOutput(graph.UniqueName(v->name() + "_f32"));
    if (cast != nullptr) *cast = true;
  }
  std::vector<Dim> dims = v->type().shape();
  out->set_type(Type::Tensor(ElementType::kFloat, std::move(dims)));
  return out;
}

}  // namespace anvil::match
