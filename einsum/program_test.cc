#include "einsum/program.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shape/einsum_dims.h"
#include "shape/einsum_equation.h"

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

std::string Ops(std::string_view equation, std::vector<std::vector<int64_t>> shapes) {
  const std::string text = ProgramText(equation, std::move(shapes));
  // Drop the input lines: what the program does.
  std::string ops;
  for (size_t start = 0; start < text.size();) {
    const size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    if (line.find(" = input ") == std::string::npos) ops += line + "\n";
    start = end + 1;
  }
  return ops;
}

TEST(ProgramTest, AttentionTransposesKeysOnce) {
  EXPECT_EQ(Ops("bhqd,bhkd->bhqk", {{8, 12, 128, 64}, {8, 12, 128, 64}}),
            "%2 = transpose %1 perm=[0,1,3,2] : [b,h,d,k]\n"
            "%3 = matmul %0, %2 : [b,h,q,k]\n"
            "result %3\n");
  EXPECT_EQ(Ops("bhqk,bhkd->bhqd", {{8, 12, 128, 128}, {8, 12, 128, 64}}),
            "%2 = matmul %0, %1 : [b,h,q,d]\nresult %2\n");
}

TEST(ProgramTest, ResultComesOutInTheOutputOrder) {
  // ONNX Runtime issue 5897: no Transpose after the MatMul (the operands swap instead).
  EXPECT_EQ(Ops("bsnh,btnh->bnts", {{8, 128, 12, 64}, {8, 128, 12, 64}}),
            "%2 = transpose %1 perm=[0,2,1,3] : [b,n,t,h]\n"
            "%3 = transpose %0 perm=[0,2,3,1] : [b,n,h,s]\n"
            "%4 = matmul %2, %3 : [b,n,t,s]\n"
            "result %4\n");
}

TEST(ProgramTest, LeadingLabelsBecomeMatMulBatchDims) {
  // ONNX Runtime issue 7375: a stays a batch dim of the MatMul, no Reshape.
  EXPECT_EQ(Ops("abc,cd,def->abd", {{8, 16, 32}, {32, 64}, {64, 16, 8}}),
            "%3 = reduce-sum %2 axes=[1,2] : [d]\n"
            "%4 = mul %1, %3 : [c,d]\n"
            "%5 = matmul %0, %4 : [a,b,d]\n"
            "result %5\n");
  EXPECT_EQ(Ops("...ij,...jk->...ik", {{4, 8, 16, 32}, {4, 8, 32, 16}}),
            "%2 = matmul %0, %1 : [...[0],...[1],i,k]\nresult %2\n");
}

TEST(ProgramTest, ChainFollowsThePlan) {
  EXPECT_EQ(Ops("ij,jk,kl->il", {{1000, 10}, {10, 1000}, {1000, 5}}),
            "%3 = matmul %1, %2 : [j,l]\n%4 = matmul %0, %3 : [i,l]\nresult %4\n");
}

TEST(ProgramTest, DiagonalsTraceOuterAndDotProducts) {
  EXPECT_EQ(Ops("ii->", {{100, 100}}),
            "%1 = reshape %0 : [(ii)]\n%2 = diagonal %1 : [i]\n"
            "%3 = reduce-sum %2 axes=[0] : []\nresult %3\n");
  // The repeated label moves last first.
  EXPECT_EQ(Ops("iji->ij", {{3, 4, 3}}),
            "%1 = transpose %0 perm=[1,0,2] : [j,i,i]\n%2 = reshape %1 : [j,(ii)]\n"
            "%3 = diagonal %2 : [j,i]\n%4 = transpose %3 perm=[1,0] : [i,j]\nresult %4\n");
  EXPECT_EQ(Ops("i,j->ij", {{100}, {200}}),
            "%2 = reshape %0 : [i,1]\n%3 = mul %2, %1 : [i,j]\nresult %3\n");
  EXPECT_EQ(Ops("i,i", {{5}, {5}}), "%2 = matmul %0, %1 : []\nresult %2\n");
  EXPECT_EQ(Ops("bk,bk->b", {{5, 7}, {5, 7}}),
            "%2 = mul %0, %1 : [b,k]\n%3 = reduce-sum %2 axes=[1] : [b]\nresult %3\n");
  EXPECT_EQ(Ops("ij->ij", {{3, 4}}), "result %0\n");
}

TEST(ProgramTest, SizeOneLabelsBroadcast) {
  // A summed label of size 1 against 3: dropped where it is 1 (the two Reshapes of %0, [i,j]
  // -> [i] -> [i,1], composed into one that the emitter skips: same dims), summed where it is 3.
  EXPECT_EQ(Ops("ij,jk->ik", {{2, 1}, {3, 4}}),
            "%3 = reduce-sum %1 axes=[0] : [k]\n%4 = reshape %0 : [i,1]\n"
            "%5 = mul %4, %3 : [i,k]\nresult %5\n");
  // An output label of size 1 broadcasts inside the MatMul's batch dims.
  EXPECT_EQ(Ops("bij,bjk->bik", {{1, 2, 3}, {5, 3, 4}}),
            "%2 = matmul %0, %1 : [b,i,k]\nresult %2\n");
}

TEST(ProgramTest, EmptyDimMakesZeros) {
  EXPECT_EQ(Ops("ij,jk->ik", {{3, 0}, {0, 4}}), "%2 = zeros : [i,k]\nresult %2\n");
}

// Operand facts: a transposed constant is free, and so is a Transpose that undoes the one that
// produced the operand.
std::string OpsWith(std::string_view equation, std::vector<std::vector<int64_t>> shapes,
                    std::vector<OperandInfo> operands) {
  absl::StatusOr<Equation> eq = Equation::Parse(equation);
  std::vector<int64_t> ranks;
  std::vector<const DimsExpr*> pointers;
  for (size_t i = 0; i < shapes.size(); ++i) {
    ranks.push_back(static_cast<int64_t>(shapes[i].size()));
    for (int64_t d : shapes[i]) operands[i].dims.push_back(IndexExpr(d));
  }
  for (const OperandInfo& o : operands) pointers.push_back(&o.dims);
  absl::StatusOr<BoundEquation> b = eq->Bind(ranks);
  absl::StatusOr<std::vector<IndexExpr>> sizes = EinsumLabelSizes(*b, pointers);
  const Program p = BuildProgram(*b, operands, *sizes, {});
  std::string ops;
  for (const ProgramOp& op : p.ops) ops += std::string(OpKindName(op.kind)) + " ";
  return ops;
}

TEST(ProgramTest, ConstantsAndTransposedOperandsMoveForFree) {
  // bhs,dh->bsd: w [d,h] x [b,h,s], then the [b,d,s] result is transposed.
  EXPECT_EQ(OpsWith("bhs,dh->bsd", {{8, 64, 512}, {32, 64}}, {{}, {}}), "matmul transpose ");
  // The activation came from a Transpose [0,2,1]: undoing it is free (the emitter reads its
  // input), and w is transposed instead of the result.
  EXPECT_EQ(OpsWith("bhs,dh->bsd", {{8, 64, 512}, {32, 64}}, {{{}, false, {0, 2, 1}}, {}}),
            "transpose transpose matmul ");
  // A constant w is transposed at compile time (constprop), so that Transpose is free and x
  // goes into the MatMul as it is.
  EXPECT_EQ(OpsWith("bsh,dh->bsd", {{8, 512, 64}, {32, 64}}, {{}, {{}, true, {}}}),
            "transpose matmul ");
}

}  // namespace
}  // namespace anvil::einsum
