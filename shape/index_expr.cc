// IndexExpr: construction, canonicalizing arithmetic, floor/ceil/mod, min/max, comparisons,
// equality, evaluation. The polynomial layer is index_expr_poly.cc; printing and parsing are
// index_expr_print.cc and index_expr_parse.cc.
//
// Canonical form of floor division by a literal c > 0 (FloorDivByLiteral): the numerator and c
// are divided by the gcd of all coefficients, the constant and c; then every coefficient k is
// split as c*q + r: the q parts leave the floor, the r parts stay, with a fixed representative
// r of k mod c (that is what makes the form canonical):
//  - term coefficients: r in [0, c), the usual floor-mod, so positive coefficients (nearly all
//    dims) stay as written: floor(3*N / 4), floor((N + M) / 2);
//  - the constant: r in [-c/2, c/2), ties negative, so numerators keep small constants and the
//    `x - 1` of Conv/Pool formulas: floor((H + 1) / 2) and ceil(H / 2) print as
//    `floor((H - 1) / 2) + 1`, ceil(N / c) as `floor((N - 1) / c) + 1`, floor((H + 1) / 3)
//    stays; floor((2*N + 3) / 2) is N + 1.
// A numerator that is just floor(P / c1) plus a constant is merged:
// floor((floor(P / c1) + r) / c) == floor((P + r*c1) / (c1*c)).
#include "shape/index_expr.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shape/index_expr_internal.h"

namespace anvil {

using index_expr_internal::Atom;
using index_expr_internal::AtomKind;
using index_expr_internal::ContextImpl;
using index_expr_internal::Interval;
using index_expr_internal::Monomial;
using index_expr_internal::Poly;
using index_expr_internal::Term;

// The private parts of IndexExpr that the helpers here need.
struct IndexExprAccess {
  static IndexExpr FromPoly(std::shared_ptr<const Poly> poly) {
    return IndexExpr::FromPoly(std::move(poly));
  }
  static const Poly* poly(const IndexExpr& e) { return e.poly_.get(); }
};

namespace index_expr_internal {

namespace {
// A symbolic value's storage: its poly, and its context, which must live as long as it does.
struct ExprNode {
  ExprNode(std::shared_ptr<ContextImpl> c, Poly p) : context(std::move(c)), poly(std::move(p)) {}
  std::shared_ptr<ContextImpl> context;
  Poly poly;
};
}  // namespace

IndexExpr MakeExpr(Poly p) {
  if (p.IsLiteral()) return IndexExpr(p.constant);
  if (PolySize(p) > kMaxExprSize) {
    return IndexExpr::Undefined(
        absl::StrCat("expression too large (over ", kMaxExprSize, " nodes)"));
  }
  if (const Atom* a = p.AsSingleAtom()) return IndexExprAccess::FromPoly(AtomPoly(a));
  std::shared_ptr<ContextImpl> context = ContextOf(p);
  CheckOneContext(p, context.get());
  auto node = std::make_shared<const ExprNode>(std::move(context), std::move(p));
  return IndexExprAccess::FromPoly(std::shared_ptr<const Poly>(node, &node->poly));
}

const Poly& PolyOf(const IndexExpr& e, Poly& scratch) {
  if (e.IsLiteral()) {
    scratch.terms.clear();
    scratch.constant = e.literal();
    return scratch;
  }
  return *IndexExprAccess::poly(e);
}

}  // namespace index_expr_internal

namespace {

using index_expr_internal::AddScaled;
using index_expr_internal::FloorDivInt;
using index_expr_internal::MakeExpr;
using index_expr_internal::PolyOf;

// ---- Reasons of undefined results ----

std::string Operand(const IndexExpr& e) {
  std::string s = e.ToString();
  return s.find(' ') == std::string::npos ? s : absl::StrCat("(", s, ")");
}

// What the caller asked for, to name it in a reason: "N * 4", "floor(N / 0)", "N % 0".
struct OpDesc {
  const char* op;  // "+", "-", "*", "neg", "floor", "ceil", "%"
  const IndexExpr& a;
  const IndexExpr& b;

  std::string Text() const {
    std::string_view o = op;
    if (o == "neg") return absl::StrCat("-(", a.ToString(), ")");
    if (o == "floor" || o == "ceil") {
      return absl::StrCat(op, "(", Operand(a), " / ", Operand(b), ")");
    }
    return absl::StrCat(Operand(a), " ", op, " ", Operand(b));
  }
};

IndexExpr Overflow(const OpDesc& d) {
  return IndexExpr::Undefined(absl::StrCat("int64 overflow in ", d.Text()));
}

IndexExpr DivisionByZero(const OpDesc& d) {
  return IndexExpr::Undefined(absl::StrCat("division by zero in ", d.Text()));
}

IndexExpr PredicateOperand(std::string_view op) {
  return IndexExpr::Undefined(
      absl::StrCat("a predicate used as an integer operand of ", std::string(op)));
}

// The result when an operand is undefined (the first one) or a predicate.
std::optional<IndexExpr> BadOperands(const IndexExpr& a, const IndexExpr& b, const char* op) {
  if (a.IsUndefined()) return a;
  if (b.IsUndefined()) return b;
  if (a.IsPredicate() || b.IsPredicate()) return PredicateOperand(op);
  return std::nullopt;
}

uint64_t AbsU(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : v; }

// gcd of every coefficient and constant of `p`, folded into `g`.
uint64_t ContentGcd(const Poly& p, uint64_t g) {
  for (const Term& t : p.terms) g = std::gcd(g, AbsU(t.coeff));
  return std::gcd(g, AbsU(p.constant));
}

// Exact division of every coefficient and the constant by g > 1 (g divides them all).
void DivideContent(Poly& p, uint64_t g) {
  auto divide = [g](int64_t v) -> int64_t {
    // g == 2^63 divides only 0 and INT64_MIN.
    if (g > static_cast<uint64_t>(index_expr_internal::kPosInf)) return v == 0 ? 0 : -1;
    return v / static_cast<int64_t>(g);
  };
  for (Term& t : p.terms) t.coeff = divide(t.coeff);
  p.constant = divide(p.constant);
}

void SortTerms(Poly& p) {
  std::sort(p.terms.begin(), p.terms.end(), [](const Term& x, const Term& y) {
    return index_expr_internal::CompareMonomials(x.mono, y.mono) < 0;
  });
}

// p + floor(num / den) for a canonical, already simplified num / den. A floor whose range is a
// single value under the symbol assumption is that value (floor(-1 / N) == -1).
IndexExpr PlusFloor(const Poly& p, Poly num, Poly den, const OpDesc& d) {
  const Atom* atom = index_expr_internal::InternFloor(std::move(num), std::move(den));
  Poly point(atom->interval.lo);
  const Poly* f = &atom->self;
  if (atom->interval.lo == atom->interval.hi && atom->interval.lo != index_expr_internal::kNegInf &&
      atom->interval.hi != index_expr_internal::kPosInf) {
    f = &point;
  }
  Poly out;
  if (!AddScaled(p, *f, 1, &out)) return Overflow(d);
  return MakeExpr(std::move(out));
}

// floor(a / c) for a symbolic `a` and a literal c != 0 (see the file comment).
IndexExpr FloorDivByLiteral(const Poly& a, int64_t c, const OpDesc& d) {
  // Reduce by the gcd first, then make the divisor positive (floor(a / c) == floor(-a / -c)): in
  // this order a coefficient or divisor of INT64_MIN only overflows when it has to.
  Poly num = a;
  uint64_t magnitude = AbsU(c);
  uint64_t g = ContentGcd(num, magnitude);
  if (g > 1) {
    DivideContent(num, g);
    magnitude /= g;
  }
  if (magnitude > static_cast<uint64_t>(index_expr_internal::kPosInf)) return Overflow(d);
  if (c < 0 && !index_expr_internal::Scale(num, -1, &num)) return Overflow(d);
  c = static_cast<int64_t>(magnitude);
  if (c == 1) return MakeExpr(std::move(num));
  Poly quot, rest;
  for (const Term& t : num.terms) {
    int64_t q = FloorDivInt(t.coeff, c);
    int64_t r = t.coeff - q * c;  // in [0, c); q * c cannot overflow as |q * c| <= |t.coeff|
    if (q != 0) quot.terms.push_back({t.mono, q});
    if (r != 0) rest.terms.push_back({t.mono, r});
  }
  if (rest.terms.empty()) {
    quot.constant = FloorDivInt(num.constant, c);
    return MakeExpr(std::move(quot));
  }
  // Constant remainder in [-c/2, c/2).
  int64_t m = num.constant % c;
  if (m < 0) m += c;
  quot.constant = FloorDivInt(num.constant, c);
  if (m >= c - m) {
    quot.constant += 1;
    rest.constant = m - c;
  } else {
    rest.constant = m;
  }
  // floor((floor(P / c1) + r) / c) == floor((P + r*c1) / (c1*c)).
  if (rest.terms.size() == 1 && rest.terms[0].coeff == 1 && rest.terms[0].mono->atoms.size() == 1) {
    const Atom* inner = rest.terms[0].mono->atoms[0];
    int64_t cc;
    Poly merged;
    if (inner->kind == AtomKind::kFloor && inner->args[1].IsLiteral() &&
        !__builtin_mul_overflow(inner->args[1].constant, c, &cc) &&
        AddScaled(inner->args[0], Poly(rest.constant), inner->args[1].constant, &merged)) {
      IndexExpr f = FloorDivByLiteral(merged, cc, d);
      if (f.IsDefined()) {
        Poly scratch, out;
        if (AddScaled(quot, PolyOf(f, scratch), 1, &out)) return MakeExpr(std::move(out));
      }
    }
  }
  return PlusFloor(quot, std::move(rest), Poly(c), d);
}

// floor(a / b) for a symbolic divisor `b`, assumed positive.
IndexExpr FloorDivBySymbolic(const Poly& a, const Poly& b, const OpDesc& d) {
  if (a.IsLiteral() && a.constant == 0) return 0;
  Poly num = a, den = b;
  if (den.terms[0].coeff < 0) {  // floor(a / b) == floor(-a / -b)
    if (!index_expr_internal::Scale(a, -1, &num) || !index_expr_internal::Scale(b, -1, &den)) {
      return Overflow(d);
    }
  }
  uint64_t g = ContentGcd(den, ContentGcd(num, 0));
  if (g > 1) {
    DivideContent(num, g);
    DivideContent(den, g);
  }
  if (num == den) return 1;
  // num == k*den.
  if (num.terms.size() == den.terms.size() && num.terms[0].mono == den.terms[0].mono &&
      num.terms[0].coeff % den.terms[0].coeff == 0) {
    Poly kd;
    int64_t k = num.terms[0].coeff / den.terms[0].coeff;
    if (index_expr_internal::Scale(den, k, &kd) && kd == num) return k;
  }
  if (den.terms.size() == 1 && den.constant == 0) {
    // A monomial divisor cb*mb (mb > 0 since the divisor is).
    const Monomial* mb = den.terms[0].mono;
    const int64_t cb = den.terms[0].coeff;
    // Every term a multiple of mb: cancel it, floor(mb*X / (cb*mb)) == floor(X / cb).
    Poly cancelled;
    bool all = num.constant == 0;
    for (size_t i = 0; all && i < num.terms.size(); ++i) {
      bool is_one;
      const Monomial* q = index_expr_internal::DivMonomials(num.terms[i].mono, mb, &is_one);
      if (is_one) {
        cancelled.constant = num.terms[i].coeff;
      } else if (q != nullptr) {
        cancelled.terms.push_back({q, num.terms[i].coeff});
      } else {
        all = false;
      }
    }
    if (all) {
      SortTerms(cancelled);
      if (cancelled.IsLiteral()) return FloorDivInt(cancelled.constant, cb);
      return FloorDivByLiteral(cancelled, cb, d);
    }
    // Terms that are multiples of the whole divisor leave the floor:
    // floor((k*cb*mb*X + R) / (cb*mb)) == k*X + floor(R / (cb*mb)).
    Poly quot, rest;
    rest.constant = num.constant;
    for (const Term& t : num.terms) {
      bool is_one = false;
      const Monomial* q =
          t.coeff % cb == 0 ? index_expr_internal::DivMonomials(t.mono, mb, &is_one) : nullptr;
      if (is_one) {
        quot.constant = t.coeff / cb;
      } else if (q != nullptr) {
        quot.terms.push_back({q, t.coeff / cb});
      } else {
        rest.terms.push_back(t);
      }
    }
    if (!(quot.IsLiteral() && quot.constant == 0)) {
      SortTerms(quot);
      return PlusFloor(quot, std::move(rest), std::move(den), d);
    }
  }
  return PlusFloor(Poly(0), std::move(num), std::move(den), d);
}

// floor(a / b) of two integer operands; `d` names what the caller computes.
IndexExpr FloorDivImpl(const IndexExpr& a, const IndexExpr& b, const OpDesc& d) {
  if (a.IsLiteral() && b.IsLiteral()) {
    if (b.literal() == 0) return DivisionByZero(d);
    if (a.literal() == index_expr_internal::kNegInf && b.literal() == -1) return Overflow(d);
    return FloorDivInt(a.literal(), b.literal());
  }
  Poly sa, sb;
  const Poly& pa = PolyOf(a, sa);
  const Poly& pb = PolyOf(b, sb);
  if (pb.IsLiteral()) {
    if (pb.constant == 0) return DivisionByZero(d);
    return FloorDivByLiteral(pa, pb.constant, d);
  }
  return FloorDivBySymbolic(pa, pb, d);
}

IndexExpr MinMaxImpl(AtomKind kind, absl::Span<const IndexExpr> args) {
  const char* name = kind == AtomKind::kMin ? "min" : "max";
  if (args.empty()) return IndexExpr::Undefined(absl::StrCat(name, " of no arguments"));
  for (const IndexExpr& a : args) {
    if (a.IsUndefined()) return a;
  }
  for (const IndexExpr& a : args) {
    if (a.IsPredicate()) return PredicateOperand(name);
  }
  if (args.size() == 1) return args[0];
  // Flatten nested min (max), fold the literals into one.
  std::vector<Poly> polys;
  std::optional<int64_t> literal;
  auto add_literal = [&](int64_t v) {
    literal =
        !literal ? v : (kind == AtomKind::kMin ? std::min(*literal, v) : std::max(*literal, v));
  };
  for (const IndexExpr& a : args) {
    if (a.IsLiteral()) {
      add_literal(a.literal());
      continue;
    }
    const Poly& p = *IndexExprAccess::poly(a);
    const Atom* atom = p.AsSingleAtom();
    if (atom != nullptr && atom->kind == kind) {
      for (const Poly& inner : atom->args) {
        if (inner.IsLiteral()) {
          add_literal(inner.constant);
        } else {
          polys.push_back(inner);
        }
      }
    } else {
      polys.push_back(p);
    }
  }
  if (polys.empty()) return *literal;
  if (literal) polys.push_back(Poly(*literal));
  // Drop every argument another one provably dominates (equal ones included: one survives).
  std::vector<bool> alive(polys.size(), true);
  for (size_t i = 0; i < polys.size(); ++i) {
    for (size_t j = 0; j < polys.size() && alive[i]; ++j) {
      if (i == j || !alive[j]) continue;
      Poly diff;  // polys[i] - polys[j]
      if (!AddScaled(polys[i], polys[j], -1, &diff)) continue;
      Interval r = index_expr_internal::PolyInterval(diff);
      if (kind == AtomKind::kMin ? r.lo >= 0 : r.hi <= 0) alive[i] = false;
    }
  }
  std::vector<Poly> kept;
  for (size_t i = 0; i < polys.size(); ++i) {
    if (alive[i]) kept.push_back(std::move(polys[i]));
  }
  if (kept.size() == 1) return MakeExpr(std::move(kept[0]));
  std::sort(kept.begin(), kept.end(), [](const Poly& x, const Poly& y) {
    return index_expr_internal::ComparePolys(x, y) < 0;
  });
  return IndexExprAccess::FromPoly(
      index_expr_internal::AtomPoly(index_expr_internal::InternMinMax(kind, std::move(kept))));
}

enum class Cmp { kEq, kNe, kLt, kLe };

IndexExpr Decide(Cmp op, const Interval& d) {  // d: the range of a - b
  auto decided = [](bool v) { return IndexExpr::Predicate(v); };
  switch (op) {
    case Cmp::kEq:
    case Cmp::kNe: {
      std::optional<bool> eq;
      if (d.lo == 0 && d.hi == 0) eq = true;
      if (d.lo > 0 || d.hi < 0) eq = false;
      if (!eq) return IndexExpr::UnknownPredicate();
      return decided(op == Cmp::kEq ? *eq : !*eq);
    }
    case Cmp::kLt:
      if (d.hi < 0) return decided(true);
      if (d.lo >= 0) return decided(false);
      return IndexExpr::UnknownPredicate();
    case Cmp::kLe:
      if (d.hi <= 0) return decided(true);
      if (d.lo > 0) return decided(false);
      return IndexExpr::UnknownPredicate();
  }
  return IndexExpr::UnknownPredicate();
}

IndexExpr Compare(Cmp op, const IndexExpr& a, const IndexExpr& b) {
  if (a.IsUndefined()) return a;
  if (b.IsUndefined()) return b;
  if (a.IsPredicate() != b.IsPredicate()) {
    return IndexExpr::Undefined("a predicate compared with an integer");
  }
  if (a.IsPredicate() && !(a.IsKnown() && b.IsKnown())) return IndexExpr::UnknownPredicate();
  if (a.IsKnown() && b.IsKnown()) {
    // Literal operands compare directly (their difference may not fit int64).
    int64_t x = a.literal(), y = b.literal();
    return Decide(op, {x < y ? -1 : (x > y ? 1 : 0), x < y ? -1 : (x > y ? 1 : 0)});
  }
  if (a == b) return Decide(op, {0, 0});
  Poly sa, sb, diff;
  if (!AddScaled(PolyOf(a, sa), PolyOf(b, sb), -1, &diff)) return IndexExpr::UnknownPredicate();
  return Decide(op, index_expr_internal::PolyInterval(diff));
}

// ---- Evaluation ----

using ValueOf = std::function<std::optional<int64_t>(std::string_view)>;

// Evaluation is exact in 128 bits, so a canonical form whose parts are large but cancel
// (c*floor(x / c) terms with a large c, ...) evaluates whenever the value itself fits int64.
using int128 = __int128;

std::optional<int128> EvalPoly(const Poly& p, const ValueOf& value_of);

int128 FloorDiv128(int128 a, int128 b) {
  int128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::optional<int128> EvalAtom(const Atom* a, const ValueOf& value_of) {
  switch (a->kind) {
    case AtomKind::kSymbol: {
      std::optional<int64_t> v = value_of(a->name);
      if (!v) return std::nullopt;
      return *v;
    }
    case AtomKind::kQuestionmark:
      return std::nullopt;
    case AtomKind::kFloor: {
      std::optional<int128> n = EvalPoly(a->args[0], value_of);
      std::optional<int128> q = EvalPoly(a->args[1], value_of);
      // |n| < 2^127 (sums are overflow-checked), so only q == -1 with n == INT128_MIN could
      // overflow, and n is never INT128_MIN.
      if (!n || !q || *q == 0) return std::nullopt;
      return FloorDiv128(*n, *q);
    }
    case AtomKind::kMin:
    case AtomKind::kMax: {
      std::optional<int128> r;
      for (const Poly& arg : a->args) {
        std::optional<int128> v = EvalPoly(arg, value_of);
        if (!v) return std::nullopt;
        r = !r ? *v : (a->kind == AtomKind::kMin ? std::min(*r, *v) : std::max(*r, *v));
      }
      return r;
    }
  }
  return std::nullopt;
}

std::optional<int128> EvalPoly(const Poly& p, const ValueOf& value_of) {
  // Kept within +-2^126 so that negation and floor division can never overflow.
  constexpr int128 kLimit = int128{1} << 126;
  int128 sum = p.constant;
  for (const Term& t : p.terms) {
    int128 product = t.coeff;
    for (const Atom* a : t.mono->atoms) {
      std::optional<int128> v = EvalAtom(a, value_of);
      if (!v || __builtin_mul_overflow(product, *v, &product)) return std::nullopt;
    }
    if (__builtin_add_overflow(sum, product, &sum)) return std::nullopt;
  }
  if (sum >= kLimit || sum <= -kLimit) return std::nullopt;
  return sum;
}

void CollectSymbols(const Poly& p, std::vector<std::string>& names,
                    std::vector<const Atom*>& seen) {
  for (const Term& t : p.terms) {
    for (const Atom* a : t.mono->atoms) {
      if (std::find(seen.begin(), seen.end(), a) != seen.end()) continue;
      seen.push_back(a);
      if (a->kind == AtomKind::kSymbol) names.push_back(a->name);
      for (const Poly& arg : a->args) CollectSymbols(arg, names, seen);
    }
  }
}

}  // namespace

// ---- Construction ----

IndexExpr::IndexExpr() : kind_(Kind::kUndefined) {}

IndexExpr::IndexExpr(int64_t literal) : kind_(Kind::kLiteral), literal_(literal) {}

IndexExpr::IndexExpr(Kind kind, int64_t literal, std::shared_ptr<const Poly> poly)
    : kind_(kind), literal_(literal), poly_(std::move(poly)) {}

IndexExpr IndexExpr::FromPoly(std::shared_ptr<const Poly> poly) {
  if (poly->terms.empty()) return IndexExpr(poly->constant);
  bool questionmark = false, affine = true;
  for (const Term& t : poly->terms) {
    questionmark |= t.mono->has_questionmark;
    affine &= t.mono->IsSymbol();
  }
  Kind kind = questionmark ? Kind::kQuestionmark
              : !affine    ? Kind::kNonAffine
              : (poly->terms.size() == 1 && poly->terms[0].coeff == 1 && poly->constant == 0)
                  ? Kind::kSymbol
                  : Kind::kAffine;
  return IndexExpr(kind, 0, std::move(poly));
}

IndexExpr IndexExpr::Symbol(std::string_view name) {
  using namespace index_expr_internal;  // NOLINT(build/namespaces)
  return IndexExpr(Kind::kSymbol, 0, AtomPoly(InternSymbol(CurrentContext(), name)));
}

IndexExpr IndexExpr::Questionmark() {
  using namespace index_expr_internal;  // NOLINT(build/namespaces)
  return IndexExpr(Kind::kQuestionmark, 0, AtomPoly(NewQuestionmark(CurrentContext())));
}

IndexExpr IndexExpr::Undefined(std::string reason) {
  return IndexExpr(Kind::kUndefined, 0,
                   std::make_shared<const index_expr_internal::UndefinedPoly>(std::move(reason)));
}

IndexExpr IndexExpr::Predicate(bool value) { return IndexExpr(Kind::kPredicate, value, nullptr); }

IndexExpr IndexExpr::UnknownPredicate() { return IndexExpr(Kind::kPredicate, -1, nullptr); }

std::string IndexExpr::undefined_reason() const {
  if (!IsUndefined() || poly_ == nullptr) return "";
  return static_cast<const index_expr_internal::UndefinedPoly&>(*poly_).reason;
}

// ---- Arithmetic ----

IndexExpr IndexExpr::operator+(const IndexExpr& other) const {
  if (IsLiteral() && other.IsLiteral()) {
    int64_t r;
    if (!__builtin_add_overflow(literal_, other.literal_, &r)) return r;
    return Overflow({"+", *this, other});
  }
  if (auto bad = BadOperands(*this, other, "+")) return *bad;
  if (other.IsLiteral() && other.literal_ == 0) return *this;
  if (IsLiteral() && literal_ == 0) return other;
  Poly sa, sb, out;
  if (!AddScaled(PolyOf(*this, sa), PolyOf(other, sb), 1, &out)) {
    return Overflow({"+", *this, other});
  }
  return MakeExpr(std::move(out));
}

IndexExpr IndexExpr::operator-(const IndexExpr& other) const {
  if (IsLiteral() && other.IsLiteral()) {
    int64_t r;
    if (!__builtin_sub_overflow(literal_, other.literal_, &r)) return r;
    return Overflow({"-", *this, other});
  }
  if (auto bad = BadOperands(*this, other, "-")) return *bad;
  if (other.IsLiteral() && other.literal_ == 0) return *this;
  Poly sa, sb, out;
  if (!AddScaled(PolyOf(*this, sa), PolyOf(other, sb), -1, &out)) {
    return Overflow({"-", *this, other});
  }
  return MakeExpr(std::move(out));
}

IndexExpr IndexExpr::operator*(const IndexExpr& other) const {
  if (IsLiteral() && other.IsLiteral()) {
    int64_t r;
    if (!__builtin_mul_overflow(literal_, other.literal_, &r)) return r;
    return Overflow({"*", *this, other});
  }
  if (auto bad = BadOperands(*this, other, "*")) return *bad;
  if (other.IsLiteral() && other.literal_ == 1) return *this;
  if (IsLiteral() && literal_ == 1) return other;
  Poly sa, sb, out;
  if (!index_expr_internal::Multiply(PolyOf(*this, sa), PolyOf(other, sb), &out)) {
    return Overflow({"*", *this, other});
  }
  return MakeExpr(std::move(out));
}

IndexExpr IndexExpr::operator-() const {
  if (IsLiteral()) {
    if (literal_ != index_expr_internal::kNegInf) return -literal_;
    return Overflow({"neg", *this, *this});
  }
  if (IsUndefined()) return *this;
  if (IsPredicate()) return PredicateOperand("-");
  Poly out;
  if (!index_expr_internal::Scale(*poly_, -1, &out)) return Overflow({"neg", *this, *this});
  return MakeExpr(std::move(out));
}

IndexExpr FloorDiv(const IndexExpr& a, const IndexExpr& b) {
  if (auto bad = BadOperands(a, b, "floor division")) return *bad;
  return FloorDivImpl(a, b, {"floor", a, b});
}

IndexExpr CeilDiv(const IndexExpr& a, const IndexExpr& b) {
  if (auto bad = BadOperands(a, b, "ceil division")) return *bad;
  OpDesc d{"ceil", a, b};
  if (b.IsLiteral() && b.literal() == 0) return DivisionByZero(d);
  if (a.IsLiteral() && b.IsLiteral()) {
    if (a.literal() == index_expr_internal::kNegInf && b.literal() == -1) return Overflow(d);
    int64_t q = FloorDivInt(a.literal(), b.literal());
    return a.literal() % b.literal() == 0 ? q : q + 1;
  }
  // ceil(a / b) == floor((a + b - 1) / b) for b > 0; a negative literal b first becomes
  // ceil(-a / -b).
  Poly sa, sb, num, den, sum;
  const int64_t sign = b.IsLiteral() && b.literal() < 0 ? -1 : 1;
  if (!index_expr_internal::Scale(PolyOf(a, sa), sign, &num) ||
      !index_expr_internal::Scale(PolyOf(b, sb), sign, &den) || !AddScaled(num, den, 1, &sum) ||
      !AddScaled(sum, Poly(1), -1, &sum)) {
    return Overflow(d);
  }
  return FloorDivImpl(MakeExpr(std::move(sum)), MakeExpr(std::move(den)), d);
}

IndexExpr Mod(const IndexExpr& a, const IndexExpr& b) {
  if (auto bad = BadOperands(a, b, "%")) return *bad;
  OpDesc d{"%", a, b};
  if (b.IsLiteral() && b.literal() == 0) return DivisionByZero(d);
  if (a.IsLiteral() && b.IsLiteral()) {
    if (b.literal() == -1) return 0;  // INT64_MIN % -1 is 0, but undefined behavior in C++
    int64_t r = a.literal() % b.literal();
    return (r != 0 && ((r < 0) != (b.literal() < 0))) ? r + b.literal() : r;
  }
  // a % b == a - b*floor(a / b).
  IndexExpr q = FloorDivImpl(a, b, d);
  if (q.IsUndefined()) return q;
  Poly sa, sb, sq, prod, out;
  if (!index_expr_internal::Multiply(PolyOf(b, sb), PolyOf(q, sq), &prod) ||
      !AddScaled(PolyOf(a, sa), prod, -1, &out)) {
    return Overflow(d);
  }
  return MakeExpr(std::move(out));
}

IndexExpr Min(absl::Span<const IndexExpr> args) { return MinMaxImpl(AtomKind::kMin, args); }

IndexExpr Max(absl::Span<const IndexExpr> args) { return MinMaxImpl(AtomKind::kMax, args); }

// ---- Comparisons ----

IndexExpr Eq(const IndexExpr& a, const IndexExpr& b) { return Compare(Cmp::kEq, a, b); }
IndexExpr Ne(const IndexExpr& a, const IndexExpr& b) { return Compare(Cmp::kNe, a, b); }
IndexExpr Lt(const IndexExpr& a, const IndexExpr& b) { return Compare(Cmp::kLt, a, b); }
IndexExpr Le(const IndexExpr& a, const IndexExpr& b) { return Compare(Cmp::kLe, a, b); }

IndexExpr Select(const IndexExpr& cond, const IndexExpr& a, const IndexExpr& b) {
  if (cond.IsUndefined()) return cond;
  // A decided condition picks one branch; the other one does not matter, even when undefined
  // (e.g. Select(Eq(b, 0), 0, FloorDiv(a, b))).
  if (cond.IsKnown()) return cond.literal() != 0 ? a : b;
  if (a == b) return a;
  if (a.IsUndefined()) return a;
  if (b.IsUndefined()) return b;
  return IndexExpr::Questionmark();
}

std::optional<IndexExpr> BroadcastDim(const IndexExpr& a, const IndexExpr& b) {
  if (a == b || (b.IsLiteral() && b.literal() == 1)) return a;
  if (a.IsLiteral() && a.literal() == 1) return b;
  if (a.IsLiteral() && b.IsLiteral()) return std::nullopt;
  if (a.IsLiteral()) return a;
  if (b.IsLiteral()) return b;
  // Equal, or one of them 1: the larger, unless one is 0 (0 against 1 broadcasts to 0).
  return Max(a, b) * Min({a, b, IndexExpr(1)});
}

std::optional<std::vector<int64_t>> LiteralDims(const DimsExpr& dims) {
  std::vector<int64_t> result;
  result.reserve(dims.size());
  for (const IndexExpr& d : dims) {
    if (!d.IsLiteral()) return std::nullopt;
    result.push_back(d.literal());
  }
  return result;
}

// ---- Identity ----

bool IndexExpr::operator==(const IndexExpr& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kUndefined:
      return true;
    case Kind::kLiteral:
    case Kind::kPredicate:
      return literal_ == other.literal_;
    default:
      return poly_ == other.poly_ || *poly_ == *other.poly_;
  }
}

size_t IndexExpr::Hash() const {
  size_t h = static_cast<size_t>(kind_);
  switch (kind_) {
    case Kind::kUndefined:
      return index_expr_internal::HashMix(h, 0);
    case Kind::kLiteral:
    case Kind::kPredicate:
      return index_expr_internal::HashMix(h, static_cast<uint64_t>(literal_));
    default:
      return index_expr_internal::HashMix(h, index_expr_internal::HashPoly(*poly_));
  }
}

std::optional<int64_t> IndexExpr::Evaluate(
    const std::function<std::optional<int64_t>(std::string_view symbol)>& value_of) const {
  switch (kind_) {
    case Kind::kLiteral:
      return literal_;
    case Kind::kPredicate:
      if (literal_ < 0) return std::nullopt;
      return literal_;
    case Kind::kSymbol:
    case Kind::kAffine:
    case Kind::kNonAffine:
      if (std::optional<__int128> v = EvalPoly(*poly_, value_of);
          v && *v >= index_expr_internal::kNegInf && *v <= index_expr_internal::kPosInf) {
        return static_cast<int64_t>(*v);
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::vector<std::string> IndexExpr::Symbols() const {
  std::vector<std::string> names;
  if (poly_ == nullptr || IsUndefined()) return names;
  std::vector<const Atom*> seen;
  CollectSymbols(*poly_, names, seen);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::optional<IndexExprStructure> Decompose(const IndexExpr& e) {
  if (e.IsLiteral()) return IndexExprStructure{e.literal(), {}};
  if (e.IsPredicate() || e.IsUndefined()) return std::nullopt;
  const Poly& p = *IndexExprAccess::poly(e);
  IndexExprStructure result{p.constant, {}};
  for (const Term& t : p.terms) {
    IndexTerm term{t.coeff, {}};
    for (const Atom* a : t.mono->atoms) {
      IndexAtom atom;
      switch (a->kind) {
        case AtomKind::kSymbol:
          atom.kind = IndexAtom::Kind::kSymbol;
          atom.name = a->name;
          break;
        case AtomKind::kQuestionmark:
          atom.kind = IndexAtom::Kind::kQuestionmark;
          atom.questionmark_id = a->id;
          break;
        case AtomKind::kFloor:
          atom.kind = IndexAtom::Kind::kFloorDiv;
          break;
        case AtomKind::kMin:
          atom.kind = IndexAtom::Kind::kMin;
          break;
        case AtomKind::kMax:
          atom.kind = IndexAtom::Kind::kMax;
          break;
      }
      for (const Poly& arg : a->args) atom.args.push_back(MakeExpr(arg));
      term.factors.push_back(std::move(atom));
    }
    result.terms.push_back(std::move(term));
  }
  return result;
}

}  // namespace anvil
