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
#include "graph/passes/match.h"

namespace anvil {
namespace {

constexpr char kContribDomain[] = "com.microsoft";

using match::FloatTensor;
using match::Is;
using match::IsScalar;
using match::OnlyFeeds;
using match::Scalar;

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
      changed |= HardSwish(graph, node) || HardSigmoid(graph, node) || Gelu(graph, node) ||
                 QuickGelu(graph, node) || FusedConv(graph, node);
    }
    return changed;
  }

  int64_t hardsigmoid = 0, hardswish = 0, gelu = 0, quick_gelu = 0, fused_conv = 0;

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
    if (x == nullptr || !match::AllIn(graph, dead) || !match::SameRank(x, node->output(0))) {
      return false;
    }
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
    if (x == nullptr || !match::AllIn(graph, dead) || !match::SameRank(x, node->output(0))) {
      return false;
    }
    std::vector<Attribute> attrs;
    attrs.push_back(Attribute::Float("alpha", 1.0f / 6.0f));
    attrs.push_back(Attribute::Float("beta", 0.5f));
    Replace(graph, node, "HardSigmoid", "", {x}, std::move(attrs), dead);
    ++hardsigmoid;
    return true;
  }

  // `v` divided by sqrt(2) (Div by sqrt(2), or Mul by 1/sqrt(2) either way round), read only by
  // `user`: the dividend.
  static Value* OverSqrt2(const Value* v, const Node* user) {
    if (!OnlyFeeds(v, user)) return nullptr;
    const Node* p = v->producer();
    if (Is(p, "Div") && p->num_inputs() == 2 && IsScalar(p->input(1), std::sqrt(2.0))) {
      return p->input(0);
    }
    if (Is(p, "Mul") && p->num_inputs() == 2) {
      if (IsScalar(p->input(1), std::sqrt(0.5))) return p->input(0);
      if (IsScalar(p->input(0), std::sqrt(0.5))) return p->input(1);
    }
    return nullptr;
  }

  // `a` is Add(Erf(x / sqrt(2)), 1) (either order) read only by `user`: x, with the Add, Erf and
  // division in `dead`.
  static Value* ErfTerm(const Value* a, const Node* user, std::vector<Node*>* dead) {
    if (a == nullptr || !OnlyFeeds(a, user)) return nullptr;
    Node* add = a->producer();
    if (!Is(add, "Add") || add->num_inputs() != 2) return nullptr;
    const Value* e = IsScalar(add->input(1), 1.0)   ? add->input(0)
                     : IsScalar(add->input(0), 1.0) ? add->input(1)
                                                    : nullptr;
    if (e == nullptr || !OnlyFeeds(e, add)) return nullptr;
    Node* erf = e->producer();
    if (!Is(erf, "Erf") || erf->num_inputs() != 1) return nullptr;
    Value* x = OverSqrt2(erf->input(0), erf);
    if (x == nullptr) return nullptr;
    dead->insert(dead->end(), {add, erf, erf->input(0)->producer()});
    return x;
  }

  // 0.5 * x * (1 + erf(x / sqrt(2))) as a product of its three factors in any order and
  // association (two Muls) -> com.microsoft Gelu(x).
  bool Gelu(Graph& graph, Node* node) {
    if (!Is(node, "Mul") || node->num_inputs() != 2) return false;
    // The factors with the node reading each: the root's two inputs, one of them split into its
    // own two when it is a Mul only the root reads.
    std::vector<Node*> dead;
    std::vector<std::pair<Value*, const Node*>> factors;
    for (Value* in : node->inputs()) {
      Node* p = in == nullptr ? nullptr : in->producer();
      if (dead.empty() && Is(p, "Mul") && p->num_inputs() == 2 && OnlyFeeds(in, node)) {
        dead.push_back(p);
        factors.push_back({p->input(0), p});
        factors.push_back({p->input(1), p});
      } else {
        factors.push_back({in, node});
      }
    }
    if (factors.size() != 3) return false;
    for (int half = 0; half < 3; ++half) {
      if (!IsScalar(factors[half].first, 0.5)) continue;
      for (int term = 0; term < 3; ++term) {
        if (term == half) continue;
        Value* x = factors[3 - half - term].first;
        std::vector<Node*> inner;
        if (x == nullptr || !FloatTensor(x) ||
            ErfTerm(factors[term].first, factors[term].second, &inner) != x) {
          continue;
        }
        dead.insert(dead.end(), inner.begin(), inner.end());
        if (!match::AllIn(graph, dead) || !match::SameRank(x, node->output(0)) ||
            !match::UseContribOpset(model_)) {
          return false;
        }
        Replace(graph, node, "Gelu", kContribDomain, {x}, {}, dead);
        ++gelu;
        return true;
      }
    }
    return false;
  }

  // Mul(x, Sigmoid(x)) (SiLU) -> com.microsoft QuickGelu<alpha = 1>(x), and
  // Mul(x, Sigmoid(Mul(x, alpha))) -> QuickGelu<alpha>(x); operands either way round.
  bool QuickGelu(Graph& graph, Node* node) {
    if (!Is(node, "Mul") || node->num_inputs() != 2) return false;
    for (int i : {0, 1}) {
      Value* x = node->input(i);
      const Value* s = node->input(1 - i);
      if (x == nullptr || !FloatTensor(x) || !OnlyFeeds(s, node)) continue;
      Node* sigmoid = s->producer();
      if (!Is(sigmoid, "Sigmoid") || sigmoid->num_inputs() != 1) continue;
      std::vector<Node*> dead = {sigmoid};
      double alpha = 1.0;
      if (Value* t = sigmoid->input(0); t != x) {
        Node* scale = t == nullptr ? nullptr : t->producer();
        if (!OnlyFeeds(t, sigmoid) || !Is(scale, "Mul") || scale->num_inputs() != 2) continue;
        const int k = scale->input(0) == x ? 0 : 1;
        const std::optional<double> a = Scalar(scale->input(1 - k));
        // (QuickGelu's alpha is a float attribute: a double alpha must be one exactly.)
        if (scale->input(k) != x || !a || static_cast<double>(static_cast<float>(*a)) != *a) {
          continue;
        }
        alpha = *a;
        dead.push_back(scale);
      }
      if (!match::AllIn(graph, dead) || !match::SameRank(x, node->output(0)) ||
          !match::UseContribOpset(model_)) {
        return false;
      }
      std::vector<Attribute> attrs;
      attrs.push_back(Attribute::Float("alpha", static_cast<float>(alpha)));
      Replace(graph, node, "QuickGelu", kContribDomain, {x}, std::move(attrs), dead);
      ++quick_gelu;
      return true;
    }
    return false;
  }

  // Conv -> activation: one com.microsoft FusedConv.
  bool FusedConv(Graph& graph, Node* act) {
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
    if (!match::UseContribOpset(model_)) return false;
    // (Read before Replace erases both nodes.)
    const std::string name = conv->name().empty() ? act->name() : conv->name();
    Node* fused =
        Replace(graph, act, "FusedConv", kContribDomain, conv->inputs(), std::move(attrs), {conv});
    fused->set_name(name);
    ++fused_conv;
    return true;
  }

  Node* Replace(Graph& graph, Node* last, const std::string& op, const std::string& domain,
                std::vector<Value*> inputs, std::vector<Attribute> attrs,
                const std::vector<Node*>& dead) {
    return match::ReplaceWith(graph, last, op, domain, inputs, std::move(attrs), dead, &erased_);
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
  ctx.AddStatistic("gelu", fuser.gelu);
  ctx.AddStatistic("quick-gelu", fuser.quick_gelu);
  ctx.AddStatistic("fused-conv", fuser.fused_conv);
  return changed;
}

ANVIL_REGISTER_PASS(FuseActivationsPass);

}  // namespace anvil
