// Algebraic folds (fold_pattern.h): identities that drop a node (x+0, x*1, x/1, Where with a
// splat condition) and reassociation of constant chains ((x op c1) op c2 -> x op (c1 op c2)).
#include <memory>
#include <optional>
#include <vector>

#include "constprop/fold_pattern.h"
#include "graph/op_table.h"

namespace anvil {
namespace {

// The single value every element holds, as double, when the constant is a splat.
std::optional<double> SplatValue(const Elements& e) {
  const int64_t n = e.NumElements();
  if (n == 0 || e.element_type() == ElementType::kString) return std::nullopt;
  const double first = e.GetDouble(0);
  if (auto d = dynamic_cast<const DisposableElements*>(&e); d != nullptr && d->IsSplat()) {
    return first;
  }
  if (n > 4096) return std::nullopt;  // not worth scanning
  for (int64_t i = 1; i < n; ++i) {
    if (e.GetDouble(i) != first) return std::nullopt;
  }
  return first;
}

class IdentityPattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "identity"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node_ref, FoldRewriter& rw) override {
    Node* node = &node_ref;
    const std::string& op = node->op_type();
    if (node->num_outputs() != 1 || node->output(0) == nullptr) return FoldResult::kNoMatch;
    const Type& out_type = node->output(0)->type();
    auto same_type = [&](const Value* v) {
      return v != nullptr && v->type().is_tensor() && out_type.is_tensor() &&
             v->type().has_shape() && out_type.has_shape() &&
             v->type().element_type() == out_type.element_type() &&
             v->type().shape() == out_type.shape();
    };
    Value* keep = nullptr;
    if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && node->num_inputs() == 2 &&
        rw.model().OpsetVersion("") >= 7) {
      const double neutral = (op == "Add" || op == "Sub") ? 0.0 : 1.0;
      // The constant may be either operand of Add and Mul, only the second of Sub and Div.
      for (int c = 1; c >= (HasTrait(*node, kCommutative) ? 0 : 1); --c) {
        std::shared_ptr<const Elements> k = FoldRewriter::ConstantOf(node->input(c));
        if (k == nullptr) continue;
        std::optional<double> splat = SplatValue(*k);
        Value* x = node->input(1 - c);
        if (splat && *splat == neutral && same_type(x) && FoldRewriter::ConstantOf(x) == nullptr) {
          keep = x;
          break;
        }
      }
    } else if (op == "Where" && node->num_inputs() == 3) {
      std::shared_ptr<const Elements> cond = FoldRewriter::ConstantOf(node->input(0));
      if (cond != nullptr) {
        if (std::optional<double> splat = SplatValue(*cond)) {
          Value* chosen = node->input(*splat != 0 ? 1 : 2);
          if (same_type(chosen)) keep = chosen;
        }
      }
    }
    if (keep == nullptr) return FoldResult::kNoMatch;
    rw.Count("identities", 1);
    std::vector<Value*> inputs(node->inputs().begin(), node->inputs().end());
    rw.ReplaceOutputWithValue(g, node, 0, keep);
    rw.EraseAndRename(g, node);
    rw.DropDeadConstants(inputs);
    return FoldResult::kErased;
  }
};

class ReassociatePattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "reassociate"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node_ref, FoldRewriter& rw) override {
    Node* node = &node_ref;
    const std::string& op = node->op_type();
    if ((op != "Add" && op != "Mul") || node->num_inputs() != 2) return FoldResult::kNoMatch;
    for (int c2_index = 0; c2_index < 2; ++c2_index) {
      Value* c2 = node->input(c2_index);
      Value* y = node->input(1 - c2_index);
      if (FoldRewriter::ConstantOf(c2) == nullptr || y == nullptr ||
          FoldRewriter::ConstantOf(y) != nullptr)
        continue;
      Node* inner = y->producer();
      if (inner == nullptr || inner->op_type() != op || inner->graph() != &g ||
          y->uses().size() != 1 || y->IsGraphOutput() || inner->num_inputs() != 2) {
        continue;
      }
      for (int c1_index = 0; c1_index < 2; ++c1_index) {
        Value* c1 = inner->input(c1_index);
        Value* x = inner->input(1 - c1_index);
        if (FoldRewriter::ConstantOf(c1) == nullptr || x == nullptr ||
            FoldRewriter::ConstantOf(x) != nullptr)
          continue;
        // Types must agree so combining the constants first changes nothing but rounding.
        if (c1->type().element_type() != c2->type().element_type()) continue;
        Node* combined = rw.InsertNodeBefore(g, node, op);
        combined->AddInput(c1);
        combined->AddInput(c2);
        combined->AddOutput(g.UniqueName(absl::StrCat(node->output(0)->name(), "_c")));
        rw.SetInput(node, c2_index, combined->output(0));
        rw.SetInput(node, 1 - c2_index, x);
        rw.EraseNode(g, inner);
        rw.Count("reassociations", 1);
        return FoldResult::kRewired;  // its new constant folds on the next sweep
      }
    }
    return FoldResult::kNoMatch;
  }
};

}  // namespace

std::unique_ptr<FoldPattern> MakeIdentityPattern() { return std::make_unique<IdentityPattern>(); }
std::unique_ptr<FoldPattern> MakeReassociatePattern() {
  return std::make_unique<ReassociatePattern>();
}

}  // namespace anvil
