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

constexpr char kContrib[] = "com.microsoft";

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

// A node's attribute list of one (attributes move; an initializer list would copy).
std::vector<Attribute> Attributes(Attribute a) {
  std::vector<Attribute> v;
  v.push_back(std::move(a));
  return v;
}

// One value, for a per-tensor scale or zero point.
bool OneValue(const Value* v) {
  const Elements* e = match::RunConstant(v);
  return e != nullptr && e->NumElements() == 1;
}

class Fuser {
 public:
  explicit Fuser(Model& model) : model_(model) {}

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= Fuse(graph, node);
    }
    return changed;
  }

  int64_t conv_fused = 0, matmul_fused = 0, gemm_fused = 0, elementwise_fused = 0, pool_fused = 0,
          concat_fused = 0;

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

  // `q`'s zero point, or a new zero constant of `type` when it has none: a scalar, or one per
  // scale when the scale is 1-D (ONNX Runtime's QGemm wants b_zero_point shaped as b_scale).
  Value* ZeroPoint(Graph& graph, const Quantization& q, ElementType type) {
    if (q.zero != nullptr) return q.zero;
    const Elements* scale = match::RunConstant(q.scale);
    std::vector<int64_t> dims;
    if (scale != nullptr && !scale->dims().empty()) dims = {scale->NumElements()};
    const int64_t n = dims.empty() ? 1 : dims[0];
    const std::vector<uint8_t> zero(static_cast<size_t>(n * ElementSize(type)), 0);
    return graph.AddInitializer(graph.UniqueName(q.data->name() + "_zero_point"),
                                DenseElements::FromVector(type, dims, zero));
  }

  // A per-tensor DequantizeLinear of 8-bit data of `type` (the QLinear contrib ops take one
  // type for their inputs and output).
  static std::optional<Quantization> PerTensorDq(Value* v, ElementType type) {
    std::optional<Quantization> dq = ActivationDq(v);
    if (!dq || dq->data->type().element_type() != type) return std::nullopt;
    return dq;
  }

  // inputs (data, scale, zero point) of a per-tensor quantization, zero point made when absent.
  void Append(Graph& graph, const Quantization& q, ElementType type, std::vector<Value*>& out) {
    out.push_back(q.data);
    out.push_back(q.scale);
    out.push_back(ZeroPoint(graph, q, type));
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
    if (Is(op, "Gemm")) return FuseGemm(graph, *q, op, y_type);
    if (Is(op, "Add") || Is(op, "Mul")) return FuseBinary(graph, *q, op, y_type);
    if (Is(op, "Sigmoid") || Is(op, "LeakyRelu") || Is(op, "GlobalAveragePool") ||
        Is(op, "AveragePool")) {
      return FuseUnary(graph, *q, op, y_type);
    }
    if (Is(op, "Concat")) return FuseConcat(graph, *q, op, y_type);
    return false;
  }

  // Q(Add|Mul(DQ(a), DQ(b))) -> com.microsoft QLinearAdd|QLinearMul(a, .., b, .., y_s, y_zp).
  bool FuseBinary(Graph& graph, const Quantization& q, Node* op, ElementType y_type) {
    if (op->num_inputs() != 2 || !match::AllIn(graph, {op, q.node})) return false;
    std::optional<Quantization> a = PerTensorDq(op->input(0), y_type);
    std::optional<Quantization> b = PerTensorDq(op->input(1), y_type);
    if (!a || !b || !match::UseContribOpset(model_)) return false;
    std::vector<Value*> inputs;
    Append(graph, *a, y_type, inputs);
    Append(graph, *b, y_type, inputs);
    inputs.push_back(q.scale);
    inputs.push_back(ZeroPoint(graph, q, y_type));
    match::ReplaceWith(graph, q.node, Is(op, "Add") ? "QLinearAdd" : "QLinearMul", kContrib, inputs,
                       {}, {op}, &erased_);
    ++elementwise_fused;
    return true;
  }

  // Q(Sigmoid|LeakyRelu|GlobalAveragePool|AveragePool(DQ(x))) -> their com.microsoft QLinear
  // forms (x, x_s, x_zp, y_s, y_zp). AveragePool with dilations (opset 19) stays.
  bool FuseUnary(Graph& graph, const Quantization& q, Node* op, ElementType y_type) {
    if (op->num_inputs() != 1 || !match::AllIn(graph, {op, q.node})) return false;
    std::optional<Quantization> x = PerTensorDq(op->input(0), y_type);
    if (!x) return false;
    if (Is(op, "AveragePool")) {
      if (const Attribute* d = op->FindAttribute("dilations"); d != nullptr) {
        for (int64_t v : d->ints) {
          if (v != 1) return false;
        }
      }
    }
    if (!match::UseContribOpset(model_)) return false;
    std::vector<Attribute> attrs;
    std::string fused;
    if (Is(op, "AveragePool")) {
      for (Attribute& a : *op->mutable_attributes()) {  // op is erased
        if (a.name() != "dilations") attrs.push_back(std::move(a));
      }
      fused = "QLinearAveragePool";
    } else if (Is(op, "GlobalAveragePool")) {
      attrs.push_back(Attribute::Int("channels_last", 0));
      fused = "QLinearGlobalAveragePool";
    } else if (Is(op, "LeakyRelu")) {
      attrs.push_back(Attribute::Float("alpha", op->GetFloat("alpha", 0.01f)));
      fused = "QLinearLeakyRelu";
    } else {
      fused = "QLinearSigmoid";
    }
    std::vector<Value*> inputs;
    Append(graph, *x, y_type, inputs);
    inputs.push_back(q.scale);
    inputs.push_back(ZeroPoint(graph, q, y_type));
    ++(Is(op, "Sigmoid") || Is(op, "LeakyRelu") ? elementwise_fused : pool_fused);
    match::ReplaceWith(graph, q.node, fused, kContrib, inputs, std::move(attrs), {op}, &erased_);
    return true;
  }

  // Q(Concat(DQ(x_1), ..., DQ(x_n))) -> com.microsoft QLinearConcat(y_s, y_zp, x_1, .., ...).
  bool FuseConcat(Graph& graph, const Quantization& q, Node* concat, ElementType y_type) {
    if (concat->num_inputs() < 1 || concat->FindAttribute("axis") == nullptr ||
        !match::AllIn(graph, {concat, q.node})) {
      return false;
    }
    std::vector<Quantization> xs;
    for (int i = 0; i < concat->num_inputs(); ++i) {
      std::optional<Quantization> x = PerTensorDq(concat->input(i), y_type);
      if (!x) return false;
      xs.push_back(*x);
    }
    if (!match::UseContribOpset(model_)) return false;
    std::vector<Value*> inputs = {q.scale, ZeroPoint(graph, q, y_type)};
    for (const Quantization& x : xs) Append(graph, x, y_type, inputs);
    match::ReplaceWith(graph, q.node, "QLinearConcat", kContrib, inputs,
                       Attributes(Attribute::Int("axis", concat->GetInt("axis", 0))), {concat},
                       &erased_);
    ++concat_fused;
    return true;
  }

  // Q(Gemm(DQ(a), DQ(b), DQ(c)?)) with alpha = beta = 1 -> com.microsoft QGemm(a, .., b, ..,
  // c?, y_s, y_zp): b per tensor or per output column (axis 1 of B, 0 of a transposed B); c an
  // int32 bias at scale a_s * b_s[j] with zero point 0, as for QLinearConv.
  bool FuseGemm(Graph& graph, const Quantization& q, Node* gemm, ElementType y_type) {
    if (gemm->num_inputs() < 2 || gemm->GetFloat("alpha", 1.0f) != 1.0f ||
        gemm->GetFloat("beta", 1.0f) != 1.0f || gemm->GetInt("transA", 0) != 0 ||
        !match::AllIn(graph, {gemm, q.node})) {
      return false;
    }
    const bool trans_b = gemm->GetInt("transB", 0) != 0;
    std::optional<Quantization> a = ActivationDq(gemm->input(0));
    std::optional<Quantization> b = WeightDq(gemm->input(1), trans_b ? 0 : 1);
    if (!a || !b || match::RunConstant(b->data)->dims().size() != 2) return false;
    const int64_t N = match::RunConstant(b->data)->dims()[trans_b ? 0 : 1];
    Value* bias = nullptr;
    if (gemm->num_inputs() > 2 && gemm->input(2) != nullptr) {
      bias = QuantizedBias(gemm->input(2), *a, *b, N);
      if (bias == nullptr) return false;
    }
    if (!match::UseContribOpset(model_)) return false;
    std::vector<Value*> inputs;
    Append(graph, *a, a->data->type().element_type(), inputs);
    Append(graph, *b, match::RunConstant(b->data)->element_type(), inputs);
    inputs.push_back(bias);
    inputs.push_back(q.scale);
    inputs.push_back(ZeroPoint(graph, q, y_type));
    match::ReplaceWith(graph, q.node, "QGemm", kContrib, inputs,
                       Attributes(Attribute::Int("transB", trans_b ? 1 : 0)), {gemm}, &erased_);
    ++gemm_fused;
    return true;
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

  Model& model_;
  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseQdqPass::Run(Model& model, PassContext& ctx) {
  // QLinearConv and QLinearMatMul are ONNX ops from opset 10.
  if (model.OpsetVersion("") < 10) return false;
  Fuser fuser(model);
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("qlinear-conv", fuser.conv_fused);
  ctx.AddStatistic("qlinear-matmul", fuser.matmul_fused);
  ctx.AddStatistic("qgemm", fuser.gemm_fused);
  ctx.AddStatistic("qlinear-elementwise", fuser.elementwise_fused);
  ctx.AddStatistic("qlinear-pool", fuser.pool_fused);
  ctx.AddStatistic("qlinear-concat", fuser.concat_fused);
  return changed;
}

ANVIL_REGISTER_PASS(FuseQdqPass);

}  // namespace anvil
