// IndexExpr ranges: bounded symbols and the sound bounds of an expression (index_expr.h,
// "Ranges"). The intervals themselves are kept on the interned atoms and monomials
// (index_expr_poly.cc), so RangeOf is a sum over terms.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shape/index_expr.h"
#include "shape/index_expr_internal.h"

namespace anvil {
namespace {

using index_expr_internal::Atom;
using index_expr_internal::CurrentContext;
using index_expr_internal::Interval;
using index_expr_internal::kNegInf;
using index_expr_internal::kPosInf;
using index_expr_internal::Poly;

absl::Status CheckRange(std::string_view name, int64_t lo, std::optional<int64_t> hi) {
  if (lo < 0 || (hi.has_value() && *hi < lo) || (hi.has_value() && *hi == kPosInf)) {
    return absl::InvalidArgumentError(
        absl::StrCat("range of `", std::string(name), "`: ", RangeToString({lo, hi}),
                     " is not a dim range (need 0 <= lo <= hi < 2^63 - 1)"));
  }
  return absl::OkStatus();
}

Interval ToInterval(int64_t lo, std::optional<int64_t> hi) { return {lo, hi.value_or(kPosInf)}; }

}  // namespace

IndexExpr IndexExpr::BoundedSymbol(std::string_view name, int64_t lo, std::optional<int64_t> hi) {
  if (absl::Status s = CheckRange(name, lo, hi); !s.ok())
    return Undefined(std::string(s.message()));
  index_expr_internal::ContextImpl& context = CurrentContext();
  const Interval range = ToInterval(lo, hi);
  std::string candidate(name);
  for (int k = 2;; ++k) {
    if (const Atom* a = index_expr_internal::InternBoundedSymbol(context, candidate, range)) {
      return FromPoly(index_expr_internal::AtomPoly(a));
    }
    candidate = absl::StrCat(std::string(name), "_", k);
  }
}

absl::Status IndexExpr::DeclareSymbolRange(std::string_view name, int64_t lo,
                                           std::optional<int64_t> hi) {
  if (absl::Status s = CheckRange(name, lo, hi); !s.ok()) return s;
  if (index_expr_internal::InternBoundedSymbol(CurrentContext(), name, ToInterval(lo, hi)) ==
      nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot give `", std::string(name), "` the range ", RangeToString({lo, hi}),
                     ": it is already in use with ", RangeToString(RangeOf(Symbol(name)))));
  }
  return absl::OkStatus();
}

IndexRange RangeOf(const IndexExpr& e) {
  if (e.IsLiteral()) return {e.literal(), e.literal()};
  if (e.IsPredicate() || e.IsUndefined()) return {};
  Poly scratch;
  const Interval r = index_expr_internal::PolyRange(index_expr_internal::PolyOf(e, scratch));
  IndexRange out;
  if (r.lo != kNegInf) out.lo = r.lo;
  if (r.hi != kPosInf) out.hi = r.hi;
  return out;
}

std::optional<std::vector<int64_t>> UpperBounds(const DimsExpr& dims) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (const IndexExpr& d : dims) {
    const std::optional<int64_t> hi = RangeOf(d).hi;
    if (!hi) return std::nullopt;
    out.push_back(std::max<int64_t>(*hi, 0));
  }
  return out;
}

std::string RangeToString(const IndexRange& range) {
  return absl::StrCat(range.lo.has_value() ? absl::StrCat("[", *range.lo) : "(-inf", ", ",
                      range.hi.has_value() ? absl::StrCat(*range.hi, "]") : "inf)");
}

}  // namespace anvil
