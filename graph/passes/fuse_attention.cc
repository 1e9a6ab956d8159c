#include "graph/passes/fuse_attention.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"
#include "graph/passes/match.h"

namespace anvil {
namespace {

using match::Is;
using match::OnlyFeeds;
using match::SameDim;
using match::Scalar;

const std::vector<int64_t> kSwapMiddle = {0, 2, 1, 3};

bool IsTranspose(const Node* node, const std::vector<int64_t>& perm) {
  return Is(node, "Transpose") && node->FindAttribute("perm") != nullptr &&
         node->GetInts("perm") == perm;
}

// The dims of a float tensor of known rank `rank`, else nullopt.
std::optional<std::vector<Dim>> FloatDims(const Value* v, size_t rank) {
  if (v == nullptr || !v->type().is_tensor() || !v->type().has_shape()) return std::nullopt;
  if (v->type().element_type() != ElementType::kFloat) return std::nullopt;
  if (v->type().shape().size() != rank) return std::nullopt;
  return v->type().shape();
}

// One side of the pattern: `x` [B, T, H * e] reshaped to [B, T, H, e] by `reshape`.
struct Split {
  Value* x = nullptr;
  std::vector<Dim> dims;  // x's
  int64_t heads = 0, head_size = 0;
};

// `v` = Reshape(x) splitting x's last axis into two literal dims, read only by `user`.
std::optional<Split> SplitHeads(const Value* v, const Node* user, std::vector<Node*>& dead) {
  if (!OnlyFeeds(v, user)) return std::nullopt;
  Node* reshape = v->producer();
  if (!Is(reshape, "Reshape")) return std::nullopt;
  const std::optional<std::vector<Dim>> four = FloatDims(v, 4);
  const std::optional<std::vector<Dim>> three = FloatDims(reshape->input(0), 3);
  if (!four || !three || !(*four)[2].is_literal() || !(*four)[3].is_literal() ||
      !(*three)[2].is_literal() || !SameDim((*four)[0], (*three)[0]) ||
      !SameDim((*four)[1], (*three)[1]) ||
      *(*four)[2].value * *(*four)[3].value != *(*three)[2].value || *(*four)[2].value < 1) {
    return std::nullopt;
  }
  dead.push_back(reshape);
  return Split{reshape->input(0), *three, *(*four)[2].value, *(*four)[3].value};
}

// `p` = Mul(w, c), Mul(c, w) or Div(w, c) with c a scalar constant other than 0: the factor it
// multiplies w by (c, or 1 / c) and w's input slot.
struct ScalarFactor {
  double factor;
  int operand;
};
std::optional<ScalarFactor> ScalesByConstant(const Node* p) {
  const bool mul = Is(p, "Mul");
  if ((!mul && !Is(p, "Div")) || p->num_inputs() != 2) return std::nullopt;
  const int c = mul && Scalar(p->input(0)) ? 0 : 1;
  const std::optional<double> constant = Scalar(p->input(c));
  if (!constant || *constant == 0.0) return std::nullopt;
  return ScalarFactor{mul ? *constant : 1.0 / *constant, 1 - c};
}

// `v` (read only by the pattern) = w scaled by a constant (ScalesByConstant), w read only by that
// node: multiplies `scale` by the factor, records the node in `dead` and returns w. Otherwise
// returns v.
const Value* Unscaled(const Value* v, double& scale, std::vector<Node*>& dead) {
  Node* p = v->producer();
  const std::optional<ScalarFactor> f = ScalesByConstant(p);
  if (!f || !OnlyFeeds(p->input(f->operand), p)) return v;
  scale *= f->factor;
  dead.push_back(p);
  return p->input(f->operand);
}

// `v` is Q K^T, possibly scaled: a MatMul, or one scaled by a constant.
bool IsProduct(const Value* v) {
  const Node* p = v->producer();
  if (Is(p, "MatMul")) return true;
  const std::optional<ScalarFactor> f = ScalesByConstant(p);
  return f && p->input(f->operand) != nullptr && Is(p->input(f->operand)->producer(), "MatMul");
}

// bias [., ., 1, L] expanded to q's S rows, by nodes inserted before `before`:
//   Expand(bias, Concat([1, 1], Gather<axis = 0>(Shape(q), [1]), [1])).
Value* ExpandRows(Graph& graph, Node* before, Value* bias, Value* q) {
  auto constant = [&](const std::string& name, std::vector<int64_t> values) {
    const int64_t n = static_cast<int64_t>(values.size());
    return graph.AddInitializer(graph.UniqueName(name),
                                DenseElements::FromVector(ElementType::kInt64, {n}, values));
  };
  auto node = [&](const std::string& op, std::vector<Value*> inputs, const std::string& name,
                  Type type) {
    Node* n = graph.InsertNodeBefore(before, op);
    for (Value* in : inputs) n->AddInput(in);
    Value* out = n->AddOutput(graph.UniqueName(name));
    out->set_type(std::move(type));
    return n;
  };
  const std::string base = bias->name() + "_rows";
  Value* shape =
      node("Shape", {q}, base + "_q_shape", Type::Tensor(ElementType::kInt64, {Dim::Literal(3)}))
          ->output(0);
  Node* gather = node("Gather", {shape, constant(base + "_index", {1})}, base + "_s",
                      Type::Tensor(ElementType::kInt64, {Dim::Literal(1)}));
  gather->SetAttribute(Attribute::Int("axis", 0));
  Node* concat = node(
      "Concat", {constant(base + "_ones", {1, 1}), gather->output(0), constant(base + "_one", {1})},
      base + "_shape", Type::Tensor(ElementType::kInt64, {Dim::Literal(4)}));
  concat->SetAttribute(Attribute::Int("axis", 0));
  std::vector<Dim> dims = bias->type().shape();
  dims[2] = q->type().shape()[1];
  return node("Expand", {bias, concat->output(0)}, base,
              Type::Tensor(ElementType::kFloat, std::move(dims)))
      ->output(0);
}

class Fuser {
 public:
  explicit Fuser(Model& model) : model_(model), opset_(model.OpsetVersion("")) {}

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= Attention(graph, node);
    }
    return changed;
  }

  int64_t attention = 0;

 private:
  // `last` is the Reshape producing y in the pattern of fuse_attention.h.
  bool Attention(Graph& graph, Node* last) {
    if (!Is(last, "Reshape")) return false;
    std::vector<Node*> dead;
    // Backwards from y: the heads joined again ...
    Node* join = last->input(0)->producer();
    if (!IsTranspose(join, kSwapMiddle) || !OnlyFeeds(last->input(0), last)) return false;
    dead.push_back(join);
    Node* context = join->input(0)->producer();
    if (!Is(context, "MatMul") || !OnlyFeeds(join->input(0), join)) return false;
    dead.push_back(context);
    // ... the probabilities, softmax over the last axis (also before opset 13, whose 2-D
    // coercion at axis 3 of a 4-D tensor is the same) ...
    const Value* p = context->input(0);
    Node* softmax = p->producer();
    if (!Is(softmax, "Softmax") || !OnlyFeeds(p, context) || match::Rank(p) != 4) return false;
    const int64_t axis = softmax->GetInt("axis", opset_ < 13 ? 1 : -1);
    if (axis != -1 && axis != 3) return false;
    dead.push_back(softmax);
    // ... the scaling (of the scores, or of the per-head q or k: the scale's square root on each,
    // as scaled_dot_product_attention exports it) ...
    double scale = 1.0;
    const Value* scores = softmax->input(0);
    if (!OnlyFeeds(scores, softmax)) return false;
    // ... an additive mask or bias on the scaled scores (BERT's) ...
    Value* bias = nullptr;
    if (Node* add = scores->producer(); Is(add, "Add") && add->num_inputs() == 2) {
      const int i = IsProduct(add->input(0)) ? 0 : 1;
      if (!IsProduct(add->input(i)) || !OnlyFeeds(add->input(i), add)) return false;
      bias = add->input(1 - i);
      scores = add->input(i);
      if (bias == scores) return false;
      dead.push_back(add);
    }
    scores = Unscaled(scores, scale, dead);
    Node* scores_node = scores->producer();
    if (!Is(scores_node, "MatMul")) return false;
    dead.push_back(scores_node);
    // ... and the three sides.
    const Value* qh = scores_node->input(0);
    const Value* kt = scores_node->input(1);
    const Value* vh = context->input(1);
    if (!OnlyFeeds(qh, scores_node) || !OnlyFeeds(kt, scores_node) || !OnlyFeeds(vh, context)) {
      return false;
    }
    qh = Unscaled(qh, scale, dead);
    kt = Unscaled(kt, scale, dead);
    Node* q_transpose = qh->producer();
    Node* v_transpose = vh->producer();
    if (!IsTranspose(q_transpose, kSwapMiddle) || !IsTranspose(v_transpose, kSwapMiddle)) {
      return false;
    }
    dead.push_back(q_transpose);
    dead.push_back(v_transpose);
    Node* k_transpose = kt->producer();
    if (IsTranspose(k_transpose, {0, 1, 3, 2})) {  // k.transpose(-2, -1) of the per-head k
      dead.push_back(k_transpose);
      if (!OnlyFeeds(k_transpose->input(0), k_transpose)) return false;
      Node* inner = Unscaled(k_transpose->input(0), scale, dead)->producer();
      if (!IsTranspose(inner, kSwapMiddle)) return false;
      k_transpose = inner;
    } else if (!IsTranspose(k_transpose, {0, 2, 3, 1})) {
      return false;
    }
    dead.push_back(k_transpose);
    if (static_cast<float>(scale) == 0.0f || !std::isfinite(static_cast<float>(scale))) {
      return false;
    }
    const std::optional<Split> q = SplitHeads(q_transpose->input(0), q_transpose, dead);
    const std::optional<Split> k = SplitHeads(k_transpose->input(0), k_transpose, dead);
    const std::optional<Split> v = SplitHeads(v_transpose->input(0), v_transpose, dead);
    if (!q || !k || !v || k->heads != q->heads || k->head_size != q->head_size ||
        v->heads != q->heads || !SameDim(k->dims[0], q->dims[0]) ||
        !SameDim(v->dims[0], q->dims[0]) || !SameDim(v->dims[1], k->dims[1])) {
      return false;
    }
    const std::optional<std::vector<Dim>> y = FloatDims(last->output(0), 3);
    if (!y || !SameDim((*y)[0], q->dims[0]) || !SameDim((*y)[1], q->dims[1]) ||
        !SameDim((*y)[2], v->dims[2])) {
      return false;
    }
    // ONNX Runtime's attention_bias has all S rows: a [., ., 1, L] mask is expanded to them
    // (Expand exists from opset 8).
    bool expand = false;
    if (bias != nullptr) {
      const std::optional<std::vector<Dim>> b = FloatDims(bias, 4);
      auto one = [](const Dim& dim) { return dim.is_literal() && *dim.value == 1; };
      if (!b || (!one((*b)[0]) && !SameDim((*b)[0], q->dims[0])) ||
          (!one((*b)[1]) && !((*b)[1].is_literal() && *(*b)[1].value == q->heads)) ||
          (!one((*b)[2]) && !SameDim((*b)[2], q->dims[1])) || !SameDim((*b)[3], k->dims[1])) {
        return false;
      }
      expand = !SameDim((*b)[2], q->dims[1]);
      if (expand && opset_ < 8) return false;
    }
    if (!match::AllIn(graph, dead) || last->graph() != &graph || !match::UseContribOpset(model_)) {
      return false;
    }
    std::vector<Value*> inputs = {q->x, k->x, v->x};
    if (bias != nullptr) {
      inputs.insert(inputs.end(),
                    {nullptr, nullptr, expand ? ExpandRows(graph, last, bias, q->x) : bias});
    }
    std::vector<Attribute> attrs;
    attrs.push_back(Attribute::Int("num_heads", q->heads));
    attrs.push_back(Attribute::Float("scale", static_cast<float>(scale)));
    match::ReplaceWith(graph, last, "MultiHeadAttention", "com.microsoft", inputs, std::move(attrs),
                       dead, &erased_);
    ++attention;
    return true;
  }

  Model& model_;
  int64_t opset_;
  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseAttentionPass::Run(Model& model, PassContext& ctx) {
  Fuser fuser(model);
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("attention", fuser.attention);
  return changed;
}

ANVIL_REGISTER_PASS(FuseAttentionPass);

}  // namespace anvil
