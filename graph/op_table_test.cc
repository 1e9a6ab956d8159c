#include "graph/op_table.h"

#include <memory>
#include <string>

#include "graph/op_schema.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(OpTableTest, RowsAreSortedUniqueAndMatchOnnxSchemas) {
  ASSERT_GT(AllOps().size(), 150u);
  for (size_t i = 0; i < AllOps().size(); ++i) {
    const OpInfo& op = AllOps()[i];
    SCOPED_TRACE(std::string(op.op_type));
    EXPECT_EQ(OpIndex(op), static_cast<int>(i));
    EXPECT_LE(op.since_version, op.last_version);
    if (i > 0) {
      const OpInfo& prev = AllOps()[i - 1];
      EXPECT_TRUE(prev.domain < op.domain ||
                  (prev.domain == op.domain && prev.op_type < op.op_type))
          << "op_list.inc is not sorted, or lists an op twice";
    }
    // ONNX defines the op from its first version on, and at every opset up to the last (or Anvil
    // does, for ONNX Runtime's ops in the ONNX domain). (Ops of other domains - ONNX Runtime's
    // com.microsoft contrib ops, Anvil's com.anvil.nchwc ops - have no schema in libonnx.)
    if (op.domain.empty() || op.domain.substr(0, 7) == "ai.onnx") {
      EXPECT_TRUE(OpSchemaExists(op.domain, op.op_type, op.since_version));
      EXPECT_TRUE(OpSchemaExists(op.domain, op.op_type, op.last_version));
      EXPECT_FALSE(op.since_version > 1 &&
                   OpSchemaExists(op.domain, op.op_type, op.since_version - 1))
          << "the op exists before since_version " << op.since_version;
    } else {
      EXPECT_TRUE(op.domain == "com.microsoft" || op.domain == "com.anvil.nchwc") << op.domain;
    }
    // In-place reuse and aliasing are for elementwise maps and views only.
    if (op.Has(kInPlace)) {
      EXPECT_TRUE(op.Has(kElementwise));
    }
    EXPECT_FALSE(op.Has(kAlias) && op.Has(kElementwise));
    // Reinterpreting input 0's bytes is one way of picking its elements; views compute nothing.
    if (op.Has(kAlias)) EXPECT_TRUE(op.Has(kView));
    EXPECT_FALSE(op.Has(kView) && op.Has(kElementwise));
  }
}

TEST(OpTableTest, FindsOpsByVersion) {
  EXPECT_EQ(FindOp("", "Relu", 17)->op_type, "Relu");
  EXPECT_EQ(FindOp("com.microsoft", "FusedConv", 1)->op_type, "FusedConv");
  EXPECT_EQ(FindOp("", "FusedConv", 17), nullptr);
  EXPECT_EQ(FindOp("ai.onnx", "Relu", 1)->op_type, "Relu");
  EXPECT_EQ(FindOp("", "Einsum", 11), nullptr);  // Einsum came in opset 12
  EXPECT_EQ(FindOp("", "Relu", 99), nullptr);
  EXPECT_EQ(FindOp("", "NoSuchOp", 17), nullptr);
  EXPECT_EQ(FindOp("com.example", "Relu", 17), nullptr);
  EXPECT_NE(FindOpAnyVersion("", "Einsum"), nullptr);
  EXPECT_TRUE(FindOpAnyVersion("", "Add")->Has(kCommutative));
  EXPECT_FALSE(FindOpAnyVersion("", "Sub")->Has(kCommutative));
  EXPECT_FALSE(FindOpAnyVersion("", "Max")->Has(kCommutative));  // NaN propagation differs
  EXPECT_TRUE(FindOpAnyVersion("", "Reshape")->Has(kAlias));
  EXPECT_TRUE(FindOpAnyVersion("", "Transpose")->Has(kView));
  EXPECT_FALSE(FindOpAnyVersion("", "Transpose")->Has(kAlias));  // a strided view, not the bytes
  EXPECT_FALSE(FindOpAnyVersion("", "Tile")->Has(kView));
  EXPECT_TRUE(FindOpAnyVersion("", "If")->Has(kControlFlow));
}

TEST(OpTableTest, DropoutIsRandomOnlyInTraining) {
  absl::StatusOr<std::unique_ptr<Model>> m = ParseModelText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, float r, bool t) => (float[2] a, float[2] b, float[2] c, float[2] d) {
      a = Dropout (x)
      b = Dropout (x, r, t)
      c = RandomUniformLike (x)
      d = Relu (x)
    })");
  ASSERT_TRUE(m.ok()) << m.status().message();
  std::vector<bool> random;
  for (const Node* n : (*m)->graph().nodes()) random.push_back(IsRandom(*n));
  EXPECT_EQ(random, (std::vector<bool>{false, true, true, false}));
  for (const Node* n : (*m)->graph().nodes()) {
    EXPECT_EQ(HasTrait(*n, kElementwise), n->op_type() == "Relu");
  }
}

}  // namespace
}  // namespace anvil
