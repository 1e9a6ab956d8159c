#include "shape/tensor_info.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace anvil {
namespace {

// What two element types of one sequence share: the element type (either's when one is unset),
// each dim both state alike, the rank when both state the same one. Never a contradiction:
// exporters declare sequence elements loosely (one dim for elements of many sizes).
Type UnionOfElements(const Type& a, const Type& b) {
  if (!a.has_value()) return b;
  if (!b.has_value()) return a;
  if (a.kind() != b.kind()) return Type();
  if (a.is_sequence() || a.is_optional()) {
    Type inner = UnionOfElements(a.elem(), b.elem());
    return a.is_sequence() ? Type::Sequence(std::move(inner)) : Type::Optional(std::move(inner));
  }
  if (!a.is_tensor()) return a;
  const ElementType elem =
      a.element_type() != ElementType::kUndefined ? a.element_type() : b.element_type();
  if (!a.has_shape() || !b.has_shape() || a.rank() != b.rank()) return Type::Tensor(elem);
  std::vector<Dim> dims = a.shape();
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!(dims[k] == b.shape()[k])) dims[k] = Dim::Unknown();
  }
  return Type::Tensor(elem, std::move(dims));
}

// The Type of a sequence's or optional's element info (no type when nothing is known).
Type ElementInfoType(const TensorInfo& elem) {
  if (elem.is_tensor() && elem.type == ElementType::kUndefined && !elem.dims) return Type();
  return MergeInferredType(elem, Type()).type;
}

}  // namespace

TensorInfo InfoFromType(const Type& type) {
  if (type.is_sequence()) return TensorInfo::Sequence(InfoFromType(type.elem()));
  if (type.is_optional()) return TensorInfo::Optional(InfoFromType(type.elem()));
  TensorInfo info;
  if (!type.is_tensor()) return info;
  info.type = type.element_type();
  if (!type.has_shape()) return info;
  DimsExpr dims;
  dims.reserve(type.shape().size());
  for (const Dim& d : type.shape()) {
    if (d.is_literal()) {
      dims.push_back(IndexExpr(*d.value));
    } else if (d.is_param()) {
      dims.push_back(IndexExpr::FromDimParam(d.param));
    } else {
      dims.push_back(IndexExpr::Questionmark());
    }
  }
  info.dims = std::move(dims);
  return info;
}

TensorInfo InfoFromElements(const Elements& elements) {
  TensorInfo info;
  info.type = elements.element_type();
  DimsExpr dims;
  for (int64_t d : elements.dims()) dims.push_back(IndexExpr(d));
  info.dims = std::move(dims);
  const int64_t n = elements.NumElements();
  if (IsIntegerOrBoolType(info.type) && n <= kMaxTrackedValues) {
    IndexExprList values;
    values.reserve(n);
    for (int64_t i = 0; i < n; ++i) values.push_back(IndexExpr(elements.GetInt64(i)));
    info.values = std::move(values);
  }
  return info;
}

std::optional<std::vector<int64_t>> LiteralDims(const TensorInfo& info) {
  if (!info.dims || info.type == ElementType::kUndefined) return std::nullopt;
  std::optional<std::vector<int64_t>> dims = LiteralDims(*info.dims);
  if (!dims) return std::nullopt;
  for (int64_t d : *dims) {
    if (d < 0) return std::nullopt;
  }
  return dims;
}

Dim DimFromIndexExpr(const IndexExpr& e) {
  if (e.IsLiteral()) return Dim::Literal(e.literal());
  if (e.IsSymbol() || e.kind() == IndexExpr::Kind::kAffine ||
      e.kind() == IndexExpr::Kind::kNonAffine) {
    return Dim::Param(e.ToString());
  }
  return Dim::Unknown();
}

MergeResult MergeInferredType(const TensorInfo& inferred, const Type& declared) {
  MergeResult result;
  const bool declared_tensor = declared.is_tensor();
  if ((declared.is_sequence() || declared.is_optional()) && !inferred.is_tensor()) {
    // Declared and inferred alike are widened to what both say (UnionOfElements): a loose
    // declaration is never a contradiction, and a type written by an earlier round of a loop
    // body's inference does not pin the later ones.
    Type inner = UnionOfElements(declared.elem(), ElementInfoType(inferred.element()));
    result.type = declared.is_sequence() && inferred.kind == TensorInfo::Kind::kSequence
                      ? Type::Sequence(std::move(inner))
                  : declared.is_optional() && inferred.kind == TensorInfo::Kind::kOptional
                      ? Type::Optional(std::move(inner))
                      : declared;
    result.type.set_denotation(declared.denotation());
    return result;
  }
  if (!declared_tensor && declared.has_value()) {
    // A declared sequence or optional holding a bare value (a present optional may be given as
    // its value), or a kind kept as bytes: as declared.
    result.type = declared;
    return result;
  }
  if (!inferred.is_tensor()) {
    if (declared_tensor) {
      result.conflict = true;
      result.conflict_detail = "a sequence or optional, declared a tensor";
      result.type = declared;
      return result;
    }
    Type elem_type = ElementInfoType(inferred.element());
    result.type = inferred.kind == TensorInfo::Kind::kSequence
                      ? Type::Sequence(std::move(elem_type))
                      : Type::Optional(std::move(elem_type));
    return result;
  }
  ElementType elem = inferred.type != ElementType::kUndefined
                         ? inferred.type
                         : (declared_tensor ? declared.element_type() : ElementType::kUndefined);
  if (declared_tensor && declared.element_type() != ElementType::kUndefined &&
      inferred.type != ElementType::kUndefined && declared.element_type() != inferred.type) {
    result.conflict = true;
    result.conflict_detail =
        absl::StrCat("element type: inferred ", std::string(ElementTypeName(inferred.type)),
                     ", declared ", std::string(ElementTypeName(declared.element_type())));
  }
  const bool declared_shape = declared_tensor && declared.has_shape();
  if (!inferred.dims) {
    result.type = declared_shape ? Type::Tensor(elem, declared.shape()) : Type::Tensor(elem);
    result.type.set_denotation(declared.denotation());  // declared: a tensor or no type
    return result;
  }
  std::vector<Dim> dims;
  dims.reserve(inferred.dims->size());
  if (declared_shape && declared.shape().size() != inferred.dims->size()) {
    result.conflict = true;
    result.conflict_detail =
        absl::StrCat("rank: inferred ", inferred.dims->size(), " ", DimsToString(*inferred.dims),
                     ", declared ", declared.shape().size(), " ", declared.ToString());
  }
  for (size_t k = 0; k < inferred.dims->size(); ++k) {
    Dim dim = DimFromIndexExpr((*inferred.dims)[k]);
    if (declared_shape && k < declared.shape().size()) {
      const Dim& old = declared.shape()[k];
      if (old.is_literal() && dim.is_literal() && *old.value != *dim.value && !result.conflict) {
        result.conflict = true;
        result.conflict_detail =
            absl::StrCat("dim ", k, ": inferred ", *dim.value, ", declared ", *old.value);
      }
      // A declared literal is a fact; an inferred unknown keeps whatever was declared.
      if (old.is_literal() || dim.is_unknown()) {
        Dim kept = old;
        dim = kept;
      } else {
        dim.denotation = old.denotation;
      }
    }
    dims.push_back(std::move(dim));
  }
  result.type = Type::Tensor(elem, std::move(dims));
  result.type.set_denotation(declared.denotation());  // declared: a tensor or no type
  return result;
}

TensorInfo RefineWithDeclared(TensorInfo inferred, const Type& declared) {
  if (declared.is_sequence() || declared.is_optional()) {
    // Nothing inferred (an untyped body input, say): the declaration is all there is.
    if (inferred.is_tensor() && inferred.type == ElementType::kUndefined && !inferred.dims) {
      return InfoFromType(declared);
    }
    return inferred;
  }
  if (!declared.is_tensor()) return inferred;
  if (inferred.type == ElementType::kUndefined) inferred.type = declared.element_type();
  if (!declared.has_shape()) return inferred;
  if (!inferred.dims) {
    inferred.dims = InfoFromType(declared).dims;
    return inferred;
  }
  if (inferred.dims->size() != declared.shape().size()) return inferred;
  for (size_t k = 0; k < inferred.dims->size(); ++k) {
    const Dim& d = declared.shape()[k];
    IndexExpr& e = (*inferred.dims)[k];
    if (d.is_literal()) {
      e = IndexExpr(*d.value);
    } else if (d.is_param() && (e.IsQuestionmark() || e.IsUndefined())) {
      e = IndexExpr::FromDimParam(d.param);
    }
  }
  return inferred;
}

}  // namespace anvil
