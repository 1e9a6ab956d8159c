// Anvil's graph IR: Model owns a Graph; a Graph owns Nodes and Values; Values carry use-def
// chains. This is the in-memory form every pass rewrites.
//
// Semantics and invariants (checked by the verifier, see verifier.h):
//  - SSA: each Value is defined exactly once, as a graph input, an initializer (a constant;
//    old models may make a value both), or the output of one Node. Names are unique within the
//    model. An omitted optional input or output ("" in ONNX) is a nullptr slot.
//  - A Node's inputs may be Values of its own graph or of any enclosing graph (subgraphs of
//    If/Loop/Scan capture outer values by reference).
//  - Use lists are exact: value->uses() holds one entry per (node, input slot) reading it.
//    Graph outputs are not uses; `Value::IsGraphOutput` tells.
//  - Node order is the graph's execution order; the verifier requires it topological.
// Rewriting goes through Graph/Node methods, which keep the use lists right.
#ifndef ANVIL_GRAPH_IR_H_
#define ANVIL_GRAPH_IR_H_

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "graph/type.h"

namespace anvil {

class Graph;
class Model;
class Node;

struct Use {
  Node* user;
  int input_index;
  bool operator==(const Use&) const = default;
};

class Value {
 public:
  const std::string& name() const { return name_; }
  // Renames; the owning graph's name table follows.
  void SetName(std::string name);

  const Type& type() const { return type_; }
  Type* mutable_type() { return &type_; }
  void set_type(Type type) { type_ = std::move(type); }

  Graph* graph() const { return graph_; }
  // Defining node and output slot, or nullptr / -1 for graph inputs and initializers.
  Node* producer() const { return producer_; }
  int producer_output() const { return producer_output_; }

  bool IsGraphInput() const { return is_graph_input_; }
  // Whether some graph's output list (this graph's, or a subgraph's returning a captured
  // value) names this value.
  bool IsGraphOutput() const { return output_refs_ > 0; }
  // An initializer: constant() is non-null.
  bool IsInitializer() const { return constant_ != nullptr; }
  const std::shared_ptr<const Elements>& constant() const { return constant_; }
  // Replaces the payload of an initializer (the value must already be one).
  void set_constant(std::shared_ptr<const Elements> elements);

  const std::vector<Use>& uses() const { return uses_; }
  bool HasUses() const { return !uses_.empty(); }

  // Redirects every use (and graph-output slot) of this value to `other`.
  void ReplaceAllUsesWith(Value* other);

  // ValueInfoProto.doc_string.
  const std::string& doc_string() const { return doc_string_; }
  void set_doc_string(std::string d) { doc_string_ = std::move(d); }
  // TensorProto.doc_string of the initializer.
  const std::string& initializer_doc_string() const { return initializer_doc_string_; }
  void set_initializer_doc_string(std::string d) { initializer_doc_string_ = std::move(d); }

  // Whether the value has an entry in the graph's value_info (intermediate values only).
  bool in_value_info() const { return in_value_info_; }

  // A number unique among the model's values (never reused), dense enough to index vectors by:
  // analyses keep per-value state in arrays instead of hash maps (see Model::value_id_bound).
  uint32_t id() const { return id_; }

 private:
  friend class Graph;
  friend class Node;
  Value(Graph* graph, std::string name, uint32_t id)
      : graph_(graph), name_(std::move(name)), id_(id) {}
  // Uses are kept in no particular order: removal swaps the last use into the hole, so that
  // dropping any use is O(1) (each input slot records where its use sits).
  void AddUse(Node* user, int index);
  void RemoveUse(Node* user, int index);

  Graph* graph_;
  std::string name_;
  uint32_t id_;
  Type type_;
  Node* producer_ = nullptr;
  int producer_output_ = -1;
  bool is_graph_input_ = false;
  bool in_value_info_ = false;
  // Positions in the graph's initializer and value_info lists (-1: not in it).
  int32_t initializer_pos_ = -1;
  int32_t value_info_pos_ = -1;
  int output_refs_ = 0;
  std::shared_ptr<const Elements> constant_;
  std::vector<Use> uses_;
  std::string doc_string_;
  std::string initializer_doc_string_;
  std::list<std::unique_ptr<Value>>::iterator self_;
};

class Node {
 public:
  const std::string& op_type() const { return op_type_; }
  // "" is the default ONNX domain ("ai.onnx").
  const std::string& domain() const { return domain_; }
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const std::string& doc_string() const { return doc_string_; }
  void set_doc_string(std::string d) { doc_string_ = std::move(d); }
  Graph* graph() const { return graph_; }

  // Inputs; a slot may be nullptr (omitted optional input).
  const std::vector<Value*>& inputs() const { return inputs_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  Value* input(int i) const { return inputs_[i]; }
  void SetInput(int i, Value* v);
  void AddInput(Value* v);
  // Removes trailing input slots from `count` on.
  void TruncateInputs(int count);

  // Outputs; a slot may be nullptr (omitted optional output).
  const std::vector<Value*>& outputs() const { return outputs_; }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  Value* output(int i) const { return outputs_[i]; }
  // Appends a new output value named `name` (must be unique; "" for an omitted slot).
  Value* AddOutput(std::string name);

  // Attributes, in their original order.
  const std::vector<Attribute>& attributes() const { return attributes_; }
  std::vector<Attribute>* mutable_attributes() { return &attributes_; }
  const Attribute* FindAttribute(std::string_view name) const;
  Attribute* FindAttribute(std::string_view name);
  // Adds or replaces the attribute of the same name.
  void SetAttribute(Attribute attr);
  bool RemoveAttribute(std::string_view name);
  int64_t GetInt(std::string_view name, int64_t default_value) const;
  float GetFloat(std::string_view name, float default_value) const;
  std::string GetString(std::string_view name, std::string_view default_value) const;
  std::vector<int64_t> GetInts(std::string_view name) const;

  // Subgraphs of all graph-valued attributes, in attribute order.
  std::vector<Graph*> Subgraphs() const;

  // "name (Op)" or "#idx (Op)" when unnamed: how errors refer to a node.
  std::string Describe() const;

 private:
  friend class Graph;
  friend class Value;
  Node(Graph* graph, std::string op_type, std::string domain)
      : graph_(graph), op_type_(std::move(op_type)), domain_(std::move(domain)) {}

  Graph* graph_;
  std::string op_type_;
  std::string domain_;
  std::string name_;
  std::string doc_string_;
  std::vector<Value*> inputs_;
  std::vector<int32_t> input_use_pos_;  // where slot i's use sits in inputs_[i]->uses_
  std::vector<Value*> outputs_;
  std::vector<Attribute> attributes_;
  std::list<std::unique_ptr<Node>>::iterator self_;
};

// Fields of GraphProto that no pass reads are kept as serialized protos, in order.
struct GraphOpaqueParts {
  std::vector<std::string> sparse_initializers;       // SparseTensorProto
  std::vector<std::string> quantization_annotations;  // TensorAnnotation
  std::vector<std::string> orphan_value_infos;        // ValueInfoProto naming no value here
};

class Graph {
 public:
  // `parent` is the enclosing graph for subgraphs, nullptr for the main graph.
  Graph(Model* model, Graph* parent);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Model* model() const { return model_; }
  Graph* parent() const { return parent_; }
  // The node whose attribute owns this subgraph (nullptr for the main graph).
  Node* owner_node() const { return owner_node_; }
  void set_owner_node(Node* n) { owner_node_ = n; }

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  const std::string& doc_string() const { return doc_string_; }
  void set_doc_string(std::string d) { doc_string_ = std::move(d); }

  // ---- Values ----
  // Looks up a value defined in this graph (not enclosing ones).
  Value* FindValue(std::string_view name) const;
  // Looks up through enclosing graphs too (how a subgraph sees captured values).
  Value* LookupInScope(std::string_view name) const;
  // A name not used anywhere in the model, built from `hint`.
  std::string UniqueName(std::string_view hint) const;

  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* AddInput(std::string name, Type type);
  const std::vector<Value*>& outputs() const { return outputs_; }
  void AddOutput(Value* v);
  void SetOutput(int i, Value* v);
  void RemoveOutput(int i);

  // Initializers in their original order. AddInitializer defines a new constant value;
  // MakeInitializer turns an existing graph input into one (old-style input+initializer).
  const std::vector<Value*>& initializers() const {
    return Compacted(initializers_, initializer_holes_, &Value::initializer_pos_);
  }
  Value* AddInitializer(std::string name, std::shared_ptr<const Elements> elements);
  void MakeInitializer(Value* input, std::shared_ptr<const Elements> elements);

  // Values listed in value_info, in order.
  const std::vector<Value*>& value_info() const {
    return Compacted(value_info_, value_info_holes_, &Value::value_info_pos_);
  }
  void AddValueInfo(Value* v);
  void RemoveValueInfo(Value* v);

  // Removes an unused value that is not a graph output; also drops it from inputs,
  // initializers and value_info.
  void EraseValue(Value* v);

  // ---- Nodes ----
  // Nodes in order. Safe to iterate while erasing nodes other than the current one only via
  // a snapshot: use NodesSnapshot() when mutating.
  class NodeRange;
  NodeRange nodes() const;
  std::vector<Node*> NodesSnapshot() const;
  size_t num_nodes() const { return nodes_.size(); }
  // The position of `node` in nodes() (-1 if it is not this graph's); amortized O(1).
  int64_t NodeIndex(const Node* node) const;

  // Creates a node at the end (or before `before`). Outputs are added with Node::AddOutput.
  Node* AddNode(std::string op_type, std::string domain = "");
  Node* InsertNodeBefore(Node* before, std::string op_type, std::string domain = "");
  // Moves an existing node of this graph before `before` (nullptr: to the end).
  void MoveNodeBefore(Node* node, Node* before);
  // Erases a node whose outputs have no uses and are not graph outputs; drops its input uses
  // and its output values.
  void EraseNode(Node* node);
  // Copies `node` (attributes and subgraphs deep) to the end of this graph, mapping inputs
  // through `value_map` (unmapped inputs stay as they are); new outputs get unique names and
  // are added to `value_map`.
  Node* CloneNode(const Node& node, absl::flat_hash_map<const Value*, Value*>* value_map);

  // Reorders nodes topologically, keeping the existing order where it is already valid
  // (stable). Values captured by a node's subgraphs count as its inputs. On a cycle returns
  // false, leaves the order unchanged and describes a node on the cycle in `cycle_node`.
  bool TopologicalSort(std::string* cycle_node = nullptr);

  // Calls `fn` on this graph and every nested subgraph, outer first.
  void ForEachGraph(const std::function<void(Graph&)>& fn);

  GraphOpaqueParts& opaque() { return opaque_; }
  const GraphOpaqueParts& opaque() const { return opaque_; }

  // Deep copy of this graph as a subgraph of `new_parent` in `new_model`; captured outer
  // values are mapped through `outer_map` when present there.
  std::unique_ptr<Graph> Clone(Model* new_model, Graph* new_parent,
                               const absl::flat_hash_map<const Value*, Value*>& outer_map) const;

 private:
  friend class Value;
  friend class Node;
  Value* NewValue(std::string name);
  // Enters `v` in the name tables under its current name (after ForgetName, for a rename).
  void AddName(Value* v);
  // Drops `v` from the name tables (its graph's and the model's count).
  void ForgetName(const Value* v);
  void CountName(const std::string& name, int delta);

  Model* model_;
  Graph* parent_;
  Node* owner_node_ = nullptr;
  std::string name_;
  std::string doc_string_;
  std::list<std::unique_ptr<Node>> nodes_;
  uint64_t node_order_version_ = 0;  // changes whenever nodes_ is reordered
  mutable uint64_t node_index_version_ = 0;
  mutable absl::flat_hash_map<const Node*, int64_t> node_index_;
  std::list<std::unique_ptr<Value>> values_;
  // Keys view the values' own names (values never move; renaming re-keys).
  absl::flat_hash_map<absl::string_view, Value*> values_by_name_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  // Removing from these lists leaves a hole (nullptr), squeezed out when the list is next read,
  // so that erasing values one by one stays linear overall.
  mutable std::vector<Value*> initializers_;
  mutable int64_t initializer_holes_ = 0;
  mutable std::vector<Value*> value_info_;
  mutable int64_t value_info_holes_ = 0;
  static const std::vector<Value*>& Compacted(std::vector<Value*>& list, int64_t& holes,
                                              int32_t Value::*pos);
  static void Append(std::vector<Value*>& list, Value* v, int32_t Value::*pos);
  static void Remove(std::vector<Value*>& list, int64_t& holes, Value* v, int32_t Value::*pos);
  GraphOpaqueParts opaque_;
};

class Graph::NodeRange {
 public:
  class iterator {
   public:
    using Base = std::list<std::unique_ptr<Node>>::const_iterator;
    explicit iterator(Base it) : it_(it) {}
    Node* operator*() const { return it_->get(); }
    iterator& operator++() {
      ++it_;
      return *this;
    }
    bool operator!=(const iterator& o) const { return it_ != o.it_; }
    bool operator==(const iterator& o) const { return it_ == o.it_; }

   private:
    Base it_;
  };
  explicit NodeRange(const std::list<std::unique_ptr<Node>>* list) : list_(list) {}
  iterator begin() const { return iterator(list_->begin()); }
  iterator end() const { return iterator(list_->end()); }

 private:
  const std::list<std::unique_ptr<Node>>* list_;
};

struct OpsetImport {
  std::string domain;
  int64_t version;
  bool operator==(const OpsetImport&) const = default;
};

// ModelProto fields no pass reads, kept serialized for a lossless round trip.
struct ModelOpaqueParts {
  std::vector<std::string> functions;      // FunctionProto
  std::vector<std::string> training_info;  // TrainingInfoProto
};

class Model {
 public:
  Model();
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }

  int64_t ir_version = 8;
  std::vector<OpsetImport> opset_imports;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  ModelOpaqueParts opaque;

  // Opset version imported for `domain` ("" and "ai.onnx" are the same), or -1.
  int64_t OpsetVersion(std::string_view domain) const;

  // Every Value::id() of the model is below this.
  uint32_t value_id_bound() const { return next_value_id_; }

  // Whether any graph of the model defines a value named `name` (for unique-name generation).
  // O(1): the main graph's name table, and a count of subgraph value names.
  bool NameInUse(std::string_view name) const;

  // A clone without attachments.
  std::unique_ptr<Model> Clone() const;

  // Per-model state that other packages keep with the model (constprop's constant pool), created
  // on first use and destroyed with the model; graph does not know the types.
  template <typename T>
  T& Attachment() {
    std::shared_ptr<void>& slot = attachments_[TypeTag<T>()];
    if (slot == nullptr) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }
  template <typename T>
  T* FindAttachment() const {
    auto it = attachments_.find(TypeTag<T>());
    return it == attachments_.end() ? nullptr : static_cast<T*>(it->second.get());
  }

 private:
  friend class Graph;
  template <typename T>
  static const void* TypeTag() {
    static const char tag = 0;
    return &tag;
  }
  absl::flat_hash_map<const void*, std::shared_ptr<void>> attachments_;
  // Values per name over all subgraphs (the main graph's own table answers for it); declared
  // before graph_ so that it outlives the graphs.
  absl::flat_hash_map<std::string, int> subgraph_name_counts_;
  uint32_t next_value_id_ = 0;
  std::unique_ptr<Graph> graph_;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_IR_H_
