#include "graph/passes/fold_batchnorm.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/float16.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"

namespace anvil {
namespace {

bool IsFloatingPoint(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kDouble ||
         type == ElementType::kFloat16 || type == ElementType::kBfloat16;
}

// The values of a floating-point initializer with `count` elements, in double. (The statistics
// may be of another float type than X: BatchNormalization-15's T1 and T2.)
std::optional<std::vector<double>> Read(const Value* v, int64_t count) {
  if (v == nullptr || !v->IsInitializer()) return std::nullopt;
  const Elements& e = *v->constant();
  if (!IsFloatingPoint(e.element_type()) || e.NumElements() != count) return std::nullopt;
  std::vector<double> out(count);
  for (int64_t i = 0; i < count; ++i) out[i] = e.GetDouble(i);
  return out;
}

// `values` as an initializer of `type` (rounded once, from the double folding).
std::shared_ptr<const Elements> Write(ElementType type, std::vector<int64_t> dims,
                                      const std::vector<double>& values) {
  if (type == ElementType::kDouble) return DenseElements::FromVector(type, std::move(dims), values);
  if (type == ElementType::kFloat16 || type == ElementType::kBfloat16) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const float f = static_cast<float>(values[i]);
      bits[i] = type == ElementType::kFloat16 ? fp16::FloatToHalf(f) : fp16::FloatToBfloat16(f);
    }
    return DenseElements::FromVector(type, std::move(dims), bits);
  }
  std::vector<float> floats(values.begin(), values.end());
  return DenseElements::FromVector(type, std::move(dims), floats);
}

class Folder {
 public:
  explicit Folder(int64_t opset) : opset_(opset) {}

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      if (node->op_type() == "BatchNormalization" && node->domain().empty()) {
        changed |= Fold(graph, *node);
      }
    }
    return changed;
  }

  int64_t folded() const { return folded_; }

 private:
  bool Fold(Graph& graph, Node& bn) {
    if (bn.num_inputs() != 5 || bn.GetInt("training_mode", 0) != 0) return false;
    if (opset_ < 9 && bn.GetInt("spatial", 1) != 1) return false;
    for (int i = 1; i < bn.num_outputs(); ++i) {
      if (bn.output(i) != nullptr) return false;
    }
    Value* y = bn.num_outputs() > 0 ? bn.output(0) : nullptr;
    Value* x = bn.input(0);
    if (y == nullptr || y->IsGraphOutput() || x == nullptr || x->IsGraphOutput()) return false;
    if (x->uses().size() != 1) return false;
    Node* conv = x->producer();
    if (conv == nullptr || conv->op_type() != "Conv" || !conv->domain().empty() ||
        conv->graph() != &graph || conv->num_inputs() < 2) {
      return false;
    }
    const Value* w = conv->input(1);
    if (w == nullptr || !w->IsInitializer()) return false;
    const ElementType type = w->constant()->element_type();
    if (!IsFloatingPoint(type)) return false;
    const std::vector<int64_t> w_dims(w->constant()->dims().begin(), w->constant()->dims().end());
    if (w_dims.size() < 3 || w_dims[0] <= 0) return false;
    const int64_t m = w_dims[0];
    const int64_t per_channel = w->constant()->NumElements() / m;
    std::optional<std::vector<double>> weights = Read(w, m * per_channel);
    std::optional<std::vector<double>> scale = Read(bn.input(1), m);
    std::optional<std::vector<double>> bias = Read(bn.input(2), m);
    std::optional<std::vector<double>> mean = Read(bn.input(3), m);
    std::optional<std::vector<double>> var = Read(bn.input(4), m);
    if (!weights || !scale || !bias || !mean || !var) return false;
    std::vector<double> conv_bias(m, 0.0);
    if (conv->num_inputs() > 2 && conv->input(2) != nullptr) {
      const Value* b_value = conv->input(2);
      if (!b_value->IsInitializer() || b_value->constant()->element_type() != type) return false;
      std::optional<std::vector<double>> b = Read(b_value, m);
      if (!b) return false;
      conv_bias = *b;
    }
    for (const Value* stat : {bn.input(1), bn.input(2), bn.input(3), bn.input(4)}) {
      if (stat->constant()->dims().size() != 1) return false;
    }

    const double epsilon = bn.GetFloat("epsilon", 1e-5f);
    std::vector<double> new_bias(m);
    for (int64_t c = 0; c < m; ++c) {
      const double f = (*scale)[c] / std::sqrt((*var)[c] + epsilon);
      for (int64_t i = 0; i < per_channel; ++i) (*weights)[c * per_channel + i] *= f;
      new_bias[c] = (conv_bias[c] - (*mean)[c]) * f + (*bias)[c];
    }
    Value* new_w = graph.AddInitializer(graph.UniqueName(w->name() + "_folded"),
                                        Write(type, w_dims, *weights));
    Value* new_b = graph.AddInitializer(graph.UniqueName(y->name() + "_bias_folded"),
                                        Write(type, {m}, new_bias));
    conv->SetInput(1, new_w);
    if (conv->num_inputs() > 2) {
      conv->SetInput(2, new_b);
    } else {
      conv->AddInput(new_b);
    }
    y->ReplaceAllUsesWith(x);
    graph.EraseNode(&bn);
    ++folded_;
    return true;
  }

  int64_t opset_;
  int64_t folded_ = 0;
};

}  // namespace

absl::StatusOr<bool> FoldBatchNormPass::Run(Model& model, PassContext& ctx) {
  Folder folder(model.OpsetVersion(""));
  const bool changed = folder.Run(model.graph());
  ctx.AddStatistic("folded", folder.folded());
  return changed;
}

ANVIL_REGISTER_PASS(FoldBatchNormPass);

}  // namespace anvil
