// VerifyModule (declared in module.h): what factories cannot see one node at a time. Apart from
// module.cc because it walks the module with the visitor (functor.h) and prints offending
// statements (printer.h), which both include module.h.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lower/ir/functor.h"
#include "lower/ir/module.h"
#include "lower/ir/printer.h"

namespace anvil::tir {

namespace {

// Walks one function with a stack of scopes of defined variables and tensors.
class Verifier final : public IRVisitor {
 public:
  Verifier(const Module& module, const Function& function) : module_(module), function_(function) {}

  absl::Status Run() {
    scopes_.emplace_back();
    for (const Global& g : module_.globals) Declare(g.tensor);
    if (function_.name == module_.entry && module_.workspace.offsets.defined()) {
      Declare(module_.workspace.offsets);
    }
    for (const Expr& p : function_.params) {
      if (p.as<VarNode>() == nullptr && p.as<TensorNode>() == nullptr) {
        return Error(
            absl::StrCat("parameter ", p.ToString(), " is neither a variable nor a tensor"));
      }
      if (const TensorNode* t = p.as<TensorNode>()) {
        for (const Expr& d : t->dims) Visit(d);
      }
      Declare(p);
    }
    if (!status_.ok()) return status_;
    Visit(function_.body);
    if (status_.ok() && !function_.ret.is_void() && !returns_value_) {
      return Error("returns " + function_.ret.ToString() + " but no return gives a value");
    }
    return status_;
  }

 private:
  absl::Status Error(absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor IR function ", function_.name, ": ", what));
  }
  void Fail(absl::string_view what, const std::string& where) {
    if (status_.ok()) status_ = Error(absl::StrCat(what, " in `", where, "`"));
  }

  void Declare(const Expr& e) { scopes_.back().insert(e.get()); }
  bool Declared(const Expr& e) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->contains(e.get())) return true;
    }
    return false;
  }

  void VisitVar(const VarNode& n, const Expr& e) override {
    if (!Declared(e)) Fail(absl::StrCat("variable ", n.name, " used outside its scope"), n.name);
  }
  void VisitTensor(const TensorNode& n, const Expr& e) override {
    if (!Declared(e)) Fail(absl::StrCat("tensor ", n.name, " used outside its scope"), n.name);
  }
  void VisitCall(const CallNode& n, const Expr& e) override {
    IRVisitor::VisitCall(n, e);
    const Function* f = module_.FindFunction(n.callee);
    if (f == nullptr)
      return Fail(absl::StrCat("call of unknown function ", n.callee), e.ToString());
    if (f->ret != n.type() || f->params.size() != n.args.size()) {
      return Fail(absl::StrCat("call does not match ", n.callee, "'s signature"), e.ToString());
    }
    for (size_t k = 0; k < n.args.size(); ++k) {
      const Expr& p = f->params[k];
      const bool ok = p.as<TensorNode>()
                          ? n.args[k].as<TensorNode>() != nullptr && n.args[k].type() == p.type()
                          : n.args[k].type() == p.type();
      if (!ok)
        return Fail(absl::StrCat("argument ", k, " of ", n.callee, " has the wrong type"),
                    e.ToString());
    }
  }
  void VisitIntrinsic(const IntrinsicNode& n, const Expr& e) override {
    IRVisitor::VisitIntrinsic(n, e);
    if (IsKernelIntrinsic(n.op) && !in_evaluate_) {
      Fail("a kernel intrinsic outside an evaluate statement", e.ToString());
    }
    if (n.op == IntrinsicOp::kKernel) {
      int64_t id;
      AsIntConstant(n.args[0], &id);
      if (id < 0 || id >= static_cast<int64_t>(module_.kernels.size())) {
        return Fail(absl::StrCat("kernel ", id, " is not in the module's table"), e.ToString());
      }
      const KernelBinding& b = module_.kernels[id];
      if (b.slots.size() + b.captures.size() + 1 != n.args.size()) {
        return Fail(absl::StrCat("kernel ", id, " (", b.op_type, ") binds ",
                                 b.slots.size() + b.captures.size(), " operands"),
                    e.ToString());
      }
    }
  }
  void VisitEvaluate(const EvaluateNode& n, const Stmt& s) override {
    in_evaluate_ = true;
    IRVisitor::VisitEvaluate(n, s);
    in_evaluate_ = false;
  }
  void VisitBlock(const BlockNode& n, const Stmt& s) override {
    scopes_.emplace_back();
    IRVisitor::VisitBlock(n, s);
    scopes_.pop_back();
  }
  void VisitFor(const ForNode& n, const Stmt& s) override {
    Visit(n.begin);
    Visit(n.end);
    Visit(n.step);
    scopes_.emplace_back();
    Declare(n.var);
    loop_vars_.insert(n.var.get());
    Visit(n.body);
    loop_vars_.erase(n.var.get());
    scopes_.pop_back();
  }
  void VisitIfElse(const IfElseNode& n, const Stmt& s) override {
    Visit(n.cond);
    for (const Stmt* body : {&n.then_body, &n.else_body}) {
      scopes_.emplace_back();
      Visit(*body);
      scopes_.pop_back();
    }
  }
  void VisitAssign(const AssignNode& n, const Stmt& s) override {
    IRVisitor::VisitAssign(n, s);
    if (loop_vars_.contains(n.var.get())) Fail("assignment to a loop variable", s.ToString());
  }
  void VisitDefine(const DefineNode& n, const Stmt& s) override {
    Visit(n.init);
    Visit(n.tensor.offset);
    if (const TensorNode* t = n.target.as<TensorNode>()) {
      for (const Expr& d : t->dims) Visit(d);
      if (n.tensor.view_of.defined()) Visit(n.tensor.view_of);
    }
    if (Declared(n.target)) Fail("defined twice", s.ToString());
    Declare(n.target);
  }
  void VisitReturn(const ReturnNode& n, const Stmt& s) override {
    IRVisitor::VisitReturn(n, s);
    if (n.value.defined()) {
      if (n.value.type() != function_.ret) Fail("returns a value of the wrong type", s.ToString());
      returns_value_ = true;
    } else if (!function_.ret.is_void()) {
      Fail("returns no value", s.ToString());
    }
  }

  const Module& module_;
  const Function& function_;
  std::vector<absl::flat_hash_set<const ExprNode*>> scopes_;
  absl::flat_hash_set<const ExprNode*> loop_vars_;
  bool in_evaluate_ = false;
  bool returns_value_ = false;
  absl::Status status_;
};

}  // namespace

absl::Status VerifyModule(const Module& module) {
  absl::flat_hash_set<std::string> names;
  for (const Function& f : module.functions) {
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("tensor IR: two functions named ", f.name));
    }
    ANVIL_RETURN_IF_ERROR(Verifier(module, f).Run());
  }
  if (!module.functions.empty() && module.FindFunction(module.entry) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor IR: the entry function ", module.entry, " does not exist"));
  }
  for (const Global& g : module.globals) {
    if (g.tensor.as<TensorNode>() == nullptr) {
      return absl::InvalidArgumentError("tensor IR: a global that is not a tensor");
    }
  }
  return absl::OkStatus();
}

}  // namespace anvil::tir
