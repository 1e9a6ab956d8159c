#include "graph/passes/fuse_activations.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"

namespace anvil {
namespace {

constexpr char kContribDomain[] = "com.microsoft";

bool Is(const Node* node, std::string_view op_type) {
  return node != nullptr && node->op_type() == op_type && node->domain().empty();
}

bool FloatTensor(const Value* v) {
  const ElementType t = v->type().is_tensor() ? v->type().element_type() : ElementType::kUndefined;
  return t == ElementType::kFloat || t == ElementType::kDouble || t == ElementType::kFloat16;
}

// The value of a one-element float or double constant: an initializer that no run can override,
// or a Constant node's `value`.
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
  // Within float rounding: 1/6 is stored as 0.16666667f.
  return s.has_value() && std::fabs(*s - want) <= 1e-7 * std::fabs(want);
}

// `v` is read by `user` alone and is not a graph output: a value the rewrite may remove.
bool OnlyFeeds(const Value* v, const Node* user) {
  return v != nullptr && !v->IsGraphOutput() && v->uses().size() == 1 && v->uses()[0].user == user;
}

// Clip's bounds (inputs from opset 11, attributes before), when they are constants; a missing
// bound is the float range's end, as in Clip-6.
std::optional<std::pair<double, double>> ClipBounds(const Node& clip, int64_t opset) {
  const double lowest = std::numeric_limits<float>::lowest();
  const double highest = std::numeric_limits<float>::max();
  if (opset < 11)
    return std::make_pair(double{clip.GetFloat("min", lowest)},
                          double{clip.GetFloat("max", highest)});
  double bounds[2] = {lowest, highest};
  for (int i = 1; i <= 2; ++i) {
    if (i >= clip.num_inputs() || clip.input(i) == nullptr) continue;
    const std::optional<double> s = Scalar(clip.input(i));
    if (!s) return std::nullopt;
    bounds[i - 1] = *s;
  }
  return std::make_pair(bounds[0], bounds[1]);
}

class Fuser {
 public:
  Fuser(Model& model) : model_(model), opset_(model.OpsetVersion("")) {}

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= HardSwish(graph, node) || HardSigmoid(graph, node) || FusedConv(graph, node);
    }
    return changed;
  }

  int64_t hardsigmoid = 0, hardswish = 0, fused_conv = 0;

 private:
  // `node` divides its input 0 by 6 (Div by 6, or Mul by 1/6 either way round): that input.
  static Value* DividedBySix(const Node* node) {
    if (Is(node, "Div") && node->num_inputs() == 2 && IsScalar(node->input(1), 6.0)) {
      return node->input(0);
    }
    if (Is(node, "Mul") && node->num_inputs() == 2) {
      if (IsScalar(node->input(1), 1.0 / 6.0)) return node->input(0);
      if (IsScalar(node->input(0), 1.0 / 6.0)) return node->input(1);
    }
    return nullptr;
  }

  // `c` is Clip(Add(x, 3), 0, 6) read only by `user`: x, and the Clip and Add in `dead`.
  Value* ClippedShift(const Value* c, const Node* user, std::vector<Node*>* dead) const {
    if (c == nullptr || !OnlyFeeds(c, user)) return nullptr;
    Node* clip = c->producer();
    if (!Is(clip, "Clip") || clip->input(0) == nullptr) return nullptr;
    const std::optional<std::pair<double, double>> bounds = ClipBounds(*clip, opset_);
    if (!bounds || bounds->first != 0.0 || bounds->second != 6.0) return nullptr;
    const Value* a = clip->input(0);
    if (!OnlyFeeds(a, clip)) return nullptr;
    Node* add = a->producer();
    if (!Is(add, "Add") || add->num_inputs() != 2) return nullptr;
    Value* x = IsScalar(add->input(1), 3.0)   ? add->input(0)
               : IsScalar(add->input(0), 3.0) ? add->input(1)
                                              : nullptr;
    if (x == nullptr || !FloatTensor(x)) return nullptr;
    dead->push_back(clip);
    dead->push_back(add);
    return x;
  }

  // The HardSigmoid<1/6, 0.5> of some x at `h` (a HardSigmoid node or the spelled-out chain),
  // read only by `user`: x, with the nodes computing it in `dead`.
  Value* HardSigmoidOf(const Value* h, const Node* user, std::vector<Node*>* dead) const {
    if (h == nullptr || !OnlyFeeds(h, user)) return nullptr;
    Node* p = h->producer();
    if (Is(p, "HardSigmoid") && p->num_inputs() == 1 &&
        std::fabs(p->GetFloat("alpha", 0.2f) - 1.0f / 6.0f) <= 1e-7f &&
        p->GetFloat("beta", 0.5f) == 0.5f) {
      dead->push_back(p);
      return p->input(0);
    }
    Value* c = DividedBySix(p);
    if (c == nullptr) return nullptr;
    std::vector<Node*> inner;
    Value* x = ClippedShift(c, p, &inner);
    if (x == nullptr) return nullptr;
    dead->push_back(p);
    dead->insert(dead->end(), inner.begin(), inner.end());
    return x;
  }

  // Div(Mul(x, Clip(Add(x, 3), 0, 6)), 6) or Mul(x, HardSigmoid<1/6, 0.5>(x)).
  bool HardSwish(Graph& graph, Node* node) {
    if (opset_ < 14) return false;
    std::vector<Node*> dead;
    Value* x = nullptr;
    if (Value* m = DividedBySix(node); m != nullptr && OnlyFeeds(m, node)) {
      Node* mul = m->producer();
      if (Is(mul, "Mul") && mul->num_inputs() == 2) {
        for (int i : {0, 1}) {
          std::vector<Node*> inner;
          Value* s = ClippedShift(mul->input(1 - i), mul, &inner);
          if (s != nullptr && s == mul->input(i)) {
            x = s;
            dead = {mul};
            dead.insert(dead.end(), inner.begin(), inner.end());
            break;
          }
        }
      }
    } else if (Is(node, "Mul") && node->num_inputs() == 2) {
      for (int i : {0, 1}) {
        std::vector<Node*> inner;
        Value* s = HardSigmoidOf(node->input(1 - i), node, &inner);
        if (s != nullptr && s == node->input(i)) {
          x = s;
          dead = std::move(inner);
          break;
        }
      }
    }
    if (x == nullptr) return false;
    Replace(graph, node, "HardSwish", "", {x}, {}, dead);
    ++hardswish;
    return true;
  }

  // Div(Clip(Add(x, 3), 0, 6), 6) -> HardSigmoid<alpha = 1/6, beta = 0.5>(x).
  bool HardSigmoid(Graph& graph, Node* node) {
    Value* c = DividedBySix(node);
    if (c == nullptr) return false;
    std::vector<Node*> dead;
    Value* x = ClippedShift(c, node, &dead);
    if (x == nullptr) return false;
    std::vector<Attribute> attrs;
    attrs.push_back(Attribute::Float("alpha", 1.0f / 6.0f));
    attrs.push_back(Attribute::Float("beta", 0.5f));
    Replace(graph, node, "HardSigmoid", "", {x}, std::move(attrs), dead);
    ++hardsigmoid;
    return true;
  }

  // Conv -> activation: one com.microsoft FusedConv.
  bool FusedConv(Graph& graph, Node* act) {
    const int64_t contrib = model_.OpsetVersion(kContribDomain);
    if (contrib != -1 && contrib != 1) return false;
    if (act->domain() != "" || act->num_inputs() < 1 || act->num_outputs() != 1) return false;
    const std::string& op = act->op_type();
    std::vector<float> params;
    if (op == "LeakyRelu") {
      params = {act->GetFloat("alpha", 0.01f)};
    } else if (op == "HardSigmoid") {
      params = {act->GetFloat("alpha", 0.2f), act->GetFloat("beta", 0.5f)};
    } else if (op == "Clip") {
      const std::optional<std::pair<double, double>> bounds = ClipBounds(*act, opset_);
      if (!bounds) return false;
      params = {static_cast<float>(bounds->first), static_cast<float>(bounds->second)};
    } else if (op != "Relu" && op != "Sigmoid" && op != "Tanh") {
      return false;
    }
    Value* y = act->input(0);
    if (!OnlyFeeds(y, act)) return false;
    Node* conv = y->producer();
    // (Conv's outputs are float, float16 or double: no type check needed.)
    if (!Is(conv, "Conv") || conv->graph() != &graph || conv->num_outputs() != 1) return false;
    std::vector<Attribute> attrs;
    for (const Attribute& a : conv->attributes()) attrs.push_back(a.Clone(&graph));
    attrs.push_back(Attribute::String("activation", op));
    if (!params.empty()) attrs.push_back(Attribute::Floats("activation_params", params));
    if (contrib == -1) model_.opset_imports.push_back({kContribDomain, 1});
    Node* fused =
        Replace(graph, act, "FusedConv", kContribDomain, conv->inputs(), std::move(attrs), {conv});
    fused->set_name(conv->name().empty() ? act->name() : conv->name());
    ++fused_conv;
    return true;
  }

  // A new node computing `last`'s output 0 (same name and type) from `inputs`; `last` and then
  // `dead` (producers of values only the pattern read) are erased.
  Node* Replace(Graph& graph, Node* last, const std::string& op, const std::string& domain,
                std::vector<Value*> inputs, std::vector<Attribute> attrs,
                const std::vector<Node*>& dead) {
    Node* node = graph.InsertNodeBefore(last, op, domain);
    for (Value* in : inputs) node->AddInput(in);
    for (Attribute& a : attrs) node->SetAttribute(std::move(a));
    node->set_name(last->name());
    Value* y = last->output(0);
    const std::string name = y->name();
    Value* out = node->AddOutput(graph.UniqueName(name + "_fused"));
    out->set_type(y->type());
    y->ReplaceAllUsesWith(out);
    graph.EraseNode(last);
    erased_.insert(last);
    for (Node* d : dead) {
      graph.EraseNode(d);
      erased_.insert(d);
    }
    out->SetName(name);
    return node;
  }

  Model& model_;
  int64_t opset_;
  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseActivationsPass::Run(Model& model, PassContext& ctx) {
  Fuser fuser(model);
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("hardsigmoid", fuser.hardsigmoid);
  ctx.AddStatistic("hardswish", fuser.hardswish);
  ctx.AddStatistic("fused-conv", fuser.fused_conv);
  return changed;
}

ANVIL_REGISTER_PASS(FuseActivationsPass);

}  // namespace anvil
