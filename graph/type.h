// The static type of a graph value. Tensors (and sparse tensors) are modelled: element type and
// an optional shape of dims, each a literal, a named parameter (`dim_param`, later a symbolic
// IndexExpr in printed form) or unknown. Sequences and optionals are modelled around their
// element's Type (seq(float[N]), optional(seq(int64[]))). Other ONNX types (map, opaque, element
// types of a newer ONNX) are carried as the serialized TypeProto so they round-trip unchanged.
#ifndef ANVIL_GRAPH_TYPE_H_
#define ANVIL_GRAPH_TYPE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/element_type.h"

namespace anvil {

struct Dim {
  std::optional<int64_t> value;  // dim_value
  std::string param;             // dim_param; meaningful when !value
  std::string denotation;

  static Dim Literal(int64_t v) { return Dim{v, "", ""}; }
  static Dim Param(std::string p) { return Dim{std::nullopt, std::move(p), ""}; }
  static Dim Unknown() { return Dim{}; }

  bool is_literal() const { return value.has_value(); }
  bool is_param() const { return !value && !param.empty(); }
  bool is_unknown() const { return !value && param.empty(); }
  bool operator==(const Dim&) const = default;
};

class Type {
 public:
  enum class Kind { kNone, kTensor, kSparseTensor, kSequence, kOptional, kOther };

  Type() = default;
  static Type Tensor(ElementType element_type);
  static Type Tensor(ElementType element_type, std::vector<Dim> shape);
  static Type SparseTensor(ElementType element_type, std::optional<std::vector<Dim>> shape);
  static Type Other(std::string serialized_type_proto, std::string denotation = "");
  // seq(elem) and optional(elem); `elem` may have no type (an untyped sequence element).
  static Type Sequence(Type elem);
  static Type Optional(Type elem);

  Kind kind() const { return kind_; }
  // Whether any type is known (ONNX allows values with no type at all).
  bool has_value() const { return kind_ != Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_optional() const { return kind_ == Kind::kOptional; }
  // The element type of a sequence or optional (a Type with no value otherwise).
  const Type& elem() const;

  ElementType element_type() const { return element_type_; }
  void set_element_type(ElementType t) { element_type_ = t; }

  // Shape: absent means the rank is unknown.
  bool has_shape() const { return shape_.has_value(); }
  const std::vector<Dim>& shape() const { return *shape_; }
  std::vector<Dim>* mutable_shape() { return &*shape_; }
  void set_shape(std::vector<Dim> dims) { shape_ = std::move(dims); }
  void clear_shape() { shape_.reset(); }
  int64_t rank() const { return shape_ ? static_cast<int64_t>(shape_->size()) : -1; }
  // All dims literal.
  bool IsStatic() const;

  // TypeProto.denotation.
  const std::string& denotation() const { return denotation_; }
  void set_denotation(std::string d) { denotation_ = std::move(d); }

  // For Kind::kOther: the TypeProto bytes.
  const std::string& serialized_proto() const { return serialized_proto_; }

  // ONNX textual syntax: "float[N,3,?]"; "float" is a scalar (rank 0) and "float[]" a tensor of
  // unknown rank; "?" means no type at all; "seq(float[N])", "optional(seq(int64))".
  std::string ToString() const;

  // Structural: sequence and optional elements compare by value.
  bool operator==(const Type& other) const;

 private:
  Kind kind_ = Kind::kNone;
  ElementType element_type_ = ElementType::kUndefined;
  std::optional<std::vector<Dim>> shape_;
  std::string denotation_;
  std::string serialized_proto_;
  std::shared_ptr<const Type> elem_;  // kSequence, kOptional
};

}  // namespace anvil

#endif  // ANVIL_GRAPH_TYPE_H_
