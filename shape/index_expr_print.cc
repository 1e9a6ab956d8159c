// Printing of IndexExpr: the canonical form, readable and re-parsable (index_expr_parse.cc).
//
//   terms in canonical order, the constant last:  2*N + M*M - 1  (as `M*M + 2*N - 1`)
//   a leading negative term:                      -N + 3
//   floor numerators that are sums in parens:     floor((H - 1) / 2) + 1
//   divisors other than a literal or one atom:    floor(N / (2*M))
//   min/max arguments in canonical order:         min(N, 5)
//
// A symbol name that is not an identifier is written `between backquotes` inside a larger
// expression, so it re-parses; a bare symbol prints its name as is (what a dim_param holds),
// unless the name would parse as another expression (`a*b`).
// INT64_MIN, whose magnitude has no int64 literal, prints as `- 9223372036854775807 - 1`.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "shape/index_expr.h"
#include "shape/index_expr_internal.h"

namespace anvil {
namespace index_expr_internal {
namespace {

constexpr char kMaxMagnitude[] = "9223372036854775807";

void AppendAtom(const Atom* a, std::string* out);

void AppendMonomial(const Monomial* m, std::string* out) {
  for (size_t i = 0; i < m->atoms.size(); ++i) {
    if (i > 0) out->push_back('*');
    AppendAtom(m->atoms[i], out);
  }
}

// A numerator is parenthesized when it is a sum.
bool IsSum(const Poly& p) { return p.terms.size() + (p.constant != 0 ? 1 : 0) > 1; }

void AppendAtom(const Atom* a, std::string* out) {
  switch (a->kind) {
    case AtomKind::kSymbol:
      if (IsIdentifier(a->name)) {
        out->append(a->name);
      } else {
        absl::StrAppend(out, "`", a->name, "`");
      }
      return;
    case AtomKind::kQuestionmark:
      out->push_back('?');
      return;
    case AtomKind::kFloor: {
      const Poly& num = a->args[0];
      const Poly& den = a->args[1];
      out->append("floor(");
      bool paren = IsSum(num);
      if (paren) out->push_back('(');
      AppendPoly(num, out);
      if (paren) out->push_back(')');
      out->append(" / ");
      paren = !den.IsLiteral() && den.AsSingleAtom() == nullptr;
      if (paren) out->push_back('(');
      AppendPoly(den, out);
      if (paren) out->push_back(')');
      out->push_back(')');
      return;
    }
    case AtomKind::kMin:
    case AtomKind::kMax:
      out->append(a->kind == AtomKind::kMin ? "min(" : "max(");
      for (size_t i = 0; i < a->args.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendPoly(a->args[i], out);
      }
      out->push_back(')');
      return;
  }
}

}  // namespace

bool IsIdentifier(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

void AppendPoly(const Poly& p, std::string* out) {
  if (p.terms.empty()) {
    absl::StrAppend(out, p.constant);
    return;
  }
  bool first = true;
  for (const Term& t : p.terms) {
    const int64_t k = t.coeff;
    if (first) {
      if (k < 0) out->push_back('-');
    } else {
      out->append(k < 0 ? " - " : " + ");
    }
    first = false;
    if (k == kNegInf) {  // -2^63 * m == -(2^63 - 1) * m - m
      absl::StrAppend(out, kMaxMagnitude, "*");
      AppendMonomial(t.mono, out);
      out->append(" - ");
    } else if (k != 1 && k != -1) {
      absl::StrAppend(out, k < 0 ? -k : k, "*");
    }
    AppendMonomial(t.mono, out);
  }
  if (p.constant == kNegInf) {
    absl::StrAppend(out, " - ", kMaxMagnitude, " - 1");
  } else if (p.constant > 0) {
    absl::StrAppend(out, " + ", p.constant);
  } else if (p.constant < 0) {
    absl::StrAppend(out, " - ", -p.constant);
  }
}

}  // namespace index_expr_internal

std::string IndexExpr::ToString() const {
  switch (kind_) {
    case Kind::kLiteral:
      return absl::StrCat(literal_);
    case Kind::kPredicate:
      return literal_ == 1 ? "true" : (literal_ == 0 ? "false" : "?");
    case Kind::kUndefined: {
      std::string reason = undefined_reason();
      return reason.empty() ? "<undefined>" : absl::StrCat("<undefined: ", reason, ">");
    }
    case Kind::kQuestionmark:
      return "?";
    case Kind::kSymbol: {
      const std::string& name = poly_->terms[0].mono->atoms[0]->name;
      // A bare name must read back as this symbol: one that parses as an expression of its own
      // (a symbol named `a*b`, from backquotes) keeps its backquotes.
      if (index_expr_internal::IsIdentifier(name) || !Parse(name).ok()) return name;
      return absl::StrCat("`", name, "`");
    }
    case Kind::kAffine:
    case Kind::kNonAffine:
      break;
  }
  std::string out;
  index_expr_internal::AppendPoly(*poly_, &out);
  return out;
}

std::string DimsToString(const DimsExpr& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(dims[i].ToString());
  }
  out.push_back(']');
  return out;
}

}  // namespace anvil
