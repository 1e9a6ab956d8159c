// Unit tests of the compute ShapeHelpers (compute*.cc): each test builds one node with the IR,
// feeds its inputs' TensorInfos (and constants) through a fake builder, runs InferNodeShapes and
// compares the outputs in printed form, "float[N, 16, floor((H - 1) / 2) + 1]", so that symbolic
// dims are checked as the exact expressions they must stay.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/attribute.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/op_table.h"
#include "gtest/gtest.h"
#include "shape/index_expr.h"
#include "shape/shape_helper.h"
#include "shape/shape_rules.h"
#include "shape/testing/op_test.h"

namespace anvil {
namespace {

using shape_testing::InfoText;
using shape_testing::Q;
using shape_testing::S;
using shape_testing::T;
using shape_testing::UnknownRank;
using ::testing::HasSubstr;

// Each test makes its symbols in a context of its own (shape_testing::ContextTest).
using ConvTest = shape_testing::ContextTest;
using ConvTransposeTest = shape_testing::ContextTest;
using EinsumTest = shape_testing::ContextTest;
using GemmTest = shape_testing::ContextTest;
using IndexOpsTest = shape_testing::ContextTest;
using LossTest = shape_testing::ContextTest;
using MatMulTest = shape_testing::ContextTest;
using MultiHeadAttentionTest = shape_testing::ContextTest;
using LlmOpsTest = shape_testing::ContextTest;
using PoolTest = shape_testing::ContextTest;
using QOperatorTest = shape_testing::ContextTest;
using RecurrentTest = shape_testing::ContextTest;
using ReduceTest = shape_testing::ContextTest;
using SignalTest = shape_testing::ContextTest;

// Compute rules see four output slots unless a test names them.
class OpTest : public shape_testing::OpTest {
 public:
  explicit OpTest(std::string op_type, int64_t opset = 17)
      : shape_testing::OpTest(std::move(op_type), opset) {
    Outputs(4);
  }
};

constexpr ElementType kF32 = ElementType::kFloat;
constexpr ElementType kI8 = ElementType::kInt8;
constexpr ElementType kU8 = ElementType::kUint8;
constexpr ElementType kI32 = ElementType::kInt32;
constexpr ElementType kI64 = ElementType::kInt64;

// An int64 tensor with known (possibly symbolic) contents, as a shape computation gives.
TensorInfo V(IndexExprList values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return TensorInfo{kI64, DimsExpr{n}, std::move(values)};
}
// An int64 scalar with a known value.
TensorInfo Scalar(IndexExpr value) {
  return TensorInfo{kI64, DimsExpr{}, IndexExprList{std::move(value)}};
}

Attribute Ints(std::string name, std::vector<int64_t> v) {
  return Attribute::Ints(std::move(name), std::move(v));
}
Attribute Int(std::string name, int64_t v) { return Attribute::Int(std::move(name), v); }
Attribute Str(std::string name, std::string v) {
  return Attribute::String(std::move(name), std::move(v));
}

// ---- The table ----

TEST(ComputeRulesTest, TableIsSortedTerminatedAndCoversEveryVersion) {
  const ShapeRule* rule = shape_rules::kComputeRules;
  std::pair<std::string, std::string> previous;
  int count = 0;
  for (; rule->op_type != nullptr; ++rule, ++count) {
    SCOPED_TRACE(rule->op_type);
    // ONNX ops, ONNX Runtime's contrib ops (FusedConv, MultiHeadAttention, the quantized ones,
    // the decoder LLM ops), and Anvil's blocked-layout ops.
    EXPECT_TRUE(std::strcmp(rule->domain, "") == 0 ||
                std::strcmp(rule->domain, "com.anvil.nchwc") == 0 ||
                std::strcmp(rule->domain, "com.microsoft") == 0);
    const std::pair<std::string, std::string> key(rule->op_type, rule->domain);
    EXPECT_LT(previous, key) << "not sorted after " << previous.first;
    EXPECT_NE(rule->fn, nullptr);
    previous = key;
  }
  EXPECT_EQ(count, 78);
  EXPECT_EQ(rule->domain, nullptr);
  EXPECT_EQ(rule->fn, nullptr);

  // The first opset of each op (ONNX's since_version of its first version).
  const std::vector<std::pair<const char*, int>> first = {{"ArgMax", 1},
                                                          {"AveragePool", 1},
                                                          {"BlackmanWindow", 17},
                                                          {"Conv", 1},
                                                          {"ConvInteger", 10},
                                                          {"ConvTranspose", 1},
                                                          {"DFT", 17},
                                                          {"Det", 11},
                                                          {"Einsum", 12},
                                                          {"GRU", 1},
                                                          {"Gemm", 1},
                                                          {"GlobalLpPool", 1},
                                                          {"GridSample", 16},
                                                          {"LSTM", 1},
                                                          {"LpPool", 1},
                                                          {"MatMul", 1},
                                                          {"MatMulInteger", 10},
                                                          {"MaxPool", 1},
                                                          {"MaxRoiPool", 1},
                                                          {"MaxUnpool", 9},
                                                          {"MelWeightMatrix", 17},
                                                          {"NegativeLogLikelihoodLoss", 12},
                                                          {"NonMaxSuppression", 10},
                                                          {"NonZero", 9},
                                                          {"QLinearConv", 10},
                                                          {"QLinearMatMul", 10},
                                                          {"RNN", 1},
                                                          {"ReduceLogSumExp", 1},
                                                          {"ReduceSum", 1},
                                                          {"RoiAlign", 10},
                                                          {"STFT", 17},
                                                          {"SoftmaxCrossEntropyLoss", 12},
                                                          {"TopK", 1},
                                                          {"Unique", 11}};
  for (const auto& [op, since] : first) {
    SCOPED_TRACE(op);
    for (int v = since; v <= 17; ++v) EXPECT_NE(FindShapeFn("", op, v), nullptr) << v;
    if (since > 1) {
      EXPECT_EQ(FindShapeFn("", op, since - 1), nullptr);
    }
  }
  EXPECT_NE(FindShapeFn("com.microsoft", "FusedConv", 1), nullptr);
  EXPECT_NE(FindShapeFn("com.microsoft", "MultiHeadAttention", 1), nullptr);
}

// Every op of the op table (graph/op_list.inc) has a shape rule, at every opset it lists.
TEST(ShapeRegistryTest, EveryOpOfTheTableHasARule) {
  for (const OpInfo& op : AllOps()) {
    SCOPED_TRACE(std::string(op.op_type));
    for (int v = op.since_version; v <= op.last_version; ++v) {
      EXPECT_NE(FindShapeFn(op.domain, op.op_type, v), nullptr) << v;
    }
  }
  EXPECT_EQ(ListShapeOps().size(), AllOps().size());
}

// ---- MatMul family ----

TEST_F(MatMulTest, MatricesVectorsAndBatches) {
  for (int opset : {1, 9, 13, 17}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("MatMul", opset).In(T(kF32, {2, 3})).In(T(kF32, {3, 4})).Text(),
              "float[2, 4]");
  }
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {3})).In(T(kF32, {3, 4})).Text(), "float[4]");
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {2, 3})).In(T(kF32, {3})).Text(), "float[2]");
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {3})).In(T(kF32, {3})).Text(), "float[]");
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {S("B"), 1, S("M"), 3})).In(T(kF32, {5, 3, 4})).Text(),
            "float[B, 5, M, 4]");
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {3})).In(T(kF32, {S("B"), 3, S("N")})).Text(),
            "float[B, N]");
  // A symbolic K against a literal cannot be decided: not an error.
  EXPECT_EQ(OpTest("MatMul").In(T(kF32, {S("N"), S("K")})).In(T(kF32, {3, 4})).Text(),
            "float[N, 4]");
  EXPECT_EQ(OpTest("MatMul").In(UnknownRank(kF32)).In(T(kF32, {3, 4})).Text(),
            "float[unknown rank]");
}

TEST_F(MatMulTest, InnerDimMismatchIsAnError) {
  EXPECT_EQ(OpTest("MatMul").Name("mm").In(T(kF32, {S("N"), 3})).In(T(kF32, {4, 5})).Error(),
            "node 'mm' (MatMul): inner dims differ: [N, 3] x [4, 5]");
  EXPECT_THAT(OpTest("MatMul").In(T(kF32, {S("N")})).In(T(kF32, {S("N") + 1, 2})).Error(),
              HasSubstr("inner dims differ: [N] x [N + 1, 2]"));
  EXPECT_THAT(OpTest("MatMul").In(T(kF32, {2, 2, 3})).In(T(kF32, {3, 3, 4})).Error(),
              HasSubstr("batch dims do not broadcast: [2, 2, 3] x [3, 3, 4]"));
  EXPECT_THAT(OpTest("MatMul").In(T(kF32, {})).In(T(kF32, {3})).Error(), HasSubstr("scalar"));
}

// com.microsoft FusedMatMul: MatMul's rule on the operands with their last two dims swapped as
// transA / transB say; transBatch is Unimplemented.
TEST_F(MatMulTest, FusedMatMulTransposesTheLastTwoDims) {
  auto fused = [](int64_t trans_a, int64_t trans_b) {
    shape_testing::OpTest t("FusedMatMul", 1, "com.microsoft");
    t.Attr(Int("transA", trans_a)).Attr(Int("transB", trans_b));
    return t;
  };
  EXPECT_EQ(fused(0, 1).In(T(kF32, {S("B"), S("S"), 896})).In(T(kF32, {151936, 896})).Text(),
            "float[B, S, 151936]");
  EXPECT_EQ(fused(1, 0).In(T(kF32, {2, 3, S("M")})).In(T(kF32, {3, 4})).Text(), "float[2, M, 4]");
  EXPECT_EQ(fused(1, 1).In(T(kF32, {5, 2, 3, 4})).In(T(kF32, {2, 6, 3})).Text(),
            "float[5, 2, 4, 6]");
  EXPECT_THAT(fused(0, 1).In(T(kF32, {2, 3})).In(T(kF32, {3, 4})).Error(),
              HasSubstr("inner dims differ"));
  EXPECT_THAT(fused(0, 1).In(T(kF32, {2, 3})).In(T(kF32, {3})).Error(),
              HasSubstr("transB = 1 needs an operand of rank >= 2"));
  shape_testing::OpTest batch("FusedMatMul", 1, "com.microsoft");
  batch.Attr(Int("transBatchB", 1)).In(T(kF32, {2, 3})).In(T(kF32, {3, 4}));
  const absl::Status unimplemented = batch.Run();
  EXPECT_EQ(unimplemented.code(), absl::StatusCode::kUnimplemented) << unimplemented;
  EXPECT_THAT(unimplemented.message(), HasSubstr("transBatchB = 1 is not implemented"));
}

// The decoder LLM ops of ONNX Runtime's model builder (compute_llm.cc).
TEST_F(LlmOpsTest, MatMulNBitsEndsInN) {
  auto nbits = [](int64_t k) {
    shape_testing::OpTest t("MatMulNBits", 1, "com.microsoft");
    t.Attr(Int("K", k)).Attr(Int("N", 10)).Attr(Int("bits", 4)).Attr(Int("block_size", 32));
    t.In(T(kF32, {S("B"), S("S"), 64})).In(T(kU8, {10, 2, 16})).In(T(kF32, {20}));
    return t;
  };
  EXPECT_EQ(nbits(64).Text(), "float[B, S, 10]");
  EXPECT_THAT(nbits(65).Error(), HasSubstr("A [B, S, 64] must end in K = 65"));
  shape_testing::OpTest bad_block("MatMulNBits", 1, "com.microsoft");
  bad_block.Attr(Int("K", 64)).Attr(Int("N", 10)).Attr(Int("block_size", 48));
  bad_block.In(T(kF32, {1, 64})).In(T(kU8, {10, 2, 24})).In(T(kF32, {20}));
  EXPECT_THAT(bad_block.Error(), HasSubstr("block_size 48 must be a power of 2"));
}

// present_key and present_value: [B, kv_num_heads, max(T, P), H] with T the value of
// total_sequence_length (a symbol here, as Shape(attention_mask)[1] gives it), H from the packed
// query's width.
TEST_F(LlmOpsTest, GroupQueryAttentionPresentIsTheLongerOfTotalAndPast) {
  auto gqa = [](bool past) {
    shape_testing::OpTest t("GroupQueryAttention", 1, "com.microsoft");
    t.Attr(Int("num_heads", 14)).Attr(Int("kv_num_heads", 2));
    t.In(T(kF32, {S("B"), S("S"), 1152})).NoInput().NoInput();
    if (past) {
      t.In(T(kF32, {S("B"), 2, S("P"), 64})).In(T(kF32, {S("B"), 2, S("P"), 64}));
    } else {
      t.NoInput().NoInput();
    }
    t.In(T(kI32, {S("B")}));
    t.In(TensorInfo{kI32, DimsExpr{}, IndexExprList{S("T")}});
    t.Outputs(3);
    return t;
  };
  shape_testing::OpTest with_past = gqa(true);
  EXPECT_EQ(with_past.Text(0), "float[B, S, 896]");
  EXPECT_EQ(with_past.Text(1), "float[B, 2, max(P, T), 64]");
  EXPECT_EQ(gqa(false).Text(2), "float[B, 2, T, 64]");
  shape_testing::OpTest odd("GroupQueryAttention", 1, "com.microsoft");
  odd.Attr(Int("num_heads", 3)).Attr(Int("kv_num_heads", 2));
  odd.In(T(kF32, {1, 1, 64})).NoInput().NoInput().NoInput().NoInput();
  odd.In(T(kI32, {1})).In(T(kI32, {1}));
  EXPECT_THAT(odd.Error(),
              HasSubstr("num_heads (3) must be a positive multiple of kv_num_heads (2)"));
}

TEST_F(LlmOpsTest, NormsKeepTheInputShapeAndStatisticsEndIn1) {
  shape_testing::OpTest skip("SkipSimplifiedLayerNormalization", 1, "com.microsoft");
  skip.In(T(kF32, {S("B"), S("S"), 896})).In(T(kF32, {S("B"), S("S"), 896})).In(T(kF32, {896}));
  skip.Outputs({"y", "", "r", "sum"});
  EXPECT_EQ(skip.Text(0), "float[B, S, 896]");
  EXPECT_EQ(skip.Text(2), "float[B, S, 1]");
  EXPECT_EQ(skip.Text(3), "float[B, S, 896]");
  shape_testing::OpTest rms("SimplifiedLayerNormalization");
  rms.Attr(Int("axis", 1)).In(T(kF32, {S("B"), 4, 8})).In(T(kF32, {4, 8})).Outputs(2);
  EXPECT_EQ(rms.Text(0), "float[B, 4, 8]");
  EXPECT_EQ(rms.Text(1), "float[B, 1, 1]");
  shape_testing::OpTest bad_skip("SkipLayerNormalization", 1, "com.microsoft");
  bad_skip.In(T(kF32, {2, 3, 8})).In(T(kF32, {2, 8})).In(T(kF32, {8}));
  EXPECT_THAT(bad_skip.Error(), HasSubstr("skip [2, 8] does not fit input [2, 3, 8]"));
  shape_testing::OpTest rotary("RotaryEmbedding", 1, "com.microsoft");
  rotary.In(T(kF32, {S("B"), S("S"), 896})).In(T(kI64, {S("B"), S("S")}));
  rotary.In(T(kF32, {4096, 32})).In(T(kF32, {4096, 32}));
  EXPECT_EQ(rotary.Text(), "float[B, S, 896]");
}

// com.microsoft MultiHeadAttention: [B, S, D], [B, L, D], [B, L, Dv] -> [B, S, Dv].
TEST_F(MultiHeadAttentionTest, OutputIsQueryRowsOfValueWidth) {
  auto mha = [] {
    shape_testing::OpTest test("MultiHeadAttention", 1, "com.microsoft");
    test.Attr(Int("num_heads", 2));
    return test;
  };
  EXPECT_EQ(mha()
                .In(T(kF32, {S("N"), S("S"), 8}))
                .In(T(kF32, {S("N"), S("L"), 8}))
                .In(T(kF32, {S("N"), S("L"), 6}))
                .Text(),
            "float[N, S, 6]");
  EXPECT_EQ(mha().In(T(kF32, {Q(), 5, 8})).In(T(kF32, {3, 7, 8})).In(UnknownRank(kF32)).Text(),
            "float[unknown rank]");
  EXPECT_THAT(mha().In(T(kF32, {2, 5, 8})).In(T(kF32, {3, 7, 8})).In(T(kF32, {3, 7, 8})).Error(),
              HasSubstr("query and key batch sizes differ: 2 vs 3"));
  EXPECT_THAT(mha().In(T(kF32, {2, 5, 8})).In(T(kF32, {2, 7, 8})).In(T(kF32, {2, 6, 8})).Error(),
              HasSubstr("key and value lengths differ: 7 vs 6"));
  EXPECT_THAT(mha().In(T(kF32, {2, 5, 7})).In(T(kF32, {2, 7, 7})).In(T(kF32, {2, 7, 8})).Error(),
              HasSubstr("query hidden size 7 is not a multiple of num_heads = 2"));
  EXPECT_THAT(mha().In(T(kF32, {2, 5, 2, 4})).In(T(kF32, {2, 7, 8})).In(T(kF32, {2, 7, 8})).Error(),
              HasSubstr("query must have rank 3"));
  // A mask leaves the shape as it is; the packed form (no key and value) is Unimplemented.
  EXPECT_EQ(mha()
                .In(T(kF32, {2, 5, 8}))
                .In(T(kF32, {2, 7, 8}))
                .In(T(kF32, {2, 7, 8}))
                .NoInput()
                .In(T(ElementType::kInt32, {2, 7}))
                .Text(),
            "float[2, 5, 8]");
  shape_testing::OpTest packed = mha();
  packed.In(T(kF32, {2, 5, 2, 3, 4}));
  EXPECT_EQ(packed.Run().code(), absl::StatusCode::kUnimplemented);
}

TEST_F(MatMulTest, IntegerAndQuantizedVariants) {
  EXPECT_EQ(OpTest("MatMulInteger", 10).In(T(kU8, {S("N"), 3})).In(T(kU8, {3, 4})).Text(),
            "int32[N, 4]");
  OpTest q("QLinearMatMul", 10);
  q.In(T(kU8, {2, 3})).In(T(kF32, {})).In(T(kU8, {}));
  q.In(T(kU8, {3, 4})).In(T(kF32, {})).In(T(kU8, {}));
  q.In(T(kF32, {})).In(T(kI8, {}));
  EXPECT_EQ(q.Text(), "int8[2, 4]");
}

// ---- ONNX Runtime's com.microsoft quantized ops (QOperator format) ----

TEST_F(QOperatorTest, BinaryOpsBroadcastAndCheckTheirParameters) {
  auto binary = [](const char* op, ElementType b_type, ElementType scale_type) {
    shape_testing::OpTest q(op, 1, "com.microsoft");
    q.In(T(kU8, {S("N"), 8, 4, 4})).In(T(kF32, {})).In(T(kU8, {}));
    q.In(T(b_type, {1, 8, 1, 1})).In(T(scale_type, {})).NoInput();
    q.In(T(kF32, {})).In(T(kU8, {}));
    return q;
  };
  EXPECT_EQ(binary("QLinearAdd", kU8, kF32).Text(), "uint8[N, 8, 4, 4]");
  EXPECT_EQ(binary("QLinearMul", kU8, kF32).Text(), "uint8[N, 8, 4, 4]");
  EXPECT_THAT(binary("QLinearAdd", kI8, kF32).Error(), HasSubstr("A is uint8, B is int8"));
  EXPECT_THAT(binary("QLinearAdd", kU8, kU8).Error(), HasSubstr("scale input 4 must be float"));
  shape_testing::OpTest short_node("QLinearAdd", 1, "com.microsoft");
  short_node.In(T(kU8, {2})).In(T(kF32, {})).In(T(kU8, {}));
  EXPECT_THAT(short_node.Error(), HasSubstr("needs at least 7 inputs, got 3"));
}

TEST_F(QOperatorTest, PoolsConcatAndProducts) {
  auto unary = [](const char* op, DimsExpr dims) {
    shape_testing::OpTest q(op, 1, "com.microsoft");
    q.In(T(kI8, std::move(dims))).In(T(kF32, {})).In(T(kI8, {})).In(T(kF32, {})).In(T(kI8, {}));
    return q;
  };
  EXPECT_EQ(unary("QLinearSigmoid", {2, S("C"), 5}).Text(), "int8[2, C, 5]");
  EXPECT_EQ(unary("QLinearSoftmax", {2, S("C"), 5}).Attr(Int("opset", 13)).Text(), "int8[2, C, 5]");
  EXPECT_THAT(unary("QLinearSoftmax", {2, 5}).Error(), HasSubstr("missing attribute opset"));
  EXPECT_THAT(unary("QLinearSoftmax", {2, 5}).Attr(Int("opset", 13)).Attr(Int("axis", 2)).Error(),
              HasSubstr("axis"));
  EXPECT_EQ(unary("QLinearGlobalAveragePool", {2, S("C"), 5, 6}).Text(), "int8[2, C, 1, 1]");
  EXPECT_EQ(
      unary("QLinearGlobalAveragePool", {2, 5, 6, S("C")}).Attr(Int("channels_last", 1)).Text(),
      "int8[2, 1, 1, C]");
  EXPECT_EQ(unary("QLinearAveragePool", {1, 3, 8, 8})
                .Attr(Ints("kernel_shape", {3, 3}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Ints("pads", {1, 1, 1, 1}))
                .Text(),
            "int8[1, 3, 4, 4]");
  shape_testing::OpTest channels_last = unary("QLinearAveragePool", {1, 8, 8, 3});
  channels_last.Attr(Ints("kernel_shape", {3, 3})).Attr(Int("channels_last", 1));
  EXPECT_EQ(channels_last.Run().code(), absl::StatusCode::kUnimplemented);

  shape_testing::OpTest concat("QLinearConcat", 1, "com.microsoft");
  concat.Attr(Int("axis", 1)).In(T(kF32, {})).In(T(kU8, {}));
  concat.In(T(kU8, {S("N"), 3, 4})).In(T(kF32, {})).In(T(kU8, {}));
  concat.In(T(kU8, {S("N"), 5, 4})).In(T(kF32, {})).In(T(kU8, {}));
  EXPECT_EQ(concat.Text(), "uint8[N, 8, 4]");
  shape_testing::OpTest broken("QLinearConcat", 1, "com.microsoft");
  broken.Attr(Int("axis", 1)).In(T(kF32, {})).In(T(kU8, {}));
  broken.In(T(kU8, {2, 3})).In(T(kF32, {})).In(T(kU8, {})).In(T(kU8, {2, 3}));
  EXPECT_THAT(broken.Error(), HasSubstr("come in triples"));

  auto qgemm = [](bool quantized) {
    shape_testing::OpTest q("QGemm", 1, "com.microsoft");
    q.Attr(Int("transB", 1));
    q.In(T(kU8, {S("M"), 16})).In(T(kF32, {})).In(T(kU8, {}));
    q.In(T(kI8, {10, 16})).In(T(kF32, {10})).In(T(kI8, {10})).In(T(kI32, {10}));
    if (quantized) q.In(T(kF32, {})).In(T(kU8, {}));
    return q;
  };
  EXPECT_EQ(qgemm(true).Text(), "uint8[M, 10]");
  EXPECT_EQ(qgemm(false).Text(), "float[M, 10]");

  shape_testing::OpTest dynamic("DynamicQuantizeMatMul", 1, "com.microsoft");
  dynamic.In(T(kF32, {S("B"), S("S"), 16})).In(T(kI8, {16, 10})).In(T(kF32, {10}));
  EXPECT_EQ(dynamic.Text(), "float[B, S, 10]");
  shape_testing::OpTest to_float("MatMulIntegerToFloat", 1, "com.microsoft");
  to_float.In(T(kU8, {S("B"), 16})).In(T(kI8, {16, 10})).In(T(kF32, {})).In(T(kF32, {10}));
  EXPECT_EQ(to_float.Text(), "float[B, 10]");
}

// ---- Gemm ----

TEST_F(GemmTest, TransposesAndBroadcastsC) {
  for (int opset : {7, 9, 11, 13}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("Gemm", opset).In(T(kF32, {4, 3})).In(T(kF32, {3, 5})).In(T(kF32, {5})).Text(),
              "float[4, 5]");
  }
  EXPECT_EQ(OpTest("Gemm")
                .In(T(kF32, {3, S("M")}))
                .In(T(kF32, {S("N"), 3}))
                .Attr(Int("transA", 1))
                .Attr(Int("transB", 1))
                .Text(),
            "float[M, N]");
  // C's literal pins a symbolic N (it must be 1 or N).
  EXPECT_EQ(
      OpTest("Gemm").In(T(kF32, {S("M"), 3})).In(T(kF32, {3, S("N")})).In(T(kF32, {1, 7})).Text(),
      "float[M, 7]");
  // C is optional from opset 11.
  EXPECT_EQ(OpTest("Gemm", 11).In(T(kF32, {4, 3})).In(T(kF32, {3, 5})).Text(), "float[4, 5]");
}

TEST_F(GemmTest, OldVersionsAndErrors) {
  // Before opset 7, C must be [M, N] unless `broadcast` is set.
  for (int opset : {1, 6}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(
        OpTest("Gemm", opset).In(T(kF32, {4, 3})).In(T(kF32, {3, 5})).In(T(kF32, {4, 5})).Text(),
        "float[4, 5]");
    EXPECT_THAT(
        OpTest("Gemm", opset).In(T(kF32, {4, 3})).In(T(kF32, {3, 5})).In(T(kF32, {5})).Error(),
        HasSubstr("C [5] does not match [4, 5]"));
    EXPECT_EQ(OpTest("Gemm", opset)
                  .In(T(kF32, {4, 3}))
                  .In(T(kF32, {3, 5}))
                  .In(T(kF32, {5}))
                  .Attr(Int("broadcast", 1))
                  .Text(),
              "float[4, 5]");
  }
  EXPECT_EQ(
      OpTest("Gemm").Name("g").In(T(kF32, {4, 3})).In(T(kF32, {3, 5})).In(T(kF32, {3})).Error(),
      "node 'g' (Gemm): C [3] does not broadcast to [4, 5]");
  EXPECT_THAT(OpTest("Gemm").In(T(kF32, {4, 3})).In(T(kF32, {4, 5})).Error(),
              HasSubstr("inner dims differ: [4, 3] x [4, 5]"));
  EXPECT_THAT(OpTest("Gemm").In(T(kF32, {2, 4, 3})).In(T(kF32, {3, 5})).Error(),
              HasSubstr("A must have rank 2, got [2, 4, 3]"));
}

// ---- Einsum ----

TEST_F(EinsumTest, ExplicitAndImplicitOutputs) {
  auto einsum = [](std::string equation, std::vector<TensorInfo> inputs) {
    OpTest t("Einsum", 12);
    t.Attr(Str("equation", std::move(equation)));
    for (TensorInfo& in : inputs) t.In(std::move(in));
    return t.Text();
  };
  EXPECT_EQ(einsum("ij,jk->ik", {T(kF32, {2, 3}), T(kF32, {3, 4})}), "float[2, 4]");
  EXPECT_EQ(einsum("ij, jk", {T(kF32, {2, 3}), T(kF32, {3, 4})}), "float[2, 4]");
  EXPECT_EQ(einsum("ij->ji", {T(kF32, {S("N"), 3})}), "float[3, N]");
  EXPECT_EQ(einsum("ii->i", {T(kF32, {3, 3})}), "float[3]");
  EXPECT_EQ(einsum("ii", {T(kF32, {3, 3})}), "float[]");
  EXPECT_EQ(einsum("i,i", {T(kF32, {5}), T(kF32, {5})}), "float[]");
  // Implicit order is numpy's: by character code, upper case first.
  EXPECT_EQ(einsum("bA,ba", {T(kF32, {5, 2}), T(kF32, {5, 4})}), "float[2, 4]");
  EXPECT_EQ(einsum("bij,bjk->bik", {T(kF32, {S("B"), 2, 3}), T(kF32, {S("B"), 3, 4})}),
            "float[B, 2, 4]");
  // A literal pins a symbolic size of the same letter; a 1 broadcasts as in numpy.
  EXPECT_EQ(einsum("ij,jk->ik", {T(kF32, {2, S("K")}), T(kF32, {3, 4})}), "float[2, 4]");
  EXPECT_EQ(einsum("ij,ij->ij", {T(kF32, {2, 3}), T(kF32, {1, 3})}), "float[2, 3]");
  EXPECT_EQ(einsum("ij,ij->ij", {T(kF32, {1, 3}), T(kF32, {Q(), 3})}), "float[?, 3]");
  EXPECT_EQ(einsum("ij,ij->ij", {T(kF32, {S("A"), 3}), T(kF32, {S("B"), 3})}),
            "float[min(A, B, 1)*max(A, B), 3]");
}

TEST_F(EinsumTest, Ellipsis) {
  auto einsum = [](std::string equation, std::vector<TensorInfo> inputs) {
    OpTest t("Einsum", 12);
    t.Attr(Str("equation", std::move(equation)));
    for (TensorInfo& in : inputs) t.In(std::move(in));
    return t.Text();
  };
  EXPECT_EQ(einsum("...ij,...jk->...ik", {T(kF32, {S("B"), 2, 3}), T(kF32, {3, 4})}),
            "float[B, 2, 4]");
  EXPECT_EQ(einsum("...ij,jk", {T(kF32, {S("B"), 7, 2, 3}), T(kF32, {3, 4})}), "float[B, 7, 2, 4]");
  EXPECT_EQ(einsum("...ij,...jk", {T(kF32, {2, 1, 3, 4}), T(kF32, {5, 4, 6})}),
            "float[2, 5, 3, 6]");
  EXPECT_EQ(einsum("i...->...", {T(kF32, {3, 4, 5})}), "float[4, 5]");
  EXPECT_EQ(einsum("...->...", {T(kF32, {})}), "float[]");
  EXPECT_EQ(einsum("...ij,jk->...ik", {UnknownRank(kF32), T(kF32, {3, 4})}), "float[unknown rank]");
  // Without an ellipsis an unknown operand still has as many dims as letters.
  EXPECT_EQ(einsum("ij,jk->ik", {UnknownRank(kF32), T(kF32, {3, 4})}), "float[?, 4]");
}

TEST_F(EinsumTest, Errors) {
  auto error = [](std::string equation, std::vector<TensorInfo> inputs) {
    OpTest t("Einsum", 12);
    t.Attr(Str("equation", std::move(equation)));
    for (TensorInfo& in : inputs) t.In(std::move(in));
    return t.Error();
  };
  EXPECT_EQ(error("ij,jk->ik", {T(kF32, {2, 3}), T(kF32, {4, 5})}),
            "node 'n' (Einsum): einsum 'ij,jk->ik': column 4: label 'j' has size 4 in operand 1 "
            "but 3 at column 2");
  EXPECT_EQ(error("ii->i", {T(kF32, {2, 3})}),
            "node 'n' (Einsum): einsum 'ii->i': column 2: label 'i' of operand 0 has size 3 here "
            "but 2 at column 1 (a diagonal needs equal dims)");
  EXPECT_THAT(error("...i,...i->...i", {T(kF32, {2, 3}), T(kF32, {4, 3})}),
              HasSubstr("column 6: the dims of '...' do not broadcast: dim 0 (from the left) has "
                        "size 4 in operand 1 but 2 at column 1"));
  EXPECT_THAT(error("ij,jk->ik", {T(kF32, {2, 3, 1}), T(kF32, {3, 5})}),
              HasSubstr("column 1: term 'ij' has 2 labels but operand 0 has rank 3"));
  EXPECT_THAT(error("ij,jk->iz", {T(kF32, {2, 3}), T(kF32, {3, 5})}),
              HasSubstr("column 9: output label 'z' does not occur in any input term"));
  EXPECT_THAT(error("ij->ii", {T(kF32, {2, 3})}), HasSubstr("output label 'i' is repeated"));
  EXPECT_THAT(error("ij->i", {T(kF32, {2, 3}), T(kF32, {3})}),
              HasSubstr("1 input term for 2 operands"));
  EXPECT_THAT(error("i.j->i", {T(kF32, {2, 3})}),
              HasSubstr("column 2: '.' is not part of an ellipsis '...'"));
}

// ---- Conv family ----

TEST_F(ConvTest, ExplicitPadsStridesDilations) {
  for (int opset : {1, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("Conv", opset)
                  .In(T(kF32, {1, 3, 224, 224}))
                  .In(T(kF32, {64, 3, 7, 7}))
                  .Attr(Ints("strides", {2, 2}))
                  .Attr(Ints("pads", {3, 3, 3, 3}))
                  .Text(),
              "float[1, 64, 112, 112]");
  }
  // kernel_shape from W; bias; asymmetric pads; 1-D and 3-D.
  EXPECT_EQ(OpTest("Conv")
                .In(T(kF32, {1, 1, 7, 5}))
                .In(T(kF32, {2, 1, 3, 3}))
                .In(T(kF32, {2}))
                .Attr(Ints("pads", {1, 0, 1, 0}))
                .Attr(Ints("strides", {2, 2}))
                .Text(),
            "float[1, 2, 4, 2]");
  EXPECT_EQ(OpTest("Conv").In(T(kF32, {1, 1, 10})).In(T(kF32, {4, 1, 3})).Text(), "float[1, 4, 8]");
  EXPECT_EQ(OpTest("Conv")
                .In(T(kF32, {2, 4, 8, 8, 8}))
                .In(T(kF32, {6, 4, 3, 3, 3}))
                .Attr(Ints("dilations", {2, 2, 1}))
                .Text(),
            "float[2, 6, 4, 4, 6]");
  // Groups: W holds C / group input channels.
  EXPECT_EQ(OpTest("Conv")
                .In(T(kF32, {1, 8, 5, 5}))
                .In(T(kF32, {4, 2, 3, 3}))
                .Attr(Int("group", 4))
                .Text(),
            "float[1, 4, 3, 3]");
}

TEST_F(ConvTest, SymbolicSpatialDimsStayExact) {
  EXPECT_EQ(OpTest("Conv")
                .In(T(kF32, {S("N"), 3, S("H"), S("W")}))
                .In(T(kF32, {16, 3, 3, 3}))
                .Attr(Ints("pads", {1, 1, 1, 1}))
                .Attr(Ints("strides", {2, 2}))
                .Text(),
            "float[N, 16, floor((H - 1) / 2) + 1, floor((W - 1) / 2) + 1]");
  EXPECT_EQ(OpTest("Conv").In(T(kF32, {S("N"), 3, S("H")})).In(T(kF32, {8, 3, 3})).Text(),
            "float[N, 8, H - 2]");
  // A dynamic kernel (W's dims) stays in the expression too.
  EXPECT_EQ(OpTest("Conv").In(T(kF32, {1, 3, 32})).In(T(kF32, {8, 3, S("K")})).Text(),
            "float[1, 8, -K + 33]");
  // Unknown X: rank from W, the rest unknown.
  EXPECT_EQ(OpTest("Conv").In(UnknownRank(kF32)).In(T(kF32, {8, 3, 3, 3})).Text(),
            "float[?, 8, ?, ?]");
  EXPECT_EQ(OpTest("Conv").In(UnknownRank(kF32)).In(UnknownRank(kF32)).Text(),
            "float[unknown rank]");
}

TEST_F(ConvTest, AutoPad) {
  auto conv = [](std::string auto_pad, DimsExpr x) {
    return OpTest("Conv")
        .In(T(kF32, std::move(x)))
        .In(T(kF32, {1, 1, 3, 3}))
        .Attr(Str("auto_pad", std::move(auto_pad)))
        .Attr(Ints("strides", {2, 2}))
        .Attr(Ints("pads", {5, 5, 5, 5}))  // ignored unless NOTSET
        .Text();
  };
  EXPECT_EQ(conv("SAME_UPPER", {1, 1, 5, 6}), "float[1, 1, 3, 3]");
  EXPECT_EQ(conv("SAME_LOWER", {1, 1, 5, 6}), "float[1, 1, 3, 3]");
  EXPECT_EQ(conv("VALID", {1, 1, 5, 6}), "float[1, 1, 2, 2]");
  EXPECT_EQ(conv("NOTSET", {1, 1, 5, 6}), "float[1, 1, 7, 7]");
  // Canonical forms: ceil(H / 2) == floor((H + 1) / 2) == floor((H - 1) / 2) + 1, and
  // floor((H - 3) / 2) + 1 == floor((H - 1) / 2).
  EXPECT_EQ(conv("SAME_UPPER", {1, 1, S("H"), 6}), "float[1, 1, floor((H - 1) / 2) + 1, 3]");
  EXPECT_EQ(conv("VALID", {1, 1, S("H"), 6}), "float[1, 1, floor((H - 1) / 2), 2]");
}

TEST_F(ConvTest, Errors) {
  EXPECT_EQ(OpTest("Conv").In(T(kF32, {1, 3, 5, 5})).In(T(kF32, {4, 2, 3, 3})).Error(),
            "node 'n' (Conv): X [1, 3, 5, 5] has 3 channels but W [4, 2, 3, 3] with group 1 "
            "expects 2");
  EXPECT_THAT(OpTest("Conv").In(T(kF32, {1, 1, 2, 2})).In(T(kF32, {1, 1, 3, 3})).Error(),
              HasSubstr("spatial dim 0: the window (effective size 3) exceeds the padded input "
                        "(2)"));
  EXPECT_THAT(OpTest("Conv")
                  .In(T(kF32, {1, 1, 5, 5}))
                  .In(T(kF32, {1, 1, 3, 3}))
                  .Attr(Ints("kernel_shape", {3, 2}))
                  .Error(),
              HasSubstr("kernel_shape [3, 2] differs from W's spatial dims [3, 3]"));
  EXPECT_THAT(OpTest("Conv")
                  .In(T(kF32, {1, 1, 5, 5}))
                  .In(T(kF32, {1, 1, 3, 3}))
                  .Attr(Ints("pads", {1, 1}))
                  .Error(),
              HasSubstr("attribute 'pads' has 2 values, expected 4"));
  EXPECT_THAT(OpTest("Conv")
                  .In(T(kF32, {1, 1, 5, 5}))
                  .In(T(kF32, {1, 1, 3, 3}))
                  .Attr(Ints("strides", {0, 1}))
                  .Error(),
              HasSubstr("attribute 'strides' [0, 1] must be >= 1"));
  EXPECT_THAT(OpTest("Conv")
                  .In(T(kF32, {1, 1, 5, 5}))
                  .In(T(kF32, {1, 1, 3, 3}))
                  .Attr(Str("auto_pad", "SAME"))
                  .Error(),
              HasSubstr("auto_pad 'SAME' is not"));
  EXPECT_THAT(OpTest("Conv")
                  .In(T(kF32, {1, 4, 5, 5}))
                  .In(T(kF32, {6, 1, 3, 3}))
                  .Attr(Int("group", 4))
                  .Error(),
              HasSubstr("6 output channels are not divisible by group 4"));
  EXPECT_THAT(OpTest("Conv").In(T(kF32, {1, 1, 5, 5})).In(T(kF32, {1, 1, 3})).Error(),
              HasSubstr("different ranks"));
}

TEST_F(ConvTest, IntegerAndQuantizedVariants) {
  EXPECT_EQ(OpTest("ConvInteger", 10)
                .In(T(kU8, {1, 1, 3, 3}))
                .In(T(kU8, {1, 1, 2, 2}))
                .In(T(kU8, {}))
                .Text(),
            "int32[1, 1, 2, 2]");
  OpTest q("QLinearConv", 10);
  q.In(T(kU8, {1, 1, 7, 7})).In(T(kF32, {})).In(T(kU8, {}));
  q.In(T(kI8, {4, 1, 3, 3})).In(T(kF32, {4})).In(T(kI8, {4}));
  q.In(T(kF32, {})).In(T(kU8, {})).In(T(kI32, {4}));
  q.Attr(Ints("pads", {1, 1, 1, 1}));
  EXPECT_EQ(q.Text(), "uint8[1, 4, 7, 7]");
}

TEST_F(ConvTransposeTest, ExplicitPadsAndOutputPadding) {
  for (int opset : {1, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(
        OpTest("ConvTranspose", opset).In(T(kF32, {1, 1, 3, 3})).In(T(kF32, {1, 2, 3, 3})).Text(),
        "float[1, 2, 5, 5]");
  }
  // ONNX's convtranspose_pads and convtranspose_dilations cases.
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("strides", {3, 2}))
                .Attr(Ints("pads", {1, 2, 1, 2}))
                .Text(),
            "float[1, 2, 7, 3]");
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 1, 2, 2}))
                .Attr(Ints("dilations", {2, 2}))
                .Text(),
            "float[1, 1, 5, 5]");
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("strides", {3, 2}))
                .Attr(Ints("output_padding", {1, 1}))
                .Text(),
            "float[1, 2, 10, 8]");
  // Symbolic: 2*(H - 1) + 4 - 2.
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {S("N"), 4, S("H"), S("W")}))
                .In(T(kF32, {4, 8, 4, 4}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Ints("pads", {1, 1, 1, 1}))
                .Attr(Int("group", 2))
                .Text(),
            "float[N, 16, 2*H, 2*W]");
}

TEST_F(ConvTransposeTest, OutputShapeAndAutoPad) {
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("strides", {3, 2}))
                .Attr(Ints("output_shape", {10, 8}))
                .Text(),
            "float[1, 2, 10, 8]");
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("output_shape", {1, 2, 10, 8}))
                .Text(),
            "float[1, 2, 10, 8]");
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, S("H"), 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Str("auto_pad", "SAME_UPPER"))
                .Text(),
            "float[1, 2, 2*H, 6]");
  EXPECT_EQ(OpTest("ConvTranspose")
                .In(T(kF32, {1, 1, 3, 3}))
                .In(T(kF32, {1, 2, 3, 3}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Str("auto_pad", "VALID"))
                .Text(),
            "float[1, 2, 7, 7]");
  EXPECT_THAT(OpTest("ConvTranspose").In(T(kF32, {1, 3, 3, 3})).In(T(kF32, {1, 2, 3, 3})).Error(),
              HasSubstr("X [1, 3, 3, 3] has 3 channels but W [1, 2, 3, 3] expects 1"));
  EXPECT_THAT(OpTest("ConvTranspose")
                  .In(T(kF32, {1, 1, 3, 3}))
                  .In(T(kF32, {1, 2, 3, 3}))
                  .Attr(Ints("output_shape", {10, 8, 1}))
                  .Error(),
              HasSubstr("output_shape [10, 8, 1] has 3 values for 2 spatial dims"));
}

// ---- Pools ----

TEST_F(PoolTest, MaxPoolWithIndicesAndCeilMode) {
  for (int opset : {8, 10, 11, 12}) {
    SCOPED_TRACE(opset);
    OpTest t("MaxPool", opset);
    t.In(T(kF32, {1, 3, 32, 32})).Attr(Ints("kernel_shape", {2, 2})).Attr(Ints("strides", {2, 2}));
    EXPECT_EQ(t.Text(0), "float[1, 3, 16, 16]");
    EXPECT_EQ(t.Text(1), "int64[1, 3, 16, 16]");
  }
  EXPECT_EQ(OpTest("MaxPool", 1)
                .Outputs({"y"})
                .In(T(kF32, {1, 3, 5, 5}))
                .Attr(Ints("kernel_shape", {3, 3}))
                .Text(),
            "float[1, 3, 3, 3]");
  // ONNX's maxpool_2d_ceil: 4x4, k3, s2.
  auto pool = [](DimsExpr x, int64_t ceil_mode) {
    return OpTest("MaxPool", 10)
        .In(T(kF32, std::move(x)))
        .Attr(Ints("kernel_shape", {3, 3}))
        .Attr(Ints("strides", {2, 2}))
        .Attr(Int("ceil_mode", ceil_mode))
        .Text();
  };
  EXPECT_EQ(pool({1, 1, 4, 4}, 1), "float[1, 1, 2, 2]");
  EXPECT_EQ(pool({1, 1, 4, 4}, 0), "float[1, 1, 1, 1]");
  // floor((H - 3) / 2) + 1 and ceil((H - 3) / 2) + 1 in canonical form.
  EXPECT_EQ(pool({1, 1, S("H"), 4}, 0), "float[1, 1, floor((H - 1) / 2), 1]");
  EXPECT_EQ(pool({1, 1, S("H"), 4}, 1), "float[1, 1, floor(H / 2), 2]");
  // Dilations (opset 10).
  EXPECT_EQ(OpTest("MaxPool", 10)
                .In(T(kF32, {1, 1, 4, 4}))
                .Attr(Ints("kernel_shape", {2, 2}))
                .Attr(Ints("dilations", {2, 2}))
                .Attr(Int("storage_order", 1))
                .Text(),
            "float[1, 1, 2, 2]");
}

TEST_F(PoolTest, AverageAndLpPool) {
  for (int opset : {1, 7, 10, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("AveragePool", opset)
                  .In(T(kF32, {1, 3, 5, 5}))
                  .Attr(Ints("kernel_shape", {3, 3}))
                  .Attr(Ints("strides", {2, 2}))
                  .Attr(Str("auto_pad", "SAME_UPPER"))
                  .Text(),
              "float[1, 3, 3, 3]");
  }
  // H: ceil((H - 1) / 2) + 1 in canonical form.
  EXPECT_EQ(OpTest("AveragePool")
                .In(T(kF32, {S("N"), S("C"), S("H"), 32}))
                .Attr(Ints("kernel_shape", {2, 2}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Ints("pads", {0, 0, 1, 1}))
                .Attr(Int("ceil_mode", 1))
                .Attr(Int("count_include_pad", 1))
                .Text(),
            "float[N, C, floor(H / 2) + 1, 17]");
  for (int opset : {1, 2, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("LpPool", opset)
                  .In(T(kF32, {1, 2, 6}))
                  .Attr(Ints("kernel_shape", {2}))
                  .Attr(Ints("strides", {2}))
                  .Text(),
              "float[1, 2, 3]");
  }
  EXPECT_EQ(OpTest("LpPool").In(UnknownRank(kF32)).Attr(Ints("kernel_shape", {2, 2})).Text(),
            "float[?, ?, ?, ?]");
  EXPECT_EQ(OpTest("AveragePool").In(T(kF32, {1, 1, 4, 4})).Error(),
            "node 'n' (AveragePool): attribute 'kernel_shape' is required");
  EXPECT_THAT(OpTest("MaxPool").In(T(kF32, {1, 1, 4, 4})).Attr(Ints("kernel_shape", {2})).Error(),
              HasSubstr("attribute 'kernel_shape' has 1 values, expected 2"));
}

TEST_F(PoolTest, MaxUnpool) {
  for (int opset : {9, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("MaxUnpool", opset)
                  .In(T(kF32, {1, 1, 2, 2}))
                  .In(T(kI64, {1, 1, 2, 2}))
                  .Attr(Ints("kernel_shape", {2, 2}))
                  .Attr(Ints("strides", {2, 2}))
                  .Text(),
              "float[1, 1, 4, 4]");
  }
  EXPECT_EQ(OpTest("MaxUnpool")
                .In(T(kF32, {S("N"), S("C"), S("H"), 3}))
                .In(T(kI64, {S("N"), S("C"), S("H"), 3}))
                .Attr(Ints("kernel_shape", {3, 3}))
                .Attr(Ints("strides", {2, 2}))
                .Attr(Ints("pads", {1, 1, 1, 1}))
                .Text(),
            "float[N, C, 2*H - 1, 5]");
  // output_shape given: its values, exact even when symbolic; unknown values keep the rank.
  EXPECT_EQ(OpTest("MaxUnpool")
                .In(T(kF32, {1, 1, 2, 2}))
                .In(T(kI64, {1, 1, 2, 2}))
                .In(V({1, 1, 5, S("W")}))
                .Attr(Ints("kernel_shape", {2, 2}))
                .Text(),
            "float[1, 1, 5, W]");
  EXPECT_EQ(OpTest("MaxUnpool")
                .In(T(kF32, {1, 1, 2, 2}))
                .In(T(kI64, {1, 1, 2, 2}))
                .In(T(kI64, {4}))
                .Attr(Ints("kernel_shape", {2, 2}))
                .Text(),
            "float[1, 1, ?, ?]");
  EXPECT_THAT(OpTest("MaxUnpool")
                  .In(T(kF32, {1, 1, 2, 2}))
                  .In(T(kI64, {1, 1, 2, 2}))
                  .In(V({1, 1, 5}))
                  .Attr(Ints("kernel_shape", {2, 2}))
                  .Error(),
              HasSubstr("output_shape [1, 1, 5] has 3 values for an input of rank 4"));
}

TEST_F(PoolTest, GlobalPools) {
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(OpTest(op, 1).In(T(kF32, {S("N"), 3, S("H"), S("W")})).Text(), "float[N, 3, 1, 1]");
    EXPECT_EQ(OpTest(op).In(T(kF32, {2, 3, 4, 5, 6})).Text(), "float[2, 3, 1, 1, 1]");
    EXPECT_EQ(OpTest(op).In(UnknownRank(kF32)).Text(), "float[unknown rank]");
    EXPECT_THAT(OpTest(op).In(T(kF32, {3})).Error(), HasSubstr("X must have rank >= 2"));
  }
}

TEST_F(PoolTest, RoiOpsAndGridSample) {
  EXPECT_EQ(OpTest("MaxRoiPool", 1)
                .In(T(kF32, {1, 3, 10, 10}))
                .In(T(kF32, {S("R"), 5}))
                .Attr(Ints("pooled_shape", {2, 3}))
                .Text(),
            "float[R, 3, 2, 3]");
  EXPECT_THAT(OpTest("MaxRoiPool").In(T(kF32, {1, 3, 10, 10})).In(T(kF32, {2, 4})).Error(),
              HasSubstr("rois [2, 4] must be [num_rois, 5]"));
  for (int opset : {10, 16}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("RoiAlign", opset)
                  .In(T(kF32, {S("N"), 256, S("H"), S("W")}))
                  .In(T(kF32, {S("R"), 4}))
                  .In(T(kI64, {S("R")}))
                  .Attr(Int("output_height", 7))
                  .Attr(Int("output_width", 5))
                  .Text(),
              "float[R, 256, 7, 5]");
  }
  EXPECT_EQ(
      OpTest("RoiAlign").In(T(kF32, {1, 8, 4, 4})).In(UnknownRank(kF32)).In(T(kI64, {3})).Text(),
      "float[3, 8, 1, 1]");
  EXPECT_THAT(
      OpTest("RoiAlign").In(T(kF32, {1, 8, 4, 4})).In(T(kF32, {3, 4})).In(T(kI64, {4})).Error(),
      HasSubstr("num_rois of rois and batch_indices differ: 3 vs 4"));

  EXPECT_EQ(OpTest("GridSample", 16)
                .In(T(kF32, {S("N"), 3, S("H"), S("W")}))
                .In(T(kF32, {S("N"), 5, 6, 2}))
                .Text(),
            "float[N, 3, 5, 6]");
  EXPECT_THAT(OpTest("GridSample", 16).In(T(kF32, {1, 3, 4, 4})).In(T(kF32, {1, 5, 6, 3})).Error(),
              HasSubstr("grid [1, 5, 6, 3] must end in 2 coordinates"));
  EXPECT_THAT(OpTest("GridSample", 16).In(T(kF32, {1, 3, 4, 4})).In(T(kF32, {2, 5, 6, 2})).Error(),
              HasSubstr("batch of X and grid differ: 1 vs 2"));
}

// ---- Reductions ----

TEST_F(ReduceTest, AxesAttributeAllOpsAndVersions) {
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
                         "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare"}) {
    for (int opset : {1, 11, 12, 13}) {
      if (std::string(op) == "ReduceSum" && opset >= 13) continue;  // axes is an input
      SCOPED_TRACE(std::string(op) + " " + std::to_string(opset));
      EXPECT_EQ(OpTest(op, opset).In(T(kF32, {2, S("N"), 4})).Attr(Ints("axes", {1})).Text(),
                "float[2, 1, 4]");
      EXPECT_EQ(OpTest(op, opset)
                    .In(T(kF32, {2, S("N"), 4}))
                    .Attr(Ints("axes", {-1, 0}))
                    .Attr(Int("keepdims", 0))
                    .Text(),
                "float[N]");
      EXPECT_EQ(OpTest(op, opset).In(T(kF32, {2, S("N"), 4})).Text(), "float[1, 1, 1]");
      EXPECT_EQ(OpTest(op, opset).In(T(kF32, {2, 3})).Attr(Int("keepdims", 0)).Text(), "float[]");
    }
  }
  EXPECT_EQ(OpTest("ReduceMax", 13).In(T(kU8, {2, 3})).Attr(Ints("axes", {0})).Text(),
            "uint8[1, 3]");
  EXPECT_EQ(OpTest("ReduceMean").In(UnknownRank(kF32)).Attr(Ints("axes", {0})).Text(),
            "float[unknown rank]");
  EXPECT_EQ(OpTest("ReduceMean").In(UnknownRank(kF32)).Attr(Int("keepdims", 0)).Text(), "float[]");
  EXPECT_EQ(OpTest("ReduceMean").Name("r").In(T(kF32, {2, 3})).Attr(Ints("axes", {2})).Error(),
            "node 'r' (ReduceMean): axes value 2 is out of range for rank 2");
}

TEST_F(ReduceTest, ReduceSum13AxesInput) {
  EXPECT_EQ(OpTest("ReduceSum", 13).In(T(kF32, {2, 3, 4})).In(V({0, 2})).Text(), "float[1, 3, 1]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {2, 3, 4}))
                .Const<int64_t>(kI64, {1}, {-2})
                .Attr(Int("keepdims", 0))
                .Text(),
            "float[2, 4]");
  // No axes: everything, unless noop_with_empty_axes.
  EXPECT_EQ(OpTest("ReduceSum", 13).In(T(kF32, {2, 3, 4})).Text(), "float[1, 1, 1]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {2, S("N"), 4}))
                .In(V({}))
                .Attr(Int("noop_with_empty_axes", 1))
                .Text(),
            "float[2, N, 4]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {2, 3, 4}))
                .In(T(kI64, {0}))
                .Attr(Int("keepdims", 0))
                .Text(),
            "float[]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {2, 3, 4}))
                .NoInput()
                .Attr(Int("noop_with_empty_axes", 1))
                .Text(),
            "float[2, 3, 4]");
  // Unknown axes: the rank is known with keepdims (a 1 stays 1), or from the number of axes.
  EXPECT_EQ(OpTest("ReduceSum", 13).In(T(kF32, {S("N"), 1, 4})).In(T(kI64, {2})).Text(),
            "float[?, 1, ?]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {S("N"), 1, 4}))
                .In(T(kI64, {2}))
                .Attr(Int("keepdims", 0))
                .Text(),
            "float[?]");
  EXPECT_EQ(OpTest("ReduceSum", 13)
                .In(T(kF32, {S("N"), 1, 4}))
                .In(T(kI64, {S("A")}))
                .Attr(Int("keepdims", 0))
                .Text(),
            "float[unknown rank]");
}

TEST_F(ReduceTest, ArgMaxArgMin) {
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int opset : {1, 11, 12, 13}) {
      SCOPED_TRACE(std::string(op) + " " + std::to_string(opset));
      EXPECT_EQ(OpTest(op, opset).In(T(kF32, {2, S("N"), 4})).Attr(Int("axis", 1)).Text(),
                "int64[2, 1, 4]");
      EXPECT_EQ(OpTest(op, opset).In(T(kF32, {2, S("N"), 4})).Attr(Int("keepdims", 0)).Text(),
                "int64[N, 4]");
    }
    EXPECT_EQ(OpTest(op)
                  .In(T(kF32, {2, 3}))
                  .Attr(Int("axis", -1))
                  .Attr(Int("select_last_index", 1))
                  .Text(),
              "int64[2, 1]");
    EXPECT_THAT(OpTest(op).In(T(kF32, {2, 3})).Attr(Int("axis", 2)).Error(),
                HasSubstr("axis 2 is out of range for rank 2"));
  }
}

TEST_F(ReduceTest, TopK) {
  OpTest v1("TopK", 1);
  v1.In(T(kF32, {3, 4})).Attr(Int("k", 2));
  EXPECT_EQ(v1.Text(0), "float[3, 2]");
  EXPECT_EQ(v1.Text(1), "int64[3, 2]");
  for (int opset : {10, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("TopK", opset).In(T(kF32, {S("N"), 10})).In(V({5})).Text(1), "int64[N, 5]");
  }
  EXPECT_EQ(OpTest("TopK").In(T(kF32, {S("N"), 10})).In(V({S("k")})).Attr(Int("axis", 0)).Text(),
            "float[k, 10]");
  EXPECT_EQ(OpTest("TopK").In(T(kF32, {S("N"), 10})).In(T(kI64, {1})).Text(), "float[N, ?]");
  EXPECT_EQ(OpTest("TopK")
                .In(T(kF32, {2, 10}))
                .In(V({3}))
                .Attr(Int("largest", 0))
                .Attr(Int("sorted", 0))
                .Text(),
            "float[2, 3]");
  EXPECT_THAT(OpTest("TopK").In(T(kF32, {2, 4})).In(V({5})).Error(),
              HasSubstr("k 5 exceeds dim 1 of [2, 4]"));
  EXPECT_THAT(OpTest("TopK").In(T(kF32, {2, 4})).In(V({1, 2})).Error(),
              HasSubstr("K must hold one value, got shape [2]"));
  EXPECT_THAT(OpTest("TopK", 1).In(T(kF32, {2, 4})).Error(), HasSubstr("'k' is required"));
}

// ---- Data-dependent index ops ----

TEST_F(IndexOpsTest, NonZero) {
  for (int opset : {9, 13}) {
    SCOPED_TRACE(opset);
    const TensorInfo out = OpTest("NonZero", opset).In(T(kF32, {2, S("N")})).Info();
    EXPECT_EQ(InfoText(out), "int64[2, ?]");
    EXPECT_TRUE((*out.dims)[1].IsQuestionmark());
  }
  EXPECT_EQ(OpTest("NonZero").In(UnknownRank(kF32)).Text(), "int64[?, ?]");
  EXPECT_EQ(OpTest("NonZero").Const<float>(kF32, {2, 3}, {0, 1, 2, 0, 0, -3}).Text(),
            "int64[2, 3]");
  EXPECT_EQ(OpTest("NonZero").Const<int64_t>(kI64, {4}, {0, 5, 0, 7}).Text(), "int64[1, 2]");
  EXPECT_EQ(OpTest("NonZero").In(V({0, 5, 0, 7})).Text(), "int64[1, 2]");
  EXPECT_EQ(OpTest("NonZero").In(V({0, 5, S("X"), 7})).Text(), "int64[1, ?]");
}

TEST_F(IndexOpsTest, Unique) {
  OpTest flat("Unique", 11);
  flat.In(T(kF32, {S("N"), 4}));
  EXPECT_EQ(flat.Text(0), "float[?]");
  EXPECT_EQ(flat.Text(1), "int64[?]");
  EXPECT_EQ(flat.Text(2), "int64[4*N]");
  EXPECT_EQ(flat.Text(3), "int64[?]");
  // One unknown count shared by Y, indices and counts.
  EXPECT_EQ((*flat.Info(0).dims)[0], (*flat.Info(3).dims)[0]);
  EXPECT_EQ((*flat.Info(1).dims)[0], (*flat.Info(3).dims)[0]);

  OpTest axis("Unique");
  axis.In(T(kI64, {2, S("N"), 3})).Attr(Int("axis", -2));
  EXPECT_EQ(axis.Text(0), "int64[2, ?, 3]");
  EXPECT_EQ(axis.Text(2), "int64[N]");

  // Constants: ONNX's unique_not_sorted_without_axis and unique_sorted_with_axis cases.
  OpTest c1("Unique");
  c1.Const<float>(kF32, {6}, {2, 1, 1, 3, 4, 3}).Attr(Int("sorted", 0));
  EXPECT_EQ(c1.Text(0), "float[4]");
  EXPECT_EQ(c1.Text(2), "int64[6]");
  EXPECT_EQ(c1.Text(3), "int64[4]");
  OpTest c2("Unique");
  c2.Const<float>(kF32, {3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4}).Attr(Int("axis", 0));
  EXPECT_EQ(c2.Text(0), "float[2, 3]");
  EXPECT_EQ(c2.Text(2), "int64[3]");
  OpTest c3("Unique");
  c3.Const<float>(kF32, {2, 3}, {1, 1, 0, 2, 2, 0}).Attr(Int("axis", 1));
  EXPECT_EQ(c3.Text(0), "float[2, 2]");
  // numpy.unique: -0.0 equals 0.0.
  EXPECT_EQ(OpTest("Unique").Const<float>(kF32, {3}, {0.0f, -0.0f, 1}).Text(), "float[2]");
  // Only the requested outputs.
  EXPECT_EQ(OpTest("Unique").Outputs({"y"}).In(T(kF32, {3})).Text(), "float[?]");
}

TEST_F(IndexOpsTest, NonMaxSuppression) {
  for (int opset : {10, 11}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("NonMaxSuppression", opset)
                  .In(T(kF32, {1, 6, 4}))
                  .In(T(kF32, {1, 1, 6}))
                  .Const<int64_t>(kI64, {1}, {3})
                  .Text(),
              "int64[?, 3]");
  }
  // Nothing is selected without max_output_boxes_per_class (default 0) or with 0.
  EXPECT_EQ(OpTest("NonMaxSuppression").In(T(kF32, {1, 6, 4})).In(T(kF32, {1, 1, 6})).Text(),
            "int64[0, 3]");
  EXPECT_EQ(OpTest("NonMaxSuppression")
                .In(T(kF32, {S("B"), S("S"), 4}))
                .In(T(kF32, {S("B"), 2, S("S")}))
                .In(Scalar(0))
                .In(Scalar(0))
                .Text(),
            "int64[0, 3]");
  EXPECT_EQ(OpTest("NonMaxSuppression")
                .In(T(kF32, {1, 0, 4}))
                .In(T(kF32, {1, 2, 0}))
                .In(Scalar(10))
                .Text(),
            "int64[0, 3]");
  EXPECT_THAT(OpTest("NonMaxSuppression").In(T(kF32, {1, 6, 4})).In(T(kF32, {1, 1, 5})).Error(),
              HasSubstr("disagree on num_batches or spatial_dimension"));
}

TEST_F(IndexOpsTest, Det) {
  EXPECT_EQ(OpTest("Det", 11).In(T(kF32, {S("N"), 3, 3})).Text(), "float[N]");
  EXPECT_EQ(OpTest("Det").In(T(kF32, {S("M"), S("M")})).Text(), "float[]");
  EXPECT_EQ(OpTest("Det").In(UnknownRank(kF32)).Text(), "float[unknown rank]");
  EXPECT_EQ(OpTest("Det").In(T(kF32, {2, 3})).Error(),
            "node 'n' (Det): input [2, 3] is not a batch of square matrices");
}

// ---- RNN, GRU, LSTM ----

TEST_F(RecurrentTest, LayoutZero) {
  for (int opset : {1, 7, 14}) {
    SCOPED_TRACE(opset);
    OpTest t("RNN", opset);
    t.In(T(kF32, {S("S"), S("B"), 10}))
        .In(T(kF32, {1, 20, 10}))
        .In(T(kF32, {1, 20, 20}))
        .Attr(Int("hidden_size", 20));
    EXPECT_EQ(t.Text(0), "float[S, 1, B, 20]");
    EXPECT_EQ(t.Text(1), "float[1, B, 20]");
  }
  for (int opset : {1, 3, 7, 14}) {
    SCOPED_TRACE(opset);
    OpTest t("GRU", opset);
    t.In(T(kF32, {S("S"), S("B"), 10}))
        .In(T(kF32, {2, 60, 10}))
        .In(T(kF32, {2, 60, 20}))
        .Attr(Int("hidden_size", 20))
        .Attr(Str("direction", "bidirectional"));
    EXPECT_EQ(t.Text(0), "float[S, 2, B, 20]");
    EXPECT_EQ(t.Text(1), "float[2, B, 20]");
  }
  for (int opset : {1, 7, 14}) {
    SCOPED_TRACE(opset);
    // hidden_size from R when the attribute is absent.
    OpTest t("LSTM", opset);
    t.In(T(kF32, {S("S"), S("B"), 3})).In(T(kF32, {1, 28, 3})).In(T(kF32, {1, 28, 7}));
    t.Attr(Str("direction", "reverse"));
    EXPECT_EQ(t.Text(0), "float[S, 1, B, 7]");
    EXPECT_EQ(t.Text(1), "float[1, B, 7]");
    EXPECT_EQ(t.Text(2), "float[1, B, 7]");
  }
}

TEST_F(RecurrentTest, LayoutOneAndOptionalOutputs) {
  OpTest gru("GRU", 14);
  gru.In(T(kF32, {S("B"), S("S"), 10}))
      .In(T(kF32, {2, 60, 10}))
      .In(T(kF32, {2, 60, 20}))
      .Attr(Int("hidden_size", 20))
      .Attr(Str("direction", "bidirectional"))
      .Attr(Int("layout", 1));
  EXPECT_EQ(gru.Text(0), "float[B, S, 2, 20]");
  EXPECT_EQ(gru.Text(1), "float[B, 2, 20]");

  // Only Y_c requested; initial_h pins the batch.
  OpTest lstm("LSTM", 14);
  lstm.Outputs({"", "", "yc"})
      .In(T(kF32, {S("B"), 5, 3}))
      .In(T(kF32, {1, 16, 3}))
      .In(T(kF32, {1, 16, 4}))
      .NoInput()
      .NoInput()
      .In(T(kF32, {2, 1, 4}))
      .Attr(Int("layout", 1));
  EXPECT_EQ(lstm.Text(2), "float[2, 1, 4]");

  // Only Y.
  EXPECT_EQ(OpTest("LSTM")
                .Outputs({"y"})
                .In(T(kF32, {4, 2, 3}))
                .In(T(kF32, {1, 16, 3}))
                .In(T(kF32, {1, 16, 4}))
                .Text(),
            "float[4, 1, 2, 4]");
  // Unknown X: hidden from W's gates.
  EXPECT_EQ(
      OpTest("GRU").In(UnknownRank(kF32)).In(T(kF32, {1, 24, 3})).In(UnknownRank(kF32)).Text(),
      "float[?, 1, ?, 8]");
}

TEST_F(RecurrentTest, Errors) {
  EXPECT_THAT(
      OpTest("RNN").In(T(kF32, {4, 2, 3})).In(T(kF32, {2, 5, 3})).In(T(kF32, {2, 5, 5})).Error(),
      HasSubstr("W [2, 5, 3] has 2 directions, direction 'forward' needs 1"));
  EXPECT_THAT(OpTest("LSTM")
                  .In(T(kF32, {4, 2, 3}))
                  .In(T(kF32, {1, 16, 3}))
                  .In(T(kF32, {1, 16, 4}))
                  .Attr(Int("hidden_size", 5))
                  .Error(),
              HasSubstr("hidden_size and R's dim 2 differ: 5 vs 4"));
  EXPECT_THAT(
      OpTest("GRU").In(T(kF32, {4, 2, 3})).In(T(kF32, {1, 16, 3})).In(T(kF32, {1, 16, 4})).Error(),
      HasSubstr("W [1, 16, 3] does not hold 3 gates of hidden size 4"));
  EXPECT_THAT(OpTest("RNN")
                  .In(T(kF32, {4, 2, 3}))
                  .In(T(kF32, {1, 5, 3}))
                  .In(T(kF32, {1, 5, 5}))
                  .Attr(Str("direction", "sideways"))
                  .Error(),
              HasSubstr("direction 'sideways' is not forward, reverse or bidirectional"));
  EXPECT_THAT(OpTest("RNN").In(T(kF32, {4, 3})).Error(), HasSubstr("X must have rank 3"));
  EXPECT_THAT(OpTest("RNN")
                  .In(T(kF32, {4, 2, 3}))
                  .In(T(kF32, {1, 5, 3}))
                  .In(T(kF32, {1, 5, 5}))
                  .NoInput()
                  .In(T(kI32, {3}))
                  .Error(),
              HasSubstr("batch sizes of X and sequence_lens differ: 2 vs 3"));
}

// ---- Signal ops ----

TEST_F(SignalTest, Dft) {
  // ONNX's test_dft and test_dft_axis.
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {1, 10, 10, 1})).Attr(Int("axis", 1)).Text(),
            "float[1, 10, 10, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {1, 10, 10, 1})).Attr(Int("axis", 2)).Text(),
            "float[1, 10, 10, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {1, 10, 10, 2})).Attr(Int("inverse", 1)).Text(),
            "float[1, 10, 10, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {1, 10, 10, 1})).Attr(Int("onesided", 1)).Text(),
            "float[1, 6, 10, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {1, 10, 1})).In(Scalar(16)).Text(), "float[1, 16, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {S("B"), S("N"), 1})).Attr(Int("onesided", 1)).Text(),
            "float[B, floor(N / 2) + 1, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {S("B"), 8, 1})).In(Scalar(S("L"))).Text(), "float[B, L, 2]");
  EXPECT_EQ(OpTest("DFT").In(T(kF32, {S("B"), 8, 1})).In(T(kI64, {})).Text(), "float[B, ?, 2]");
  EXPECT_THAT(OpTest("DFT").In(T(kF32, {1, 10, 1})).Attr(Int("axis", -1)).Error(),
              HasSubstr("is the real/imaginary component dim"));
  EXPECT_THAT(OpTest("DFT")
                  .In(T(kF32, {1, 10, 1}))
                  .Attr(Int("onesided", 1))
                  .Attr(Int("inverse", 1))
                  .Error(),
              HasSubstr("onesided and inverse cannot both be set"));
  EXPECT_THAT(OpTest("DFT").In(T(kF32, {1, 10, 2})).Attr(Int("onesided", 1)).Error(),
              HasSubstr("a complex input [1, 10, 2] has no onesided DFT"));
  EXPECT_THAT(OpTest("DFT").In(T(kF32, {1, 10, 3})).Error(),
              HasSubstr("must end in a dim of 1 (real) or 2 (complex)"));
}

TEST_F(SignalTest, Stft) {
  // ONNX's test_stft and test_stft_with_window.
  EXPECT_EQ(OpTest("STFT").In(T(kF32, {1, 128, 1})).In(Scalar(8)).NoInput().In(Scalar(16)).Text(),
            "float[1, 15, 9, 2]");
  EXPECT_EQ(OpTest("STFT").In(T(kF32, {1, 128, 1})).In(Scalar(8)).In(T(kF32, {16})).Text(),
            "float[1, 15, 9, 2]");
  EXPECT_EQ(OpTest("STFT")
                .In(T(kF32, {1, 128, 2}))
                .In(Scalar(8))
                .In(T(kF32, {16}))
                .In(Scalar(16))
                .Attr(Int("onesided", 0))
                .Text(),
            "float[1, 15, 16, 2]");
  // frames: floor((L - 16) / 4) + 1 in canonical form.
  EXPECT_EQ(OpTest("STFT").In(T(kF32, {S("B"), S("L"), 1})).In(Scalar(4)).In(T(kF32, {16})).Text(),
            "float[B, floor(L / 4) - 3, 9, 2]");
  EXPECT_EQ(OpTest("STFT").In(T(kF32, {1, 128, 1})).In(T(kI64, {})).In(T(kF32, {16})).Text(),
            "float[1, ?, 9, 2]");
  EXPECT_THAT(OpTest("STFT")
                  .In(T(kF32, {1, 128, 1}))
                  .In(Scalar(8))
                  .In(T(kF32, {16}))
                  .In(Scalar(32))
                  .Error(),
              HasSubstr("frame_length and the window length differ: 32 vs 16"));
  EXPECT_THAT(OpTest("STFT").In(T(kF32, {1, 128, 1})).In(Scalar(8)).Error(),
              HasSubstr("needs a window or a frame_length"));
  EXPECT_THAT(OpTest("STFT").In(T(kF32, {1, 128, 1})).In(Scalar(0)).In(T(kF32, {16})).Error(),
              HasSubstr("frame_step 0 must be >= 1"));
  EXPECT_THAT(OpTest("STFT").In(T(kF32, {1, 8, 1})).In(Scalar(1)).In(T(kF32, {16})).Error(),
              HasSubstr("frame_length 16 exceeds the signal length of [1, 8, 1]"));
}

TEST_F(SignalTest, WindowsAndMelWeightMatrix) {
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(OpTest(op).In(Scalar(10)).Text(), "float[10]");
    EXPECT_EQ(OpTest(op).In(Scalar(S("n"))).Attr(Int("output_datatype", 11)).Text(), "double[n]");
    EXPECT_EQ(OpTest(op).In(T(kI64, {})).Attr(Int("periodic", 0)).Text(), "float[?]");
    // An int32 constant without tracked values: read from the payload.
    EXPECT_EQ(OpTest(op).Const<int32_t>(kI32, {}, {7}, /*values=*/false).Text(), "float[7]");
    EXPECT_THAT(OpTest(op).In(Scalar(-1)).Error(), HasSubstr("size -1 must be >= 0"));
    EXPECT_THAT(OpTest(op).In(Scalar(4)).Attr(Int("output_datatype", 99)).Error(),
                HasSubstr("output_datatype 99 is not a tensor element type"));
  }
  EXPECT_EQ(OpTest("MelWeightMatrix")
                .Const<int32_t>(kI32, {}, {8})
                .Const<int32_t>(kI32, {}, {16})
                .Const<int32_t>(kI32, {}, {8192})
                .In(T(kF32, {}))
                .In(T(kF32, {}))
                .Text(),
            "float[9, 8]");
  EXPECT_EQ(OpTest("MelWeightMatrix")
                .In(Scalar(S("M")))
                .In(Scalar(S("L")))
                .In(Scalar(8000))
                .In(T(kF32, {}))
                .In(T(kF32, {}))
                .Attr(Int("output_datatype", 10))
                .Text(),
            "float16[floor(L / 2) + 1, M]");
}

// ---- Losses ----

TEST_F(LossTest, NegativeLogLikelihoodLoss) {
  for (int opset : {12, 13}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(OpTest("NegativeLogLikelihoodLoss", opset)
                  .In(T(kF32, {S("N"), 5, 2}))
                  .In(T(kI64, {S("N"), 2}))
                  .Attr(Str("reduction", "none"))
                  .Text(),
              "float[N, 2]");
    EXPECT_EQ(OpTest("NegativeLogLikelihoodLoss", opset)
                  .In(T(kF32, {S("N"), 5, 2}))
                  .In(T(kI64, {S("N"), 2}))
                  .In(T(kF32, {5}))
                  .Text(),
              "float[]");
  }
  EXPECT_EQ(OpTest("NegativeLogLikelihoodLoss")
                .In(T(kF32, {S("N"), 5, S("D")}))
                .In(T(kI64, {3, 7}))
                .Attr(Str("reduction", "none"))
                .Text(),
            "float[3, 7]");
  EXPECT_EQ(OpTest("NegativeLogLikelihoodLoss")
                .In(T(kF32, {3, 5}))
                .In(T(kI64, {3}))
                .Attr(Str("reduction", "sum"))
                .Text(),
            "float[]");
  EXPECT_THAT(OpTest("NegativeLogLikelihoodLoss").In(T(kF32, {3, 5, 2})).In(T(kI64, {3})).Error(),
              HasSubstr("target [3] must be input [3, 5, 2] without the class dim"));
  EXPECT_THAT(OpTest("NegativeLogLikelihoodLoss")
                  .In(T(kF32, {3, 5, 2}))
                  .In(T(kI64, {3, 4}))
                  .Attr(Str("reduction", "none"))
                  .Error(),
              HasSubstr("differ: 2 vs 4"));
  EXPECT_THAT(OpTest("NegativeLogLikelihoodLoss")
                  .In(T(kF32, {3, 5}))
                  .In(T(kI64, {3}))
                  .In(T(kF32, {4}))
                  .Error(),
              HasSubstr("weight [4] does not match the 5 classes"));
  EXPECT_THAT(OpTest("NegativeLogLikelihoodLoss")
                  .In(T(kF32, {3, 5}))
                  .In(T(kI64, {3}))
                  .Attr(Str("reduction", "max"))
                  .Error(),
              HasSubstr("reduction 'max' is not none, mean or sum"));
}

TEST_F(LossTest, SoftmaxCrossEntropyLoss) {
  for (int opset : {12, 13}) {
    SCOPED_TRACE(opset);
    OpTest t("SoftmaxCrossEntropyLoss", opset);
    t.In(T(kF32, {S("N"), 5})).In(T(kI64, {S("N")}));
    EXPECT_EQ(t.Text(0), "float[]");
    EXPECT_EQ(t.Text(1), "float[N, 5]");
  }
  OpTest none("SoftmaxCrossEntropyLoss");
  none.In(T(kF32, {3, 5, 2, 7}))
      .In(T(kI32, {3, 2, 7}))
      .In(T(kF32, {5}))
      .Attr(Str("reduction", "none"))
      .Attr(Int("ignore_index", 0));
  EXPECT_EQ(none.Text(0), "float[3, 2, 7]");
  EXPECT_EQ(none.Text(1), "float[3, 5, 2, 7]");
  EXPECT_EQ(OpTest("SoftmaxCrossEntropyLoss")
                .Outputs({"loss"})
                .In(UnknownRank(kF32))
                .In(T(kI64, {S("N")}))
                .Attr(Str("reduction", "none"))
                .Text(),
            "float[N]");
}

}  // namespace
}  // namespace anvil
