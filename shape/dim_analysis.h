// DimAnalysis: which dynamic dims of a model are provably equal, for passes that want to drop a
// broadcast, prove a reshape static, or share a loop bound.
//
// Run after shape inference (dims are IndexExprs printed into dim_params). Two dims are in one
// class when:
//  - they are the same canonical expression (same symbol, or the same formula of symbols);
//  - they are matched by an op's semantics in a valid model: MatMul/Gemm contraction dims (K),
//    Concat's non-axis dims, the non-broadcast dims of elementwise operands (same position, both
//    dynamic: a dynamic dim broadcast against another dynamic dim is assumed not to be a
//    stretched 1 — the assumption onnx-mlir's DimAnalysis makes too), and a literal they are
//    matched with (then the class is that literal).
// Classes are union-find sets keyed by canonical expressions; a class holding a literal reports
// it, so `N` matched with `4` by a MatMul makes every `N` static. The analysis reads dims into the
// IndexExprContext installed on the thread that makes it (shape/index_expr.h), the one the
// expressions given to Same and LiteralOf must be of.
#ifndef ANVIL_SHAPE_DIM_ANALYSIS_H_
#define ANVIL_SHAPE_DIM_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "graph/ir.h"
#include "shape/index_expr.h"

namespace anvil {

class DimAnalysis {
 public:
  // Analyzes every graph of `model` (types as shape inference left them).
  explicit DimAnalysis(const Model& model);

  // Whether dim `a_axis` of `a` and dim `b_axis` of `b` are provably equal. False when either
  // is out of range or unknown.
  bool SameDim(const Value& a, int64_t a_axis, const Value& b, int64_t b_axis) const;
  bool Same(const IndexExpr& a, const IndexExpr& b) const;

  // The literal a dim is proved to equal, if any.
  std::optional<int64_t> LiteralOf(const IndexExpr& e) const;

  // Classes with more than one member, each sorted by printed form; for tests and debugging.
  std::vector<std::vector<std::string>> Classes() const;

 private:
  int Find(const IndexExpr& e) const;  // -1 when never seen
  int Intern(const IndexExpr& e);
  int Root(int id) const;
  void Union(const IndexExpr& a, const IndexExpr& b);
  void AnalyzeGraph(const Graph& graph);
  std::optional<IndexExpr> DimOf(const Value* v, int64_t axis) const;

  absl::flat_hash_map<std::string, int> ids_;  // printed canonical form -> id
  IndexExprList exprs_;
  mutable std::vector<int> parent_;
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_DIM_ANALYSIS_H_
