#include "kernels/nchwc_layout.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"
#include "graph/passes/match.h"
#include "kernels/simd/activation.h"
#include "kernels/simd/nchwc.h"

namespace anvil {
namespace {

constexpr char kDomain[] = "com.anvil.nchwc";

bool IsOp(const Node* node, std::string_view domain, std::string_view op_type) {
  return node != nullptr && node->domain() == domain && node->op_type() == op_type;
}

// A float32 or float16 tensor type of rank 4 whose channel dim is a literal.
std::optional<int64_t> Channels(const Value* v) {
  if (v == nullptr) return std::nullopt;
  const Type& t = v->type();
  if (!t.is_tensor() || t.rank() != 4 ||
      (t.element_type() != ElementType::kFloat && t.element_type() != ElementType::kFloat16)) {
    return std::nullopt;
  }
  if (!t.shape()[1].is_literal()) return std::nullopt;
  return *t.shape()[1].value;
}

bool AllEqual(const std::vector<int64_t>& v, int64_t want) {
  for (int64_t x : v) {
    if (x != want) return false;
  }
  return true;
}

// The 8 pads of a zero-padding Pad (constant mode, value absent or 0, pads a constant input as
// from opset 11, no axes), begins then ends; nullopt for any other Pad.
std::optional<std::vector<int64_t>> ZeroPads(const Node* node) {
  if (!IsOp(node, "", "Pad") || node->num_inputs() < 2 || node->num_inputs() > 3 ||
      node->num_outputs() != 1 || node->GetString("mode", "constant") != "constant") {
    return std::nullopt;
  }
  if (node->num_inputs() == 3 && node->input(2) != nullptr) {
    const std::optional<double> value = match::Scalar(node->input(2));
    if (!value || *value != 0.0) return std::nullopt;
  }
  const Elements* pads = match::RunConstant(node->input(1));
  if (pads == nullptr || pads->element_type() != ElementType::kInt64 || pads->NumElements() != 8) {
    return std::nullopt;
  }
  // Up to 2^30 each: a folded pad is added to a Conv's own (no overflow), and no real model pads
  // more.
  constexpr int64_t kMaxPad = int64_t{1} << 30;
  std::vector<int64_t> out(8);
  for (int64_t i = 0; i < 8; ++i) {
    out[i] = pads->GetInt64(i);
    if (out[i] < 0 || out[i] > kMaxPad) return std::nullopt;
  }
  return out;
}

// A Pad of only the spatial dims of a [N, C, H, W] float value: its input and the pads as a
// convolution's [top, left, bottom, right].
std::optional<std::pair<Value*, std::vector<int64_t>>> SpatialPad(const Value* v) {
  const Node* pad = v->producer();
  const std::optional<std::vector<int64_t>> p = ZeroPads(pad);
  if (!p || (*p)[0] || (*p)[1] || (*p)[4] || (*p)[5] || !Channels(pad->input(0))) {
    return std::nullopt;
  }
  return std::make_pair(pad->input(0), std::vector<int64_t>{(*p)[2], (*p)[3], (*p)[6], (*p)[7]});
}

// The spatial Pad a depthwise or planar-input `conv` of `form` reads, when it folds into the
// Conv's pads (the Conv's own at most 2^30 too, so that the sums cannot overflow).
std::optional<std::pair<Value*, std::vector<int64_t>>> FoldedPad(const Node* conv, bool pointwise) {
  if (pointwise) return std::nullopt;
  for (int64_t p : conv->GetInts("pads")) {
    if (p > (int64_t{1} << 30)) return std::nullopt;
  }
  return SpatialPad(conv->input(0));
}

// The element-wise ops that run unchanged on a blocked tensor: unary maps with a finite f(0).
bool IsBlockableUnary(const Node* node) {
  if (node == nullptr || !node->domain().empty() || node->num_outputs() != 1 ||
      node->num_inputs() < 1) {
    return false;
  }
  const std::string& op = node->op_type();
  if (op == "Clip") {
    for (int i = 1; i < node->num_inputs(); ++i) {
      // An absent bound, or one element: what broadcasts over any layout.
      const Value* bound = node->input(i);
      if (bound != nullptr && !match::OneElement(bound)) return false;
    }
    return true;
  }
  return node->num_inputs() == 1 && (op == "Relu" || op == "LeakyRelu" || op == "Sigmoid" ||
                                     op == "Tanh" || op == "HardSigmoid" || op == "HardSwish");
}

// The pads [top, left, bottom, right] of a MaxPool the blocked kernel computes: 2-D, explicit
// pads smaller than the window (or VALID), no dilation, ceil_mode or Indices; nullopt otherwise.
std::optional<std::vector<int64_t>> BlockableMaxPoolPads(const Node* node) {
  if (!IsOp(node, "", "MaxPool") || node->num_inputs() != 1 || node->num_outputs() < 1 ||
      (node->num_outputs() > 1 && node->output(1) != nullptr) || !Channels(node->output(0))) {
    return std::nullopt;
  }
  const std::vector<int64_t> kernel = node->GetInts("kernel_shape");
  const std::vector<int64_t> strides = node->GetInts("strides");
  const std::string auto_pad = node->GetString("auto_pad", "NOTSET");
  if (kernel.size() != 2 || (!strides.empty() && strides.size() != 2) ||
      (auto_pad != "NOTSET" && auto_pad != "VALID") || !AllEqual(node->GetInts("dilations"), 1) ||
      node->GetInt("ceil_mode", 0) != 0) {
    return std::nullopt;
  }
  std::vector<int64_t> pads = node->GetInts("pads");
  if (auto_pad == "VALID" || pads.empty()) pads = {0, 0, 0, 0};
  if (pads.size() != 4) return std::nullopt;
  for (int i = 0; i < 4; ++i) {
    if (pads[i] < 0 || pads[i] >= kernel[i % 2]) return std::nullopt;
  }
  return pads;
}

struct ConvForm {
  bool pointwise = false;
  int64_t out_channels = 0;
  bool has_activation = false;
  // A FusedConv's HardSigmoid, which has no epilogue in the blocked kernels: it runs as its own
  // node on the blocked output.
  bool hard_sigmoid = false;
  // A dense convolution of an NCHW input with fewer channels than a block (a first layer).
  bool planar = false;
};

// Whether `node` is a convolution the blocked kernels compute (see the header), and its form.
std::optional<ConvForm> BlockableConv(const Node* node, int64_t block) {
  const bool fused = IsOp(node, "com.microsoft", "FusedConv");
  if (!fused && !IsOp(node, "", "Conv")) return std::nullopt;
  if (node->num_outputs() != 1 || node->num_inputs() < 2 || node->num_inputs() > 4) {
    return std::nullopt;
  }
  if (node->num_inputs() == 4 && node->input(3) != nullptr) return std::nullopt;  // Z
  ConvForm form;
  if (fused) {
    const std::string activation = node->GetString("activation", "");
    const Attribute* params = node->FindAttribute("activation_params");
    const int count = params != nullptr ? static_cast<int>(params->floats.size()) : 0;
    // What the FusedConv kernel takes (ONNX Runtime's activations: not HardSwish).
    if (activation == "HardSwish" || simd::FusedActivationParams(activation) != count) {
      return std::nullopt;
    }
    form.has_activation = true;
    form.hard_sigmoid = activation == "HardSigmoid";
  }
  const std::optional<int64_t> c = Channels(node->input(0));
  const Value* y = node->output(0);
  if (!c || y == nullptr || !Channels(y)) return std::nullopt;
  // W and B of X's type (the kernel packs float16 ones as float32).
  const ElementType type = node->input(0)->type().element_type();
  const Elements* w = match::RunConstant(node->input(1));
  if (w == nullptr || w->element_type() != type || w->dims().size() != 4) return std::nullopt;
  const int64_t m = w->dims()[0], cg = w->dims()[1], kh = w->dims()[2], kw = w->dims()[3];
  if (node->num_inputs() > 2 && node->input(2) != nullptr) {
    const Elements* b = match::RunConstant(node->input(2));
    if (b == nullptr || b->element_type() != type || b->dims().size() != 1 || b->dims()[0] != m) {
      return std::nullopt;
    }
  }
  const std::string auto_pad = node->GetString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID") return std::nullopt;
  const std::vector<int64_t> strides = node->GetInts("strides");
  const std::vector<int64_t> pads = node->GetInts("pads");
  const int64_t group = node->GetInt("group", 1);
  if (!AllEqual(node->GetInts("dilations"), 1)) return std::nullopt;
  if (!strides.empty() && strides.size() != 2) return std::nullopt;
  if (!pads.empty() && pads.size() != 4) return std::nullopt;
  const int64_t stride = strides.empty() ? 1 : strides[0];
  if (!AllEqual(strides, stride)) return std::nullopt;
  const bool no_pads = auto_pad == "VALID" || AllEqual(pads, 0);
  form.out_channels = m;
  if (group == 1 && kh == 1 && kw == 1 && stride == 1 && no_pads && cg == *c) {
    form.pointwise = true;
    return form;
  }
  if (group == *c && m == *c && cg == 1 && kh == kw && simd::BlockedDepthwiseSupports(kh, stride)) {
    return form;
  }
  if (group == 1 && cg == *c && *c < block && kh * kw > 1) {
    form.planar = true;
    return form;
  }
  return std::nullopt;
}

class Rewriter {
 public:
  Rewriter(Graph& graph, int64_t block) : graph_(graph), block_(block) {}

  void Run() {
    for (Node* node : graph_.NodesSnapshot()) {
      if (std::optional<ConvForm> form = BlockableConv(node, block_)) {
        // A planar-input Conv starts a chain: its input stays NCHW. A depthwise or planar Conv
        // of a spatial zero Pad reads the Pad's input with the pads added to its own.
        const auto folded = FoldedPad(node, form->pointwise);
        const Value* source = folded ? folded->first : node->input(0);
        const bool blocked_input = blocked_.contains(source);
        if (form->planar ? !blocked_input && (FeedsBlockedConv(node->output(0), 3) ||
                                              FeedsBlockedMaxPool(node->output(0), 3))
                         : blocked_input || FeedsBlockedConv(node->output(0), 3)) {
          RewriteConv(node, *form);
        }
        continue;
      }
      if (node->num_inputs() < 1 || !blocked_.contains(node->input(0))) continue;
      if (IsBlockableUnary(node)) {
        if (!FuseActivation(node)) CloneOnBlocked(node, 1);
      } else if ((IsOp(node, "", "Add") || IsOp(node, "", "Mul")) && node->num_inputs() == 2 &&
                 node->num_outputs() == 1 && blocked_.contains(node->input(1))) {
        if (SameShape(node->input(0), node->input(1))) {
          RewriteSameShapeBinary(node);
        } else if (IsOp(node, "", "Mul")) {
          RewriteChannelScale(node);
        }
      } else if (IsOp(node, "", "GlobalAveragePool") && node->num_outputs() == 1) {
        RewriteGlobalAveragePool(node);
      } else if (IsOp(node, "", "Pad")) {
        RewriteChannelPad(node);
      } else if (IsOp(node, "", "MaxPool")) {
        RewriteMaxPool(node);
      }
    }
    // Latest first: a rewritten node's own readers are gone before it is asked for readers.
    for (auto it = replaced_.rbegin(); it != replaced_.rend(); ++it) Finish(*it);
  }

  int64_t convs = 0, sums = 0, activations = 0, elementwise = 0, folded_pads = 0, reorders_in = 0,
          reorders_out = 0, casts = 0;

 private:
  // Whether `v` feeds a blockable convolution, directly or through at most `depth` blockable
  // element-wise ops.
  bool FeedsBlockedConv(const Value* v, int depth) const {
    for (const Use& use : v->uses()) {
      if (use.input_index == 0) {
        const std::optional<ConvForm> form = BlockableConv(use.user, block_);
        if (form && !form->planar) return true;
      }
      if (depth > 0 && use.input_index == 0 &&
          (IsBlockableUnary(use.user) || ZeroPads(use.user).has_value()) &&
          FeedsBlockedConv(use.user->output(0), depth - 1)) {
        return true;
      }
    }
    return false;
  }

  // Whether `v` feeds a MaxPool the blocked kernel computes, directly or through at most `depth`
  // blockable element-wise ops: a planar-input first layer then writes the blocked layout and the
  // pool runs there (ResNet's stem: 7x7 stride-2 Conv, Relu, 3x3 stride-2 MaxPool), and only the
  // pooled output, a quarter of the Conv's, is reordered.
  bool FeedsBlockedMaxPool(const Value* v, int depth) const {
    for (const Use& use : v->uses()) {
      if (use.input_index != 0) continue;
      if (BlockableMaxPoolPads(use.user)) return true;
      if (depth > 0 && IsBlockableUnary(use.user) &&
          FeedsBlockedMaxPool(use.user->output(0), depth - 1)) {
        return true;
      }
    }
    return false;
  }

  // Known, equal shapes (the same literal or the same dim_param in each dim): an Add that does
  // not broadcast.
  static bool SameShape(const Value* a, const Value* b) {
    const Type& ta = a->type();
    const Type& tb = b->type();
    if (!ta.is_tensor() || !tb.is_tensor() || ta.rank() < 0 || ta.rank() != tb.rank()) {
      return false;
    }
    for (int64_t i = 0; i < ta.rank(); ++i) {
      if (!match::SameDim(ta.shape()[i], tb.shape()[i])) return false;
    }
    return true;
  }

  // The blocked type of a [N, C, H, W] value `v`, with `channels` (C) rounded up to the block.
  Type BlockedType(const Value* v, int64_t channels) const {
    std::vector<Dim> dims = v->type().shape();
    dims[1] = Dim::Literal((channels + block_ - 1) / block_ * block_);
    return Type::Tensor(ElementType::kFloat, std::move(dims));
  }

  Node* NewNode(Node* before, const std::string& op, std::string name = "") {
    Node* node = graph_.InsertNodeBefore(before, op, kDomain);
    node->set_name(std::move(name));
    node->SetAttribute(Attribute::Int("block", block_));
    return node;
  }

  // `v` as float32 for a node inserted before `user`: itself, a float32 copy of a float16
  // constant, or (once per value) a Cast of a float16 value.
  Value* AsFloat32(Value* v, Node* user) {
    if (!match::IsFloat16Tensor(v)) return v;
    auto it = widened_.find(v);
    if (it != widened_.end()) return it->second;
    bool cast = false;
    Value* out = match::WidenFloat16(graph_, v, user, &cast);
    if (cast) ++casts;
    widened_[v] = out;
    return out;
  }

  // `v` in the blocked layout: its blocked twin, or a new ReorderInput before `user`.
  Value* Blocked(Value* v, Node* user) {
    auto it = blocked_.find(v);
    if (it != blocked_.end()) return it->second;
    Node* reorder = NewNode(user, "ReorderInput");
    reorder->AddInput(AsFloat32(v, reorder));
    Value* out = reorder->AddOutput(graph_.UniqueName(v->name() + "_nchwc"));
    out->set_type(BlockedType(v, *Channels(v)));
    ++reorders_in;
    blocked_[v] = out;
    return out;
  }

  // The blocked twin of `node`'s output 0, computed by `twin` (inserted before `node`).
  void Twin(Node* node, Node* twin, int64_t channels) {
    Value* y = node->output(0);
    Value* out = twin->AddOutput(graph_.UniqueName(y->name() + "_nchwc"));
    out->set_type(BlockedType(y, channels));
    blocked_[y] = out;
    replaced_.push_back(node);
  }

  void RewriteConv(Node* node, const ConvForm& form) {
    Value* source = node->input(0);
    std::vector<int64_t> extra_pads = {0, 0, 0, 0};
    if (auto pad = FoldedPad(node, form.pointwise)) std::tie(source, extra_pads) = *pad;
    Value* x = form.planar ? AsFloat32(source, node) : Blocked(source, node);
    Node* conv = NewNode(node, "Conv", node->name());
    if (form.planar) conv->SetAttribute(Attribute::Int("planar_input", 1));
    conv->AddInput(x);
    conv->AddInput(node->input(1));
    if (node->num_inputs() > 2 && node->input(2) != nullptr) conv->AddInput(node->input(2));
    const bool valid = node->GetString("auto_pad", "NOTSET") == "VALID";
    for (const Attribute& a : node->attributes()) {
      if (a.name() == "auto_pad" || (valid && a.name() == "pads")) continue;
      if (form.hard_sigmoid && (a.name() == "activation" || a.name() == "activation_params")) {
        continue;
      }
      conv->SetAttribute(a.Clone(&graph_));
    }
    if (valid || extra_pads != std::vector<int64_t>{0, 0, 0, 0}) {
      std::vector<int64_t> pads = valid ? std::vector<int64_t>{0, 0, 0, 0} : node->GetInts("pads");
      if (pads.empty()) pads = {0, 0, 0, 0};
      for (int i = 0; i < 4; ++i) pads[i] += extra_pads[i];
      conv->SetAttribute(Attribute::Ints("pads", pads));
      if (extra_pads != std::vector<int64_t>{0, 0, 0, 0}) ++folded_pads;
    }
    ++convs;
    if (form.hard_sigmoid) {
      // Conv, then HardSigmoid on the blocked output: the FusedConv's own two steps.
      const std::vector<float> params = node->FindAttribute("activation_params")->floats;
      Value* sum = conv->AddOutput(graph_.UniqueName(node->output(0)->name() + "_conv_nchwc"));
      sum->set_type(BlockedType(node->output(0), form.out_channels));
      Node* act = graph_.InsertNodeBefore(node, "HardSigmoid", "");
      act->SetAttribute(Attribute::Float("alpha", params[0]));
      act->SetAttribute(Attribute::Float("beta", params[1]));
      act->AddInput(sum);
      Twin(node, act, form.out_channels);
      ++elementwise;
      return;
    }
    Twin(node, conv, form.out_channels);
    if (!form.has_activation) {
      activatable_.insert(conv);
      if (form.pointwise) summable_.insert(conv);
    }
  }

  // The blocked Conv computing `v` (a value read once, by the node being rewritten, and not a graph
  // output, whose blocked twin nothing reads yet) when it is in `convs`: one whose epilogue may
  // take that node's work.
  Node* AbsorbingConv(const Value* v, const absl::flat_hash_set<const Node*>& convs) const {
    if (v->IsGraphOutput() || v->uses().size() != 1) return nullptr;
    const Value* twin = blocked_.at(v);
    Node* conv = twin->producer();
    return !twin->HasUses() && convs.contains(conv) ? conv : nullptr;
  }

  // Relu, LeakyRelu, Sigmoid, Tanh or HardSwish of a blocked Conv's output that only it reads:
  // the Conv's epilogue (the activation kernel's vector op, so the same bits).
  bool FuseActivation(Node* node) {
    const std::string& op = node->op_type();
    if (op != "Relu" && op != "LeakyRelu" && op != "Sigmoid" && op != "Tanh" && op != "HardSwish") {
      return false;
    }
    Node* conv = AbsorbingConv(node->input(0), activatable_);
    if (conv == nullptr) return false;
    conv->SetAttribute(Attribute::String("activation", op));
    if (op == "LeakyRelu") {
      conv->SetAttribute(Attribute::Floats("activation_params", {node->GetFloat("alpha", 0.01f)}));
    }
    activatable_.erase(conv);
    summable_.erase(conv);  // a Sum must come before the activation
    blocked_[node->output(0)] = blocked_[node->input(0)];
    replaced_.push_back(node);
    ++activations;
    return true;
  }

  // `node` again on the blocked twins of its first `blocked_inputs` inputs (the rest as they are:
  // Clip's scalar bounds), its output the blocked twin of node's.
  void CloneOnBlocked(Node* node, int blocked_inputs) {
    Node* op = graph_.InsertNodeBefore(node, node->op_type(), "");
    op->set_name(node->name());
    for (int i = 0; i < node->num_inputs(); ++i) {
      op->AddInput(i < blocked_inputs ? blocked_[node->input(i)] : AsFloat32(node->input(i), op));
    }
    for (const Attribute& a : node->attributes()) op->SetAttribute(a.Clone(&graph_));
    Twin(node, op, *Channels(node->output(0)));
    ++elementwise;
  }

  // Add or Mul of two blocked values of one shape: on the blocked values (the same elements in
  // another order), or an Add as the Sum of the pointwise Conv computing one operand.
  void RewriteSameShapeBinary(Node* node) {
    Value* y = node->output(0);
    for (int i = 0; i < 2 && node->op_type() == "Add"; ++i) {
      Value* a = node->input(i);
      Value* b = node->input(1 - i);
      Node* conv = a == b ? nullptr : AbsorbingConv(a, summable_);
      if (conv == nullptr) continue;
      // Y = conv + bias + sum: the Add's bits. The Conv moves to the Add (its sum is ready there).
      if (conv->num_inputs() == 2) conv->AddInput(nullptr);
      conv->AddInput(blocked_[b]);
      graph_.MoveNodeBefore(conv, node);
      summable_.erase(conv);
      blocked_[y] = blocked_[a];
      replaced_.push_back(node);
      ++sums;
      return;
    }
    CloneOnBlocked(node, 2);
  }

  // Mul of a blocked [N, C, H, W] by a blocked [N, C, 1, 1] (a squeeze-and-excitation scale):
  // com.anvil.nchwc Mul.
  void RewriteChannelScale(Node* node) {
    for (int i = 0; i < 2; ++i) {
      const Value* a = node->input(i);
      const Value* s = node->input(1 - i);
      const std::vector<Dim>& sd = s->type().shape();
      if (!Channels(a) || !Channels(s) || *Channels(s) != *Channels(a) ||
          !match::SameDim(a->type().shape()[0], sd[0]) || sd[2].value != 1 || sd[3].value != 1 ||
          !SameShape(a, node->output(0))) {
        continue;
      }
      Node* mul = NewNode(node, "Mul", node->name());
      mul->AddInput(blocked_[node->input(i)]);
      mul->AddInput(blocked_[node->input(1 - i)]);
      Twin(node, mul, *Channels(a));
      ++elementwise;
      return;
    }
  }

  // A zero Pad at the end of a blocked value's channels (BlazeFace's channel padding before a
  // residual Add): com.anvil.nchwc Pad, which zeroes the new channels and padded lanes.
  void RewriteChannelPad(Node* node) {
    const std::optional<std::vector<int64_t>> p = ZeroPads(node);
    const std::optional<int64_t> in = Channels(node->input(0));
    const std::optional<int64_t> out = Channels(node->output(0));
    if (!p || !in || !out) return;
    for (int i = 0; i < 8; ++i) {
      if (i != 5 && (*p)[i] != 0) return;
    }
    Node* pad = NewNode(node, "Pad", node->name());
    pad->SetAttribute(Attribute::Int("input_channels", *in));
    pad->SetAttribute(Attribute::Int("channels", *out));
    pad->AddInput(blocked_[node->input(0)]);
    Twin(node, pad, *out);
    ++elementwise;
  }

  // MaxPool (pads smaller than the window; no dilation, ceil_mode or Indices): com.anvil.nchwc
  // MaxPool.
  void RewriteMaxPool(Node* node) {
    const std::optional<std::vector<int64_t>> pads = BlockableMaxPoolPads(node);
    if (!pads) return;
    Node* pool = NewNode(node, "MaxPool", node->name());
    pool->SetAttribute(Attribute::Ints("kernel_shape", node->GetInts("kernel_shape")));
    const std::vector<int64_t> strides = node->GetInts("strides");
    if (!strides.empty()) pool->SetAttribute(Attribute::Ints("strides", strides));
    if (!AllEqual(*pads, 0)) pool->SetAttribute(Attribute::Ints("pads", *pads));
    pool->AddInput(blocked_[node->input(0)]);
    Twin(node, pool, *Channels(node->output(0)));
    ++elementwise;
  }

  // GlobalAveragePool of a blocked value: com.anvil.nchwc GlobalAveragePool, blocked [N, C, 1, 1].
  void RewriteGlobalAveragePool(Node* node) {
    if (!Channels(node->output(0))) return;
    Node* pool = NewNode(node, "GlobalAveragePool", node->name());
    pool->AddInput(blocked_[node->input(0)]);
    Twin(node, pool, *Channels(node->output(0)));
    ++elementwise;
  }

  // Erases a rewritten node; what still reads its output reads the blocked twin reordered back.
  void Finish(Node* node) {
    // A spatial Pad folded into this node (a Conv) dies with it when nothing else reads it, so
    // that what the Pad read is not reordered back for nothing.
    Node* folded = nullptr;
    if (node->num_inputs() > 0 && node->input(0) != nullptr &&
        SpatialPad(node->input(0)).has_value()) {
      folded = node->input(0)->producer();
    }
    Value* y = node->output(0);
    if (y->HasUses() || y->IsGraphOutput()) {
      Node* reorder = NewNode(node, "ReorderOutput");
      reorder->SetAttribute(Attribute::Int("channels", *Channels(y)));
      reorder->AddInput(blocked_[y]);
      Value* out = reorder->AddOutput(graph_.UniqueName(y->name() + "_nchw"));
      std::vector<Dim> dims = y->type().shape();
      out->set_type(Type::Tensor(ElementType::kFloat, std::move(dims)));
      if (match::IsFloat16Tensor(y)) {
        // The chain computed in float32; its value leaves it rounded to the model's float16.
        Node* cast = graph_.InsertNodeBefore(node, "Cast");
        cast->SetAttribute(Attribute::Int("to", static_cast<int64_t>(ElementType::kFloat16)));
        cast->AddInput(out);
        out = cast->AddOutput(graph_.UniqueName(y->name() + "_f16"));
        ++casts;
      }
      out->set_type(y->type());
      const std::string name = y->name();
      y->ReplaceAllUsesWith(out);
      graph_.EraseNode(node);
      out->SetName(name);
      ++reorders_out;
    } else {
      graph_.EraseNode(node);
    }
    if (folded != nullptr && folded->graph() == &graph_ && !folded->output(0)->HasUses() &&
        !folded->output(0)->IsGraphOutput()) {
      graph_.EraseNode(folded);
    }
  }

  Graph& graph_;
  int64_t block_;
  absl::flat_hash_map<const Value*, Value*> blocked_;  // a [N, C, H, W] value's blocked twin
  absl::flat_hash_map<const Value*, Value*> widened_;  // a float16 value's float32 copy
  std::vector<Node*> replaced_;                        // in node order
  // Blocked Convs without an activation (an element-wise op after them may become their
  // epilogue) and the pointwise ones among them (an Add after them may become their Sum).
  absl::flat_hash_set<const Node*> activatable_, summable_;
};

}  // namespace

absl::StatusOr<bool> NchwcLayoutPass::Run(Model& model, PassContext& ctx) {
  const int64_t block = *block_ > 0 ? *block_ : simd::NchwcBlock();
  const int64_t imported = model.OpsetVersion(kDomain);
  if (imported != -1 && imported != 1) {
    ctx.AddRemark(
        std::string("nchwc: the model imports com.anvil.nchwc at another version than 1"));
    return false;
  }
  Rewriter rewriter(model.graph(), block);
  rewriter.Run();
  ctx.AddStatistic("convs", rewriter.convs);
  ctx.AddStatistic("sums", rewriter.sums);
  ctx.AddStatistic("activations", rewriter.activations);
  ctx.AddStatistic("elementwise", rewriter.elementwise);
  ctx.AddStatistic("folded-pads", rewriter.folded_pads);
  ctx.AddStatistic("reorders-in", rewriter.reorders_in);
  ctx.AddStatistic("reorders-out", rewriter.reorders_out);
  ctx.AddStatistic("casts", rewriter.casts);
  if (rewriter.convs == 0) return false;
  if (imported == -1) model.opset_imports.push_back({kDomain, 1});
  return true;
}

ANVIL_REGISTER_PASS(NchwcLayoutPass);

}  // namespace anvil
