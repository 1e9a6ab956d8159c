// An Einsum as a straight-line program of standard ops over tensors whose dims are named by
// labels: the layout stage between the planner (planner.h), which fixes the contraction order,
// and the einsum-decompose pass, which writes the program into the graph as ONNX nodes.
//
// BuildProgram turns a bound equation into:
//  1. per operand: dims of size 1 that broadcast against a larger size of their label dropped
//     (Reshape); each label repeated within the operand moved last and flattened (Transpose,
//     Reshape) and its diagonal taken (a strided Slice, exact for every value, unlike a mask
//     multiply that turns inf into NaN); labels only it holds summed out (ReduceSum);
//  2. per planner step: a MatMul over [prefix..., batch..., M, K] x [batch..., K, N] (labels that
//     only one side holds may lead its batch dims, so MatMul's own broadcasting handles them
//     without a Reshape), a Mul with numpy broadcasting when nothing is summed (Hadamard, outer
//     and mixed products), or a Mul and a ReduceSum for batched dot products;
//  3. a final Transpose into the output order.
// Operand layouts are chosen by a beam search over the steps that minimizes the elements moved
// by Transposes (Reshapes are nearly free, ops on constants fold away), so an operand already in
// [batch, M, K] order goes straight into MatMul and the last step's result comes out in the
// output order when it can. The builder composes a Transpose of a Transpose and a Reshape of a
// Reshape, and never emits an identity Transpose or Reshape.
//
// When a label has size 0 the result is all zeros (an empty sum, or an empty output): the
// program is one kZeros op.
//
// Contracted labels whose sizes in the two operands are not provably equal (different symbolic
// dims that einsum would broadcast) are broadcast first with Expand, so the program is correct
// for every size; batch labels need no Expand (MatMul and Mul broadcast them).
#ifndef ANVIL_EINSUM_PROGRAM_H_
#define ANVIL_EINSUM_PROGRAM_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "einsum/planner.h"
#include "shape/einsum_equation.h"
#include "shape/index_expr.h"

namespace anvil::einsum {

enum class OpKind { kTranspose, kReshape, kDiagonal, kReduceSum, kMatMul, kMul, kExpand, kZeros };
std::string_view OpKindName(OpKind kind);

// The size of one label in one tensor, and where it can be read at run time: the broadcast of
// the listed (operand, dim) pairs of the Einsum's inputs.
struct LabelDim {
  IndexExpr size;
  std::vector<std::pair<int, int>> sources;
};

// One dim of a program tensor: the labels it flattens, row-major (a label flattened with itself
// is a diagonal's input); empty for a unit dim of size 1.
using Axis = std::vector<int>;

struct ProgramTensor {
  std::vector<Axis> axes;
  std::map<int, LabelDim> labels;      // every label its axes name
  bool constant = false;               // computed from constant operands only (folds away)
  std::vector<int64_t> producer_perm;  // operands only: see OperandInfo

  IndexExpr AxisSize(size_t axis) const;
  DimsExpr Dims() const;
  // The labels of the axes in order, flattened.
  std::vector<int> LabelSequence() const;
  // Every axis holds exactly one label.
  bool IsSimple() const;
};

struct ProgramOp {
  OpKind kind = OpKind::kTranspose;
  std::vector<int> inputs;
  int output = -1;
  std::vector<int64_t> perm;  // kTranspose: output axis k is input axis perm[k]
  std::vector<int64_t> axes;  // kReduceSum: input axes summed away (keepdims 0)
  // kDiagonal: the input's last axis flattens `diagonal_count` copies of one label; the output
  // keeps their diagonal, one copy. kReshape and kExpand read their output tensor's axes and
  // label sizes. kZeros (no inputs) is all zeros of its output's shape.
  int diagonal_count = 0;
};

struct Program {
  int num_inputs = 0;
  std::vector<ProgramTensor> tensors;  // 0 .. num_inputs-1: the operands as given
  std::vector<ProgramOp> ops;          // in execution order
  int result = -1;
  double cost = 0;  // the layout estimate: elements moved or computed, constants free

  // One op per line, e.g. "%3 = matmul %1, %2 : [b,i,(jk)]"; for tests and --debug output.
  std::string ToString() const;
};

struct ProgramOptions {
  PlannerOptions planner;
  int beam_width = 4;
};

// What the layout search knows of an operand.
struct OperandInfo {
  DimsExpr dims;
  bool constant = false;  // a compile-time constant: ops on it fold away
  // The perm of the Transpose node that produced the operand (empty: none). The emitter composes
  // a Transpose of the operand with it, so one that composes to the identity is free.
  std::vector<int64_t> producer_perm;
};

// The program for `eq` (every rank and the output known) over `operands`; `sizes` are the label
// sizes (EinsumLabelSizes). The planner's plan goes to `plan` when given.
Program BuildProgram(const BoundEquation& eq, absl::Span<const OperandInfo> operands,
                     absl::Span<const IndexExpr> sizes, const ProgramOptions& options,
                     ContractionPlan* plan = nullptr);

}  // namespace anvil::einsum

#endif  // ANVIL_EINSUM_PROGRAM_H_
