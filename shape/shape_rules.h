// The per-family ShapeRule tables that FindShapeFn searches (shape_rule_registry.cc). Each family
// file in shape/ops/ defines one table, sorted by op_type, ending with a {nullptr} row. Private to
// the shape package.
#ifndef ANVIL_SHAPE_SHAPE_RULES_H_
#define ANVIL_SHAPE_SHAPE_RULES_H_

#include "shape/shape_helper.h"

namespace anvil::shape_rules {

extern const ShapeRule kElementwiseRules[];  // ops/elementwise.cc: unary, broadcast, norms, ...
extern const ShapeRule kShapeOpRules[];      // ops/shape_ops.cc: Reshape, Slice, Gather, ...
extern const ShapeRule kComputeRules[];      // ops/compute.cc: MatMul, Conv, pools, RNN, ...
extern const ShapeRule kControlFlowRules[];  // ops/control_flow.cc: If, Loop, Scan
extern const ShapeRule kSequenceRules[];     // ops/sequence.cc: Sequence*, Optional*

}  // namespace anvil::shape_rules

#endif  // ANVIL_SHAPE_SHAPE_RULES_H_
