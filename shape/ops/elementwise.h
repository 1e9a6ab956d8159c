// The element-wise family of ShapeHelpers, split over elementwise.cc (the kElementwiseRules
// table; unary, type-changing and broadcasting ops) and elementwise_norm.cc (normalizations with
// extra outputs). Private to the shape package.
#ifndef ANVIL_SHAPE_OPS_ELEMENTWISE_H_
#define ANVIL_SHAPE_OPS_ELEMENTWISE_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "graph/element_type.h"
#include "shape/shape_helper.h"

namespace anvil::shape_ops::elementwise {

// An int attribute holding a TensorProto.DataType (Cast's `to`, `dtype`, `stash_type`) as an
// element type; nullopt when it names none.
std::optional<ElementType> ElementTypeFromAttr(int64_t value);

// ---- elementwise_norm.cc ----
absl::Status BatchNormalizationShape(ShapeContext& ctx);
absl::Status LayerNormalizationShape(ShapeContext& ctx);
absl::Status DropoutShape(ShapeContext& ctx);

}  // namespace anvil::shape_ops::elementwise

#endif  // ANVIL_SHAPE_OPS_ELEMENTWISE_H_
