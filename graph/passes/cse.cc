#include "graph/passes/cse.h"

#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "graph/op_table.h"
#include "graph/pass_registry.h"

namespace anvil {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Domains whose operators are specified deterministic functions of their
// inputs.
bool IsCseDomain(const std::string& domain) {
  return IsDefaultDomain(domain) || domain == "ai.onnx.ml";
}

std::string_view CanonicalDomain(const std::string& domain) {
  return IsDefaultDomain(domain) ? std::string_view() : std::string_view(domain);
}

// Binary ops whose two operands may be swapped bit-exactly (the op table's kCommutative):
// variadic Sum/Mean only with two inputs (IsCommutativePair), since with more, float rounding
// depends on the order.
bool IsCommutativeOp(const Node& node) { return HasTrait(node, kCommutative); }

bool HasSubgraphs(const Node& node) {
  for (const Attribute& a : node.attributes()) {
    if (a.type() == AttributeType::kGraph || a.type() == AttributeType::kGraphs) return true;
  }
  return false;
}

// Trailing omitted optional inputs mean the same as leaving the slots out.
int EffectiveInputCount(const Node& node) {
  int n = node.num_inputs();
  while (n > 0 && node.input(n - 1) == nullptr) --n;
  return n;
}

bool IsCommutativePair(const Node& node) {
  return EffectiveInputCount(node) == 2 && node.input(0) != nullptr && node.input(1) != nullptr &&
         IsCommutativeOp(node);
}

bool Eligible(const Node& node) {
  if (!IsCseDomain(node.domain()) || IsRandom(node) || HasSubgraphs(node)) return false;
  for (const Value* v : node.outputs()) {
    if (v != nullptr) return true;
  }
  return false;
}

size_t Mix(size_t h, size_t x) { return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

size_t HashAttribute(const Attribute& a) {
  size_t h = Mix(std::hash<std::string>()(a.name()), static_cast<size_t>(a.type()));
  switch (a.type()) {
    case AttributeType::kInt:
      return Mix(h, std::hash<int64_t>()(a.i));
    case AttributeType::kFloat: {
      uint32_t bits;
      std::memcpy(&bits, &a.f, sizeof(bits));
      return Mix(h, bits);
    }
    case AttributeType::kString:
      return Mix(h, std::hash<std::string>()(a.s));
    case AttributeType::kInts:
      for (int64_t v : a.ints) h = Mix(h, std::hash<int64_t>()(v));
      return h;
    case AttributeType::kTensor:
    case AttributeType::kTensors:
      // Type and dims only: payloads are compared (once) by Attribute::Equals
      // on a match.
      for (const TensorAttr& t : a.tensors) {
        h = Mix(h, static_cast<size_t>(t.elements->element_type()));
        for (int64_t d : t.elements->dims()) h = Mix(h, std::hash<int64_t>()(d));
      }
      return h;
    default:
      return h;
  }
}

size_t HashNode(const Node& node) {
  size_t h = std::hash<std::string>()(node.op_type());
  h = Mix(h, std::hash<std::string_view>()(CanonicalDomain(node.domain())));
  for (const Value* v : node.outputs()) h = Mix(h, v == nullptr ? 1 : 2);
  const int inputs = EffectiveInputCount(node);
  h = Mix(h, inputs);
  if (IsCommutativePair(node)) {
    // Order-independent: the pair hashes the same either way round.
    size_t a = std::hash<const Value*>()(node.input(0));
    size_t b = std::hash<const Value*>()(node.input(1));
    h = Mix(h, a + b);
  } else {
    for (int i = 0; i < inputs; ++i) h = Mix(h, std::hash<const Value*>()(node.input(i)));
  }
  // Attributes in any order: combine commutatively.
  size_t attrs = 0;
  for (const Attribute& a : node.attributes()) attrs += HashAttribute(a);
  return Mix(h, attrs);
}

bool SameExpression(const Node& a, const Node& b) {
  if (a.op_type() != b.op_type() || CanonicalDomain(a.domain()) != CanonicalDomain(b.domain()) ||
      a.num_outputs() != b.num_outputs()) {
    return false;
  }
  for (int i = 0; i < a.num_outputs(); ++i) {
    if ((a.output(i) == nullptr) != (b.output(i) == nullptr)) return false;
  }
  const int inputs = EffectiveInputCount(a);
  if (inputs != EffectiveInputCount(b)) return false;
  bool same_inputs = true;
  for (int i = 0; i < inputs && same_inputs; ++i) same_inputs = a.input(i) == b.input(i);
  if (!same_inputs) {
    if (!IsCommutativePair(a) || a.input(0) != b.input(1) || a.input(1) != b.input(0)) {
      return false;
    }
  }
  if (a.attributes().size() != b.attributes().size()) return false;
  for (const Attribute& attr : a.attributes()) {
    const Attribute* other = b.FindAttribute(attr.name());
    if (other == nullptr || !attr.Equals(*other)) return false;
  }
  return true;
}

// Available expressions, by hash, with scopes that are popped when a subgraph
// is done.
class ScopedTable {
 public:
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() {
    for (auto it = scopes_.back().rbegin(); it != scopes_.back().rend(); ++it) {
      auto bucket = buckets_.find(*it);
      bucket->second.pop_back();
      if (bucket->second.empty()) buckets_.erase(bucket);
    }
    scopes_.pop_back();
  }
  // The earliest (outermost) available node computing the same as `node`.
  Node* Find(size_t hash, const Node& node) const {
    auto bucket = buckets_.find(hash);
    if (bucket == buckets_.end()) return nullptr;
    for (Node* candidate : bucket->second) {
      if (SameExpression(*candidate, node)) return candidate;
    }
    return nullptr;
  }
  void Insert(size_t hash, Node* node) {
    buckets_[hash].push_back(node);
    scopes_.back().push_back(hash);
  }

 private:
  absl::flat_hash_map<size_t, std::vector<Node*>> buckets_;
  std::vector<std::vector<size_t>> scopes_;
};

// Bytes an initializer's payload occupies (string tensors: their characters).
int64_t PayloadBytes(const Elements& e) {
  if (e.element_type() != ElementType::kString) return static_cast<int64_t>(e.ByteSize());
  int64_t bytes = 0;
  for (const std::string& s : e.strings()) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

size_t HashPayload(const Elements& e) {
  size_t h = static_cast<size_t>(e.element_type());
  for (int64_t d : e.dims()) h = Mix(h, std::hash<int64_t>()(d));
  if (e.element_type() == ElementType::kString) {
    for (const std::string& s : e.strings()) h = Mix(h, std::hash<std::string>()(s));
    return h;
  }
  const size_t size = e.ByteSize();
  if (const uint8_t* data = e.ContiguousData()) {
    return Mix(h, std::hash<std::string_view>()(
                      std::string_view(reinterpret_cast<const char*>(data), size)));
  }
  std::string bytes(size, '\0');
  e.CopyTo(reinterpret_cast<uint8_t*>(bytes.data()));
  return Mix(h, std::hash<std::string>()(bytes));
}

class Eliminator {
 public:
  Eliminator(Model& model, int64_t max_initializer_bytes)
      : has_default_opset_(model.OpsetVersion("") >= 1),
        max_initializer_bytes_(max_initializer_bytes) {}

  void Run(Graph& graph) {
    MergeInitializers(graph);
    table_.PushScope();
    for (Node* node : graph.NodesSnapshot()) {
      if (HasSubgraphs(*node)) {
        for (Graph* subgraph : node->Subgraphs()) Run(*subgraph);
        continue;
      }
      if (!Eligible(*node)) continue;
      const size_t hash = HashNode(*node);
      if (Node* kept = table_.Find(hash, *node)) {
        // When the pair cannot be merged, `node` stays out of the table: `kept`
        // already stands for the expression.
        Merge(kept, node);
        continue;
      }
      table_.Insert(hash, node);
    }
    table_.PopScope();
  }

  int64_t nodes_erased() const { return nodes_erased_; }
  int64_t initializers_erased() const { return initializers_erased_; }
  int64_t identities_inserted() const { return identities_inserted_; }

 private:
  // How a result of the later node `dup` is taken over by the earlier node's
  // result.
  enum class Takeover {
    // Not a graph output: its uses read the earlier result.
    kRedirect,
    // A graph output, and the earlier result is an unexported value of the
    // same graph: the earlier result becomes the output, under its name.
    kRename,
    // Any other graph output: rebuilt as `name = Identity(earlier)`.
    kIdentity,
  };

  static Takeover Classify(const Value* earlier, const Value* later) {
    if (!later->IsGraphOutput()) return Takeover::kRedirect;
    if (!earlier->IsGraphOutput() && earlier->graph() == later->graph()) {
      return Takeover::kRename;
    }
    return Takeover::kIdentity;
  }

  // Replaces `dup` by `kept` (an earlier node computing the same, in this or an
  // enclosing graph), keeping every graph output's name and type.
  void Merge(Node* kept, Node* dup) {
    Graph* graph = dup->graph();
    std::vector<Takeover> how(dup->num_outputs(), Takeover::kRedirect);
    for (int i = 0; i < dup->num_outputs(); ++i) {
      if (dup->output(i) == nullptr) continue;
      how[i] = Classify(kept->output(i), dup->output(i));
      if (how[i] == Takeover::kIdentity && !has_default_opset_) return;
    }

    // (value to name, name) pairs applied once `dup` and its values are gone.
    std::vector<std::pair<Value*, std::string>> renames;
    for (int i = 0; i < dup->num_outputs(); ++i) {
      Value* later = dup->output(i);
      if (later == nullptr) continue;
      Value* earlier = kept->output(i);
      switch (how[i]) {
        case Takeover::kRedirect:
          later->ReplaceAllUsesWith(earlier);
          break;
        case Takeover::kRename:
          // The graph output's declared type wins; the value is no longer
          // intermediate, so it leaves value_info.
          if (later->type().has_value()) earlier->set_type(later->type());
          if (!later->doc_string().empty()) earlier->set_doc_string(later->doc_string());
          graph->RemoveValueInfo(earlier);
          later->ReplaceAllUsesWith(earlier);
          renames.emplace_back(earlier, later->name());
          break;
        case Takeover::kIdentity: {
          Node* identity = graph->InsertNodeBefore(dup, "Identity");
          identity->AddInput(earlier);
          Value* copy = identity->AddOutput(graph->UniqueName(later->name()));
          copy->set_type(later->type());
          copy->set_doc_string(later->doc_string());
          if (later->in_value_info()) graph->AddValueInfo(copy);
          later->ReplaceAllUsesWith(copy);
          renames.emplace_back(copy, later->name());
          ++identities_inserted_;
          break;
        }
      }
    }
    graph->EraseNode(dup);
    ++nodes_erased_;
    for (auto& [value, name] : renames) value->SetName(std::move(name));
  }

  void MergeInitializers(Graph& graph) {
    if (max_initializer_bytes_ == 0) return;
    absl::flat_hash_map<size_t, std::vector<Value*>> seen;
    const std::vector<Value*> initializers = graph.initializers();
    for (Value* v : initializers) {
      // Inputs with defaults and exported constants are part of the interface.
      if (v->IsGraphInput() || v->IsGraphOutput()) continue;
      const Elements& payload = *v->constant();
      if (max_initializer_bytes_ > 0 && PayloadBytes(payload) > max_initializer_bytes_) continue;
      std::vector<Value*>& bucket = seen[HashPayload(payload)];
      Value* same = nullptr;
      for (Value* earlier : bucket) {
        if (earlier->constant()->Equals(payload)) {
          same = earlier;
          break;
        }
      }
      if (same == nullptr) {
        bucket.push_back(v);
        continue;
      }
      v->ReplaceAllUsesWith(same);
      graph.EraseValue(v);
      ++initializers_erased_;
    }
  }

  const bool has_default_opset_;
  const int64_t max_initializer_bytes_;
  ScopedTable table_;
  int64_t nodes_erased_ = 0;
  int64_t initializers_erased_ = 0;
  int64_t identities_inserted_ = 0;
};

}  // namespace

absl::StatusOr<bool> CsePass::Run(Model& model, PassContext& ctx) {
  Eliminator eliminator(model, *max_initializer_bytes_);
  eliminator.Run(model.graph());
  ctx.AddStatistic("nodes-erased", eliminator.nodes_erased());
  ctx.AddStatistic("initializers-erased", eliminator.initializers_erased());
  ctx.AddStatistic("identities-inserted", eliminator.identities_inserted());
  return eliminator.nodes_erased() + eliminator.initializers_erased() > 0;
}

ANVIL_REGISTER_PASS(CsePass);

}  // namespace anvil
