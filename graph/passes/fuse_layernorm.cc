#include "graph/passes/fuse_layernorm.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"
#include "graph/passes/match.h"

namespace anvil {
namespace {

using match::FloatTensor;
using match::Is;
using match::IsScalar;
using match::OnlyFeeds;
using match::Rank;
using match::Scalar;

// How many trailing axes of its rank-`rank` input the ReduceMean `node` averages over with
// keepdims = 1 (its axes being exactly the last k), or nullopt.
std::optional<int64_t> TrailingAxes(const Node& node, int64_t rank) {
  if (node.GetInt("keepdims", 1) != 1) return std::nullopt;
  std::vector<int64_t> axes;
  if (node.num_inputs() >= 2 && node.input(1) != nullptr) {  // opset 18: axes as an input
    const Value* a = node.input(1);
    if (!a->IsInitializer() || a->IsGraphInput() || a->constant() == nullptr) return std::nullopt;
    const Elements& e = *a->constant();
    if (e.element_type() != ElementType::kInt64) return std::nullopt;
    for (int64_t i = 0; i < e.NumElements(); ++i) axes.push_back(e.GetInt64(i));
  } else if (node.FindAttribute("axes") != nullptr) {
    axes = node.GetInts("axes");
  }
  if (axes.empty()) {  // every axis, unless (opset 18) no axes means no reduction at all
    if (node.GetInt("noop_with_empty_axes", 0) != 0) return std::nullopt;
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    if (a < 0) a += rank;
  }
  std::sort(axes.begin(), axes.end());
  const int64_t k = static_cast<int64_t>(axes.size());
  for (int64_t i = 0; i < k; ++i) {
    if (axes[i] != rank - k + i) return std::nullopt;
  }
  return k;
}

class Fuser {
 public:
  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= LayerNorm(graph, node);
    }
    return changed;
  }

  int64_t layernorm = 0;

 private:
  // `div` is Div(d, Sqrt(Add(var, epsilon))) of the pattern in fuse_layernorm.h.
  bool LayerNorm(Graph& graph, Node* div) {
    if (!Is(div, "Div") || div->num_inputs() != 2) return false;
    // Backwards from the Div: the standard deviation ...
    Value* d = div->input(0);
    const Value* sd = div->input(1);
    if (d == nullptr || !OnlyFeeds(sd, div)) return false;
    Node* sqrt = sd->producer();
    if (!Is(sqrt, "Sqrt") || !OnlyFeeds(sqrt->input(0), sqrt)) return false;
    Node* add_eps = sqrt->input(0)->producer();
    if (!Is(add_eps, "Add") || add_eps->num_inputs() != 2) return false;
    const int e = Scalar(add_eps->input(1)) ? 1 : 0;
    const std::optional<double> epsilon = Scalar(add_eps->input(e));
    const Value* var = add_eps->input(1 - e);
    if (!epsilon || !OnlyFeeds(var, add_eps)) return false;
    Node* var_mean = var->producer();
    if (!Is(var_mean, "ReduceMean") || !OnlyFeeds(var_mean->input(0), var_mean)) return false;
    Node* square = var_mean->input(0)->producer();
    const bool squares_d = (Is(square, "Mul") && square->num_inputs() == 2 &&
                            square->input(0) == d && square->input(1) == d) ||
                           (Is(square, "Pow") && square->num_inputs() == 2 &&
                            square->input(0) == d && IsScalar(square->input(1), 2.0));
    if (!squares_d) return false;
    // ... and the deviations: d = Sub(x, ReduceMean(x)), read by the square and the Div alone.
    if (d->IsGraphOutput()) return false;
    for (const auto& use : d->uses()) {
      if (use.user != square && use.user != div) return false;
    }
    Node* sub = d->producer();
    if (!Is(sub, "Sub") || sub->num_inputs() != 2 || !OnlyFeeds(sub->input(1), sub)) return false;
    Value* x = sub->input(0);
    Node* mean = sub->input(1)->producer();
    if (!Is(mean, "ReduceMean") || mean->input(0) != x || !FloatTensor(x)) return false;
    const std::optional<int64_t> rank = Rank(x);
    if (!rank) return false;
    const std::optional<int64_t> k = TrailingAxes(*mean, *rank);
    if (!k || *k == 0 || TrailingAxes(*var_mean, *rank) != k) return false;

    // Forwards: the scale Mul, then an optional bias Add.
    const Value* n = div->output(0);
    if (!OnlyFeeds(n, n->uses().empty() ? nullptr : n->uses()[0].user)) return false;
    Node* mul = n->uses()[0].user;
    if (!Is(mul, "Mul") || mul->num_inputs() != 2 || mul->graph() != &graph) return false;
    Value* scale = mul->input(0) == n ? mul->input(1) : mul->input(0);
    if (scale == n || (mul->input(0) != n && mul->input(1) != n)) return false;
    if (!FitsNormalizedDims(scale, x, *k)) return false;
    std::vector<Value*> inputs = {x, scale};
    Node* last = mul;
    std::vector<Node*> dead = {div, sqrt, add_eps, var_mean, square, sub, mean};
    if (mul->output(0)->uses().size() == 1 && !mul->output(0)->IsGraphOutput()) {
      Node* add = mul->output(0)->uses()[0].user;
      if (Is(add, "Add") && add->num_inputs() == 2 && add->graph() == &graph) {
        Value* bias = add->input(0) == mul->output(0) ? add->input(1) : add->input(0);
        if (bias != mul->output(0) && FitsNormalizedDims(bias, x, *k)) {
          inputs.push_back(bias);
          dead.push_back(mul);
          last = add;
        }
      }
    }
    if (!match::AllIn(graph, dead) || !match::SameRank(x, last->output(0))) return false;
    std::vector<Attribute> attrs;
    attrs.push_back(Attribute::Int("axis", -*k));
    attrs.push_back(Attribute::Float("epsilon", static_cast<float>(*epsilon)));
    match::ReplaceWith(graph, last, "LayerNormalization", "", inputs, std::move(attrs), dead,
                       &erased_);
    ++layernorm;
    return true;
  }

  // `v` (scale or bias) has x's element type, a known shape of at most k dims, and each of its
  // dims 1 or equal to x's matching trailing dim: it broadcasts to the normalized dims as
  // LayerNormalization's Scale and B do, and as the Mul or Add it feeds did.
  static bool FitsNormalizedDims(const Value* v, const Value* x, int64_t k) {
    if (v == nullptr || !v->type().is_tensor() || !v->type().has_shape()) return false;
    if (v->type().element_type() != x->type().element_type()) return false;
    const std::vector<Dim>& vs = v->type().shape();
    const std::vector<Dim>& xs = x->type().shape();
    if (static_cast<int64_t>(vs.size()) > k) return false;
    for (size_t i = 0; i < vs.size(); ++i) {
      const Dim& a = vs[vs.size() - 1 - i];
      const Dim& b = xs[xs.size() - 1 - i];
      if (a.value != 1 && !match::SameDim(a, b)) return false;
    }
    return true;
  }

  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseLayerNormPass::Run(Model& model, PassContext& ctx) {
  if (model.OpsetVersion("") < 17) {
    ctx.AddStatistic("layernorm", 0);
    return false;
  }
  Fuser fuser;
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("layernorm", fuser.layernorm);
  return changed;
}

ANVIL_REGISTER_PASS(FuseLayerNormPass);

}  // namespace anvil
