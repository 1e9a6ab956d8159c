#include "kernels/widen_float16.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"
#include "graph/passes/match.h"

namespace anvil {
namespace {

// Ops whose kernels compute float16 in float32 and round the result (their ComputeType of
// float16 is float): in a region they run on its float32 values instead.
bool Widened(const Node& node) {
  // clang-format off
  static const auto* ops = new absl::flat_hash_set<std::string_view>{
      "Conv", "ConvTranspose", "MatMul", "Gemm",
      "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Resize", "Upsample",
      "BatchNormalization", "InstanceNormalization", "LayerNormalization",
      "Softmax", "LogSoftmax",
      "Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean",
      "Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "Clip", "HardSigmoid", "HardSwish", "Elu",
      "Selu", "Erf", "Exp", "Log", "Sqrt", "Neg", "Abs",
      "ReduceMean", "ReduceMax", "ReduceSum"};
  // clang-format on
  static const auto* contrib =
      new absl::flat_hash_set<std::string_view>{"FusedConv", "FusedMatMul", "Gelu", "QuickGelu"};
  if (node.domain().empty() || node.domain() == "ai.onnx") return ops->contains(node.op_type());
  return node.domain() == "com.microsoft" && contrib->contains(node.op_type());
}

// Ops that move float16 data without arithmetic: in a region when a region value feeds them
// (their output then stays in the region rather than being narrowed at their input).
bool Moves(const Node& node) {
  static const auto* ops = new absl::flat_hash_set<std::string_view>{
      "Concat", "Reshape", "Transpose", "Slice",        "Split",
      "Pad",    "Flatten", "Squeeze",   "Unsqueeze",    "Identity",
      "Expand", "Tile",    "Gather",    "DepthToSpace", "SpaceToDepth"};
  return (node.domain().empty() || node.domain() == "ai.onnx") && ops->contains(node.op_type());
}

// Ops that read only a tensor's shape: they read a region value as it is.
bool ReadsShapeOnly(const Node& node) {
  return (node.domain().empty() || node.domain() == "ai.onnx") &&
         (node.op_type() == "Shape" || node.op_type() == "Size");
}

Type Float32Like(const Value* v) {
  std::vector<Dim> dims = v->type().shape();
  return Type::Tensor(ElementType::kFloat, std::move(dims));
}

class Widener {
 public:
  explicit Widener(Graph& graph) : graph_(graph) {}

  bool Run() {
    const std::vector<Node*> nodes = graph_.NodesSnapshot();
    for (Node* node : nodes) {
      if (!node->Subgraphs().empty()) continue;
      bool float16 = false, from_region = false;
      for (int i = 0; i < node->num_inputs(); ++i) {
        const Value* v = node->input(i);
        if (region_.contains(v)) from_region = true;
        if (match::IsFloat16Tensor(v)) float16 = true;
      }
      for (int i = 0; i < node->num_outputs(); ++i)
        float16 |= match::IsFloat16Tensor(node->output(i));
      if (!float16 && !from_region) continue;
      if (!Widened(*node) && !(Moves(*node) && from_region)) continue;
      for (int i = 0; i < node->num_inputs(); ++i) {
        Value* v = node->input(i);
        if (match::IsFloat16Tensor(v)) node->SetInput(i, AsFloat32(v, node));
      }
      for (int i = 0; i < node->num_outputs(); ++i) {
        Value* y = node->output(i);
        if (!match::IsFloat16Tensor(y)) continue;
        y->set_type(Float32Like(y));
        region_.insert(y);
        retyped_.push_back(y);
      }
      rewritten_.insert(node);
      ++rewritten;
    }
    for (Value* y : retyped_) Narrow(y);
    return rewritten > 0;
  }

  int64_t rewritten = 0, casts = 0, constants = 0;

 private:
  // `v` (float16, from outside the region) as float32 for `user`: a float32 copy of a constant,
  // or a Cast before `user` (once per value).
  Value* AsFloat32(Value* v, Node* user) {
    auto it = widened_.find(v);
    if (it != widened_.end()) return it->second;
    bool cast = false;
    Value* out = match::WidenFloat16(graph_, v, user, &cast);
    ++(cast ? casts : constants);
    widened_[v] = out;
    return out;
  }

  // The node of this graph that holds `user` (itself, or the node owning its subgraph).
  Node* InThisGraph(Node* user) const {
    while (user != nullptr && user->graph() != &graph_) user = user->graph()->owner_node();
    return user;
  }

  // Gives y's readers outside the region (and the graph output) y rounded to float16 by one
  // Cast, which takes over y's name where y is a graph output.
  void Narrow(Value* y) {
    std::vector<Use> outside;
    Node* first = nullptr;
    for (const Use& use : y->uses()) {
      if (rewritten_.contains(use.user) || ReadsShapeOnly(*use.user)) continue;
      outside.push_back(use);
      Node* holder = InThisGraph(use.user);
      if (holder != nullptr &&
          (first == nullptr || graph_.NodeIndex(holder) < graph_.NodeIndex(first))) {
        first = holder;
      }
    }
    if (outside.empty() && !y->IsGraphOutput()) return;
    Node* cast = first != nullptr ? graph_.InsertNodeBefore(first, "Cast") : graph_.AddNode("Cast");
    cast->SetAttribute(Attribute::Int("to", static_cast<int64_t>(ElementType::kFloat16)));
    cast->AddInput(y);
    Value* narrow = cast->AddOutput(graph_.UniqueName(y->name() + "_f16"));
    std::vector<Dim> dims = y->type().shape();
    narrow->set_type(Type::Tensor(ElementType::kFloat16, std::move(dims)));
    ++casts;
    for (const Use& use : outside) use.user->SetInput(use.input_index, narrow);
    if (y->IsGraphOutput()) {
      for (int i = 0; i < static_cast<int>(graph_.outputs().size()); ++i) {
        if (graph_.outputs()[i] == y) graph_.SetOutput(i, narrow);
      }
      const std::string name = y->name();
      y->SetName(graph_.UniqueName(name + "_f32"));
      narrow->SetName(name);
    }
  }

  Graph& graph_;
  absl::flat_hash_set<const Value*> region_;  // float16 values now computed in float32
  std::vector<Value*> retyped_;               // the same, in node order
  absl::flat_hash_set<const Node*> rewritten_;
  absl::flat_hash_map<const Value*, Value*> widened_;  // an outside float16 value's float32 twin
};

}  // namespace

absl::StatusOr<bool> WidenFloat16Pass::Run(Model& model, PassContext& ctx) {
  Widener widener(model.graph());
  const bool changed = widener.Run();
  ctx.AddStatistic("nodes", widener.rewritten);
  ctx.AddStatistic("casts", widener.casts);
  ctx.AddStatistic("constants", widener.constants);
  return changed;
}

ANVIL_REGISTER_PASS(WidenFloat16Pass);

}  // namespace anvil
