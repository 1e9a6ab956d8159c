#include "graph/attribute.h"

#include <cstring>
#include <utility>

namespace anvil {

// The constructors, destructor, move operations and Clone own or copy subgraphs, so they need the
// complete Graph: they are defined in ir.cc, which attribute.h does not include.

Attribute Attribute::Int(std::string name, int64_t v) {
  Attribute a(std::move(name), AttributeType::kInt);
  a.i = v;
  return a;
}

Attribute Attribute::Float(std::string name, float v) {
  Attribute a(std::move(name), AttributeType::kFloat);
  a.f = v;
  return a;
}

Attribute Attribute::String(std::string name, std::string v) {
  Attribute a(std::move(name), AttributeType::kString);
  a.s = std::move(v);
  return a;
}

Attribute Attribute::Ints(std::string name, std::vector<int64_t> v) {
  Attribute a(std::move(name), AttributeType::kInts);
  a.ints = std::move(v);
  return a;
}

Attribute Attribute::Floats(std::string name, std::vector<float> v) {
  Attribute a(std::move(name), AttributeType::kFloats);
  a.floats = std::move(v);
  return a;
}

Attribute Attribute::Strings(std::string name, std::vector<std::string> v) {
  Attribute a(std::move(name), AttributeType::kStrings);
  a.strings = std::move(v);
  return a;
}

Attribute Attribute::Tensor(std::string name, std::shared_ptr<const Elements> v) {
  Attribute a(std::move(name), AttributeType::kTensor);
  a.tensors.push_back(TensorAttr{"", "", std::move(v)});
  return a;
}

bool Attribute::Equals(const Attribute& other) const {
  if (name_ != other.name_ || type_ != other.type_ || ref_attr_name != other.ref_attr_name) {
    return false;
  }
  switch (type_) {
    case AttributeType::kFloat:
      // Bitwise, so that NaN attributes compare equal to themselves and -0 differs from 0.
      return std::memcmp(&f, &other.f, sizeof(f)) == 0;
    case AttributeType::kInt:
      return i == other.i;
    case AttributeType::kString:
      return s == other.s;
    case AttributeType::kFloats:
      return floats.size() == other.floats.size() &&
             (floats.empty() ||
              std::memcmp(floats.data(), other.floats.data(), floats.size() * sizeof(float)) == 0);
    case AttributeType::kInts:
      return ints == other.ints;
    case AttributeType::kStrings:
      return strings == other.strings;
    case AttributeType::kTensor:
    case AttributeType::kTensors:
      if (tensors.size() != other.tensors.size()) return false;
      for (size_t k = 0; k < tensors.size(); ++k) {
        if (!tensors[k].elements->Equals(*other.tensors[k].elements)) return false;
      }
      return true;
    case AttributeType::kGraph:
    case AttributeType::kGraphs:
      // Subgraphs are compared by identity: two distinct bodies are never merged.
      if (graphs.size() != other.graphs.size()) return false;
      for (size_t k = 0; k < graphs.size(); ++k) {
        if (graphs[k] != other.graphs[k]) return false;
      }
      return true;
    case AttributeType::kSparseTensor:
    case AttributeType::kSparseTensors:
    case AttributeType::kTypeProto:
    case AttributeType::kTypeProtos:
      return serialized_protos == other.serialized_protos;
    case AttributeType::kUndefined:
      return true;
  }
  return false;
}

}  // namespace anvil
