#include "lower/ir/expr.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "lower/ir/factory_util.h"
#include "lower/ir/type.h"

namespace anvil::tir {
namespace {

using factory_internal::Invalid;
using factory_internal::New;
using factory_internal::Show;

absl::Status CheckDefined(std::initializer_list<const Expr*> operands, absl::string_view what) {
  for (const Expr* e : operands) {
    if (!e->defined()) return Invalid(absl::StrCat(what, ": null operand"));
  }
  return absl::OkStatus();
}

// Operands of arithmetic, comparisons and logic: one type, not a pointer or void.
absl::Status CheckSameType(const Expr& a, const Expr& b, absl::string_view what) {
  if (a.type() != b.type()) {
    return Invalid(absl::StrCat(what, " of ", a.type().ToString(), " and ", b.type().ToString(),
                                ": ", Show(a), ", ", Show(b), " (cast one operand)"));
  }
  return absl::OkStatus();
}

bool IsCompare(ExprKind k) {
  return k == ExprKind::kCmpEq || k == ExprKind::kCmpNe || k == ExprKind::kCmpLt ||
         k == ExprKind::kCmpLe || k == ExprKind::kCmpGt || k == ExprKind::kCmpGe;
}

enum class Rule { kFloatMath, kFloatPred, kNumeric, kReduceLanes, kKernel };

struct IntrinsicInfo {
  const char* name;
  int arity;  // -1: any
  Rule rule;
};

constexpr IntrinsicInfo kIntrinsics[] = {
#define ANVIL_TIR_INTRINSIC(op, spelling, arity, rule) {spelling, arity, Rule::rule},
#include "lower/ir/intrinsics.inc"
};

}  // namespace

std::string_view ExprKindName(ExprKind kind) {
  static constexpr const char* kNames[] = {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) #kind,
#include "lower/ir/node_kinds.inc"
  };
  return kNames[static_cast<int>(kind)];
}

std::string_view IntrinsicName(IntrinsicOp op) { return kIntrinsics[static_cast<int>(op)].name; }

bool IntrinsicFromName(std::string_view name, IntrinsicOp* op) {
  for (size_t i = 0; i < std::size(kIntrinsics); ++i) {
    if (name == kIntrinsics[i].name) {
      *op = static_cast<IntrinsicOp>(i);
      return true;
    }
  }
  return false;
}

bool IsKernelIntrinsic(IntrinsicOp op) {
  return kIntrinsics[static_cast<int>(op)].rule == Rule::kKernel;
}

ExprKind Expr::kind() const { return node_->kind(); }
DataType Expr::type() const { return node_->type(); }

absl::StatusOr<Expr> MakeIntConstant(DataType type, int64_t value) {
  if (type.is_vector() || !(type.is_int() || type.is_bool())) {
    return Invalid(absl::StrCat("an integer constant of type ", type.ToString()));
  }
  return New<ConstantNode>(type, WrapToInt(type.kind(), value), 0.0);
}

absl::StatusOr<Expr> MakeFloatConstant(DataType type, double value) {
  if (type.is_vector() || !type.is_float()) {
    return Invalid(absl::StrCat("a float constant of type ", type.ToString()));
  }
  return New<ConstantNode>(type, 0, RoundToFloat(type.kind(), value));
}

absl::StatusOr<Expr> MakeVar(std::string name, DataType type) {
  if (name.empty()) return Invalid("a variable needs a name");
  if (type.is_void()) return Invalid(absl::StrCat("variable '", name, "' of type void"));
  if (!type.is_pointer() && !type.is_arithmetic()) {
    return Invalid(absl::StrCat("variable '", name, "' of type ", type.ToString()));
  }
  return New<VarNode>(std::move(name), type);
}

absl::StatusOr<Expr> MakeTensor(std::string name, DataType element, std::vector<Expr> dims) {
  if (name.empty()) return Invalid("a tensor needs a name");
  if (!element.is_tensor_element()) {
    return Invalid(absl::StrCat("tensor '", name, "' of elements ", element.ToString()));
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!dims[k].defined() || !dims[k].type().is_index()) {
      return Invalid(
          absl::StrCat("tensor '", name, "' dim ", k, " is not an index: ", Show(dims[k])));
    }
  }
  return New<TensorNode>(std::move(name), element, std::move(dims));
}

absl::StatusOr<Expr> MakeCast(DataType type, Expr value) {
  ANVIL_RETURN_IF_ERROR(CheckDefined({&value}, "cast"));
  const DataType from = value.type();
  if (!type.is_arithmetic() || !from.is_arithmetic()) {
    return Invalid(absl::StrCat("cast from ", from.ToString(), " to ", type.ToString()));
  }
  if (type.lanes() != from.lanes()) {
    return Invalid(absl::StrCat("cast changes lanes: ", from.ToString(), " to ", type.ToString()));
  }
  if (type == from) return value;
  return New<CastNode>(type, std::move(value));
}

absl::StatusOr<Expr> MakeBroadcast(Expr scalar, int lanes) {
  ANVIL_RETURN_IF_ERROR(CheckDefined({&scalar}, "broadcast"));
  if (scalar.type().is_vector() || !scalar.type().is_arithmetic() || lanes < 2 || lanes > 64) {
    return Invalid(
        absl::StrCat("broadcast of ", scalar.type().ToString(), " to ", lanes, " lanes"));
  }
  const DataType type = scalar.type().with_lanes(lanes);
  return New<BroadcastNode>(type, std::move(scalar));
}

absl::StatusOr<Expr> MakeBinary(ExprKind kind, Expr a, Expr b) {
  const absl::string_view name = AsAbsl(ExprKindName(kind));
  ANVIL_RETURN_IF_ERROR(CheckDefined({&a, &b}, name));
  if (BinaryNode::kKinds + std::size(BinaryNode::kKinds) ==
      std::find(std::begin(BinaryNode::kKinds), std::end(BinaryNode::kKinds), kind)) {
    return Invalid(absl::StrCat(name, " is not a binary operator"));
  }
  ANVIL_RETURN_IF_ERROR(CheckSameType(a, b, name));
  const DataType t = a.type();
  if (!t.is_arithmetic()) return Invalid(absl::StrCat(name, " of ", t.ToString()));
  if (kind == ExprKind::kAnd || kind == ExprKind::kOr) {
    if (t.kind() != ScalarKind::kBool) return Invalid(absl::StrCat(name, " of ", t.ToString()));
    return New<BinaryNode>(kind, t, std::move(a), std::move(b));
  }
  if (IsCompare(kind)) {
    return New<BinaryNode>(kind, DataType::Bool(t.lanes()), std::move(a), std::move(b));
  }
  if (t.kind() == ScalarKind::kBool) {
    return Invalid(absl::StrCat(name, " of bool (use && and ||)"));
  }
  if ((kind == ExprKind::kFloorDiv || kind == ExprKind::kMod) && !t.is_int()) {
    return Invalid(absl::StrCat(name, " of ", t.ToString(), " (integers only)"));
  }
  return New<BinaryNode>(kind, t, std::move(a), std::move(b));
}

absl::StatusOr<Expr> MakeUnary(ExprKind kind, Expr a) {
  ANVIL_RETURN_IF_ERROR(CheckDefined({&a}, AsAbsl(ExprKindName(kind))));
  const DataType t = a.type();
  if (kind == ExprKind::kNot) {
    if (t.kind() != ScalarKind::kBool || t.is_pointer()) {
      return Invalid(absl::StrCat("! of ", t.ToString()));
    }
  } else if (kind == ExprKind::kNeg) {
    if (!t.is_float() && !t.is_int()) return Invalid(absl::StrCat("negation of ", t.ToString()));
  } else {
    return Invalid(absl::StrCat(AsAbsl(ExprKindName(kind)), " is not a unary operator"));
  }
  return New<UnaryNode>(kind, t, std::move(a));
}

absl::StatusOr<Expr> MakeSelect(Expr cond, Expr if_true, Expr if_false) {
  ANVIL_RETURN_IF_ERROR(CheckDefined({&cond, &if_true, &if_false}, "select"));
  ANVIL_RETURN_IF_ERROR(CheckSameType(if_true, if_false, "select"));
  const DataType c = cond.type();
  if (c.kind() != ScalarKind::kBool || c.is_pointer() ||
      (c.lanes() != 1 && c.lanes() != if_true.type().lanes())) {
    return Invalid(absl::StrCat("select condition of type ", c.ToString(), " for values of ",
                                if_true.type().ToString()));
  }
  if (!if_true.type().is_arithmetic()) {
    return Invalid(absl::StrCat("select of ", if_true.type().ToString()));
  }
  const DataType t = if_true.type();
  return New<SelectNode>(t, std::move(cond), std::move(if_true), std::move(if_false));
}

namespace {

absl::Status CheckSubscripts(const Expr& tensor, const std::vector<Expr>& indices,
                             absl::string_view what) {
  const TensorNode* t = tensor.as<TensorNode>();
  if (t == nullptr) return Invalid(absl::StrCat(what, " of a non-tensor: ", Show(tensor)));
  if (indices.size() != t->dims.size()) {
    return Invalid(absl::StrCat(what, " of ", t->name, " (rank ", t->dims.size(), ") with ",
                                indices.size(), " subscripts"));
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!indices[k].defined() || !indices[k].type().is_index()) {
      return Invalid(absl::StrCat(what, " of ", t->name, ": subscript ", k,
                                  " is not an index: ", Show(indices[k])));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Expr> MakeIndexing(Expr tensor, std::vector<Expr> indices, int lanes) {
  ANVIL_RETURN_IF_ERROR(CheckSubscripts(tensor, indices, "indexing"));
  const DataType element = tensor.type();
  if (!element.is_arithmetic()) {
    return Invalid(absl::StrCat("indexing of ", tensor.as<TensorNode>()->name, " whose elements (",
                                element.ToString(), ") expressions cannot hold"));
  }
  if (lanes < 1 || lanes > 64 || (lanes > 1 && indices.empty())) {
    return Invalid(
        absl::StrCat("indexing of ", lanes, " lanes of a rank-", indices.size(), " tensor"));
  }
  return New<IndexingNode>(element.with_lanes(lanes), std::move(tensor), std::move(indices));
}

absl::StatusOr<Expr> MakeTensorPtr(Expr tensor, std::vector<Expr> indices) {
  ANVIL_RETURN_IF_ERROR(CheckSubscripts(tensor, indices, "tensor pointer"));
  const DataType type = tensor.type().pointer_to();
  return New<TensorPtrNode>(type, std::move(tensor), std::move(indices));
}

absl::StatusOr<Expr> MakeCall(std::string callee, DataType type, std::vector<Expr> args) {
  if (callee.empty()) return Invalid("a call needs a callee");
  for (const Expr& a : args) {
    if (!a.defined()) return Invalid(absl::StrCat("call of ", callee, ": null argument"));
  }
  return New<CallNode>(type, std::move(callee), std::move(args));
}

absl::StatusOr<Expr> MakeIntrinsic(IntrinsicOp op, std::vector<Expr> args) {
  const IntrinsicInfo& info = kIntrinsics[static_cast<int>(op)];
  if (info.arity >= 0 && static_cast<int>(args.size()) != info.arity) {
    return Invalid(absl::StrCat(info.name, " takes ", info.arity, " operands, got ", args.size()));
  }
  for (const Expr& a : args) {
    if (!a.defined()) return Invalid(absl::StrCat(info.name, ": null operand"));
  }
  auto bad = [&](absl::string_view why) {
    std::string types;
    for (const Expr& a : args)
      absl::StrAppend(&types, types.empty() ? "" : ", ", a.type().ToString());
    return Invalid(absl::StrCat(info.name, "(", types, "): ", why));
  };
  DataType type = DataType::Void();
  switch (info.rule) {
    case Rule::kFloatMath:
    case Rule::kNumeric:
      for (const Expr& a : args) {
        if (a.type() != args[0].type()) return bad("operands differ in type");
      }
      if (info.rule == Rule::kFloatMath ? !args[0].type().is_float()
                                        : !(args[0].type().is_float() || args[0].type().is_int())) {
        return bad(info.rule == Rule::kFloatMath ? "needs floats" : "needs numbers");
      }
      type = args[0].type();
      break;
    case Rule::kFloatPred:
      if (!args[0].type().is_float()) return bad("needs a float");
      type = DataType::Bool(args[0].type().lanes());
      break;
    case Rule::kReduceLanes:
      if (!args[0].type().is_vector() || !(args[0].type().is_float() || args[0].type().is_int())) {
        return bad("needs a numeric vector");
      }
      type = args[0].type().element();
      break;
    case Rule::kKernel:
      if (op == IntrinsicOp::kKernel) {
        int64_t id;
        if (args.empty() || !AsIntConstant(args[0], &id) || !args[0].type().is_index()) {
          return bad("the first operand is the kernel's index in the module's table");
        }
        for (size_t k = 1; k < args.size(); ++k) {
          if (args[k].as<TensorNode>() == nullptr) return bad("operands after the id are tensors");
        }
      } else {  // gemm
        const DataType e = args[6].type();
        if (!args[0].type().is_bool() || !args[1].type().is_bool())
          return bad("transposes are bools");
        for (int k : {2, 3, 4, 7, 9, 12}) {
          if (!args[k].type().is_index()) return bad("sizes and strides are indexes");
        }
        if (!e.is_pointer() || (e.kind() != ScalarKind::kF32 && e.kind() != ScalarKind::kF64)) {
          return bad("A is an f32* or f64*");
        }
        if (args[8].type() != e || args[11].type() != e) return bad("A, B, C differ in type");
        if (args[5].type() != e.element() || args[10].type() != e.element()) {
          return bad("alpha and beta have the element type");
        }
      }
      break;
  }
  return New<IntrinsicNode>(type, op, std::move(args));
}

Expr IndexConst(int64_t value) { return New<ConstantNode>(DataType::Index(), value, 0.0); }
Expr BoolConst(bool value) { return New<ConstantNode>(DataType::Bool(), value ? 1 : 0, 0.0); }

bool AsIntConstant(const Expr& e, int64_t* value) {
  const ConstantNode* c = e.as<ConstantNode>();
  if (c == nullptr || c->type().is_float()) return false;
  *value = c->int_value;
  return true;
}

bool IsIntConstant(const Expr& e, int64_t value) {
  int64_t v;
  return AsIntConstant(e, &v) && v == value;
}

}  // namespace anvil::tir
