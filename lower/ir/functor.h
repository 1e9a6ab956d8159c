// Visitor and mutator over Tensor IR nodes, one method per kind (generated from node_kinds.inc).
//
// IRVisitor walks read-only; its default methods visit every child expression and statement.
// IRMutator rebuilds bottom-up, copy-on-write: a default method returns the very same node when
// no child changed (so "did anything change" is Expr::same / Stmt::same), and otherwise remakes
// it through the validating factory. A factory's refusal (a mutation that broke typing) is kept
// as the mutator's status(), the first one wins, and the node is left unchanged.
//
// Tensors are declarations: neither walks into a TensorNode's dims (a tensor stays the same
// tensor wherever it is used), nor into a Define's tensor attributes except `offset`.
#ifndef ANVIL_LOWER_IR_FUNCTOR_H_
#define ANVIL_LOWER_IR_FUNCTOR_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lower/ir/expr.h"
#include "lower/ir/module.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  virtual void Visit(const Expr& e);
  virtual void Visit(const Stmt& s);
  void Visit(const Function& f);

 protected:
#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  virtual void Visit##kind(const node_class& n, const Expr& e);
#define ANVIL_TIR_STMT(kind, node_class) virtual void Visit##kind(const node_class& n, const Stmt& s);
#include "lower/ir/node_kinds.inc"
};

class IRMutator {
 public:
  virtual ~IRMutator() = default;
  virtual Expr Mutate(const Expr& e);
  virtual Stmt Mutate(const Stmt& s);
  // The function with its body mutated (parameters are kept).
  Function Mutate(const Function& f);

  const absl::Status& status() const { return status_; }

  // Records the first error.
  void Fail(const absl::Status& status) {
    if (status_.ok()) status_ = status;
  }
  // The factory's result, or `fallback` (with the error recorded).
  Expr Take(absl::StatusOr<Expr> made, const Expr& fallback);
  Stmt Take(absl::StatusOr<Stmt> made, const Stmt& fallback);
  // Mutates each element; true when any changed.
  bool MutateAll(const std::vector<Expr>& in, std::vector<Expr>* out);

 protected:
#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  virtual Expr Mutate##kind(const node_class& n, const Expr& e);
#define ANVIL_TIR_STMT(kind, node_class) virtual Stmt Mutate##kind(const node_class& n, const Stmt& s);
#include "lower/ir/node_kinds.inc"

 private:
  absl::Status status_;
};

}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_FUNCTOR_H_
