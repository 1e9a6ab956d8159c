// Tensor accesses of a statement: which tensors it loads, stores, hands to intrinsics or views,
// with the subscripts and the loops around each access. What fusion, buffer planning and loop
// marking decide legality from.
//
// Kinds of access:
//  - kLoad / kStore: t[i, ...] read or written element-wise (the subscripts are known);
//  - kOpaque: everything else — an address (&t[...]) handed to an intrinsic, a tensor operand of
//    a kernel call, a tensor named by a Define's view_of. Its extent is not known: passes treat
//    an opaque access as reading and writing all of the tensor.
// Tensors are identified by their node (TensorNode*); views are not resolved here (Aliases()).
#ifndef ANVIL_LOWER_PASSES_ACCESS_H_
#define ANVIL_LOWER_PASSES_ACCESS_H_

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"

namespace anvil::lower {

struct Access {
  enum class Kind { kLoad, kStore, kOpaque };
  Kind kind = Kind::kLoad;
  const tir::ExprNode* tensor = nullptr;
  std::vector<tir::Expr> indices;  // kLoad / kStore
  int lanes = 1;
  std::vector<const tir::ExprNode*> loops;  // variables of the enclosing loops, outermost first
};

struct AccessSummary {
  std::vector<Access> accesses;
  // Variables assigned, and variables defined, in the statement.
  absl::flat_hash_set<const tir::ExprNode*> assigned, defined;
  // Tensors defined in the statement (a tensor Define anywhere inside), and the views among
  // them with the tensor each shares bytes with.
  absl::flat_hash_set<const tir::ExprNode*> defined_tensors;
  std::vector<std::pair<const tir::ExprNode*, const tir::ExprNode*>> views;
  // Whether it evaluates an intrinsic with effects (gemm, kernel) or calls a function.
  bool has_effects = false;
  bool has_assert = false;

  // Tensors the statement stores to or touches opaquely.
  bool Writes(const tir::ExprNode* t) const;
  bool Touches(const tir::ExprNode* t) const;
};

AccessSummary SummarizeAccesses(const tir::Stmt& s);
AccessSummary SummarizeAccesses(const tir::Expr& e);

// Whether a statement holds a loop anywhere inside.
bool ContainsLoop(const tir::Stmt& s);

// The statements of a block (a non-block as a list of one).
std::vector<tir::Stmt> Statements(const tir::Stmt& s);
// The single statement of a block of one (recursively), the statement itself when it is not a
// block, or null for a block of several.
tir::Stmt SingleStatement(const tir::Stmt& s);

// Whether two index expressions are the same after simplification (two spellings of one bound).
bool SameIndex(const tir::Expr& a, const tir::Expr& b);

// Whether loop-moving passes may step over the statement: a Define without an initial value (it
// only names what comes next), an Assert on dims alone (lowering's broadcast checks; it reads no
// tensor) or a Comment (a moved loop keeps the comments of the nodes it came from).
bool MovableOver(const tir::Stmt& s);

// The variables an expression reads.
void FreeVars(const tir::Expr& e, absl::flat_hash_set<const tir::ExprNode*>* out);
bool Mentions(const tir::Expr& e, const tir::ExprNode* var);
// Whether any expression of the statement reads the variable.
bool MentionsVar(const tir::Stmt& s, const tir::ExprNode* var);

// Number of expression nodes of `e` (a cost estimate), and whether it calls a transcendental or
// other expensive float function, or a function of the module.
struct ExprCost {
  int nodes = 0;
  int loads = 0;
  bool expensive = false;
};
ExprCost CostOf(const tir::Expr& e);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_PASSES_ACCESS_H_
