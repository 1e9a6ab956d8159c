#include "graph/passes/fuse_matmul_transpose.h"

#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/pass_registry.h"
#include "graph/passes/match.h"

namespace anvil {
namespace {

constexpr char kContribDomain[] = "com.microsoft";

// The float weight W when `v` is Transpose(W) of a run constant W that swaps W's last two dims
// and keeps the others (and, with `shared_only`, that another node also reads); null otherwise.
Value* TransposedWeight(const Graph& graph, const Value* v, bool shared_only) {
  const Node* t = v->producer();
  if (!match::Is(t, "Transpose") || t->graph() != &graph || t->num_inputs() != 1) return nullptr;
  Value* w = t->input(0);
  const Elements* constant = match::RunConstant(w);
  if (constant == nullptr || constant->element_type() != ElementType::kFloat) return nullptr;
  if (shared_only && w->uses().size() < 2 && !w->IsGraphOutput()) return nullptr;
  const int64_t rank = static_cast<int64_t>(constant->dims().size());
  if (rank < 2) return nullptr;
  std::vector<int64_t> perm = t->GetInts("perm");
  if (perm.empty()) {  // default: dims reversed, a swap of the last two only at rank 2
    perm.resize(rank);
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  std::vector<int64_t> swap(rank);
  std::iota(swap.begin(), swap.end(), 0);
  std::swap(swap[rank - 2], swap[rank - 1]);
  return perm == swap ? w : nullptr;
}

class Fuser {
 public:
  Fuser(Model& model, bool shared_only) : model_(model), shared_only_(shared_only) {}

  bool Run(Graph& graph) {
    bool changed = false;
    for (Node* node : graph.NodesSnapshot()) {
      if (erased_.contains(node)) continue;
      for (Graph* subgraph : node->Subgraphs()) changed |= Run(*subgraph);
      changed |= MatMul(graph, node) || Gemm(graph, node);
    }
    return changed;
  }

  int64_t matmul = 0, gemm = 0;

 private:
  bool MatMul(Graph& graph, Node* node) {
    if (!match::Is(node, "MatMul") || node->num_inputs() != 2 || node->num_outputs() != 1) {
      return false;
    }
    Value* a = node->input(0);
    Value* b = node->input(1);
    if (a == b) return false;
    Value* w = TransposedWeight(graph, b, shared_only_);
    const std::optional<int64_t> a_rank = match::Rank(a);
    if (w == nullptr || !a_rank || *a_rank < 2 || !match::UseContribOpset(model_)) return false;
    Node* transpose = b->producer();
    std::vector<Node*> dead;
    if (match::OnlyFeeds(b, node)) dead.push_back(transpose);
    std::vector<Attribute> attrs;
    attrs.push_back(Attribute::Float("alpha", 1.0f));
    attrs.push_back(Attribute::Int("transA", 0));
    attrs.push_back(Attribute::Int("transB", 1));
    match::ReplaceWith(graph, node, "FusedMatMul", kContribDomain, {a, w}, std::move(attrs), dead,
                       &erased_);
    ++matmul;
    return true;
  }

  bool Gemm(Graph& graph, Node* node) {
    if (!match::Is(node, "Gemm") || node->num_inputs() < 2 || node->input(0) == node->input(1)) {
      return false;
    }
    Value* b = node->input(1);
    Value* w = TransposedWeight(graph, b, shared_only_);
    if (w == nullptr) return false;
    Node* transpose = b->producer();
    node->SetInput(1, w);
    node->SetAttribute(Attribute::Int("transB", node->GetInt("transB", 0) == 0 ? 1 : 0));
    if (!b->HasUses() && !b->IsGraphOutput()) {
      graph.EraseNode(transpose);
      erased_.insert(transpose);
    }
    ++gemm;
    return true;
  }

  Model& model_;
  bool shared_only_;
  absl::flat_hash_set<const Node*> erased_;
};

}  // namespace

absl::StatusOr<bool> FuseMatMulTransposePass::Run(Model& model, PassContext& ctx) {
  Fuser fuser(model, *shared_only_);
  const bool changed = fuser.Run(model.graph());
  ctx.AddStatistic("matmul", fuser.matmul);
  ctx.AddStatistic("gemm", fuser.gemm);
  return changed;
}

ANVIL_REGISTER_PASS(FuseMatMulTransposePass);

}  // namespace anvil
