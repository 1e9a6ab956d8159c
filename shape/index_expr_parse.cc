// Parsing of the printed form of IndexExpr (index_expr_print.cc), by recursive descent:
//
//   sum     := term (('+' | '-') term)*
//   term    := unary (('*' | '%') unary)*
//   unary   := '-' unary | primary
//   primary := INTEGER | IDENT | `quoted name` | '?' | '(' sum ')'
//            | ('floor' | 'ceil') '(' sum '/' sum ')' | ('min' | 'max') '(' sum (',' sum)* ')'
//
// IDENT is [A-Za-z_][A-Za-z0-9_]*; floor/ceil/min/max are keywords only before '(' (a dim named
// `min` stays a symbol). '?' is a new questionmark. Values are built with IndexExpr's own
// operators, so the result is canonical. A minus directly before an integer literal makes a
// negative literal, which is how -9223372036854775808 parses.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "shape/index_expr.h"
#include "shape/index_expr_internal.h"

namespace anvil {
namespace {

// Deeper nesting than any printed dim is rejected instead of exhausting the stack.
constexpr int kMaxDepth = 200;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<IndexExpr> Run() {
    IndexExpr e;
    if (!ParseSum(&e)) return Failure();
    SkipSpaces();
    if (pos_ != text_.size()) {
      Fail(absl::StrCat("unexpected '", std::string(1, text_[pos_]), "'"));
      return Failure();
    }
    if (e.IsUndefined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"", AsAbsl(text_), "\" is undefined: ", e.undefined_reason()));
    }
    return e;
  }

 private:
  absl::Status Failure() const {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse \"", AsAbsl(text_),
                                                   "\" at column ", error_pos_ + 1, ": ", error_));
  }

  bool Fail(std::string message) {
    if (error_.empty()) {
      error_ = std::move(message);
      error_pos_ = pos_;
    }
    return false;
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }

  // Skips spaces, then consumes `c` if it is next.
  bool Consume(char c) {
    SkipSpaces();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool Expect(char c) {
    if (Consume(c)) return true;
    return Fail(pos_ < text_.size() ? absl::StrCat("expected '", std::string(1, c), "', got '",
                                                   std::string(1, text_[pos_]), "'")
                                    : absl::StrCat("expected '", std::string(1, c), "' at end"));
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }
  static bool IsIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  bool ParseSum(IndexExpr* out) {
    if (++depth_ > kMaxDepth) return Fail("expression nested too deeply");
    IndexExpr acc;
    if (!ParseTerm(&acc)) return false;
    while (true) {
      bool plus = Consume('+');
      if (!plus && !Consume('-')) break;
      IndexExpr rhs;
      if (!ParseTerm(&rhs)) return false;
      acc = plus ? acc + rhs : acc - rhs;
    }
    --depth_;
    *out = std::move(acc);
    return true;
  }

  bool ParseTerm(IndexExpr* out) {
    IndexExpr acc;
    if (!ParseUnary(&acc)) return false;
    while (true) {
      bool times = Consume('*');
      if (!times && !Consume('%')) break;
      IndexExpr rhs;
      if (!ParseUnary(&rhs)) return false;
      acc = times ? acc * rhs : Mod(acc, rhs);
    }
    *out = std::move(acc);
    return true;
  }

  bool ParseUnary(IndexExpr* out) {
    if (!Consume('-')) return ParsePrimary(out);
    SkipSpaces();
    if (pos_ < text_.size() && IsDigit(text_[pos_])) return ParseInteger(/*negative=*/true, out);
    if (++depth_ > kMaxDepth) return Fail("expression nested too deeply");
    IndexExpr operand;
    if (!ParseUnary(&operand)) return false;
    --depth_;
    *out = -operand;
    return true;
  }

  bool ParseInteger(bool negative, IndexExpr* out) {
    const size_t start = pos_;
    uint64_t magnitude = 0;
    const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) {
      uint64_t digit = text_[pos_] - '0';
      if (magnitude > (limit - digit) / 10) {
        pos_ = start;
        return Fail("integer literal out of the int64 range");
      }
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    *out = negative ? IndexExpr(static_cast<int64_t>(0 - magnitude))
                    : IndexExpr(static_cast<int64_t>(magnitude));
    return true;
  }

  bool ParsePrimary(IndexExpr* out) {
    SkipSpaces();
    if (pos_ == text_.size()) return Fail("expected an expression at end");
    const char c = text_[pos_];
    if (IsDigit(c)) return ParseInteger(/*negative=*/false, out);
    if (c == '(') {
      ++pos_;
      if (!ParseSum(out)) return false;
      return Expect(')');
    }
    if (c == '?') {
      ++pos_;
      *out = IndexExpr::Questionmark();
      return true;
    }
    if (c == '`') {
      size_t end = text_.find('`', pos_ + 1);
      if (end == std::string_view::npos) return Fail("unterminated `quoted name`");
      const std::string_view quoted = text_.substr(pos_ + 1, end - pos_ - 1);
      // A blank name is no name: as a dim_param it means "unknown" (FromDimParam), so it cannot
      // be a symbol either, or its printed form would read back as a questionmark.
      if (quoted.find_first_not_of(" \t") == std::string_view::npos) {
        return Fail("empty `quoted name`");
      }
      *out = IndexExpr::Symbol(quoted);
      pos_ = end + 1;
      return true;
    }
    if (!IsIdentStart(c)) {
      return Fail(absl::StrCat("expected an expression, got '", std::string(1, c), "'"));
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && (IsIdentStart(text_[pos_]) || IsDigit(text_[pos_]))) ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    const bool call =
        (name == "floor" || name == "ceil" || name == "min" || name == "max") && Consume('(');
    if (!call) {
      *out = IndexExpr::Symbol(name);
      return true;
    }
    if (name == "floor" || name == "ceil") {
      IndexExpr a, b;
      if (!ParseSum(&a) || !Expect('/') || !ParseSum(&b) || !Expect(')')) return false;
      *out = name == "floor" ? FloorDiv(a, b) : CeilDiv(a, b);
      return true;
    }
    IndexExprList args;
    do {
      IndexExpr arg;
      if (!ParseSum(&arg)) return false;
      args.push_back(std::move(arg));
    } while (Consume(','));
    if (!Expect(')')) return false;
    *out = name == "min" ? Min(args) : Max(args);
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
};

}  // namespace

absl::StatusOr<IndexExpr> IndexExpr::Parse(std::string_view text) { return Parser(text).Run(); }

IndexExpr IndexExpr::FromDimParam(std::string_view text) {
  // An empty (or blank) dim_param names no dim: unknown, and unrelated to any other.
  if (text.find_first_not_of(" \t") == std::string_view::npos) return Questionmark();
  absl::StatusOr<IndexExpr> parsed = Parse(text);
  if (parsed.ok()) return *std::move(parsed);
  return Symbol(text);
}

}  // namespace anvil
