// The element-wise family of ShapeHelpers, split over elementwise.cc (the kElementwiseRules
// table; unary, type-changing and broadcasting ops), elementwise_norm.cc (normalizations with
// extra outputs) and elementwise_training.cc (optimizer updates). Private to the shape package.
#ifndef ANVIL_SHAPE_OPS_ELEMENTWISE_H_
#define ANVIL_SHAPE_OPS_ELEMENTWISE_H_

#include <cstdint>
#include <optional>
#include <string_view>

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

// ---- elementwise_training.cc ----
// The tensor groups of an optimizer update of ai.onnx.preview.training: after R and T, `inputs`
// groups of n tensors (X, G, states), and `outputs` groups of n outputs (X_new, new states).
struct OptimizerGroups {
  int inputs;
  int outputs;
};
// Adagrad, Adam or Momentum; nullopt for any other op.
std::optional<OptimizerGroups> OptimizerGroupsOf(std::string_view op_type);
absl::Status OptimizerUpdateShape(ShapeContext& ctx);

}  // namespace anvil::shape_ops::elementwise

#endif  // ANVIL_SHAPE_OPS_ELEMENTWISE_H_
