#include "graph/verifier.h"

#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/limits.h"
#include "graph/schema_check.h"

namespace anvil {
namespace {

// How a value is defined: a kind of graph-level value, or the output of `node`.
struct Definition {
  const char* kind = nullptr;
  const Node* node = nullptr;
  std::string Describe() const {
    return node != nullptr ? absl::StrCat("output of ", node->Describe()) : std::string(kind);
  }
};

class Verifier {
 public:
  Verifier(const Model& model, std::vector<std::string>* warnings)
      : model_(model),
        warnings_(warnings),
        visible_(model.value_id_bound(), false),
        input_slots_(model.value_id_bound(), 0),
        schema_checker_(model) {}

  // Values of enclosing graphs defined before the node owning `graph` are in visible_; this
  // graph's values are added while it is checked and removed after, so nesting costs nothing.
  // `graph` sits `depth` levels below the main graph; deeper than kMaxSubgraphDepth is an error
  // (graph/limits.h), so this walk, like every other, recurses at most that deep.
  absl::Status VerifyGraph(const Graph& graph, int depth) {
    const std::string where = absl::StrCat("graph ", Quoted(graph.name()));
    std::vector<const Value*> defined_here;
    absl::Status status = VerifyGraphBody(graph, depth, where, defined_here);
    for (const Value* v : defined_here) visible_[v->id()] = false;
    return status;
  }

 private:
  absl::Status VerifyGraphBody(const Graph& graph, int depth, const std::string& where,
                               std::vector<const Value*>& defined_here) {
    auto visible = [&](const Value* v) { return v->id() < visible_.size() && visible_[v->id()]; };

    // What defines a value: a kind ("graph input", "initializer") or a node's output, described
    // only for an error.
    auto define = [&](const Value* v, Definition how) -> absl::Status {
      if (v->graph() != &graph) {
        return Error(where, absl::StrCat("value ", Quoted(v->name()), " (", how.Describe(),
                                         ") belongs to another graph"));
      }
      if (!v->name().empty()) {
        // The graph's name table holds one value per name: two values of this graph with one
        // name cannot both be found. Enclosing graphs must not define the name either.
        if (const Value* found = graph.FindValue(v->name()); found != v) {
          if (found == nullptr) {
            return Error(where, absl::StrCat("value ", Quoted(v->name()), " (", how.Describe(),
                                             ") is missing from the graph's name table"));
          }
          return Error(where,
                       absl::StrCat("value ", Quoted(v->name()), " is defined twice: as ",
                                    DefinitionOf(*found).Describe(), " and as ", how.Describe()));
        }
        if (graph.parent() != nullptr) {
          if (const Value* outer = graph.parent()->LookupInScope(v->name())) {
            return Error(where, absl::StrCat("value ", Quoted(v->name()), " (", how.Describe(),
                                             ") is also defined in an enclosing graph (",
                                             outer->graph()->name(), ")"));
          }
        }
      }
      if (v->id() >= visible_.size()) return Error(where, "a value of another model");
      visible_[v->id()] = true;
      defined_here.push_back(v);
      return absl::OkStatus();
    };

    for (const Value* v : graph.inputs()) {
      ANVIL_RETURN_IF_ERROR(define(v, Definition{"graph input"}));
    }
    for (const Value* v : graph.initializers()) {
      if (v->constant() == nullptr) {
        return Error(where, absl::StrCat("initializer ", Quoted(v->name()), " has no payload"));
      }
      ANVIL_RETURN_IF_ERROR(CheckInitializerType(where, *v));
      if (v->IsGraphInput()) continue;  // Defined as an input already.
      ANVIL_RETURN_IF_ERROR(define(v, Definition{"initializer"}));
    }

    for (const Node* node : graph.nodes()) {
      auto at = [&] { return absl::StrCat(where, ": ", node->Describe()); };
      if (node->graph() != &graph) return Error(at(), "node belongs to another graph");
      if (model_.OpsetVersion(node->domain()) < 0) {
        std::string imported;
        for (const OpsetImport& op : model_.opset_imports) {
          absl::StrAppend(&imported, imported.empty() ? "" : ", ", Quoted(op.domain));
        }
        return Error(at(), absl::StrCat("op domain ", Quoted(node->domain()),
                                        " is not in the model's opset imports (",
                                        imported.empty() ? "none" : imported, ")"));
      }
      if (absl::Status s = schema_checker_.CheckNode(*node, &node_warnings_); !s.ok()) {
        // An ONNX op Anvil does not implement stays Unimplemented, counted as such.
        if (absl::IsUnimplemented(s)) {
          return absl::UnimplementedError(absl::StrCat(at(), ": ", s.message()));
        }
        return Error(at(), std::string(s.message()));
      }
      for (const std::string& warning : node_warnings_) {
        if (warnings_ != nullptr) warnings_->push_back(absl::StrCat(at(), ": ", warning));
      }
      node_warnings_.clear();
      for (int i = 0; i < node->num_inputs(); ++i) {
        const Value* v = node->input(i);
        if (v == nullptr) continue;
        if (!visible(v)) {
          return Error(at(), absl::StrCat("input ", i, " ", Quoted(v->name()),
                                          " is used before it is defined or is out of scope"));
        }
        ++input_slots_[v->id()];  // checked against the use list below, once per value
      }
      // Subgraphs see everything visible before this node.
      for (const Graph* sub : node->Subgraphs()) {
        if (sub->parent() != &graph || sub->owner_node() != node) {
          return Error(at(), absl::StrCat("subgraph ", Quoted(sub->name()),
                                          " does not name this node's graph as its parent"));
        }
        if (depth + 1 > kMaxSubgraphDepth) return Error(at(), SubgraphDepthMessage());
        ANVIL_RETURN_IF_ERROR(VerifyGraph(*sub, depth + 1));
      }
      for (int i = 0; i < node->num_outputs(); ++i) {
        const Value* v = node->output(i);
        if (v == nullptr) continue;
        if (v->producer() != node || v->producer_output() != i) {
          return Error(at(), absl::StrCat("output ", i, " ", Quoted(v->name()),
                                          " does not point back at its producer"));
        }
        ANVIL_RETURN_IF_ERROR(define(v, Definition{nullptr, node}));
      }
    }

    // Every use entry must point at a slot that reads the value, once; and every slot that
    // reads it (in this graph or its subgraphs, all verified by now) must be listed.
    for (const Value* v : defined_here) {
      const std::vector<Use>& uses = v->uses();
      for (size_t k = 0; k < uses.size(); ++k) {
        const Use& use = uses[k];
        if (use.user == nullptr || use.input_index < 0 ||
            use.input_index >= use.user->num_inputs() || use.user->input(use.input_index) != v) {
          return Error(where, absl::StrCat("value ", Quoted(v->name()),
                                           " has a stale use entry (erased or rewired node)"));
        }
      }
      if (HasDuplicate(uses)) {
        return Error(where, absl::StrCat("value ", Quoted(v->name()), " lists a use twice"));
      }
      const int64_t slots = input_slots_[v->id()];
      if (static_cast<int64_t>(v->uses().size()) != slots) {
        return Error(where, absl::StrCat("value ", Quoted(v->name()), " is read by ", slots,
                                         " input slots but its use list has ", v->uses().size(),
                                         " entries"));
      }
      if (absl::Status s = CheckDeclaredType(v->type(), absl::StrCat("value ", Quoted(v->name())));
          !s.ok()) {
        return Error(where, std::string(s.message()));
      }
      if (const Type& t = v->type(); t.is_tensor() && t.element_type() != ElementType::kUndefined &&
                                     !IsValidElementType(static_cast<int32_t>(t.element_type()))) {
        return Error(where, absl::StrCat("value ", Quoted(v->name()), " has invalid element type ",
                                         static_cast<int32_t>(t.element_type())));
      }
    }

    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      const Value* v = graph.outputs()[i];
      if (v == nullptr) return Error(where, absl::StrCat("output ", i, " is empty"));
      if (!visible(v)) {
        return Error(where, absl::StrCat("output ", i, " ", Quoted(v->name()), " is not defined"));
      }
    }
    return absl::OkStatus();
  }

  static Definition DefinitionOf(const Value& v) {
    if (v.producer() != nullptr) return Definition{nullptr, v.producer()};
    return Definition{v.IsGraphInput() ? "graph input" : "initializer"};
  }

  static bool HasDuplicate(const std::vector<Use>& uses) {
    if (uses.size() <= 16) {
      for (size_t a = 0; a < uses.size(); ++a) {
        for (size_t b = a + 1; b < uses.size(); ++b) {
          if (uses[a] == uses[b]) return true;
        }
      }
      return false;
    }
    absl::flat_hash_set<std::pair<const Node*, int>> seen;
    for (const Use& use : uses) {
      if (!seen.insert({use.user, use.input_index}).second) return true;
    }
    return false;
  }

  static absl::Status Error(const std::string& where, const std::string& what) {
    return absl::FailedPreconditionError(absl::StrCat(where, ": ", what));
  }

  static absl::Status CheckInitializerType(const std::string& where, const Value& v) {
    const Type& t = v.type();
    const Elements& e = *v.constant();
    if (!t.is_tensor()) return absl::OkStatus();
    if (t.element_type() != e.element_type()) {
      return Error(where,
                   absl::StrCat("initializer ", Quoted(v.name()), " is declared ",
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
        return Error(where, absl::StrCat("initializer ", Quoted(v.name()), " is declared ",
                                         t.ToString(), " but holds dims [", dims, "]"));
      }
    }
    return absl::OkStatus();
  }

  const Model& model_;
  std::vector<std::string>* warnings_;      // may be null
  std::vector<std::string> node_warnings_;  // one node's, before they are placed
  std::vector<bool> visible_;               // by Value::id()
  std::vector<int64_t> input_slots_;        // by Value::id()
  SchemaChecker schema_checker_;
};

}  // namespace

absl::Status VerifyModel(const Model& model, std::vector<std::string>* warnings) {
  ANVIL_RETURN_IF_ERROR(CheckModelVersions(model));
  Verifier verifier(model, warnings);
  return verifier.VerifyGraph(model.graph(), /*depth=*/0);
}

}  // namespace anvil
