// Unit tests of the element-wise ShapeHelpers (elementwise.cc, elementwise_norm.cc): each test
// builds one node, feeds it TensorInfos through a fake builder and runs InferNodeShapes.
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "graph/attribute.h"
#include "graph/element_type.h"
#include "graph/ir.h"
#include "graph/later_opsets.h"
#include "graph/op_table.h"
#include "gtest/gtest.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"
#include "shape/shape_rules.h"
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

// Each test makes its symbols in a context of its own (shape_testing::ContextTest).
using ElementwiseRulesTest = shape_testing::ContextTest;
using ElementwiseValuesTest = shape_testing::ContextTest;

constexpr ElementType kF32 = ElementType::kFloat;
constexpr ElementType kF64 = ElementType::kDouble;
constexpr ElementType kI8 = ElementType::kInt8;
constexpr ElementType kU8 = ElementType::kUint8;
constexpr ElementType kI32 = ElementType::kInt32;
constexpr ElementType kI64 = ElementType::kInt64;
constexpr ElementType kBool = ElementType::kBool;

// An integer tensor with known contents.
TensorInfo V(ElementType type, DimsExpr dims, IndexExprList values) {
  return TensorInfo{type, std::move(dims), std::move(values)};
}

std::string Text(const IndexExprList& exprs) { return DimsToString(exprs); }

void ExpectInfo(const TensorInfo& info, ElementType type, std::optional<DimsExpr> dims) {
  EXPECT_EQ(ElementTypeName(info.type), ElementTypeName(type));
  EXPECT_TRUE(SameExprs(info.dims, dims));
}

using Values = std::optional<IndexExprList>;

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}
const Values kNoValues = std::nullopt;

// ---- The table ----

TEST_F(ElementwiseRulesTest, TableIsSortedAndCoversEveryVersionOfItsOps) {
  const ShapeRule* rule = shape_rules::kElementwiseRules;
  std::pair<std::string, std::string> previous;
  int count = 0;
  for (; rule->op_type != nullptr; ++rule, ++count) {
    SCOPED_TRACE(rule->op_type);
    // ONNX ops, then the optimizer updates of ai.onnx.preview.training, then the com.microsoft
    // ops fuse-activations makes and ONNX Runtime's QuantizeLinear and DequantizeLinear.
    const bool onnx = std::strcmp(rule->domain, "") == 0;
    EXPECT_TRUE(onnx || std::strcmp(rule->domain, "ai.onnx.preview.training") == 0 ||
                std::strcmp(rule->domain, "com.microsoft") == 0);
    const std::pair<std::string, std::string> key(rule->domain, rule->op_type);
    EXPECT_LT(previous, key) << "not sorted after " << previous.second;
    EXPECT_NE(rule->fn, nullptr);
    const OpInfo* op = FindOpAnyVersion(rule->domain, rule->op_type);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->last_version, onnx ? kLastOnnxOpset : 1);
    EXPECT_EQ(FindShapeFn(rule->domain, rule->op_type, op->since_version), rule->fn);
    if (onnx) EXPECT_EQ(FindShapeFn("ai.onnx", rule->op_type, op->last_version), rule->fn);
    previous = key;
  }
  EXPECT_EQ(count, 97);
  EXPECT_EQ(rule->fn, nullptr);
  // Acos appeared in opset 7.
  EXPECT_EQ(FindShapeFn("", "Acos", 6), nullptr);
}

// Each output of an optimizer update is shaped like the input it updates: X_new like X, the new
// states like theirs (Adam: V and H, after the gradients).
TEST_F(ElementwiseRulesTest, OptimizerUpdatesShapeEachOutputLikeItsInput) {
  OpTest t("Adam", 1, "ai.onnx.preview.training");
  t.In(T(kF32, {})).In(T(kI64, {}));
  t.In(T(kF32, {S("A")})).In(T(kF32, {2, 3}));  // X1 X2
  t.In(T(kF32, {S("A")})).In(T(kF32, {2, 3}));  // G1 G2
  t.In(T(kF32, {S("A")})).In(T(kF32, {2, 3}));  // V1 V2
  t.In(T(kF64, {4})).In(T(kF64, {5}));          // H1 H2
  t.Outputs(6);
  ExpectInfo(t.Info(0), kF32, DimsExpr{S("A")});
  ExpectInfo(t.Info(1), kF32, DimsExpr{2, 3});
  ExpectInfo(t.Info(4), kF64, DimsExpr{4});
  ExpectInfo(t.Info(5), kF64, DimsExpr{5});

  OpTest bad("Momentum", 1, "ai.onnx.preview.training");
  bad.In(T(kF32, {})).In(T(kI64, {})).In(T(kF32, {2})).In(T(kF32, {2}));
  bad.Outputs(1);
  EXPECT_TRUE(absl::StrContains(bad.Error(), "R, T and 3 groups")) << bad.Error();
}

// ---- Same shape and type as input 0 ----

TEST_F(ElementwiseRulesTest, UnaryOpsKeepShapeAndType) {
  for (const std::string& op : Words(
           "Abs Acos Acosh Asin Asinh Atan Atanh Ceil Celu Clip Cos Cosh Elu Erf Exp Floor "
           "HardSigmoid HardSwish Hardmax Identity InstanceNormalization LeakyRelu Log LogSoftmax "
           "LRN MeanVarianceNormalization Neg Reciprocal Relu Round Selu Shrink Sigmoid Sign Sin "
           "Sinh Softmax Softplus Softsign Sqrt Tan Tanh ThresholdedRelu Trilu")) {
    SCOPED_TRACE(op);
    OpTest t(op);
    t.In(T(kF32, {S("N"), 3, S("H")}));
    ExpectInfo(t.Info(), kF32, DimsExpr{S("N"), 3, S("H")});
  }
  OpTest unknown("Relu");
  unknown.In(UnknownRank(kF64));
  ExpectInfo(unknown.Info(), kF64, std::nullopt);
}

TEST_F(ElementwiseRulesTest, ClipAcrossVersions) {
  OpTest v6("Clip", 6);
  v6.In(T(kF32, {S("N"), 4})).Attr(Attribute::Float("min", 0)).Attr(Attribute::Float("max", 6));
  ExpectInfo(v6.Info(), kF32, DimsExpr{S("N"), 4});
  OpTest v13("Clip", 13);  // min omitted, max given
  v13.In(T(kI32, {S("N"), 4})).NoInput().In(T(kI32, {}));
  ExpectInfo(v13.Info(), kI32, DimsExpr{S("N"), 4});
}

TEST_F(ElementwiseRulesTest, CumSumKeepsShapeAndChecksAxis) {
  OpTest ok("CumSum");
  ok.In(T(kF32, {S("N"), 3})).In(V(kI64, {}, {-1}));
  ExpectInfo(ok.Info(), kF32, DimsExpr{S("N"), 3});
  OpTest bad("CumSum");
  bad.In(T(kF32, {S("N"), 3})).In(V(kI64, {}, {2}));
  EXPECT_EQ(bad.Error(), "node 'n' (CumSum): axis 2 is out of range for rank 2");
}

TEST_F(ElementwiseRulesTest, SoftmaxAxisRangeDependsOnVersion) {
  OpTest v13("Softmax", 13);
  v13.In(T(kF32, {S("N"), 3})).Attr(Attribute::Int("axis", 2));
  EXPECT_EQ(v13.Error(), "node 'n' (Softmax): axis 2 is out of range for rank 2");
  OpTest v1("Softmax", 1);  // coerced to 2-D: [N*3, 1]
  v1.In(T(kF32, {S("N"), 3})).Attr(Attribute::Int("axis", 2));
  ExpectInfo(v1.Info(), kF32, DimsExpr{S("N"), 3});
}

TEST_F(ElementwiseRulesTest, TriluNeedsRankTwo) {
  OpTest t("Trilu");
  t.In(T(kF32, {S("N")}));
  EXPECT_EQ(t.Error(), "node 'n' (Trilu): input must have rank >= 2, got [N]");
}

// ---- Same shape, other type ----

TEST_F(ElementwiseRulesTest, BoolResults) {
  for (const char* op : {"Not", "IsNaN", "IsInf"}) {
    SCOPED_TRACE(op);
    OpTest t(op);
    t.In(T(std::string_view(op) == "Not" ? kBool : kF32, {S("N"), 2}));
    ExpectInfo(t.Info(), kBool, DimsExpr{S("N"), 2});
  }
}

TEST_F(ElementwiseRulesTest, CastTypes) {
  OpTest v13("Cast", 13);
  v13.In(T(kF32, {S("N")})).Attr(Attribute::Int("to", 7));
  ExpectInfo(v13.Info(), kI64, DimsExpr{S("N")});
  OpTest v1("Cast", 1);  // `to` was a type name
  v1.In(T(kF32, {S("N")})).Attr(Attribute::String("to", "INT32"));
  ExpectInfo(v1.Info(), kI32, DimsExpr{S("N")});
  OpTest bad("Cast");
  bad.In(T(kF32, {S("N")})).Attr(Attribute::Int("to", 42));
  EXPECT_EQ(bad.Error(), "node 'n' (Cast): attribute to = 42 is not an element type");
  OpTest missing("Cast");
  missing.In(T(kF32, {S("N")}));
  EXPECT_EQ(missing.Error(), "node 'n' (Cast): missing attribute 'to'");
  OpTest like("CastLike");
  like.In(T(kF32, {S("N"), 2})).In(T(kF64, {}));
  ExpectInfo(like.Info(), kF64, DimsExpr{S("N"), 2});
}

TEST_F(ElementwiseRulesTest, DtypeOrInputType) {
  OpTest eye("EyeLike");
  eye.In(T(kF32, {S("N"), 3})).Attr(Attribute::Int("dtype", 7));
  ExpectInfo(eye.Info(), kI64, DimsExpr{S("N"), 3});
  OpTest eye_default("EyeLike");
  eye_default.In(T(kI32, {2, 3}));
  ExpectInfo(eye_default.Info(), kI32, DimsExpr{2, 3});
  OpTest eye_3d("EyeLike");
  eye_3d.In(T(kF32, {2, S("N"), 4}));
  EXPECT_EQ(eye_3d.Error(), "node 'n' (EyeLike): input must be 2-D, got [2, N, 4]");

  OpTest uniform("RandomUniformLike");
  uniform.In(T(kF32, {S("N")})).Attr(Attribute::Int("dtype", 11));
  ExpectInfo(uniform.Info(), kF64, DimsExpr{S("N")});
  OpTest normal("RandomNormalLike");
  normal.In(T(kF32, {S("N")}));
  ExpectInfo(normal.Info(), kF32, DimsExpr{S("N")});
  OpTest bernoulli("Bernoulli");
  bernoulli.In(T(kF32, {S("N"), 5})).Attr(Attribute::Int("dtype", 9));
  ExpectInfo(bernoulli.Info(), kBool, DimsExpr{S("N"), 5});
  OpTest bad("Bernoulli");
  bad.In(T(kF32, {S("N"), 5})).Attr(Attribute::Int("dtype", 0));
  EXPECT_EQ(bad.Error(), "node 'n' (Bernoulli): attribute dtype = 0 is not an element type");
}

TEST_F(ElementwiseRulesTest, Quantization) {
  OpTest zero_point("QuantizeLinear");
  zero_point.In(T(kF32, {S("N"), 3})).In(T(kF32, {})).In(T(kI8, {}));
  ExpectInfo(zero_point.Info(), kI8, DimsExpr{S("N"), 3});
  OpTest no_zero_point("QuantizeLinear", 10);
  no_zero_point.In(T(kF32, {S("N"), 3})).In(T(kF32, {}));
  ExpectInfo(no_zero_point.Info(), kU8, DimsExpr{S("N"), 3});
  OpTest per_axis("QuantizeLinear");
  per_axis.In(T(kF32, {S("N"), 3})).In(T(kF32, {4})).In(T(kU8, {4}));
  EXPECT_EQ(per_axis.Error(),
            "node 'n' (QuantizeLinear): scale [4] does not match axis 1 of [N, 3]");
  OpTest axis("DequantizeLinear");
  axis.In(T(kI8, {S("N"), 3})).In(T(kF32, {S("N")})).Attr(Attribute::Int("axis", 0));
  ExpectInfo(axis.Info(), kF32, DimsExpr{S("N"), 3});
  OpTest dynamic("DynamicQuantizeLinear");
  dynamic.In(T(kF32, {S("N"), 3})).Outputs(3);
  ExpectInfo(dynamic.Info(0), kU8, DimsExpr{S("N"), 3});
  ExpectInfo(dynamic.Info(1), kF32, DimsExpr{});
  ExpectInfo(dynamic.Info(2), kU8, DimsExpr{});
}

// ---- Broadcasting ----

TEST_F(ElementwiseRulesTest, SymbolicBroadcasting) {
  struct Case {
    DimsExpr a, b, result;
  };
  const Case cases[] = {
      {{S("N"), 3}, {3}, {S("N"), 3}},
      {{S("N")}, {1}, {S("N")}},  // N vs 1
      {{S("N")}, {3}, {3}},       // N vs 3: N must be 3 (or 1)
      {{S("N")}, {S("M")}, {Max(S("M"), S("N")) * Min({S("M"), S("N"), 1})}},  // or 0 with a 0
      {{S("N")}, {S("N")}, {S("N")}},
      {{2, 1, 4}, {S("N"), 1}, {2, S("N"), 4}},
      {{}, {S("B"), 5}, {S("B"), 5}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(Text(c.a) + " + " + Text(c.b));
    OpTest t("Add");
    t.In(T(kF32, c.a)).In(T(kF32, c.b));
    ExpectInfo(t.Info(), kF32, c.result);
  }
  OpTest unknown("Mul");
  unknown.In(T(kF32, {S("N")})).In(UnknownRank(kF32));
  ExpectInfo(unknown.Info(), kF32, std::nullopt);
}

TEST_F(ElementwiseRulesTest, IncompatibleBroadcastIsAnError) {
  OpTest t("Sub");
  t.In(T(kF32, {S("N"), 3})).In(T(kF32, {4}));
  const std::string error = t.Error();
  EXPECT_NE(error.find("node 'n' (Sub): cannot broadcast [N, 3] and [4]"), std::string::npos)
      << error;
}

TEST_F(ElementwiseRulesTest, BinaryOpTypes) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift"}) {
    SCOPED_TRACE(op);
    OpTest t(op);
    t.In(T(kI32, {S("N"), 1})).In(T(kI32, {1, 4}));
    ExpectInfo(t.Info(), kI32, DimsExpr{S("N"), 4});
  }
  for (const char* op :
       {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"}) {
    SCOPED_TRACE(op);
    OpTest t(op);
    t.In(T(kI64, {S("N"), 1})).In(T(kI64, {4}));
    ExpectInfo(t.Info(), kBool, DimsExpr{S("N"), 4});
  }
}

TEST_F(ElementwiseRulesTest, VariadicAndWhere) {
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    SCOPED_TRACE(op);
    OpTest t(op);
    t.In(T(kF32, {S("N"), 1, 1})).In(T(kF32, {3, 1})).In(T(kF32, {5}));
    ExpectInfo(t.Info(), kF32, DimsExpr{S("N"), 3, 5});
  }
  OpTest single("Max", 6);
  single.In(T(kF32, {S("N")}));
  ExpectInfo(single.Info(), kF32, DimsExpr{S("N")});

  OpTest where("Where");
  where.In(T(kBool, {S("N"), 1})).In(T(kI64, {1, 3})).In(T(kI64, {}));
  ExpectInfo(where.Info(), kI64, DimsExpr{S("N"), 3});
  OpTest bad("Where");
  bad.In(T(kBool, {2})).In(T(kF32, {3})).In(T(kF32, {1}));
  EXPECT_EQ(bad.Run().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ElementwiseRulesTest, LegacyBroadcastBeforeOpset7) {
  OpTest axis("Add", 6);
  axis.In(T(kF32, {2, 3, 4, 5}))
      .In(T(kF32, {3, 4}))
      .Attr(Attribute::Int("broadcast", 1))
      .Attr(Attribute::Int("axis", 1));
  ExpectInfo(axis.Info(), kF32, DimsExpr{2, 3, 4, 5});
  OpTest equal("Equal", 1);
  equal.In(T(kI32, {S("N"), 5})).In(T(kI32, {5})).Attr(Attribute::Int("broadcast", 1));
  ExpectInfo(equal.Info(), kBool, DimsExpr{S("N"), 5});
  OpTest no_broadcast("Mul", 6);
  no_broadcast.In(T(kF32, {S("N"), 5})).In(T(kF32, {5}));
  EXPECT_EQ(no_broadcast.Error(),
            "node 'n' (Mul): shapes [N, 5] and [5] differ and broadcast is not set");
}

TEST_F(ElementwiseRulesTest, PReluBroadcastsSlopeIntoX) {
  OpTest t("PRelu");
  t.In(T(kF32, {S("N"), 3, S("H"), S("W")})).In(T(kF32, {3, 1, 1}));
  ExpectInfo(t.Info(), kF32, DimsExpr{S("N"), 3, S("H"), S("W")});
  OpTest bad("PRelu");
  bad.In(T(kF32, {S("N"), 3, S("H")})).In(T(kF32, {4, 1}));
  EXPECT_EQ(bad.Error(), "node 'n' (PRelu): slope [4, 1] does not broadcast to X [N, 3, H]");
  OpTest too_long("PRelu");
  too_long.In(T(kF32, {3})).In(T(kF32, {1, 3}));
  EXPECT_EQ(too_long.Run().code(), absl::StatusCode::kInvalidArgument);
}

// ---- Normalizations with extra outputs ----

TEST_F(ElementwiseRulesTest, BatchNormalizationTrainingOutputs) {
  OpTest v15("BatchNormalization", 15);
  v15.In(T(kF32, {S("N"), 3, S("H"), S("W")}))
      .In(T(kF32, {3}))
      .In(T(kF32, {3}))
      .In(T(kF64, {3}))
      .In(T(kF64, {3}))
      .Attr(Attribute::Int("training_mode", 1))
      .Outputs(3);
  ExpectInfo(v15.Info(0), kF32, DimsExpr{S("N"), 3, S("H"), S("W")});
  ExpectInfo(v15.Info(1), kF64, DimsExpr{3});
  ExpectInfo(v15.Info(2), kF64, DimsExpr{3});

  OpTest v9("BatchNormalization", 9);  // channels from scale when X's is symbolic
  v9.In(T(kF32, {S("N"), S("C")}))
      .In(T(kF32, {4}))
      .In(T(kF32, {4}))
      .In(T(kF32, {4}))
      .In(T(kF32, {4}))
      .Outputs(5);
  for (int i = 1; i < 5; ++i) ExpectInfo(v9.Info(i), kF32, DimsExpr{4});

  OpTest non_spatial("BatchNormalization", 7);
  non_spatial.In(T(kF32, {S("N"), 3, 5}))
      .In(T(kF32, {3, 5}))
      .In(T(kF32, {3, 5}))
      .In(T(kF32, {3, 5}))
      .In(T(kF32, {3, 5}))
      .Attr(Attribute::Int("spatial", 0))
      .Outputs(3);
  ExpectInfo(non_spatial.Info(2), kF32, DimsExpr{3, 5});

  OpTest unknown("BatchNormalization");
  unknown.In(UnknownRank(kF32))
      .In(UnknownRank(kF32))
      .In(UnknownRank(kF32))
      .In(UnknownRank(kF32))
      .In(UnknownRank(kF32))
      .Outputs(2);
  ExpectInfo(unknown.Info(0), kF32, std::nullopt);
  ExpectInfo(unknown.Info(1), kF32, DimsExpr{Q()});

  OpTest bad("BatchNormalization");
  bad.In(T(kF32, {S("N"), 3, 8}))
      .In(T(kF32, {4}))
      .In(T(kF32, {3}))
      .In(T(kF32, {3}))
      .In(T(kF32, {3}));
  EXPECT_EQ(bad.Error(),
            "node 'n' (BatchNormalization): channel counts differ: X [N, 3, 8] has 3, scale [4] "
            "has 4");
}

TEST_F(ElementwiseRulesTest, LayerNormalizationStatistics) {
  OpTest t("LayerNormalization");
  t.In(T(ElementType::kFloat16, {S("N"), S("S"), 8}))
      .In(T(ElementType::kFloat16, {8}))
      .Attr(Attribute::Int("axis", 1))
      .Outputs(3);
  ExpectInfo(t.Info(0), ElementType::kFloat16, DimsExpr{S("N"), S("S"), 8});
  ExpectInfo(t.Info(1), kF32, DimsExpr{S("N"), 1, 1});
  ExpectInfo(t.Info(2), kF32, DimsExpr{S("N"), 1, 1});
  OpTest last("LayerNormalization");
  last.In(T(kF32, {S("N"), S("S"), 8})).In(T(kF32, {8})).Outputs(2);
  ExpectInfo(last.Info(1), kF32, DimsExpr{S("N"), S("S"), 1});
  OpTest bad("LayerNormalization");
  bad.In(T(kF32, {S("N"), 8})).In(T(kF32, {8})).Attr(Attribute::Int("axis", -3));
  EXPECT_EQ(bad.Error(), "node 'n' (LayerNormalization): axis -3 is out of range for rank 2");
}

TEST_F(ElementwiseRulesTest, DropoutMask) {
  OpTest v13("Dropout", 13);
  v13.In(T(kF32, {S("N"), 4})).Outputs(2);
  ExpectInfo(v13.Info(0), kF32, DimsExpr{S("N"), 4});
  ExpectInfo(v13.Info(1), kBool, DimsExpr{S("N"), 4});
  OpTest v6("Dropout", 6);  // the mask had the data's type
  v6.In(T(kF32, {S("N"), 4})).Attr(Attribute::Int("is_test", 1)).Outputs(2);
  ExpectInfo(v6.Info(1), kF32, DimsExpr{S("N"), 4});
}

// ---- Value propagation ----

// The values of `op` applied to the given inputs.
Values ValuesOf(OpTest& t) { return t.Info().values; }

TEST_F(ElementwiseValuesTest, Arithmetic) {
  const IndexExpr n = S("N");
  OpTest add("Add");
  add.In(V(kI64, {2}, {n, 3})).In(V(kI64, {}, {1}));
  EXPECT_TRUE(SameExprs(ValuesOf(add), IndexExprList{n + 1, 4}));
  OpTest sub("Sub");
  sub.In(V(kI64, {1}, {0})).In(V(kI64, {2}, {n, 2}));
  EXPECT_TRUE(SameExprs(ValuesOf(sub), IndexExprList{-n, -2}));
  OpTest mul("Mul");  // a scalar broadcast over a vector
  mul.In(V(kI64, {}, {2})).In(V(kI64, {3}, {n, 3, S("M")}));
  EXPECT_TRUE(SameExprs(ValuesOf(mul), IndexExprList{n * 2, 6, S("M") * 2}));
  OpTest sum("Sum");
  sum.In(V(kI64, {2}, {n, 1})).In(V(kI64, {1}, {n})).In(V(kI64, {}, {1}));
  EXPECT_TRUE(SameExprs(ValuesOf(sum), IndexExprList{n * 2 + 1, n + 2}));
  OpTest grid("Add");  // [2, 1] + [3] -> [2, 3]
  grid.In(V(kI64, {2, 1}, {0, 10})).In(V(kI64, {3}, {1, 2, 3}));
  EXPECT_TRUE(SameExprs(ValuesOf(grid), IndexExprList{1, 2, 3, 11, 12, 13}));
}

TEST_F(ElementwiseValuesTest, DivTruncatesTowardZero) {
  const IndexExpr n = S("N");
  OpTest literals("Div");
  literals.In(V(kI64, {4}, {7, -7, 7, -7})).In(V(kI64, {4}, {2, 2, -2, -2}));
  EXPECT_TRUE(SameExprs(ValuesOf(literals), IndexExprList{3, -3, -3, 3}));
  OpTest symbolic("Div");  // non-negative numerators: floor division is truncation
  symbolic.In(V(kI64, {3}, {n * 2, n * S("M"), n})).In(V(kI64, {}, {2}));
  EXPECT_TRUE(
      SameExprs(ValuesOf(symbolic), IndexExprList{n, FloorDiv(n * S("M"), 2), FloorDiv(n, 2)}));
  OpTest unknown_sign("Div");  // N - 5 may be negative; a symbolic divisor is not handled
  unknown_sign.In(V(kI64, {2}, {n - 5, n})).In(V(kI64, {2}, {2, S("M")}));
  EXPECT_TRUE(SameExprs(ValuesOf(unknown_sign), IndexExprList{Q(), Q()}));
  OpTest by_zero("Div");
  by_zero.In(V(kI64, {1}, {4})).In(V(kI64, {1}, {0}));
  EXPECT_TRUE(SameExprs(ValuesOf(by_zero), IndexExprList{Q()}));
}

TEST_F(ElementwiseValuesTest, ModFollowsFmod) {
  OpTest floor_mod("Mod");
  floor_mod.In(V(kI64, {2}, {-7, 7})).In(V(kI64, {2}, {3, -3}));
  EXPECT_TRUE(SameExprs(ValuesOf(floor_mod), IndexExprList{2, -2}));
  OpTest fmod("Mod");
  fmod.In(V(kI64, {2}, {-7, 7})).In(V(kI64, {2}, {3, -3})).Attr(Attribute::Int("fmod", 1));
  EXPECT_TRUE(SameExprs(ValuesOf(fmod), IndexExprList{-1, 1}));
  OpTest symbolic("Mod");
  symbolic.In(V(kI64, {1}, {S("N")})).In(V(kI64, {}, {4}));
  EXPECT_TRUE(SameExprs(ValuesOf(symbolic), IndexExprList{Mod(S("N"), 4)}));
}

TEST_F(ElementwiseValuesTest, MaxMin) {
  const IndexExpr n = S("N");
  OpTest max("Max");
  max.In(V(kI64, {2}, {n, 0})).In(V(kI64, {}, {1}));
  EXPECT_TRUE(SameExprs(ValuesOf(max), IndexExprList{Max(n, 1), 1}));
  OpTest min("Min");
  min.In(V(kI64, {2}, {n, 7})).In(V(kI64, {2}, {n + 2, S("M")})).In(V(kI64, {1}, {5}));
  EXPECT_TRUE(SameExprs(ValuesOf(min), IndexExprList{Min(n, 5), Min(S("M"), 5)}));
}

TEST_F(ElementwiseValuesTest, UnaryAndComparisonsWhenDecided) {
  const IndexExpr n = S("N");
  OpTest equal("Equal");  // dims are never -1; N vs M is undecided
  equal.In(V(kI64, {3}, {n, 3, n})).In(V(kI64, {3}, {-1, 3, S("M")}));
  EXPECT_TRUE(SameExprs(ValuesOf(equal), IndexExprList{0, 1, Q()}));
  OpTest less("Less");
  less.In(V(kI64, {2}, {n, n})).In(V(kI64, {2}, {n + 1, 0}));
  EXPECT_TRUE(SameExprs(ValuesOf(less), IndexExprList{1, 0}));
  OpTest greater_or_equal("GreaterOrEqual");
  greater_or_equal.In(V(kI64, {1}, {n})).In(V(kI64, {}, {0}));
  EXPECT_TRUE(SameExprs(ValuesOf(greater_or_equal), IndexExprList{1}));
  OpTest neg("Neg");
  neg.In(V(kI64, {2}, {n, -3}));
  EXPECT_TRUE(SameExprs(ValuesOf(neg), IndexExprList{-n, 3}));
  OpTest abs("Abs");
  abs.In(V(kI64, {3}, {n - S("M"), -n, -3}));
  EXPECT_TRUE(SameExprs(ValuesOf(abs), IndexExprList{Q(), n, 3}));
  OpTest negate("Not");
  negate.In(V(kBool, {2}, {1, 0}));
  EXPECT_TRUE(SameExprs(ValuesOf(negate), IndexExprList{0, 1}));
}

TEST_F(ElementwiseValuesTest, WhereSelects) {
  const IndexExpr n = S("N");
  OpTest where("Where");  // the Reshape "-1 means keep" pattern
  where.In(V(kBool, {3}, {1, 0, 1})).In(V(kI64, {3}, {n, 3, S("M")})).In(V(kI64, {}, {-1}));
  EXPECT_TRUE(SameExprs(ValuesOf(where), IndexExprList{n, -1, S("M")}));
  OpTest undecided("Where");
  undecided.In(V(kBool, {2}, {Q(), Q()})).In(V(kI64, {2}, {n, 4})).In(V(kI64, {2}, {n, 5}));
  EXPECT_TRUE(SameExprs(ValuesOf(undecided), IndexExprList{n, Q()}));
}

TEST_F(ElementwiseValuesTest, CastAndIdentity) {
  const IndexExpr n = S("N");
  OpTest to_int32("Cast");
  to_int32.In(V(kI64, {2}, {n, 3})).Attr(Attribute::Int("to", 6));
  EXPECT_TRUE(SameExprs(ValuesOf(to_int32), IndexExprList{n, 3}));
  OpTest to_float("Cast");
  to_float.In(V(kI64, {2}, {n, 3})).Attr(Attribute::Int("to", 1));
  EXPECT_TRUE(SameExprs(ValuesOf(to_float), kNoValues));
  OpTest to_bool("Cast");
  to_bool.In(V(kI64, {3}, {0, 5, n})).Attr(Attribute::Int("to", 9));
  EXPECT_TRUE(SameExprs(ValuesOf(to_bool), IndexExprList{0, 1, Q()}));
  OpTest wraps("Cast");
  wraps.In(V(kI64, {2}, {300, -1})).Attr(Attribute::Int("to", 2));
  EXPECT_TRUE(SameExprs(ValuesOf(wraps), IndexExprList{44, 255}));
  OpTest narrow("Cast");  // a dim may not fit int8
  narrow.In(V(kI64, {1}, {n})).Attr(Attribute::Int("to", 3));
  EXPECT_TRUE(SameExprs(ValuesOf(narrow), IndexExprList{Q()}));
  OpTest like("CastLike");
  like.In(V(kI32, {1}, {n})).In(T(kI64, {}));
  EXPECT_TRUE(SameExprs(ValuesOf(like), IndexExprList{n}));
  OpTest identity("Identity");
  identity.In(V(kI64, {2}, {n, 3}));
  EXPECT_TRUE(SameExprs(ValuesOf(identity), IndexExprList{n, 3}));
}

TEST_F(ElementwiseValuesTest, OnlySmallIntegerOutputs) {
  IndexExprList many(65, IndexExpr(1));
  OpTest big("Add");
  big.In(V(kI64, {65}, many)).In(V(kI64, {}, {1}));
  EXPECT_TRUE(SameExprs(ValuesOf(big), kNoValues));
  OpTest missing("Add");  // one operand's contents unknown
  missing.In(V(kI64, {2}, {1, 2})).In(T(kI64, {2}));
  EXPECT_TRUE(SameExprs(ValuesOf(missing), kNoValues));
  OpTest overflow("Add");  // an int32 result out of range is not trusted
  overflow.In(V(kI32, {1}, {INT32_MAX})).In(V(kI32, {1}, {1}));
  EXPECT_TRUE(SameExprs(ValuesOf(overflow), IndexExprList{Q()}));
  OpTest no_values_for_pow("Pow");
  no_values_for_pow.In(V(kI64, {1}, {2})).In(V(kI64, {1}, {3}));
  EXPECT_TRUE(SameExprs(ValuesOf(no_values_for_pow), kNoValues));
}

}  // namespace
}  // namespace anvil
