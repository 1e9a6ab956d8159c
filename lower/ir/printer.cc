#include "lower/ir/printer.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"

namespace anvil::tir {
namespace {

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '.'; }

bool IsIdentifier(std::string_view name) {
  if (name.empty() || !IsIdentStart(name[0]) || IsReservedWord(name)) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return true;
}

// `text` between `quote` characters, with the quote character, backslash and newline escaped
// by a backslash (the parser reads strings "..." and names `...` alike).
std::string Quoted(std::string_view text, char quote = '"') {
  std::string out(1, quote);
  for (char c : text) {
    if (c == quote || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
  out.push_back(quote);
  return out;
}

std::string FormatFloat(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s.append(".0");
  return s;
}

// Precedence of an expression printed infix (higher binds tighter); primaries are 100.
int Precedence(const Expr& e) {
  switch (e.kind()) {
    case ExprKind::kOr:
      return 1;
    case ExprKind::kAnd:
      return 2;
    case ExprKind::kCmpEq:
    case ExprKind::kCmpNe:
      return 3;
    case ExprKind::kCmpLt:
    case ExprKind::kCmpLe:
    case ExprKind::kCmpGt:
    case ExprKind::kCmpGe:
      return 4;
    case ExprKind::kAdd:
    case ExprKind::kSub:
      return 5;
    case ExprKind::kMul:
    case ExprKind::kDiv:
    case ExprKind::kMod:
      return 6;
    case ExprKind::kNeg:
    case ExprKind::kNot:
      return 7;
    case ExprKind::kConstant: {
      // A negative constant prints with a leading '-': as tight as a unary minus.
      const ConstantNode* c = e.as<ConstantNode>();
      const bool negative = c->type().is_float() ? std::signbit(c->float_value) : c->int_value < 0;
      return negative ? 7 : 100;
    }
    default:
      return 100;
  }
}

std::string_view Spelling(ExprKind kind) {
  static constexpr const char* kSpellings[] = {
#define ANVIL_TIR_EXPR(kind, node_class, spelling) spelling,
#include "lower/ir/node_kinds.inc"
  };
  return kSpellings[static_cast<int>(kind)];
}

class Printer {
 public:
  std::string out;

  // The printed name of a variable or tensor: its own, made unique within what this printer
  // printed, backquoted when it is not an identifier.
  std::string Name(const Expr& e) {
    auto it = names_.find(e.get());
    if (it != names_.end()) return it->second;
    std::string base = e.as<VarNode>() ? e.as<VarNode>()->name : e.as<TensorNode>()->name;
    std::string name = base;
    for (int k = 1; used_.contains(name); ++k) name = absl::StrCat(base, ".", k);
    used_.insert(name);
    std::string printed = IsIdentifier(name) ? name : Quoted(name, '`');
    names_.emplace(e.get(), printed);
    return printed;
  }

  std::string Type(DataType t) { return t.ToString(); }

  std::string TensorType(const TensorNode& t) {
    std::string s = absl::StrCat("[", t.type().ToString());
    for (size_t k = 0; k < t.dims.size(); ++k) {
      absl::StrAppend(&s, k == 0 ? " x " : ", ", ExprText(t.dims[k]));
    }
    s.push_back(']');
    return s;
  }

  std::string ExprText(const Expr& e) {
    std::string saved;
    saved.swap(out);
    PrintE(e);
    saved.swap(out);
    return saved;
  }

  void PrintE(const Expr& e) {
    if (!e.defined()) {
      out.append("<null>");
      return;
    }
    switch (e.kind()) {
      case ExprKind::kConstant:
        out.append(PrintConstant(*e.as<ConstantNode>()));
        return;
      case ExprKind::kVar:
      case ExprKind::kTensor:
        out.append(Name(e));
        return;
      case ExprKind::kCast:
        absl::StrAppend(&out, "cast<", Type(e.type()), ">(");
        PrintE(e.as<CastNode>()->value);
        out.push_back(')');
        return;
      case ExprKind::kBroadcast:
        out.append("broadcast(");
        PrintE(e.as<BroadcastNode>()->value);
        absl::StrAppend(&out, ", ", e.type().lanes(), ")");
        return;
      case ExprKind::kFloorDiv:
      case ExprKind::kMin:
      case ExprKind::kMax: {
        const BinaryNode* b = e.as<BinaryNode>();
        absl::StrAppend(&out, AsAbsl(Spelling(e.kind())), "(");
        PrintE(b->a);
        out.append(", ");
        PrintE(b->b);
        out.push_back(')');
        return;
      }
      case ExprKind::kNeg:
      case ExprKind::kNot: {
        // A constant operand in parentheses: "-3" reads back as the constant -3.
        const Expr& a = e.as<UnaryNode>()->a;
        out.append(std::string(Spelling(e.kind())));
        Operand(a, Precedence(a) < 100 || a.kind() == ExprKind::kConstant);
        return;
      }
      case ExprKind::kSelect: {
        const SelectNode* s = e.as<SelectNode>();
        out.append("select(");
        PrintE(s->cond);
        out.append(", ");
        PrintE(s->if_true);
        out.append(", ");
        PrintE(s->if_false);
        out.push_back(')');
        return;
      }
      case ExprKind::kIndexing: {
        const IndexingNode* n = e.as<IndexingNode>();
        Subscripts(n->tensor, n->indices, e.type().lanes());
        return;
      }
      case ExprKind::kTensorPtr: {
        const TensorPtrNode* n = e.as<TensorPtrNode>();
        out.push_back('&');
        Subscripts(n->tensor, n->indices, 1);
        return;
      }
      case ExprKind::kCall: {
        const CallNode* c = e.as<CallNode>();
        absl::StrAppend(&out, "call<", Type(c->type()), "> ", c->callee);
        Args(c->args);
        return;
      }
      case ExprKind::kIntrinsic: {
        const IntrinsicNode* c = e.as<IntrinsicNode>();
        out.append(std::string(IntrinsicName(c->op)));
        Args(c->args);
        return;
      }
      default: {  // infix binary operators
        const BinaryNode* b = e.as<BinaryNode>();
        const int p = Precedence(e);
        Operand(b->a, Precedence(b->a) < p);
        absl::StrAppend(&out, " ", AsAbsl(Spelling(e.kind())), " ");
        Operand(b->b, Precedence(b->b) <= p);
        return;
      }
    }
  }

  void Operand(const Expr& e, bool parens) {
    if (parens) out.push_back('(');
    PrintE(e);
    if (parens) out.push_back(')');
  }

  void Args(const std::vector<Expr>& args) {
    out.push_back('(');
    for (size_t k = 0; k < args.size(); ++k) {
      if (k > 0) out.append(", ");
      PrintE(args[k]);
    }
    out.push_back(')');
  }

  void Subscripts(const Expr& tensor, const std::vector<Expr>& indices, int lanes) {
    PrintE(tensor);
    out.push_back('[');
    for (size_t k = 0; k < indices.size(); ++k) {
      if (k > 0) out.append(", ");
      PrintE(indices[k]);
    }
    if (lanes > 1) absl::StrAppend(&out, ":", lanes);
    out.push_back(']');
  }

  void Indent(int depth) { out.append(2 * depth, ' '); }

  // Statements of a body: a Block's statements one per line, anything else alone.
  void Body(const Stmt& s, int depth) {
    if (const BlockNode* b = s.as<BlockNode>()) {
      for (const Stmt& c : b->stmts) PrintS(c, depth);
    } else {
      PrintS(s, depth);
    }
  }

  void Braced(const Stmt& s, int depth) {
    out.append("{\n");
    Body(s, depth + 1);
    Indent(depth);
    out.push_back('}');
  }

  void PrintS(const Stmt& s, int depth) {
    Indent(depth);
    if (!s.defined()) {
      out.append("<null>\n");
      return;
    }
    switch (s.kind()) {
      case StmtKind::kAssign: {
        const AssignNode* n = s.as<AssignNode>();
        PrintE(n->var);
        out.append(" = ");
        PrintE(n->value);
        break;
      }
      case StmtKind::kStore: {
        const StoreNode* n = s.as<StoreNode>();
        Subscripts(n->tensor, n->indices, 1);
        out.append(" = ");
        PrintE(n->value);
        break;
      }
      case StmtKind::kBlock:
        Braced(s, depth);
        break;
      case StmtKind::kIfElse: {
        const IfElseNode* n = s.as<IfElseNode>();
        out.append("if (");
        PrintE(n->cond);
        out.append(") ");
        Braced(n->then_body, depth);
        if (n->else_body.defined()) {
          out.append(" else ");
          Braced(n->else_body, depth);
        }
        break;
      }
      case StmtKind::kFor: {
        const ForNode* n = s.as<ForNode>();
        absl::StrAppend(&out, "for ", Name(n->var), " in (");
        PrintE(n->begin);
        out.append(", ");
        PrintE(n->end);
        out.append(", ");
        PrintE(n->step);
        out.append(")");
        if (n->attrs.parallel) out.append(" parallel");
        if (n->attrs.vectorize > 0) absl::StrAppend(&out, " vectorize(", n->attrs.vectorize, ")");
        if (n->attrs.unroll > 0) absl::StrAppend(&out, " unroll(", n->attrs.unroll, ")");
        out.push_back(' ');
        Braced(n->body, depth);
        break;
      }
      case StmtKind::kEvaluate:
        out.append("evaluate ");
        PrintE(s.as<EvaluateNode>()->value);
        break;
      case StmtKind::kReturn: {
        const ReturnNode* n = s.as<ReturnNode>();
        out.append("return");
        if (n->value.defined()) {
          out.push_back(' ');
          PrintE(n->value);
        }
        break;
      }
      case StmtKind::kDefine: {
        const DefineNode* n = s.as<DefineNode>();
        if (const VarNode* v = n->target.as<VarNode>()) {
          absl::StrAppend(&out, "var ", Name(n->target), ": ", Type(v->type()));
          if (n->init.defined()) {
            out.append(" = ");
            PrintE(n->init);
          }
        } else {
          const TensorNode* t = n->target.as<TensorNode>();
          // Dims first: a dim may name a variable not printed yet.
          const std::string type = TensorType(*t);
          absl::StrAppend(&out, "tensor ", Name(n->target), ": ", type);
          if (n->tensor.view_of.defined()) absl::StrAppend(&out, " view ", Name(n->tensor.view_of));
          if (n->tensor.offset.defined()) {
            out.append(" at ");
            PrintE(n->tensor.offset);
          }
          if (n->tensor.dynamic) out.append(" dynamic");
          if (n->tensor.max_bytes >= 0) absl::StrAppend(&out, " bound ", n->tensor.max_bytes);
        }
        break;
      }
      case StmtKind::kAssert: {
        const AssertNode* n = s.as<AssertNode>();
        out.append("assert(");
        PrintE(n->cond);
        absl::StrAppend(&out, ", ", Quoted(n->message), ")");
        break;
      }
      case StmtKind::kComment:
        absl::StrAppend(&out, "// ", s.as<CommentNode>()->text);
        break;
    }
    out.push_back('\n');
  }

  void PrintF(const Function& f, int depth) {
    Indent(depth);
    absl::StrAppend(&out, "func ", f.name, "(");
    for (size_t k = 0; k < f.params.size(); ++k) {
      if (k > 0) out.append(", ");
      const Expr& p = f.params[k];
      if (const TensorNode* t = p.as<TensorNode>()) {
        const std::string type = TensorType(*t);
        absl::StrAppend(&out, Name(p), ": ", type);
      } else {
        absl::StrAppend(&out, Name(p), ": ", Type(p.type()));
      }
    }
    absl::StrAppend(&out, ") -> ", Type(f.ret));
    if (!f.attrs.empty()) {
      out.append(" attrs(");
      for (size_t k = 0; k < f.attrs.size(); ++k) {
        absl::StrAppend(&out, k > 0 ? ", " : "", f.attrs[k].first, " = ",
                        Quoted(f.attrs[k].second));
      }
      out.push_back(')');
    }
    out.push_back(' ');
    Braced(f.body.defined() ? f.body : MakeBlock({}), depth);
    out.push_back('\n');
  }

 private:
  absl::flat_hash_map<const ExprNode*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
};

}  // namespace

bool IsReservedWord(std::string_view name) {
  // Words that start a statement, are literals, or are builtins written like calls. Words the
  // syntax uses only at one place (`x` in tensor types, `in`, `view`, `at`, ...) are free.
  static const auto* kWords = new absl::flat_hash_set<std::string_view>{
      "module",   "kernel", "global",   "entry",  "func",   "var",  "tensor",    "if",  "workspace",
      "else",     "for",    "evaluate", "return", "assert", "cast", "broadcast", "min", "max",
      "floordiv", "select", "call",     "true",   "false",  "nan",  "inf"};
  if (kWords->contains(name)) return true;
  IntrinsicOp op;
  return IntrinsicFromName(name, &op);
}

std::string PrintConstant(const ConstantNode& c) {
  const DataType t = c.type();
  switch (t.kind()) {
    case ScalarKind::kIndex:
      return absl::StrCat(c.int_value);
    case ScalarKind::kBool:
      return c.int_value != 0 ? "true" : "false";
    case ScalarKind::kF32:
      if (std::isfinite(c.float_value)) return FormatFloat(c.float_value, 9) + "f";
      return FormatFloat(c.float_value, 9) + ":f32";
    case ScalarKind::kF64:
      return FormatFloat(c.float_value, 17) + ":f64";
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
      return FormatFloat(c.float_value, 9) + ":" + t.ToString();
    case ScalarKind::kU64:
      return absl::StrCat(static_cast<uint64_t>(c.int_value), ":u64");
    default:
      return absl::StrCat(c.int_value, ":", t.ToString());
  }
}

// Expr::ToString and Stmt::ToString (expr.h, stmt.h) print here, so that the node files do not
// include the printer, which includes them.
std::string Expr::ToString() const { return PrintExpr(*this); }
std::string Stmt::ToString() const { return PrintStmt(*this); }

std::string PrintExpr(const Expr& e) {
  Printer p;
  p.PrintE(e);
  return p.out;
}

std::string PrintStmt(const Stmt& s) {
  Printer p;
  p.PrintS(s, 0);
  if (!p.out.empty() && p.out.back() == '\n') p.out.pop_back();
  return p.out;
}

std::string PrintFunction(const Function& f) {
  Printer p;
  p.PrintF(f, 0);
  return p.out;
}

std::string PrintModule(const Module& m) {
  Printer p;
  p.out.append("module {\n");
  for (size_t k = 0; k < m.kernels.size(); ++k) {
    const KernelBinding& b = m.kernels[k];
    absl::StrAppend(&p.out, "  kernel ", k, " = ",
                    b.domain.empty() ? b.op_type : absl::StrCat(b.domain, ".", b.op_type), " ",
                    Quoted(b.node_name), " opset ", b.opset, " ", b.category, " slots(",
                    absl::StrJoin(b.slots, ", "), ")");
    if (!b.captures.empty()) {
      p.out.append(" captures(");
      for (size_t c = 0; c < b.captures.size(); ++c) {
        absl::StrAppend(&p.out, c > 0 ? ", " : "", Quoted(b.captures[c]));
      }
      p.out.push_back(')');
    }
    p.out.push_back('\n');
  }
  for (const Global& g : m.globals) {
    const TensorNode* t = g.tensor.as<TensorNode>();
    const std::string type = p.TensorType(*t);
    absl::StrAppend(&p.out, "  global ", p.Name(g.tensor), ": ", type, " = ", Quoted(g.source),
                    "\n");
  }
  // The entry binding names parameters, which the entry function's header names first.
  const Function* entry = m.FindFunction(m.entry);
  std::string binding;
  if (entry != nullptr &&
      (!m.binding.inputs.empty() || !m.binding.outputs.empty() || !m.binding.dims.empty())) {
    for (const Expr& param : entry->params) p.Name(param);
    binding = absl::StrCat("  entry ", m.entry, " {\n");
    for (const EntryBinding::DimSource& d : m.binding.dims) {
      absl::StrAppend(&binding, "    dim ", p.Name(d.var), " = input ", d.input, " axis ", d.axis,
                      "\n");
    }
    for (const auto* list : {&m.binding.inputs, &m.binding.outputs}) {
      for (const EntryBinding::Tensor& t : *list) {
        absl::StrAppend(&binding, "    ", list == &m.binding.inputs ? "input " : "output ",
                        Quoted(t.name), " = ", p.Name(t.tensor), t.dynamic ? " dynamic" : "", "\n");
      }
    }
    if (m.workspace.offsets.defined()) {
      const TensorNode* t = m.workspace.offsets.as<TensorNode>();
      const std::string type = p.TensorType(*t);
      absl::StrAppend(&binding, "    offsets ", p.Name(m.workspace.offsets), ": ", type, "\n");
    }
    binding.append("  }\n");
  }
  for (const Function& f : m.functions) {
    if (&f == entry) p.out.append(binding);
    p.PrintF(f, 1);
  }
  // The workspace plan, after the entry function that declares what it names.
  if (!m.workspace.empty()) {
    p.out.append("  workspace {\n");
    if (m.workspace.bytes.defined()) {
      p.out.append("    bytes ");
      p.PrintE(m.workspace.bytes);
      p.out.append("\n");
    }
    for (const WorkspaceBuffer& b : m.workspace.buffers) {
      absl::StrAppend(&p.out, "    buffer ", p.Name(b.tensor), " bytes ");
      p.PrintE(b.bytes);
      absl::StrAppend(&p.out, " live ", b.first, " ", b.last, "\n");
    }
    p.out.append("  }\n");
  }
  p.out.append("}\n");
  return p.out;
}

}  // namespace anvil::tir
