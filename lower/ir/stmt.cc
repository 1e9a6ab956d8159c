#include "lower/ir/stmt.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lower/ir/factory_util.h"

namespace anvil::tir {
namespace {

using factory_internal::Invalid;
using factory_internal::New;
using factory_internal::Show;

absl::Status CheckIndex(const Expr& e, absl::string_view what) {
  if (!e.defined() || !e.type().is_index()) {
    return Invalid(absl::StrCat(what, " is not an index: ", Show(e)));
  }
  return absl::OkStatus();
}

// Bodies of loops and branches are blocks: the text form cannot tell a block of one statement
// from the statement, so the IR does not either.
Stmt AsBlock(Stmt s) {
  if (!s.defined() || s.as<BlockNode>() != nullptr) return s;
  return MakeBlock({std::move(s)});
}

}  // namespace

std::string_view StmtKindName(StmtKind kind) {
  static constexpr const char* kNames[] = {
#define ANVIL_TIR_STMT(kind, node_class) #kind,
#include "lower/ir/node_kinds.inc"
  };
  return kNames[static_cast<int>(kind)];
}

StmtKind Stmt::kind() const { return node_->kind(); }

absl::StatusOr<Stmt> MakeAssign(Expr var, Expr value) {
  if (var.as<VarNode>() == nullptr) return Invalid(absl::StrCat("assignment to ", Show(var)));
  if (!value.defined() || value.type() != var.type()) {
    return Invalid(absl::StrCat("assignment of ",
                                value.defined() ? value.type().ToString() : "null", " to ",
                                var.as<VarNode>()->name, ": ", var.type().ToString()));
  }
  return New<AssignNode>(std::move(var), std::move(value));
}

absl::StatusOr<Stmt> MakeStore(Expr tensor, std::vector<Expr> indices, Expr value) {
  const TensorNode* t = tensor.as<TensorNode>();
  if (t == nullptr) return Invalid(absl::StrCat("store into ", Show(tensor)));
  if (indices.size() != t->dims.size()) {
    return Invalid(absl::StrCat("store into ", t->name, " (rank ", t->dims.size(), ") with ",
                                indices.size(), " subscripts"));
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    ANVIL_RETURN_IF_ERROR(CheckIndex(indices[k], absl::StrCat("subscript ", k, " of ", t->name)));
  }
  if (!value.defined() || value.type().element() != t->type() ||
      (value.type().is_vector() && indices.empty())) {
    return Invalid(absl::StrCat("store of ", value.defined() ? value.type().ToString() : "null",
                                " into ", t->name, " of ", t->type().ToString()));
  }
  return New<StoreNode>(std::move(tensor), std::move(indices), std::move(value));
}

Stmt MakeBlock(std::vector<Stmt> stmts) { return New<BlockNode>(std::move(stmts)); }

absl::StatusOr<Stmt> MakeIfElse(Expr cond, Stmt then_body, Stmt else_body) {
  if (!cond.defined() || cond.type() != DataType::Bool()) {
    return Invalid(absl::StrCat("if condition ", Show(cond), " is not a scalar bool"));
  }
  if (!then_body.defined()) return Invalid("if without a body");
  return New<IfElseNode>(std::move(cond), AsBlock(std::move(then_body)),
                         AsBlock(std::move(else_body)));
}

absl::StatusOr<Stmt> MakeFor(Expr var, Expr begin, Expr end, Expr step, Stmt body, ForAttrs attrs) {
  if (var.as<VarNode>() == nullptr || !var.type().is_index()) {
    return Invalid(absl::StrCat("loop variable ", Show(var), " is not an index variable"));
  }
  for (auto [e, what] :
       {std::pair{&begin, "loop begin"}, {&end, "loop end"}, {&step, "loop step"}}) {
    ANVIL_RETURN_IF_ERROR(CheckIndex(*e, what));
  }
  int64_t c;
  if (AsIntConstant(step, &c) && c <= 0) return Invalid(absl::StrCat("loop step ", c, " <= 0"));
  if (!body.defined()) return Invalid("loop without a body");
  if (attrs.vectorize < 0 || attrs.vectorize > 64 || attrs.unroll < 0) {
    return Invalid("bad loop attributes");
  }
  return New<ForNode>(std::move(var), std::move(begin), std::move(end), std::move(step),
                      AsBlock(std::move(body)), attrs);
}

absl::StatusOr<Stmt> MakeEvaluate(Expr value) {
  if (!value.defined()) return Invalid("evaluate of null");
  return New<EvaluateNode>(std::move(value));
}

absl::StatusOr<Stmt> MakeReturn(Expr value) { return New<ReturnNode>(std::move(value)); }

absl::StatusOr<Stmt> MakeDefine(Expr target, Expr init, TensorAttrs attrs) {
  if (const VarNode* v = target.as<VarNode>()) {
    if (init.defined() && init.type() != v->type()) {
      return Invalid(absl::StrCat("define of ", v->name, ": ", v->type().ToString(),
                                  " initialized with ", init.type().ToString()));
    }
    if (attrs.view_of.defined() || attrs.offset.defined() || attrs.dynamic) {
      return Invalid(absl::StrCat("define of variable ", v->name, " with tensor attributes"));
    }
    return New<DefineNode>(std::move(target), std::move(init), std::move(attrs));
  }
  const TensorNode* t = target.as<TensorNode>();
  if (t == nullptr) return Invalid(absl::StrCat("define of ", Show(target)));
  if (init.defined()) return Invalid(absl::StrCat("tensor ", t->name, " with an initial value"));
  if (attrs.view_of.defined()) {
    const TensorNode* base = attrs.view_of.as<TensorNode>();
    if (base == nullptr || base->type() != t->type()) {
      return Invalid(absl::StrCat("tensor ", t->name, " is a view of ", Show(attrs.view_of),
                                  " of another element type"));
    }
    if (attrs.offset.defined() || attrs.dynamic) {
      return Invalid(absl::StrCat("view ", t->name, " with its own storage attributes"));
    }
  }
  if (attrs.offset.defined()) {
    ANVIL_RETURN_IF_ERROR(CheckIndex(attrs.offset, absl::StrCat("offset of ", t->name)));
    if (attrs.dynamic) return Invalid(absl::StrCat("dynamic tensor ", t->name, " with an offset"));
  }
  if (attrs.dynamic) {
    for (const Expr& d : t->dims) {
      if (d.as<VarNode>() == nullptr && d.as<ConstantNode>() == nullptr) {
        return Invalid(absl::StrCat("dynamic tensor ", t->name, " has dim ", Show(d),
                                    " (dims of a dynamic tensor are variables or constants)"));
      }
    }
  }
  return New<DefineNode>(std::move(target), std::move(init), std::move(attrs));
}

Stmt MakeComment(std::string text) {
  constexpr size_t kMaxBytes = 300;
  if (text.size() > kMaxBytes) text = text.substr(0, kMaxBytes - 3) + "...";
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  while (!text.empty() && text.back() == '\\') text.back() = '/';
  return Stmt(std::make_shared<CommentNode>(std::move(text)));
}

absl::StatusOr<Stmt> MakeAssert(Expr cond, std::string message) {
  if (!cond.defined() || cond.type() != DataType::Bool()) {
    return Invalid(absl::StrCat("assert condition ", Show(cond), " is not a scalar bool"));
  }
  return New<AssertNode>(std::move(cond), std::move(message));
}

}  // namespace anvil::tir
