#include "graph/schema_check.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/text_format.h"
#include "graph/verifier.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

using ::testing::HasSubstr;

// Parses `text` and returns what the verifier says about it ("" when it is valid).
std::string Verify(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  if (!model.ok()) return "parse: " + std::string(model.status().message());
  absl::Status s = VerifyModel(**model);
  return s.ok() ? "" : std::string(s.message());
}

std::string Opset17(const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : 17]>\nmain " + signature + " {\n" + body + "\n}\n";
}

TEST(SchemaCheckTest, AcceptsWellFormedNodes) {
  EXPECT_EQ(Verify(Opset17("(float[2] x) => (float[2] y)", "y = Relu(x)")), "");
  EXPECT_EQ(Verify(Opset17("(float[2,3] x) => (float[3,2] y)", "y = Transpose<perm = [1, 0]>(x)")),
            "");
  // Optional inputs may be left empty or omitted.
  EXPECT_EQ(Verify(Opset17("(float[2] x) => (float[2] y)", "y = Clip(x, , )")), "");
  EXPECT_EQ(Verify(Opset17("(float[2] x) => (float[2] y)", "y = Clip(x)")), "");
}

TEST(SchemaCheckTest, RejectsWrongInputArity) {
  std::string m = Verify(Opset17("(float[2] x) => (float[2] y)", "y = Relu(x, x, x)"));
  EXPECT_THAT(m, HasSubstr("Relu"));
  EXPECT_THAT(m, HasSubstr("takes 1 input, has 3"));
  m = Verify(Opset17("(float[2] x) => (float[2] y)", "y = Add(x)"));
  EXPECT_THAT(m, HasSubstr("Add-14 takes 2 inputs, has 1"));
}

TEST(SchemaCheckTest, RejectsWrongOutputArity) {
  std::string m = Verify(Opset17("(float[2] x) => (float[2] y)", "y, z = Relu(x)"));
  EXPECT_THAT(m, HasSubstr("Relu-14 has 1 output, the node declares 2"));
}

TEST(SchemaCheckTest, RejectsEmptyRequiredInput) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText(Opset17("(float[2] x) => (float[2] y)", "y = Add(x, x)"));
  ASSERT_TRUE(model.ok());
  (*(*model)->graph().nodes().begin())->SetInput(0, nullptr);
  std::string m(VerifyModel(**model).message());
  EXPECT_THAT(m, HasSubstr("input 0"));
  EXPECT_THAT(m, HasSubstr("required"));
}

// Omitted optional inputs are slots: Loop("", "") has the two inputs Loop needs (ONNX's checker
// and ONNX Runtime take it).
TEST(SchemaCheckTest, AcceptsLoopWithEveryInputOmitted) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(Opset17(
      "(int64 m, bool c) => (float[?] s)",
      "s = Loop(m, c) <body = b (int64 i, bool ci) => (bool co, float so) {\n"
      "  lim = Constant <value = int64 {3}> ()\n  co = Less(i, lim)\n  so = Cast<to = 1>(i)\n}>"));
  ASSERT_TRUE(model.ok()) << model.status();
  Node* loop = *(*model)->graph().nodes().begin();
  loop->SetInput(0, nullptr);
  loop->SetInput(1, nullptr);
  EXPECT_EQ(VerifyModel(**model).message(), "");
}

TEST(SchemaCheckTest, RejectsUnknownAttribute) {
  std::string m = Verify(Opset17("(float[2] x) => (float[2] y)", "y = Relu<alpha = 1.0>(x)"));
  EXPECT_THAT(m, HasSubstr("has no attribute 'alpha'"));
}

TEST(SchemaCheckTest, RejectsAttributeOfTheWrongType) {
  std::string m =
      Verify(Opset17("(float[2,3] x) => (float[3,2] y)", "y = Transpose<perm = 1.5>(x)"));
  EXPECT_THAT(m, HasSubstr("perm"));
  EXPECT_THAT(m, HasSubstr("ints"));
}

TEST(SchemaCheckTest, RejectsTypesOutsideTheConstraints) {
  std::string m = Verify(Opset17("(int64[2] x) => (int64[2] y)", "y = Sqrt(x)"));
  EXPECT_THAT(m, HasSubstr("Sqrt-13 input 0 'x' is tensor(int64), but T allows"));
  m = Verify(Opset17("(float[2] x, int64[2] z) => (float[2] y)", "y = Add(x, z)"));
  EXPECT_THAT(m, HasSubstr("input 0 'x' is tensor(float) and input 1 'z' is tensor(int64)"));
  // Untyped intermediates are not judged; Shape's output is int64 whatever its input.
  EXPECT_EQ(Verify(Opset17("(float[2] x) => (int64[1] y)", "s = Relu(x)\n  y = Shape(s)")), "");
}

// Old exporters wrote int64 Constants at opsets 1-8, whose Constant allows only float types;
// ONNX Runtime loads them (it types outputs by the op's inference). A warning, not an error.
TEST(SchemaCheckTest, ToleratesOutputTypesOutsideTheConstraintsWithAWarning) {
  const std::string text =
      "<ir_version: 3, opset_import: [\"\" : 6]>\n"
      "main (float[2,3] x) => (float[3,2] y) {\n"
      "  shape = Constant<value = int64[2] {3, 2}>()\n"
      "  y = Reshape(x, shape)\n"
      "}\n";
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  ASSERT_TRUE(model.ok()) << model.status();
  // The parser leaves Constant outputs untyped; type it as an exporter's value_info does.
  Node* constant = *(*model)->graph().nodes().begin();
  constant->output(0)->set_type(Type::Tensor(ElementType::kInt64, {Dim::Literal(2)}));
  std::vector<std::string> warnings;
  ASSERT_TRUE(VerifyModel(**model, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("(Constant, output 'shape')"));
  EXPECT_THAT(warnings[0], HasSubstr("Constant-1 output 0 'shape' is tensor(int64), but T allows"));
  // The same breach on an input is still refused: ONNX Runtime refuses it too.
  EXPECT_THAT(Verify(Opset17("(int64[2] x) => (int64[2] y)", "y = Sqrt(x)")),
              HasSubstr("is tensor(int64), but T allows"));
  // An output whose type variable an input binds must agree with it.
  EXPECT_THAT(Verify(Opset17("(float[2] x) => (int64[2] y)", "y = Relu(x)")),
              HasSubstr("input 0 'x' is tensor(float) and output 0 'y' is tensor(int64)"));
}

TEST(SchemaCheckTest, RejectsMissingRequiredAttribute) {
  std::string m = Verify(Opset17("(float[2] x) => (float[2] y)", "y = Cast(x)"));
  EXPECT_THAT(m, HasSubstr("requires attribute 'to'"));
}

TEST(SchemaCheckTest, ConstantNeedsExactlyOneValue) {
  EXPECT_EQ(Verify(Opset17("() => (float y)", "y = Constant<value_float = 1.0>()")), "");
  std::string m =
      Verify(Opset17("() => (float y)", "y = Constant<value_float = 1.0, value_int = 2>()"));
  EXPECT_THAT(m, HasSubstr("Constant"));
  EXPECT_THAT(m, HasSubstr("exactly one"));
  m = Verify(Opset17("() => (float y)", "y = Constant()"));
  EXPECT_THAT(m, HasSubstr("exactly one"));
}

TEST(SchemaCheckTest, RejectsOpsUnknownAtTheOpset) {
  std::string m = Verify(Opset17("(float[2] x) => (float[2] y)", "y = NoSuchOp(x)"));
  EXPECT_THAT(m, HasSubstr("NoSuchOp"));
  // Trilu exists from opset 14: a model importing opset 13 cannot use it.
  m = Verify(
      "<ir_version: 8, opset_import: [\"\" : 13]>\nmain (float[2,2] x) => (float[2,2] y) {\n"
      "  y = Trilu(x)\n}\n");
  EXPECT_THAT(m, HasSubstr("Trilu is not defined at opset 13 (it exists from opset 14)"));
}

TEST(SchemaCheckTest, CustomDomainsAreNotChecked) {
  EXPECT_EQ(Verify("<ir_version: 8, opset_import: [\"\" : 17, \"com.example\" : 1]>\n"
                   "main (float[2] x) => (float[2] y) {\n"
                   "  y = com.example.Anything<whatever = 3>(x, x, x)\n}\n"),
            "");
}

TEST(SchemaCheckTest, RejectsUnsupportedVersions) {
  std::string m = Verify(
      "<ir_version: 999, opset_import: [\"\" : 17]>\nmain (float[2] x) => (float[2] y) {\n"
      "  y = Relu(x)\n}\n");
  EXPECT_THAT(m, HasSubstr("ir_version 999 is not supported"));
  // The text format reads a missing (0) ir_version as its default; a binary model keeps it.
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText(Opset17("(float[2] x) => (float[2] y)", "y = Relu(x)"));
  ASSERT_TRUE(model.ok());
  (*model)->ir_version = 0;
  EXPECT_THAT(std::string(VerifyModel(**model).message()),
              HasSubstr("ir_version 0 is not supported"));
  m = Verify(
      "<ir_version: 8, opset_import: [\"\" : 999]>\nmain (float[2] x) => (float[2] y) {\n"
      "  y = Relu(x)\n}\n");
  EXPECT_THAT(m, HasSubstr("999"));
}

TEST(SchemaCheckTest, ChecksOpsetsAfterLibonnxs) {
  auto at = [](int opset, const std::string& signature, const std::string& body) {
    return absl::StrCat("<ir_version: 10, opset_import: [\"\" : ", opset, "]>\nmain ", signature,
                        " {\n", body, "\n}\n");
  };
  EXPECT_EQ(
      Verify(at(21, "(float[2, 3] x, int64[1] a) => (float[2, 1] y)", "y = ReduceMean(x, a)")), "");
  EXPECT_THAT(Verify(at(18, "(float[2, 3] x) => (float[2, 1] y)", "y = ReduceMean<axes = [1]>(x)")),
              HasSubstr("ReduceMean-18 has no attribute 'axes'"));
  EXPECT_EQ(Verify(at(23, "(float[1, 2, 3, 4] q) => (float[1, 2, 3, 4] y)",
                      "y = Attention<is_causal = 1>(q, q, q)")),
            "");
  // ONNX ops of these opsets that Anvil has no definition of are Unimplemented, not unknown.
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText(at(18, "(float[1, 4, 4] x, int64[2] i, int64[2] b) => (float[1, 1, 5, 5] y)",
                        "y = Col2Im(x, i, b)"));
  ASSERT_TRUE(model.ok()) << model.status();
  const absl::Status col2im = VerifyModel(**model);
  EXPECT_EQ(col2im.code(), absl::StatusCode::kUnimplemented) << col2im;
  EXPECT_THAT(std::string(col2im.message()), HasSubstr("Col2Im (ONNX opset 18)"));
  EXPECT_EQ(Verify(at(26, "(float[2] x) => (float[2] y)", "y = Relu(x)")), "");
  // Converters import ai.onnx.ml 5 beside opset 21 even where no ml op is used.
  EXPECT_EQ(Verify("<ir_version: 10, opset_import: [\"\" : 21, \"ai.onnx.ml\" : 5]>\n"
                   "main (float[2] x) => (float[2] y) {\n  y = Relu(x)\n}\n"),
            "");
  EXPECT_THAT(Verify(at(27, "(float[2] x) => (float[2] y)", "y = Relu(x)")),
              HasSubstr("opset 27 of domain 'ai.onnx' is not supported (Anvil reads versions 1 "
                        "to 26)"));
}

TEST(SchemaCheckTest, RejectsBadDeclaredDims) {
  Type negative = Type::Tensor(ElementType::kFloat, {Dim::Literal(-5)});
  absl::Status s = CheckDeclaredType(negative, "value 'x'");
  EXPECT_THAT(std::string(s.message()), HasSubstr("dim 0 is -5"));
  Type huge = Type::Tensor(ElementType::kFloat,
                           {Dim::Literal(int64_t{1} << 40), Dim::Literal(int64_t{1} << 40)});
  s = CheckDeclaredType(huge, "value 'x'");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("value 'x'"));
  Type fine = Type::Tensor(ElementType::kFloat, {Dim::Literal(0), Dim::Literal(int64_t{1} << 62)});
  EXPECT_TRUE(CheckDeclaredType(fine, "value 'x'").ok());
}

}  // namespace
}  // namespace anvil
