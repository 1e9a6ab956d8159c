// Structural folds (fold_pattern.h): an If with a constant condition is inlined; Shape and Size
// of a statically shaped input become constants.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "constprop/fold_pattern.h"

namespace anvil {
namespace {

std::vector<int64_t> StaticDims(const Type& t) {
  std::vector<int64_t> dims;
  for (const Dim& d : t.shape()) dims.push_back(*d.value);
  return dims;
}

class InlineIfPattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "inline-if"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node_ref, FoldRewriter& rw) override {
    Node* node = &node_ref;
    if (node->op_type() != "If") return FoldResult::kNoMatch;
    std::shared_ptr<const Elements> cond = FoldRewriter::ConstantOf(node->input(0));
    if (cond == nullptr || cond->NumElements() != 1) return FoldResult::kNoMatch;
    const Attribute* branch_attr =
        node->FindAttribute(cond->GetDouble(0) != 0 ? "then_branch" : "else_branch");
    if (branch_attr == nullptr || branch_attr->graphs.empty()) return FoldResult::kNoMatch;
    const Graph& branch = *branch_attr->graphs[0];
    if (branch.outputs().size() != static_cast<size_t>(node->num_outputs())) {
      return FoldResult::kNoMatch;
    }
    absl::flat_hash_map<const Value*, Value*> map;
    for (const Value* init : branch.initializers()) {
      map[init] = g.AddInitializer(g.UniqueName(init->name()), init->constant());
    }
    for (const Node* inner : branch.nodes()) {
      Node* copy = g.CloneNode(*inner, &map);
      g.MoveNodeBefore(copy, node);
      rw.NodeAdded(*copy);
    }
    for (int i = 0; i < node->num_outputs(); ++i) {
      Value* from = branch.outputs()[i];
      auto it = map.find(from);
      if (it == map.end()) {
        rw.ReplaceOutputWithValue(g, node, i, from);
      } else {
        rw.ReplaceOutputWithValue(g, node, i, it->second, /*fresh=*/true);
      }
    }
    rw.Count("branches-inlined", 1);
    rw.EraseAndRename(g, node);
    return FoldResult::kErased;
  }
};

class ShapeSizePattern final : public FoldPattern {
 public:
  std::string_view name() const override { return "shape-size"; }

  absl::StatusOr<FoldResult> Apply(Graph& g, Node& node_ref, FoldRewriter& rw) override {
    Node* node = &node_ref;
    const std::string& op = node->op_type();
    if ((op != "Shape" && op != "Size") || node->num_inputs() < 1 || node->input(0) == nullptr) {
      return FoldResult::kNoMatch;
    }
    const Type& t = node->input(0)->type();
    if (!t.is_tensor() || !t.IsStatic()) return FoldResult::kNoMatch;
    std::vector<int64_t> dims = StaticDims(t);
    std::vector<int64_t> values;
    std::vector<int64_t> out_dims;
    if (op == "Size") {
      int64_t n = 1;
      for (int64_t d : dims) n *= d;
      values = {n};
    } else {
      const int64_t rank = static_cast<int64_t>(dims.size());
      int64_t start = node->GetInt("start", 0), end = node->GetInt("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, 0, rank);
      for (int64_t k = start; k < end; ++k) values.push_back(dims[k]);
      out_dims = {static_cast<int64_t>(values.size())};
    }
    auto buffer = rw.pool().Allocate(values.size() * sizeof(int64_t));
    std::memcpy(buffer->mutable_data(), values.data(), values.size() * sizeof(int64_t));
    rw.Count("shapes-folded", 1);
    rw.ReplaceWithConstants(g, node,
                            {DisposableElements::Dense(buffer, ElementType::kInt64, out_dims)});
    return FoldResult::kErased;
  }
};

}  // namespace

std::unique_ptr<FoldPattern> MakeInlineIfPattern() { return std::make_unique<InlineIfPattern>(); }
std::unique_ptr<FoldPattern> MakeShapeSizePattern() { return std::make_unique<ShapeSizePattern>(); }

}  // namespace anvil
