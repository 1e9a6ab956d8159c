#include "shape/dim_analysis.h"

#include <algorithm>

#include "shape/tensor_info.h"

namespace anvil {
namespace {

bool IsDynamic(const IndexExpr& e) {
  return !e.IsLiteral() && !e.IsQuestionmark() && e.IsDefined();
}

// Elementwise ops whose operands broadcast multidirectionally.
bool IsElementwise(const Node& n) {
  static const char* const kOps[] = {
      "Add",  "And",         "BitShift", "Div",  "Equal", "Greater", "GreaterOrEqual",
      "Less", "LessOrEqual", "Max",      "Mean", "Min",   "Mod",     "Mul",
      "Or",   "Pow",         "PRelu",    "Sub",  "Sum",   "Where",   "Xor",
  };
  if (!n.domain().empty()) return false;
  return std::find_if(std::begin(kOps), std::end(kOps),
                      [&](const char* op) { return n.op_type() == op; }) != std::end(kOps);
}

}  // namespace

DimAnalysis::DimAnalysis(const Model& model) { AnalyzeGraph(model.graph()); }

int DimAnalysis::Find(const IndexExpr& e) const {
  auto it = ids_.find(e.ToString());
  return it == ids_.end() ? -1 : it->second;
}

int DimAnalysis::Intern(const IndexExpr& e) {
  std::string key = e.ToString();
  auto [it, inserted] = ids_.emplace(std::move(key), static_cast<int>(exprs_.size()));
  if (inserted) {
    exprs_.push_back(e);
    parent_.push_back(it->second);
  }
  return it->second;
}

int DimAnalysis::Root(int id) const {
  while (parent_[id] != id) {
    parent_[id] = parent_[parent_[id]];  // path halving
    id = parent_[id];
  }
  return id;
}

void DimAnalysis::Union(const IndexExpr& a, const IndexExpr& b) {
  if (a.IsQuestionmark() || b.IsQuestionmark() || !a.IsDefined() || !b.IsDefined()) return;
  if (a == b) return;
  int ra = Root(Intern(a));
  int rb = Root(Intern(b));
  if (ra == rb) return;
  // Keep a literal as the root so LiteralOf is one lookup.
  if (exprs_[rb].IsLiteral()) std::swap(ra, rb);
  parent_[rb] = ra;
}

std::optional<IndexExpr> DimAnalysis::DimOf(const Value* v, int64_t axis) const {
  if (v == nullptr || !v->type().is_tensor() || !v->type().has_shape()) return std::nullopt;
  const auto& shape = v->type().shape();
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return std::nullopt;
  const Dim& d = shape[axis];
  if (d.is_literal()) return IndexExpr(*d.value);
  if (d.is_param()) return IndexExpr::FromDimParam(d.param);
  return std::nullopt;
}

void DimAnalysis::AnalyzeGraph(const Graph& graph) {
  for (const Node* n : graph.nodes()) {
    for (Graph* sub : n->Subgraphs()) AnalyzeGraph(*sub);
    auto rank = [](const Value* v) { return v == nullptr ? -1 : v->type().rank(); };
    if (n->domain().empty() && (n->op_type() == "MatMul" || n->op_type() == "MatMulInteger") &&
        n->num_inputs() >= 2) {
      const Value* a = n->input(0);
      const Value* b = n->input(1);
      const int64_t rb = rank(b);
      auto ka = DimOf(a, -1);
      auto kb = DimOf(b, rb == 1 ? 0 : -2);
      if (ka && kb) Union(*ka, *kb);
    } else if (n->domain().empty() && n->op_type() == "Gemm" && n->num_inputs() >= 2) {
      auto ka = DimOf(n->input(0), n->GetInt("transA", 0) ? 0 : 1);
      auto kb = DimOf(n->input(1), n->GetInt("transB", 0) ? 1 : 0);
      if (ka && kb) Union(*ka, *kb);
    } else if (n->domain().empty() && n->op_type() == "Concat" && n->num_inputs() > 1) {
      const int64_t r = rank(n->input(0));
      if (r < 0) continue;
      int64_t axis = n->GetInt("axis", 0);
      if (axis < 0) axis += r;
      for (int64_t k = 0; k < r; ++k) {
        if (k == axis) continue;
        auto first = DimOf(n->input(0), k);
        for (int i = 1; i < n->num_inputs() && first; ++i) {
          if (rank(n->input(i)) != r) continue;
          if (auto other = DimOf(n->input(i), k)) Union(*first, *other);
        }
      }
    } else if (IsElementwise(*n)) {
      // Align operands from the right. At each output position, the dynamic operand dims, the
      // output dim and any literal > 1 (which cannot be a stretched 1) are one class, under the
      // no-dynamic-1 assumption of the file comment.
      const Value* out = n->num_outputs() > 0 ? n->output(0) : nullptr;
      const int64_t ro = rank(out);
      if (ro < 0) continue;
      for (int64_t k = 0; k < ro; ++k) {
        IndexExprList members;
        bool dynamic = false;
        for (int i = 0; i < n->num_inputs(); ++i) {
          const int64_t ri = rank(n->input(i));
          if (ri < 0 || k < ro - ri) continue;
          auto d = DimOf(n->input(i), k - (ro - ri));
          if (!d || (d->IsLiteral() && d->literal() == 1)) continue;
          dynamic = dynamic || IsDynamic(*d);
          members.push_back(*d);
        }
        if (!dynamic) continue;
        if (auto o = DimOf(out, k)) members.push_back(*o);
        for (size_t m = 1; m < members.size(); ++m) Union(members[0], members[m]);
      }
    }
  }
}

bool DimAnalysis::Same(const IndexExpr& a, const IndexExpr& b) const {
  if (a.IsQuestionmark() || b.IsQuestionmark()) return false;
  if (a == b) return true;
  const int ia = Find(a);
  const int ib = Find(b);
  return ia >= 0 && ib >= 0 && Root(ia) == Root(ib);
}

bool DimAnalysis::SameDim(const Value& a, int64_t a_axis, const Value& b, int64_t b_axis) const {
  auto da = DimOf(&a, a_axis);
  auto db = DimOf(&b, b_axis);
  return da && db && Same(*da, *db);
}

std::optional<int64_t> DimAnalysis::LiteralOf(const IndexExpr& e) const {
  if (e.IsLiteral()) return e.literal();
  const int id = Find(e);
  if (id < 0) return std::nullopt;
  const IndexExpr& root = exprs_[Root(id)];
  if (root.IsLiteral()) return root.literal();
  return std::nullopt;
}

std::vector<std::vector<std::string>> DimAnalysis::Classes() const {
  absl::flat_hash_map<int, std::vector<std::string>> by_root;
  for (int id = 0; id < static_cast<int>(exprs_.size()); ++id) {
    by_root[Root(id)].push_back(exprs_[id].ToString());
  }
  std::vector<std::vector<std::string>> classes;
  for (auto& [root, members] : by_root) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end());
    classes.push_back(std::move(members));
  }
  std::sort(classes.begin(), classes.end());
  return classes;
}

}  // namespace anvil
