// Typed node attributes, numbered as ONNX's AttributeProto.AttributeType. Graph-valued
// attributes own their subgraphs (If/Loop/Scan bodies), whose nodes may use values of enclosing
// graphs. Sparse tensors and type protos, which no Anvil pass reads, are kept serialized.
#ifndef ANVIL_GRAPH_ATTRIBUTE_H_
#define ANVIL_GRAPH_ATTRIBUTE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "graph/elements.h"
#include "graph/type.h"

namespace anvil {

class Graph;
class Value;

enum class AttributeType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

// A tensor value of an attribute, with the TensorProto's name and doc string kept for export.
struct TensorAttr {
  std::string name;
  std::string doc_string;
  std::shared_ptr<const Elements> elements;
};

class Attribute {
 public:
  Attribute();
  Attribute(std::string name, AttributeType type);
  ~Attribute();
  Attribute(Attribute&&) noexcept;
  Attribute& operator=(Attribute&&) noexcept;

  static Attribute Int(std::string name, int64_t v);
  static Attribute Float(std::string name, float v);
  static Attribute String(std::string name, std::string v);
  static Attribute Ints(std::string name, std::vector<int64_t> v);
  static Attribute Floats(std::string name, std::vector<float> v);
  static Attribute Strings(std::string name, std::vector<std::string> v);
  static Attribute Tensor(std::string name, std::shared_ptr<const Elements> v);

  const std::string& name() const { return name_; }
  AttributeType type() const { return type_; }

  // Payloads: only the field matching type() is meaningful.
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorAttr> tensors;             // kTensor: exactly one; kTensors: any
  std::vector<std::unique_ptr<Graph>> graphs;  // kGraph: exactly one; kGraphs: any
  std::vector<std::string> serialized_protos;  // kSparseTensor(s), kTypeProto(s)
  // kTypeProto(s): the types of serialized_protos as the importer decoded them (one per proto),
  // for readers such as shape inference; serialized_protos stays the lossless form that export
  // writes and Equals compares. Empty when nobody decoded them (a pass-built attribute).
  std::vector<Type> types;
  std::string doc_string;
  std::string ref_attr_name;  // inside function bodies: refers to the caller's attribute

  // Deep copy; cloned subgraphs get `subgraph_parent` as their enclosing graph, and values
  // they capture from outside are mapped through `outer_map` when present there.
  Attribute Clone(Graph* subgraph_parent,
                  const absl::flat_hash_map<const Value*, Value*>& outer_map = {}) const;

  // Same name, type and payload (subgraphs compared structurally by their printed form).
  bool Equals(const Attribute& other) const;

 private:
  std::string name_;
  AttributeType type_ = AttributeType::kUndefined;
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_ATTRIBUTE_H_
