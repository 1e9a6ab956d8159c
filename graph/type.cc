#include "graph/type.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace anvil {

Type Type::Tensor(ElementType element_type) {
  Type t;
  t.kind_ = Kind::kTensor;
  t.element_type_ = element_type;
  return t;
}

Type Type::Tensor(ElementType element_type, std::vector<Dim> shape) {
  Type t = Tensor(element_type);
  t.shape_ = std::move(shape);
  return t;
}

Type Type::SparseTensor(ElementType element_type, std::optional<std::vector<Dim>> shape) {
  Type t;
  t.kind_ = Kind::kSparseTensor;
  t.element_type_ = element_type;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::Other(std::string serialized_type_proto, std::string denotation) {
  Type t;
  t.kind_ = Kind::kOther;
  t.serialized_proto_ = std::move(serialized_type_proto);
  t.denotation_ = std::move(denotation);
  return t;
}

Type Type::Sequence(Type elem) {
  Type t;
  t.kind_ = Kind::kSequence;
  t.elem_ = std::make_shared<const Type>(std::move(elem));
  return t;
}

Type Type::Optional(Type elem) {
  Type t;
  t.kind_ = Kind::kOptional;
  t.elem_ = std::make_shared<const Type>(std::move(elem));
  return t;
}

const Type& Type::elem() const {
  static const Type* const kNoType = new Type();
  return elem_ != nullptr ? *elem_ : *kNoType;
}

bool Type::operator==(const Type& other) const {
  if (kind_ != other.kind_ || element_type_ != other.element_type_ || shape_ != other.shape_ ||
      denotation_ != other.denotation_ || serialized_proto_ != other.serialized_proto_) {
    return false;
  }
  return (elem_ == nullptr) == (other.elem_ == nullptr) &&
         (elem_ == nullptr || *elem_ == *other.elem_);
}

bool Type::IsStatic() const {
  if (!shape_) return false;
  for (const Dim& d : *shape_) {
    if (!d.is_literal()) return false;
  }
  return true;
}

std::string Type::ToString() const {
  switch (kind_) {
    case Kind::kNone:
      return "?";
    case Kind::kOther:
      return "<non-tensor type>";
    case Kind::kSequence:
      return absl::StrCat("seq(", elem().ToString(), ")");
    case Kind::kOptional:
      return absl::StrCat("optional(", elem().ToString(), ")");
    case Kind::kTensor:
    case Kind::kSparseTensor:
      break;
  }
  std::string s(ElementTypeName(element_type_));
  if (kind_ == Kind::kSparseTensor) s = absl::StrCat("sparse_tensor(", s, ")");
  // As in ONNX's textual syntax: no brackets is a scalar, empty brackets an unknown rank.
  if (!shape_) return absl::StrCat(s, "[]");
  if (shape_->empty()) return s;
  return absl::StrCat(s, "[",
                      absl::StrJoin(*shape_, ",",
                                    [](std::string* out, const Dim& d) {
                                      if (d.is_literal()) {
                                        absl::StrAppend(out, *d.value);
                                      } else if (d.is_param()) {
                                        absl::StrAppend(out, d.param);
                                      } else {
                                        absl::StrAppend(out, "?");
                                      }
                                    }),
                      "]");
}

}  // namespace anvil
