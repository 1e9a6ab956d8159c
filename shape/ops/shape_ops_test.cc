// Unit tests of the shape-op family's ShapeHelpers (shape_ops*.cc): each test builds one node
// with graph/ir.h, feeds it TensorInfos (and constants) through a fake builder and runs
// InferNodeShapes; chains feed one node's outputs to the next as the shape-inference pass does.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "graph/attribute.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "gtest/gtest.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"
#include "shape/testing/op_test.h"

namespace anvil {
namespace {

using shape_testing::Arg;
using shape_testing::OpTest;
using shape_testing::Q;
using shape_testing::S;
using shape_testing::SameExprs;
using shape_testing::T;
using shape_testing::UnknownRank;
using ::testing::HasSubstr;

constexpr ElementType kF32 = ElementType::kFloat;
constexpr ElementType kF64 = ElementType::kDouble;
constexpr ElementType kI32 = ElementType::kInt32;
constexpr ElementType kI64 = ElementType::kInt64;
constexpr ElementType kBool = ElementType::kBool;
constexpr ElementType kStr = ElementType::kString;
constexpr int64_t kIntMax = INT64_MAX;
constexpr int64_t kIntMin = INT64_MIN;

// A tensor with known (possibly symbolic) contents.
Arg V(ElementType type, DimsExpr dims, IndexExprList values) {
  return {TensorInfo{type, std::move(dims), std::move(values)}, nullptr};
}
// A 1-D int64 tensor with known contents.
Arg Ints(IndexExprList values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return V(kI64, {n}, std::move(values));
}
Arg Scalar(IndexExpr value) { return V(kI64, {}, {value}); }
Arg None() { return {std::nullopt, nullptr}; }
// A constant, seen as the analysis builder sees it: InfoFromElements plus the payload.
Arg C(std::shared_ptr<const Elements> elements) { return {InfoFromElements(*elements), elements}; }
template <typename T>
std::shared_ptr<const Elements> Dense(ElementType type, std::vector<int64_t> dims,
                                      std::vector<T> values) {
  return DenseElements::FromVector(type, std::move(dims), values);
}
Arg FloatConst(std::vector<int64_t> dims, std::vector<float> values) {
  return C(Dense(kF32, std::move(dims), std::move(values)));
}
Arg FloatScalar(float v) { return FloatConst({}, {v}); }
Arg Info(TensorInfo info) { return {std::move(info), nullptr}; }

// The value of `e` with the given symbol values.
std::optional<int64_t> Eval(const IndexExpr& e, const std::map<std::string, int64_t>& symbols) {
  return e.Evaluate([&](std::string_view name) -> std::optional<int64_t> {
    auto it = symbols.find(std::string(name));
    return it == symbols.end() ? std::nullopt : std::optional<int64_t>(it->second);
  });
}

const std::optional<DimsExpr> kUnknownRank = std::nullopt;

// Symbols made per test, not as globals, so nothing runs before IndexExpr's own statics.
// The context (the base, made first) holds the symbols below and every test's.
class ShapeOpTest : public shape_testing::ContextTest {
 protected:
  const IndexExpr N = S("N");
  const IndexExpr M = S("M");
  const IndexExpr H = S("H");
  const IndexExpr W = S("W");
};

// ---------------------------------------------------------------- Shape, Size

TEST_F(ShapeOpTest, ShapeValuesAreTheDims) {
  const IndexExpr q = Q();
  TensorInfo out = OpTest("Shape", 13).In(T(kF32, {N, 3, q})).Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3}));
  ASSERT_TRUE(out.values);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, 3, Q()}));
  EXPECT_EQ((*out.values)[2], q) << "the questionmark keeps its identity";
}

TEST_F(ShapeOpTest, ShapeStartEndFromOpset15) {
  const DimsExpr x = {N, 3, 4, M};
  auto shape = [&](int64_t opset, std::optional<int64_t> start,
                   std::optional<int64_t> end = std::nullopt) {
    OpTest t("Shape", opset);
    t.In(T(kF32, x));
    if (start) t.Attr(Attribute::Int("start", *start));
    if (end) t.Attr(Attribute::Int("end", *end));
    return t.Info();
  };
  TensorInfo out = shape(15, std::nullopt);
  EXPECT_TRUE(SameExprs(out.values, x));
  out = shape(15, 1);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{3, 4, M}));
  out = shape(15, -2, -1);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{4}));
  out = shape(15, 10);  // clamped: empty
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{0}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{}));
  out = shape(15, 3, 1);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{0}));
  out = shape(15, -100, 2);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, 3}));
  out = shape(15, std::nullopt, -1);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, 3, 4}));
  // Before opset 15 there are no start/end attributes.
  out = shape(13, 1);
  EXPECT_TRUE(SameExprs(out.values, x));
}

TEST_F(ShapeOpTest, ShapeOfUnknownRank) {
  TensorInfo out = OpTest("Shape", 1).In(UnknownRank(kF32)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q()}));
  EXPECT_FALSE(out.values);
}

TEST_F(ShapeOpTest, Size) {
  TensorInfo out = OpTest("Size", 13).In(T(kF32, {N, 3, M})).Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N * M * 3}));
  out = OpTest("Size", 1).In(UnknownRank(kF32)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  EXPECT_FALSE(out.values);
}

// ---------------------------------------------------------------- Reshape

TEST_F(ShapeOpTest, ReshapeLiteral) {
  TensorInfo out = OpTest("Reshape", 13).In(T(kF32, {2, 3, 4})).In(Ints({4, -1})).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4, 6}));
  out = OpTest("Reshape", 13).In(T(kF32, {2, 3, 4})).In(Ints({0, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 12}));
  out = OpTest("Reshape", 13).In(T(kF32, {2, 3, 4})).In(Ints({2, 0, 4, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 3, 4, 1}));
  out = OpTest("Reshape", 13).In(T(kF32, {1})).In(Ints({})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
}

TEST_F(ShapeOpTest, ReshapeAllowZeroFromOpset14) {
  // allowzero=1: a 0 is a 0.
  TensorInfo out = OpTest("Reshape", 14)
                       .In(T(kF32, {0, 3, 4}))
                       .In(Ints({3, 4, 0}))
                       .Attr(Attribute::Int("allowzero", 1))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3, 4, 0}));
  // Opset 13 has no allowzero: 0 copies the input dim.
  out = OpTest("Reshape", 13)
            .In(T(kF32, {2, 3, 4}))
            .In(Ints({0, 12}))
            .Attr(Attribute::Int("allowzero", 1))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 12}));
  std::string error = OpTest("Reshape", 14)
                          .In(T(kF32, {2, 3, 4}))
                          .In(Ints({0, 12}))
                          .Attr(Attribute::Int("allowzero", 1))
                          .Error();
  EXPECT_THAT(error, HasSubstr("[2, 3, 4]"));
}

TEST_F(ShapeOpTest, ReshapeSymbolicMinusOne) {
  TensorInfo out = OpTest("Reshape", 13).In(T(kF32, {N, M})).In(Ints({-1, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{FloorDiv(N * M, 4), 4}));
  EXPECT_EQ(Eval((*out.dims)[0], {{"N", 6}, {"M", 2}}), 3);
  // Copied dims cancel: [N, 3, 4] -> [N, -1] is [N, 12] exactly.
  out = OpTest("Reshape", 13).In(T(kF32, {N, 3, 4})).In(Ints({0, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 12}));
  out = OpTest("Reshape", 13).In(T(kF32, {N, M, H, W})).In(Ints({N, M, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, M, H * W}));
  // A questionmark that is copied cancels too (same identity).
  const IndexExpr q = Q();
  out = OpTest("Reshape", 13).In(T(kF32, {q, 3, 4})).In(Ints({q, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), 12}));
  EXPECT_EQ((*out.dims)[0], q);
  EXPECT_EQ((*out.dims)[1], IndexExpr(12));
  // A different unknown leaves the -1 unknown.
  out = OpTest("Reshape", 13).In(T(kF32, {Q(), 3})).In(Ints({-1, 3})).Info();
  EXPECT_TRUE((*out.dims)[0].IsQuestionmark());
}

TEST_F(ShapeOpTest, ReshapeErrorsNameTheDims) {
  std::string error = OpTest("Reshape", 13).In(T(kF32, {2, 5})).In(Ints({3, 4})).Error();
  EXPECT_THAT(
      error,
      HasSubstr(
          "node 'n' (Reshape): cannot reshape [2, 5] (10 elements) into [3, 4] (12 elements)"));
  EXPECT_THAT(error, HasSubstr("[2, 5]"));
  EXPECT_THAT(error, HasSubstr("[3, 4]"));
  EXPECT_THAT(error, HasSubstr("10"));
  EXPECT_THAT(error, HasSubstr("12"));
  error = OpTest("Reshape", 13).In(T(kF32, {10})).In(Ints({3, -1})).Error();
  EXPECT_THAT(error, HasSubstr("[3, -1]"));
  EXPECT_THAT(error, HasSubstr("not a multiple of 3"));
  error = OpTest("Reshape", 13).In(T(kF32, {N, 5})).In(Ints({N, 3, -1})).Error();
  EXPECT_THAT(error, HasSubstr("5 is not a multiple of 3"));
  EXPECT_THAT(OpTest("Reshape", 13).In(T(kF32, {12})).In(Ints({-1, -1})).Error(),
              HasSubstr("two -1"));
  EXPECT_THAT(OpTest("Reshape", 13).In(T(kF32, {12})).In(Ints({-2, 6})).Error(),
              HasSubstr("invalid dim -2"));
  EXPECT_THAT(OpTest("Reshape", 13).In(T(kF32, {12})).In(Ints({12, 0})).Error(),
              HasSubstr("copies dim 1 of input [12]"));
}

TEST_F(ShapeOpTest, ReshapeOpset1ShapeAttribute) {
  TensorInfo out =
      OpTest("Reshape", 1).In(T(kF32, {2, 3, 4})).Attr(Attribute::Ints("shape", {6, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{6, 4}));
  out = OpTest("Reshape", 4).In(T(kF32, {2, 3, 4})).Info();  // no shape: rank unknown
  EXPECT_TRUE(SameExprs(out.dims, kUnknownRank));
}

TEST_F(ShapeOpTest, ReshapeUnknownTarget) {
  // Only the target's length is known.
  TensorInfo out = OpTest("Reshape", 13).In(T(kF32, {2, 3, 4})).In(T(kI64, {3})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q()}));
  out = OpTest("Reshape", 13).In(T(kF32, {2, 3, 4})).In(T(kI64, {Q()})).Info();
  EXPECT_TRUE(SameExprs(out.dims, kUnknownRank));
  // Known target, unknown input: the -1 is unknown.
  out = OpTest("Reshape", 13).In(UnknownRank(kF32)).In(Ints({5, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{5, Q()}));
}

TEST_F(ShapeOpTest, ReshapeKeepsValues) {
  TensorInfo out = OpTest("Reshape", 13).In(V(kI64, {2, 2}, {1, N, 3, 4})).In(Ints({4})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{1, N, 3, 4}));
}

// ---------------------------------------------------------------- Flatten

TEST_F(ShapeOpTest, Flatten) {
  auto flatten = [](int64_t opset, Arg x, std::optional<int64_t> axis) {
    OpTest t("Flatten", opset);
    t.In(std::move(x));
    if (axis) t.Attr(Attribute::Int("axis", *axis));
    return t.Info();
  };
  EXPECT_TRUE(SameExprs(flatten(13, T(kF32, {2, 3, 4}), std::nullopt).dims, DimsExpr{2, 12}));
  EXPECT_TRUE(SameExprs(flatten(1, T(kF32, {2, 3, 4}), 0).dims, DimsExpr{1, 24}));
  EXPECT_TRUE(SameExprs(flatten(9, T(kF32, {2, 3, 4}), 3).dims, DimsExpr{24, 1}));
  EXPECT_TRUE(SameExprs(flatten(11, T(kF32, {2, 3, 4}), -1).dims, DimsExpr{6, 4}));
  EXPECT_TRUE(SameExprs(flatten(13, T(kF32, {N, H, W}), 1).dims, DimsExpr{N, H * W}));
  EXPECT_TRUE(SameExprs(flatten(13, UnknownRank(kF32), 1).dims, DimsExpr{Q(), Q()}));
  EXPECT_TRUE(SameExprs(flatten(13, V(kI64, {1, 2}, {N, 3}), 0).values, IndexExprList{N, 3}));
  EXPECT_THAT(OpTest("Flatten", 13).In(T(kF32, {2, 3})).Attr(Attribute::Int("axis", 3)).Error(),
              HasSubstr("axis 3 is out of range"));
}

// ---------------------------------------------------------------- Squeeze, Unsqueeze

TEST_F(ShapeOpTest, SqueezeAxesAttributeBefore13) {
  TensorInfo out =
      OpTest("Squeeze", 11).In(T(kF32, {1, N, 1})).Attr(Attribute::Ints("axes", {0, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N}));
  out = OpTest("Squeeze", 1).In(T(kF32, {1, 3, 1})).Attr(Attribute::Ints("axes", {2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3}));
}

TEST_F(ShapeOpTest, SqueezeAxesInputFrom13) {
  TensorInfo out = OpTest("Squeeze", 13).In(T(kF32, {1, N, 1})).In(Ints({-3})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 1}));
  // Unknown axes of known length: the rank is known.
  out = OpTest("Squeeze", 13).In(T(kF32, {1, N, 1})).In(T(kI64, {2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q()}));
}

TEST_F(ShapeOpTest, SqueezeWithoutAxes) {
  TensorInfo out = OpTest("Squeeze", 13).In(T(kF32, {1, 3, 1, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3, 4}));
  // A symbol might be 1: the rank is unknown.
  out = OpTest("Squeeze", 13).In(T(kF32, {1, N})).Info();
  EXPECT_TRUE(SameExprs(out.dims, kUnknownRank));
}

TEST_F(ShapeOpTest, SqueezeErrorsAndValues) {
  EXPECT_THAT(OpTest("Squeeze", 13).In(T(kF32, {1, 3})).In(Ints({1})).Error(),
              HasSubstr("cannot squeeze dim 1 of [1, 3]"));
  EXPECT_THAT(OpTest("Squeeze", 13).In(T(kF32, {1, 3})).In(Ints({2})).Error(),
              HasSubstr("out of range"));
  EXPECT_THAT(OpTest("Squeeze", 13).In(T(kF32, {1, 1})).In(Ints({0, -2})).Error(),
              HasSubstr("repeats"));
  TensorInfo out = OpTest("Squeeze", 13).In(V(kI64, {1}, {N})).In(Ints({0})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N}));
}

TEST_F(ShapeOpTest, Unsqueeze) {
  TensorInfo out =
      OpTest("Unsqueeze", 11).In(T(kF32, {3, N})).Attr(Attribute::Ints("axes", {0, 3})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3, N, 1}));
  out = OpTest("Unsqueeze", 1).In(T(kF32, {3})).Attr(Attribute::Ints("axes", {1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3, 1}));
  out = OpTest("Unsqueeze", 13).In(T(kF32, {3, N})).In(Ints({-1, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3, 1, N, 1}));
  out = OpTest("Unsqueeze", 13).In(V(kI64, {}, {N})).In(Ints({0})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N}));
  out = OpTest("Unsqueeze", 13).In(T(kF32, {3})).In(T(kI64, {2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q()}));
  EXPECT_THAT(OpTest("Unsqueeze", 13).In(T(kF32, {3})).In(Ints({0, 0})).Error(),
              HasSubstr("repeats"));
  EXPECT_THAT(OpTest("Unsqueeze", 13).In(T(kF32, {3})).In(Ints({3})).Error(),
              HasSubstr("out of range"));
  EXPECT_THAT(OpTest("Unsqueeze", 11).In(T(kF32, {3})).Error(), HasSubstr("missing axes"));
}

// ---------------------------------------------------------------- Transpose

TEST_F(ShapeOpTest, Transpose) {
  TensorInfo out = OpTest("Transpose", 13).In(T(kF32, {N, 3, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4, 3, N}));
  out =
      OpTest("Transpose", 1).In(T(kF32, {N, 3, 4})).Attr(Attribute::Ints("perm", {0, 2, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 4, 3}));
  out = OpTest("Transpose", 13).In(UnknownRank(kF32)).Attr(Attribute::Ints("perm", {1, 0})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q()}));
  EXPECT_THAT(
      OpTest("Transpose", 13).In(T(kF32, {2, 3})).Attr(Attribute::Ints("perm", {0, 0})).Error(),
      HasSubstr("not a permutation"));
  EXPECT_THAT(
      OpTest("Transpose", 13).In(T(kF32, {2, 3})).Attr(Attribute::Ints("perm", {0, 1, 2})).Error(),
      HasSubstr("not a permutation"));
  // Values of a small [2, 3] tensor move with their elements.
  out = OpTest("Transpose", 13).In(V(kI64, {2, 3}, {1, 2, 3, 4, 5, 6})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{1, 4, 2, 5, 3, 6}));
}

// ---------------------------------------------------------------- Concat

TEST_F(ShapeOpTest, Concat) {
  TensorInfo out = OpTest("Concat", 13)
                       .In(T(kF32, {N, 3}))
                       .In(T(kF32, {N, 4}))
                       .Attr(Attribute::Int("axis", 1))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 7}));
  // Other dims agree: a literal wins over a symbol.
  out = OpTest("Concat", 13)
            .In(T(kF32, {2, N}))
            .In(T(kF32, {M, 3}))
            .Attr(Attribute::Int("axis", -2))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{M + 2, 3}));
  // An input of unknown rank leaves the sum unknown.
  out = OpTest("Concat", 13)
            .In(T(kF32, {2, 3}))
            .In(UnknownRank(kF32))
            .Attr(Attribute::Int("axis", 0))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), 3}));
  // Opset 1: axis defaults to 1.
  out = OpTest("Concat", 1).In(T(kF32, {2, 3})).In(T(kF32, {2, 5})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 8}));
}

TEST_F(ShapeOpTest, ConcatErrors) {
  std::string error = OpTest("Concat", 13)
                          .In(T(kF32, {2, 3}))
                          .In(T(kF32, {2, 4}))
                          .Attr(Attribute::Int("axis", 0))
                          .Error();
  // Which inputs disagree, and both dims (not a dim against a whole shape).
  EXPECT_THAT(error, HasSubstr("input 1 [2, 4] has dim 1 = 4, input 0 [2, 3] has 3 "
                               "(concatenating along axis 0)"));
  // The dim to blame is the first literal one: input 1's, not input 0's symbol.
  EXPECT_THAT(OpTest("Concat", 13)
                  .In(T(kF32, {1, IndexExpr::Symbol("C"), 12, IndexExpr::Symbol("W")}))
                  .In(T(kF32, {1, 16, 12, 32}))
                  .In(T(kF32, {1, 32, 12, 12}))
                  .Attr(Attribute::Int("axis", 1))
                  .Error(),
              HasSubstr("input 2 [1, 32, 12, 12] has dim 3 = 12, input 1 [1, 16, 12, 32] has 32 "
                        "(concatenating along axis 1)"));
  EXPECT_THAT(OpTest("Concat", 13)
                  .In(T(kF32, {2, 3}))
                  .In(T(kF32, {2}))
                  .Attr(Attribute::Int("axis", 0))
                  .Error(),
              HasSubstr("input 1 [2] has rank 1, input 0 [2, 3] has rank 2"));
  EXPECT_THAT(OpTest("Concat", 4).In(T(kF32, {2})).Error(), HasSubstr("missing attribute axis"));
  EXPECT_THAT(OpTest("Concat", 13).In(T(kF32, {2})).Attr(Attribute::Int("axis", 1)).Error(),
              HasSubstr("out of range"));
}

TEST_F(ShapeOpTest, ConcatValues) {
  TensorInfo out = OpTest("Concat", 13)
                       .In(Ints({N}))
                       .In(Ints({-1}))
                       .In(Ints({3, M}))
                       .Attr(Attribute::Int("axis", 0))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, -1, 3, M}));
  out = OpTest("Concat", 13).In(Ints({N})).In(T(kI64, {1})).Attr(Attribute::Int("axis", 0)).Info();
  EXPECT_FALSE(out.values);
}

// ---------------------------------------------------------------- Split

TEST_F(ShapeOpTest, SplitLengths) {
  OpTest t("Split", 11);
  t.In(T(kF32, {6, N})).Attr(Attribute::Ints("split", {2, 4})).Outputs(2);
  EXPECT_TRUE(SameExprs(t.Info(0).dims, DimsExpr{2, N}));
  EXPECT_TRUE(SameExprs(t.Info(1).dims, DimsExpr{4, N}));
  OpTest t13("Split", 13);
  t13.In(T(kF32, {N, 6})).In(Ints({1, 5})).Attr(Attribute::Int("axis", -1)).Outputs(2);
  EXPECT_TRUE(SameExprs(t13.Info(0).dims, DimsExpr{N, 1}));
  EXPECT_TRUE(SameExprs(t13.Info(1).dims, DimsExpr{N, 5}));
  // Opset 1 also takes the lengths as input 1.
  OpTest t1("Split", 1);
  t1.In(T(kF32, {5})).In(Ints({2, 3})).Outputs(2);
  EXPECT_TRUE(SameExprs(t1.Info(1).dims, DimsExpr{3}));
  // Unknown lengths.
  OpTest tq("Split", 13);
  tq.In(T(kF32, {6, 2})).In(T(kI64, {2})).Outputs(2);
  EXPECT_TRUE(SameExprs(tq.Info(0).dims, DimsExpr{Q(), 2}));
}

TEST_F(ShapeOpTest, SplitEqual) {
  OpTest t("Split", 13);
  t.In(T(kF32, {6, N})).Outputs(3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(SameExprs(t.Info(i).dims, DimsExpr{2, N}));
  OpTest ts("Split", 2);
  ts.In(T(kF32, {3, N})).Attr(Attribute::Int("axis", 1)).Outputs(2);
  EXPECT_TRUE(SameExprs(ts.Info(0).dims, DimsExpr{3, FloorDiv(N, 2)}));
  EXPECT_TRUE(SameExprs(ts.Info(1).dims, DimsExpr{3, FloorDiv(N, 2)}));
}

TEST_F(ShapeOpTest, SplitErrors) {
  EXPECT_THAT(OpTest("Split", 13).In(T(kF32, {7})).Outputs(2).Error(),
              HasSubstr("[7] does not split into 2 equal parts"));
  EXPECT_THAT(OpTest("Split", 13).In(T(kF32, {7})).In(Ints({3, 3})).Outputs(2).Error(),
              HasSubstr("sums to 6"));
  EXPECT_THAT(OpTest("Split", 11)
                  .In(T(kF32, {6}))
                  .Attr(Attribute::Ints("split", {2, 2, 2}))
                  .Outputs(2)
                  .Error(),
              HasSubstr("3 parts for 2 outputs"));
}

TEST_F(ShapeOpTest, SplitValues) {
  OpTest t("Split", 13);
  t.In(Ints({N, 3, 4})).In(Ints({1, 2})).Outputs(2);
  EXPECT_TRUE(SameExprs(t.Info(0).values, IndexExprList{N}));
  EXPECT_TRUE(SameExprs(t.Info(1).values, IndexExprList{3, 4}));
}

// ---------------------------------------------------------------- Slice

// The spec's Slice length, computed naively: negative start/end plus dim, start clamped into
// [0, dim] ([0, dim - 1] for negative steps, lower bound first), end into [0, dim]
// ([-1, dim - 1]), count = max(ceil((end - start) / step), 0).
int64_t SpecSliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::min(std::max<int64_t>(start, 0), dim);
    end = std::min(std::max<int64_t>(end, 0), dim);
  } else {
    start = std::min(std::max<int64_t>(start, 0), dim - 1);
    end = std::min(std::max<int64_t>(end, -1), dim - 1);
  }
  // In 128 bits: steps of +-2^63 must not overflow the reference.
  const __int128 diff = end - start, st = step;
  const __int128 count = st > 0 ? (diff + st - 1) / st : (-diff + -st - 1) / -st;
  return diff == 0 || (diff > 0) != (st > 0) ? 0 : static_cast<int64_t>(count);
}

TEST_F(ShapeOpTest, SliceAgreesWithTheSpecLiteralAndSymbolic) {
  const std::vector<int64_t> bounds = {kIntMin, -8, -3, -1, 0, 1, 2, 5, 8, kIntMax};
  for (int64_t step : {kIntMin, int64_t{-3}, int64_t{-1}, int64_t{1}, int64_t{2}, kIntMax}) {
    for (int64_t start : bounds) {
      for (int64_t end : bounds) {
        // The same slice on a symbolic dim, then evaluated at each literal.
        TensorInfo symbolic = OpTest("Slice", 13)
                                  .In(T(kF32, {N}))
                                  .In(Ints({start}))
                                  .In(Ints({end}))
                                  .In(Ints({0}))
                                  .In(Ints({step}))
                                  .Info();
        for (int64_t dim = 0; dim <= 6; ++dim) {
          const int64_t expected = SpecSliceLength(dim, start, end, step);
          SCOPED_TRACE(testing::Message()
                       << "dim " << dim << " [" << start << ":" << end << ":" << step << "]");
          TensorInfo literal = OpTest("Slice", 13)
                                   .In(T(kF32, {dim}))
                                   .In(Ints({start}))
                                   .In(Ints({end}))
                                   .In(Ints({0}))
                                   .In(Ints({step}))
                                   .Info();
          ASSERT_TRUE(literal.dims);
          EXPECT_EQ((*literal.dims)[0], IndexExpr(expected)) << (*literal.dims)[0].ToString();
          ASSERT_TRUE(symbolic.dims);
          EXPECT_EQ(Eval((*symbolic.dims)[0], {{"N", dim}}), expected)
              << (*symbolic.dims)[0].ToString();
        }
      }
    }
  }
}

TEST_F(ShapeOpTest, SliceSymbolicForms) {
  auto slice = [&](int64_t start, int64_t end, int64_t step) {
    return OpTest("Slice", 13)
        .In(T(kF32, {N}))
        .In(Ints({start}))
        .In(Ints({end}))
        .In(Ints({0}))
        .In(Ints({step}))
        .Info();
  };
  // x[1:], x[:-1], x[:], x[-3:], x[::-1] (twice), x[::2], x[2:5].
  EXPECT_TRUE(SameExprs(slice(1, kIntMax, 1).dims, DimsExpr{Max(N - 1, 0)}));
  EXPECT_TRUE(SameExprs(slice(0, -1, 1).dims, DimsExpr{Max(N - 1, 0)}));
  EXPECT_TRUE(SameExprs(slice(0, kIntMax, 1).dims, DimsExpr{N}));
  EXPECT_TRUE(SameExprs(slice(-3, kIntMax, 1).dims, DimsExpr{Min(N, 3)}));
  EXPECT_TRUE(SameExprs(slice(-1, kIntMin, -1).dims, DimsExpr{N}));
  EXPECT_TRUE(SameExprs(slice(kIntMax, kIntMin, -1).dims, DimsExpr{N}));
  EXPECT_TRUE(SameExprs(slice(0, kIntMax, 2).dims, DimsExpr{Max(CeilDiv(N, 2), 0)}));
  EXPECT_TRUE(SameExprs(slice(2, 5, 1).dims, DimsExpr{Max(Min(N, 5) - 2, 0)}));
}

TEST_F(ShapeOpTest, SliceOpset13Cases) {
  // From the ONNX backend tests.
  TensorInfo out =
      OpTest("Slice", 13).In(T(kF32, {20, 10, 5})).In(Ints({0, 0, 3})).In(Ints({20, 10, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{20, 10, 1}));
  out = OpTest("Slice", 13)
            .In(T(kF32, {20, 10, 5}))
            .In(Ints({20, 10, 4}))
            .In(Ints({0, 0, 1}))
            .In(Ints({0, 1, 2}))
            .In(Ints({-1, -3, -2}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{19, 3, 2}));
  out = OpTest("Slice", 13)
            .In(T(kF32, {20, 10, 5}))
            .In(Ints({1000}))
            .In(Ints({1000}))
            .In(Ints({1}))
            .In(Ints({1}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{20, 0, 5}));
  out = OpTest("Slice", 13)
            .In(T(kF32, {20, 10, 5}))
            .In(Ints({0, 0, 3}))
            .In(Ints({20, 10, 4}))
            .In(Ints({0, -2, -1}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{20, 10, 1}));
  // Steps omitted but axes given; only the listed axes change.
  out = OpTest("Slice", 10).In(T(kF32, {N, 10})).In(Ints({2})).In(Ints({-2})).In(Ints({1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 6}));
  // Negative-step start below 0 clamps to 0 (one element), as the spec says.
  out = OpTest("Slice", 13)
            .In(T(kF32, {4}))
            .In(Ints({-10}))
            .In(Ints({kIntMin}))
            .In(None())
            .In(Ints({-1}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1}));
}

TEST_F(ShapeOpTest, SliceOpset1Attributes) {
  TensorInfo out = OpTest("Slice", 1)
                       .In(T(kF32, {2, 4}))
                       .Attr(Attribute::Ints("axes", {0, 1}))
                       .Attr(Attribute::Ints("starts", {1, 0}))
                       .Attr(Attribute::Ints("ends", {2, 3}))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3}));
  out = OpTest("Slice", 1)
            .In(T(kF32, {2, 4}))
            .Attr(Attribute::Ints("starts", {0, 1}))
            .Attr(Attribute::Ints("ends", {-1, 1000}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3}));
  EXPECT_THAT(OpTest("Slice", 1).In(T(kF32, {2})).Attr(Attribute::Ints("ends", {1})).Error(),
              HasSubstr("missing attribute starts"));
}

TEST_F(ShapeOpTest, SliceUnknownArguments) {
  // Unknown ends on a known axis: only that dim is unknown.
  TensorInfo out = OpTest("Slice", 13)
                       .In(T(kF32, {N, 10, 4}))
                       .In(Ints({0}))
                       .In(T(kI64, {1}))
                       .In(Ints({1}))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, Q(), 4}));
  // Unknown axes: every dim may change.
  out =
      OpTest("Slice", 13).In(T(kF32, {N, 10})).In(Ints({0})).In(Ints({1})).In(T(kI64, {1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q()}));
  // A symbolic end (from a Shape): exact.
  out = OpTest("Slice", 13).In(T(kF32, {N, 10})).In(Ints({0})).In(Ints({M})).In(Ints({1})).Info();
  ASSERT_TRUE(out.dims);
  EXPECT_EQ((*out.dims)[0], N);
  for (int64_t m : {0, 3, 10, 12})
    EXPECT_EQ(Eval((*out.dims)[1], {{"M", m}}), std::min<int64_t>(m, 10));
  EXPECT_TRUE(
      SameExprs(OpTest("Slice", 13).In(UnknownRank(kF32)).In(Ints({0})).In(Ints({1})).Info().dims,
                kUnknownRank));
}

TEST_F(ShapeOpTest, SliceErrors) {
  EXPECT_THAT(OpTest("Slice", 13)
                  .In(T(kF32, {4}))
                  .In(Ints({0}))
                  .In(Ints({4}))
                  .In(Ints({0}))
                  .In(Ints({0}))
                  .Error(),
              HasSubstr("step of axis 0 is 0"));
  EXPECT_THAT(OpTest("Slice", 13)
                  .In(T(kF32, {4, 4}))
                  .In(Ints({0, 0}))
                  .In(Ints({4, 4}))
                  .In(Ints({1, -1}))
                  .Error(),
              HasSubstr("repeats"));
  EXPECT_THAT(OpTest("Slice", 13).In(T(kF32, {4, 4})).In(Ints({0, 0})).In(Ints({4})).Error(),
              HasSubstr("1 ends for 2 sliced axes"));
}

TEST_F(ShapeOpTest, SliceValues) {
  const Arg shape = Ints({N, 3, 4, 5});
  auto slice = [&](int64_t start, int64_t end, int64_t step) {
    return OpTest("Slice", 13)
        .In(shape)
        .In(Ints({start}))
        .In(Ints({end}))
        .In(Ints({0}))
        .In(Ints({step}))
        .Info();
  };
  EXPECT_TRUE(SameExprs(slice(1, 3, 1).values, IndexExprList{3, 4}));
  EXPECT_TRUE(SameExprs(slice(-1, kIntMax, 1).values, IndexExprList{5}));
  EXPECT_TRUE(SameExprs(slice(0, 1, 1).values, IndexExprList{N}));
  EXPECT_TRUE(SameExprs(slice(-1, kIntMin, -1).values, IndexExprList{5, 4, 3, N}));
  EXPECT_TRUE(SameExprs(slice(0, kIntMax, 2).values, IndexExprList{N, 4}));
  EXPECT_TRUE(SameExprs(slice(3, 1, 1).values, IndexExprList{}));
}

// ---------------------------------------------------------------- Gather family

TEST_F(ShapeOpTest, Gather) {
  TensorInfo out = OpTest("Gather", 13)
                       .In(T(kF32, {N, 3, 4}))
                       .In(T(kI64, {2, 5}))
                       .Attr(Attribute::Int("axis", 1))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 2, 5, 4}));
  out = OpTest("Gather", 1).In(T(kF32, {N, 3})).In(T(kI64, {})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3}));
  out = OpTest("Gather", 11)
            .In(T(kF32, {N, 3}))
            .In(T(kI32, {M}))
            .Attr(Attribute::Int("axis", -1))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, M}));
  EXPECT_THAT(OpTest("Gather", 13).In(T(kF32, {3})).In(Scalar(3)).Error(),
              HasSubstr("index 3 is out of range for dim 0 of [3]"));
  EXPECT_THAT(OpTest("Gather", 13).In(T(kF32, {3})).In(Scalar(-4)).Error(),
              HasSubstr("out of range"));
}

TEST_F(ShapeOpTest, GatherValues) {
  const Arg shape = Ints({N, 3, 4});
  TensorInfo out = OpTest("Gather", 13).In(shape).In(Scalar(0)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N}));
  out = OpTest("Gather", 13).In(shape).In(Scalar(-1)).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{4}));
  out = OpTest("Gather", 13).In(shape).In(Ints({2, 0, -2})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{4, N, 3}));
  // 2-D data along axis 1.
  out = OpTest("Gather", 13)
            .In(V(kI64, {2, 3}, {1, 2, 3, 4, 5, 6}))
            .In(Ints({2, 0}))
            .Attr(Attribute::Int("axis", 1))
            .Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{3, 1, 6, 4}));
  // Unknown indices: no values.
  EXPECT_FALSE(OpTest("Gather", 13).In(shape).In(T(kI64, {})).Info().values);
}

TEST_F(ShapeOpTest, GatherElements) {
  TensorInfo out = OpTest("GatherElements", 13).In(T(kF32, {N, 3})).In(T(kI64, {M, 2})).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{M, 2}));
  EXPECT_THAT(OpTest("GatherElements", 11).In(T(kF32, {N, 3})).In(T(kI64, {2})).Error(),
              HasSubstr("rank"));
}

TEST_F(ShapeOpTest, GatherND) {
  TensorInfo out = OpTest("GatherND", 11).In(T(kF32, {2, 3, 4})).In(T(kI64, {N, 2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 4}));
  out = OpTest("GatherND", 12)
            .In(T(kF32, {2, 3, 4}))
            .In(T(kI64, {2, 1}))
            .Attr(Attribute::Int("batch_dims", 1))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 4}));
  out = OpTest("GatherND", 13).In(T(kF32, {2, 3})).In(T(kI64, {5, 2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{5}));
  // The last indices dim decides the rank.
  out = OpTest("GatherND", 13).In(T(kF32, {2, 3})).In(T(kI64, {5, N})).Info();
  EXPECT_TRUE(SameExprs(out.dims, kUnknownRank));
  EXPECT_THAT(OpTest("GatherND", 13).In(T(kF32, {2, 3})).In(T(kI64, {5, 3})).Error(),
              HasSubstr("do not index data [2, 3]"));
}

TEST_F(ShapeOpTest, ShapedLikeData) {
  for (const char* op : {"ScatterND", "ScatterElements", "Scatter", "ReverseSequence"}) {
    const int64_t opset = std::string(op) == "Scatter" ? 9 : 16;
    TensorInfo out =
        OpTest(op, opset).In(T(kF32, {N, 3})).In(T(kI64, {M, 1})).In(T(kF32, {M, 3})).Info();
    EXPECT_EQ(out.type, kF32) << op;
    EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3})) << op;
  }
}

// ---------------------------------------------------------------- Tile, Expand, Pad

TEST_F(ShapeOpTest, Tile) {
  TensorInfo out = OpTest("Tile", 13).In(T(kF32, {N, 3})).In(Ints({2, M})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N * 2, M * 3}));
  out = OpTest("Tile", 6).In(T(kF32, {N, 3})).In(T(kI64, {2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q()}));
  out = OpTest("Tile", 13).In(Ints({N, 3})).In(Ints({2})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, 3, N, 3}));
  EXPECT_THAT(OpTest("Tile", 13).In(T(kF32, {N, 3})).In(Ints({2})).Error(),
              HasSubstr("repeats [2] for input [N, 3]"));
  // Opset 1: (input, tiles, axis).
  out = OpTest("Tile", 1).In(T(kF32, {N, 3})).In(Scalar(4)).In(Scalar(1)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 12}));
}

TEST_F(ShapeOpTest, Expand) {
  TensorInfo out = OpTest("Expand", 13).In(T(kF32, {3, 1})).In(Ints({2, 1, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 3, 4}));
  out = OpTest("Expand", 8).In(T(kF32, {1, 5})).In(Ints({N, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 5}));
  // Target values unknown, length known: the rank, and input dims other than 1.
  out = OpTest("Expand", 13).In(T(kF32, {4, 1})).In(T(kI64, {3})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), 4, Q()}));
  out = OpTest("Expand", 13).In(T(kF32, {4, 1})).In(T(kI64, {Q()})).Info();
  EXPECT_TRUE(SameExprs(out.dims, kUnknownRank));
  EXPECT_THAT(OpTest("Expand", 13).In(T(kF32, {3})).In(Ints({4})).Error(),
              HasSubstr("cannot broadcast"));
  // Values broadcast.
  out = OpTest("Expand", 13).In(V(kI64, {1}, {N})).In(Ints({3})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{N, N, N}));
  out = OpTest("Expand", 13).In(V(kI64, {2, 1}, {1, 2})).In(Ints({2, 2})).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{1, 1, 2, 2}));
}

TEST_F(ShapeOpTest, Pad) {
  // [x1_begin, x2_begin, x1_end, x2_end].
  TensorInfo out =
      OpTest("Pad", 2).In(T(kF32, {N, 5})).Attr(Attribute::Ints("pads", {1, 2, 3, 4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N + 4, 11}));
  out = OpTest("Pad", 1).In(T(kF32, {N, 5})).Attr(Attribute::Ints("paddings", {0, 1, 0, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 7}));
  out = OpTest("Pad", 11).In(T(kF32, {N, 5})).In(Ints({0, -1, M, 0})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N + M, 4}));
  out = OpTest("Pad", 13).In(T(kF32, {N, 5})).In(T(kI64, {4})).In(FloatScalar(0)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q()}));
  out = OpTest("Pad", 13).In(UnknownRank(kF32)).In(Ints({1, 1, 1, 1, 1, 1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q()}));
  EXPECT_THAT(OpTest("Pad", 13).In(T(kF32, {3})).In(Ints({1, 1, 1, 1})).Error(),
              HasSubstr("4 pads for input [3]"));
  EXPECT_THAT(OpTest("Pad", 13).In(T(kF32, {3})).In(Ints({-2, -2})).Error(),
              HasSubstr("remove more than dim 0"));
  EXPECT_THAT(OpTest("Pad", 2).In(T(kF32, {3})).Error(), HasSubstr("missing attribute pads"));
}

// ---------------------------------------------------------------- Range, constants

TEST_F(ShapeOpTest, RangeLiteral) {
  TensorInfo out = OpTest("Range", 11).In(Scalar(0)).In(Scalar(10)).In(Scalar(3)).Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{0, 3, 6, 9}));
  out = OpTest("Range", 11).In(Scalar(10)).In(Scalar(0)).In(Scalar(-3)).Info();
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{10, 7, 4, 1}));
  out = OpTest("Range", 11).In(Scalar(5)).In(Scalar(0)).In(Scalar(1)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{0}));
  // Floats (from the ONNX backend test): ceil((5 - 1) / 0.3) ... as float inputs.
  out = OpTest("Range", 11).In(FloatScalar(1)).In(FloatScalar(5)).In(FloatScalar(2)).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2}));
  out = OpTest("Range", 11).In(FloatScalar(0)).In(FloatScalar(1)).In(FloatScalar(0.3f)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4}));
  EXPECT_FALSE(out.values);
  out = OpTest("Range", 11).In(FloatScalar(10)).In(FloatScalar(6)).In(FloatScalar(-3)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2}));
}

TEST_F(ShapeOpTest, RangeSymbolic) {
  TensorInfo out = OpTest("Range", 11).In(Scalar(0)).In(Scalar(N)).In(Scalar(1)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N}));
  out = OpTest("Range", 11).In(Scalar(1)).In(Scalar(N)).In(Scalar(2)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Max(CeilDiv(N - 1, 2), 0)}));
  EXPECT_EQ(Eval((*out.dims)[0], {{"N", 6}}), 3);
  EXPECT_EQ(Eval((*out.dims)[0], {{"N", 0}}), 0);
  out = OpTest("Range", 11).In(Scalar(N)).In(Scalar(0)).In(Scalar(-1)).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N}));
  // Unknown delta.
  out = OpTest("Range", 11).In(Scalar(0)).In(Scalar(N)).In(T(kI64, {})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q()}));
  EXPECT_THAT(OpTest("Range", 11).In(Scalar(0)).In(Scalar(N)).In(Scalar(0)).Error(),
              HasSubstr("delta is 0"));
}

TEST_F(ShapeOpTest, ConstantOfShape) {
  TensorInfo out = OpTest("ConstantOfShape", 9).In(Ints({N, 3})).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3}));
  EXPECT_FALSE(out.values);
  out = OpTest("ConstantOfShape", 9)
            .In(Ints({2}))
            .Attr(Attribute::Tensor("value", Dense<int64_t>(kI64, {1}, {1})))
            .Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{1, 1}));
  out = OpTest("ConstantOfShape", 9).In(Ints({})).Info();  // a scalar
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  out = OpTest("ConstantOfShape", 9).In(T(kI64, {3})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q()}));
  EXPECT_THAT(OpTest("ConstantOfShape", 9).In(Ints({2, -1})).Error(),
              HasSubstr("negative dim in shape [2, -1]"));
}

TEST_F(ShapeOpTest, Constant) {
  TensorInfo out = OpTest("Constant", 13)
                       .Attr(Attribute::Tensor("value", Dense<int64_t>(kI64, {3}, {4, -1, 2})))
                       .Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{4, -1, 2}));
  out = OpTest("Constant", 1)
            .Attr(Attribute::Tensor("value", Dense<float>(kF32, {2, 2}, {1, 2, 3, 4})))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 2}));
  EXPECT_FALSE(out.values);
  out = OpTest("Constant", 12).Attr(Attribute::Float("value_float", 1.5f)).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  out = OpTest("Constant", 12).Attr(Attribute::Floats("value_floats", {1, 2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2}));
  out = OpTest("Constant", 12).Attr(Attribute::Int("value_int", 7)).Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{7}));
  out = OpTest("Constant", 13).Attr(Attribute::Ints("value_ints", {0, -1})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2}));
  EXPECT_TRUE(SameExprs(out.values, IndexExprList{0, -1}));
  out = OpTest("Constant", 12).Attr(Attribute::String("value_string", "a")).Info();
  EXPECT_EQ(out.type, kStr);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{}));
  out = OpTest("Constant", 12).Attr(Attribute::Strings("value_strings", {"a", "b", "c"})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3}));
  EXPECT_THAT(OpTest("Constant", 13).Error(), HasSubstr("no value attribute"));
}

TEST_F(ShapeOpTest, ConstantSparseValue) {
  // SparseTensorProto{values: TensorProto{dims: [2], data_type: DOUBLE}, dims: 3, 4}, with
  // dims unpacked and packed.
  const std::string values = std::string("\x0a\x04\x08\x02\x10\x0b", 6);
  for (const std::string& dims :
       {std::string("\x18\x03\x18\x04", 4), std::string("\x1a\x02\x03\x04", 4)}) {
    Attribute sparse("sparse_value", AttributeType::kSparseTensor);
    sparse.serialized_protos.push_back(values + dims);
    TensorInfo out = OpTest("Constant", 11).Attr(std::move(sparse)).Info();
    EXPECT_EQ(out.type, kF64);
    EXPECT_TRUE(SameExprs(out.dims, DimsExpr{3, 4}));
  }
  Attribute broken("sparse_value", AttributeType::kSparseTensor);
  broken.serialized_protos.push_back("\x0a\x09");
  EXPECT_THAT(OpTest("Constant", 11).Attr(std::move(broken)).Error(), HasSubstr("sparse_value"));
}

TEST_F(ShapeOpTest, RandomAndMultinomial) {
  TensorInfo out = OpTest("RandomUniform", 1).Attr(Attribute::Ints("shape", {2, 3})).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 3}));
  out = OpTest("RandomNormal", 1)
            .Attr(Attribute::Ints("shape", {4}))
            .Attr(Attribute::Int("dtype", static_cast<int64_t>(kF64)))
            .Info();
  EXPECT_EQ(out.type, kF64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4}));
  EXPECT_THAT(OpTest("RandomNormal", 1).Error(), HasSubstr("missing attribute shape"));
  out = OpTest("Multinomial", 7).In(T(kF32, {N, 10})).Attr(Attribute::Int("sample_size", 5)).Info();
  EXPECT_EQ(out.type, kI32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 5}));
  out = OpTest("Multinomial", 7)
            .In(UnknownRank(kF32))
            .Attr(Attribute::Int("dtype", static_cast<int64_t>(kI64)))
            .Info();
  EXPECT_EQ(out.type, kI64);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), 1}));
}

// ---------------------------------------------------------------- Depth/space, Compress, OneHot

TEST_F(ShapeOpTest, DepthToSpaceAndBack) {
  TensorInfo out = OpTest("DepthToSpace", 13)
                       .In(T(kF32, {N, 8, H, W}))
                       .Attr(Attribute::Int("blocksize", 2))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 2, H * 2, W * 2}));
  out = OpTest("DepthToSpace", 1)
            .In(T(kF32, {1, M, 2, 3}))
            .Attr(Attribute::Int("blocksize", 3))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, FloorDiv(M, 9), 6, 9}));
  EXPECT_THAT(OpTest("DepthToSpace", 11)
                  .In(T(kF32, {1, 6, 2, 2}))
                  .Attr(Attribute::Int("blocksize", 2))
                  .Error(),
              HasSubstr("channels 6 of [1, 6, 2, 2] is not a multiple of 4"));
  out = OpTest("SpaceToDepth", 13)
            .In(T(kF32, {1, 3, 4, 6}))
            .Attr(Attribute::Int("blocksize", 2))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 12, 2, 3}));
  EXPECT_THAT(OpTest("SpaceToDepth", 1)
                  .In(T(kF32, {1, 3, 5, 6}))
                  .Attr(Attribute::Int("blocksize", 2))
                  .Error(),
              HasSubstr("height 5"));
  EXPECT_THAT(
      OpTest("SpaceToDepth", 1).In(T(kF32, {1, 3, 4})).Attr(Attribute::Int("blocksize", 2)).Error(),
      HasSubstr("4-D"));
}

TEST_F(ShapeOpTest, Compress) {
  TensorInfo out = OpTest("Compress", 11)
                       .In(T(kF32, {N, 5}))
                       .In(T(kBool, {5}))
                       .Attr(Attribute::Int("axis", 1))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, Q()}));
  const Arg condition = C(Dense<uint8_t>(kBool, {3}, {1, 0, 1}));
  out = OpTest("Compress", 9)
            .In(T(kF32, {3, 2}))
            .In(condition)
            .Attr(Attribute::Int("axis", 0))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2, 2}));
  out = OpTest("Compress", 11).In(T(kF32, {N, 2})).In(condition).Info();  // flattened
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{2}));
  out = OpTest("Compress", 11).In(UnknownRank(kF32)).In(T(kBool, {Q()})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q()}));
  EXPECT_THAT(OpTest("Compress", 11)
                  .In(T(kF32, {2, 2}))
                  .In(condition)
                  .Attr(Attribute::Int("axis", -1))
                  .Error(),
              HasSubstr("selects index 2"));
}

TEST_F(ShapeOpTest, OneHot) {
  TensorInfo out = OpTest("OneHot", 11).In(T(kI64, {N, 3})).In(Scalar(10)).In(T(kF32, {2})).Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3, 10}));
  out = OpTest("OneHot", 9)
            .In(T(kI64, {N, 3}))
            .In(FloatConst({1}, {4.0f}))
            .In(T(kI32, {2}))
            .Attr(Attribute::Int("axis", 0))
            .Info();
  EXPECT_EQ(out.type, kI32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{4, N, 3}));
  out = OpTest("OneHot", 11).In(T(kI64, {N})).In(T(kI64, {})).In(T(kF32, {2})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, Q()}));
  EXPECT_THAT(OpTest("OneHot", 11)
                  .In(T(kI64, {N}))
                  .In(Scalar(3))
                  .In(T(kF32, {2}))
                  .Attr(Attribute::Int("axis", 2))
                  .Error(),
              HasSubstr("out of range"));
}

// ---------------------------------------------------------------- Resize, Upsample

TEST_F(ShapeOpTest, ResizeScales) {
  TensorInfo out =
      OpTest("Resize", 10).In(T(kF32, {N, 3, 4, 5})).In(FloatConst({4}, {1, 1, 2, 1.5f})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3, 8, 7}));  // floor(5 * 1.5)
  out = OpTest("Resize", 11)
            .In(T(kF32, {N, 3, H, W}))
            .In(FloatConst({0}, {}))
            .In(FloatConst({4}, {1, 1, 2, 0.5f}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3, H * 2, Q()}));
  out = OpTest("Resize", 13).In(T(kF32, {N, 3, 4, 5})).In(None()).In(T(kF32, {4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q(), Q()}));
  EXPECT_THAT(
      OpTest("Resize", 13).In(T(kF32, {1, 3, 4, 5})).In(None()).In(FloatConst({2}, {2, 2})).Error(),
      HasSubstr("2 scales for input [1, 3, 4, 5]"));
}

TEST_F(ShapeOpTest, ResizeSizes) {
  TensorInfo out = OpTest("Resize", 13)
                       .In(T(kF32, {N, 3, 4, 5}))
                       .In(None())
                       .In(None())
                       .In(Ints({N, 3, 20, M}))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3, 20, M}));
  // Opset 11: empty scales fill the slot.
  out = OpTest("Resize", 11)
            .In(T(kF32, {N, 3, 4, 5}))
            .In(FloatConst({0}, {}))
            .In(FloatConst({0}, {}))
            .In(Ints({1, 3, 8, 10}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3, 8, 10}));
  out =
      OpTest("Resize", 13).In(T(kF32, {N, 3, 4, 5})).In(None()).In(None()).In(T(kI64, {4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q(), Q()}));
  EXPECT_THAT(OpTest("Resize", 13)
                  .In(T(kF32, {1, 3, 4, 5}))
                  .In(None())
                  .In(None())
                  .In(Ints({8, 10}))
                  .Error(),
              HasSubstr("sizes [8, 10] for input [1, 3, 4, 5]"));
}

TEST_F(ShapeOpTest, Upsample) {
  TensorInfo out = OpTest("Upsample", 7)
                       .In(T(kF32, {N, 3, 4, 5}))
                       .Attr(Attribute::Floats("scales", {1, 1, 2, 3}))
                       .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 3, 8, 15}));
  out = OpTest("Upsample", 9).In(T(kF32, {1, 3, H, 5})).In(FloatConst({4}, {1, 1, 2, 2.5f})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3, H * 2, 12}));
  out = OpTest("Upsample", 1)
            .In(T(kF32, {1, 3, 4, 5}))
            .Attr(Attribute::Float("height_scale", 2))
            .Attr(Attribute::Float("width_scale", 3))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{1, 3, 8, 15}));
  out = OpTest("Upsample", 9).In(T(kF32, {1, 3, 4, 5})).In(T(kF32, {4})).Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{Q(), Q(), Q(), Q()}));
}

TEST_F(ShapeOpTest, TfIdfVectorizer) {
  TensorInfo out = OpTest("TfIdfVectorizer", 9)
                       .In(T(kI64, {N, 7}))
                       .Attr(Attribute::Ints("ngram_indexes", {0, 1, 4, 2}))
                       .Info();
  EXPECT_EQ(out.type, kF32);
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{N, 5}));
  out = OpTest("TfIdfVectorizer", 9)
            .In(T(kI32, {M}))
            .Attr(Attribute::Ints("ngram_indexes", {0, 6}))
            .Info();
  EXPECT_TRUE(SameExprs(out.dims, DimsExpr{7}));
}

// ---------------------------------------------------------------- Value chains

// Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): [N, 3, 4] -> [N, 12].
TEST_F(ShapeOpTest, ChainShapeGatherConcatReshape) {
  const Arg x = T(kF32, {N, 3, 4});
  OpTest shape("Shape", 13);
  shape.In(x);
  OpTest gather("Gather", 13);
  gather.In(shape.Next()).In(Scalar(0));
  OpTest unsqueeze("Unsqueeze", 13);
  unsqueeze.In(gather.Next()).In(Ints({0}));
  OpTest concat("Concat", 13);
  concat.In(unsqueeze.Next()).In(Ints({-1})).Attr(Attribute::Int("axis", 0));
  EXPECT_TRUE(SameExprs(concat.Info().values, IndexExprList{N, -1}));
  OpTest reshape("Reshape", 13);
  reshape.In(x).In(concat.Next());
  EXPECT_TRUE(SameExprs(reshape.Info().dims, DimsExpr{N, 12}));
}

// Attention-style head split and merge: [B, S, 768] -> [B, S, 12, -1] -> [B, S, -1].
TEST_F(ShapeOpTest, ChainHeadSplitAndMerge) {
  const IndexExpr b = S("B");
  const IndexExpr s = S("S");
  const Arg x = T(kF32, {b, s, 768});
  OpTest shape("Shape", 15);
  shape.In(x).Attr(Attribute::Int("end", 2));
  OpTest concat("Concat", 13);
  concat.In(shape.Next()).In(Ints({12, -1})).Attr(Attribute::Int("axis", 0));
  OpTest split("Reshape", 14);
  split.In(x).In(concat.Next());
  EXPECT_TRUE(SameExprs(split.Info().dims, DimsExpr{b, s, 12, 64}));

  OpTest shape2("Shape", 13);
  shape2.In(split.Next());
  OpTest slice("Slice", 13);
  slice.In(shape2.Next()).In(Ints({0})).In(Ints({2})).In(Ints({0}));
  EXPECT_TRUE(SameExprs(slice.Info().values, IndexExprList{b, s}));
  OpTest concat2("Concat", 13);
  concat2.In(slice.Next()).In(Ints({-1})).Attr(Attribute::Int("axis", 0));
  OpTest merge("Reshape", 13);
  merge.In(split.Next()).In(concat2.Next());
  EXPECT_TRUE(SameExprs(merge.Info().dims, DimsExpr{b, s, 768}));
}

// Range(0, Gather(Shape(x), 1), 1) -> position ids [S]; Expand to [B, S] through Shape values;
// ConstantOfShape(Shape(x)) and Size.
TEST_F(ShapeOpTest, ChainRangeExpandConstantOfShape) {
  const IndexExpr b = S("B");
  const IndexExpr s = S("S");
  const Arg x = T(kF32, {b, s});
  OpTest shape("Shape", 13);
  shape.In(x);
  OpTest gather("Gather", 13);
  gather.In(shape.Next()).In(Scalar(1));
  OpTest range("Range", 11);
  range.In(Scalar(0)).In(gather.Next()).In(Scalar(1));
  EXPECT_TRUE(SameExprs(range.Info().dims, DimsExpr{s}));
  OpTest expand("Expand", 13);
  expand.In(range.Next()).In(shape.Next());
  EXPECT_TRUE(SameExprs(expand.Info().dims, DimsExpr{b, s}));
  OpTest ones("ConstantOfShape", 9);
  ones.In(shape.Next());
  EXPECT_TRUE(SameExprs(ones.Info().dims, DimsExpr{b, s}));
  OpTest size("Size", 13);
  size.In(x);
  OpTest reshape("Reshape", 13);
  OpTest unsqueeze("Unsqueeze", 13);
  unsqueeze.In(size.Next()).In(Ints({0}));
  reshape.In(x).In(unsqueeze.Next());
  EXPECT_TRUE(SameExprs(reshape.Info().dims, DimsExpr{b * s}));
}

// Constant -> Tile -> Squeeze keeps values; Pad through values from a Concat.
TEST_F(ShapeOpTest, ChainConstantsThroughLayoutOps) {
  OpTest constant("Constant", 13);
  constant.Attr(Attribute::Tensor("value", Dense<int64_t>(kI64, {1}, {2})));
  OpTest tile("Tile", 13);
  tile.In(constant.Next()).In(Ints({2}));
  EXPECT_TRUE(SameExprs(tile.Info().values, IndexExprList{2, 2}));
  OpTest concat("Concat", 13);
  concat.In(tile.Next()).In(Ints({0, 1})).Attr(Attribute::Int("axis", 0));
  OpTest pad("Pad", 13);
  pad.In(T(kF32, {N, 3})).In(concat.Next());
  EXPECT_TRUE(SameExprs(pad.Info().dims, DimsExpr{N + 2, 6}));
}

TEST_F(ShapeOpTest, EveryOpIsRegistered) {
  for (const char* op : {"Compress",
                         "Concat",
                         "Constant",
                         "ConstantOfShape",
                         "DepthToSpace",
                         "Expand",
                         "Flatten",
                         "Gather",
                         "GatherElements",
                         "GatherND",
                         "Multinomial",
                         "OneHot",
                         "Pad",
                         "RandomNormal",
                         "RandomUniform",
                         "Range",
                         "Reshape",
                         "Resize",
                         "ReverseSequence",
                         "Scatter",
                         "ScatterElements",
                         "ScatterND",
                         "Shape",
                         "Size",
                         "Slice",
                         "SpaceToDepth",
                         "Split",
                         "Squeeze",
                         "TfIdfVectorizer",
                         "Tile",
                         "Transpose",
                         "Unsqueeze",
                         "Upsample"}) {
    EXPECT_NE(FindShapeFn("", op, 17), nullptr) << op;
  }
  EXPECT_EQ(FindShapeFn("", "Range", 10), nullptr);
  EXPECT_EQ(FindShapeFn("", "Expand", 7), nullptr);
  EXPECT_NE(FindShapeFn("ai.onnx", "Reshape", 5), nullptr);
}

}  // namespace
}  // namespace anvil
