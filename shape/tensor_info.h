// Conversions between the IR's declared types (graph/type.h: literal dims and dim_param strings)
// and TensorInfo (IndexExpr dims), used by the builders and the shape-inference pass.
#ifndef ANVIL_SHAPE_TENSOR_INFO_H_
#define ANVIL_SHAPE_TENSOR_INFO_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/elements.h"
#include "graph/type.h"
#include "shape/shape_helper.h"

namespace anvil {

// Largest integer tensor whose contents analysis tracks as `values` (shape computations).
inline constexpr int64_t kMaxTrackedValues = 64;

// A declared type as TensorInfo: literal dims stay literal, a dim_param is read with
// IndexExpr::FromDimParam, an unknown dim becomes a fresh questionmark.
TensorInfo InfoFromType(const Type& type);

// Dims and (for small integer tensors) values of a constant.
TensorInfo InfoFromElements(const Elements& elements);

// The concrete dims of a result known at run time: the type is defined, the rank known and every
// dim a literal >= 0; else nullopt (a data-dependent size only the kernel knows).
std::optional<std::vector<int64_t>> LiteralDims(const TensorInfo& info);

// An IndexExpr as a declared dim: literal, dim_param (printed form), or unknown (questionmarks
// and undefined values are not expressible).
Dim DimFromIndexExpr(const IndexExpr& e);

// Merges what inference found into what the model declared: known facts win over unknown ones,
// a declared literal wins over an inferred symbolic dim (it is a fact the exporter knew), and
// two different literals (or ranks) are a contradiction reported by the caller.
struct MergeResult {
  Type type;
  bool conflict = false;
  std::string conflict_detail;  // "dim 1: inferred 4, declared 5"
};
MergeResult MergeInferredType(const TensorInfo& inferred, const Type& declared);

// What analysis carries forward for a value after merging: per dim, a declared literal if there
// is one, else the inferred dim unless it is a questionmark, else the declared dim_param; the
// rank from the declared type when inference did not find it. Inferred values are kept.
TensorInfo RefineWithDeclared(TensorInfo inferred, const Type& declared);

}  // namespace anvil

#endif  // ANVIL_SHAPE_TENSOR_INFO_H_
