#include "shape/ops/op_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace anvil::shape_ops {

absl::StatusOr<DimsExpr> BroadcastDims(const ShapeContext& ctx,
                                       const std::vector<DimsExpr>& shapes) {
  absl::InlinedVector<const DimsExpr*, 4> pointers;
  for (const DimsExpr& s : shapes) pointers.push_back(&s);
  return BroadcastDims(ctx, pointers);
}

absl::StatusOr<DimsExpr> BroadcastDims(const ShapeContext& ctx,
                                       absl::Span<const DimsExpr* const> shapes) {
  size_t rank = 0;
  for (const DimsExpr* s : shapes) rank = std::max(rank, s->size());
  DimsExpr result(rank, IndexExpr(1));
  for (size_t k = 0; k < rank; ++k) {
    for (const DimsExpr* shape : shapes) {
      const DimsExpr& s = *shape;
      if (k + s.size() < rank) continue;  // implicitly 1
      const IndexExpr& d = s[k + s.size() - rank];
      IndexExpr& r = result[k];
      std::optional<IndexExpr> merged = BroadcastDim(r, d);
      if (!merged) {
        std::string shapes_text;
        for (const DimsExpr* t : shapes) {
          absl::StrAppend(&shapes_text, shapes_text.empty() ? "" : " and ", DimsToString(*t));
        }
        return ctx.Error(absl::StrCat("cannot broadcast ", shapes_text, ": dim ", k, " is ",
                                      r.literal(), " vs ", d.literal()));
      }
      r = *std::move(merged);
    }
  }
  return result;
}

absl::StatusOr<std::optional<DimsExpr>> BroadcastInputs(const ShapeContext& ctx,
                                                        const std::vector<int>& inputs) {
  absl::InlinedVector<const DimsExpr*, 4> shapes;
  for (int i : inputs) {
    if (!ctx.HasInput(i)) continue;
    const std::optional<DimsExpr>& dims = ctx.InputDims(i);
    if (!dims) return std::optional<DimsExpr>();
    shapes.push_back(&*dims);
  }
  ANVIL_ASSIGN_OR_RETURN(DimsExpr result, BroadcastDims(ctx, shapes));
  return std::optional<DimsExpr>(std::move(result));
}

IndexExpr NumElements(const DimsExpr& dims) {
  IndexExpr n = 1;
  for (const IndexExpr& d : dims) n = n * d;
  return n;
}

IntList ReadIntList(const ShapeContext& ctx, std::string_view attr_name, int input_index) {
  IntList list;
  if (const Attribute* a = ctx.node().FindAttribute(attr_name)) {
    list.present = true;
    list.known = true;
    if (a->type() == AttributeType::kInt) {
      list.values.push_back(a->i);
    } else {
      list.values.assign(a->ints.begin(), a->ints.end());
    }
    return list;
  }
  if (input_index >= 0 && ctx.HasInput(input_index)) {
    list.present = true;
    if (const std::optional<IndexExprList>& v = ctx.InputValues(input_index)) {
      list.known =
          std::all_of(v->begin(), v->end(), [](const IndexExpr& e) { return e.IsLiteral(); });
      if (list.known) {
        for (const IndexExpr& e : *v) list.values.push_back(e.literal());
      }
    }
  }
  return list;
}

DimsExpr UnknownDims(int64_t rank) {
  DimsExpr dims;
  dims.reserve(rank);
  for (int64_t k = 0; k < rank; ++k) dims.push_back(IndexExpr::Questionmark());
  return dims;
}

}  // namespace anvil::shape_ops
