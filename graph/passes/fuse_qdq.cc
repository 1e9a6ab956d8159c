#include "graph/passes/fuse_qdq.h"

#include <cstdint>
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

using match::Is;
using match::OnlyFeeds;

bool IsEightBit(ElementType t) { return t == ElementType::kUint8 || t == ElementType::kInt8; }

// The operands of a DequantizeLinear (or QuantizeLinear): data, scale, zero point (null when
// absent) and the axis its 1-D parameters run along.
struct Quantization {
  Node* node = nullptr;
  Value* data = nullptr;
  Value* scale = nullptr;
  Value* zero = nullptr;
  int64_t axis = 1;
};

// `node` as a per-tensor or per-axis (de)quantization of `op_type` with a float32 scale, no
// block size and no output_dtype (opset 21); nullopt otherwise.
std::optional<Quantization> QuantizationOf(Node* node, const char* op_type) {
  if (!Is(node, op_type) || node->num_inputs() < 2 || node->input(0) == nullptr ||
      node->input(1) == nullptr) {
    return std::nullopt;
  }
  if (node->GetInt("block_size", 0) != 0 || node->GetInt("output_dtype", 0) != 0) {
    return std::nullopt;
  }
  Quantization q;
  q.node = node;
  q.data = node->input(0);
  q.scale = node->input(1);
  q.zero = node->num_inputs() > 2 ? node->input(2) : nullptr;
  q.axis = node->GetInt("axis", 1);
  const Elements* scale = match::RunConstant(q.scale);
  if (scale == nullptr || scale->element_type() != ElementType::kFloat) return std::nullopt;
  if (q.zero != nullptr) {
    const Elements* zero = match::RunConstant(q.zero);
    if (zero == nullptr || zero->NumElements() != scale->NumElements()) return std::nullopt;
  }
  return q;
}

// One value, for a per-tensor scale or zero point.
bool OneValue(const Value* v) {
  const Elements* e = match::RunConstant(v);
  return e != nullptr && e->NumElements() == 1;
}

class Fuser {
 public:
  Fuser() = default;

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= Fuse(graph, node);
    }
    return changed;
  }

  int64_t conv_fused = 0, matmul_fused = 0;

 private:
  // An activation's DequantizeLinear: 8-bit data, one scale and zero point.
  static std::optional<Quantization> ActivationDq(Value* v) {
    if (v == nullptr) return std::nullopt;
    std::optional<Quantization> dq = QuantizationOf(v->producer(), "DequantizeLinear");
    if (!dq || !IsEightBit(dq->data->type().element_type()) || !OneValue(dq->scale) ||
        (dq->zero != nullptr && !OneValue(dq->zero))) {
      return std::nullopt;
    }
    return dq;
  }

  // A weight's DequantizeLinear: 8-bit constant data of rank >= 2, scale and zero point one
  // value or one per index of `axis` (negative: counted from the end).
  static std::optional<Quantization> WeightDq(Value* v, int64_t axis) {
    if (v == nullptr) return std::nullopt;
    std::optional<Quantization> dq = QuantizationOf(v->producer(), "DequantizeLinear");
    if (!dq) return std::nullopt;
    const Elements* data = match::RunConstant(dq->data);
    if (data == nullptr || !IsEightBit(data->element_type()) || data->dims().size() < 2) {
      return std::nullopt;
    }
    const int64_t rank = static_cast<int64_t>(data->dims().size());
    const int64_t a = axis < 0 ? axis + rank : axis;
    const int64_t scales = match::RunConstant(dq->scale)->NumElements();
    if (scales == 1) return dq;
    const int64_t dq_axis = dq->axis < 0 ? dq->axis + rank : dq->axis;
    if (dq_axis != a || scales != data->dims()[a] ||
        match::RunConstant(dq->scale)->dims().size() != 1) {
      return std::nullopt;
    }
    return dq;
  }

  // `q`'s zero point, or a new zero constant of `type` when it has none.
  Value* ZeroPoint(Graph& graph, const Quantization& q, ElementType type) {
    if (q.zero != nullptr) return q.zero;
    const std::vector<uint8_t> zero = {0};
    return graph.AddInitializer(graph.UniqueName(q.data->name() + "_zero_point"),
                                DenseElements::FromVector(type, {}, zero));
  }

  bool Fuse(Graph& graph, Node* node) {
    std::optional<Quantization> q = QuantizationOf(node, "QuantizeLinear");
    if (!q || !OneValue(q->scale) || (q->zero != nullptr && !OneValue(q->zero))) return false;
    const ElementType y_type =
        q->zero != nullptr ? match::RunConstant(q->zero)->element_type() : ElementType::kUint8;
    if (!IsEightBit(y_type)) return false;
    Node* op = q->data->producer();
    if (op == nullptr || !OnlyFeeds(q->data, node) || op->num_outputs() != 1) return false;
    if (Is(op, "Conv")) return FuseConv(graph, *q, op, y_type);
    if (Is(op, "MatMul")) return FuseMatMul(graph, *q, op, y_type);
    return false;
  }

  bool FuseConv(Graph& graph, const Quantization& q, Node* conv, ElementType y_type) {
    if (conv->num_inputs() < 2 || !match::AllIn(graph, {conv, q.node})) return false;
    std::optional<Quantization> x = ActivationDq(conv->input(0));
    std::optional<Quantization> w = WeightDq(conv->input(1), 0);
    if (!x || !w) return false;
    const Elements* w_data = match::RunConstant(w->data);
    const int64_t M = w_data->dims()[0];
    Value* bias = nullptr;
    if (conv->num_inputs() > 2 && conv->input(2) != nullptr) {
      bias = QuantizedBias(conv->input(2), *x, *w, M);
      if (bias == nullptr) return false;
    }
    std::vector<Value*> inputs = {x->data,
                                  x->scale,
                                  ZeroPoint(graph, *x, x->data->type().element_type()),
                                  w->data,
                                  w->scale,
                                  ZeroPoint(graph, *w, w_data->element_type()),
                                  q.scale,
                                  ZeroPoint(graph, q, y_type)};
    if (bias != nullptr) inputs.push_back(bias);
    std::vector<Attribute> attrs = std::move(*conv->mutable_attributes());  // conv is erased
    match::ReplaceWith(graph, q.node, "QLinearConv", "", inputs, std::move(attrs), {conv},
                       &erased_);
    ++conv_fused;
    return true;
  }

  bool FuseMatMul(Graph& graph, const Quantization& q, Node* matmul, ElementType y_type) {
    if (matmul->num_inputs() != 2 || !match::AllIn(graph, {matmul, q.node})) return false;
    std::optional<Quantization> a = ActivationDq(matmul->input(0));
    std::optional<Quantization> b = WeightDq(matmul->input(1), 1);
    if (!a || !b || match::RunConstant(b->data)->dims().size() != 2) return false;
    const std::vector<Value*> inputs = {
        a->data,
        a->scale,
        ZeroPoint(graph, *a, a->data->type().element_type()),
        b->data,
        b->scale,
        ZeroPoint(graph, *b, match::RunConstant(b->data)->element_type()),
        q.scale,
        ZeroPoint(graph, q, y_type)};
    match::ReplaceWith(graph, q.node, "QLinearMatMul", "", inputs, {}, {matmul}, &erased_);
    ++matmul_fused;
    return true;
  }

  // The int32 constant behind a Conv bias `v` = DequantizeLinear(b, scale, 0) whose scale is
  // x_s * w_s[m] exactly (the scale QLinearConv's bias has), or null.
  static Value* QuantizedBias(Value* v, const Quantization& x, const Quantization& w, int64_t M) {
    std::optional<Quantization> dq = QuantizationOf(v->producer(), "DequantizeLinear");
    if (!dq) return nullptr;
    const Elements* data = match::RunConstant(dq->data);
    if (data == nullptr || data->element_type() != ElementType::kInt32 ||
        data->NumElements() != M || data->dims().size() != 1) {
      return nullptr;
    }
    const Elements* scale = match::RunConstant(dq->scale);
    const int64_t scales = scale->NumElements();
    if (scales != 1 && scales != M) return nullptr;
    if (dq->zero != nullptr) {
      const Elements* zero = match::RunConstant(dq->zero);
      for (int64_t i = 0; i < zero->NumElements(); ++i) {
        if (zero->GetDouble(i) != 0.0) return nullptr;
      }
    }
    const float x_scale = static_cast<float>(match::RunConstant(x.scale)->GetDouble(0));
    const Elements* w_scale = match::RunConstant(w.scale);
    for (int64_t m = 0; m < M; ++m) {
      const float ws = static_cast<float>(w_scale->GetDouble(w_scale->NumElements() == 1 ? 0 : m));
      const float bs = static_cast<float>(scale->GetDouble(scales == 1 ? 0 : m));
      if (bs != x_scale * ws) return nullptr;
    }
    return dq->data;
  }

  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseQdqPass::Run(Model& model, PassContext& ctx) {
  // QLinearConv and QLinearMatMul are ONNX ops from opset 10.
  if (model.OpsetVersion("") < 10) return false;
  Fuser fuser;
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("qlinear-conv", fuser.conv_fused);
  ctx.AddStatistic("qlinear-matmul", fuser.matmul_fused);
  return changed;
}

ANVIL_REGISTER_PASS(FuseQdqPass);

}  // namespace anvil
