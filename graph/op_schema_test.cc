#include "graph/op_schema.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/later_opsets.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(OpSchemaTest, TypeConstraintsFollowTheOpset) {
  EXPECT_TRUE(OpAcceptsInputType("", "MatMul", 13, 0, ElementType::kFloat));
  EXPECT_TRUE(OpAcceptsInputType("ai.onnx", "MatMul", 12, 1, ElementType::kDouble));
  EXPECT_FALSE(OpAcceptsInputType("", "MatMul", 17, 0, ElementType::kInt8));
  EXPECT_TRUE(OpAcceptsInputType("", "MatMul", 13, 0, ElementType::kBfloat16));
  EXPECT_FALSE(OpAcceptsInputType("", "MatMul", 12, 0, ElementType::kBfloat16));
  // Mul gained 8- and 16-bit integers in opset 14.
  EXPECT_FALSE(OpAcceptsInputType("", "Mul", 13, 0, ElementType::kInt8));
  EXPECT_TRUE(OpAcceptsInputType("", "Mul", 14, 0, ElementType::kInt8));
  EXPECT_TRUE(OpAcceptsInputType("", "Transpose", 13, 0, ElementType::kString));
  // Reshape's shape input is a plain int64 tensor, not a type parameter.
  EXPECT_TRUE(OpAcceptsInputType("", "Reshape", 14, 1, ElementType::kInt64));
  EXPECT_FALSE(OpAcceptsInputType("", "Reshape", 14, 1, ElementType::kInt32));
  // Unknown op, opset before the op existed, input out of range.
  EXPECT_FALSE(OpAcceptsInputType("", "NoSuchOp", 17, 0, ElementType::kFloat));
  EXPECT_FALSE(OpAcceptsInputType("", "Einsum", 11, 0, ElementType::kFloat));
  EXPECT_FALSE(OpAcceptsInputType("", "Relu", 14, 3, ElementType::kFloat));
}

TEST(OpSchemaTest, FindsTheDefinitionAtAnOpset) {
  const std::optional<OpSchemaInfo> relu = FindOpSchema("ai.onnx", "Relu", 13);
  ASSERT_TRUE(relu.has_value());
  EXPECT_EQ(relu->since_version, 13);
  EXPECT_EQ(relu->min_input, 1);
  EXPECT_EQ(relu->max_input, 1);
  ASSERT_EQ(relu->inputs.size(), 1u);
  EXPECT_EQ(relu->inputs[0].type_str, "T");
  EXPECT_EQ(relu->inputs[0].option, OpSchemaInfo::Parameter::Option::kSingle);
  const std::vector<std::string>& types = relu->inputs[0].allowed_types;
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end()));
  EXPECT_NE(std::find(types.begin(), types.end(), "tensor(bfloat16)"), types.end());
  EXPECT_EQ(std::find(types.begin(), types.end(), "tensor(int32)"), types.end());

  const std::optional<OpSchemaInfo> concat = FindOpSchema("", "Concat", 13);
  ASSERT_TRUE(concat.has_value());
  EXPECT_EQ(concat->inputs[0].option, OpSchemaInfo::Parameter::Option::kVariadic);
  EXPECT_TRUE(concat->inputs[0].homogeneous);
  ASSERT_TRUE(concat->attributes.count("axis"));
  EXPECT_TRUE(concat->attributes.at("axis").required);
  EXPECT_EQ(concat->attributes.at("axis").type, AttributeType::kInt);

  EXPECT_FALSE(FindOpSchema("", "Einsum", 11).has_value());
  EXPECT_FALSE(FindOpSchema("", "NoSuchOp", 17).has_value());
}

TEST(OpSchemaTest, KnowsTheOpsetRangeOfOnnxDomains) {
  const std::optional<std::pair<int, int>> onnx = OnnxOpsetRange("");
  ASSERT_TRUE(onnx.has_value());
  EXPECT_EQ(onnx->first, 1);
  EXPECT_EQ(onnx->second, kLastOnnxOpset);
  EXPECT_EQ(OnnxOpsetRange("ai.onnx"), onnx);
  EXPECT_EQ(OnnxOpsetRange("ai.onnx.ml"), std::make_pair(1, kLastOnnxMlOpset));
  EXPECT_FALSE(OnnxOpsetRange("com.example").has_value());
}

// Opsets 18 to 26 revise libonnx's definitions (graph/later_opsets.h).
TEST(OpSchemaTest, LaterOpsetsReviseTheLastLibonnxDefinition) {
  // Reduce*-18: axes moves from an attribute to optional input 1.
  const std::optional<OpSchemaInfo> mean17 = FindOpSchema("", "ReduceMean", 17);
  const std::optional<OpSchemaInfo> mean21 = FindOpSchema("", "ReduceMean", 21);
  ASSERT_TRUE(mean17 && mean21);
  EXPECT_EQ(mean17->max_input, 1);
  EXPECT_TRUE(mean17->attributes.count("axes"));
  EXPECT_EQ(mean21->since_version, 18);
  EXPECT_EQ(mean21->min_input, 1);
  EXPECT_EQ(mean21->max_input, 2);
  EXPECT_EQ(mean21->inputs[1].name, "axes");
  EXPECT_FALSE(mean21->attributes.count("axes"));
  EXPECT_TRUE(mean21->attributes.count("noop_with_empty_axes"));
  // ReduceSum moved at 13 and stays; an op no later opset revised keeps its libonnx definition.
  EXPECT_EQ(FindOpSchema("", "ReduceSum", 23)->since_version, 13);
  EXPECT_EQ(FindOpSchema("", "MatMul", 23)->since_version, 13);
  // A types-only revision changes the version.
  EXPECT_EQ(FindOpSchema("", "Reshape", 22)->since_version, 21);
  EXPECT_EQ(FindOpSchema("", "Split", 18)->attributes.count("num_outputs"), 1u);
  // Opset 22 adds bfloat16 where float16 was.
  EXPECT_FALSE(OpAcceptsInputType("", "Conv", 21, 0, ElementType::kBfloat16));
  EXPECT_TRUE(OpAcceptsInputType("", "Conv", 22, 0, ElementType::kBfloat16));
  // New ops exist from their opset.
  EXPECT_FALSE(FindOpSchema("", "Attention", 22).has_value());
  const std::optional<OpSchemaInfo> attention = FindOpSchema("", "Attention", 23);
  ASSERT_TRUE(attention.has_value());
  EXPECT_EQ(attention->min_input, 3);
  EXPECT_EQ(attention->max_input, 6);
  EXPECT_EQ(attention->min_output, 1);
  EXPECT_TRUE(OpSchemaExists("", "RotaryEmbedding", 23));
  EXPECT_TRUE(OpSchemaExists("", "Gelu", 20));
  EXPECT_FALSE(OpSchemaExists("", "Gelu", 19));
  // Nothing past the last opset Anvil reads.
  EXPECT_FALSE(FindOpSchema("", "Relu", kLastOnnxOpset + 1).has_value());
  EXPECT_EQ(UndefinedLaterOp("Col2Im"), 18);
  EXPECT_EQ(UndefinedLaterOp("Relu"), 0);
}

}  // namespace
}  // namespace anvil
