#include "tools/default_model.h"

#include <memory>
#include <string>

#include "graph/ir.h"
#include "graph/text_format.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::unique_ptr<Model> ParseDefault() {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(DefaultModelText());
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *std::move(model) : nullptr;
}

const Node* Producer(const Graph& g, const std::string& name) {
  const Value* v = g.FindValue(name);
  return v != nullptr ? v->producer() : nullptr;
}

TEST(DefaultModelTest, ParsesAndVerifies) {
  std::unique_ptr<Model> model = ParseDefault();
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(VerifyModel(*model).ok()) << VerifyModel(*model);
  EXPECT_EQ(model->OpsetVersion(""), 17);
  EXPECT_LT(DefaultModelText().size(), 80u * 1024);
}

TEST(DefaultModelTest, HasDynamicBatchAndSequence) {
  std::unique_ptr<Model> model = ParseDefault();
  ASSERT_NE(model, nullptr);
  const Graph& g = model->graph();
  ASSERT_EQ(g.inputs().size(), 1u);
  const Type& x = g.inputs()[0]->type();
  ASSERT_EQ(x.rank(), 3);
  EXPECT_EQ(x.shape()[0], Dim::Param("batch"));
  EXPECT_EQ(x.shape()[1], Dim::Param("seq"));
  EXPECT_EQ(x.shape()[2], Dim::Literal(16));
  ASSERT_EQ(g.outputs().size(), 1u);
  EXPECT_EQ(g.outputs()[0]->type(), x);
}

TEST(DefaultModelTest, HasTheAdvertisedOpportunities) {
  std::unique_ptr<Model> model = ParseDefault();
  ASSERT_NE(model, nullptr);
  const Graph& g = model->graph();
  EXPECT_EQ(g.num_nodes(), 27u);
  EXPECT_EQ(g.initializers().size(), 6u);

  // Einsum attention.
  const Node* scores = Producer(g, "scores");
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->op_type(), "Einsum");
  EXPECT_EQ(scores->GetString("equation", ""), "bqd,bkd->bqk");

  // CSE: two Subs of the same inputs.
  const Node* a = Producer(g, "centered");
  const Node* b = Producer(g, "centered_again");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->op_type(), b->op_type());
  EXPECT_EQ(a->inputs(), b->inputs());

  // DCE: an output nobody reads.
  const Value* dead = g.FindValue("unused_scores");
  ASSERT_NE(dead, nullptr);
  EXPECT_FALSE(dead->HasUses());
  EXPECT_FALSE(dead->IsGraphOutput());

  // Constant folding: the scale chain and the transposed weight read only
  // constants.
  const Node* scale = Producer(g, "scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->op_type(), "Reciprocal");
  EXPECT_EQ(Producer(g, "sqrt_d")->op_type(), "Sqrt");
  EXPECT_EQ(Producer(g, "d_model_f")->op_type(), "Cast");
  EXPECT_EQ(Producer(g, "d_model")->op_type(), "Constant");
  const Node* wo = Producer(g, "Wo");
  ASSERT_NE(wo, nullptr);
  EXPECT_EQ(wo->op_type(), "Transpose");
  EXPECT_TRUE(wo->input(0)->IsInitializer());
}

TEST(DefaultModelTest, PrintsAndParsesBack) {
  std::unique_ptr<Model> model = ParseDefault();
  ASSERT_NE(model, nullptr);
  PrintOptions full;
  full.full_constants = true;
  const std::string printed = PrintModel(*model, full);
  absl::StatusOr<std::unique_ptr<Model>> reparsed = ParseModelText(printed);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(PrintModel(**reparsed, full), printed);
}

}  // namespace
}  // namespace anvil
