#include "graph/op_schema.h"

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

}  // namespace
}  // namespace anvil
