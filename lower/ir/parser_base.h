// The Tensor IR text parser's foundation (private to //lower:ir; parser.h is the interface): the
// lexer, and ParserBase, the token cursor, first-error status and name scopes that the
// expression, statement and module parts (parser_expr.h, parser_stmt.h, parser.cc) build on.
//
// Contracts:
//  - Tokenize never fails but on an unterminated quote. Comments (`# ...`) and blanks are
//    skipped; `// text` is a token of its own (the Comment statement); names in backquotes and
//    strings in double quotes come unquoted and unescaped (`\n` is a newline, `\x` is x). The
//    last token is always kEnd.
//  - Errors are InvalidArgument "tir:LINE:COLUMN: what", LINE and COLUMN of the token at fault.
//  - A ParserBase keeps the first error only: once status() is not ok, every Expect*/Take* fails
//    without changing it and the parse unwinds with default-constructed results, so the parts
//    check ok() where a half-built node must not be made.
#ifndef ANVIL_LOWER_IR_PARSER_BASE_H_
#define ANVIL_LOWER_IR_PARSER_BASE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lower/ir/expr.h"
#include "lower/ir/type.h"

namespace anvil::tir::parser_internal {

enum class Tok { kEnd, kIdent, kName, kNumber, kString, kPunct, kComment };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  // identifier, unquoted name or string, number, punctuation
  int line = 1;
  int column = 1;
};

// The tokens of `text`, ending with a kEnd token.
absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text);

// "tir:LINE:COLUMN: what" at token `t`.
absl::Status TokenError(const Token& t, absl::string_view what);

class ParserBase {
 public:
  // `tokens` as Tokenize returns them (non-empty, ending with kEnd).
  explicit ParserBase(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

 protected:
  // ---- Tokens ----
  const Token& Cur() const { return tokens_[pos_]; }
  // The token `k` ahead of the current one (the kEnd token past the end).
  const Token& At(size_t k) const;
  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }
  void Advance() {
    if (pos_ + 1 < tokens_.size()) ++pos_;
  }
  // Records an error at the current token (or at `where`) unless there is one; false.
  bool Fail(absl::string_view what) { return FailAt(Cur(), what); }
  bool FailAt(const Token& where, absl::string_view what);
  bool Peek(absl::string_view punct) const {
    return Cur().kind == Tok::kPunct && Cur().text == punct;
  }
  bool PeekWord(absl::string_view word) const {
    return Cur().kind == Tok::kIdent && Cur().text == word;
  }
  bool PeekName() const { return Cur().kind == Tok::kIdent || Cur().kind == Tok::kName; }
  bool Accept(absl::string_view punct);
  bool AcceptWord(absl::string_view word);
  bool Expect(absl::string_view punct);
  bool ExpectWord(absl::string_view word);
  // Readers of one token (two for a pointer type `T*`, a negative integer `-3`): the value, or
  // a failure and an empty value.
  std::string TakeName();
  bool TakeInt(int64_t* value);
  std::string TakeString();
  DataType TakeType();

  // The factory's result, or a failure at the current token.
  template <typename T>
  T Take(absl::StatusOr<T> made) {
    if (!made.ok()) {
      FailAt(Cur(), made.status().message());
      return T();
    }
    return *std::move(made);
  }

  // ---- Scopes ----
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  // Declares `name` in the innermost scope and records it as a name of the current function.
  void Declare(const std::string& name, const Expr& e) {
    scopes_.back()[name] = e;
    function_names_[name] = e;
  }
  // Makes `name` visible in the innermost scope only (names of another function).
  void Bind(const std::string& name, const Expr& e) { scopes_.back()[name] = e; }
  // The declaration `name` refers to; an error at `where` (the name's token) when none.
  Expr Lookup(const std::string& name, const Token& where);
  // Reads a name and looks it up.
  Expr TakeReference() {
    const Token where = Cur();
    return Lookup(TakeName(), where);
  }
  // Every name the function being parsed declared (the entry binding refers to them).
  const absl::flat_hash_map<std::string, Expr>& function_names() const { return function_names_; }
  void ClearFunctionNames() { function_names_.clear(); }

 private:
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  absl::Status status_;
  std::vector<absl::flat_hash_map<std::string, Expr>> scopes_;
  absl::flat_hash_map<std::string, Expr> function_names_;
};

}  // namespace anvil::tir::parser_internal

#endif  // ANVIL_LOWER_IR_PARSER_BASE_H_
