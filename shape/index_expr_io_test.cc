// IndexExpr tests of questionmarks, predicates, kinds, printing, parsing, FromDimParam,
// Evaluate, Symbols and Hash (one-line cases; helpers in index_expr_test_util.h).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "shape/index_expr.h"
#include "shape/index_expr_test_util.h"

namespace anvil::index_expr_test {
namespace {

TEST_F(IndexExprTest, Questionmarks) {
  IndexExpr n = Sym("N");
  const IndexExpr q = IndexExpr::Questionmark();
  const IndexExpr q_copy = q;
  const IndexExpr q2 = IndexExpr::Questionmark();
  auto expect = [](bool v, const Loc& loc = Loc::current()) {
    ++checks;
    if (!v) ADD_FAILURE_AT(loc.file_name(), loc.line()) << "expectation failed";
  };
  expect(q.IsQuestionmark());
  expect(q == q_copy);
  expect(q.Hash() == q_copy.Hash());
  expect(q != q2);
  expect(IndexExpr::Questionmark() != IndexExpr::Questionmark());
  Check(q - q, "0");
  Check(q_copy - q, "0");
  Check((q + 1) - q, "1");
  Check(q * 0, "0");
  Check((q + n) - q, "N");
  Check((q * n) - n * q, "0");
  Check(FloorDiv(q * 2, 2) - q, "0");
  expect((q + n).IsQuestionmark());
  expect((q * n).IsQuestionmark());
  expect(FloorDiv(q, 2).IsQuestionmark());
  expect(FloorDiv(n, q).IsQuestionmark());
  expect(Min(q, n).IsQuestionmark());
  expect(Max(q, 0).IsQuestionmark());
  expect(FloorDiv(q, 2) == FloorDiv(q, 2));
  expect(FloorDiv(q, 2) != FloorDiv(q2, 2));
  expect(Min(q, n) == Min(n, q));
  expect(Min(q, q) == q);
  expect(q + 1 != q2 + 1);
  expect((q + n) - n == q);
  expect((q + n).kind() == IndexExpr::Kind::kQuestionmark);
  CheckPrint(q, "?");
  CheckPrint(q + n * 2, "?");
  CheckPrint(Max(q, n), "?");
  CheckPred(Eq(q, q_copy), "true");
  CheckPred(Eq(q, q2), "?");
  CheckPred(Eq(q + 1, q), "false");
  CheckPred(Lt(q, q + 1), "true");
  CheckPred(Lt(q, 0), "?");  // a questionmark is not assumed to be a valid dim
  expect(!q.Evaluate([](std::string_view) { return int64_t{1}; }).has_value());
  expect((q + n).Symbols() == std::vector<std::string>{"N"});
  expect(q.Symbols().empty());
  expect(DimsToString({n, q, 3}) == "[N, ?, 3]");
  absl::StatusOr<IndexExpr> p1 = IndexExpr::Parse("?"), p2 = IndexExpr::Parse("?");
  expect(p1.ok() && p2.ok() && p1->IsQuestionmark() && *p1 != *p2);
  expect(IndexExpr::FromDimParam("?").IsQuestionmark());
}

TEST_F(IndexExprTest, Predicates) {
  auto expect = [](bool v, const Loc& loc = Loc::current()) {
    ++checks;
    if (!v) ADD_FAILURE_AT(loc.file_name(), loc.line()) << "expectation failed";
  };
  const IndexExpr t = IndexExpr::Predicate(true), f = IndexExpr::Predicate(false),
                  u = IndexExpr::UnknownPredicate();
  expect(t.IsPredicate() && t.IsKnown() && t.literal() == 1);
  expect(f.IsPredicate() && f.IsKnown() && f.literal() == 0);
  expect(u.IsPredicate() && !u.IsKnown());
  expect(t == IndexExpr::Predicate(true));
  expect(t != f);
  expect(u == IndexExpr::UnknownPredicate());
  expect(t != IndexExpr(1));
  expect(t.Hash() == Eq(3, 3).Hash());
  CheckPrint(t, "true");
  CheckPrint(f, "false");
  CheckPrint(u, "?");
  expect(t.Evaluate(nullptr) == 1);
  expect(f.Evaluate(nullptr) == 0);
  expect(!u.Evaluate(nullptr).has_value());
  expect(!t.IsAffine());
  expect(IndexExpr(3).IsKnown() && !Sym("N").IsKnown());
}

TEST_F(IndexExprTest, Kinds) {
  using K = IndexExpr::Kind;
  CheckKind("3", K::kLiteral);
  CheckKind("N - N + 3", K::kLiteral);
  CheckKind("N", K::kSymbol);
  CheckKind("N + 1 - 1", K::kSymbol);
  CheckKind("2*N - N", K::kSymbol);
  CheckKind("N*M - M*N + N", K::kSymbol);
  CheckKind("floor(2*N / 2)", K::kSymbol);
  CheckKind("min(N, 2147483647)", K::kSymbol);
  CheckKind("N + 1", K::kAffine);
  CheckKind("2*N", K::kAffine);
  CheckKind("-N", K::kAffine);
  CheckKind("N + M", K::kAffine);
  CheckKind("3*a - 2*b + 7", K::kAffine);
  CheckKind("N*M", K::kNonAffine);
  CheckKind("N*N", K::kNonAffine);
  CheckKind("floor(N / 2)", K::kNonAffine);
  CheckKind("N + floor(N / 2)", K::kNonAffine);
  CheckKind("min(N, 5)", K::kNonAffine);
  CheckKind("max(N, M) + 1", K::kNonAffine);
  CheckKind("N % 3", K::kNonAffine);
  CheckKind("?", K::kQuestionmark);
  CheckKind("? + N", K::kQuestionmark);
  CheckKind("floor(N / (? + 1))", K::kQuestionmark);
  CheckKind("min(N, max(?, 2))", K::kQuestionmark);
  ++checks;
  EXPECT_TRUE(IndexExpr(3).IsAffine() && Sym("N").IsAffine() && (Sym("N") + 1).IsAffine());
  ++checks;
  EXPECT_FALSE((Sym("N") * Sym("M")).IsAffine());
  ++checks;
  EXPECT_EQ(IndexExpr().kind(), K::kUndefined);
  ++checks;
  EXPECT_EQ(Eq(3, 3).kind(), K::kPredicate);
}

TEST_F(IndexExprTest, Printing) {
  IndexExpr n = Sym("N"), m = Sym("M"), h = Sym("H");
  CheckPrint(IndexExpr(0), "0");
  CheckPrint(IndexExpr(-5), "-5");
  CheckPrint(IndexExpr(kMin64), "-9223372036854775808");
  CheckPrint(IndexExpr(kMax64), "9223372036854775807");
  CheckPrint(n, "N");
  CheckPrint(n * 2 + m - 1, "M + 2*N - 1");
  CheckPrint(-n + 3, "-N + 3");
  CheckPrint(-n * 2 - 3, "-2*N - 3");
  CheckPrint(n * m, "M*N");
  CheckPrint(-(n * m), "-M*N");
  CheckPrint(n * m * 2 + 1, "2*M*N + 1");
  CheckPrint(n - m, "-M + N");
  CheckPrint(FloorDiv(h - 1, 2) + 1, "floor((H - 1) / 2) + 1");
  CheckPrint(FloorDiv(h, 2), "floor(H / 2)");
  CheckPrint(FloorDiv(n * 2, 3), "floor(2*N / 3)");
  CheckPrint(FloorDiv(n * m, 3), "floor(M*N / 3)");
  CheckPrint(FloorDiv(n, m * 2), "floor(N / (2*M))");
  CheckPrint(FloorDiv(n, m + 1), "floor(N / (M + 1))");
  CheckPrint(FloorDiv(n, m * n), "floor(N / (M*N))");
  CheckPrint(FloorDiv(-n, m), "floor(-N / M)");
  CheckPrint(FloorDiv(IndexExpr(3), n), "floor(3 / N)");
  CheckPrint(FloorDiv(n, FloorDiv(m, 2)), "floor(N / floor(M / 2))");
  CheckPrint(CeilDiv(n, 4), "floor((N - 1) / 4) + 1");
  CheckPrint(Min(n, 5), "min(N, 5)");
  CheckPrint(Max(n + 1, m * 2), "max(2*M, N + 1)");
  CheckPrint(Min(FloorDiv(n, 2), m) + Max(n, 3) * 2, "min(M, floor(N / 2)) + 2*max(N, 3)");
  CheckPrint(Min({n, m, n + m}), "min(M, N)");
  CheckPrint(Max(Min(n, 4), 2) - 1, "max(min(N, 4), 2) - 1");
  CheckPrint(n * kMin64, "-9223372036854775807*N - N");
  CheckPrint(n * kMin64 + m, "M - 9223372036854775807*N - N");
  CheckPrint(m * kMin64 + n * kMax64, "-9223372036854775807*M - M + 9223372036854775807*N");
  CheckPrint(n + kMin64, "N - 9223372036854775807 - 1");
  CheckPrint(n + kMax64, "N + 9223372036854775807");
  CheckPrint(Min(n + kMin64, m), "min(M, N - 9223372036854775807 - 1)");
  CheckPrint(Sym("batch size"), "batch size");
  CheckPrint(Sym("batch size") + 1, "`batch size` + 1");
  CheckPrint(FloorDiv(Sym("a b"), 2), "floor(`a b` / 2)");
  CheckPrint(Sym("2x") * n, "`2x`*N");
  CheckPrint(Sym("floor") * 2, "2*floor");
  CheckPrint(Sym("min") + Sym("max"), "max + min");
  CheckPrint(Min(Sym("min"), Sym("max")), "min(max, min)");
  CheckPrint(Sym("unk__3") + Sym("_x"), "_x + unk__3");
  CheckPrint(n * n * n - n, "N*N*N - N");
  CheckPrint(FloorDiv(n * n + 1, 2), "floor((N*N - 1) / 2) + 1");
  CheckPrint(Mod(n, 3), "N - 3*floor(N / 3)");
  CheckPrint(Mod(n, m), "-M*floor(N / M) + N");
  ++checks;
  EXPECT_EQ(DimsToString({n, 3, FloorDiv(h, 2)}), "[N, 3, floor(H / 2)]");
  ++checks;
  EXPECT_EQ(DimsToString({}), "[]");
  ++checks;
  EXPECT_EQ(DimsToString({IndexExpr(), Eq(n, n)}), "[<undefined>, true]");
}

TEST_F(IndexExprTest, Parsing) {
  Check("  N  +  1 ", "N + 1");
  Check("\tN*\tM", "M*N");
  Check("((((N))))", "N");
  Check("N*(M+1)", "M*N + N");
  Check("2*3*N", "6*N");
  Check("N - -1", "N + 1");
  Check("N - - M", "M + N");
  Check("-N*M", "-M*N");
  Check("-2*N", "-2*N");
  Check("- 2 * N", "-2*N");
  Check("-(2*N)", "-2*N");
  Check("1 - N*2", "-2*N + 1");
  Check("N % 3 * 3", "3*N - 9*floor(N / 3)");
  Check("N + M % 2", "M + N - 2*floor(M / 2)");
  Check("floor( N / 2 )", "floor(N / 2)");
  Check("floor(N+1/2)", "floor((N - 1) / 2) + 1");  // the '/' of floor() ends its numerator
  Check("ceil((N) / (2))", "floor((N - 1) / 2) + 1");
  Check("min(N,M,3)", "min(M, N, 3)");
  Check("max( N , 1 )", "max(N, 1)");
  Check("min", "min");  // keywords are names unless called
  Check("floor", "floor");
  Check("floor + ceil", "ceil + floor");
  Check("max * 2", "2*max");
  Check("`a b` + `a b`", "2*`a b`");
  Check("`N`", "N");
  Check("`x-y` - `x-y`", "0");
  Check("_", "_");
  Check("x1*x2", "x1*x2");
  Check("00012", "12");
  CheckParseError("", 1, "expected an expression");
  CheckParseError("   ", 4, "expected an expression");
  CheckParseError("N +", 4, "expected an expression");
  CheckParseError("(N", 3, "expected ')'");
  CheckParseError("floor(N)", 8, "expected '/'");
  CheckParseError("floor(N / 2", 12, "expected ')'");
  CheckParseError("N $ M", 3, "unexpected '$'");
  CheckParseError("2N", 2, "unexpected 'N'");
  CheckParseError("N M", 3, "unexpected 'M'");
  CheckParseError("min()", 5, "expected an expression");
  CheckParseError("min(N,)", 7, "expected an expression");
  CheckParseError("`abc", 1, "unterminated");
  CheckParseError("``", 1, "empty");
  CheckParseError("`  `", 1, "empty");  // blank: a dim_param reads it as unknown
  CheckParseError("N + `\t`", 5, "empty");
  CheckParseError("99999999999999999999", 1, "out of the int64 range");
  CheckParseError("9223372036854775808", 1, "out of the int64 range");
  CheckParseError("N - 9223372036854775808", 5, "out of the int64 range");
  CheckParseError("-9223372036854775809", 2, "out of the int64 range");
  CheckParseError("N / 2", 3, "unexpected '/'");
  CheckParseError("N)", 2, "unexpected ')'");
  CheckParseError("batch size", 7, "unexpected 's'");
  CheckParseError("seq.len", 4, "unexpected '.'");
  CheckParseError(std::string(1000, '(') + "N" + std::string(1000, ')'), 201, "too deeply");
  CheckParseError(std::string(1000, '-') + "N", 201, "too deeply");
  ++checks;
  absl::StatusOr<IndexExpr> zero_div = IndexExpr::Parse("N % 0");
  EXPECT_FALSE(zero_div.ok());
  EXPECT_NE(std::string(zero_div.status().message()).find("division by zero"), std::string::npos);
  ++checks;
  EXPECT_FALSE(IndexExpr::Parse("9223372036854775807 + 1").ok());
}

TEST_F(IndexExprTest, FromDimParam) {
  auto expect_symbol = [](std::string_view text, const Loc& loc = Loc::current()) {
    ++checks;
    IndexExpr e = IndexExpr::FromDimParam(text);
    if (!e.IsSymbol() || e.ToString() != text || e != IndexExpr::Symbol(text)) {
      ADD_FAILURE_AT(loc.file_name(), loc.line()) << text << " read as " << e.ToString();
    }
  };
  expect_symbol("batch");
  expect_symbol("batch size");
  expect_symbol("unk__3");
  expect_symbol("N % 0");
  expect_symbol("a.b");
  expect_symbol("input.1_dim_0");
  expect_symbol("dim(0)");
  expect_symbol("floor(N)");
  expect_symbol("9223372036854775808");
  Check(IndexExpr::FromDimParam("N + 1"), "N + 1");
  Check(IndexExpr::FromDimParam("2*N"), "2*N");
  Check(IndexExpr::FromDimParam("3"), "3");
  Check(IndexExpr::FromDimParam("floor(H / 2)"), "floor(H / 2)");
  Check(IndexExpr::FromDimParam("seq-len"), "-len + seq");  // the printed form wins
  // A symbol whose name parses as an expression (only backquotes make one) prints backquoted,
  // so that its printed form reads back as the symbol (found by //fuzz:dim_expr_fuzzer).
  {
    absl::StatusOr<IndexExpr> product_symbol = IndexExpr::Parse("`a*b`*1");
    ++checks;
    ASSERT_TRUE(product_symbol.ok());
    Check(*product_symbol, "`a*b`");
    ++checks;
    EXPECT_TRUE(IndexExpr::FromDimParam(product_symbol->ToString()) == *product_symbol);
  }
  ++checks;
  EXPECT_TRUE(IndexExpr::FromDimParam("").IsQuestionmark());
  ++checks;
  EXPECT_TRUE(IndexExpr::FromDimParam("  ").IsQuestionmark());
  ++checks;
  EXPECT_TRUE(IndexExpr::FromDimParam("batch") == IndexExpr::FromDimParam("batch"));
  ++checks;
  EXPECT_TRUE(IndexExpr::FromDimParam("2*N + 1") ==
              IndexExpr::FromDimParam("N + 1") + IndexExpr::FromDimParam("N"));
}

TEST_F(IndexExprTest, EvaluateSymbolsHash) {
  const std::map<std::string, int64_t> v = {{"N", 3}, {"M", 4}, {"H", 7}, {"Z", 0}};
  auto expect = [](bool b, const Loc& loc = Loc::current()) {
    ++checks;
    if (!b) ADD_FAILURE_AT(loc.file_name(), loc.line()) << "expectation failed";
  };
  expect(Eval("2*N + M - 1", v) == 9);
  expect(Eval("N*M*H", v) == 84);
  expect(Eval("floor((H - 1) / 2) + 1", v) == 4);
  expect(Eval("ceil(H / 2)", v) == 4);
  expect(Eval("H % 4", v) == 3);
  expect(Eval("min(N, M, H)", v) == 3);
  expect(Eval("max(N, M, H)", v) == 7);
  expect(Eval("floor(H / M)", v) == 1);
  expect(Eval("floor(-H / M)", v) == -2);
  expect(Eval("-N + 3", v) == 0);
  expect(Eval("42", v) == 42);
  // Parts of the canonical form exceed int64 (17179869178*floor(...) at C = 0), the value fits.
  expect(Eval("(2147483646 % (C + 2)) % 17179869179", {{"C", 0}}) == 0);
  expect(Eval("(2147483646 % (C + 2)) % 17179869179", {{"C", 1}}) == 0);
  expect(Eval("(2147483646 % (C + 2)) % 17179869179", {{"C", 2}}) == 2);
  expect(Eval("4611686018427387904*N - 4611686018427387904*M", {{"N", 3}, {"M", 2}}) == int64_t{1}
                                                                                            << 62);
  expect(!Eval("4611686018427387904*N - 4611686018427387904*M", {{"N", 3}, {"M", 0}}));
  expect(!Eval("N + Q", v).has_value());
  expect(!Eval("floor(N / Z)", v).has_value());
  expect(!Eval("N % Z", v).has_value());
  expect(
      !Eval("N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*N*"
            "N*N*N",
            v)
           .has_value());  // 3^45 overflows
  expect(Eval("min(N, 2147483647)", {{"N", int64_t{1} << 40}}) == int64_t{1} << 40);
  expect(IndexExpr::Undefined("x").Evaluate([](std::string_view) { return 1; }) == std::nullopt);
  expect(ParseOrDie("floor(N / M) + min(K, a) + max(b, N)", Loc::current()).Symbols() ==
         std::vector<std::string>{"K", "M", "N", "a", "b"});
  expect(Sym("N").Symbols() == std::vector<std::string>{"N"});
  expect(IndexExpr(3).Symbols().empty());
  expect(IndexExpr().Symbols().empty());
  expect(ParseOrDie("N*N*floor(N / 2)", Loc::current()).Symbols() == std::vector<std::string>{"N"});
  expect(ParseOrDie("M + N", Loc::current()).Hash() == ParseOrDie("N + M", Loc::current()).Hash());
  expect(IndexExpr(3).Hash() == (IndexExpr(1) + 2).Hash());
  expect(IndexExpr(3).Hash() != Eq(3, 3).Hash() || IndexExpr(3) != Eq(3, 3));
  expect(Sym("N").Hash() == (Sym("N") * 2 - Sym("N")).Hash());
  expect(FloorDiv(Sym("N"), 2).Hash() == FloorDiv(Sym("N") * 2, 4).Hash());
  expect(Sym("N") == IndexExpr::Symbol(std::string("N")));
  expect(Sym("N") != Sym("n"));
  expect(Sym("N") != IndexExpr(0));
  expect(Sym("N") + 1 != Sym("N") + 2);
  expect(IndexExpr(7) == 7);
}
}  // namespace
}  // namespace anvil::index_expr_test
