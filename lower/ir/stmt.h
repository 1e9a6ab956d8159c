// Tensor IR statements: immutable nodes behind a shared handle (Stmt), made by validating
// factories. Kinds are listed once in node_kinds.inc.
//
// Semantics:
//  - Block runs its statements in order. A Define introduces a variable or tensor for the rest
//    of the enclosing block (a loop variable: for the loop's body). Names need not be unique:
//    identity is the node (printer.h renames apart when printing).
//  - For: `var` takes begin, begin + step, ... while < end; step > 0 (the evaluator checks).
//    begin, end and step are evaluated once, before the first iteration. Attributes say how
//    the loop may run — `parallel` (iterations independent: no iteration reads what another
//    writes), `vectorize` (lanes; the body is legal to run `lanes` iterations at once), `unroll`
//    — and never change its result.
//  - Assign writes a Define'd variable; Store writes `value`'s lanes into consecutive elements
//    along the last dim of the tensor.
//  - Define of a tensor: a local buffer of its dims, uninitialized, unless `view_of` names a
//    tensor whose bytes it shares (same element type and element count: Reshape and friends), or
//    `dynamic` says the kernel intrinsic that writes it allocates it and assigns its dims, which
//    must then be Define'd variables without an initial value. `offset` (bytes, an index
//    expression) places it in the function's workspace, as the memory plan decided; without one
//    the evaluator allocates it.
//  - Assert fails the run with `message` when `cond` is false (data errors such as a Gather
//    index out of range, which kernels report the same way).
//  - Return leaves the function (with a value when the function returns one).
//  - Comment does nothing: text for readers of the printed module and of emitted code (lowering
//    puts one before each ONNX node's statements, naming the node, its inputs and outputs).
#ifndef ANVIL_LOWER_IR_STMT_H_
#define ANVIL_LOWER_IR_STMT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lower/ir/expr.h"

namespace anvil::tir {

enum class StmtKind : uint8_t {
#define ANVIL_TIR_STMT(kind, node_class) k##kind,
#include "lower/ir/node_kinds.inc"
};
std::string_view StmtKindName(StmtKind kind);

class StmtNode;

class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}

  bool defined() const { return node_ != nullptr; }
  const StmtNode* get() const { return node_.get(); }
  const StmtNode* operator->() const { return node_.get(); }
  StmtKind kind() const;
  template <typename T>
  const T* as() const;
  bool same(const Stmt& other) const { return node_ == other.node_; }

  std::string ToString() const;

 private:
  std::shared_ptr<const StmtNode> node_;
};

class StmtNode {
 public:
  virtual ~StmtNode() = default;
  StmtKind kind() const { return kind_; }

 protected:
  explicit StmtNode(StmtKind kind) : kind_(kind) {}

 private:
  StmtKind kind_;
};

class AssignNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAssign;
  AssignNode(Expr v, Expr x) : StmtNode(kKind), var(std::move(v)), value(std::move(x)) {}
  Expr var;  // a VarNode
  Expr value;
};

class StoreNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kStore;
  StoreNode(Expr t, std::vector<Expr> i, Expr x)
      : StmtNode(kKind), tensor(std::move(t)), indices(std::move(i)), value(std::move(x)) {}
  Expr tensor;  // a TensorNode
  std::vector<Expr> indices;
  Expr value;  // its lanes are stored along the last dim
};

class BlockNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kBlock;
  explicit BlockNode(std::vector<Stmt> s) : StmtNode(kKind), stmts(std::move(s)) {}
  std::vector<Stmt> stmts;
};

class IfElseNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kIfElse;
  IfElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind), cond(std::move(c)), then_body(std::move(t)), else_body(std::move(e)) {}
  Expr cond;
  Stmt then_body;
  Stmt else_body;  // may be null
};

struct ForAttrs {
  bool parallel = false;
  int vectorize = 0;  // lanes; 0: not marked
  int unroll = 0;     // 0: not marked
  bool operator==(const ForAttrs&) const = default;
};

class ForNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kFor;
  ForNode(Expr v, Expr b, Expr e, Expr s, Stmt body_stmt, ForAttrs a)
      : StmtNode(kKind),
        var(std::move(v)),
        begin(std::move(b)),
        end(std::move(e)),
        step(std::move(s)),
        body(std::move(body_stmt)),
        attrs(a) {}
  Expr var;  // an index VarNode
  Expr begin;
  Expr end;
  Expr step;
  Stmt body;
  ForAttrs attrs;
};

class EvaluateNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kEvaluate;
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  Expr value;
};

class ReturnNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kReturn;
  explicit ReturnNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  Expr value;  // may be null
};

struct TensorAttrs {
  Expr view_of;  // a TensorNode whose bytes this one shares, or null
  Expr offset;   // bytes into the workspace (index), or null
  bool dynamic = false;
  // At most this many bytes in every run (its dims' upper bounds, from the model's dim ranges),
  // -1 when unknown: lets plan-buffers place a tensor whose dims only the run learns.
  int64_t max_bytes = -1;
};

class DefineNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kDefine;
  DefineNode(Expr t, Expr i, TensorAttrs a)
      : StmtNode(kKind), target(std::move(t)), init(std::move(i)), tensor(std::move(a)) {}
  Expr target;  // a VarNode or a TensorNode
  Expr init;    // variables: the initial value, or null
  TensorAttrs tensor;
};

class AssertNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kAssert;
  AssertNode(Expr c, std::string m) : StmtNode(kKind), cond(std::move(c)), message(std::move(m)) {}
  Expr cond;
  std::string message;
};

class CommentNode final : public StmtNode {
 public:
  static constexpr StmtKind kKind = StmtKind::kComment;
  explicit CommentNode(std::string t) : StmtNode(kKind), text(std::move(t)) {}
  std::string text;  // one line: no control characters
};

template <typename T>
const T* Stmt::as() const {
  if (node_ == nullptr || node_->kind() != T::kKind) return nullptr;
  return static_cast<const T*>(node_.get());
}

// ---- Factories ----
// Loop and branch bodies that are not blocks are wrapped in one (one canonical form).
absl::StatusOr<Stmt> MakeAssign(Expr var, Expr value);
absl::StatusOr<Stmt> MakeStore(Expr tensor, std::vector<Expr> indices, Expr value);
// Never fails; a block of one statement is kept (the simplifier flattens).
Stmt MakeBlock(std::vector<Stmt> stmts);
absl::StatusOr<Stmt> MakeIfElse(Expr cond, Stmt then_body, Stmt else_body = Stmt());
absl::StatusOr<Stmt> MakeFor(Expr var, Expr begin, Expr end, Expr step, Stmt body,
                             ForAttrs attrs = {});
absl::StatusOr<Stmt> MakeEvaluate(Expr value);
absl::StatusOr<Stmt> MakeReturn(Expr value = Expr());
// A variable (with or without an initial value) or a tensor (with its attributes).
absl::StatusOr<Stmt> MakeDefine(Expr target, Expr init = Expr(), TensorAttrs attrs = {});
absl::StatusOr<Stmt> MakeAssert(Expr cond, std::string message);
// Never fails: control characters (line breaks, tabs) become spaces, a trailing backslash (which
// would continue a C++ line comment onto the next line) a slash, and text past 300 bytes "...".
Stmt MakeComment(std::string text);

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_STMT_H_
