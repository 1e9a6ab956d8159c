#include "lower/ir/equal.h"

#include <cmath>
#include <cstring>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lower/ir/printer.h"

namespace anvil::tir {
namespace {

class Comparer {
 public:
  // Leaves must be the same node, not merely correspond.
  bool identity_leaves = false;
  std::string difference;

  bool Fail(const std::string& what) {
    if (difference.empty()) difference = what;
    return false;
  }

  // Binds or checks the correspondence of two leaves (variables or tensors).
  bool Leaf(const Expr& a, const Expr& b) {
    if (identity_leaves) {
      return a.same(b) ? true : Fail(absl::StrCat(a.ToString(), " is not ", b.ToString()));
    }
    auto ia = a_to_b_.find(a.get());
    auto ib = b_to_a_.find(b.get());
    if (ia != a_to_b_.end() || ib != b_to_a_.end()) {
      if (ia != a_to_b_.end() && ib != b_to_a_.end() && ia->second == b.get()) return true;
      return Fail(absl::StrCat(a.ToString(), " does not correspond to ", b.ToString()));
    }
    a_to_b_[a.get()] = b.get();
    b_to_a_[b.get()] = a.get();
    if (const TensorNode* ta = a.as<TensorNode>()) {
      const TensorNode* tb = b.as<TensorNode>();
      if (ta->dims.size() != tb->dims.size()) return Fail("tensor ranks differ: " + ta->name);
      for (size_t k = 0; k < ta->dims.size(); ++k) {
        if (!E(ta->dims[k], tb->dims[k])) return false;
      }
    }
    return true;
  }

  bool All(const std::vector<Expr>& a, const std::vector<Expr>& b) {
    if (a.size() != b.size()) return Fail("operand counts differ");
    for (size_t k = 0; k < a.size(); ++k) {
      if (!E(a[k], b[k])) return false;
    }
    return true;
  }

  bool E(const Expr& a, const Expr& b) {
    if (a.defined() != b.defined()) return Fail("an expression is missing on one side");
    if (!a.defined() || a.same(b)) {
      // The same node: still bind its leaves so later uses correspond.
      if (a.defined() && (a.as<VarNode>() || a.as<TensorNode>())) return Leaf(a, b);
      if (a.defined()) return ESame(a, b);
      return true;
    }
    auto mismatch = [&] { return Fail(absl::StrCat(a.ToString(), " vs ", b.ToString())); };
    if (a.kind() != b.kind() || a.type() != b.type()) return mismatch();
    switch (a.kind()) {
      case ExprKind::kConstant: {
        const ConstantNode* x = a.as<ConstantNode>();
        const ConstantNode* y = b.as<ConstantNode>();
        if (x->type().is_float()) {
          // Bitwise, so NaN equals NaN and 0.0 differs from -0.0.
          if (std::memcmp(&x->float_value, &y->float_value, sizeof(double)) != 0 &&
              !(std::isnan(x->float_value) && std::isnan(y->float_value))) {
            return mismatch();
          }
          return true;
        }
        return x->int_value == y->int_value ? true : mismatch();
      }
      case ExprKind::kVar:
      case ExprKind::kTensor:
        return Leaf(a, b);
      case ExprKind::kCast:
        return E(a.as<CastNode>()->value, b.as<CastNode>()->value);
      case ExprKind::kBroadcast:
        return E(a.as<BroadcastNode>()->value, b.as<BroadcastNode>()->value);
      case ExprKind::kNeg:
      case ExprKind::kNot:
        return E(a.as<UnaryNode>()->a, b.as<UnaryNode>()->a);
      case ExprKind::kSelect: {
        const SelectNode* x = a.as<SelectNode>();
        const SelectNode* y = b.as<SelectNode>();
        return E(x->cond, y->cond) && E(x->if_true, y->if_true) && E(x->if_false, y->if_false);
      }
      case ExprKind::kIndexing: {
        const IndexingNode* x = a.as<IndexingNode>();
        const IndexingNode* y = b.as<IndexingNode>();
        return E(x->tensor, y->tensor) && All(x->indices, y->indices);
      }
      case ExprKind::kTensorPtr: {
        const TensorPtrNode* x = a.as<TensorPtrNode>();
        const TensorPtrNode* y = b.as<TensorPtrNode>();
        return E(x->tensor, y->tensor) && All(x->indices, y->indices);
      }
      case ExprKind::kCall: {
        const CallNode* x = a.as<CallNode>();
        const CallNode* y = b.as<CallNode>();
        if (x->callee != y->callee) return mismatch();
        return All(x->args, y->args);
      }
      case ExprKind::kIntrinsic: {
        const IntrinsicNode* x = a.as<IntrinsicNode>();
        const IntrinsicNode* y = b.as<IntrinsicNode>();
        if (x->op != y->op) return mismatch();
        return All(x->args, y->args);
      }
      default: {
        const BinaryNode* x = a.as<BinaryNode>();
        const BinaryNode* y = b.as<BinaryNode>();
        return E(x->a, y->a) && E(x->b, y->b);
      }
    }
  }

  // A node compared with itself: only its leaves need binding (to themselves).
  bool ESame(const Expr& a, const Expr&) { return EWalk(a); }
  bool EWalk(const Expr& a) {
    switch (a.kind()) {
      case ExprKind::kConstant:
        return true;
      case ExprKind::kVar:
      case ExprKind::kTensor:
        return Leaf(a, a);
      case ExprKind::kCast:
        return EWalk(a.as<CastNode>()->value);
      case ExprKind::kBroadcast:
        return EWalk(a.as<BroadcastNode>()->value);
      case ExprKind::kNeg:
      case ExprKind::kNot:
        return EWalk(a.as<UnaryNode>()->a);
      case ExprKind::kSelect: {
        const SelectNode* x = a.as<SelectNode>();
        return EWalk(x->cond) && EWalk(x->if_true) && EWalk(x->if_false);
      }
      case ExprKind::kIndexing: {
        const IndexingNode* x = a.as<IndexingNode>();
        if (!EWalk(x->tensor)) return false;
        for (const Expr& i : x->indices) {
          if (!EWalk(i)) return false;
        }
        return true;
      }
      case ExprKind::kTensorPtr: {
        const TensorPtrNode* x = a.as<TensorPtrNode>();
        if (!EWalk(x->tensor)) return false;
        for (const Expr& i : x->indices) {
          if (!EWalk(i)) return false;
        }
        return true;
      }
      case ExprKind::kCall:
        for (const Expr& i : a.as<CallNode>()->args) {
          if (!EWalk(i)) return false;
        }
        return true;
      case ExprKind::kIntrinsic:
        for (const Expr& i : a.as<IntrinsicNode>()->args) {
          if (!EWalk(i)) return false;
        }
        return true;
      default: {
        const BinaryNode* x = a.as<BinaryNode>();
        return EWalk(x->a) && EWalk(x->b);
      }
    }
  }

  bool S(const Stmt& a, const Stmt& b) {
    if (a.defined() != b.defined()) return Fail("a statement is missing on one side");
    if (!a.defined()) return true;
    auto mismatch = [&] {
      return Fail(absl::StrCat("`", a.ToString(), "` vs `", b.ToString(), "`"));
    };
    if (a.kind() != b.kind()) return mismatch();
    switch (a.kind()) {
      case StmtKind::kAssign: {
        const AssignNode* x = a.as<AssignNode>();
        const AssignNode* y = b.as<AssignNode>();
        return E(x->var, y->var) && E(x->value, y->value);
      }
      case StmtKind::kStore: {
        const StoreNode* x = a.as<StoreNode>();
        const StoreNode* y = b.as<StoreNode>();
        return E(x->tensor, y->tensor) && All(x->indices, y->indices) && E(x->value, y->value);
      }
      case StmtKind::kBlock: {
        const BlockNode* x = a.as<BlockNode>();
        const BlockNode* y = b.as<BlockNode>();
        if (x->stmts.size() != y->stmts.size()) {
          return Fail(
              absl::StrCat("blocks of ", x->stmts.size(), " and ", y->stmts.size(), " statements"));
        }
        for (size_t k = 0; k < x->stmts.size(); ++k) {
          if (!S(x->stmts[k], y->stmts[k])) return false;
        }
        return true;
      }
      case StmtKind::kIfElse: {
        const IfElseNode* x = a.as<IfElseNode>();
        const IfElseNode* y = b.as<IfElseNode>();
        return E(x->cond, y->cond) && S(x->then_body, y->then_body) &&
               S(x->else_body, y->else_body);
      }
      case StmtKind::kFor: {
        const ForNode* x = a.as<ForNode>();
        const ForNode* y = b.as<ForNode>();
        if (!(x->attrs == y->attrs)) return mismatch();
        return E(x->begin, y->begin) && E(x->end, y->end) && E(x->step, y->step) &&
               E(x->var, y->var) && S(x->body, y->body);
      }
      case StmtKind::kEvaluate:
        return E(a.as<EvaluateNode>()->value, b.as<EvaluateNode>()->value);
      case StmtKind::kReturn:
        return E(a.as<ReturnNode>()->value, b.as<ReturnNode>()->value);
      case StmtKind::kDefine: {
        const DefineNode* x = a.as<DefineNode>();
        const DefineNode* y = b.as<DefineNode>();
        if (x->tensor.dynamic != y->tensor.dynamic) return mismatch();
        if (x->tensor.max_bytes != y->tensor.max_bytes) return mismatch();
        if (x->target.kind() != y->target.kind() || x->target.type() != y->target.type()) {
          return mismatch();
        }
        return E(x->init, y->init) && E(x->tensor.offset, y->tensor.offset) &&
               E(x->tensor.view_of, y->tensor.view_of) && E(x->target, y->target);
      }
      case StmtKind::kAssert: {
        const AssertNode* x = a.as<AssertNode>();
        const AssertNode* y = b.as<AssertNode>();
        if (x->message != y->message) return mismatch();
        return E(x->cond, y->cond);
      }
      case StmtKind::kComment:
        return a.as<CommentNode>()->text == b.as<CommentNode>()->text ? true : mismatch();
    }
    return mismatch();
  }

  bool F(const Function& a, const Function& b) {
    if (a.name != b.name || a.ret != b.ret || a.attrs != b.attrs) {
      return Fail(absl::StrCat("function headers differ: ", a.name, " vs ", b.name));
    }
    if (a.params.size() != b.params.size()) return Fail("parameter counts differ in " + a.name);
    for (size_t k = 0; k < a.params.size(); ++k) {
      if (a.params[k].kind() != b.params[k].kind() || a.params[k].type() != b.params[k].type()) {
        return Fail(absl::StrCat("parameter ", k, " of ", a.name, " differs"));
      }
      if (!E(a.params[k], b.params[k])) return false;
    }
    if (!S(a.body, b.body)) {
      difference = absl::StrCat("function ", a.name, ": ", difference);
      return false;
    }
    return true;
  }

  bool M(const Module& a, const Module& b) {
    if (a.entry != b.entry) return Fail("entry functions differ");
    if (a.kernels.size() != b.kernels.size()) return Fail("kernel tables differ in size");
    for (size_t k = 0; k < a.kernels.size(); ++k) {
      const KernelBinding& x = a.kernels[k];
      const KernelBinding& y = b.kernels[k];
      if (x.op_type != y.op_type || x.domain != y.domain || x.opset != y.opset ||
          x.node_name != y.node_name || x.category != y.category || x.slots != y.slots ||
          x.captures != y.captures) {
        return Fail(absl::StrCat("kernel ", k, " differs"));
      }
    }
    if (a.globals.size() != b.globals.size()) return Fail("global counts differ");
    for (size_t k = 0; k < a.globals.size(); ++k) {
      if (a.globals[k].source != b.globals[k].source ||
          a.globals[k].tensor.type() != b.globals[k].tensor.type() ||
          !E(a.globals[k].tensor, b.globals[k].tensor)) {
        return Fail(absl::StrCat("global ", k, " differs"));
      }
    }
    if (a.functions.size() != b.functions.size()) return Fail("function counts differ");
    for (size_t k = 0; k < a.functions.size(); ++k) {
      if (!F(a.functions[k], b.functions[k])) return false;
    }
    const EntryBinding& x = a.binding;
    const EntryBinding& y = b.binding;
    if (x.inputs.size() != y.inputs.size() || x.outputs.size() != y.outputs.size() ||
        x.dims.size() != y.dims.size()) {
      return Fail("entry bindings differ in size");
    }
    for (size_t k = 0; k < x.dims.size(); ++k) {
      if (x.dims[k].input != y.dims[k].input || x.dims[k].axis != y.dims[k].axis ||
          !E(x.dims[k].var, y.dims[k].var)) {
        return Fail(absl::StrCat("entry dim ", k, " differs"));
      }
    }
    for (auto [xs, ys] : {std::pair{&x.inputs, &y.inputs}, {&x.outputs, &y.outputs}}) {
      for (size_t k = 0; k < xs->size(); ++k) {
        if ((*xs)[k].name != (*ys)[k].name || (*xs)[k].dynamic != (*ys)[k].dynamic ||
            !E((*xs)[k].tensor, (*ys)[k].tensor)) {
          return Fail(absl::StrCat("entry tensor ", (*xs)[k].name, " differs"));
        }
      }
    }
    const Workspace& u = a.workspace;
    const Workspace& v = b.workspace;
    if (u.bytes.defined() != v.bytes.defined() || u.offsets.defined() != v.offsets.defined() ||
        u.buffers.size() != v.buffers.size() || (u.bytes.defined() && !E(u.bytes, v.bytes)) ||
        (u.offsets.defined() && !E(u.offsets, v.offsets))) {
      return Fail("workspaces differ");
    }
    for (size_t k = 0; k < u.buffers.size(); ++k) {
      if (u.buffers[k].first != v.buffers[k].first || u.buffers[k].last != v.buffers[k].last ||
          !E(u.buffers[k].tensor, v.buffers[k].tensor) ||
          !E(u.buffers[k].bytes, v.buffers[k].bytes)) {
        return Fail(absl::StrCat("workspace buffer ", k, " differs"));
      }
    }
    return true;
  }

 private:
  absl::flat_hash_map<const ExprNode*, const ExprNode*> a_to_b_;
  absl::flat_hash_map<const ExprNode*, const ExprNode*> b_to_a_;
};

}  // namespace

bool StructurallyEqual(const Expr& a, const Expr& b) { return Comparer().E(a, b); }

bool IdenticalExpr(const Expr& a, const Expr& b) {
  if (a.same(b)) return true;
  Comparer c;
  c.identity_leaves = true;
  return c.E(a, b);
}
bool StructurallyEqual(const Stmt& a, const Stmt& b) { return Comparer().S(a, b); }
bool StructurallyEqual(const Function& a, const Function& b) { return Comparer().F(a, b); }
bool StructurallyEqual(const Module& a, const Module& b) { return Comparer().M(a, b); }

std::string FirstDifference(const Module& a, const Module& b) {
  Comparer c;
  if (c.M(a, b)) return "";
  return c.difference.empty() ? "modules differ" : c.difference;
}

}  // namespace anvil::tir
