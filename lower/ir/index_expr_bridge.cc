#include "lower/ir/index_expr_bridge.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace anvil::tir {
namespace {

Expr Bin(ExprKind kind, Expr a, Expr b) {
  // Index operands of one type cannot be refused.
  return *MakeBinary(kind, std::move(a), std::move(b));
}

absl::StatusOr<Expr> AtomExpr(const IndexAtom& a, const AtomToTir& leaf) {
  switch (a.kind) {
    case IndexAtom::Kind::kSymbol:
    case IndexAtom::Kind::kQuestionmark:
      return leaf(a);
    case IndexAtom::Kind::kFloorDiv: {
      ANVIL_ASSIGN_OR_RETURN(Expr num, ToTir(a.args[0], leaf));
      ANVIL_ASSIGN_OR_RETURN(Expr den, ToTir(a.args[1], leaf));
      return Bin(ExprKind::kFloorDiv, num, den);
    }
    case IndexAtom::Kind::kMin:
    case IndexAtom::Kind::kMax: {
      const ExprKind kind = a.kind == IndexAtom::Kind::kMin ? ExprKind::kMin : ExprKind::kMax;
      Expr out;
      for (const IndexExpr& arg : a.args) {
        ANVIL_ASSIGN_OR_RETURN(Expr x, ToTir(arg, leaf));
        out = out.defined() ? Bin(kind, out, x) : x;
      }
      return out;
    }
  }
  return absl::InternalError("unknown IndexExpr atom");
}

}  // namespace

absl::StatusOr<Expr> ToTir(const IndexExpr& e, const AtomToTir& atom) {
  std::optional<IndexExprStructure> s = Decompose(e);
  if (!s) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot lower dim ", e.ToString(), " (not an integer expression)"));
  }
  // Terms with positive coefficients first, then the negative ones as subtractions (each group
  // in canonical order), so `i - N * floordiv(i, N)` rather than `-(N * ...) + i`.
  std::vector<std::pair<Expr, int64_t>> terms;
  for (const IndexTerm& term : s->terms) {
    Expr product;
    for (const IndexAtom& factor : term.factors) {
      ANVIL_ASSIGN_OR_RETURN(Expr f, AtomExpr(factor, atom));
      product = product.defined() ? Bin(ExprKind::kMul, product, f) : f;
    }
    // The magnitude of the coefficient multiplies; its sign picks + or -.
    const uint64_t magnitude =
        term.coeff < 0 ? 0 - static_cast<uint64_t>(term.coeff) : term.coeff;
    if (magnitude != 1) {
      product = Bin(ExprKind::kMul, IndexConst(static_cast<int64_t>(magnitude)), product);
    }
    terms.emplace_back(product, term.coeff);
  }
  std::stable_partition(terms.begin(), terms.end(), [](const auto& t) { return t.second > 0; });
  Expr sum;
  for (const auto& [product, coeff] : terms) {
    if (!sum.defined()) {
      sum = coeff < 0 ? *MakeUnary(ExprKind::kNeg, product) : product;
    } else {
      sum = Bin(coeff < 0 ? ExprKind::kSub : ExprKind::kAdd, sum, product);
    }
  }
  if (!sum.defined()) return IndexConst(s->constant);
  if (s->constant > 0) return Bin(ExprKind::kAdd, sum, IndexConst(s->constant));
  if (s->constant < 0 && s->constant != INT64_MIN) {
    return Bin(ExprKind::kSub, sum, IndexConst(-s->constant));
  }
  if (s->constant < 0) return Bin(ExprKind::kAdd, sum, IndexConst(s->constant));
  return sum;
}

std::optional<IndexExpr> FromTir(const Expr& e, const VarToIndexExpr& var) {
  if (!e.defined() || !e.type().is_index()) return std::nullopt;
  auto both = [&](const BinaryNode* b) -> std::optional<std::pair<IndexExpr, IndexExpr>> {
    std::optional<IndexExpr> x = FromTir(b->a, var);
    if (!x) return std::nullopt;
    std::optional<IndexExpr> y = FromTir(b->b, var);
    if (!y) return std::nullopt;
    return std::pair{*x, *y};
  };
  std::optional<IndexExpr> result;
  switch (e.kind()) {
    case ExprKind::kConstant:
      result = IndexExpr(e.as<ConstantNode>()->int_value);
      break;
    case ExprKind::kVar:
      result = var(*e.as<VarNode>(), e);
      break;
    case ExprKind::kNeg: {
      std::optional<IndexExpr> x = FromTir(e.as<UnaryNode>()->a, var);
      if (x) result = -*x;
      break;
    }
    case ExprKind::kAdd:
    case ExprKind::kSub:
    case ExprKind::kMul:
    case ExprKind::kFloorDiv:
    case ExprKind::kMod:
    case ExprKind::kMin:
    case ExprKind::kMax:
    case ExprKind::kDiv: {
      auto p = both(e.as<BinaryNode>());
      if (!p) return std::nullopt;
      auto [x, y] = *p;
      switch (e.kind()) {
        case ExprKind::kAdd:
          result = x + y;
          break;
        case ExprKind::kSub:
          result = x - y;
          break;
        case ExprKind::kMul:
          result = x * y;
          break;
        case ExprKind::kFloorDiv:
          result = FloorDiv(x, y);
          break;
        case ExprKind::kMod:
          result = Mod(x, y);
          break;
        case ExprKind::kMin:
          result = Min(x, y);
          break;
        case ExprKind::kMax:
          result = Max(x, y);
          break;
        default: {
          // Truncating division equals floor division on non-negative operands (a zero divisor
          // fails either way).
          const IndexExpr nonneg_x = Ge(x, 0), nonneg_y = Ge(y, 0);
          if (!nonneg_x.IsKnown() || nonneg_x.literal() != 1 || !nonneg_y.IsKnown() ||
              nonneg_y.literal() != 1) {
            return std::nullopt;
          }
          result = FloorDiv(x, y);
          break;
        }
      }
      break;
    }
    default:
      return std::nullopt;
  }
  if (!result || result->IsUndefined() || result->IsQuestionmark() || result->IsPredicate()) {
    return std::nullopt;
  }
  return result;
}

}  // namespace anvil::tir
