#include "graph/passes/dce.h"

#include <vector>

#include "graph/pass_registry.h"

namespace anvil {
namespace {

bool IsStandardDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" || domain == "ai.onnx.ml" ||
         domain == "ai.onnx.preview.training";
}

class Eliminator {
 public:
  explicit Eliminator(bool keep_custom_domains) : keep_custom_domains_(keep_custom_domains) {}

  // Cleans `graph` and its subgraphs; true when anything was erased.
  bool Run(Graph& graph) {
    bool changed = false;
    // One reverse sweep suffices for a topologically ordered graph (every user
    // is visited before its producers). The loop only repeats for unordered
    // input, which the verifier rejects but passes may still meet.
    bool progress = true;
    while (progress) {
      progress = false;
      std::vector<Node*> nodes = graph.NodesSnapshot();
      for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        Node* node = *it;
        if (IsDead(*node)) {
          // Erasing the node destroys its subgraphs, which releases their
          // captures.
          graph.EraseNode(node);
          ++nodes_erased_;
          progress = true;
          continue;
        }
        for (Graph* subgraph : node->Subgraphs()) progress |= Run(*subgraph);
      }
      changed |= progress;
    }

    // Initializers last: only now are the uses from dead nodes (here and in
    // subgraphs) gone.
    std::vector<Value*> initializers = graph.initializers();
    for (Value* v : initializers) {
      if (v->HasUses() || v->IsGraphOutput() || v->IsGraphInput()) continue;
      graph.EraseValue(v);
      ++initializers_erased_;
      changed = true;
    }
    return changed;
  }

  int64_t nodes_erased() const { return nodes_erased_; }
  int64_t initializers_erased() const { return initializers_erased_; }

 private:
  bool IsDead(const Node& node) const {
    bool has_output = false;
    for (const Value* v : node.outputs()) {
      if (v == nullptr) continue;
      has_output = true;
      if (v->HasUses() || v->IsGraphOutput()) return false;
    }
    if (IsStandardDomain(node.domain())) return true;
    return has_output && !keep_custom_domains_;
  }

  bool keep_custom_domains_;
  int64_t nodes_erased_ = 0;
  int64_t initializers_erased_ = 0;
};

}  // namespace

absl::StatusOr<bool> DcePass::Run(Model& model, PassContext& ctx) {
  Eliminator eliminator(*keep_custom_domains_);
  bool changed = eliminator.Run(model.graph());
  ctx.AddStatistic("nodes-erased", eliminator.nodes_erased());
  ctx.AddStatistic("initializers-erased", eliminator.initializers_erased());
  return changed;
}

ANVIL_REGISTER_PASS(DcePass);

}  // namespace anvil
