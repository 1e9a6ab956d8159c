// Structural equality of Tensor IR: same kinds, types, constants, attributes and shape of the
// tree, with variables and tensors compared up to renaming. Two variables correspond when they
// are first met at the same place (parameters by position, loop variables and Defines where they
// are introduced, globals by position); the correspondence must stay one-to-one. So
//   for i in (0, N, 1) { Y[i] = X[i] }  equals  for k in (0, M, 1) { B[k] = A[k] }
// when N, X, Y and M, A, B correspond, but `X[i] + X[i]` does not equal `X[i] + Z[i]`.
// Names are ignored; printing and parsing back give an equal module.
#ifndef ANVIL_LOWER_IR_EQUAL_H_
#define ANVIL_LOWER_IR_EQUAL_H_

#include <string>

#include "lower/ir/expr.h"
#include "lower/ir/module.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

bool StructurallyEqual(const Expr& a, const Expr& b);
bool StructurallyEqual(const Stmt& a, const Stmt& b);
bool StructurallyEqual(const Function& a, const Function& b);
// Functions, globals (not their contents), kernel table and entry binding.
bool StructurallyEqual(const Module& a, const Module& b);

// The same structure with the very same variables and tensors (no renaming): what a rewrite
// compares to learn whether it changed anything.
bool IdenticalExpr(const Expr& a, const Expr& b);

// Where two modules first differ ("function main: statement 3: ..."), or "" when equal.
std::string FirstDifference(const Module& a, const Module& b);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_EQUAL_H_
