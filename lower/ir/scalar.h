// The arithmetic of one lane, exactly as expr.h defines it: the evaluator computes every lane
// with these functions and the simplifier folds constants with them, so a folded constant is
// bit-identical to what evaluation would have produced.
//
// A Scalar holds integers, bools and indexes in `i` (unsigned kinds zero-extended, u64 as its
// bit pattern) and floats in `f` (already rounded to the type's precision).
#ifndef ANVIL_LOWER_IR_SCALAR_H_
#define ANVIL_LOWER_IR_SCALAR_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lower/ir/expr.h"
#include "lower/ir/type.h"

namespace anvil::tir {

struct Scalar {
  int64_t i = 0;
  double f = 0;
};

// `type` is the operands' scalar type (lanes ignored). Comparisons give a bool in `i`. A zero
// integer divisor is InvalidArgument.
absl::StatusOr<Scalar> ApplyBinary(ExprKind kind, DataType type, Scalar a, Scalar b);
// kNeg, kNot.
Scalar ApplyUnary(ExprKind kind, DataType type, Scalar a);
Scalar ApplyCast(DataType to, DataType from, Scalar a);
// Element-wise intrinsics (not the lane reductions or kernels); `type` is the operands' type.
absl::StatusOr<Scalar> ApplyIntrinsic(IntrinsicOp op, DataType type, absl::Span<const Scalar> args);

// RoundToFloat and WrapToInt (the value a kind holds) are in type.h.

// Reads / writes one element of a tensor buffer of element type `type`.
Scalar LoadScalar(DataType type, const void* p);
void StoreScalar(DataType type, void* p, Scalar v);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_SCALAR_H_
