// IndexExpr: an immutable, exact value for one tensor dimension (or one element of a shape
// tensor), literal or symbolic. ShapeHelpers compute output dims with IndexExprs; the same code
// then serves shape analysis (symbols for dynamic dims), the runtime (literals only) and
// lowering.
//
// Kinds (kind()):
//   kLiteral      an int64 constant.
//   kSymbol       a named dynamic dim, e.g. `batch` (a plain dim_param).
//   kAffine       a linear combination of symbols plus a constant: `2*N + M - 1`.
//   kNonAffine    anything else that is exact: products of symbols (`N*M`), floor division,
//                 modulo, min and max: `floor((H - 1) / 2) + 1`, `min(N, 5)`.
//   kQuestionmark unknown but with an identity: two questionmarks compare equal only when they
//                 are copies of the same one (Questionmark() makes a new identity). An
//                 expression that contains a questionmark is a questionmark (IsQuestionmark()).
//                 Dims nothing bounds are questionmarks; shape analysis names the
//                 data-dependent dims of NonZero, Unique, ... with bounded symbols instead.
//   kPredicate    a boolean (result of a comparison): literal true/false, or unknown.
//   kUndefined    an error value: division by zero, int64 overflow, an operand that was itself
//                 undefined. Carries a reason. Every operation on an undefined operand is
//                 undefined with the first reason.
//
// Canonical form. Symbolic values are multivariate polynomials with int64 coefficients over
// *atoms*: symbols, questionmarks, and the non-affine atoms floor(P / Q), min(P, ...),
// max(P, ...) whose arguments are canonical polynomials. Terms are ordered by a fixed total order
// of atoms (symbols by name), zero terms are dropped, and every operation re-canonicalizes, so
// equal expressions compare equal with operator==:
//   2*N + 1 - N == N + 1;  floor((2*N) / 2) == N;  floor((2*N + 3) / 2) == N + 1;
//   ceil(a / b) == floor((a + b - 1) / b);  a % b == a - b*floor(a / b);  (N + 1)*(N - 1)
//   == N*N - 1;  min(N, N + 2) == N;  max(3, min(2, N)) == 3.
// Division and modulo are floor semantics (Python's // and %) on integers; `c` divisors must be
// non-zero (zero gives kUndefined); a symbolic divisor is assumed positive.
//
// Assumptions made by simplification (the values dims take): every symbol is in [0, 2^31).
// They let min/max and comparisons decide facts like min(N, 2^31-1) == N (an "until the end"
// Slice bound) and max(N, 0) == N. A value that breaks them (a negative shape-tensor element
// represented by a symbol) must not be given as a symbol.
//
// Ranges. A symbol may carry a declared range [lo, hi] (hi possibly unbounded), fixed when the
// symbol is first made in its context (BoundedSymbol, DeclareSymbolRange); simplification uses
// it on top of the assumption (min(n, 64) == n when n <= 64). RangeOf(e) gives sound bounds of
// any expression without the assumption: an undeclared symbol is [0, +inf), a questionmark
// unbounded, sums, products, floor/ceil division, mod, min and max by interval arithmetic.
//
// Arithmetic is exact: every coefficient operation checks int64 overflow and yields kUndefined
// ("int64 overflow in ...") rather than wrapping. No doubles anywhere.
//
// Printed form (ToString, and what Parse reads; written into models as dim_param):
//   symbol names, integer literals, + - *, parentheses, floor(a / b), ceil(a / b), a % b,
//   min(a, b, ...), max(a, b, ...);  e.g. `floor((H - 1) / 2) + 1`, `2*M*N + 1`.
// ToString prints the canonical form: higher-degree terms first, then by atom order (symbols by
// name), the constant last: `M + 2*N - 1`, `N*N + M`; `2*N` for coefficients, `M*N` for
// products, ` - ` for negative coefficients, `-N + 3` for a negative leading term. Questionmarks
// print as `?` (an expression containing one prints as `?`); undefined as `<undefined: reason>`;
// predicates as `true`, `false`, `?`. A symbol whose name is not an identifier prints as is
// alone (`batch size`) and `between backquotes` inside an expression. Parse(ToString(e)) == e
// for every symbolic e without questionmarks (a lone non-identifier symbol: FromDimParam).
//
// Contexts. Symbolic values are interned (so equal expressions share atoms and compare by
// pointer) in an IndexExprContext: whoever runs inference owns one (a pass run, a Session's
// shape engine) and installs it on its thread with a Scope (ScopedIndexExprContext does both);
// its atoms are freed once the context and every IndexExpr made in it are gone, so a long-running
// process does not grow. A context is used by one thread at a time and takes no lock. There is
// no process-wide default: making a symbol or questionmark on a thread with no context installed
// aborts with a message saying to install one (tests and tools install theirs too). Arithmetic
// on existing expressions works in their context, installed or not. Expressions of two contexts
// must not be combined (a check aborts).
//
// Cost: literals never allocate; symbolic values share an immutable heap node. Copying is cheap.
#ifndef ANVIL_SHAPE_INDEX_EXPR_H_
#define ANVIL_SHAPE_INDEX_EXPR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace anvil {

namespace index_expr_internal {
struct Poly;         // canonical polynomial; see index_expr.cc
struct ContextImpl;  // the interning tables of a context; see index_expr_poly.cc
}  // namespace index_expr_internal

// Where symbolic IndexExprs live (see the file comment).
class IndexExprContext {
 public:
  IndexExprContext();
  ~IndexExprContext();
  IndexExprContext(const IndexExprContext&) = delete;
  IndexExprContext& operator=(const IndexExprContext&) = delete;

  // Makes `context` the one this thread makes symbols and questionmarks in until the scope ends.
  // Scopes nest; the context must outlive the scope.
  class Scope {
   public:
    explicit Scope(IndexExprContext& context);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    index_expr_internal::ContextImpl* previous_;
  };

  // Atoms and monomials this context holds.
  int64_t num_nodes() const;
  // Whether any symbol was given a range (BoundedSymbol, DeclareSymbolRange).
  bool has_ranges() const;

 private:
  std::shared_ptr<index_expr_internal::ContextImpl> impl_;
};

// A context of its own, installed for this object's lifetime: `ScopedIndexExprContext scope;`
// at the top of a pass run.
class ScopedIndexExprContext {
 public:
  ScopedIndexExprContext() : scope_(context_) {}

 private:
  IndexExprContext context_;
  IndexExprContext::Scope scope_;
};

// Atoms and monomials alive in every context: what flat-memory tests watch.
int64_t LiveIndexExprNodes();

class IndexExpr {
 public:
  enum class Kind : uint8_t {
    kUndefined,
    kLiteral,
    kSymbol,
    kAffine,
    kNonAffine,
    kQuestionmark,
    kPredicate,
  };

  // Undefined, with no reason.
  IndexExpr();
  // Implicit from integers: IndexExpr e = 3; keeps ShapeHelper code short.
  IndexExpr(int64_t literal);  // NOLINT(google-explicit-constructor)
  IndexExpr(int literal) : IndexExpr(static_cast<int64_t>(literal)) {}  // NOLINT

  static IndexExpr Literal(int64_t value) { return IndexExpr(value); }
  // Symbol and Questionmark make atoms in the context installed on this thread (see Contexts
  // above): without one they abort, saying to install one.
  static IndexExpr Symbol(std::string_view name);
  // A new questionmark identity.
  static IndexExpr Questionmark();
  // A symbol with the range [lo, hi] (hi nullopt: unbounded; 0 <= lo <= hi): `name` itself when
  // it is new in the installed context or was made with this same range (so inferring a node
  // again gives the same symbol), else the first of `name_2`, `name_3`, ... that is.
  static IndexExpr BoundedSymbol(std::string_view name, int64_t lo, std::optional<int64_t> hi);
  // Declares the range of the symbol `name` in the installed context before it is first used (a
  // graph input's dim: --input-ranges). FailedPrecondition when `name` is already in use with
  // another range, InvalidArgument for lo < 0 or hi < lo.
  static absl::Status DeclareSymbolRange(std::string_view name, int64_t lo,
                                         std::optional<int64_t> hi);
  static IndexExpr Undefined(std::string reason);
  static IndexExpr Predicate(bool value);
  static IndexExpr UnknownPredicate();

  // Parses the printed form. InvalidArgument with the column on a syntax error.
  static absl::StatusOr<IndexExpr> Parse(std::string_view text);
  // How a dim_param is read: the printed form when it parses, otherwise the whole string is one
  // symbol name (dim_params such as "batch size" or "unk__3" stay symbols).
  static IndexExpr FromDimParam(std::string_view text);

  Kind kind() const { return kind_; }
  bool IsLiteral() const { return kind_ == Kind::kLiteral; }
  bool IsSymbol() const { return kind_ == Kind::kSymbol; }
  bool IsAffine() const {  // literals and symbols are affine too
    return kind_ == Kind::kLiteral || kind_ == Kind::kSymbol || kind_ == Kind::kAffine;
  }
  bool IsQuestionmark() const { return kind_ == Kind::kQuestionmark; }
  bool IsPredicate() const { return kind_ == Kind::kPredicate; }
  bool IsUndefined() const { return kind_ == Kind::kUndefined; }
  bool IsDefined() const { return kind_ != Kind::kUndefined; }
  // Known at compile time: a literal, or a decided predicate.
  bool IsKnown() const { return kind_ == Kind::kLiteral || (IsPredicate() && literal_ >= 0); }

  // The value of a literal, or 1/0 for a decided predicate. Precondition: IsKnown().
  int64_t literal() const { return literal_; }
  // The reason of an undefined value ("" if none given).
  std::string undefined_reason() const;

  std::string ToString() const;

  // ---- Arithmetic (canonicalizing; see the file comment) ----
  IndexExpr operator+(const IndexExpr& other) const;
  IndexExpr operator-(const IndexExpr& other) const;
  IndexExpr operator*(const IndexExpr& other) const;
  IndexExpr operator-() const;
  IndexExpr& operator+=(const IndexExpr& other) { return *this = *this + other; }
  IndexExpr& operator-=(const IndexExpr& other) { return *this = *this - other; }
  IndexExpr& operator*=(const IndexExpr& other) { return *this = *this * other; }

  friend IndexExpr FloorDiv(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr CeilDiv(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Mod(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Min(absl::Span<const IndexExpr> args);
  friend IndexExpr Max(absl::Span<const IndexExpr> args);

  // ---- Comparisons: predicates, decided (literal) when the canonical difference is a literal or
  // has a known sign under the assumptions above, unknown otherwise ----
  friend IndexExpr Eq(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Ne(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Lt(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Le(const IndexExpr& a, const IndexExpr& b);
  friend IndexExpr Gt(const IndexExpr& a, const IndexExpr& b) { return Lt(b, a); }
  friend IndexExpr Ge(const IndexExpr& a, const IndexExpr& b) { return Le(b, a); }
  // `cond ? a : b` when cond is decided, a when a == b, otherwise a questionmark.
  friend IndexExpr Select(const IndexExpr& cond, const IndexExpr& a, const IndexExpr& b);

  // Structural equality of canonical forms (not a predicate; undefined == undefined).
  bool operator==(const IndexExpr& other) const;
  bool operator!=(const IndexExpr& other) const { return !(*this == other); }
  // Consistent with operator==.
  size_t Hash() const;

  // Evaluates with concrete symbol values; nullopt when a symbol has no value, the expression
  // holds a questionmark, is undefined, or overflows.
  std::optional<int64_t> Evaluate(
      const std::function<std::optional<int64_t>(std::string_view symbol)>& value_of) const;
  // Names of the symbols occurring anywhere in the expression, sorted, without duplicates.
  std::vector<std::string> Symbols() const;

 private:
  IndexExpr(Kind kind, int64_t literal, std::shared_ptr<const index_expr_internal::Poly> poly);
  static IndexExpr FromPoly(std::shared_ptr<const index_expr_internal::Poly> poly);
  friend struct IndexExprAccess;  // index_expr.cc's helpers

  Kind kind_;
  int64_t literal_ = 0;  // kLiteral value; kPredicate: 1, 0, or -1 (unknown)
  std::shared_ptr<const index_expr_internal::Poly> poly_;  // symbolic kinds; undefined reason
};

IndexExpr FloorDiv(const IndexExpr& a, const IndexExpr& b);
IndexExpr CeilDiv(const IndexExpr& a, const IndexExpr& b);
IndexExpr Mod(const IndexExpr& a, const IndexExpr& b);
IndexExpr Min(absl::Span<const IndexExpr> args);
IndexExpr Max(absl::Span<const IndexExpr> args);
inline IndexExpr Min(const IndexExpr& a, const IndexExpr& b) { return Min({a, b}); }
inline IndexExpr Max(const IndexExpr& a, const IndexExpr& b) { return Max({a, b}); }
IndexExpr Eq(const IndexExpr& a, const IndexExpr& b);
IndexExpr Ne(const IndexExpr& a, const IndexExpr& b);
IndexExpr Lt(const IndexExpr& a, const IndexExpr& b);
IndexExpr Le(const IndexExpr& a, const IndexExpr& b);
IndexExpr Gt(const IndexExpr& a, const IndexExpr& b);
IndexExpr Ge(const IndexExpr& a, const IndexExpr& b);
IndexExpr Select(const IndexExpr& cond, const IndexExpr& a, const IndexExpr& b);
// Numpy broadcasting of one pair of dims, the rule every broadcasting ShapeHelper and Einsum's
// label sizes share: equal dims stay; a literal 1 yields to the other dim; a literal other than 1
// wins over a symbolic dim (which must then be that value or 1); two different symbolic dims give
// max(a, b) * min(a, b, 1): the larger, or 0 when one of them is 0, exact for every valid model
// (where they are equal or one of them is 1). nullopt for two different literals, neither 1.
std::optional<IndexExpr> BroadcastDim(const IndexExpr& a, const IndexExpr& b);
// An integer on the left: 2 * n, 1 - n.
inline IndexExpr operator+(int64_t a, const IndexExpr& b) { return IndexExpr(a) + b; }
inline IndexExpr operator-(int64_t a, const IndexExpr& b) { return IndexExpr(a) - b; }
inline IndexExpr operator*(int64_t a, const IndexExpr& b) { return IndexExpr(a) * b; }

// A short list of IndexExprs: the dims of one tensor, or the contents of a small shape tensor.
// Inline storage for up to 6: ShapeHelpers build several per node, and the runtime runs them on
// every shape change, so they should not touch the heap.
using IndexExprList = absl::InlinedVector<IndexExpr, 6>;
using DimsExpr = IndexExprList;

// "[N, 3, floor(H / 2)]".
std::string DimsToString(const DimsExpr& dims);

// Sound bounds of a value (see Ranges in the file comment); nullopt: unbounded on that side.
struct IndexRange {
  std::optional<int64_t> lo;
  std::optional<int64_t> hi;
  bool operator==(const IndexRange& other) const = default;
};
// A literal is [v, v]; predicates and undefined values are unbounded.
IndexRange RangeOf(const IndexExpr& e);
// "[0, 192]", "[1, inf)", "(-inf, inf)".
std::string RangeToString(const IndexRange& range);

// The structure of a canonical IndexExpr, for code that translates expressions into something
// else (lowering builds loop bounds from it): constant + the sum over terms of coeff * the product
// of factors. Terms and factors come in the canonical order, so translations are deterministic.
// ceil and mod never appear (they are floor forms); floor divisors are positive by assumption.
struct IndexAtom {
  enum class Kind { kSymbol, kQuestionmark, kFloorDiv, kMin, kMax };
  Kind kind;
  std::string name;              // kSymbol
  uint64_t questionmark_id = 0;  // kQuestionmark: its identity
  std::vector<IndexExpr> args;   // kFloorDiv: {numerator, divisor}; kMin, kMax: two or more
};
struct IndexTerm {
  int64_t coeff = 0;
  std::vector<IndexAtom> factors;  // with repetition: N*N*M has {M, N, N} in atom order
};
struct IndexExprStructure {
  int64_t constant = 0;
  std::vector<IndexTerm> terms;  // none for a literal
};
// The structure of a literal or symbolic `e`; nullopt for predicates and undefined values.
std::optional<IndexExprStructure> Decompose(const IndexExpr& e);

// The dims as integers when every one is a literal, else nullopt.
std::optional<std::vector<int64_t>> LiteralDims(const DimsExpr& dims);
// Each dim's upper bound (RangeOf, at least 0) when every one has a finite one, else nullopt.
std::optional<std::vector<int64_t>> UpperBounds(const DimsExpr& dims);

}  // namespace anvil

#endif  // ANVIL_SHAPE_INDEX_EXPR_H_
