#include "lower/emit/vector_emitter.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "lower/ir/simplify.h"
#include "lower/passes/access.h"

namespace anvil::lower {

using tir::DataType;
using tir::Expr;
using tir::ExprKind;
using tir::IntrinsicOp;
using tir::ScalarKind;
using tir::Stmt;

namespace {

// ---- Spellings, from the kinds lists ----

// Highway's op of an expression kind is the kind's name (node_kinds.inc), a comparison's without
// its "Cmp": Add is hn::Add, CmpLt hn::Lt, Not hn::Not.
constexpr std::string_view WithoutCmp(std::string_view kind) {
  return kind.substr(0, 3) == "Cmp" ? kind.substr(3) : kind;
}
constexpr std::string_view kHighwayExprOps[] = {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) WithoutCmp(#kind),
#include "lower/ir/node_kinds.inc"
};
std::string HighwayOp(ExprKind kind) {
  return absl::StrCat("hn::", AsAbsl(kHighwayExprOps[static_cast<int>(kind)]));
}

// An intrinsic's name (intrinsics.inc): Highway's op of that name (hn::Floor), or the kernels'
// vector op (vector_math.inc: ExpOp).
constexpr std::string_view kIntrinsicNames[] = {
#define ANVIL_TIR_INTRINSIC(op, spelling, arity, rule) #op,
#include "lower/ir/intrinsics.inc"
};
std::string HighwayOp(IntrinsicOp op) {
  return absl::StrCat("hn::", AsAbsl(kIntrinsicNames[static_cast<int>(op)]));
}
std::string MathOp(IntrinsicOp op) {
  return absl::StrCat(AsAbsl(kIntrinsicNames[static_cast<int>(op)]), "Op");
}

// Intrinsics computed by the kernels' own vector ops (the interpreter's results), and those that
// are Highway ops; fma is Highway's MulAdd. Sorted.
constexpr IntrinsicOp kKernelMathOps[] = {IntrinsicOp::kAbs,  IntrinsicOp::kErf,
                                          IntrinsicOp::kExp,  IntrinsicOp::kLog,
                                          IntrinsicOp::kSqrt, IntrinsicOp::kTanh};
constexpr IntrinsicOp kHighwayIntrinsics[] = {IntrinsicOp::kCeil, IntrinsicOp::kFloor,
                                              IntrinsicOp::kIsNaN};

template <size_t N>
bool IsOneOf(IntrinsicOp op, const IntrinsicOp (&list)[N]) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

// Whether an expression calls exp, erf, tanh or log: vector ops whose long dependence chains
// loop fission keeps apart from the arithmetic that feeds them.
class HasTranscendental final : public tir::IRVisitor {
 public:
  bool found = false;

 protected:
  void VisitIntrinsic(const tir::IntrinsicNode& n, const Expr& e) override {
    found |= n.op == IntrinsicOp::kExp || n.op == IntrinsicOp::kErf || n.op == IntrinsicOp::kTanh ||
             n.op == IntrinsicOp::kLog;
    IRVisitor::VisitIntrinsic(n, e);
  }
};

// Tensors a statement stores to, and the f32 loads it makes.
class Accesses final : public tir::IRVisitor {
 public:
  absl::flat_hash_set<const tir::ExprNode*> stored;
  std::vector<const tir::IndexingNode*> loads;

 protected:
  void VisitStore(const tir::StoreNode& n, const Stmt& s) override {
    stored.insert(n.tensor.get());
    IRVisitor::VisitStore(n, s);
  }
  void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
    if (e.type().kind() == ScalarKind::kF32) loads.push_back(&n);
    IRVisitor::VisitIndexing(n, e);
  }
};

}  // namespace

bool VectorEmitter::EmitVectorLoop(const tir::ForNode& n, const Stmt& s, const std::string& v,
                                   const std::string& begin) {
  std::optional<std::string> vector_body;
  std::optional<std::pair<std::string, std::string>> split_body;
  std::optional<std::string> reduction;
  int64_t row_trips = 0;
  const std::string row = absl::StrCat(v, "__row"), start = absl::StrCat(v, "__start");
  if (n.attrs.vectorize && options_.vectorize && tir::IsIntConstant(n.step, 1)) {
    if (const size_t split = FissionPoint(n, &row_trips); split > 0) {
      split_body = SplitVectorBody(n, split, row, start);
    }
    if (!split_body) vector_body = VectorBody(n);
  } else if (options_.vectorize && tir::IsIntConstant(n.step, 1)) {
    reduction = VectorReduction(n);
  }
  const std::vector<std::string> prefetches =
      vector_body || split_body ? NextTripPrefetches(n, s) : std::vector<std::string>();
  // The loop variable declared before the block of whole vectors, which opens with Highway's
  // float tag and its lane count.
  auto open_vector_block = [&] {
    uses_highway_ = true;
    Line(absl::StrCat("int64_t ", v, " = ", begin, ";"));
    Line("{");
    Line("  namespace hn = hwy::HWY_NAMESPACE;");
    Line("  const hn::ScalableTag<float> anvil_d;");
    Line("  const int64_t anvil_lanes = (int64_t)hn::Lanes(anvil_d);");
  };
  if (reduction) {
    // A sum, max or min into an accumulator: vector partial results, one lane reduction,
    // then the scalar tail (the order of the additions changes: within float rounding).
    open_vector_block();
    out_ += *reduction;
    Line("}");
    Line(absl::StrCat("for (; ", v, " < ", v, "__end; ", v, " += ", v, "__step) {"));
    return true;
  }
  if (vector_body || split_body) {
    // Whole vectors of Highway lanes first, then the scalar loop finishes the tail.
    open_vector_block();
    // The hoisted invariants are read only when the loop runs at least one vector.
    Line(absl::StrCat("  if (", v, " + anvil_lanes <= ", v, "__end) {"));
    for (const std::string& h : hoisted_) Line(absl::StrCat("  ", h));
    hoisted_.clear();
    const std::string vector_loop =
        absl::StrCat("  for (; ", v, " + anvil_lanes <= ", v, "__end; ", v, " += anvil_lanes) {");
    if (split_body) {
      // Loop fission: the local for the whole row into a stack row, then the rest. One loop
      // doing both kept the long chain of the exp or erf and the arithmetic before it in
      // flight together, and ran ~12% slower (the LayerNorm + GELU chain at [8, 128, 768]).
      Line(absl::StrCat("  alignas(64) float ", row, "[", row_trips, "];"));
      Line(absl::StrCat("  const int64_t ", start, " = ", v, ";"));
      Line(vector_loop);
      out_ += split_body->first;
      Line("  }");
      Line(absl::StrCat("  ", v, " = ", start, ";"));
    }
    Line(vector_loop);
    for (const std::string& p : prefetches) Line(absl::StrCat("    ", p));
    out_ += split_body ? split_body->second : *vector_body;
    Line("  }");
    Line("  }");
    Line("}");
    Line(absl::StrCat("for (; ", v, " < ", v, "__end; ", v, " += ", v, "__step) {"));
    return true;
  }
  return false;
}

bool VectorEmitter::Invariant(const Expr& e) {
  class Reads final : public tir::IRVisitor {
   public:
    absl::flat_hash_set<const tir::ExprNode*> vars, tensors;

   protected:
    void VisitVar(const tir::VarNode&, const Expr& e) override { vars.insert(e.get()); }
    void VisitIndexing(const tir::IndexingNode& n, const Expr& e) override {
      tensors.insert(n.tensor.get());
      IRVisitor::VisitIndexing(n, e);
    }
  } reads;
  reads.Visit(e);
  if (reads.vars.contains(vector_var_)) return false;
  for (const tir::ExprNode* v : reads.vars) {
    if (vector_locals_.contains(v)) return false;
  }
  for (const tir::ExprNode* t : reads.tensors) {
    if (stored_.contains(t)) return false;
  }
  return true;
}

bool VectorEmitter::UnitStride(const std::vector<Expr>& indices) {
  if (indices.empty() || indices.back().get() != vector_var_) return false;
  for (size_t k = 0; k + 1 < indices.size(); ++k) {
    if (!Invariant(indices[k])) return false;
  }
  return true;
}

std::optional<std::string> VectorEmitter::VE(const Expr& e) {
  const DataType t = e.type();
  if (t.lanes() != 1) return std::nullopt;
  // float16 values are float lanes holding what a half holds (loads widen, stores round).
  if (t.kind() != ScalarKind::kF32 && t.kind() != ScalarKind::kF16 && !t.is_bool()) {
    return std::nullopt;
  }
  if (Invariant(e)) {
    const std::string scalar = E(e);
    std::string vector = t.is_bool() ? absl::StrCat("hn::Ne(hn::Set(anvil_d, (", scalar,
                                                    ") ? 1.0f : 0.0f), hn::Zero(anvil_d))")
                                     : absl::StrCat("hn::Set(anvil_d, ", scalar, ")");
    if (e.kind() == ExprKind::kVar || e.kind() == ExprKind::kConstant) return vector;
    const std::string name = absl::StrCat("anvil_inv", hoisted_.size());
    hoisted_.push_back(absl::StrCat("const auto ", name, " = ", vector, ";"));
    return name;
  }
  switch (e.kind()) {
    case ExprKind::kVar:
      if (vector_locals_.contains(e.get())) return Name(e);
      return std::nullopt;
    case ExprKind::kIndexing: {
      const auto* n = e.as<tir::IndexingNode>();
      if (!UnitStride(n->indices)) return std::nullopt;
      if (t.kind() == ScalarKind::kF16) {
        return absl::StrCat("anvil_vh2f(anvil_d, (const uint16_t*)", Data(n->tensor), " + ",
                            Offset(n->tensor, n->indices), ")");
      }
      if (t.kind() != ScalarKind::kF32) return std::nullopt;
      return absl::StrCat("hn::LoadU(anvil_d, (const float*)", Data(n->tensor), " + ",
                          Offset(n->tensor, n->indices), ")");
    }
    case ExprKind::kCast: {
      // Between float and float16 (a float16 value is exact as a float; a float rounds to it).
      const Expr& value = e.as<tir::CastNode>()->value;
      const ScalarKind from = value.type().kind();
      if (value.type().lanes() != 1 || (from != ScalarKind::kF32 && from != ScalarKind::kF16) ||
          t.is_bool()) {
        return std::nullopt;
      }
      auto v = VE(value);
      if (!v) return std::nullopt;
      if (t.kind() == ScalarKind::kF16 && from == ScalarKind::kF32) {
        return absl::StrCat("anvil_vrnd_f16(anvil_d, ", *v, ")");
      }
      return v;
    }
    case ExprKind::kSelect: {
      const auto* n = e.as<tir::SelectNode>();
      auto c = VE(n->cond), a = VE(n->if_true), b = VE(n->if_false);
      if (!c || !a || !b || t.is_bool()) return std::nullopt;
      return absl::StrCat("hn::IfThenElse(", *c, ", ", *a, ", ", *b, ")");
    }
    case ExprKind::kNeg:
    case ExprKind::kNot: {
      auto a = VE(e.as<tir::UnaryNode>()->a);
      if (!a || (e.kind() == ExprKind::kNeg && t.is_bool())) return std::nullopt;
      return absl::StrCat(HighwayOp(e.kind()), "(", *a, ")");
    }
    case ExprKind::kIntrinsic:
      return VectorIntrinsic(*e.as<tir::IntrinsicNode>());
    default:
      break;
  }
  const auto* b = e.as<tir::BinaryNode>();
  if (b == nullptr) return std::nullopt;
  return VectorBinary(*b);
}

std::optional<std::string> VectorEmitter::VectorIntrinsic(const tir::IntrinsicNode& n) {
  std::vector<std::string> a;
  for (const Expr& x : n.args) {
    if (x.type().kind() != ScalarKind::kF32) return std::nullopt;
    auto v = VE(x);
    if (!v) return std::nullopt;
    a.push_back(*v);
  }
  if (IsOneOf(n.op, kKernelMathOps)) return absl::StrCat(MathOp(n.op), "()(anvil_d, ", a[0], ")");
  if (IsOneOf(n.op, kHighwayIntrinsics)) return absl::StrCat(HighwayOp(n.op), "(", a[0], ")");
  if (n.op == IntrinsicOp::kFma) {
    return absl::StrCat("hn::MulAdd(", a[0], ", ", a[1], ", ", a[2], ")");
  }
  return std::nullopt;
}

std::optional<std::string> VectorEmitter::VectorBinary(const tir::BinaryNode& b) {
  const DataType operand = b.a.type();
  if (operand.kind() == ScalarKind::kF16) {
    // Computed in float and rounded to float16, as the scalar code does (no fused forms: they
    // would round once where it rounds twice).
    auto x = VE(b.a), y = VE(b.b);
    if (!x || !y) return std::nullopt;
    switch (b.kind()) {
      case ExprKind::kAdd:
      case ExprKind::kSub:
      case ExprKind::kMul:
      case ExprKind::kDiv:
        return absl::StrCat("anvil_vrnd_f16(anvil_d, ", HighwayOp(b.kind()), "(", *x, ", ", *y,
                            "))");
      case ExprKind::kMin:
      case ExprKind::kMax:
        return absl::StrCat(b.kind() == ExprKind::kMin ? "anvil_vmin" : "anvil_vmax", "(anvil_d, ",
                            *x, ", ", *y, ")");
      case ExprKind::kCmpEq:
      case ExprKind::kCmpNe:
      case ExprKind::kCmpLt:
      case ExprKind::kCmpLe:
      case ExprKind::kCmpGt:
      case ExprKind::kCmpGe:
        return absl::StrCat(HighwayOp(b.kind()), "(", *x, ", ", *y, ")");
      default:
        return std::nullopt;
    }
  }
  if (operand.kind() != ScalarKind::kF32 && !operand.is_bool()) return std::nullopt;
  if (b.kind() == ExprKind::kDiv && operand.kind() == ScalarKind::kF32 && Invariant(b.b)) {
    // A divisor fixed for the whole loop (a row's standard deviation or sum, a constant): one
    // reciprocal before the loop and a multiply per vector, since a vector divide issues a
    // sixth as often as a multiply. When 1 / d is a normal float, x * (1 / d) is within 1.5 ulp
    // of x / d and equal to it for x = +-0, +-inf and NaN (a quotient within an ulp of overflow
    // or underflow may round to inf or to the smallest subnormal instead); other divisors (0,
    // subnormal, huge, inf, NaN) keep the exact divide.
    auto x = VE(b.a);
    if (!x) return std::nullopt;
    const std::string name = absl::StrCat("anvil_inv", hoisted_.size());
    hoisted_.push_back(absl::StrCat("const float ", name, "_d = ", E(b.b), ";"));
    hoisted_.push_back(absl::StrCat("const bool ", name, "_r = std::fabs(", name,
                                    "_d) >= 0x1p-126f && std::fabs(", name, "_d) <= 0x1p126f;"));
    hoisted_.push_back(absl::StrCat("const auto ", name, " = hn::Set(anvil_d, ", name,
                                    "_r ? 1.0f / ", name, "_d : ", name, "_d);"));
    return absl::StrCat("anvil_vdiv(", *x, ", ", name, ", ", name, "_r)");
  }
  // a * b + c, c + a * b and the differences as one fused multiply-add: one rounding instead of
  // two (within an ulp of the two-step result) and one vector op instead of two.
  if ((b.kind() == ExprKind::kAdd || b.kind() == ExprKind::kSub) &&
      operand.kind() == ScalarKind::kF32) {
    auto product = [](const Expr& x) -> const tir::BinaryNode* {
      const auto* m = x.as<tir::BinaryNode>();
      return m != nullptr && m->kind() == ExprKind::kMul ? m : nullptr;
    };
    const tir::BinaryNode* left = product(b.a);
    const tir::BinaryNode* right = left == nullptr ? product(b.b) : nullptr;
    if (const tir::BinaryNode* m = left != nullptr ? left : right) {
      auto p = VE(m->a), q = VE(m->b), c = VE(left != nullptr ? b.b : b.a);
      if (!p || !q || !c) return std::nullopt;
      const bool add = b.kind() == ExprKind::kAdd;
      const char* fused = add ? "hn::MulAdd" : left != nullptr ? "hn::MulSub" : "hn::NegMulAdd";
      return absl::StrCat(fused, "(", *p, ", ", *q, ", ", *c, ")");
    }
  }
  auto x = VE(b.a), y = VE(b.b);
  if (!x || !y) return std::nullopt;
  // min and max propagate NaN as the scalar code does (the prelude's anvil_vmin, anvil_vmax).
  if (b.kind() == ExprKind::kMin || b.kind() == ExprKind::kMax) {
    return absl::StrCat(b.kind() == ExprKind::kMin ? "anvil_vmin" : "anvil_vmax", "(anvil_d, ", *x,
                        ", ", *y, ")");
  }
  // Floor division and modulo have no f32 vector form here.
  if (b.kind() == ExprKind::kFloorDiv || b.kind() == ExprKind::kMod) return std::nullopt;
  // Comparisons take f32 vectors; And/Or take masks.
  if (operand.is_bool() != (b.kind() == ExprKind::kAnd || b.kind() == ExprKind::kOr)) {
    return std::nullopt;
  }
  return absl::StrCat(HighwayOp(b.kind()), "(", *x, ", ", *y, ")");
}

bool VectorEmitter::VectorStmt(const Stmt& s, std::string* out) {
  const std::string pad(static_cast<size_t>(indent_ + 2) * 2, ' ');
  switch (s.kind()) {
    case tir::StmtKind::kBlock:
      for (const Stmt& x : s.as<tir::BlockNode>()->stmts) {
        if (!VectorStmt(x, out)) return false;
      }
      return true;
    case tir::StmtKind::kDefine: {
      const auto* n = s.as<tir::DefineNode>();
      if (!n->target.as<tir::VarNode>() || n->target.type().kind() != ScalarKind::kF32) {
        return false;
      }
      std::string init = "hn::Zero(anvil_d)";
      if (n->init.defined()) {
        auto v = VE(n->init);
        if (!v) return false;
        init = *v;
      }
      vector_locals_.insert(n->target.get());
      absl::StrAppend(out, pad, "auto ", Name(n->target), " = ", init, ";\n");
      return true;
    }
    case tir::StmtKind::kAssign: {
      const auto* n = s.as<tir::AssignNode>();
      if (!vector_locals_.contains(n->var.get())) return false;
      auto v = VE(n->value);
      if (!v) return false;
      absl::StrAppend(out, pad, Name(n->var), " = ", *v, ";\n");
      return true;
    }
    case tir::StmtKind::kStore: {
      const auto* n = s.as<tir::StoreNode>();
      const ScalarKind kind = n->tensor.type().kind();
      if ((kind != ScalarKind::kF32 && kind != ScalarKind::kF16) || !UnitStride(n->indices)) {
        return false;
      }
      const std::string at = absl::StrCat(kind == ScalarKind::kF16 ? "(uint16_t*)" : "(float*)",
                                          Data(n->tensor), " + ", Offset(n->tensor, n->indices));
      if (kind == ScalarKind::kF16) {
        // A float16 element moved as it is keeps its bits (a NaN its payload).
        const auto* load = n->value.as<tir::IndexingNode>();
        if (load != nullptr && load->tensor.type().kind() == ScalarKind::kF16 &&
            UnitStride(load->indices)) {
          absl::StrAppend(out, pad, "anvil_vcopy16(anvil_d, (const uint16_t*)", Data(load->tensor),
                          " + ", Offset(load->tensor, load->indices), ", ", at, ");\n");
          return true;
        }
        // Rounding to float16 once at the store gives the bits of rounding first.
        const auto* cast = n->value.as<tir::CastNode>();
        const Expr& value =
            cast != nullptr && cast->value.type() == DataType::F32() ? cast->value : n->value;
        auto v = VE(value);
        if (!v) return false;
        absl::StrAppend(out, pad, "anvil_vf2h(anvil_d, ", *v, ", ", at, ");\n");
        return true;
      }
      auto v = VE(n->value);
      if (!v) return false;
      absl::StrAppend(out, pad, "hn::StoreU(", *v, ", anvil_d, ", at, ");\n");
      return true;
    }
    default:
      return false;
  }
}

std::optional<std::string> VectorEmitter::VectorReduction(const tir::ForNode& n) {
  const auto* block = n.body.as<tir::BlockNode>();
  const Stmt only = block != nullptr && block->stmts.size() == 1 ? block->stmts[0] : n.body;
  const auto* assign = only.as<tir::AssignNode>();
  if (assign == nullptr || assign->var.type().kind() != ScalarKind::kF32) return std::nullopt;
  const auto* op = assign->value.as<tir::BinaryNode>();
  if (op == nullptr || !op->a.same(assign->var)) return std::nullopt;
  const ExprKind kind = op->kind();
  if (kind != ExprKind::kAdd && kind != ExprKind::kMax && kind != ExprKind::kMin) {
    return std::nullopt;
  }
  vector_var_ = n.var.get();
  stored_.clear();
  vector_locals_.clear();
  hoisted_.clear();
  const absl::Status saved = status_;
  // The accumulator itself must not appear in the term.
  const absl::flat_hash_set<const tir::ExprNode*> accumulator = {assign->var.get()};
  MentionsAny uses(accumulator);
  uses.Visit(op->b);
  std::optional<std::string> term = uses.found ? std::nullopt : VE(op->b);
  status_ = saved;
  vector_var_ = nullptr;
  std::vector<std::string> hoisted = std::move(hoisted_);
  hoisted_.clear();
  if (!term) return std::nullopt;
  const std::string v = Name(n.var), acc = Name(assign->var);
  const std::string pad(static_cast<size_t>(indent_ + 1) * 2, ' ');
  std::string out;
  // Four partial vectors in turn (one vector add's latency would otherwise bound the loop),
  // then whole vectors into the first; the partials combine in a fixed order.
  const bool is_add = kind == ExprKind::kAdd;
  const std::string combine = is_add                   ? "hn::Add"
                              : kind == ExprKind::kMax ? "anvil_vmax"
                                                       : "anvil_vmin";
  const std::string with_d = is_add ? "" : "anvil_d, ";
  const std::string init =
      is_add ? "hn::Zero(anvil_d)" : absl::StrCat("hn::Set(anvil_d, ", acc, ")");
  absl::StrAppend(&out, pad, "hn::Vec<decltype(anvil_d)> anvil_acc = ", init,
                  ", anvil_acc1 = ", init, ", anvil_acc2 = ", init, ", anvil_acc3 = ", init, ";\n");
  // The hoisted invariants are read only when the loop runs at least one vector.
  absl::StrAppend(&out, pad, "if (", v, " + anvil_lanes <= ", v, "__end) {\n");
  for (const std::string& h : hoisted) absl::StrAppend(&out, pad, h, "\n");
  absl::StrAppend(&out, pad, "for (; ", v, " + 4 * anvil_lanes <= ", v, "__end;) {\n");
  for (const char* a : {"anvil_acc", "anvil_acc1", "anvil_acc2", "anvil_acc3"}) {
    absl::StrAppend(&out, pad, "  ", a, " = ", combine, "(", with_d, a, ", ", *term, ");\n");
    absl::StrAppend(&out, pad, "  ", v, " += anvil_lanes;\n");
  }
  absl::StrAppend(&out, pad, "}\n");
  absl::StrAppend(&out, pad, "for (; ", v, " + anvil_lanes <= ", v, "__end; ", v,
                  " += anvil_lanes) anvil_acc = ", combine, "(", with_d, "anvil_acc, ", *term,
                  ");\n");
  absl::StrAppend(&out, pad, "}\n");
  absl::StrAppend(&out, pad, "anvil_acc = ", combine, "(", with_d, combine, "(", with_d,
                  "anvil_acc, anvil_acc1), ", combine, "(", with_d, "anvil_acc2, anvil_acc3));\n");
  if (is_add) {
    absl::StrAppend(&out, pad, acc, " = ", acc,
                    " + hn::GetLane(hn::SumOfLanes(anvil_d, anvil_acc));\n");
    return out;
  }
  // A NaN in any lane is the result (the scalar max/min propagates it).
  absl::StrAppend(&out, pad, acc, " = hn::AllFalse(anvil_d, hn::IsNaN(anvil_acc)) ? hn::GetLane(",
                  kind == ExprKind::kMax ? "hn::MaxOfLanes" : "hn::MinOfLanes",
                  "(anvil_d, anvil_acc)) : std::numeric_limits<float>::quiet_NaN();\n");
  return out;
}

bool VectorEmitter::InVectorLoop(const tir::ForNode& n, const std::function<bool()>& emit) {
  // Tensors the body stores to: loads of them are never treated as loop-invariant.
  Accesses accesses;
  accesses.Visit(n.body);
  vector_var_ = n.var.get();
  stored_ = std::move(accesses.stored);
  vector_locals_.clear();
  hoisted_.clear();
  const absl::Status saved = status_;
  const bool ok = emit();
  status_ = saved;  // a scalar E() inside an abandoned attempt must not fail the emission
  vector_var_ = nullptr;
  vector_locals_.clear();
  stored_.clear();
  if (!ok) hoisted_.clear();
  return ok;
}

std::optional<std::string> VectorEmitter::VectorBody(const tir::ForNode& n) {
  std::string out;
  if (!InVectorLoop(n, [&] { return VectorStmt(n.body, &out); })) return std::nullopt;
  return out;
}

size_t VectorEmitter::FissionPoint(const tir::ForNode& n, int64_t* row_trips) {
  // A row of at least 64 trips (four vectors) and at most 4096 (16 KiB on the stack).
  int64_t begin = 0, end = 0;
  if (!tir::AsIntConstant(n.begin, &begin) || !tir::AsIntConstant(n.end, &end) ||
      end - begin < 64 || end - begin > 4096) {
    return 0;
  }
  // [var x, x = e1, rest...] or [var x = e1, rest...], e1 without an exp or the like, and one
  // in the rest.
  const auto* block = n.body.as<tir::BlockNode>();
  if (block == nullptr || block->stmts.size() < 2) return 0;
  const auto* define = block->stmts[0].as<tir::DefineNode>();
  if (define == nullptr || !define->target.as<tir::VarNode>() ||
      define->target.type() != DataType::F32()) {
    return 0;
  }
  Expr value = define->init;
  size_t split = 1;
  if (!value.defined()) {
    const auto* assign = block->stmts[1].as<tir::AssignNode>();
    if (assign == nullptr || !assign->var.same(define->target)) return 0;
    value = assign->value;
    split = 2;
  }
  if (split >= block->stmts.size()) return 0;
  HasTranscendental first, rest;
  first.Visit(value);
  for (size_t k = split; k < block->stmts.size(); ++k) rest.Visit(block->stmts[k]);
  if (first.found || !rest.found) return 0;
  // The rest must not assign the local again.
  for (size_t k = split; k < block->stmts.size(); ++k) {
    const auto* assign = block->stmts[k].as<tir::AssignNode>();
    if (assign != nullptr && assign->var.same(define->target)) return 0;
  }
  *row_trips = end - begin;
  return split;
}

std::optional<std::pair<std::string, std::string>> VectorEmitter::SplitVectorBody(
    const tir::ForNode& n, size_t split, const std::string& row, const std::string& start) {
  const auto* block = n.body.as<tir::BlockNode>();
  const std::string pad(static_cast<size_t>(indent_ + 2) * 2, ' ');
  const std::string local = Name(block->stmts[0].as<tir::DefineNode>()->target);
  const std::string at = absl::StrCat(row, " + (", Name(n.var), " - ", start, ")");
  std::string first, second;
  const bool ok = InVectorLoop(n, [&] {
    for (size_t k = 0; k < split; ++k) {
      if (!VectorStmt(block->stmts[k], &first)) return false;
    }
    absl::StrAppend(&first, pad, "hn::Store(", local, ", anvil_d, ", at, ");\n");
    absl::StrAppend(&second, pad, "const auto ", local, " = hn::Load(anvil_d, ", at, ");\n");
    for (size_t k = split; k < block->stmts.size(); ++k) {
      if (!VectorStmt(block->stmts[k], &second)) return false;
    }
    return true;
  });
  if (!ok) return std::nullopt;
  return std::make_pair(std::move(first), std::move(second));
}

std::vector<std::string> VectorEmitter::NextTripPrefetches(const tir::ForNode& n, const Stmt& s) {
  // Only the last loop in the body of the loop around it: a row read in several passes (a
  // layer norm's mean, variance, output) misses only in the first, so the hardware prefetcher,
  // which follows misses, stops between rows; the last pass fetches the next trip's lines, one
  // per vector (64 bytes: a cache line at 16 lanes).
  std::vector<std::string> lines;
  if (loops_.empty()) return lines;
  const tir::ForNode& outer = *loops_.back();
  const auto* block = outer.body.as<tir::BlockNode>();
  if (block == nullptr) return lines;
  size_t at = block->stmts.size();
  for (size_t k = 0; k < block->stmts.size(); ++k) {
    if (block->stmts[k].same(s)) at = k;
  }
  if (at == block->stmts.size()) return lines;
  for (size_t k = at + 1; k < block->stmts.size(); ++k) {
    if (ContainsLoop(block->stmts[k])) return lines;
  }
  int64_t begin = 0, end = 0;
  if (tir::AsIntConstant(n.begin, &begin) && tir::AsIntConstant(n.end, &end) && end - begin < 64) {
    return lines;  // a row of under four vectors: a line or two ahead is no help
  }
  absl::StatusOr<Expr> next = tir::MakeBinary(ExprKind::kAdd, outer.var, outer.step);
  if (!next.ok()) return lines;
  Accesses accesses;
  accesses.Visit(n.body);
  absl::flat_hash_set<const tir::ExprNode*> done;
  for (const tir::IndexingNode* load : accesses.loads) {
    if (load->indices.empty() || load->indices.back().get() != n.var.get() ||
        accesses.stored.contains(load->tensor.get()) || done.contains(load->tensor.get())) {
      continue;
    }
    std::vector<Expr> indices = load->indices;
    bool moves = false;
    for (size_t k = 0; k + 1 < indices.size(); ++k) {
      if (!Mentions(indices[k], outer.var.get())) continue;
      moves = true;
      indices[k] = tir::Substitute(indices[k], outer.var, *next);
    }
    if (!moves) continue;  // the same lines every trip (a LayerNorm's gamma): already cached
    done.insert(load->tensor.get());
    // (A prefetch past the tensor's end, on its last trip, is harmless: it never faults.)
    lines.push_back(absl::StrCat("__builtin_prefetch((const float*)", Data(load->tensor), " + ",
                                 Offset(load->tensor, indices), ");"));
    if (lines.size() == 2) break;
  }
  return lines;
}

}  // namespace anvil::lower
