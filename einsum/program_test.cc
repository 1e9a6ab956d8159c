#include "einsum/program.h"

#include <iostream>
#include <string>
#include <vector>

#include "einsum/equation.h"
#include "gtest/gtest.h"
#include "shape/einsum_dims.h"

namespace anvil::einsum {
namespace {

// The program of `equation` over operands of the given literal shapes.
std::string ProgramText(std::string_view equation, std::vector<std::vector<int64_t>> shapes,
                        ContractionPlan* plan = nullptr) {
  absl::StatusOr<Equation> eq = Equation::Parse(equation);
  if (!eq.ok()) return std::string(eq.status().message());
  std::vector<int64_t> ranks;
  std::vector<DimsExpr> dims(shapes.size());
  std::vector<const DimsExpr*> pointers;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ranks.push_back(static_cast<int64_t>(shapes[i].size()));
    for (int64_t d : shapes[i]) dims[i].push_back(IndexExpr(d));
    pointers.push_back(&dims[i]);
  }
  absl::StatusOr<BoundEquation> b = eq->Bind(ranks);
  if (!b.ok()) return std::string(b.status().message());
  absl::StatusOr<std::vector<IndexExpr>> sizes = EinsumLabelSizes(*b, pointers);
  if (!sizes.ok()) return std::string(sizes.status().message());
  std::vector<OperandInfo> operands;
  for (const DimsExpr& d : dims) operands.push_back({d});
  return BuildProgram(*b, operands, *sizes, {}, plan).ToString();
}

TEST(ProgramTest, Dump) {
  for (auto [eq, shapes] : std::vector<std::pair<std::string, std::vector<std::vector<int64_t>>>>{
           {"bhqd,bhkd->bhqk", {{8, 12, 128, 64}, {8, 12, 128, 64}}},
           {"bhqk,bhkd->bhqd", {{8, 12, 128, 128}, {8, 12, 128, 64}}},
           {"bsnh,btnh->bnts", {{8, 128, 12, 64}, {8, 128, 12, 64}}},
           {"abc,cd,def->abd", {{8, 16, 32}, {32, 64}, {64, 16, 8}}},
           {"bn,anm,bm->ba", {{16, 32}, {8, 32, 64}, {16, 64}}},
           {"ij,jk,kl->il", {{1000, 10}, {10, 1000}, {1000, 5}}},
           {"...ij,...jk->...ik", {{4, 8, 16, 32}, {4, 8, 32, 16}}},
           {"ii->", {{100, 100}}},
           {"ii->i", {{100, 100}}},
           {"i,j->ij", {{100}, {200}}},
           {"bij,bjk->bik", {{5, 2, 3}, {5, 3, 4}}},
           {"ij->ji", {{3, 4}}},
           {"i,i", {{5}, {5}}},
           {"ij->i", {{3, 4}}},
           {"...ii->...i", {{3, 5, 5}}},
       }) {
    std::cout << eq << "\n" << ProgramText(eq, shapes) << "\n";
  }
}

}  // namespace
}  // namespace anvil::einsum
