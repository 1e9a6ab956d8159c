#include "graph/input_dims.h"

#include <memory>
#include <string>

#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::unique_ptr<Model> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, ?] x, float[N] y, int64 z) => (float[N, 3, ?] o) {
  o = Identity (x)
})";

TEST(InputDimsTest, ParsesAndRefusesMalformedEntries) {
  InputDims dims;
  ASSERT_TRUE(ParseInputDims("x=2,3,5", &dims).ok());
  ASSERT_TRUE(ParseInputDims("z=", &dims).ok());
  EXPECT_EQ(dims["x"], (std::vector<int64_t>{2, 3, 5}));
  EXPECT_TRUE(dims["z"].empty());
  EXPECT_FALSE(ParseInputDims("x=1", &dims).ok());  // twice
  EXPECT_FALSE(ParseInputDims("=1", &dims).ok());
  EXPECT_FALSE(ParseInputDims("w", &dims).ok());
  EXPECT_FALSE(ParseInputDims("w=1,-2", &dims).ok());
  EXPECT_FALSE(ParseInputDims("w=1,a", &dims).ok());
}

TEST(InputDimsTest, FixesASymbolInEveryInputThatNamesIt) {
  std::unique_ptr<Model> model = Parse(kModel);
  ASSERT_TRUE(FixInputDims(*model, {{"x", {4, 3, 7}}}).ok());
  EXPECT_EQ(model->graph().inputs()[0]->type().ToString(), "float[4,3,7]");
  EXPECT_EQ(model->graph().inputs()[1]->type().ToString(), "float[4]");
  EXPECT_EQ(model->graph().inputs()[2]->type().ToString(), "int64");
}

TEST(InputDimsTest, RefusesContradictionsAndChangesNothing) {
  std::unique_ptr<Model> model = Parse(kModel);
  absl::Status s = FixInputDims(*model, {{"x", {4, 2, 7}}});
  EXPECT_EQ(s.message(), "input 'x' axis 1 is 3; given 2");
  s = FixInputDims(*model, {{"x", {4, 3, 7}}, {"y", {5}}});
  EXPECT_EQ(s.message(),
            "input 'y' axis 0 is N, given 5; but input 'x' axis 0 is the same N, "
            "given 4");
  s = FixInputDims(*model, {{"x", {4, 3}}});
  EXPECT_EQ(s.message(), "input 'x' is float[N,3,?] (rank 3); given 2 dims [4,3]");
  s = FixInputDims(*model, {{"w", {1}}});
  EXPECT_EQ(s.message(),
            "dims given for 'w', which is no input of the model (its inputs: 'x', 'y', 'z')");
  EXPECT_EQ(model->graph().inputs()[0]->type().ToString(), "float[N,3,?]");
  EXPECT_EQ(model->graph().inputs()[1]->type().ToString(), "float[N]");
}

}  // namespace
}  // namespace anvil
