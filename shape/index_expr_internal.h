// The canonical representation behind IndexExpr, shared by index_expr*.cc. Private to the
// index_expr library.
//
// A symbolic value is a Poly: an int64 constant plus terms {coeff, monomial}, sorted by
// CompareMonomials, no two with the same monomial, no zero coefficient. A monomial is a sorted
// multiset of atoms (N*N*M). Atoms are symbols, questionmarks, and the non-affine atoms
// floor(P / Q), min(P, ...), max(P, ...) whose arguments are canonical Polys.
//
// Atoms and monomials are hash-consed in the tables of a context (ContextImpl, the storage behind
// an IndexExprContext, like the uniqued storage of an MLIR context), so structural equality of
// atoms and monomials is pointer equality and a Term is a trivially copyable {pointer, int64}.
// A context frees its atoms and monomials when it dies, which is once its IndexExprContext and
// every IndexExpr made in it are gone: each symbolic IndexExpr holds its context. Expressions of
// two contexts never meet (a check aborts): their atoms would compare unequal.
//
// Fixed total order (what makes printing deterministic):
//  - atoms: symbols (by name) < questionmarks (by id) < floor < min < max; non-affine atoms of
//    one kind by their arguments (ComparePolys, lexicographically);
//  - monomials: higher degree first, then lexicographically by atom order (`N*N + M + N`);
//  - polys: term by term (monomial, then coefficient), a poly whose terms run out first sorts
//    after (the constant comes last, as printed), then by constant; so `min(N, 5)`.
#ifndef ANVIL_SHAPE_INDEX_EXPR_INTERNAL_H_
#define ANVIL_SHAPE_INDEX_EXPR_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"

namespace anvil {

// Defined in index_expr.h, which builds on this representation: the bridges below only name it.
class IndexExpr;

namespace index_expr_internal {

// ---- Intervals: what simplification knows about a value's range ----

// Closed range; lo == kNegInf / hi == kPosInf mean unbounded on that side.
inline constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
// The assumption about symbols (see index_expr.h): every symbol is in [0, kSymbolMax].
inline constexpr int64_t kSymbolMax = (int64_t{1} << 31) - 1;

struct Interval {
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;
};

// The largest expression an operation may build, in printed nodes (symbols, terms, floor/min/max
// and their arguments counted as a tree). Atoms are shared, so memory stays small even past it,
// but printing, error messages and translations walk the tree: `a % b % c % ...` doubles per
// step. Real dims stay in the tens; a bigger result is undefined ("expression too large").
inline constexpr int64_t kMaxExprSize = 4096;

// ---- Canonical structures ----

enum class AtomKind : uint8_t { kSymbol, kQuestionmark, kFloor, kMin, kMax };

struct Atom;
struct Monomial;
struct ContextImpl;

struct Term {
  const Monomial* mono;
  int64_t coeff;
  bool operator==(const Term& other) const = default;
};

struct Poly {
  int64_t constant = 0;
  absl::InlinedVector<Term, 2> terms;

  Poly() = default;
  explicit Poly(int64_t c) : constant(c) {}
  bool IsLiteral() const { return terms.empty(); }
  // Exactly 1*atom (no constant): the atom, else nullptr.
  const Atom* AsSingleAtom() const;
  bool HasQuestionmark() const;
  bool operator==(const Poly& other) const {
    return constant == other.constant && terms == other.terms;
  }
};

// poly_ of an undefined IndexExpr (Poly's fields unused): the reason.
struct UndefinedPoly : Poly {
  explicit UndefinedPoly(std::string r) : reason(std::move(r)) {}
  std::string reason;
};

struct Atom {
  AtomKind kind;
  ContextImpl* context = nullptr;  // the context that owns it
  std::string name;                // kSymbol
  uint64_t id = 0;                 // kQuestionmark
  std::vector<Poly> args;  // kFloor: {numerator, divisor}; kMin/kMax: sorted, distinct, >= 2
  bool has_questionmark = false;
  Interval interval;
  // What is known for sure, without the symbol assumption: a symbol's declared range
  // (IndexExprContext::DeclareRange, IndexExpr::BoundedSymbol) or [0, +inf); RangeOf reads it.
  // `interval` is this range intersected with the assumption.
  Interval range;
  int64_t size = 1;  // printed nodes as a tree, saturating at kMaxExprSize + 1
  size_t hash = 0;
  const Monomial* mono = nullptr;  // the degree-1 monomial {this}
  Poly self;                       // 1*this, what every IndexExpr that is this atom points at
};

struct Monomial {
  std::vector<const Atom*> atoms;  // sorted by CompareAtoms, with repetition
  bool has_questionmark = false;
  Interval interval;
  Interval range;    // the product of the atoms' ranges
  int64_t size = 0;  // sum of the atoms' sizes, saturating at kMaxExprSize + 1
  size_t hash = 0;
  // A single symbol atom (what affine expressions are made of).
  bool IsSymbol() const { return atoms.size() == 1 && atoms[0]->kind == AtomKind::kSymbol; }
};

inline const Atom* Poly::AsSingleAtom() const {
  if (constant != 0 || terms.size() != 1 || terms[0].coeff != 1) return nullptr;
  return terms[0].mono->atoms.size() == 1 ? terms[0].mono->atoms[0] : nullptr;
}

inline bool Poly::HasQuestionmark() const {
  for (const Term& t : terms) {
    if (t.mono->has_questionmark) return true;
  }
  return false;
}

// ---- Contexts and interning (index_expr_poly.cc) ----
//
// A context is used by one thread at a time, so its tables need no lock. There is no default
// context: making a symbol or questionmark needs one installed on the thread.

// The context installed on this thread (IndexExprContext::Scope); aborts with a message saying
// to install one when there is none.
ContextImpl& CurrentContext();
// The context of a symbolic poly (of its first atom), kept alive by the returned pointer.
std::shared_ptr<ContextImpl> ContextOf(const Poly& p);
// 1*atom as a pointer that keeps the atom's context alive (no allocation).
std::shared_ptr<const Poly> AtomPoly(const Atom* a);
// Aborts when a term of `p` is not of `context` (expressions of two contexts were combined).
void CheckOneContext(const Poly& p, const ContextImpl* context);
[[noreturn]] void MixedContexts();

const Atom* InternSymbol(ContextImpl& context, std::string_view name);
// The symbol `name` with the declared range `range` (lo >= 0): the existing symbol when it was
// made with that range; nullptr when `name` exists with another range (made earlier, undeclared
// or declared otherwise), since an atom's intervals are fixed when it is interned.
const Atom* InternBoundedSymbol(ContextImpl& context, std::string_view name, Interval range);
const Atom* NewQuestionmark(ContextImpl& context);
// `numerator` / `divisor` must already be canonical and simplified (FloorDiv's job); at least one
// is symbolic, whose context the atom joins.
const Atom* InternFloor(Poly numerator, Poly divisor);
// kMin or kMax; `args` sorted by ComparePolys, distinct, at least two, one symbolic.
const Atom* InternMinMax(AtomKind kind, std::vector<Poly> args);
// The product of two monomials (of one context).
const Monomial* MulMonomials(const Monomial* a, const Monomial* b);
// `a` / `b` when the multiset `b` is contained in `a` (nullptr otherwise; b == a gives the empty
// monomial, reported as `*is_one`).
const Monomial* DivMonomials(const Monomial* a, const Monomial* b, bool* is_one);

// ---- Order, hashing ----

int CompareAtoms(const Atom* a, const Atom* b);
int CompareMonomials(const Monomial* a, const Monomial* b);
int ComparePolys(const Poly& a, const Poly& b);
size_t HashPoly(const Poly& p);
size_t HashMix(size_t h, uint64_t v);

// ---- Exact polynomial arithmetic: false on int64 overflow ----

// out = a + k*b.
bool AddScaled(const Poly& a, const Poly& b, int64_t k, Poly* out);
// out = k*a.
bool Scale(const Poly& a, int64_t k, Poly* out);
bool Multiply(const Poly& a, const Poly& b, Poly* out);

// Printed nodes of `p` as a tree (see kMaxExprSize), saturating at kMaxExprSize + 1.
int64_t PolySize(const Poly& p);

// Atoms and monomials alive over all contexts.
int64_t LiveNodes();

// ---- Range analysis under the symbol assumption ----

Interval PolyInterval(const Poly& p);
Interval FloorInterval(const Interval& num, const Interval& den);
// The same over the atoms' `range`s: sound bounds with no assumption (RangeOf).
Interval PolyRange(const Poly& p);

// ---- Bridges to IndexExpr (index_expr.cc) ----

// The canonical IndexExpr of `p`: a literal when it has no terms; shares an atom's poly when `p`
// is just that atom.
IndexExpr MakeExpr(Poly p);
// The poly of a literal or symbolic `e` (a literal is materialized in `scratch`).
const Poly& PolyOf(const IndexExpr& e, Poly& scratch);

// Floor division rounding toward negative infinity; b != 0, and not (INT64_MIN, -1).
inline int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Printing of one canonical poly / atom (index_expr_print.cc).
void AppendPoly(const Poly& p, std::string* out);
bool IsIdentifier(std::string_view name);

}  // namespace index_expr_internal
}  // namespace anvil

#endif  // ANVIL_SHAPE_INDEX_EXPR_INTERNAL_H_
