#include "lower/lowering/tir_builder.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lower/ir/index_expr_bridge.h"

namespace anvil::lower {

bool DimTranslator::IsBound(const IndexAtom& atom) const {
  if (atom.kind == IndexAtom::Kind::kSymbol) return symbols_.contains(atom.name);
  if (atom.kind == IndexAtom::Kind::kQuestionmark) {
    return questionmarks_.contains(atom.questionmark_id);
  }
  return true;
}

absl::StatusOr<tir::Expr> DimTranslator::Translate(const IndexExpr& e) const {
  if (e.IsUndefined()) {
    return absl::InvalidArgumentError(absl::StrCat("dim is undefined: ", e.undefined_reason()));
  }
  return tir::ToTir(e, [this](const IndexAtom& atom) -> absl::StatusOr<tir::Expr> {
    if (atom.kind == IndexAtom::Kind::kSymbol) {
      auto it = symbols_.find(atom.name);
      if (it != symbols_.end()) return it->second;
      return absl::FailedPreconditionError(absl::StrCat("symbol ", atom.name, " is not bound"));
    }
    auto it = questionmarks_.find(atom.questionmark_id);
    if (it != questionmarks_.end()) return it->second;
    return absl::FailedPreconditionError("a data-dependent dim is not known here");
  });
}

std::optional<IndexAtom> DimTranslator::SingleAtom(const IndexExpr& e) {
  std::optional<IndexExprStructure> s = Decompose(e);
  if (!s || s->constant != 0 || s->terms.size() != 1 || s->terms[0].coeff != 1 ||
      s->terms[0].factors.size() != 1) {
    return std::nullopt;
  }
  const IndexAtom& a = s->terms[0].factors[0];
  if (a.kind != IndexAtom::Kind::kSymbol && a.kind != IndexAtom::Kind::kQuestionmark) {
    return std::nullopt;
  }
  return a;
}

}  // namespace anvil::lower
