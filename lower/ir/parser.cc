#include "lower/ir/parser.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lower/ir/expr.h"
#include "lower/ir/stmt.h"

namespace anvil::tir {
namespace {

enum class Tok { kEnd, kIdent, kName, kNumber, kString, kPunct, kComment };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, unquoted name or string, number, punctuation
  int line = 1;
  int column = 1;
};

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.'; }

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipSpace();
      Token t;
      t.line = line_;
      t.column = column_;
      if (pos_ >= text_.size()) {
        tokens.push_back(t);
        return tokens;
      }
      const char c = text_[pos_];
      if (IsIdentStart(c)) {
        t.kind = Tok::kIdent;
        while (pos_ < text_.size() && IsIdentChar(text_[pos_])) t.text.push_back(Next());
      } else if (IsDigit(c)) {
        t.kind = Tok::kNumber;
        while (pos_ < text_.size() && IsDigit(text_[pos_])) t.text.push_back(Next());
        if (pos_ < text_.size() && text_[pos_] == '.') {
          t.text.push_back(Next());
          while (pos_ < text_.size() && IsDigit(text_[pos_])) t.text.push_back(Next());
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
          t.text.push_back(Next());
          if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
            t.text.push_back(Next());
          }
          while (pos_ < text_.size() && IsDigit(text_[pos_])) t.text.push_back(Next());
        }
        // An f32 suffix: "1.5f".
        if (pos_ < text_.size() && text_[pos_] == 'f' &&
            (pos_ + 1 >= text_.size() || !IsIdentChar(text_[pos_ + 1]))) {
          t.text.push_back(Next());
        }
      } else if (text_.substr(pos_, 2) == "//") {
        // A Comment statement: the rest of the line (the printer writes "// text").
        t.kind = Tok::kComment;
        Next();
        Next();
        if (pos_ < text_.size() && text_[pos_] == ' ') Next();
        while (pos_ < text_.size() && text_[pos_] != '\n') t.text.push_back(Next());
        while (!t.text.empty() && t.text.back() == '\r') t.text.pop_back();
      } else if (c == '`' || c == '"') {
        t.kind = c == '`' ? Tok::kName : Tok::kString;
        Next();
        while (true) {
          if (pos_ >= text_.size()) return Error(t, "unterminated quote");
          char d = Next();
          if (d == c) break;
          if (d == '\\' && pos_ < text_.size()) {  // (the printer escapes \, " or ` and newline)
            d = Next();
            if (d == 'n') d = '\n';
          }
          t.text.push_back(d);
        }
      } else {
        t.kind = Tok::kPunct;
        static constexpr std::string_view kTwo[] = {"==", "!=", "<=", ">=", "&&", "||", "->"};
        for (std::string_view two : kTwo) {
          if (text_.substr(pos_, 2) == two) t.text = std::string(two);
        }
        if (t.text.empty()) t.text = std::string(1, c);
        for (size_t k = 0; k < t.text.size(); ++k) Next();
      }
      tokens.push_back(std::move(t));
    }
  }

  static absl::Status Error(const Token& t, absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("tir:", t.line, ":", t.column, ": ", what));
  }

 private:
  char Next() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }
  void SkipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Next();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Next();
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Module> ParseModule() {
    Module m;
    scopes_.emplace_back();  // module scope: globals
    if (!ExpectWord("module") || !Expect("{")) return status_;
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
        if (ok() && f.name == m.entry) entry_names_ = function_names_;
        if (ok()) m.functions.push_back(std::move(f));
      } else if (PeekWord("workspace")) {
        ParseWorkspace(m);
      } else {
        Fail("expected kernel, global, entry, func or workspace");
      }
    }
    Expect("}");
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the module");
    if (!ok()) return status_;
    // The entry binding names what the entry function declares.
    for (const PendingBinding& b : bindings) {
      auto it = entry_names_.find(b.name);
      if (it == entry_names_.end()) {
        return Lexer::Error(b.where, absl::StrCat("entry names ", b.name, ", which ", m.entry,
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
    scopes_.emplace_back();
    for (const Expr& n : names) {
      if (const VarNode* v = n.as<VarNode>()) Declare(v->name, n);
      if (const TensorNode* t = n.as<TensorNode>()) Declare(t->name, n);
    }
    Expr e = ParseExpr();
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the expression");
    if (!ok()) return status_;
    return e;
  }

  absl::StatusOr<Function> ParseLoneFunction() {
    scopes_.emplace_back();
    Function f = ParseFunctionDef();
    if (ok() && Cur().kind != Tok::kEnd) Fail("text after the function");
    if (!ok()) return status_;
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

  // ---- Tokens ----
  const Token& Cur() const { return tokens_[pos_]; }
  const Token& At(size_t k) const { return tokens_[std::min(pos_ + k, tokens_.size() - 1)]; }
  bool ok() const { return status_.ok(); }
  void Advance() {
    if (pos_ + 1 < tokens_.size()) ++pos_;
  }
  bool Fail(absl::string_view what) {
    if (ok()) status_ = Lexer::Error(Cur(), what);
    return false;
  }
  bool Peek(absl::string_view punct) const {
    return Cur().kind == Tok::kPunct && Cur().text == punct;
  }
  bool PeekWord(absl::string_view word) const {
    return Cur().kind == Tok::kIdent && Cur().text == word;
  }
  bool Accept(absl::string_view punct) {
    if (!Peek(punct)) return false;
    Advance();
    return true;
  }
  bool AcceptWord(absl::string_view word) {
    if (!PeekWord(word)) return false;
    Advance();
    return true;
  }
  bool Expect(absl::string_view punct) {
    if (!ok()) return false;
    if (Accept(punct)) return true;
    return Fail(absl::StrCat("expected '", punct, "'"));
  }
  bool ExpectWord(absl::string_view word) {
    if (!ok()) return false;
    if (AcceptWord(word)) return true;
    return Fail(absl::StrCat("expected '", word, "'"));
  }
  bool PeekName() const { return Cur().kind == Tok::kIdent || Cur().kind == Tok::kName; }
  std::string TakeName() {
    if (!PeekName()) {
      Fail("expected a name");
      return "";
    }
    std::string n = Cur().text;
    Advance();
    return n;
  }
  bool TakeInt(int64_t* value) {
    bool negative = Accept("-");
    if (Cur().kind != Tok::kNumber || !absl::SimpleAtoi(Cur().text, value)) {
      return Fail("expected an integer");
    }
    if (negative) *value = -*value;
    Advance();
    return true;
  }
  std::string TakeString() {
    if (Cur().kind != Tok::kString) {
      Fail("expected a \"string\"");
      return "";
    }
    std::string s = Cur().text;
    Advance();
    return s;
  }
  DataType TakeType() {
    if (Cur().kind == Tok::kIdent) {
      const Token where = Cur();
      std::string text = Cur().text;
      Advance();
      if (Peek("*")) {
        Advance();
        text.push_back('*');
      }
      if (std::optional<DataType> t = ParseDataType(text)) return *t;
      if (ok()) status_ = Lexer::Error(where, absl::StrCat("unknown type ", text));
      return DataType();
    }
    Fail("expected a type");
    return DataType();
  }

  // The factory's result, or a failure at the current token.
  template <typename T>
  T Take(absl::StatusOr<T> made) {
    if (!made.ok()) {
      if (ok()) status_ = Lexer::Error(Cur(), made.status().message());
      return T();
    }
    return *std::move(made);
  }

  // ---- Scopes ----
  void Declare(const std::string& name, const Expr& e) {
    scopes_.back()[name] = e;
    function_names_[name] = e;
  }
  // The declaration `name` refers to; an error at `where` (the name's token) when none.
  Expr Lookup(const std::string& name, const Token& where) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    if (ok()) status_ = Lexer::Error(where, absl::StrCat("unknown name ", name));
    return Expr();
  }
  // Reads a name and looks it up.
  Expr TakeReference() {
    const Token where = Cur();
    return Lookup(TakeName(), where);
  }

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

  // `[f32 x d0, d1]`, declaring nothing.
  // `workspace { [bytes E] (buffer T bytes E live FIRST LAST)* }`, after the entry function,
  // whose declarations it names.
  void ParseWorkspace(Module& m) {
    Advance();
    if (!Expect("{")) return;
    scopes_.emplace_back();
    for (const auto& [name, e] : entry_names_) scopes_.back()[name] = e;
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
    scopes_.pop_back();
    Expect("}");
  }

  Expr ParseTensorType(const std::string& name) {
    if (!Expect("[")) return Expr();
    DataType element = TakeType();
    std::vector<Expr> dims;
    if (AcceptWord("x")) {
      do {
        dims.push_back(ParseExpr());
      } while (ok() && Accept(","));
    }
    if (!Expect("]")) return Expr();
    return Take(MakeTensor(name, element, std::move(dims)));
  }

  Function ParseFunctionDef() {
    Function f;
    function_names_.clear();
    if (!ExpectWord("func")) return f;
    f.name = TakeName();
    if (!Expect("(")) return f;
    scopes_.emplace_back();
    while (ok() && !Peek(")")) {
      const std::string name = TakeName();
      if (!Expect(":")) break;
      Expr p = Peek("[") ? ParseTensorType(name) : Take(MakeVar(name, TakeType()));
      if (!ok()) break;
      Declare(name, p);
      f.params.push_back(p);
      if (!Peek(")")) Expect(",");
    }
    Expect(")");
    if (Expect("->")) f.ret = TakeType();
    if (AcceptWord("attrs")) {
      Expect("(");
      while (ok() && !Peek(")")) {
        std::string key = TakeName();
        Expect("=");
        f.attrs.emplace_back(std::move(key), TakeString());
        if (!Peek(")")) Expect(",");
      }
      Expect(")");
    }
    f.body = ParseBlock();
    scopes_.pop_back();
    return f;
  }

  // ---- Statements ----
  Stmt ParseBlock() {
    if (!Expect("{")) return Stmt();
    scopes_.emplace_back();
    std::vector<Stmt> stmts;
    while (ok() && !Peek("}")) {
      if (Cur().kind == Tok::kEnd) {
        Fail("expected '}'");
        break;
      }
      Stmt s = ParseStmt();
      if (ok()) stmts.push_back(std::move(s));
    }
    Expect("}");
    scopes_.pop_back();
    return MakeBlock(std::move(stmts));
  }

  Stmt ParseStmt() {
    if (Peek("{")) return ParseBlock();
    if (Cur().kind == Tok::kComment) {
      std::string text = Cur().text;
      Advance();
      return MakeComment(std::move(text));
    }
    if (AcceptWord("var")) {
      const std::string name = TakeName();
      if (!Expect(":")) return Stmt();
      Expr v = Take(MakeVar(name, TakeType()));
      Expr init;
      if (Accept("=")) init = ParseExpr();
      if (!ok()) return Stmt();
      Declare(name, v);
      return Take(MakeDefine(v, init));
    }
    if (AcceptWord("tensor")) {
      const std::string name = TakeName();
      if (!Expect(":")) return Stmt();
      Expr t = ParseTensorType(name);
      TensorAttrs attrs;
      if (AcceptWord("view")) attrs.view_of = TakeReference();
      if (AcceptWord("at")) attrs.offset = ParseExpr();
      if (AcceptWord("dynamic")) attrs.dynamic = true;
      if (!ok()) return Stmt();
      Declare(name, t);
      return Take(MakeDefine(t, Expr(), attrs));
    }
    if (AcceptWord("if")) {
      if (!Expect("(")) return Stmt();
      Expr cond = ParseExpr();
      if (!Expect(")")) return Stmt();
      Stmt then_body = ParseBlock();
      Stmt else_body;
      if (AcceptWord("else")) else_body = ParseBlock();
      if (!ok()) return Stmt();
      return Take(MakeIfElse(cond, then_body, else_body));
    }
    if (AcceptWord("for")) {
      const std::string name = TakeName();
      if (!ExpectWord("in") || !Expect("(")) return Stmt();
      Expr begin = ParseExpr();
      Expect(",");
      Expr end = ParseExpr();
      Expect(",");
      Expr step = ParseExpr();
      if (!Expect(")")) return Stmt();
      ForAttrs attrs;
      while (ok()) {
        if (AcceptWord("parallel")) {
          attrs.parallel = true;
        } else if (PeekWord("vectorize") || PeekWord("unroll")) {
          const bool vectorize = Cur().text == "vectorize";
          Advance();
          int64_t n;
          if (!Expect("(") || !TakeInt(&n) || !Expect(")")) return Stmt();
          (vectorize ? attrs.vectorize : attrs.unroll) = static_cast<int>(n);
        } else {
          break;
        }
      }
      Expr var = Take(MakeVar(name, DataType::Index()));
      scopes_.emplace_back();
      Declare(name, var);
      Stmt body = ParseBlock();
      scopes_.pop_back();
      if (!ok()) return Stmt();
      return Take(MakeFor(var, begin, end, step, body, attrs));
    }
    if (AcceptWord("evaluate")) {
      Expr e = ParseExpr();
      if (!ok()) return Stmt();
      return Take(MakeEvaluate(e));
    }
    if (AcceptWord("return")) {
      Expr e;
      if (!Peek("}")) e = ParseExpr();
      if (!ok()) return Stmt();
      return Take(MakeReturn(e));
    }
    if (AcceptWord("assert")) {
      if (!Expect("(")) return Stmt();
      Expr cond = ParseExpr();
      Expect(",");
      std::string message = TakeString();
      if (!Expect(")")) return Stmt();
      return Take(MakeAssert(cond, std::move(message)));
    }
    // Assignment or store.
    Expr target = TakeReference();
    if (!ok()) return Stmt();
    if (Accept("[")) {
      std::vector<Expr> indices = ParseIndexList();
      if (!Expect("]") || !Expect("=")) return Stmt();
      Expr value = ParseExpr();
      if (!ok()) return Stmt();
      return Take(MakeStore(target, std::move(indices), value));
    }
    if (!Expect("=")) return Stmt();
    Expr value = ParseExpr();
    if (!ok()) return Stmt();
    return Take(MakeAssign(target, value));
  }

  std::vector<Expr> ParseIndexList() {
    std::vector<Expr> indices;
    if (Peek("]")) return indices;
    do {
      indices.push_back(ParseExpr());
    } while (ok() && Accept(","));
    return indices;
  }

  // ---- Expressions ----
  Expr ParseExpr() { return ParseBinary(1); }

  static int BinaryPrecedence(const Token& t, ExprKind* kind) {
    if (t.kind != Tok::kPunct) return 0;
    struct Op {
      const char* text;
      ExprKind kind;
      int precedence;
    };
    static constexpr Op kOps[] = {
        {"||", ExprKind::kOr, 1},    {"&&", ExprKind::kAnd, 2},   {"==", ExprKind::kCmpEq, 3},
        {"!=", ExprKind::kCmpNe, 3}, {"<", ExprKind::kCmpLt, 4},  {"<=", ExprKind::kCmpLe, 4},
        {">", ExprKind::kCmpGt, 4},  {">=", ExprKind::kCmpGe, 4}, {"+", ExprKind::kAdd, 5},
        {"-", ExprKind::kSub, 5},    {"*", ExprKind::kMul, 6},    {"/", ExprKind::kDiv, 6},
        {"%", ExprKind::kMod, 6}};
    for (const Op& op : kOps) {
      if (t.text == op.text) {
        *kind = op.kind;
        return op.precedence;
      }
    }
    return 0;
  }

  Expr ParseBinary(int min_precedence) {
    Expr left = ParseUnary();
    while (ok()) {
      ExprKind kind;
      const int p = BinaryPrecedence(Cur(), &kind);
      if (p == 0 || p < min_precedence) break;
      Advance();
      Expr right = ParseBinary(p + 1);
      if (!ok()) break;
      left = Take(MakeBinary(kind, left, right));
    }
    return left;
  }

  Expr ParseUnary() {
    if (Peek("-")) {
      // A negative literal is a constant, not a negation.
      if (At(1).kind == Tok::kNumber || (At(1).kind == Tok::kIdent && At(1).text == "inf")) {
        Advance();
        return ParseNumber(/*negative=*/true);
      }
      Advance();
      Expr a = ParseUnary();
      if (!ok()) return Expr();
      return Take(MakeUnary(ExprKind::kNeg, a));
    }
    if (Accept("!")) {
      Expr a = ParseUnary();
      if (!ok()) return Expr();
      return Take(MakeUnary(ExprKind::kNot, a));
    }
    return ParsePrimary();
  }

  // A literal: 3 (index), 1.5f (f32), 7:s32, 0.5:f64, nan:f32, inf:f16, true, false.
  Expr ParseNumber(bool negative) {
    const Token t = Cur();
    Advance();
    std::string text = t.text;
    bool f32 = false;
    if (t.kind == Tok::kNumber && !text.empty() && text.back() == 'f') {
      f32 = true;
      text.pop_back();
    }
    std::optional<DataType> type;
    if (f32) {
      type = DataType::F32();
    } else if (Peek(":") && At(1).kind == Tok::kIdent && ParseDataType(At(1).text)) {
      Advance();
      type = ParseDataType(Cur().text);
      Advance();
    } else if (t.kind == Tok::kIdent) {
      Fail(absl::StrCat(t.text, " needs a type: ", t.text, ":f32"));
      return Expr();
    } else {
      type = DataType::Index();
    }
    if (type->is_float()) {
      double v;
      if (text == "nan") {
        v = std::numeric_limits<double>::quiet_NaN();
      } else if (text == "inf") {
        v = std::numeric_limits<double>::infinity();
      } else if (!absl::SimpleAtod(text, &v)) {
        Fail(absl::StrCat("bad number ", text));
        return Expr();
      }
      return Take(MakeFloatConstant(*type, negative ? -v : v));
    }
    if (type->kind() == ScalarKind::kU64) {
      uint64_t u;
      if (!absl::SimpleAtoi(text, &u)) {
        Fail(absl::StrCat("bad integer ", text));
        return Expr();
      }
      return Take(MakeIntConstant(*type, static_cast<int64_t>(negative ? 0 - u : u)));
    }
    int64_t v;
    // INT64_MIN reads as "-9223372036854775808": parse with the sign.
    if (!absl::SimpleAtoi(negative ? "-" + text : text, &v)) {
      Fail(absl::StrCat("bad integer ", text));
      return Expr();
    }
    return Take(MakeIntConstant(*type, v));
  }

  std::vector<Expr> ParseArgs() {
    std::vector<Expr> args;
    if (!Expect("(")) return args;
    while (ok() && !Peek(")")) {
      args.push_back(ParseExpr());
      if (!Peek(")")) Expect(",");
    }
    Expect(")");
    return args;
  }

  Expr ParsePrimary() {
    if (!ok()) return Expr();
    if (Cur().kind == Tok::kNumber) return ParseNumber(false);
    if (Accept("(")) {
      Expr e = ParseExpr();
      Expect(")");
      return e;
    }
    if (Accept("&")) {
      Expr t = TakeReference();
      if (!Expect("[")) return Expr();
      std::vector<Expr> indices = ParseIndexList();
      if (!Expect("]")) return Expr();
      return Take(MakeTensorPtr(t, std::move(indices)));
    }
    if (Cur().kind == Tok::kIdent) {
      const std::string word = Cur().text;
      const bool call = At(1).kind == Tok::kPunct && (At(1).text == "(" || At(1).text == "<");
      if (word == "true" || word == "false") {
        Advance();
        return BoolConst(word == "true");
      }
      if (word == "nan" || word == "inf") return ParseNumber(false);
      if (call && word == "cast") {
        Advance();
        Expect("<");
        DataType type = TakeType();
        Expect(">");
        std::vector<Expr> args = ParseArgs();
        if (!ok()) return Expr();
        if (args.size() != 1) return Fail("cast takes one operand"), Expr();
        return Take(MakeCast(type, args[0]));
      }
      if (call && word == "call") {
        Advance();
        Expect("<");
        DataType type = TakeType();
        Expect(">");
        std::string callee = TakeName();
        std::vector<Expr> args = ParseArgs();
        if (!ok()) return Expr();
        return Take(MakeCall(callee, type, std::move(args)));
      }
      if (call && At(1).text == "(") {
        if (word == "broadcast") {
          Advance();
          Expect("(");
          Expr v = ParseExpr();
          Expect(",");
          int64_t lanes;
          if (!TakeInt(&lanes) || !Expect(")")) return Expr();
          return Take(MakeBroadcast(v, static_cast<int>(lanes)));
        }
        ExprKind binary;
        bool is_binary = true;
        if (word == "min") {
          binary = ExprKind::kMin;
        } else if (word == "max") {
          binary = ExprKind::kMax;
        } else if (word == "floordiv") {
          binary = ExprKind::kFloorDiv;
        } else {
          is_binary = false;
        }
        if (is_binary || word == "select") {
          Advance();
          std::vector<Expr> args = ParseArgs();
          if (!ok()) return Expr();
          if (word == "select") {
            if (args.size() != 3) return Fail("select takes three operands"), Expr();
            return Take(MakeSelect(args[0], args[1], args[2]));
          }
          if (args.size() != 2) return Fail(absl::StrCat(word, " takes two operands")), Expr();
          return Take(MakeBinary(binary, args[0], args[1]));
        }
        IntrinsicOp op;
        if (IntrinsicFromName(word, &op)) {
          Advance();
          std::vector<Expr> args = ParseArgs();
          if (!ok()) return Expr();
          return Take(MakeIntrinsic(op, std::move(args)));
        }
      }
    }
    if (PeekName()) {
      Expr e = TakeReference();
      if (!ok()) return Expr();
      if (!Accept("[")) return e;
      std::vector<Expr> indices = ParseIndexList();
      int64_t lanes = 1;
      if (Accept(":") && !TakeInt(&lanes)) return Expr();
      if (!Expect("]")) return Expr();
      return Take(MakeIndexing(e, std::move(indices), static_cast<int>(lanes)));
    }
    Fail("expected an expression");
    return Expr();
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  absl::Status status_;
  std::vector<absl::flat_hash_map<std::string, Expr>> scopes_;
  // Every name the function being parsed declared (the entry binding refers to them).
  absl::flat_hash_map<std::string, Expr> function_names_;
  absl::flat_hash_map<std::string, Expr> entry_names_;
};

}  // namespace

absl::StatusOr<Module> ParseModule(std::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Lexer(text).Run();
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).ParseModule();
}

absl::StatusOr<Expr> ParseExpr(std::string_view text, const std::vector<Expr>& names) {
  absl::StatusOr<std::vector<Token>> tokens = Lexer(text).Run();
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).ParseLoneExpr(names);
}

absl::StatusOr<Function> ParseFunction(std::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Lexer(text).Run();
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).ParseLoneFunction();
}

}  // namespace anvil::tir
