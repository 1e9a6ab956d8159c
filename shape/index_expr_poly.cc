// The canonical polynomial layer of IndexExpr: hash-consed atoms and monomials, the fixed total
// order, exact (overflow-checked) polynomial arithmetic and interval range analysis. See
// index_expr_internal.h.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "base/absl_compat.h"
#include "shape/index_expr.h"
#include "shape/index_expr_internal.h"

namespace anvil {
namespace index_expr_internal {
namespace {

using int128 = __int128;

// ---- Saturating interval helpers ----

// Infinity inside 128-bit corner products; every finite int64*int64 product is smaller.
constexpr int128 kInf128 = int128{1} << 126;

int128 ToExt(int64_t v) {
  if (v == kNegInf) return -kInf128;
  if (v == kPosInf) return kInf128;
  return v;
}

int128 MulExt(int128 x, int128 y) {
  if (x == 0 || y == 0) return 0;  // 0 * inf = 0: the bound is attained at the finite factor
  if (x == kInf128 || x == -kInf128 || y == kInf128 || y == -kInf128) {
    return (x < 0) == (y < 0) ? kInf128 : -kInf128;
  }
  return x * y;
}

// Rounds a 128-bit bound into int64 so that the interval only widens (sound): a lower bound
// beyond the int64 range becomes -inf (or the largest finite value), an upper bound +inf (or the
// smallest finite value).
int64_t LoBound(int128 v) {
  if (v <= kNegInf) return kNegInf;
  if (v >= kPosInf) return kPosInf - 1;
  return static_cast<int64_t>(v);
}

int64_t HiBound(int128 v) {
  if (v >= kPosInf) return kPosInf;
  if (v <= kNegInf) return kNegInf + 1;
  return static_cast<int64_t>(v);
}

Interval MulIntervals(const Interval& a, const Interval& b) {
  const int128 c[4] = {MulExt(ToExt(a.lo), ToExt(b.lo)), MulExt(ToExt(a.lo), ToExt(b.hi)),
                       MulExt(ToExt(a.hi), ToExt(b.lo)), MulExt(ToExt(a.hi), ToExt(b.hi))};
  return {LoBound(std::min({c[0], c[1], c[2], c[3]})), HiBound(std::max({c[0], c[1], c[2], c[3]}))};
}

Interval MinMaxInterval(AtomKind kind, const std::vector<Poly>& args,
                        Interval (*poly_interval)(const Poly&)) {
  Interval r = poly_interval(args[0]);
  for (size_t i = 1; i < args.size(); ++i) {
    Interval a = poly_interval(args[i]);
    if (kind == AtomKind::kMin) {
      r = {std::min(r.lo, a.lo), std::min(r.hi, a.hi)};
    } else {
      r = {std::max(r.lo, a.lo), std::max(r.hi, a.hi)};
    }
  }
  return r;
}

// ---- Hash-consing tables ----

size_t HashPtr(const void* p) { return HashMix(0x51ed27, reinterpret_cast<uintptr_t>(p)); }

size_t HashAtomsSpan(absl::Span<const Atom* const> atoms) {
  size_t h = atoms.size();
  for (const Atom* a : atoms) h = HashMix(h, reinterpret_cast<uintptr_t>(a));
  return h;
}

struct MonoHash {
  using is_transparent = void;
  size_t operator()(const Monomial* m) const { return m->hash; }
  size_t operator()(absl::Span<const Atom* const> atoms) const { return HashAtomsSpan(atoms); }
};

struct MonoEq {
  using is_transparent = void;
  static absl::Span<const Atom* const> Key(const Monomial* m) { return m->atoms; }
  static absl::Span<const Atom* const> Key(absl::Span<const Atom* const> s) { return s; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    absl::Span<const Atom*const> x = Key(a), y = Key(b);
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin());
  }
};

// Non-symbol, non-questionmark atoms, keyed by content; looked up without building an Atom.
struct AtomKey {
  AtomKind kind;
  absl::Span<const Poly> args;
  size_t hash;
};

size_t HashAtomContent(AtomKind kind, absl::Span<const Poly> args) {
  size_t h = HashMix(static_cast<size_t>(kind), args.size());
  for (const Poly& p : args) h = HashMix(h, HashPoly(p));
  return h;
}

struct AtomHash {
  using is_transparent = void;
  size_t operator()(const Atom* a) const { return a->hash; }
  size_t operator()(const AtomKey& k) const { return k.hash; }
};

struct AtomEq {
  using is_transparent = void;
  static AtomKey Key(const Atom* a) { return {a->kind, a->args, a->hash}; }
  static const AtomKey& Key(const AtomKey& k) { return k; }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    const AtomKey& x = Key(a);
    const AtomKey& y = Key(b);
    return x.kind == y.kind && x.args.size() == y.args.size() &&
           std::equal(x.args.begin(), x.args.end(), y.args.begin());
  }
};

// Live atoms and monomials over all contexts (LiveIndexExprNodes: the flat-memory tests).
std::atomic<int64_t> live_nodes{0};

}  // namespace

// One context's hash-consing tables, and the owner of their atoms and monomials.
struct ContextImpl : std::enable_shared_from_this<ContextImpl> {
  ~ContextImpl() {
    live_nodes.fetch_sub(static_cast<int64_t>(owned_atoms.size() + owned_monomials.size()),
                         std::memory_order_relaxed);
    for (Atom* a : owned_atoms) delete a;
    for (Monomial* m : owned_monomials) delete m;
  }

  Atom* NewAtom(AtomKind kind) {
    auto* a = new Atom();
    a->kind = kind;
    a->context = this;
    owned_atoms.push_back(a);
    live_nodes.fetch_add(1, std::memory_order_relaxed);
    return a;
  }

  absl::flat_hash_map<std::string, const Atom*> symbols;
  // Ranges of symbols declared before they were made (InternBoundedSymbol).
  absl::flat_hash_map<std::string, Interval> declared_ranges;
  absl::flat_hash_set<const Atom*, AtomHash, AtomEq> atoms;  // floor/min/max
  absl::flat_hash_set<const Monomial*, MonoHash, MonoEq> monomials;
  std::vector<Atom*> owned_atoms;  // everything above, and the questionmarks
  std::vector<Monomial*> owned_monomials;
};

namespace {

// The context installed on this thread (IndexExprContext::Scope), null outside every scope.
thread_local ContextImpl* current_context = nullptr;

const Monomial* InternMonomial(ContextImpl& t, absl::Span<const Atom* const> atoms) {
  auto it = t.monomials.find(atoms);
  if (it != t.monomials.end()) return *it;
  auto* m = new Monomial();
  t.owned_monomials.push_back(m);
  live_nodes.fetch_add(1, std::memory_order_relaxed);
  m->atoms.assign(atoms.begin(), atoms.end());
  m->hash = HashAtomsSpan(atoms);
  m->interval = {1, 1};
  m->range = {1, 1};
  for (const Atom* a : atoms) {
    m->has_questionmark |= a->has_questionmark;
    m->interval = MulIntervals(m->interval, a->interval);
    m->range = MulIntervals(m->range, a->range);
    m->size = std::min(m->size + a->size, kMaxExprSize + 1);
  }
  t.monomials.insert(m);
  return m;
}

// Gives a freshly built atom its degree-1 monomial and its 1*atom poly.
void FinishAtom(ContextImpl& t, Atom* a) {
  const Atom* self = a;
  a->mono = InternMonomial(t, absl::MakeConstSpan(&self, 1));
  a->self.terms.push_back({a->mono, 1});
}

// The context the symbolic ones of `polys` belong to (all one, checked).
ContextImpl& ContextOfArgs(absl::Span<const Poly> polys) {
  ContextImpl* context = nullptr;
  for (const Poly& p : polys) {
    if (p.terms.empty()) continue;
    if (context == nullptr) context = p.terms[0].mono->atoms[0]->context;
    CheckOneContext(p, context);
  }
  return context != nullptr ? *context : CurrentContext();
}

// The atom `kind(args)`; `args` are moved from when it is new.
const Atom* InternContentAtom(AtomKind kind, absl::Span<Poly> args) {
  const AtomKey key{kind, args, HashAtomContent(kind, args)};
  ContextImpl& t = ContextOfArgs(args);
  auto it = t.atoms.find(key);
  if (it != t.atoms.end()) return *it;
  Atom* a = t.NewAtom(kind);
  a->args.assign(std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  a->hash = key.hash;
  for (const Poly& p : a->args) {
    a->has_questionmark |= p.HasQuestionmark();
    a->size = std::min(a->size + PolySize(p), kMaxExprSize + 1);
  }
  a->interval = a->kind == AtomKind::kFloor
                    ? FloorInterval(PolyInterval(a->args[0]), PolyInterval(a->args[1]))
                    : MinMaxInterval(a->kind, a->args, PolyInterval);
  a->range = a->kind == AtomKind::kFloor
                 ? FloorInterval(PolyRange(a->args[0]), PolyRange(a->args[1]))
                 : MinMaxInterval(a->kind, a->args, PolyRange);
  FinishAtom(t, a);
  t.atoms.insert(a);
  return a;
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

bool Fits(int128 v) { return v >= kNegInf && v <= kPosInf; }

}  // namespace

size_t HashMix(size_t h, uint64_t v) {
  // splitmix64 finalizer over the combination; good enough for hash tables.
  uint64_t x = static_cast<uint64_t>(h) * 0x9E3779B97F4A7C15ull + v;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<size_t>(x);
}

int64_t PolySize(const Poly& p) {
  int64_t size = 1;
  for (const Term& t : p.terms) size = std::min(size + 1 + t.mono->size, kMaxExprSize + 1);
  return size;
}

size_t HashPoly(const Poly& p) {
  size_t h = HashMix(0x1d3e, static_cast<uint64_t>(p.constant));
  for (const Term& t : p.terms) {
    h = HashMix(HashMix(h, HashPtr(t.mono)), static_cast<uint64_t>(t.coeff));
  }
  return h;
}

// ---- Interning ----

int64_t LiveNodes() { return live_nodes.load(std::memory_order_relaxed); }

ContextImpl& CurrentContext() {
  if (current_context == nullptr) {
    // Library code keeps no process-wide context (it would never be freed): whoever runs the
    // work owns one. Reaching here is a missing scope in the caller, not bad input.
    std::cerr << "anvil: internal error: a symbolic IndexExpr (a symbol or questionmark) was made "
                 "on a thread with no IndexExprContext installed: install one for the work's "
                 "duration (`ScopedIndexExprContext scope;`, or an IndexExprContext and an "
                 "IndexExprContext::Scope; see shape/index_expr.h)\n";
    std::abort();
  }
  return *current_context;
}

std::shared_ptr<ContextImpl> ContextOf(const Poly& p) {
  return p.terms[0].mono->atoms[0]->context->shared_from_this();
}

std::shared_ptr<const Poly> AtomPoly(const Atom* a) {
  return std::shared_ptr<const Poly>(a->context->shared_from_this(), &a->self);
}

[[noreturn]] void MixedContexts() {
  std::cerr << "anvil: internal error: IndexExprs of two IndexExprContexts were combined (each "
               "pass run or session has its own; expressions do not cross)\n";
  std::abort();
}

void CheckOneContext(const Poly& p, const ContextImpl* context) {
  for (const Term& t : p.terms) {
    // A monomial's atoms are of its context (MulMonomials checks), so one atom each tells.
    if (t.mono->atoms[0]->context != context) MixedContexts();
  }
}

namespace {

Atom* NewSymbol(ContextImpl& t, std::string_view name, Interval range) {
  Atom* a = t.NewAtom(AtomKind::kSymbol);
  a->name = std::string(name);
  a->range = range;
  a->interval = {std::max<int64_t>(range.lo, 0), std::min(range.hi, kSymbolMax)};
  a->hash = HashMix(0x53, std::hash<std::string>()(a->name));
  FinishAtom(t, a);
  t.symbols.emplace(a->name, a);
  return a;
}

}  // namespace

const Atom* InternSymbol(ContextImpl& t, std::string_view name) {
  auto it = t.symbols.find(AsAbsl(name));
  if (it != t.symbols.end()) return it->second;
  auto declared = t.declared_ranges.find(AsAbsl(name));
  return NewSymbol(t, name,
                   declared != t.declared_ranges.end() ? declared->second : Interval{0, kPosInf});
}

const Atom* InternBoundedSymbol(ContextImpl& t, std::string_view name, Interval range) {
  auto it = t.symbols.find(AsAbsl(name));
  if (it != t.symbols.end()) {
    const Interval& r = it->second->range;
    return r.lo == range.lo && r.hi == range.hi ? it->second : nullptr;
  }
  t.declared_ranges.emplace(std::string(name), range);
  return NewSymbol(t, name, range);
}

const Atom* NewQuestionmark(ContextImpl& t) {
  static std::atomic<uint64_t> next_id{1};
  Atom* a = t.NewAtom(AtomKind::kQuestionmark);
  a->id = next_id.fetch_add(1, std::memory_order_relaxed);
  a->has_questionmark = true;
  a->interval = {kNegInf, kPosInf};
  a->hash = HashMix(0x3f, a->id);
  // Unique by construction: no content lookup, only its monomial is interned.
  FinishAtom(t, a);
  return a;
}

const Atom* InternFloor(Poly numerator, Poly divisor) {
  Poly args[2] = {std::move(numerator), std::move(divisor)};
  return InternContentAtom(AtomKind::kFloor, absl::MakeSpan(args));
}

const Atom* InternMinMax(AtomKind kind, std::vector<Poly> args) {
  return InternContentAtom(kind, absl::MakeSpan(args));
}

const Monomial* MulMonomials(const Monomial* a, const Monomial* b) {
  absl::InlinedVector<const Atom*, 8> atoms;
  atoms.reserve(a->atoms.size() + b->atoms.size());
  std::merge(a->atoms.begin(), a->atoms.end(), b->atoms.begin(), b->atoms.end(),
             std::back_inserter(atoms),
             [](const Atom* x, const Atom* y) { return CompareAtoms(x, y) < 0; });
  ContextImpl& t = *a->atoms[0]->context;
  if (b->atoms[0]->context != &t) MixedContexts();
  return InternMonomial(t, atoms);
}

const Monomial* DivMonomials(const Monomial* a, const Monomial* b, bool* is_one) {
  *is_one = false;
  absl::InlinedVector<const Atom*, 8> rest;
  size_t j = 0;
  for (const Atom* x : a->atoms) {
    if (j < b->atoms.size() && x == b->atoms[j]) {
      ++j;
    } else {
      rest.push_back(x);
    }
  }
  if (j != b->atoms.size()) return nullptr;
  if (rest.empty()) {
    *is_one = true;
    return nullptr;
  }
  ContextImpl& t = *a->atoms[0]->context;
  return InternMonomial(t, rest);
}

// ---- Order ----

int CompareAtoms(const Atom* a, const Atom* b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
    case AtomKind::kSymbol:
      return Sign(a->name.compare(b->name));
    case AtomKind::kQuestionmark:
      return a->id < b->id ? -1 : (a->id > b->id ? 1 : 0);
    default:
      break;
  }
  size_t n = std::min(a->args.size(), b->args.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = ComparePolys(a->args[i], b->args[i])) return c;
  }
  return a->args.size() < b->args.size() ? -1 : (a->args.size() > b->args.size() ? 1 : 0);
}

int CompareMonomials(const Monomial* a, const Monomial* b) {
  if (a == b) return 0;
  if (a->atoms.size() != b->atoms.size()) return a->atoms.size() > b->atoms.size() ? -1 : 1;
  for (size_t i = 0; i < a->atoms.size(); ++i) {
    if (int c = CompareAtoms(a->atoms[i], b->atoms[i])) return c;
  }
  return 0;
}

int ComparePolys(const Poly& a, const Poly& b) {
  size_t n = std::min(a.terms.size(), b.terms.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = CompareMonomials(a.terms[i].mono, b.terms[i].mono)) return c;
    if (a.terms[i].coeff != b.terms[i].coeff) return a.terms[i].coeff < b.terms[i].coeff ? -1 : 1;
  }
  // The constant sorts after every term, as printed.
  if (a.terms.size() != b.terms.size()) return a.terms.size() > b.terms.size() ? -1 : 1;
  return a.constant < b.constant ? -1 : (a.constant > b.constant ? 1 : 0);
}

// ---- Arithmetic ----

bool AddScaled(const Poly& a, const Poly& b, int64_t k, Poly* out) {
  int128 c = int128{a.constant} + int128{k} * b.constant;
  if (!Fits(c)) return false;
  Poly r(static_cast<int64_t>(c));
  r.terms.reserve(a.terms.size() + b.terms.size());
  size_t i = 0, j = 0;
  auto push = [&r](const Monomial* m, int128 v) {
    if (!Fits(v)) return false;
    if (v != 0) r.terms.push_back({m, static_cast<int64_t>(v)});
    return true;
  };
  while (i < a.terms.size() || j < b.terms.size()) {
    int cmp = i == a.terms.size()   ? 1
              : j == b.terms.size() ? -1
                                    : CompareMonomials(a.terms[i].mono, b.terms[j].mono);
    bool ok;
    if (cmp < 0) {
      ok = push(a.terms[i].mono, a.terms[i].coeff);
      ++i;
    } else if (cmp > 0) {
      ok = push(b.terms[j].mono, int128{k} * b.terms[j].coeff);
      ++j;
    } else {
      ok = push(a.terms[i].mono, a.terms[i].coeff + int128{k} * b.terms[j].coeff);
      ++i;
      ++j;
    }
    if (!ok) return false;
  }
  *out = std::move(r);
  return true;
}

bool Scale(const Poly& a, int64_t k, Poly* out) {
  if (k == 0) {
    out->terms.clear();
    out->constant = 0;
    return true;
  }
  int128 c = int128{a.constant} * k;
  if (!Fits(c)) return false;
  Poly r(static_cast<int64_t>(c));
  r.terms.reserve(a.terms.size());
  for (const Term& t : a.terms) {
    int128 v = int128{t.coeff} * k;
    if (!Fits(v)) return false;
    r.terms.push_back({t.mono, static_cast<int64_t>(v)});
  }
  *out = std::move(r);
  return true;
}

bool Multiply(const Poly& a, const Poly& b, Poly* out) {
  if (a.IsLiteral()) return Scale(b, a.constant, out);
  if (b.IsLiteral()) return Scale(a, b.constant, out);
  // Coefficients accumulate in 128 bits, so only a final coefficient that does not fit int64 is
  // an overflow (an intermediate partial sum never is).
  std::vector<std::pair<const Monomial*, int128>> acc;
  acc.reserve((a.terms.size() + 1) * (b.terms.size() + 1));
  for (const Term& x : a.terms) {
    for (const Term& y : b.terms) {
      acc.emplace_back(MulMonomials(x.mono, y.mono), int128{x.coeff} * y.coeff);
    }
    if (b.constant != 0) acc.emplace_back(x.mono, int128{x.coeff} * b.constant);
  }
  if (a.constant != 0) {
    for (const Term& y : b.terms) acc.emplace_back(y.mono, int128{a.constant} * y.coeff);
  }
  int128 c = int128{a.constant} * b.constant;
  if (!Fits(c)) return false;
  std::sort(acc.begin(), acc.end(),
            [](const auto& x, const auto& y) { return CompareMonomials(x.first, y.first) < 0; });
  Poly r(static_cast<int64_t>(c));
  for (size_t i = 0; i < acc.size();) {
    size_t j = i;
    int128 sum = 0;
    for (; j < acc.size() && acc[j].first == acc[i].first; ++j) {
      sum += acc[j].second;  // |sum| < 2^127: at most ~2^60 products of magnitude < 2^126
    }
    if (!Fits(sum)) return false;
    if (sum != 0) r.terms.push_back({acc[i].first, static_cast<int64_t>(sum)});
    i = j;
  }
  *out = std::move(r);
  return true;
}

// ---- Intervals ----

namespace {

// The sum of the terms' intervals, each monomial's `field` times its coefficient.
Interval SumOfTerms(const Poly& p, Interval Monomial::*field) {
  bool lo_inf = false, hi_inf = false;
  int128 lo = p.constant, hi = p.constant;
  for (const Term& t : p.terms) {
    Interval s = MulIntervals(t.mono->*field, {t.coeff, t.coeff});
    if (s.lo == kNegInf) {
      lo_inf = true;
    } else {
      lo += s.lo;
    }
    if (s.hi == kPosInf) {
      hi_inf = true;
    } else {
      hi += s.hi;
    }
  }
  return {lo_inf ? kNegInf : LoBound(lo), hi_inf ? kPosInf : HiBound(hi)};
}

}  // namespace

Interval PolyInterval(const Poly& p) { return SumOfTerms(p, &Monomial::interval); }

Interval PolyRange(const Poly& p) { return SumOfTerms(p, &Monomial::range); }

namespace {

Interval NegateInterval(const Interval& a) {
  return {a.hi == kPosInf ? kNegInf : -a.hi, a.lo == kNegInf ? kPosInf : -a.lo};
}

}  // namespace

Interval FloorInterval(const Interval& num, const Interval& den) {
  // A symbolic divisor is positive (index_expr.h), but the canonical form may have negated it
  // (floor(a / b) == floor(-a / -b) when b's leading coefficient is negative): a divisor known
  // not to be positive is a negated one, and one of either sign gives no bound.
  if (den.hi <= 0) return FloorInterval(NegateInterval(num), NegateInterval(den));
  if (den.lo < 0) return {};
  // Only the divisor's part >= 1 counts.
  int64_t ql = std::max<int64_t>(den.lo, 1), qh = den.hi;
  if (qh < ql) return {};
  Interval r;
  // floor(p / q) grows with p and, for a fixed p, moves toward 0 (p >= 0) or -1 (p < 0) as q
  // grows, so the extremes are at the corners.
  if (num.hi == kPosInf) {
    r.hi = kPosInf;
  } else if (num.hi >= 0) {
    r.hi = FloorDivInt(num.hi, ql);
  } else {
    r.hi = qh == kPosInf ? -1 : FloorDivInt(num.hi, qh);
  }
  if (num.lo == kNegInf) {
    r.lo = kNegInf;
  } else if (num.lo >= 0) {
    r.lo = qh == kPosInf ? 0 : FloorDivInt(num.lo, qh);
  } else {
    r.lo = FloorDivInt(num.lo, ql);
  }
  return r;
}

}  // namespace index_expr_internal

IndexExprContext::IndexExprContext()
    : impl_(std::make_shared<index_expr_internal::ContextImpl>()) {}
IndexExprContext::~IndexExprContext() = default;

int64_t IndexExprContext::num_nodes() const {
  return static_cast<int64_t>(impl_->owned_atoms.size() + impl_->owned_monomials.size());
}

bool IndexExprContext::has_ranges() const { return !impl_->declared_ranges.empty(); }

IndexExprContext::Scope::Scope(IndexExprContext& context)
    : previous_(index_expr_internal::current_context) {
  index_expr_internal::current_context = context.impl_.get();
}

IndexExprContext::Scope::~Scope() { index_expr_internal::current_context = previous_; }

int64_t LiveIndexExprNodes() { return index_expr_internal::LiveNodes(); }

}  // namespace anvil
