// Tensor IR expressions: immutable nodes behind a cheap, shared handle (Expr), made only by
// validating factories, so that an ill-typed expression cannot exist. Kinds are listed once in
// node_kinds.inc; intrinsics in intrinsics.inc.
//
// Semantics (what the evaluator implements and the emitter must reproduce):
//  - Operands of arithmetic, comparisons and select have exactly one type: no implicit
//    conversion, cast explicitly (Cast). Vector operands have the same lanes; a scalar meets a
//    vector through Broadcast.
//  - Integers (s8..s64, u8..u64, index) wrap on overflow (two's complement). Div truncates toward
//    zero; FloorDiv rounds toward negative infinity; Mod is the floor remainder (the sign of the
//    divisor, as IndexExpr and ONNX Mod with fmod=0); a zero divisor is an evaluation error.
//    FloorDiv and Mod take integers only (floats use floor(a / b) and the fmod intrinsic).
//  - Floats: IEEE arithmetic in the type's own precision; f16 and bf16 compute in f32 and round
//    to nearest even after every operation. Min and Max return NaN when either operand is NaN.
//  - Cast: float -> int truncates toward zero and saturates at the target's range (NaN -> 0);
//    int -> int wraps; any -> bool is `!= 0`; bool -> number is 0 or 1; float -> narrower float
//    rounds to nearest even.
//  - And, Or, Not take bools; comparisons give bools (with the operands' lanes).
//  - Indexing t[i0, ..., ik] reads one element, or `lanes` consecutive elements along the last
//    dim starting at ik; subscripts are scalar `index` values, row-major over the tensor's dims.
//    Out-of-range subscripts are an evaluation error (the evaluator checks; compiled code trusts).
//  - Evaluation order of operands is unspecified; expressions have no side effects except
//    Call and the kernel intrinsics, which appear only as the value of an Evaluate statement.
#ifndef ANVIL_LOWER_IR_EXPR_H_
#define ANVIL_LOWER_IR_EXPR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lower/ir/type.h"

namespace anvil::tir {

enum class ExprKind : uint8_t {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) k##kind,
#include "lower/ir/node_kinds.inc"
};
std::string_view ExprKindName(ExprKind kind);

enum class IntrinsicOp : uint8_t {
#define ANVIL_TIR_INTRINSIC(op, spelling, arity, rule) k##op,
#include "lower/ir/intrinsics.inc"
};
std::string_view IntrinsicName(IntrinsicOp op);
// The op spelled `name`, or false.
bool IntrinsicFromName(std::string_view name, IntrinsicOp* op);
// Side-effecting (kernel calls): allowed only as the value of an Evaluate statement.
bool IsKernelIntrinsic(IntrinsicOp op);

class ExprNode;

// A shared handle to an immutable expression node; copying is cheap. Identity (same()) is
// pointer identity; structural equality is in equal.h.
class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const ExprNode* get() const { return node_.get(); }
  const ExprNode* operator->() const { return node_.get(); }
  ExprKind kind() const;
  DataType type() const;
  // The node as its class, or nullptr when it is of another kind.
  template <typename T>
  const T* as() const;
  bool same(const Expr& other) const { return node_ == other.node_; }

  // Printed form (printer.h); for messages and debugging.
  std::string ToString() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

class ExprNode {
 public:
  virtual ~ExprNode() = default;
  ExprKind kind() const { return kind_; }
  DataType type() const { return type_; }

 protected:
  ExprNode(ExprKind kind, DataType type) : kind_(kind), type_(type) {}

 private:
  ExprKind kind_;
  DataType type_;
};

// A scalar constant. Integers, bools and index keep their value in `int_value` (u64 as its bit
// pattern), floats in `float_value` (already rounded to the type's precision).
class ConstantNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kConstant};
  ConstantNode(DataType type, int64_t i, double f)
      : ExprNode(ExprKind::kConstant, type), int_value(i), float_value(f) {}
  int64_t int_value;
  double float_value;
};

// A scalar or vector variable: a function parameter, a loop variable or a Define. Identity is
// the node: two variables of one name are different variables.
class VarNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kVar};
  VarNode(std::string n, DataType type) : ExprNode(ExprKind::kVar, type), name(std::move(n)) {}
  std::string name;
};

// A tensor: a named, row-major, dense buffer of `dims` (index expressions) elements of the scalar
// type type(). Where it lives (parameter, module global, local Define, view of another tensor)
// is said where it is declared. Identity is the node.
class TensorNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kTensor};
  TensorNode(std::string n, DataType element, std::vector<Expr> d)
      : ExprNode(ExprKind::kTensor, element), name(std::move(n)), dims(std::move(d)) {}
  std::string name;
  std::vector<Expr> dims;
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
};

class CastNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kCast};
  CastNode(DataType type, Expr v) : ExprNode(ExprKind::kCast, type), value(std::move(v)) {}
  Expr value;
};

// A scalar repeated in every lane of a vector.
class BroadcastNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kBroadcast};
  BroadcastNode(DataType type, Expr v) : ExprNode(ExprKind::kBroadcast, type), value(std::move(v)) {}
  Expr value;
};

class BinaryNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {
      ExprKind::kAdd,   ExprKind::kSub,   ExprKind::kMul,   ExprKind::kDiv,   ExprKind::kFloorDiv,
      ExprKind::kMod,   ExprKind::kMin,   ExprKind::kMax,   ExprKind::kCmpEq, ExprKind::kCmpNe,
      ExprKind::kCmpLt, ExprKind::kCmpLe, ExprKind::kCmpGt, ExprKind::kCmpGe, ExprKind::kAnd,
      ExprKind::kOr};
  BinaryNode(ExprKind kind, DataType type, Expr l, Expr r)
      : ExprNode(kind, type), a(std::move(l)), b(std::move(r)) {}
  Expr a;
  Expr b;
};

class UnaryNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kNeg, ExprKind::kNot};
  UnaryNode(ExprKind kind, DataType type, Expr v) : ExprNode(kind, type), a(std::move(v)) {}
  Expr a;
};

class SelectNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kSelect};
  SelectNode(DataType type, Expr c, Expr t, Expr f)
      : ExprNode(ExprKind::kSelect, type),
        cond(std::move(c)),
        if_true(std::move(t)),
        if_false(std::move(f)) {}
  Expr cond;
  Expr if_true;
  Expr if_false;
};

class IndexingNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kIndexing};
  IndexingNode(DataType type, Expr t, std::vector<Expr> i)
      : ExprNode(ExprKind::kIndexing, type), tensor(std::move(t)), indices(std::move(i)) {}
  Expr tensor;  // a TensorNode
  std::vector<Expr> indices;
};

// The address of t[indices]: what kernel intrinsics receive.
class TensorPtrNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kTensorPtr};
  TensorPtrNode(DataType type, Expr t, std::vector<Expr> i)
      : ExprNode(ExprKind::kTensorPtr, type), tensor(std::move(t)), indices(std::move(i)) {}
  Expr tensor;
  std::vector<Expr> indices;
};

// A call of a function of the module (checked against its signature by the module verifier).
class CallNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kCall};
  CallNode(DataType type, std::string c, std::vector<Expr> a)
      : ExprNode(ExprKind::kCall, type), callee(std::move(c)), args(std::move(a)) {}
  std::string callee;
  std::vector<Expr> args;
};

class IntrinsicNode final : public ExprNode {
 public:
  static constexpr ExprKind kKinds[] = {ExprKind::kIntrinsic};
  IntrinsicNode(DataType type, IntrinsicOp o, std::vector<Expr> a)
      : ExprNode(ExprKind::kIntrinsic, type), op(o), args(std::move(a)) {}
  IntrinsicOp op;
  std::vector<Expr> args;
};

template <typename T>
const T* Expr::as() const {
  if (node_ == nullptr) return nullptr;
  for (ExprKind k : T::kKinds) {
    if (node_->kind() == k) return static_cast<const T*>(node_.get());
  }
  return nullptr;
}

// ---- Factories: InvalidArgument naming the rule when the operands break it ----

// An integer, index or bool constant of a scalar type (the value wraps to the type's width).
absl::StatusOr<Expr> MakeIntConstant(DataType type, int64_t value);
// A float constant (rounded to f16 / bf16 / f32 precision as the type says).
absl::StatusOr<Expr> MakeFloatConstant(DataType type, double value);
absl::StatusOr<Expr> MakeVar(std::string name, DataType type);
// `element` must be a tensor element kind (type.h); `dims` index expressions.
absl::StatusOr<Expr> MakeTensor(std::string name, DataType element, std::vector<Expr> dims);
absl::StatusOr<Expr> MakeCast(DataType type, Expr value);
absl::StatusOr<Expr> MakeBroadcast(Expr scalar, int lanes);
absl::StatusOr<Expr> MakeBinary(ExprKind kind, Expr a, Expr b);
absl::StatusOr<Expr> MakeUnary(ExprKind kind, Expr a);
absl::StatusOr<Expr> MakeSelect(Expr cond, Expr if_true, Expr if_false);
// `lanes` > 1 reads a vector along the last dim.
absl::StatusOr<Expr> MakeIndexing(Expr tensor, std::vector<Expr> indices, int lanes = 1);
absl::StatusOr<Expr> MakeTensorPtr(Expr tensor, std::vector<Expr> indices);
absl::StatusOr<Expr> MakeCall(std::string callee, DataType type, std::vector<Expr> args);
absl::StatusOr<Expr> MakeIntrinsic(IntrinsicOp op, std::vector<Expr> args);

// Shorthands for constants that cannot fail.
Expr IndexConst(int64_t value);
Expr BoolConst(bool value);

// The value of an integer / index / bool constant, or false.
bool AsIntConstant(const Expr& e, int64_t* value);
bool IsIntConstant(const Expr& e, int64_t value);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_EXPR_H_
