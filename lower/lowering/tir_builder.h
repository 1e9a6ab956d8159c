// The third IndexExprBuilder (shape/shape_helper.h): how ShapeHelpers see a node's operands when
// the node is lowered, and how their IndexExprs become Tensor IR.
//
// TirBuilder gives a ShapeFn what shape inference knew of each operand (symbols for dynamic dims,
// with their questionmark identities, and the values of shape computations) and asks for the
// ShapeFacts lowering indexes with. DimTranslator turns the resulting dims into Tensor IR index
// expressions over the entry function's dim parameters and the variables bound to data-dependent
// dims, so every loop bound comes from the op's own ShapeHelper: lower/ has no shape rules.
#ifndef ANVIL_LOWER_LOWERING_TIR_BUILDER_H_
#define ANVIL_LOWER_LOWERING_TIR_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "lower/ir/expr.h"
#include "shape/analysis_builder.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"

namespace anvil::lower {

class TirBuilder final : public IndexExprBuilder {
 public:
  TirBuilder(const Node& node, ShapeState& state) : analysis_(node, state, nullptr) {}

  bool HasInput(int i) const override { return analysis_.HasInput(i); }
  TensorInfo Input(int i) const override { return analysis_.Input(i); }
  std::shared_ptr<const Elements> InputConstant(int i) const override {
    return analysis_.InputConstant(i);
  }
  bool WantsFacts() const override { return true; }

 private:
  AnalysisBuilder analysis_;
};

// Symbols and questionmarks bound to Tensor IR index variables.
class DimTranslator {
 public:
  void BindSymbol(const std::string& name, tir::Expr var) { symbols_[name] = std::move(var); }
  void BindQuestionmark(uint64_t id, tir::Expr var) { questionmarks_[id] = std::move(var); }
  // Binds a symbol or questionmark atom.
  void Bind(const IndexAtom& atom, tir::Expr var) {
    if (atom.kind == IndexAtom::Kind::kSymbol) {
      BindSymbol(atom.name, std::move(var));
    } else {
      BindQuestionmark(atom.questionmark_id, std::move(var));
    }
  }
  bool IsBound(const IndexAtom& atom) const;

  // `e` as an index expression; FailedPrecondition naming the atom when one is not bound (a
  // data-dependent dim nobody computed yet), InvalidArgument when `e` is not an integer.
  absl::StatusOr<tir::Expr> Translate(const IndexExpr& e) const;

  // The single symbol or questionmark `e` is, or nullopt (a literal, a compound expression).
  static std::optional<IndexAtom> SingleAtom(const IndexExpr& e);

 private:
  absl::flat_hash_map<std::string, tir::Expr> symbols_;
  absl::flat_hash_map<uint64_t, tir::Expr> questionmarks_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_LOWERING_TIR_BUILDER_H_
