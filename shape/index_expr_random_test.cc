// Randomized and cross-cutting tests of IndexExpr:
//  - Evaluate of the canonical form == direct integer evaluation of the unsimplified expression
//    tree, over a grid of symbol values (the strongest check that simplification is exact);
//  - Parse(ToString(e)) == e, and algebraic identities that only hold if the form is canonical;
//  - concurrent interning from several threads;
//  - literals and known symbols do not allocate.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "shape/index_expr.h"

// Counts every global allocation, to check that literal arithmetic never allocates.
namespace {
std::atomic<int64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace anvil {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

constexpr const char* kNames[] = {"A", "B", "C"};

// An unsimplified expression tree.
struct Tree {
  enum Op { kLit, kSym, kAdd, kSub, kMul, kNeg, kFloor, kCeil, kMod, kMin, kMax } op = kLit;
  int64_t value = 0;  // kLit
  int sym = 0;        // kSym
  std::vector<Tree> kids;
};

class Generator {
 public:
  Generator(uint64_t seed, bool symbolic_divisors)
      : rng_(seed), symbolic_divisors_(symbolic_divisors) {}

  Tree Expr(int depth) {
    if (depth == 0 || Uniform(0, 9) < 2) return Leaf();
    // Weighted: the non-affine operations are the interesting ones.
    static constexpr Tree::Op kOps[] = {Tree::kAdd,  Tree::kAdd, Tree::kSub,   Tree::kMul,
                                        Tree::kMul,  Tree::kNeg, Tree::kFloor, Tree::kFloor,
                                        Tree::kCeil, Tree::kMod, Tree::kMin,   Tree::kMax};
    Tree t;
    t.op = kOps[Uniform(0, static_cast<int>(std::size(kOps)) - 1)];
    switch (t.op) {
      case Tree::kNeg:
        t.kids.push_back(Expr(depth - 1));
        break;
      case Tree::kFloor:
      case Tree::kCeil:
      case Tree::kMod:
        t.kids.push_back(Expr(depth - 1));
        t.kids.push_back(Divisor(depth - 1));
        break;
      case Tree::kMin:
      case Tree::kMax: {
        int n = Uniform(0, 3) == 0 ? 3 : 2;
        for (int i = 0; i < n; ++i) t.kids.push_back(Expr(depth - 1));
        break;
      }
      default:
        t.kids.push_back(Expr(depth - 1));
        t.kids.push_back(Expr(depth - 1));
    }
    return t;
  }

 private:
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Tree Lit(int64_t v) {
    Tree t;
    t.value = v;
    return t;
  }

  Tree Sym() {
    Tree t;
    t.op = Tree::kSym;
    t.sym = Uniform(0, 2);
    return t;
  }

  Tree Leaf() {
    int r = Uniform(0, 19);
    if (r < 11) return Sym();
    if (r == 11) return Lit(2147483647);  // the "until the end" bound
    if (r == 12) return Lit(2147483646);
    return Lit(Uniform(-4, 9));
  }

  Tree Divisor(int depth) {
    static constexpr int64_t kLiterals[] = {1, 2, 2, 3, 3, 4, 5, 6, 7, 8, -1, -2, -3, -4};
    if (!symbolic_divisors_ || Uniform(0, 2) == 0) {
      return Lit(kLiterals[Uniform(0, static_cast<int>(std::size(kLiterals)) - 1)]);
    }
    // Symbolic divisors: mostly provably positive (sym + k), sometimes a bare symbol or a product
    // (grid points where they are <= 0 break the positivity assumption and are skipped).
    Tree t;
    switch (Uniform(0, 5)) {
      case 0:
        return Sym();
      case 1:
        t.op = Tree::kMul;
        t.kids = {Sym(), Sym()};
        return t;
      case 2:  // a monomial with a coefficient: k*sym or k*sym*sym
        t.op = Tree::kMul;
        t.kids = {Lit(Uniform(2, 4)),
                  Uniform(0, 1) ? Sym() : Tree{Tree::kMul, 0, 0, {Sym(), Sym()}}};
        return t;
      case 3:
        t.op = Tree::kAdd;
        t.kids = {depth > 1 ? Expr(1) : Sym(), Lit(Uniform(1, 3))};
        return t;
      default:
        t.op = Tree::kAdd;
        t.kids = {Sym(), Lit(Uniform(1, 4))};
        return t;
    }
  }

  std::mt19937_64 rng_;
  bool symbolic_divisors_;
};

IndexExpr Build(const Tree& t) {
  switch (t.op) {
    case Tree::kLit:
      return IndexExpr(t.value);
    case Tree::kSym:
      return IndexExpr::Symbol(kNames[t.sym]);
    case Tree::kAdd:
      return Build(t.kids[0]) + Build(t.kids[1]);
    case Tree::kSub:
      return Build(t.kids[0]) - Build(t.kids[1]);
    case Tree::kMul:
      return Build(t.kids[0]) * Build(t.kids[1]);
    case Tree::kNeg:
      return -Build(t.kids[0]);
    case Tree::kFloor:
      return FloorDiv(Build(t.kids[0]), Build(t.kids[1]));
    case Tree::kCeil:
      return CeilDiv(Build(t.kids[0]), Build(t.kids[1]));
    case Tree::kMod:
      return Mod(Build(t.kids[0]), Build(t.kids[1]));
    case Tree::kMin:
    case Tree::kMax: {
      IndexExprList args;
      for (const Tree& k : t.kids) args.push_back(Build(k));
      return t.op == Tree::kMin ? Min(args) : Max(args);
    }
  }
  return IndexExpr();
}

std::string Describe(const Tree& t) {
  auto k = [&](int i) { return Describe(t.kids[i]); };
  switch (t.op) {
    case Tree::kLit:
      return t.value < 0 ? "(" + std::to_string(t.value) + ")" : std::to_string(t.value);
    case Tree::kSym:
      return kNames[t.sym];
    case Tree::kAdd:
      return "(" + k(0) + " + " + k(1) + ")";
    case Tree::kSub:
      return "(" + k(0) + " - " + k(1) + ")";
    case Tree::kMul:
      return "(" + k(0) + "*" + k(1) + ")";
    case Tree::kNeg:
      return "-" + k(0);
    case Tree::kFloor:
      return "floor(" + k(0) + " / " + k(1) + ")";
    case Tree::kCeil:
      return "ceil(" + k(0) + " / " + k(1) + ")";
    case Tree::kMod:
      return "(" + k(0) + " % " + k(1) + ")";
    case Tree::kMin:
    case Tree::kMax: {
      std::string s = t.op == Tree::kMin ? "min(" : "max(";
      for (size_t i = 0; i < t.kids.size(); ++i) s += (i ? ", " : "") + k(i);
      return s + ")";
    }
  }
  return "";
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Direct evaluation with floor semantics; nullopt on overflow. `*invalid` is set when a symbolic
// divisor is <= 0 (outside IndexExpr's assumptions).
std::optional<int64_t> Brute(const Tree& t, const int64_t* values, bool* invalid) {
  std::vector<int64_t> v;
  for (const Tree& k : t.kids) {
    std::optional<int64_t> x = Brute(k, values, invalid);
    if (!x) return std::nullopt;
    v.push_back(*x);
  }
  int64_t r;
  switch (t.op) {
    case Tree::kLit:
      return t.value;
    case Tree::kSym:
      return values[t.sym];
    case Tree::kAdd:
      if (__builtin_add_overflow(v[0], v[1], &r)) return std::nullopt;
      return r;
    case Tree::kSub:
      if (__builtin_sub_overflow(v[0], v[1], &r)) return std::nullopt;
      return r;
    case Tree::kMul:
      if (__builtin_mul_overflow(v[0], v[1], &r)) return std::nullopt;
      return r;
    case Tree::kNeg:
      if (__builtin_sub_overflow(int64_t{0}, v[0], &r)) return std::nullopt;
      return r;
    case Tree::kFloor:
    case Tree::kCeil:
    case Tree::kMod: {
      if (t.kids[1].op != Tree::kLit && v[1] <= 0) *invalid = true;
      if (v[1] == 0 || (v[1] == -1 && v[0] == std::numeric_limits<int64_t>::min())) {
        return std::nullopt;
      }
      int64_t q = FloorDivInt(v[0], v[1]);
      if (t.op == Tree::kFloor) return q;
      if (t.op == Tree::kCeil) return v[0] % v[1] == 0 ? q : q + 1;
      return v[0] - q * v[1];
    }
    case Tree::kMin:
      return *std::min_element(v.begin(), v.end());
    case Tree::kMax:
      return *std::max_element(v.begin(), v.end());
  }
  return std::nullopt;
}

struct EvalStats {
  int expressions = 0;
  int undefined = 0;  // canonical form overflowed while being built
  int64_t points = 0;
  int64_t skipped_points = 0;
};

// Compares the canonical form with direct evaluation for `count` random trees, and checks that
// every value lies in the expression's RangeOf. With `ranges` (of A, B, C, declared in the
// context first), grid points outside them are skipped: simplification may use the ranges.
void CheckAgainstBruteForce(uint64_t seed, bool symbolic_divisors, int count, int depth,
                            const std::vector<int64_t>& grid, EvalStats* stats,
                            const IndexRange* ranges = nullptr) {
  Generator gen(seed, symbolic_divisors);
  int failures = 0;
  for (int i = 0; i < count && failures < 10; ++i) {
    Tree t = gen.Expr(depth);
    IndexExpr e = Build(t);
    ++stats->expressions;
    if (e.IsUndefined()) {
      // Overflow of a coefficient, or a divisor that is identically 0 (e.g. -1 + 1).
      ASSERT_TRUE(e.undefined_reason().find("int64 overflow") != std::string::npos ||
                  e.undefined_reason().find("division by zero") != std::string::npos)
          << Describe(t) << ": " << e.ToString();
      ++stats->undefined;
      continue;
    }
    ASSERT_TRUE(e.IsLiteral() || e.IsAffine() || e.kind() == IndexExpr::Kind::kNonAffine)
        << Describe(t) << " ==> " << e.ToString();
    // Evaluates at one grid point; false (after reporting) on a mismatch.
    auto check_point = [&](int64_t a, int64_t b, int64_t c) {
      const int64_t values[3] = {a, b, c};
      for (int k = 0; ranges != nullptr && k < 3; ++k) {
        if (values[k] < ranges[k].lo.value_or(kMin64) ||
            values[k] > ranges[k].hi.value_or(kMax64)) {
          ++stats->skipped_points;
          return true;
        }
      }
      bool invalid = false;
      std::optional<int64_t> want = Brute(t, values, &invalid);
      ++stats->points;
      if (!want || invalid) {
        ++stats->skipped_points;
        return true;
      }
      std::optional<int64_t> got = e.Evaluate(
          [&](std::string_view s) -> std::optional<int64_t> { return values[s[0] - 'A']; });
      const IndexRange range = RangeOf(e);
      if (got == want && *want >= range.lo.value_or(kMin64) && *want <= range.hi.value_or(kMax64)) {
        return true;
      }
      ++failures;
      ADD_FAILURE() << "\n  Input:  " << Describe(t) << "\n  Output: " << e.ToString()
                    << "\n  At A=" << a << " B=" << b << " C=" << c << ": expected " << *want
                    << ", got " << (got ? std::to_string(*got) : "nullopt") << ", range "
                    << RangeToString(range);
      return false;
    };
    bool ok = true;
    for (size_t ia = 0; ok && ia < grid.size(); ++ia) {
      for (size_t ib = 0; ok && ib < grid.size(); ++ib) {
        for (size_t ic = 0; ok && ic < grid.size(); ++ic) {
          ok = check_point(grid[ia], grid[ib], grid[ic]);
        }
      }
    }
  }
}

// Each test makes its symbols in a context of its own (shape/index_expr.h), freed when it ends.
class IndexExprRandomTest : public ::testing::Test {
 private:
  ScopedIndexExprContext context_;
};

TEST_F(IndexExprRandomTest, EvaluateMatchesBruteForceLiteralDivisors) {
  EvalStats stats;
  CheckAgainstBruteForce(/*seed=*/1, /*symbolic_divisors=*/false, /*count=*/3000, /*depth=*/4,
                         {0, 1, 2, 3, 5, 8, 13}, &stats);
  printf(
      "[ random ] literal divisors: %d expressions (%d overflowed), %lld points (%lld skipped)\n",
      stats.expressions, stats.undefined, static_cast<long long>(stats.points),
      static_cast<long long>(stats.skipped_points));
  EXPECT_LT(stats.undefined * 20, stats.expressions);
  EXPECT_LT(stats.skipped_points * 4, stats.points);
}

TEST_F(IndexExprRandomTest, DeclaredRangesHoldAndSimplifySoundly) {
  const IndexRange ranges[3] = {{1, 8}, {0, 3}, {2, std::nullopt}};
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(
        IndexExpr::DeclareSymbolRange(std::string(1, 'A' + k), *ranges[k].lo, ranges[k].hi).ok());
  }
  EvalStats stats;
  CheckAgainstBruteForce(/*seed=*/7, /*symbolic_divisors=*/true, /*count=*/2000, /*depth=*/4,
                         {0, 1, 2, 3, 5, 8, 13}, &stats, ranges);
  printf(
      "[ random ] declared ranges: %d expressions, %lld points (%lld skipped, most outside the "
      "ranges)\n",
      stats.expressions, static_cast<long long>(stats.points),
      static_cast<long long>(stats.skipped_points));
  EXPECT_GT(stats.points, 150000);  // points inside the ranges, checked
}

TEST_F(IndexExprRandomTest, EvaluateMatchesBruteForceSymbolicDivisors) {
  EvalStats stats;
  CheckAgainstBruteForce(/*seed=*/2, /*symbolic_divisors=*/true, /*count=*/3000, /*depth=*/4,
                         {0, 1, 2, 3, 5, 8, 13}, &stats);
  printf(
      "[ random ] symbolic divisors: %d expressions (%d overflowed), %lld points (%lld skipped)\n",
      stats.expressions, stats.undefined, static_cast<long long>(stats.points),
      static_cast<long long>(stats.skipped_points));
  EXPECT_LT(stats.undefined * 20, stats.expressions);
  EXPECT_GT(stats.points, 150000);  // points inside the ranges, checked
}

TEST_F(IndexExprRandomTest, EvaluateMatchesBruteForceDeep) {
  EvalStats stats;
  CheckAgainstBruteForce(/*seed=*/3, /*symbolic_divisors=*/true, /*count=*/500, /*depth=*/6,
                         {0, 1, 4, 7}, &stats);
  EXPECT_LT(stats.undefined * 10, stats.expressions);
}

TEST_F(IndexExprRandomTest, RoundTripAndCanonicalIdentities) {
  Generator gen(/*seed=*/4, /*symbolic_divisors=*/true);
  const IndexExpr zero = 0;
  int checked = 0;
  for (int i = 0; i < 1500; ++i) {
    Tree tx = gen.Expr(3), ty = gen.Expr(3);
    IndexExpr x = Build(tx), y = Build(ty);
    if (x.IsUndefined() || y.IsUndefined()) continue;
    ++checked;
    SCOPED_TRACE("x = " + Describe(tx) + " ==> " + x.ToString() + "\n  y = " + Describe(ty) +
                 " ==> " + y.ToString());
    absl::StatusOr<IndexExpr> back = IndexExpr::Parse(x.ToString());
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == x) << "round trip gives " << back->ToString();
    EXPECT_EQ(back->Hash(), x.Hash());
    EXPECT_EQ(back->ToString(), x.ToString());
    EXPECT_TRUE(IndexExpr::FromDimParam(x.ToString()) == x);
    EXPECT_TRUE(x + y == y + x);
    EXPECT_TRUE(x * y == y * x || (x * y).IsUndefined());
    EXPECT_EQ((x + y).Hash(), (y + x).Hash());
    IndexExpr sum = x + y;
    if (sum.IsDefined()) {
      EXPECT_TRUE(sum - y == x) << (sum - y).ToString();
    }
    EXPECT_TRUE(x - x == zero);
    EXPECT_TRUE(-(-x) == x);
    EXPECT_TRUE(Min(x, y) == Min(y, x)) << Min(x, y).ToString() << " vs " << Min(y, x).ToString();
    EXPECT_TRUE(Max(x, y) == Max(y, x)) << Max(x, y).ToString() << " vs " << Max(y, x).ToString();
    EXPECT_TRUE(Min(x, x) == x);
    EXPECT_TRUE(Min({x, y, x}) == Min(x, y));
    EXPECT_TRUE(Max(Max(x, y), x) == Max(x, y));
    EXPECT_TRUE(FloorDiv(x, 1) == x);
    IndexExpr x6 = x * 6;
    if (x6.IsDefined()) {
      EXPECT_TRUE(FloorDiv(x6, 6) == x) << FloorDiv(x6, 6).ToString();
      EXPECT_TRUE(Mod(x6, 3) == zero) << Mod(x6, 3).ToString();
      EXPECT_TRUE(CeilDiv(x6, 2) == x * 3) << CeilDiv(x6, 2).ToString();
    }
    IndexExpr distributed = x * y + x;
    if (distributed.IsDefined() && (x * (y + 1)).IsDefined()) {
      EXPECT_TRUE(x * (y + 1) == distributed);
    }
    EXPECT_EQ(Eq(x, x).ToString(), "true");
    EXPECT_NE(Le(Min(x, y), Max(x, y)).ToString(), "false");
    if (y.IsLiteral() && y.literal() > 0) {
      EXPECT_TRUE(Mod(x, y) + y * FloorDiv(x, y) == x);
      EXPECT_TRUE(CeilDiv(x, y) == FloorDiv(x + y - 1, y));
    }
  }
  EXPECT_GT(checked, 1300);
}

// Rebuilding an expression from its structure (Decompose) with the arithmetic gives it back.
IndexExpr Rebuild(const IndexExprStructure& s) {
  IndexExpr e = s.constant;
  for (const IndexTerm& t : s.terms) {
    IndexExpr product = t.coeff;
    for (const IndexAtom& a : t.factors) {
      switch (a.kind) {
        case IndexAtom::Kind::kSymbol:
          product = product * IndexExpr::Symbol(a.name);
          break;
        case IndexAtom::Kind::kFloorDiv:
          product = product * FloorDiv(a.args[0], a.args[1]);
          break;
        case IndexAtom::Kind::kMin:
          product = product * Min(a.args);
          break;
        case IndexAtom::Kind::kMax:
          product = product * Max(a.args);
          break;
        case IndexAtom::Kind::kQuestionmark:
          return IndexExpr::Undefined("a questionmark cannot be rebuilt");
      }
    }
    e = e + product;
  }
  return e;
}

TEST_F(IndexExprRandomTest, DecomposeRebuildsEveryExpression) {
  Generator gen(/*seed=*/5, /*symbolic_divisors=*/true);
  int checked = 0;
  for (int i = 0; i < 2000; ++i) {
    const IndexExpr x = Build(gen.Expr(3));
    std::optional<IndexExprStructure> s = Decompose(x);
    if (x.IsUndefined()) {
      EXPECT_FALSE(s.has_value());
      continue;
    }
    ASSERT_TRUE(s.has_value());
    ++checked;
    EXPECT_TRUE(Rebuild(*s) == x) << x.ToString() << " rebuilt as " << Rebuild(*s).ToString();
  }
  EXPECT_GT(checked, 1800);
  const std::optional<IndexExprStructure> s =
      Decompose(3 * IndexExpr::Symbol("N") * IndexExpr::Symbol("N") +
                FloorDiv(IndexExpr::Symbol("H"), 2) - 1);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->constant, -1);
  ASSERT_EQ(s->terms.size(), 2u);
  EXPECT_EQ(s->terms[0].coeff, 3);
  ASSERT_EQ(s->terms[0].factors.size(), 2u);
  EXPECT_EQ(s->terms[0].factors[1].name, "N");
  EXPECT_EQ(s->terms[1].factors[0].kind, IndexAtom::Kind::kFloorDiv);
  EXPECT_EQ(s->terms[1].factors[0].args[1].literal(), 2);
  EXPECT_FALSE(Decompose(IndexExpr::Predicate(true)).has_value());
  EXPECT_EQ(Decompose(IndexExpr::Questionmark())->terms[0].factors[0].kind,
            IndexAtom::Kind::kQuestionmark);
}

TEST(IndexExprContextTest, ContextsFreeTheirAtoms) {
  const int64_t before = LiveIndexExprNodes();
  {
    ScopedIndexExprContext scope;
    IndexExpr e =
        IndexExpr::Symbol("fresh_a") * IndexExpr::Symbol("fresh_b") + IndexExpr::Questionmark();
    EXPECT_GT(LiveIndexExprNodes(), before);
  }
  EXPECT_EQ(LiveIndexExprNodes(), before);
  // An expression keeps its context alive after the scope ends.
  IndexExpr kept;
  {
    ScopedIndexExprContext scope;
    kept = FloorDiv(IndexExpr::Symbol("K") + 3, 2);
  }
  EXPECT_EQ(kept.ToString(), "floor((K - 1) / 2) + 2");
  EXPECT_GT(LiveIndexExprNodes(), before);
  kept = IndexExpr(0);
  EXPECT_EQ(LiveIndexExprNodes(), before);
  // Within one context, equal expressions share atoms and compare equal; scopes nest.
  IndexExprContext outer;
  IndexExprContext::Scope outer_scope(outer);
  IndexExpr n1 = IndexExpr::Symbol("N");
  {
    ScopedIndexExprContext inner;
    EXPECT_EQ(IndexExpr::Symbol("N").ToString(), "N");
  }
  EXPECT_TRUE(IndexExpr::Symbol("N") == n1);
  EXPECT_EQ(outer.num_nodes(), 2);  // the atom N and its monomial
}

// No process-wide default context: making a symbol or questionmark with none installed is a
// caller's bug, reported loudly with what to do; literals need no context.
TEST(IndexExprContextTest, SymbolsWithoutAContextAbortSayingWhatToDo) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EQ((IndexExpr(3) * 4 + 1).ToString(), "13");
  EXPECT_DEATH(IndexExpr::Symbol("N"), "no IndexExprContext installed.*ScopedIndexExprContext");
  EXPECT_DEATH(IndexExpr::Questionmark(), "no IndexExprContext installed");
  // Arithmetic on existing expressions works in their own context, installed or not.
  IndexExpr n;
  {
    ScopedIndexExprContext scope;
    n = IndexExpr::Symbol("N");
  }
  EXPECT_EQ(FloorDiv(n * 2 + 3, 2).ToString(), "N + 1");
}

TEST_F(IndexExprRandomTest, ConcurrentInterning) {
  // Each thread builds the same random expressions (and some private symbols) in a context of its
  // own, as every thread that makes symbols must (contexts take no lock, so threads run freely);
  // all must agree with the single-threaded result.
  constexpr int kExprs = 300;
  std::vector<std::string> expected;
  {
    Generator gen(/*seed=*/5, /*symbolic_divisors=*/true);
    for (int i = 0; i < kExprs; ++i) expected.push_back(Build(gen.Expr(4)).ToString());
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &expected, &mismatches] {
      ScopedIndexExprContext context;
      Generator gen(/*seed=*/5, /*symbolic_divisors=*/true);
      for (int i = 0; i < kExprs; ++i) {
        IndexExpr own = IndexExpr::Symbol("thread" + std::to_string(t) + "_" + std::to_string(i));
        IndexExpr shared = IndexExpr::Symbol("shared" + std::to_string(i % 17));
        IndexExpr e = Build(gen.Expr(4));
        if (e.ToString() != expected[i]) mismatches.fetch_add(1);
        if (FloorDiv(own * shared + own, own) != shared + 1) mismatches.fetch_add(1);
        if (Max(own, shared) != Max(shared, own)) mismatches.fetch_add(1);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST_F(IndexExprRandomTest, LiteralsAndKnownSymbolsDoNotAllocate) {
  const IndexExpr n = IndexExpr::Symbol("N");  // interned before counting
  IndexExpr a = 3, b = 4;
  int64_t sink = 0;
  const int64_t before = allocations.load();
  for (int i = 0; i < 1000; ++i) {
    IndexExpr c = a * b + FloorDiv(a, 2) - Mod(b, 3) + CeilDiv(a, b) + Min(a, b) - Max(a, b);
    c = -c * 7 + IndexExpr::Literal(i);
    c = Select(Lt(c, a), c, b);
    if (Eq(c, b).IsKnown() && c == c) sink += c.literal();
    IndexExpr s = IndexExpr::Symbol("N");
    if (s == n && (s + 0) == n && (s * 1) == n) ++sink;
  }
  const int64_t after = allocations.load();
  EXPECT_EQ(after - before, 0) << "allocations per iteration: " << (after - before) / 1000.0;
  EXPECT_NE(sink, 0);
}

TEST_F(IndexExprRandomTest, ShapeHelperStyleThroughput) {
  // The arithmetic of a Conv / Pool / Reshape / Slice ShapeHelper on symbolic dims; reported,
  // not asserted (machines differ), to keep an eye on the per-node cost.
  const IndexExpr batch = IndexExpr::Symbol("batch"), h = IndexExpr::Symbol("H"),
                  w = IndexExpr::Symbol("W");
  constexpr int kNodes = 10000;
  auto start = std::chrono::steady_clock::now();
  int64_t sink = 0;
  for (int i = 0; i < kNodes; ++i) {
    IndexExpr oh = FloorDiv(h + 2 * 1 - 3, 2) + 1;
    IndexExpr ow = FloorDiv(w + 1 + 1 - (3 - 1) - 1, 2) + 1;
    IndexExpr elems = batch * 64 * oh * ow;
    IndexExpr inferred = FloorDiv(elems, batch * 64);
    IndexExpr end = Min(h, 2147483647);
    IndexExpr same = Max(oh, 0);
    sink += (inferred == oh * ow) + (end == h) + (same == oh) + Eq(oh, ow).IsKnown();
  }
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() /
      kNodes;
  printf("[ throughput ] %.2f us per Conv/Pool-like node (6 dims, ~20 IndexExpr ops)\n", us);
  EXPECT_EQ(sink, 3 * kNodes);
}

}  // namespace
}  // namespace anvil
