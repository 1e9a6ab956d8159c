// What a lowering rule sees of the node it lowers (private to lower/lowering).
//
// A rule turns one ONNX node into Tensor IR statements that compute its outputs. Its operands and
// outputs are tensors already declared (parameters, globals, or Defines the driver made with the
// dims the op's ShapeHelper gave); the dims as IndexExprs (input_dims, output_dims) decide
// broadcasting and layout at lowering time, their Tensor IR form (the tensors' dims, Dim())
// bounds the loops. Facts the ShapeHelper derived on the way (reduced axes, Slice starts, ...)
// are in facts(): a rule never re-derives a shape rule.
//
// A rule returns OK when it emitted the node's computation, Unimplemented when it does not cover
// this node (an element type, an attribute value): the driver then discards what it emitted and
// calls the kernel instead. Any other error is the model's fault and ends lowering.
#ifndef ANVIL_LOWER_LOWERING_NODE_LOWERING_H_
#define ANVIL_LOWER_LOWERING_NODE_LOWERING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "lower/ir/builder.h"
#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"

namespace anvil::lower {

class NodeLowering {
 public:
  virtual ~NodeLowering() = default;

  virtual const Node& node() const = 0;
  virtual int64_t opset() const = 0;
  tir::Builder& b() { return builder_; }

  // ---- Operands ----
  virtual bool has_input(int i) const = 0;
  // The input's tensor (null when absent).
  virtual const tir::Expr& input(int i) const = 0;
  virtual const DimsExpr& input_dims(int i) const = 0;
  // The input's contents when it is a constant (initializer or Constant), else null.
  virtual std::shared_ptr<const Elements> input_constant(int i) const = 0;
  // The input's element type in the IR.
  tir::DataType input_type(int i) const { return input(i).type(); }

  // ---- Outputs ----
  virtual int num_outputs() const = 0;
  virtual bool has_output(int i) const = 0;
  virtual const tir::Expr& output(int i) const = 0;
  virtual const DimsExpr& output_dims(int i) const = 0;
  tir::DataType output_type(int i) const { return output(i).type(); }
  // Makes output `output` a view of input `input`'s bytes (Reshape and friends) instead of a
  // buffer of its own; the driver copies instead when the output must own its memory (a graph
  // output). Call before emitting anything for that output.
  virtual void ViewOutput(int output, int input) = 0;

  // Lowers the node as a call of its kernel (the runtime's, through the kernel table) counted
  // as a compute intrinsic: the rule of ops whose kernels are the building blocks lowering
  // does not open up (convolutions, pooling).
  virtual absl::Status CallKernel() = 0;

  // ---- What the ShapeHelper derived ----
  virtual const ShapeFacts& facts() const = 0;

  // ---- Building ----
  // A dim as an index expression (over the entry's dim parameters and bound variables).
  virtual tir::Expr Dim(const IndexExpr& e) = 0;
  // The tensor's dims (as its node holds them).
  static const std::vector<tir::Expr>& TensorDims(const tir::Expr& t) {
    return t.as<tir::TensorNode>()->dims;
  }
  void Emit(tir::Stmt s) {
    if (s.defined()) stmts_.push_back(std::move(s));
  }
  // A fresh local of `type` (Define emitted), initialized when `init` is given.
  tir::Expr Local(std::string name, tir::DataType type, tir::Expr init = tir::Expr());
  // A local tensor (Define emitted) for a rule's scratch.
  tir::Expr LocalTensor(std::string name, tir::DataType element, std::vector<tir::Expr> dims);

  // The subscripts of input `input` (numpy-broadcast against output `output`'s dims) for the
  // output subscripts `out`: leading output dims the input lacks are dropped, a literal 1
  // becomes 0, a dim equal to the output's takes its subscript, and a dim that is neither
  // (symbolic; at run time either 1 or the output's) becomes min(i, d - 1) — with an Assert,
  // emitted once before the node's loops, that the run's dim is indeed 1 or the output's.
  std::vector<tir::Expr> BroadcastIndex(int input, const std::vector<tir::Expr>& out,
                                        int output = 0);

  // Unimplemented naming the node and `why` (the driver falls back to the kernel).
  absl::Status Unimplemented(std::string_view why) const;
  // InvalidArgument naming the node.
  absl::Status Error(std::string_view what) const;

  std::vector<tir::Stmt>& stmts() { return stmts_; }
  // Run-time checks of what lowering assumed about symbolic dims (the driver emits them first).
  std::vector<tir::Stmt>& checks() { return checks_; }

  // The node's work is a compute intrinsic (gemm, a convolution kernel): counted apart from
  // the natively lowered ops.
  void CountAsIntrinsic() { intrinsic_ = true; }
  bool counted_as_intrinsic() const { return intrinsic_; }

 private:
  bool intrinsic_ = false;
  tir::Builder builder_;
  std::vector<tir::Stmt> stmts_;
  std::vector<tir::Stmt> checks_;
  std::vector<std::pair<int, size_t>> checked_;  // (input, axis) pairs asserted
};

using LowerFn = absl::Status (*)(NodeLowering& n);

// One row of a family's table, bound to the op table like shape rules and kernels.
struct LowerRule {
  const char* domain;
  const char* op_type;
  LowerFn fn;
};

// The family tables (each ends with a {nullptr} row).
extern const LowerRule kElementwiseLowerRules[];  // rules_elementwise.cc
extern const LowerRule kReduceLowerRules[];       // rules_reduce.cc
extern const LowerRule kDataLowerRules[];         // rules_data.cc
extern const LowerRule kLinalgLowerRules[];       // rules_linalg.cc

// The rule for `node` at `opset`, or nullptr.
LowerFn FindLowerRule(const Node& node, int64_t opset);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_LOWERING_NODE_LOWERING_H_
