#include "graph/verifier.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace anvil {
namespace {

class Verifier {
 public:
  explicit Verifier(const Model& model) : model_(model) {}

  absl::Status VerifyGraph(const Graph& graph, const absl::flat_hash_set<const Value*>& outer) {
    const std::string where = absl::StrCat("graph '", graph.name(), "'");
    absl::flat_hash_set<const Value*> visible = outer;

    auto define = [&](const Value* v, const std::string& how) -> absl::Status {
      if (v->graph() != &graph) {
        return Error(where,
                     absl::StrCat("value '", v->name(), "' (", how, ") belongs to another graph"));
      }
      if (!v->name().empty()) {
        auto [it, inserted] = defined_names_.emplace(v->name(), how);
        if (!inserted) {
          return Error(where, absl::StrCat("value '", v->name(), "' is defined twice: as ",
                                           it->second, " and as ", how));
        }
        if (graph.FindValue(v->name()) != v) {
          return Error(where, absl::StrCat("value '", v->name(), "' (", how,
                                           ") is missing from the graph's name table"));
        }
      }
      visible.insert(v);
      return absl::OkStatus();
    };

    for (const Value* v : graph.inputs()) {
      ANVIL_RETURN_IF_ERROR(define(v, "graph input"));
    }
    for (const Value* v : graph.initializers()) {
      if (v->constant() == nullptr) {
        return Error(where, absl::StrCat("initializer '", v->name(), "' has no payload"));
      }
      ANVIL_RETURN_IF_ERROR(CheckInitializerType(where, *v));
      if (v->IsGraphInput()) continue;  // Defined as an input already.
      ANVIL_RETURN_IF_ERROR(define(v, "initializer"));
    }

    for (const Node* node : graph.nodes()) {
      const std::string at = absl::StrCat(where, ": ", node->Describe());
      if (node->graph() != &graph) return Error(at, "node belongs to another graph");
      if (model_.OpsetVersion(node->domain()) < 0) {
        std::string imported;
        for (const OpsetImport& op : model_.opset_imports) {
          absl::StrAppend(&imported, imported.empty() ? "" : ", ", "'", op.domain, "'");
        }
        return Error(at, absl::StrCat("op domain '", node->domain(),
                                      "' is not in the model's opset imports (",
                                      imported.empty() ? "none" : imported, ")"));
      }
      for (int i = 0; i < node->num_inputs(); ++i) {
        const Value* v = node->input(i);
        if (v == nullptr) continue;
        if (!visible.contains(v)) {
          return Error(at, absl::StrCat("input ", i, " '", v->name(),
                                        "' is used before it is defined or is out of scope"));
        }
        const auto& uses = v->uses();
        if (std::count(uses.begin(), uses.end(), Use{const_cast<Node*>(node), i}) != 1) {
          return Error(at, absl::StrCat("input ", i, " '", v->name(),
                                        "' is missing from (or repeated in) its use list"));
        }
      }
      // Subgraphs see everything visible before this node.
      for (const Graph* sub : node->Subgraphs()) {
        if (sub->parent() != &graph || sub->owner_node() != node) {
          return Error(at, absl::StrCat("subgraph '", sub->name(),
                                        "' does not name this node's graph as its parent"));
        }
        ANVIL_RETURN_IF_ERROR(VerifyGraph(*sub, visible));
      }
      for (int i = 0; i < node->num_outputs(); ++i) {
        const Value* v = node->output(i);
        if (v == nullptr) continue;
        if (v->producer() != node || v->producer_output() != i) {
          return Error(at, absl::StrCat("output ", i, " '", v->name(),
                                        "' does not point back at its producer"));
        }
        ANVIL_RETURN_IF_ERROR(define(v, absl::StrCat("output of ", node->Describe())));
      }
    }

    // Every use entry must point at a slot that reads the value.
    for (const Value* v : visible) {
      if (v->graph() != &graph) continue;
      for (const Use& use : v->uses()) {
        if (use.user == nullptr || use.input_index < 0 ||
            use.input_index >= use.user->num_inputs() || use.user->input(use.input_index) != v) {
          return Error(where, absl::StrCat("value '", v->name(),
                                           "' has a stale use entry (erased or rewired node)"));
        }
      }
      if (const Type& t = v->type(); t.is_tensor() && t.element_type() != ElementType::kUndefined &&
                                     !IsValidElementType(static_cast<int32_t>(t.element_type()))) {
        return Error(where, absl::StrCat("value '", v->name(), "' has invalid element type ",
                                         static_cast<int32_t>(t.element_type())));
      }
    }

    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      const Value* v = graph.outputs()[i];
      if (v == nullptr) return Error(where, absl::StrCat("output ", i, " is empty"));
      if (!visible.contains(v)) {
        return Error(where, absl::StrCat("output ", i, " '", v->name(), "' is not defined"));
      }
    }
    return absl::OkStatus();
  }

 private:
  static absl::Status Error(const std::string& where, const std::string& what) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", what));
  }

  static absl::Status CheckInitializerType(const std::string& where, const Value& v) {
    const Type& t = v.type();
    const Elements& e = *v.constant();
    if (!t.is_tensor()) return absl::OkStatus();
    if (t.element_type() != e.element_type()) {
      return Error(where,
                   absl::StrCat("initializer '", v.name(), "' is declared ",
                                std::string(ElementTypeName(t.element_type())), " but holds ",
                                std::string(ElementTypeName(e.element_type()))));
    }
    if (t.has_shape()) {
      bool same = t.rank() == static_cast<int64_t>(e.dims().size());
      for (size_t k = 0; same && k < e.dims().size(); ++k) {
        const Dim& d = t.shape()[k];
        same = !d.is_literal() || *d.value == e.dims()[k];
      }
      if (!same) {
        std::string dims;
        for (int64_t d : e.dims()) absl::StrAppend(&dims, dims.empty() ? "" : ",", d);
        return Error(where, absl::StrCat("initializer '", v.name(), "' is declared ", t.ToString(),
                                         " but holds dims [", dims, "]"));
      }
    }
    return absl::OkStatus();
  }

  const Model& model_;
  absl::flat_hash_map<std::string, std::string> defined_names_;
};

}  // namespace

absl::Status VerifyModel(const Model& model) {
  Verifier verifier(model);
  return verifier.VerifyGraph(model.graph(), {});
}

}  // namespace anvil
