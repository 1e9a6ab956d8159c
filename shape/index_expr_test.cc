// Table-driven tests of IndexExpr simplification, Halide style: `Check(input, expected)` parses
// the input (which canonicalizes it through IndexExpr's own operators) and compares it with the
// expected canonical form, both structurally (operator==) and as printed text. Printing, parsing
// and the other queries are in index_expr_io_test.cc, randomized tests in
// index_expr_random_test.cc.
#include "shape/index_expr.h"

#include <cstdio>

#include "gtest/gtest.h"
#include "shape/index_expr_test_util.h"

namespace anvil::index_expr_test {
namespace {

class CheckCounter : public ::testing::Environment {
 public:
  void TearDown() override { printf("[ index_expr_test ] %d one-line checks\n", checks); }
};
::testing::Environment* const counter = ::testing::AddGlobalTestEnvironment(new CheckCounter);

TEST_F(IndexExprTest, Literals) {
  Check("3", "3");
  Check("1 + 2", "3");
  Check("2 * 3 - 7", "-1");
  Check("-(4)", "-4");
  Check("--4", "4");
  Check("- 4", "-4");
  Check("7 % 3", "1");
  Check("-7 % 3", "2");
  Check("7 % -3", "-2");
  Check("-7 % -3", "-1");
  Check("0 % 5", "0");
  Check("floor(7 / 2)", "3");
  Check("floor(-7 / 2)", "-4");
  Check("floor(7 / -2)", "-4");
  Check("floor(-7 / -2)", "3");
  Check("floor(6 / 3)", "2");
  Check("floor(0 / -3)", "0");
  Check("ceil(7 / 2)", "4");
  Check("ceil(-7 / 2)", "-3");
  Check("ceil(7 / -2)", "-3");
  Check("ceil(-7 / -2)", "4");
  Check("ceil(6 / 3)", "2");
  Check("min(3, 1, 2)", "1");
  Check("max(3, 1, 2)", "3");
  Check("min(-5, 5)", "-5");
  Check("max(7)", "7");
  Check("min(4, 4)", "4");
  Check("(1 + 2) * (3 + 4)", "21");
  Check("1 - 2 - 3", "-4");
  Check("2 * 3 % 4", "2");
  Check("-9223372036854775808", "-9223372036854775808");
  Check("9223372036854775807", "9223372036854775807");
  Check("-9223372036854775807 - 1", "-9223372036854775808");
  Check(IndexExpr(kMax64) + -1, "9223372036854775806");
  Check(CeilDiv(IndexExpr(kMax64), 2), "4611686018427387904");
  Check(FloorDiv(IndexExpr(kMin64), 2), "-4611686018427387904");
  Check(Mod(IndexExpr(kMin64), -1), "0");
  Check(Mod(IndexExpr(kMin64), 3), "1");
  Check(FloorDiv(IndexExpr(kMin64), kMin64), "1");
  Check(CeilDiv(IndexExpr(kMin64), kMax64), "-1");
  Check(IndexExpr(5) * IndexExpr(-3), "-15");
  Check(IndexExpr::Literal(42), "42");
}

TEST_F(IndexExprTest, HeaderExamples) {
  Check("2*N + 1 - N", "N + 1");
  Check("floor((2*N) / 2)", "N");
  Check("floor((2*N + 3) / 2)", "N + 1");
  CheckSame("ceil(a / b)", "floor((a + b - 1) / b)");
  CheckSame("ceil(a / 3)", "floor((a + 3 - 1) / 3)");
  CheckSame("a % b", "a - b*floor(a / b)");
  CheckSame("a % 5", "a - 5*floor(a / 5)");
  CheckSame("(N + 1)*(N - 1)", "N*N - 1");
  Check("(N + 1)*(N - 1)", "N*N - 1");
  Check("min(N, N + 2)", "N");
  Check("max(3, min(2, N))", "3");
  Check("min(N, 2147483647)", "N");
  Check("max(N, 0)", "N");
  Check("floor((H - 1) / 2) + 1", "floor((H - 1) / 2) + 1");
  Check("2*N*M + 1", "2*M*N + 1");
  Check("2*N + M - 1", "M + 2*N - 1");
}

TEST_F(IndexExprTest, PolynomialArithmetic) {
  Check("N + N", "2*N");
  Check("N - N", "0");
  Check("N*0", "0");
  Check("0*N", "0");
  Check("1*N", "N");
  Check("N*1", "N");
  Check("N + 0", "N");
  Check("0 + N", "N");
  Check("N - 0", "N");
  Check("0 - N", "-N");
  Check("M + N", "M + N");
  Check("N + M", "M + N");
  Check("N*M", "M*N");
  Check("M*N*2", "2*M*N");
  Check("(N + 1)*(N + 1)", "N*N + 2*N + 1");
  Check("(N - M)*(N + M)", "-M*M + N*N");
  Check("(a + b)*(a + b)", "a*a + 2*a*b + b*b");
  Check("(N + 1)*(M + 1)", "M*N + M + N + 1");
  Check("N*N*N", "N*N*N");
  Check("(N*M)*(N*M)", "M*M*N*N");
  Check("N*N*N + N*N + N + 1", "N*N*N + N*N + N + 1");
  Check("1 + N + N*N + N*N*N", "N*N*N + N*N + N + 1");
  Check("3*(N + 2) - 6", "3*N");
  Check("-(N - 3)", "-N + 3");
  Check("-N - M", "-M - N");
  Check("2*(N*M) - M*N", "M*N");
  Check("N*M - M*N", "0");
  Check("(N + 1)*(N + 1) - N*N", "2*N + 1");
  Check("a*b*c - c*b*a", "0");
  Check("(x + y + z)*2", "2*x + 2*y + 2*z");
  Check("x - (y - (z - w))", "-w + x - y + z");
  Check("N*floor(M / 2) + floor(M / 2)*N", "2*N*floor(M / 2)");
  Check("floor(M / 2)*N", "N*floor(M / 2)");
  Check("(N + 2)*(N - 2) + 4", "N*N");
  Check("(N + M)*(N - M) + M*M", "N*N");
  Check("(a + 1)*(b + 2)*(c + 3)", "a*b*c + 3*a*b + 2*a*c + b*c + 6*a + 3*b + 2*c + 6");
  Check("(N - 1)*(N - 1)*(N - 1)", "N*N*N - 3*N*N + 3*N - 1");
  Check("2*N - 3*N", "-N");
  Check("5 - N - 5", "-N");
  Check("N + M - N - M", "0");
  Check("(N + M) - (M + N)", "0");
  Check("-(-(N))", "N");
  Check("-(N*M)", "-M*N");
  Check("(-N)*(-M)", "M*N");
  Check("(N + M)*0 + 7", "7");
  Check("batch*seq*hidden", "batch*hidden*seq");
  Check("seq*batch + batch*seq", "2*batch*seq");
  Check("4*(N*M) - 2*(M*N*2)", "0");
  Check("N*(M + K) - N*K", "M*N");
  Check("min(N, 5)*max(N, 5)", "min(N, 5)*max(N, 5)");
  Check("max(N, 5)*min(N, 5) - min(N, 5)*max(N, 5)", "0");
  Check("floor(N / 2)*floor(N / 2)", "floor(N / 2)*floor(N / 2)");
  Check("A + B + C + D + E", "A + B + C + D + E");
  Check("E + D + C + B + A", "A + B + C + D + E");
  Check("Z + a", "Z + a");  // by name: uppercase letters sort before lowercase
  Check("b10 + b9 + b1", "b1 + b10 + b9");
  Check("N*N + M", "N*N + M");  // higher degree first
  Check("M + N*N", "N*N + M");
  Check("N + M*M*M + K*K", "M*M*M + K*K + N");
}

TEST_F(IndexExprTest, FloorByLiteral) {
  Check("floor(N / 1)", "N");
  Check("floor(N / -1)", "-N");
  Check("floor(N / 2)", "floor(N / 2)");
  Check("floor(4*N / 2)", "2*N");
  Check("floor((4*N + 2) / 2)", "2*N + 1");
  Check("floor((4*N + 2) / 4)", "N");
  Check("floor((6*N + 4) / 8)", "floor((3*N - 2) / 4) + 1");
  Check("floor((6*N) / 4)", "N + floor(N / 2)");
  Check("floor((H + 1) / 2)", "floor((H - 1) / 2) + 1");
  Check("floor((H - 3) / 2) + 1", "floor((H - 1) / 2)");
  Check("floor((H + 2 - 3) / 1) + 1", "H");
  Check("floor((H + 2*1 - 1*(3 - 1) - 1) / 2) + 1", "floor((H - 1) / 2) + 1");
  Check("floor((5*N + 3) / 4)", "N + floor((N - 1) / 4) + 1");
  Check("floor((N + M) / 2)", "floor((M + N) / 2)");
  Check("floor((2*N + 2*M) / 2)", "M + N");
  Check("floor((2*N + M) / 2)", "N + floor(M / 2)");
  Check("floor(-N / 2)", "-N + floor(N / 2)");
  Check("floor((N - 2*M) / 2)", "-M + floor(N / 2)");
  Check("floor(N / -2)", "-N + floor(N / 2)");
  Check("floor((N + 1) / -1)", "-N - 1");
  Check("floor((-2*N - 4) / -2)", "N + 2");
  Check("floor((N*M) / 2)", "floor(M*N / 2)");
  Check("floor((3*N*M + 1) / 3)", "M*N");
  Check("floor((3*N*M + 2) / 3)", "M*N");
  Check("floor((3*N*M + 3) / 3)", "M*N + 1");
  Check("floor((2*N - 4) / 2)", "N - 2");
  Check("floor((2*N - 3) / 2)", "N - 2");
  Check("floor((2*N - 1) / 2)", "N - 1");
  Check("floor((N + M + 1) / 3)", "floor((M + N + 1) / 3)");
  Check("floor((N + 7) / 3)", "floor((N + 1) / 3) + 2");
  Check("floor((N - 7) / 3)", "floor((N - 1) / 3) - 2");
  Check("floor((N + 3) / 3)", "floor(N / 3) + 1");
  Check("floor((N - 3) / 3)", "floor(N / 3) - 1");
  Check("floor((7*N + 10) / 3)", "2*N + floor((N + 1) / 3) + 3");
  Check("floor(N / 2) + floor(N / 2)", "2*floor(N / 2)");
  Check("floor(N / 2) - floor(N / 2)", "0");
  Check("floor(N / 2) - floor((N + 2) / 2)", "-1");
  Check("floor(N / 2) - floor(N / 3)", "floor(N / 2) - floor(N / 3)");
  Check("floor(floor(N / 2) / 3)", "floor(N / 6)");
  Check("floor(floor(floor(N / 2) / 2) / 2)", "floor(N / 8)");
  Check("floor((floor(N / 2) + 1) / 2)", "floor((N - 2) / 4) + 1");
  Check("floor((floor(N / 2) - 1) / 3)", "floor((N - 2) / 6)");
  Check("floor((2*floor(N / 2)) / 2)", "floor(N / 2)");
  Check("floor(N / 2)*2 + N % 2", "N");
  Check("floor(N / 4294967296)", "0");
  Check("floor(N / 2147483648)", "0");
  Check("floor((N - 2147483648) / 2147483648)", "-1");
  Check("floor((N + M) / 2) + floor((M + N) / 2)", "2*floor((M + N) / 2)");
  Check("floor((N*N + 1) / 2)", "floor((N*N - 1) / 2) + 1");
  Check("floor((N + 1) / 2) - floor((N - 1) / 2)", "1");
  Check("floor(min(N, 5) / 1)", "min(N, 5)");
  Check("floor(2*min(N, 5) / 2)", "min(N, 5)");
  Check("floor(3*max(N, 1) / 2)", "floor(max(N, 1) / 2) + max(N, 1)");  // floor < max
  Check("floor(N / 2) * 2 - N", "-N + 2*floor(N / 2)");
  Check("floor((4*N + 6*M + 8) / 2)", "3*M + 2*N + 4");
  Check("floor((4*N + 6*M + 9) / 2)", "3*M + 2*N + 4");
  Check("floor((4*N + 6*M + 9) / 4)", "M + N + floor((2*M + 1) / 4) + 2");
  // The constant left inside is in [-c/2, c/2), ties negative.
  Check("floor((H + 1) / 3)", "floor((H + 1) / 3)");
  Check("floor((H - 1) / 3)", "floor((H - 1) / 3)");
  Check("floor((H + 2) / 3)", "floor((H - 1) / 3) + 1");
  Check("floor((N + 1) / 4)", "floor((N + 1) / 4)");
  Check("floor((N + 2) / 4)", "floor((N - 2) / 4) + 1");
  Check("floor((N - 2) / 4)", "floor((N - 2) / 4)");
  Check("floor((N + 2) / 5)", "floor((N + 2) / 5)");
  Check("floor((N + 3) / 5)", "floor((N - 2) / 5) + 1");
  Check("floor((N - 3) / 5)", "floor((N + 2) / 5) - 1");
  Check("floor((N + 1000001) / 1000000)", "floor((N + 1) / 1000000) + 1");
  // Term coefficients stay in [0, c).
  Check("floor(3*N / 4)", "floor(3*N / 4)");
  Check("floor(-3*N / 4)", "-N + floor(N / 4)");
  Check("floor((N - M) / 3)", "-M + floor((2*M + N) / 3)");
}

TEST_F(IndexExprTest, FloorBySymbol) {
  Check("floor(N / N)", "1");
  Check("floor(2*N / N)", "2");
  Check("floor(-3*N / N)", "-3");
  Check("floor((2*N + 2) / (N + 1))", "2");
  Check("floor(N*M / N)", "M");
  Check("floor((N*M + 2*N) / N)", "M + 2");
  Check("floor(N*M / (2*N))", "floor(M / 2)");
  Check("floor((N*M + N) / (2*N))", "floor((M - 1) / 2) + 1");
  Check("floor((N*M + 1) / N)", "M + floor(1 / N)");
  Check("floor(0 / N)", "0");
  Check("floor(N / M)", "floor(N / M)");
  Check("floor(2*N / (2*M))", "floor(N / M)");
  Check("floor((4*N + 2) / (2*M))", "floor((2*N + 1) / M)");
  Check("floor(N / (M + 1))", "floor(N / (M + 1))");
  Check("floor(N / (2*M))", "floor(N / (2*M))");
  Check("floor(-N / -M)", "floor(N / M)");
  Check("floor(N / -M)", "floor(-N / M)");
  Check("floor(-1 / N)", "-1");
  Check("floor(-5 / (N + 1))", "floor(-5 / (N + 1))");
  Check("floor(N / (N + 1))", "floor(N / (N + 1))");
  Check("floor((2*N*M + 3) / (2*N))", "M + floor(3 / (2*N))");
  Check("floor((N + M) / (M + N))", "1");
  Check("floor((3*N + 3*M) / (N + M))", "3");
  Check("floor(N / floor(M / 2))", "floor(N / floor(M / 2))");
  Check("floor(N*N / N)", "N");
  Check("floor(N*N*M / (N*M))", "N");
  Check("floor((N*N + N) / N)", "N + 1");
  Check("floor((N*N + N + 1) / N)", "N + floor(1 / N) + 1");
  Check("floor(N*M*K / (2*M*N))", "floor(K / 2)");
  Check("floor(6*N*M / (4*N))", "M + floor(M / 2)");
  Check("floor(min(N, M) / min(M, N))", "1");
  Check("floor(N / M) + floor(N / M)", "2*floor(N / M)");
  Check("floor(N / M) - floor(N / M)", "0");
  Check("floor(floor(N / M) / 2)", "floor(floor(N / M) / 2)");
  Check("floor((3*N*M + K) / (2*N))", "floor((3*M*N + K) / (2*N))");
  Check("floor((4*N*M + K) / (2*N))", "2*M + floor(K / (2*N))");
  Check("floor((4*N*M + 3*N + K) / (2*N))", "2*M + floor((K + 3*N) / (2*N))");
  Check("floor((6*N*N + 4*N) / (2*N*N))", "floor(2*N / (N*N)) + 3");
}

TEST_F(IndexExprTest, CeilAndMod) {
  Check("ceil(N / 1)", "N");
  Check("ceil(N / 2)", "floor((N - 1) / 2) + 1");
  Check("ceil(2*N / 2)", "N");
  Check("ceil((2*N + 1) / 2)", "N + 1");
  Check("ceil((2*N - 1) / 2)", "N");
  Check("ceil(N / -2)", "-N + floor((N - 1) / 2) + 1");
  Check("ceil(N / -1)", "-N");
  Check("ceil(N / M)", "floor((N - 1) / M) + 1");
  Check("ceil(N / N)", "1");
  Check("ceil(N*M / N)", "M");
  Check("ceil((H - 2) / 3)", "floor(H / 3)");
  Check("ceil(H / 3) - floor((H + 2) / 3)", "0");
  Check("ceil(N / 4)", "floor((N - 1) / 4) + 1");
  Check("ceil(N / 3)", "floor((N - 1) / 3) + 1");
  Check("ceil(N / 5)", "floor((N - 1) / 5) + 1");
  Check("ceil(N / 1000)", "floor((N - 1) / 1000) + 1");
  Check("ceil((N + 1) / 2)", "floor(N / 2) + 1");
  CheckSame("ceil(N / 2)", "floor((N + 1) / 2)");
  CheckSame("ceil((N + M) / 3)", "floor((N + M + 2) / 3)");
  CheckSame("ceil(N / K)", "floor((N + K - 1) / K)");
  Check("N % 1", "0");
  Check("N % -1", "0");
  Check("N % 2", "N - 2*floor(N / 2)");
  Check("2*N % 2", "0");
  Check("(2*N + 1) % 2", "1");
  Check("(2*N + 3) % 2", "1");
  Check("(N + 2) % 2", "N - 2*floor(N / 2)");
  Check("N % -2", "-N + 2*floor(N / 2)");
  Check("N % N", "0");
  Check("N*M % N", "0");
  Check("(N*M + 1) % N", "-N*floor(1 / N) + 1");
  Check("(4*N + 6) % 4", "2");
  Check("(6*N + 4) % 6", "4");
  Check("N % 2 + 2*floor(N / 2)", "N");
  Check("N % 2 - N % 2", "0");
  Check("(N % 3) % 3", "N - 3*floor(N / 3)");
  Check("N % M", "-M*floor(N / M) + N");  // degree 2 first
  Check("N - N % 4", "4*floor(N / 4)");
  Check("(N - N % 4) % 4", "0");
  Check("floor(N / 4)*4 + N % 4 - N", "0");
}

TEST_F(IndexExprTest, MinMax) {
  Check("min(N, N)", "N");
  Check("min(N, M)", "min(M, N)");
  Check("max(N, M)", "max(M, N)");
  Check("min(N, 5)", "min(N, 5)");
  Check("min(5, N)", "min(N, 5)");
  Check("max(5, N)", "max(N, 5)");
  Check("min(N, 0)", "0");
  Check("max(N, 0)", "N");
  Check("max(N, -1)", "N");
  Check("min(N, -1)", "-1");
  Check("max(0, N - N)", "0");
  Check("min(N, 2147483647)", "N");
  Check("max(N, 2147483647)", "2147483647");
  Check("min(N, 9223372036854775807)", "N");
  Check("min(N, 2147483646)", "min(N, 2147483646)");
  Check("min(N, N + 1)", "N");
  Check("max(N, N + 1)", "N + 1");
  Check("min(N + 1, N - 1)", "N - 1");
  Check("min(N, M, N)", "min(M, N)");
  Check("min(min(N, M), K)", "min(K, M, N)");
  Check("max(max(a, b), max(c, d))", "max(a, b, c, d)");
  Check("min(max(N, M), K)", "min(K, max(M, N))");
  Check("min(N, 3, 5)", "min(N, 3)");
  Check("max(1, N, 3)", "max(N, 3)");
  Check("min(2, max(3, N))", "2");
  Check("min(N*M, 0)", "0");
  Check("max(N*M, 0)", "M*N");
  Check("min(N, 2*N)", "N");
  Check("max(N, 2*N)", "2*N");
  Check("min(N - M, 0)", "min(-M + N, 0)");
  Check("max(N, 1) - max(N, 1)", "0");
  Check("min(N + 1, M + 1)", "min(M + 1, N + 1)");
  Check("min(N, 5) + 1", "min(N, 5) + 1");
  Check("2*min(N, 5)", "2*min(N, 5)");
  Check("min(max(N, 5), 3)", "3");
  Check("max(min(N, 5), 7)", "7");
  Check("max(min(N, 5), 5)", "5");
  Check("min(max(N, 5), 5)", "5");
  Check("min(N, floor(N / 2) + N)", "N");
  Check("min(N, floor(N / 2))", "min(N, floor(N / 2))");  // correlated: beyond intervals
  Check("max(floor(N / 2), -1)", "floor(N / 2)");
  Check("min(N, M) + max(M, N)", "min(M, N) + max(M, N)");
  Check("max(N, M) - max(M, N)", "0");
  Check("min(max(N, 1), max(1, N))", "max(N, 1)");
  Check("min(min(N, 4), min(M, 3))", "min(M, N, 3)");
  Check("max(max(N, 4), max(M, 3))", "max(M, N, 4)");
  Check("max(min(N, 4), min(M, 3))", "max(min(M, 3), min(N, 4))");
  Check("min(N + M, N)", "N");
  Check("max(N + M, N)", "M + N");
  Check("min(N - 1, N - 2, N - 3)", "N - 3");
  Check("max(N*N, N)", "max(N*N, N)");  // N*N >= N holds for integers, not for intervals
  Check("max(N*N, -N)", "N*N");
  Check("min(-N, 0)", "-N");
  Check("max(-N, 1)", "1");
  Check("min(N, -5, M)", "-5");
  Check("max(N % 2, 0)", "max(N - 2*floor(N / 2), 0)");
  Check("max(ceil(N / 2), 0)", "floor((N - 1) / 2) + 1");
  Check("min(floor(N / 2), 1073741823)", "floor(N / 2)");
  Check("min(floor(N / 2), 1073741822)", "min(floor(N / 2), 1073741822)");
  Check("max(N, M) + 0", "max(M, N)");
  Check("min(a, b, c, d) - min(d, c, b, a)", "0");
  Check(Min({Sym("N"), Sym("M"), IndexExpr(7)}), "min(M, N, 7)");
  Check(Max(Sym("N"), IndexExpr(7)), "max(N, 7)");
  Check(Min({Sym("N")}), "N");
  Check(Max({IndexExpr(2), IndexExpr(9), IndexExpr(-1)}), "9");
}

TEST_F(IndexExprTest, Comparisons) {
  IndexExpr n = Sym("N"), m = Sym("M");
  CheckPred(Eq(n, n), "true");
  CheckPred(Eq(n, m), "?");
  CheckPred(Eq(n + 1, n), "false");
  CheckPred(Ne(n + 1, n), "true");
  CheckPred(Ne(n, n), "false");
  CheckPred(Ne(n, m), "?");
  CheckPred(Lt(n, n + 1), "true");
  CheckPred(Le(n, n), "true");
  CheckPred(Lt(n, n), "false");
  CheckPred(Gt(n + 1, n), "true");
  CheckPred(Ge(n, n + 1), "false");
  CheckPred(Ge(n, n), "true");
  CheckPred(Gt(n, n), "false");
  CheckPred(Lt(0, n + 1), "true");
  CheckPred(Le(0, n), "true");
  CheckPred(Lt(0, n), "?");
  CheckPred(Lt(n, 2147483648), "true");
  CheckPred(Le(n, 2147483647), "true");
  CheckPred(Lt(n, 2147483647), "?");
  CheckPred(Eq(n, -1), "false");
  CheckPred(Eq(n * m, -1), "false");
  CheckPred(Eq(n, 0), "?");
  CheckPred(Lt(n, m), "?");
  CheckPred(Eq(3, 3), "true");
  CheckPred(Eq(3, 4), "false");
  CheckPred(Lt(3, 4), "true");
  CheckPred(Le(4, 3), "false");
  CheckPred(Gt(4, 3), "true");
  CheckPred(Lt(IndexExpr(kMin64), IndexExpr(kMax64)), "true");
  CheckPred(Gt(IndexExpr(kMax64), IndexExpr(kMin64)), "true");
  CheckPred(Lt(Max(n, 5), 5), "false");
  CheckPred(Le(Min(n, 5), 5), "true");
  CheckPred(Ge(Max(n, 5), 5), "true");
  CheckPred(Eq(FloorDiv(n, 2), -1), "false");
  CheckPred(Le(FloorDiv(n, 2), 1073741823), "true");
  CheckPred(Lt(n * m, 0), "false");
  CheckPred(Ge(n * m, 0), "true");
  CheckPred(Eq(n + m, m + n), "true");
  CheckPred(Eq((n + 1) * (n + 1), n * n + 2 * n + 1), "true");
  CheckPred(Lt(n - 1, n), "true");
  CheckPred(Le(n + m, n), "?");
  CheckPred(Ge(n + m, n), "true");
  CheckPred(Lt(IndexExpr(kMax64) * n, IndexExpr(kMin64) * m), "?");  // difference overflows
  CheckPred(Eq(IndexExpr::Predicate(true), IndexExpr::Predicate(true)), "true");
  CheckPred(Eq(IndexExpr::Predicate(true), IndexExpr::Predicate(false)), "false");
  CheckPred(Ne(IndexExpr::Predicate(true), IndexExpr::Predicate(false)), "true");
  CheckPred(Eq(IndexExpr::Predicate(true), IndexExpr::UnknownPredicate()), "?");
  CheckUndefined(Eq(IndexExpr::Predicate(true), 1), "predicate compared");
  CheckUndefined(Lt(IndexExpr::Undefined("boom"), n), "boom");
  CheckUndefined(Le(n, IndexExpr::Undefined("bang")), "bang");
}

TEST_F(IndexExprTest, RangesOfExpressions) {
  auto range = [](std::string_view text) {
    return RangeToString(RangeOf(ParseOrDie(text, Loc::current())));
  };
  ASSERT_TRUE(IndexExpr::DeclareSymbolRange("n", 0, 192).ok());
  ASSERT_TRUE(IndexExpr::DeclareSymbolRange("b", 1, 64).ok());
  ASSERT_TRUE(IndexExpr::DeclareSymbolRange("s", 1, std::nullopt).ok());
  EXPECT_EQ(range("7"), "[7, 7]");
  EXPECT_EQ(range("N"), "[0, inf)");  // undeclared: only non-negative
  EXPECT_EQ(range("n"), "[0, 192]");
  EXPECT_EQ(range("b*n + 1"), "[1, 12289]");
  EXPECT_EQ(range("b - n"), "[-191, 64]");
  EXPECT_EQ(range("floor((n + 3) / 4)"), "[0, 48]");
  EXPECT_EQ(range("ceil(n / b)"), "[0, 192]");
  EXPECT_EQ(range("n % 10"), "[-190, 192]");  // sound, not tight: n - 10*floor(n / 10)
  EXPECT_EQ(range("min(n, s)"), "[0, 192]");
  EXPECT_EQ(range("max(b, s)"), "[1, inf)");
  EXPECT_EQ(range("b*s"), "[1, inf)");
  EXPECT_EQ(RangeToString(RangeOf(IndexExpr::Questionmark())), "(-inf, inf)");
  // Simplification uses a declared range on top of the [0, 2^31) assumption.
  Check("min(n, 500)", "n");
  Check("max(b, 1)", "b");
  Check("min(b, 64)", "b");
  Check("min(b, 63)", "min(b, 63)");
  EXPECT_EQ(Le(Sym("n"), IndexExpr(192)).literal(), 1);
  // A range is fixed when the symbol is first made.
  EXPECT_EQ(IndexExpr::DeclareSymbolRange("n", 0, 192).code(), absl::StatusCode::kOk);
  EXPECT_EQ(IndexExpr::DeclareSymbolRange("n", 0, 10).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(IndexExpr::DeclareSymbolRange("N", 0, 10).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(IndexExpr::DeclareSymbolRange("m", 5, 4).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(IndexExpr::DeclareSymbolRange("m", -1, 4).code(), absl::StatusCode::kInvalidArgument);
}

// A symbolic divisor is positive, but the canonical form may negate it (floor(a / b) ==
// floor(-a / -b)): the intervals of such a floor must not assume the negated divisor positive.
TEST_F(IndexExprTest, NegatedDivisorsKeepSoundIntervals) {
  Check("floor(1 / ((C % (C + 2)) + 3))",
        "floor(-1 / (C*floor(C / (C + 2)) - C + 2*floor(C / (C + 2)) - 3))");
}

TEST_F(IndexExprTest, BoundedSymbolsAreStableAndNeverWidened) {
  IndexExpr a = IndexExpr::BoundedSymbol("NonZero_n", 0, 24);
  EXPECT_EQ(a.ToString(), "NonZero_n");
  EXPECT_TRUE(a.IsSymbol());
  EXPECT_EQ(IndexExpr::BoundedSymbol("NonZero_n", 0, 24), a);  // inferred again: the same
  IndexExpr b = IndexExpr::BoundedSymbol("NonZero_n", 0, 48);  // another range: another name
  EXPECT_EQ(b.ToString(), "NonZero_n_2");
  EXPECT_EQ(RangeToString(RangeOf(a)), "[0, 24]");
  EXPECT_EQ(RangeToString(RangeOf(b)), "[0, 48]");
  Sym("batch");  // a graph input's symbol, no range: a bounded one of that name is another
  EXPECT_EQ(IndexExpr::BoundedSymbol("batch", 1, 8).ToString(), "batch_2");
  EXPECT_TRUE(IndexExpr::BoundedSymbol("bad", 3, 2).IsUndefined());
}

TEST_F(IndexExprTest, Select) {
  IndexExpr n = Sym("N"), m = Sym("M");
  Check(Select(IndexExpr::Predicate(true), n, m), "N");
  Check(Select(IndexExpr::Predicate(false), n, m), "M");
  Check(Select(IndexExpr::UnknownPredicate(), n, n), "N");
  Check(Select(Lt(n, n + 1), n, m), "N");
  Check(Select(Gt(n, n + 1), n, m), "M");
  Check(Select(IndexExpr(1), n, m), "N");
  Check(Select(IndexExpr(0), n, m), "M");
  ++checks;
  EXPECT_TRUE(Select(IndexExpr::UnknownPredicate(), n, m).IsQuestionmark());
  ++checks;
  EXPECT_TRUE(Select(Eq(n, m), n, m).IsQuestionmark());
  CheckUndefined(Select(IndexExpr::Undefined("cond"), n, m), "cond");
  Check(Select(IndexExpr::Predicate(true), n, IndexExpr::Undefined("other")), "N");
  CheckUndefined(Select(IndexExpr::UnknownPredicate(), n, IndexExpr::Undefined("other")), "other");
  // The typical guarded division: the branch not taken may be undefined.
  IndexExpr zero = 0;
  Check(Select(Eq(zero, 0), IndexExpr(0), FloorDiv(n, zero)), "0");
}

TEST_F(IndexExprTest, Overflow) {
  const IndexExpr big = IndexExpr(int64_t{1} << 62);
  IndexExpr n = Sym("N"), m = Sym("M");
  CheckUndefined(big * 4, "int64 overflow in 4611686018427387904 * 4");
  CheckUndefined(-IndexExpr(kMin64), "int64 overflow in -(-9223372036854775808)");
  CheckUndefined(IndexExpr(kMax64) + 1, "int64 overflow in 9223372036854775807 + 1");
  CheckUndefined(IndexExpr(kMin64) - 1, "int64 overflow");
  CheckUndefined(FloorDiv(IndexExpr(kMin64), -1), "int64 overflow in floor(");
  CheckUndefined(CeilDiv(IndexExpr(kMin64), -1), "int64 overflow in ceil(");
  CheckUndefined(IndexExpr(kMax64) * n + n, "int64 overflow in ");
  CheckUndefined((n + kMax64) + 1, "int64 overflow");
  CheckUndefined((n + kMin64) - 1, "int64 overflow");
  CheckUndefined(-(n * kMin64), "int64 overflow in -(");
  CheckUndefined((n * kMin64) * -1, "int64 overflow");
  CheckUndefined(big * n * 2 * 2, "int64 overflow");
  // Expansion: the M*N coefficient is 2^62 + 2^62.
  CheckUndefined((big * n + big * m) * (n + m), "int64 overflow in ");
  // ... but partial sums that cancel are fine (coefficients accumulate exactly).
  Check((big * n + big * m) * (n - m), "-4611686018427387904*M*M + 4611686018427387904*N*N");
  Check((n * kMax64 - n) + n, "9223372036854775807*N");
  Check(n * kMin64, "-9223372036854775807*N - N");
  Check(n * kMax64 * -1, "-9223372036854775807*N");
  // Floor by INT64_MIN: the gcd is taken before the divisor's sign flips.
  Check(FloorDiv(n * kMin64, -2), "4611686018427387904*N");
  Check(FloorDiv(n * kMin64, kMin64), "N");
  CheckUndefined(FloorDiv(n, kMin64), "int64 overflow in floor(");
  CheckUndefined(Mod(n * kMin64 + 1, -1), "int64 overflow");
  CheckUndefined(CeilDiv(n + kMax64, 2), "int64 overflow in ceil(");
  CheckUndefined(IndexExpr(kMin64) * -1, "int64 overflow in -9223372036854775808 * -1");
  CheckUndefined((n + 1) * kMax64 * 2,
                 "int64 overflow in (9223372036854775807*N + "
                 "9223372036854775807) * 2");
}

// Each % doubles the tree (a % b == a - b*floor(a / b)): past kMaxExprSize nodes the result is
// undefined instead of taking exponential time to print, compare or translate.
TEST_F(IndexExprTest, ExpressionSizeIsBounded) {
  IndexExpr e = Sym("a");
  for (char c = 'b'; c <= 'z'; ++c) e = Mod(e, Sym(std::string(1, c)));
  CheckUndefined(e, "expression too large (over 4096 nodes)");
  // Small nests are unaffected.
  Check(Mod(Mod(Sym("a"), Sym("b")), Sym("c")).IsUndefined() ? IndexExpr(0) : IndexExpr(1), "1");
  absl::StatusOr<IndexExpr> parsed = IndexExpr::Parse("a % b % c % d % e % f % g % h % i % j % "
                                                      "k % l % m % n % o % p % q % r % s % t % u");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("expression too large"), std::string::npos);
}

TEST_F(IndexExprTest, DivisionByZeroAndUndefined) {
  IndexExpr n = Sym("N"), m = Sym("M");
  CheckUndefined(FloorDiv(n, 0), "division by zero in floor(N / 0)");
  CheckUndefined(FloorDiv(5, 0), "division by zero in floor(5 / 0)");
  CheckUndefined(CeilDiv(n + 1, 0), "division by zero in ceil((N + 1) / 0)");
  CheckUndefined(CeilDiv(5, 0), "division by zero");
  CheckUndefined(Mod(n, 0), "division by zero in N % 0");
  CheckUndefined(Mod(7, 0), "division by zero in 7 % 0");
  CheckUndefined(FloorDiv(n, n - n), "division by zero");
  CheckUndefined(Mod(n * m, m * 0), "division by zero");
  const IndexExpr u = IndexExpr::Undefined("first");
  const IndexExpr u2 = IndexExpr::Undefined("second");
  CheckUndefined(u + n, "first");
  CheckUndefined(n + u, "first");
  CheckUndefined(u - u2, "first");
  CheckUndefined(u2 - u, "second");
  CheckUndefined(u * 0, "first");
  CheckUndefined(0 * u, "first");
  CheckUndefined(-u, "first");
  CheckUndefined(FloorDiv(u, 0), "first");
  CheckUndefined(FloorDiv(n, u), "first");
  CheckUndefined(CeilDiv(u, 2), "first");
  CheckUndefined(Mod(n, u), "first");
  CheckUndefined(Min({n, u, u2}), "first");
  CheckUndefined(Max({u2, u}), "second");
  CheckUndefined(Eq(u, n), "first");
  CheckUndefined(Min(absl::Span<const IndexExpr>()), "min of no arguments");
  CheckUndefined(Max(absl::Span<const IndexExpr>()), "max of no arguments");
  CheckUndefined(FloorDiv(n, 0) + 1, "division by zero in floor(N / 0)");
  CheckUndefined(IndexExpr::Predicate(true) + 1, "predicate");
  CheckUndefined(n * IndexExpr::UnknownPredicate(), "predicate");
  CheckUndefined(-IndexExpr::Predicate(false), "predicate");
  CheckUndefined(Max(n, IndexExpr::Predicate(true)), "predicate");
  CheckUndefined(FloorDiv(IndexExpr::Predicate(true), 2), "predicate");
  ++checks;
  EXPECT_TRUE(u == u2);  // undefined == undefined, whatever the reasons
  ++checks;
  EXPECT_EQ(u.Hash(), u2.Hash());
  ++checks;
  EXPECT_TRUE(IndexExpr() == u);
  ++checks;
  EXPECT_EQ(IndexExpr().undefined_reason(), "");
  ++checks;
  EXPECT_EQ(u.undefined_reason(), "first");
  ++checks;
  EXPECT_FALSE(u.IsDefined());
  ++checks;
  EXPECT_EQ(n.undefined_reason(), "");
  CheckPrint(u, "<undefined: first>");
  CheckPrint(IndexExpr(), "<undefined>");
  ++checks;
  EXPECT_FALSE(u == IndexExpr(0));
}
}  // namespace
}  // namespace anvil::index_expr_test
