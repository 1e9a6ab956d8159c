#include "lower/emit/scalar_emitter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "lower/ir/printer.h"

namespace anvil::lower {

using tir::DataType;
using tir::Expr;
using tir::ExprKind;
using tir::IntrinsicOp;
using tir::ScalarKind;
using tir::Stmt;

absl::StatusOr<std::string> ValueType(DataType t) {
  switch (t.kind()) {
    case ScalarKind::kBool:
      return std::string("bool");
    case ScalarKind::kS8:
      return std::string("int8_t");
    case ScalarKind::kS16:
      return std::string("int16_t");
    case ScalarKind::kS32:
      return std::string("int32_t");
    case ScalarKind::kS64:
    case ScalarKind::kIndex:
      return std::string("int64_t");
    case ScalarKind::kU8:
      return std::string("uint8_t");
    case ScalarKind::kU16:
      return std::string("uint16_t");
    case ScalarKind::kU32:
      return std::string("uint32_t");
    case ScalarKind::kU64:
      return std::string("uint64_t");
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
    case ScalarKind::kF32:
      return std::string("float");
    case ScalarKind::kF64:
      return std::string("double");
    default:
      return absl::UnimplementedError(absl::StrCat("emit_cc: no C++ type for ", t.ToString()));
  }
}

// The C++ type elements of `t` are stored as.
absl::StatusOr<std::string> StorageType(DataType t) {
  if (t.is_bool()) return std::string("uint8_t");
  if (IsHalf(t) || IsBf16(t)) return std::string("uint16_t");
  return ValueType(t);
}

int64_t StorageSize(DataType t) {
  switch (t.kind()) {
    case ScalarKind::kBool:
    case ScalarKind::kS8:
    case ScalarKind::kU8:
      return 1;
    case ScalarKind::kS16:
    case ScalarKind::kU16:
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
      return 2;
    case ScalarKind::kS32:
    case ScalarKind::kU32:
    case ScalarKind::kF32:
      return 4;
    case ScalarKind::kS64:
    case ScalarKind::kU64:
    case ScalarKind::kF64:
    case ScalarKind::kIndex:
      return 8;
    default:
      return 0;
  }
}

namespace {

std::string FloatLiteral(double v, bool f64) {
  if (std::isnan(v)) {
    return f64 ? "std::numeric_limits<double>::quiet_NaN()"
               : "std::numeric_limits<float>::quiet_NaN()";
  }
  if (std::isinf(v)) {
    return absl::StrCat(v < 0 ? "-" : "", f64 ? "std::numeric_limits<double>::infinity()"
                                              : "std::numeric_limits<float>::infinity()");
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return f64 ? absl::StrCat("(", buf, ")") : absl::StrCat("((float)", buf, ")");
}

std::string CString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

}  // namespace

// ---- Names and text ----

std::string ScalarEmitter::Name(const Expr& e) {
  auto it = names_.find(e.get());
  if (it != names_.end()) {
    if (in_group_) referenced_.insert(it->second);
    return it->second;
  }
  std::string base;
  const std::string& raw =
      e.as<tir::VarNode>() ? e.as<tir::VarNode>()->name : e.as<tir::TensorNode>()->name;
  // Identifier characters, no "__" (the suffixes of a tensor's locals use it), no leading digit.
  for (char c : raw) {
    const char x = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (x == '_' && !base.empty() && base.back() == '_') continue;
    base.push_back(x);
  }
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  std::string name = base;
  for (int n = 1; !used_.insert(name).second; ++n) name = absl::StrCat(base, "_", n);
  names_[e.get()] = name;
  if (in_group_) referenced_.insert(name);
  return name;
}

std::string ScalarEmitter::Dim(const Expr& t, size_t k) { return absl::StrCat(Name(t), "__d", k); }

std::string ScalarEmitter::Data(const Expr& t) { return absl::StrCat(Name(t), "__p"); }

void ScalarEmitter::Line(const std::string& text) {
  out_.append(static_cast<size_t>(indent_) * 2, ' ');
  out_ += text;
  out_.push_back('\n');
}

void ScalarEmitter::DeclareTensor(const Expr& t, const std::string& data) {
  const auto* node = t.as<tir::TensorNode>();
  Line(absl::StrCat("uint8_t* ", Data(t), " = ", data, ";"));
  for (size_t k = 0; k < node->dims.size(); ++k) {
    Line(absl::StrCat("int64_t ", Dim(t, k), " = ", E(node->dims[k]), ";"));
  }
  Line(absl::StrCat("(void)", Data(t), ";"));
}

std::string ScalarEmitter::Offset(const Expr& t, const std::vector<Expr>& indices) {
  if (indices.empty()) return "0";
  std::string off = absl::StrCat("(", E(indices[0]), ")");
  for (size_t k = 1; k < indices.size(); ++k) {
    off = absl::StrCat("(", off, " * ", Dim(t, k), " + (", E(indices[k]), "))");
  }
  return off;
}

std::string ScalarEmitter::Round(DataType t, std::string v) {
  if (IsHalf(t)) return absl::StrCat("anvil_rnd_f16(", v, ")");
  if (IsBf16(t)) return absl::StrCat("anvil_rnd_bf16(", v, ")");
  return v;
}

// ---- Expressions ----

std::string ScalarEmitter::E(const Expr& e) {
  if (!e.defined()) return "0";
  if (e.type().lanes() > 1) {
    Fail(absl::UnimplementedError(
        absl::StrCat("emit_cc: vector expressions are not emitted yet: ", tir::PrintExpr(e))));
    return "0";
  }
  Visit(e);
  return std::move(id_);
}

std::string ScalarEmitter::Print(const tir::ConstantNode& c, const Expr& e) {
  const DataType t = e.type();
  if (t.is_float()) return FloatLiteral(c.float_value, t.kind() == ScalarKind::kF64);
  if (t.is_bool()) return c.int_value != 0 ? "true" : "false";
  absl::StatusOr<std::string> type = ValueType(t);
  if (!type.ok()) {
    Fail(type.status());
    return "0";
  }
  if (c.int_value == std::numeric_limits<int64_t>::min()) {
    return absl::StrCat("(", *type, ")std::numeric_limits<int64_t>::min()");
  }
  if (t.kind() == ScalarKind::kU64) {
    return absl::StrCat("(uint64_t)", static_cast<uint64_t>(c.int_value), "ull");
  }
  return absl::StrCat("(", *type, ")", c.int_value, "ll");
}

std::string ScalarEmitter::Print(const tir::VarNode&, const Expr& e) { return Name(e); }

std::string ScalarEmitter::Print(const tir::TensorNode&, const Expr& e) { return Data(e); }

std::string ScalarEmitter::Print(const tir::CastNode& c, const Expr& e) {
  return Cast(e.type(), c.value);
}

std::string ScalarEmitter::Print(const tir::BroadcastNode&, const Expr& e) {
  Fail(absl::UnimplementedError(absl::StrCat("emit_cc: not emitted yet: ", tir::PrintExpr(e))));
  return "0";
}

std::string ScalarEmitter::Print(const tir::CallNode&, const Expr& e) {
  Fail(absl::UnimplementedError(absl::StrCat("emit_cc: not emitted yet: ", tir::PrintExpr(e))));
  return "0";
}

std::string ScalarEmitter::Print(const tir::SelectNode& s, const Expr&) {
  return absl::StrCat("(", E(s.cond), " ? ", E(s.if_true), " : ", E(s.if_false), ")");
}

std::string ScalarEmitter::Print(const tir::UnaryNode& u, const Expr& e) {
  if (u.kind() == ExprKind::kNot) return absl::StrCat("(!", E(u.a), ")");
  if (e.type().is_float()) return absl::StrCat("(-", E(u.a), ")");
  return absl::StrCat("anvil_neg(", E(u.a), ")");
}

std::string ScalarEmitter::Print(const tir::IndexingNode& n, const Expr&) {
  const DataType elem = n.tensor.type();
  absl::StatusOr<std::string> storage = StorageType(elem);
  if (!storage.ok()) {
    Fail(storage.status());
    return "0";
  }
  const std::string at = absl::StrCat("((const ", *storage, "*)", Data(n.tensor), ")[",
                                      Offset(n.tensor, n.indices), "]");
  if (elem.is_bool()) return absl::StrCat("(", at, " != 0)");
  if (IsHalf(elem)) return absl::StrCat("anvil_h2f(", at, ")");
  if (IsBf16(elem)) return absl::StrCat("anvil_bf2f(", at, ")");
  return at;
}

std::string ScalarEmitter::Print(const tir::TensorPtrNode& n, const Expr&) {
  return absl::StrCat("(void*)(", Data(n.tensor), " + ", StorageSize(n.tensor.type()), " * ",
                      Offset(n.tensor, n.indices), ")");
}

std::string ScalarEmitter::Print(const tir::BinaryNode& n, const Expr&) {
  const DataType t = n.a.type();
  const std::string a = E(n.a), b = E(n.b);
  auto infix = [&](const char* op) { return absl::StrCat("(", a, " ", op, " ", b, ")"); };
  switch (n.kind()) {
    case ExprKind::kCmpEq:
      return infix("==");
    case ExprKind::kCmpNe:
      return infix("!=");
    case ExprKind::kCmpLt:
      return infix("<");
    case ExprKind::kCmpLe:
      return infix("<=");
    case ExprKind::kCmpGt:
      return infix(">");
    case ExprKind::kCmpGe:
      return infix(">=");
    case ExprKind::kAnd:
      return infix("&&");
    case ExprKind::kOr:
      return infix("||");
    default:
      break;
  }
  if (t.is_float()) {
    switch (n.kind()) {
      case ExprKind::kAdd:
        return Round(t, infix("+"));
      case ExprKind::kSub:
        return Round(t, infix("-"));
      case ExprKind::kMul:
        return Round(t, infix("*"));
      case ExprKind::kDiv:
        return Round(t, infix("/"));
      case ExprKind::kMin:
        return absl::StrCat("anvil_fmin(", a, ", ", b, ")");
      case ExprKind::kMax:
        return absl::StrCat("anvil_fmax(", a, ", ", b, ")");
      default:
        break;
    }
  } else {
    absl::StatusOr<std::string> type = ValueType(t);
    if (!type.ok()) {
      Fail(type.status());
      return "0";
    }
    const bool is_unsigned = t.is_unsigned_int() || t.kind() == ScalarKind::kU64;
    auto div = [&](int op) {
      return absl::StrCat("((", *type, ")anvil_idiv(host, &err, (int64_t)(", a, "), (int64_t)(", b,
                          "), ", op, ", ", is_unsigned ? "true" : "false", "))");
    };
    // In size expressions, wrapping sets the overflow flag in scope.
    const std::string chk = size_arithmetic_ ? "_chk" : "";
    const std::string flag = size_arithmetic_ ? ", &anvil_overflow" : "";
    switch (n.kind()) {
      case ExprKind::kAdd:
        return absl::StrCat("anvil_add", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kSub:
        return absl::StrCat("anvil_sub", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kMul:
        return absl::StrCat("anvil_mul", chk, "<", *type, ">(", a, ", ", b, flag, ")");
      case ExprKind::kDiv:
        return div(0);
      case ExprKind::kFloorDiv:
        return div(1);
      case ExprKind::kMod:
        return div(2);
      case ExprKind::kMin:
        return absl::StrCat("anvil_min<", *type, ">(", a, ", ", b, ")");
      case ExprKind::kMax:
        return absl::StrCat("anvil_max<", *type, ">(", a, ", ", b, ")");
      default:
        break;
    }
  }
  Fail(absl::InternalError(
      absl::StrCat("emit_cc: no ", AsAbsl(tir::ExprKindName(n.kind())), " on ", t.ToString())));
  return "0";
}

std::string ScalarEmitter::Cast(DataType to, const Expr& value) {
  const DataType from = value.type();
  const std::string v = E(value);
  if (to.is_bool()) return absl::StrCat("((", v, ") != 0)");
  if (to.is_float()) {
    const bool f64 = to.kind() == ScalarKind::kF64;
    const char* type = f64 ? "double" : "float";
    if (from.is_float()) return Round(to, absl::StrCat("(", type, ")(", v, ")"));
    if (from.kind() == ScalarKind::kU64) {
      return Round(to, absl::StrCat("(", type, ")(double)(uint64_t)(", v, ")"));
    }
    return Round(to, absl::StrCat("(", type, ")(int64_t)(", v, ")"));
  }
  absl::StatusOr<std::string> type = ValueType(to);
  if (!type.ok()) {
    Fail(type.status());
    return "0";
  }
  if (!from.is_float()) return absl::StrCat("((", *type, ")(", v, "))");
  const std::string d = absl::StrCat("(double)(", v, ")");
  switch (to.kind()) {
    case ScalarKind::kS8:
      return absl::StrCat("((int8_t)anvil_f2i(", d, ", -128.0, 127.0))");
    case ScalarKind::kS16:
      return absl::StrCat("((int16_t)anvil_f2i(", d, ", -32768.0, 32767.0))");
    case ScalarKind::kS32:
      return absl::StrCat("((int32_t)anvil_f2i(", d, ", -2147483648.0, 2147483647.0))");
    case ScalarKind::kU8:
      return absl::StrCat("((uint8_t)anvil_f2i(", d, ", 0.0, 255.0))");
    case ScalarKind::kU16:
      return absl::StrCat("((uint16_t)anvil_f2i(", d, ", 0.0, 65535.0))");
    case ScalarKind::kU32:
      return absl::StrCat("((uint32_t)anvil_f2i(", d, ", 0.0, 4294967295.0))");
    case ScalarKind::kU64:
      return absl::StrCat("anvil_f2u64(", d, ")");
    default:
      return absl::StrCat("((", *type, ")anvil_f2s64(", d, "))");
  }
}

namespace {

// Intrinsics that are the libm function of their spelling (intrinsics.inc's kFloatMath rule,
// and fmod on floats): the float overload for f32, f16 and bf16, the double one for f64, as the
// evaluator calls them.
constexpr bool kLibmCall[] = {
#define ANVIL_TIR_INTRINSIC(op, spelling, arity, rule) \
  std::string_view(#rule) == "kFloatMath" || std::string_view(#op) == "Fmod",
#include "lower/ir/intrinsics.inc"
};

// The libm function of intrinsic `op`: its spelling, but round is nearbyint (to nearest even,
// as ONNX rounds; std::round rounds halves away from zero).
std::string_view LibmName(IntrinsicOp op) {
  return op == IntrinsicOp::kRound ? "nearbyint" : tir::IntrinsicName(op);
}

}  // namespace

std::string ScalarEmitter::Print(const tir::IntrinsicNode& n, const Expr&) {
  const DataType t = n.type();
  const DataType arg = n.args.empty() ? t : n.args[0].type();
  std::vector<std::string> a;
  for (const Expr& x : n.args) a.push_back(E(x));
  switch (n.op) {
    case IntrinsicOp::kAbs:
      if (arg.is_float()) return absl::StrCat("std::fabs(", a[0], ")");
      if (arg.is_unsigned_int() || arg.kind() == ScalarKind::kU64) return a[0];
      return absl::StrCat("anvil_iabs(", a[0], ")");
    case IntrinsicOp::kIsInf:
    case IntrinsicOp::kIsNaN:
      return absl::StrCat("std::", AsAbsl(tir::IntrinsicName(n.op)), "(", a[0], ")");
    case IntrinsicOp::kFmod: {
      if (arg.is_float()) break;
      absl::StatusOr<std::string> type = ValueType(t);
      if (!type.ok()) {
        Fail(type.status());
        return "0";
      }
      const bool is_unsigned = t.is_unsigned_int() || t.kind() == ScalarKind::kU64;
      return absl::StrCat("((", *type, ")anvil_idiv(host, &err, (int64_t)(", a[0], "), (int64_t)(",
                          a[1], "), 3, ", is_unsigned ? "true" : "false", "))");
    }
    default:
      break;
  }
  if (kLibmCall[static_cast<int>(n.op)]) {
    // f32 and f16/bf16 call the float overloads, f64 the double ones, as the evaluator does.
    const char* cast = arg.kind() == ScalarKind::kF64 ? "(double)" : "(float)";
    std::string call = absl::StrCat("std::", AsAbsl(LibmName(n.op)), "(");
    for (size_t k = 0; k < a.size(); ++k) {
      absl::StrAppend(&call, k ? ", " : "", cast, "(", a[k], ")");
    }
    return Round(t, call + ")");
  }
  Fail(absl::UnimplementedError(absl::StrCat(
      "emit_cc: intrinsic ", AsAbsl(tir::IntrinsicName(n.op)), " outside an evaluate statement")));
  return "0";
}

// ---- Statements ----

void ScalarEmitter::S(const Stmt& s) {
  if (!s.defined() || !status_.ok()) return;
  Visit(s);
}

void ScalarEmitter::Emit(const tir::BlockNode& n, const Stmt&) {
  for (const Stmt& x : n.stmts) S(x);
}

void ScalarEmitter::Emit(const tir::AssignNode& n, const Stmt&) {
  Line(absl::StrCat(Name(n.var), " = ", E(n.value), ";"));
}

void ScalarEmitter::Emit(const tir::StoreNode& n, const Stmt&) {
  const DataType elem = n.tensor.type();
  absl::StatusOr<std::string> storage = StorageType(elem);
  if (!storage.ok()) return Fail(storage.status());
  // A float16 or bfloat16 element moved unchanged keeps its bits (a NaN its payload).
  if (const auto* load = n.value.as<tir::IndexingNode>();
      load != nullptr && (IsHalf(elem) || IsBf16(elem)) && load->tensor.type() == elem) {
    Line(absl::StrCat("((", *storage, "*)", Data(n.tensor), ")[", Offset(n.tensor, n.indices),
                      "] = ((const ", *storage, "*)", Data(load->tensor), ")[",
                      Offset(load->tensor, load->indices), "];"));
    return;
  }
  std::string v = E(n.value);
  if (elem.is_bool()) v = absl::StrCat("(uint8_t)(", v, ")");
  if (IsHalf(elem)) v = absl::StrCat("anvil_f2h(", v, ")");
  if (IsBf16(elem)) v = absl::StrCat("anvil_f2bf(", v, ")");
  Line(absl::StrCat("((", *storage, "*)", Data(n.tensor), ")[", Offset(n.tensor, n.indices),
                    "] = ", v, ";"));
}

void ScalarEmitter::Emit(const tir::IfElseNode& n, const Stmt&) {
  Line(absl::StrCat("if (", E(n.cond), ") {"));
  ++indent_;
  S(n.then_body);
  --indent_;
  if (n.else_body.defined()) {
    Line("} else {");
    ++indent_;
    S(n.else_body);
    --indent_;
  }
  Line("}");
}

void ScalarEmitter::Emit(const tir::ForNode& n, const Stmt& s) {
  const std::string v = Name(n.var);
  std::string marks;
  if (n.attrs.parallel) marks += " parallel";
  if (n.attrs.vectorize) absl::StrAppend(&marks, " vectorize(", n.attrs.vectorize, ")");
  Line(absl::StrCat("{  // for ", v, marks));
  ++indent_;
  const bool parallel = n.attrs.parallel && options_.parallel;
  // A parallel loop's trips become a lambda over a range of them, handed to the host: inside
  // it, v__end is the chunk's end and the loop starts at the chunk's first trip.
  const std::string end = parallel ? absl::StrCat(v, "__all_end") : absl::StrCat(v, "__end");
  Line(absl::StrCat("const int64_t ", end, " = ", E(n.end), ", ", v, "__step = ", E(n.step), ";"));
  Line(absl::StrCat("if (", v,
                    "__step <= 0) { host->fail(host->ctx, \"a loop step is not "
                    "positive\"); return 1; }"));
  std::string begin = E(n.begin);
  if (parallel) {
    Line(absl::StrCat("const int64_t ", v, "__begin = ", begin, ";"));
    Line(absl::StrCat("const int64_t ", v, "__trips = ", end, " > ", v, "__begin ? (", end, " - ",
                      v, "__begin + ", v, "__step - 1) / ", v, "__step : 0;"));
    Line(absl::StrCat("auto ", v, "__chunk = [&](int64_t ", v, "__lo, int64_t ", v,
                      "__hi) -> int32_t {"));
    ++indent_;
    Line(absl::StrCat("const int64_t ", v, "__end = ", v, "__hi == ", v, "__trips ? ", end, " : ",
                      v, "__begin + ", v, "__hi * ", v, "__step;"));
    begin = absl::StrCat(v, "__begin + ", v, "__lo * ", v, "__step");
  }
  if (!EmitVectorLoop(n, s, v, begin)) {
    if (n.attrs.vectorize) Line("#pragma GCC ivdep");
    Line(absl::StrCat("for (int64_t ", v, " = ", begin, "; ", v, " < ", v, "__end; ", v, " += ", v,
                      "__step) {"));
  }
  ++indent_;
  loops_.push_back(&n);
  S(n.body);
  loops_.pop_back();
  --indent_;
  Line("}");
  if (parallel) {
    Line("return 0;");
    --indent_;
    Line("};");
    Line(absl::StrCat("if (anvil_parallel(host, ", v, "__trips, ", WorkPerTrip(n), ", ", v,
                      "__chunk) != 0) return 1;"));
  }
  --indent_;
  Line("}");
}

void ScalarEmitter::Emit(const tir::ReturnNode&, const Stmt&) {
  // From a group function, 2 ends the entry (with success) without the later groups.
  Line(in_group_ ? "return 2;" : "return 0;");
}

void ScalarEmitter::Emit(const tir::AssertNode& n, const Stmt&) {
  Line(absl::StrCat("if (!(", E(n.cond), ")) { host->fail(host->ctx, ", CString(n.message),
                    "); return 1; }"));
}

void ScalarEmitter::Emit(const tir::CommentNode& n, const Stmt&) {
  // MakeComment keeps the text to one line that cannot continue onto the next.
  Line(absl::StrCat("// ", n.text));
}

void ScalarEmitter::Emit(const tir::DefineNode& n, const Stmt&) {
  if (n.target.as<tir::VarNode>()) {
    absl::StatusOr<std::string> type = ValueType(n.target.type());
    if (!type.ok()) return Fail(type.status());
    Line(absl::StrCat(*type, " ", Name(n.target), " = ",
                      n.init.defined() ? E(n.init) : std::string("{}"), ";"));
    return;
  }
  const Expr& t = n.target;
  const auto* node = t.as<tir::TensorNode>();
  if (n.tensor.dynamic) {
    dynamic_.insert(t.get());
    Line(absl::StrCat("uint8_t* ", Data(t), " = nullptr;"));
    for (size_t k = 0; k < node->dims.size(); ++k) {
      Line(absl::StrCat("int64_t ", Dim(t, k), " = 0;"));
    }
    return;
  }
  if (n.tensor.view_of.defined()) return DeclareTensor(t, Data(n.tensor.view_of));
  // String elements are std::string objects, which only the host's Tensors construct: a
  // planned (workspace or local) string buffer cannot be emitted.
  if (t.type().kind() == ScalarKind::kString) {
    return Fail(absl::UnimplementedError(
        absl::StrCat("emit_cc: string tensor '", Name(t),
                     "' needs a buffer of its own; strings are not "
                     "compiled to native code (run the model with the interpreter)")));
  }
  if (n.tensor.offset.defined()) {
    if (in_group_) referenced_.insert("workspace");
    return DeclareTensor(t, absl::StrCat("workspace + (", E(n.tensor.offset), ")"));
  }
  // A local buffer: on the stack when small and of constant size, else from the host.
  int64_t bytes = StorageSize(t.type());
  bool constant = true;
  for (const Expr& d : node->dims) {
    int64_t c = 0;
    constant &= tir::AsIntConstant(d, &c) && c >= 0 && c < (int64_t{1} << 20);
    if (constant) bytes *= c;
  }
  if (constant && bytes <= 65536) {
    Line(absl::StrCat("alignas(64) uint8_t ", Name(t), "__s[", std::max<int64_t>(bytes, 1), "];"));
    return DeclareTensor(t, absl::StrCat(Name(t), "__s"));
  }
  std::string dims;
  for (size_t k = 0; k < node->dims.size(); ++k) {
    absl::StrAppend(&dims, k ? ", " : "", E(node->dims[k]));
  }
  Line(absl::StrCat("const int64_t ", Name(t), "__shape[] = {", dims.empty() ? "0" : dims, "};"));
  DeclareTensor(t, absl::StrCat("anvil_alloc(host, ", StorageSize(t.type()), ", ",
                                node->dims.size(), ", ", Name(t), "__shape)"));
  Line(absl::StrCat("if (", Data(t), " == nullptr) return 1;"));
}

void ScalarEmitter::Emit(const tir::EvaluateNode& n, const Stmt&) {
  const auto* call = n.value.as<tir::IntrinsicNode>();
  if (call == nullptr || !tir::IsKernelIntrinsic(call->op)) {
    Line(absl::StrCat("(void)(", E(n.value), ");"));
    return;
  }
  if (call->op == IntrinsicOp::kGemm) {
    const auto& a = call->args;
    const bool f64 = a[6].type().element().kind() == ScalarKind::kF64 ||
                     (a[6].as<tir::TensorPtrNode>() &&
                      a[6].as<tir::TensorPtrNode>()->tensor.type().kind() == ScalarKind::kF64);
    Line(absl::StrCat("if (host->gemm(host->ctx, ", f64 ? 1 : 0, ", ", E(a[0]), ", ", E(a[1]), ", ",
                      E(a[2]), ", ", E(a[3]), ", ", E(a[4]), ", (double)(", E(a[5]), "), ", E(a[6]),
                      ", ", E(a[7]), ", ", E(a[8]), ", ", E(a[9]), ", (double)(", E(a[10]), "), ",
                      E(a[11]), ", ", E(a[12]), ")) return 1;"));
    return;
  }
  // kernel(id, operands...): each operand as a buffer; outputs without data come back filled.
  int64_t id = 0;
  tir::AsIntConstant(call->args[0], &id);
  const std::string ops = absl::StrCat("k", next_temp_++);
  Line("{");
  ++indent_;
  std::vector<std::string> names;
  for (size_t k = 1; k < call->args.size(); ++k) {
    const Expr& t = call->args[k];
    const auto* node = t.as<tir::TensorNode>();
    if (node == nullptr) {
      Fail(absl::InternalError("emit_cc: a kernel operand that is not a tensor"));
      return;
    }
    const std::string b = absl::StrCat(ops, "_", k);
    std::string dims;
    for (size_t d = 0; d < node->dims.size(); ++d) {
      absl::StrAppend(&dims, d ? ", " : "", dynamic_.contains(t.get()) ? "0" : Dim(t, d));
    }
    Line(absl::StrCat("AnvilBuffer ", b, " = {", dynamic_.contains(t.get()) ? "nullptr" : Data(t),
                      ", {", dims, "}, ", node->dims.size(), "};"));
    names.push_back(absl::StrCat("&", b));
  }
  std::string list;
  for (size_t k = 0; k < names.size(); ++k) absl::StrAppend(&list, k ? ", " : "", names[k]);
  Line(absl::StrCat("AnvilBuffer* const ", ops, "[] = {", list, "};"));
  Line(absl::StrCat("if (host->kernel(host->ctx, ", id, ", ", ops, ", ", names.size(),
                    ")) return 1;"));
  // Dynamic outputs: their data, dims and the dim variables the call binds.
  for (size_t k = 1; k < call->args.size(); ++k) {
    const Expr& t = call->args[k];
    if (!dynamic_.contains(t.get())) continue;
    const std::string b = absl::StrCat(ops, "_", k);
    Line(absl::StrCat(Data(t), " = ", b, ".data;"));
    const auto* node = t.as<tir::TensorNode>();
    for (size_t d = 0; d < node->dims.size(); ++d) {
      Line(absl::StrCat(Dim(t, d), " = ", b, ".dims[", d, "];"));
      if (node->dims[d].as<tir::VarNode>()) {
        Line(absl::StrCat(Name(node->dims[d]), " = ", b, ".dims[", d, "];"));
      }
    }
    dynamic_.erase(t.get());
  }
  --indent_;
  Line("}");
}

// The work of one trip: every statement counts 1, times the trip counts of the loops around it
// inside the parallel loop; a gemm call M * N * K / 16 (a multiply-add costs a fraction of an
// element-wise statement). A loop bound or gemm size that reads a variable bound inside the
// parallel loop cannot be counted before it starts; it counts as 64 (a guess that errs toward
// splitting).
std::string ScalarEmitter::WorkPerTrip(const tir::ForNode& n) {
  absl::flat_hash_set<const tir::ExprNode*> inner = {n.var.get()};
  return Work(n.body, inner);
}

std::string ScalarEmitter::Work(const Stmt& s, absl::flat_hash_set<const tir::ExprNode*>& inner) {
  switch (s.kind()) {
    case tir::StmtKind::kBlock: {
      std::string sum = "0";
      for (const Stmt& x : s.as<tir::BlockNode>()->stmts) {
        absl::StrAppend(&sum, " + ", Work(x, inner));
      }
      return absl::StrCat("(", sum, ")");
    }
    case tir::StmtKind::kFor: {
      const auto* f = s.as<tir::ForNode>();
      MentionsAny bound(inner);
      for (const Expr* e : {&f->begin, &f->end, &f->step}) bound.Visit(*e);
      const std::string trips = bound.found ? "64"
                                            : absl::StrCat("anvil_trips(", E(f->begin), ", ",
                                                           E(f->end), ", ", E(f->step), ")");
      inner.insert(f->var.get());
      return absl::StrCat(trips, " * ", Work(f->body, inner));
    }
    case tir::StmtKind::kIfElse: {
      const auto* n = s.as<tir::IfElseNode>();
      return absl::StrCat("(", Work(n->then_body, inner), " + ",
                          n->else_body.defined() ? Work(n->else_body, inner) : "0", ")");
    }
    case tir::StmtKind::kDefine:
      inner.insert(s.as<tir::DefineNode>()->target.get());
      return "1";
    case tir::StmtKind::kComment:
      return "0";
    case tir::StmtKind::kEvaluate: {
      const auto* call = s.as<tir::EvaluateNode>()->value.as<tir::IntrinsicNode>();
      if (call == nullptr || call->op != tir::IntrinsicOp::kGemm) return "1";
      std::string work = "1";
      for (int k : {2, 3, 4}) {  // M, N, K
        MentionsAny bound(inner);
        bound.Visit(call->args[k]);
        absl::StrAppend(&work, " * ",
                        bound.found ? "64" : absl::StrCat("(", E(call->args[k]), ")"));
      }
      return absl::StrCat("(", work, " / 16 + 1)");
    }
    default:
      return "1";
  }
}

}  // namespace anvil::lower
