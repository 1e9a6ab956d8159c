// The Tensor IR text parser: the module level (kernel bindings, globals, the entry binding,
// functions, the workspace) over the statement, expression and token parts (parser_stmt.h,
// parser_expr.h, parser_base.h), and the entry points of parser.h.
#include "lower/ir/parser.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "lower/ir/expr.h"
#include "lower/ir/parser_base.h"
#include "lower/ir/parser_stmt.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {
namespace {

using parser_internal::StmtParser;
using parser_internal::Tok;
using parser_internal::Token;
using parser_internal::TokenError;
using parser_internal::Tokenize;

class ModuleParser : public StmtParser {
 public:
  using StmtParser::StmtParser;

  absl::StatusOr<Module> ParseModule() {
    Module m;
    PushScope();  // module scope: globals
    if (!ExpectWord("module") || !Expect("{")) return status();
    std::vector<PendingBinding> bindings;
    while (ok() && !Peek("}")) {
      if (PeekWord("kernel")) {
        ParseKernel(m);
      } else if (PeekWord("global")) {
        ParseGlobal(m);
      } else if (PeekWord("entry")) {
        ParseEntry(m, &bindings);
      } else if (PeekWord("func")) {
        Function f = ParseFunctionDef();
        if (ok() && f.name == m.entry) entry_names_ = function_names();
        if (ok()) m.functions.push_back(std::move(f));
      } else if (PeekWord("workspace")) {
        ParseWorkspace(m);
      } else {
        Fail("expected kernel, global, entry, func or workspace");
      }
    }
    Expect("}");
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the module");
    if (!ok()) return status();
    // The entry binding names what the entry function declares.
    for (const PendingBinding& b : bindings) {
      auto it = entry_names_.find(b.name);
      if (it == entry_names_.end()) {
        return TokenError(b.where, absl::StrCat("entry names ", b.name, ", which ", m.entry,
                                                " does not declare"));
      }
      if (b.what == 'd') {
        m.binding.dims.push_back({it->second, b.input, b.axis});
      } else {
        (b.what == 'i' ? m.binding.inputs : m.binding.outputs)
            .push_back({b.graph_name, it->second, b.dynamic});
      }
    }
    return m;
  }

  absl::StatusOr<Expr> ParseLoneExpr(const std::vector<Expr>& names) {
    PushScope();
    for (const Expr& n : names) {
      if (const VarNode* v = n.as<VarNode>()) Declare(v->name, n);
      if (const TensorNode* t = n.as<TensorNode>()) Declare(t->name, n);
    }
    Expr e = ParseExpr();
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the expression");
    if (!ok()) return status();
    return e;
  }

  absl::StatusOr<Function> ParseLoneFunction() {
    PushScope();
    Function f = ParseFunctionDef();
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the function");
    if (!ok()) return status();
    return f;
  }

 private:
  struct PendingBinding {
    char what;  // 'd'im, 'i'nput, 'o'utput
    std::string name;
    std::string graph_name;
    int input = 0;
    int axis = 0;
    bool dynamic = false;
    Token where;
  };

  // ---- Module items ----
  void ParseKernel(Module& m) {
    Advance();
    int64_t id;
    if (!TakeInt(&id) || !Expect("=")) return;
    if (id != static_cast<int64_t>(m.kernels.size())) {
      Fail("kernels are numbered in order from 0");
      return;
    }
    KernelBinding b;
    std::string op = TakeName();
    if (const size_t dot = op.rfind('.'); dot != std::string::npos) {
      b.domain = op.substr(0, dot);
      op = op.substr(dot + 1);
    }
    b.op_type = op;
    b.node_name = TakeString();
    if (!ExpectWord("opset") || !TakeInt(&b.opset)) return;
    b.category = TakeName();
    if (!ExpectWord("slots") || !Expect("(")) return;
    while (ok() && !Peek(")")) {
      int64_t slot;
      if (!TakeInt(&slot)) return;
      b.slots.push_back(static_cast<int>(slot));
      if (!Peek(")")) Expect(",");
    }
    Expect(")");
    if (AcceptWord("captures")) {
      Expect("(");
      while (ok() && !Peek(")")) {
        b.captures.push_back(TakeString());
        if (!Peek(")")) Expect(",");
      }
      Expect(")");
    }
    m.kernels.push_back(std::move(b));
  }

  void ParseGlobal(Module& m) {
    Advance();
    const std::string name = TakeName();
    if (!Expect(":")) return;
    Expr t = ParseTensorType(name);
    if (!Expect("=")) return;
    std::string source = TakeString();
    if (!ok()) return;
    Declare(name, t);
    m.globals.push_back({t, nullptr, std::move(source)});
  }

  void ParseEntry(Module& m, std::vector<PendingBinding>* bindings) {
    Advance();
    m.entry = TakeName();
    if (!Expect("{")) return;
    while (ok() && !Peek("}")) {
      PendingBinding b;
      b.where = Cur();
      if (AcceptWord("dim")) {
        b.what = 'd';
        b.name = TakeName();
        int64_t input, axis;
        if (!Expect("=") || !ExpectWord("input") || !TakeInt(&input) || !ExpectWord("axis") ||
            !TakeInt(&axis)) {
          return;
        }
        b.input = static_cast<int>(input);
        b.axis = static_cast<int>(axis);
      } else if (PeekWord("input") || PeekWord("output")) {
        b.what = Cur().text[0];
        Advance();
        b.graph_name = TakeString();
        if (!Expect("=")) return;
        b.name = TakeName();
        b.dynamic = AcceptWord("dynamic");
      } else if (AcceptWord("offsets")) {
        const std::string name = TakeName();
        if (!Expect(":")) return;
        Expr t = ParseTensorType(name);
        if (!ok()) return;
        Declare(name, t);
        m.workspace.offsets = t;
        continue;
      } else {
        Fail("expected dim, input, output or offsets");
        return;
      }
      bindings->push_back(std::move(b));
    }
    Expect("}");
  }

  // `workspace { [bytes E] (buffer T bytes E live FIRST LAST)* }`, after the entry function,
  // whose declarations it names.
  void ParseWorkspace(Module& m) {
    Advance();
    if (!Expect("{")) return;
    PushScope();
    for (const auto& [name, e] : entry_names_) Bind(name, e);
    while (ok() && !Peek("}")) {
      if (AcceptWord("bytes")) {
        m.workspace.bytes = ParseExpr();
      } else if (AcceptWord("buffer")) {
        WorkspaceBuffer b;
        b.tensor = TakeReference();
        int64_t first = 0, last = 0;
        if (!ExpectWord("bytes")) break;
        b.bytes = ParseExpr();
        if (!ExpectWord("live") || !TakeInt(&first) || !TakeInt(&last)) break;
        b.first = static_cast<int>(first);
        b.last = static_cast<int>(last);
        m.workspace.buffers.push_back(std::move(b));
      } else {
        Fail("expected bytes or buffer");
      }
    }
    PopScope();
    Expect("}");
  }

  absl::flat_hash_map<std::string, Expr> entry_names_;
};

}  // namespace

absl::StatusOr<Module> ParseModule(std::string_view text) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return ModuleParser(std::move(tokens)).ParseModule();
}

absl::StatusOr<Expr> ParseExpr(std::string_view text, const std::vector<Expr>& names) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return ModuleParser(std::move(tokens)).ParseLoneExpr(names);
}

absl::StatusOr<Function> ParseFunction(std::string_view text) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  return ModuleParser(std::move(tokens)).ParseLoneFunction();
}

}  // namespace anvil::tir
