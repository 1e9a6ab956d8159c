#include "lower/ir/parser_base.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace anvil::tir::parser_internal {
namespace {

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
          if (pos_ >= text_.size()) return TokenError(t, "unterminated quote");
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

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(std::string_view text) { return Lexer(text).Run(); }

absl::Status TokenError(const Token& t, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("tir:", t.line, ":", t.column, ": ", what));
}

const Token& ParserBase::At(size_t k) const {
  return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
}

bool ParserBase::FailAt(const Token& where, absl::string_view what) {
  if (ok()) status_ = TokenError(where, what);
  return false;
}

bool ParserBase::Accept(absl::string_view punct) {
  if (!Peek(punct)) return false;
  Advance();
  return true;
}

bool ParserBase::AcceptWord(absl::string_view word) {
  if (!PeekWord(word)) return false;
  Advance();
  return true;
}

bool ParserBase::Expect(absl::string_view punct) {
  if (!ok()) return false;
  if (Accept(punct)) return true;
  return Fail(absl::StrCat("expected '", punct, "'"));
}

bool ParserBase::ExpectWord(absl::string_view word) {
  if (!ok()) return false;
  if (AcceptWord(word)) return true;
  return Fail(absl::StrCat("expected '", word, "'"));
}

std::string ParserBase::TakeName() {
  if (!PeekName()) {
    Fail("expected a name");
    return "";
  }
  std::string n = Cur().text;
  Advance();
  return n;
}

bool ParserBase::TakeInt(int64_t* value) {
  bool negative = Accept("-");
  if (Cur().kind != Tok::kNumber || !absl::SimpleAtoi(Cur().text, value)) {
    return Fail("expected an integer");
  }
  if (negative) *value = -*value;
  Advance();
  return true;
}

std::string ParserBase::TakeString() {
  if (Cur().kind != Tok::kString) {
    Fail("expected a \"string\"");
    return "";
  }
  std::string s = Cur().text;
  Advance();
  return s;
}

DataType ParserBase::TakeType() {
  if (Cur().kind == Tok::kIdent) {
    const Token where = Cur();
    std::string text = Cur().text;
    Advance();
    if (Peek("*")) {
      Advance();
      text.push_back('*');
    }
    if (std::optional<DataType> t = ParseDataType(text)) return *t;
    FailAt(where, absl::StrCat("unknown type ", text));
    return DataType();
  }
  Fail("expected a type");
  return DataType();
}

Expr ParserBase::Lookup(const std::string& name, const Token& where) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  FailAt(where, absl::StrCat("unknown name ", name));
  return Expr();
}

}  // namespace anvil::tir::parser_internal
