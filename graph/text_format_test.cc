#include "graph/text_format.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/limits.h"
#include "graph/onnx_export.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

std::unique_ptr<Model> ParseOrDie(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status() << "\n" << text;
  return model.ok() ? *std::move(model) : nullptr;
}

PrintOptions Full(std::vector<std::string>* losses = nullptr) {
  PrintOptions options;
  options.full_constants = true;
  options.losses = losses;
  return options;
}

std::string Serialized(const Model& model) {
  onnx::ModelProto proto;
  const absl::Status status = ExportModelProto(model, &proto);
  EXPECT_TRUE(status.ok()) << status;
  std::string bytes;
  proto.SerializeToString(&bytes);
  return bytes;
}

// Hand-written models covering the syntax; each must print and parse back to
// itself.
struct RoundTripCase {
  const char* name;
  const char* text;
};

const RoundTripCase kRoundTripCases[] = {
    {"HeaderAndAttributesOfEveryKind", R"(
<
  ir_version: 8,
  opset_import: ["" : 17, "com.microsoft" : 1],
  producer_name: "anvil-test",
  producer_version: "1.0",
  domain: "ai.anvil.test",
  model_version: 7,
  doc_string: "attributes of every kind",
  metadata_props: ["author" : "anvil", "license" : "Apache-2.0"]
>
attrs (float[N,3] x) => (float[N,3] y, float[3] c) {
  a = com.microsoft.CustomOp <i = -3, f = 0.5, big = 9223372036854775807,
                              tiny = 1.17549435e-38, s = "text with # and spaces",
                              ints = [1, -2, 3], floats = [0.1, -2.5, 1e10],
                              strings = ["a", "", "c d"], t = float[2] {1.0, 2.0},
                              named = int64[2] weights {7, -8}, scalar = float {3.0},
                              empty = float[0] {}> (x)
  c = Constant <value = float[3] {0.25, -0.0, 3.4028235e38}> ()
  y = Add (a, c)
}
)"},
    {"SubgraphsCapturingOuterValues", R"(
<ir_version: 8, opset_import: ["" : 17]>
control (bool cond, float[N] x, int64 trip) => (float[N] r, float[?,N] scanned) {
  outer = Neg (x)
  r = If <then_branch = then_g () => (float[N] t) {
      t = Add (outer, x)
    }, else_branch = else_g () => (float[N] e) <float[1] k = {2.0}> {
      e = Mul (outer, k)
    }> (cond)
  final, scanned = Loop <body = body_g (int64 i, bool c_in, float[N] acc_in)
                                 => (bool c_out, float[N] acc_out, float[N] item) {
      c_out = Identity (cond)
      acc_out = Add (acc_in, outer)
      item = If <then_branch = inner_then () => (float[N] it) {
          it = Identity (acc_out)
        }, else_branch = inner_else () => (float[N] ie) {
          ie = Neg (x)
        }> (c_in)
    }> (trip, , x)
}
)"},
    {"InitializersValueInfoAndTypes", R"(
<ir_version: 8, opset_import: ["" : 17]>
data (float[batch,?,4] x, float[] unranked, float scalar, int64[2] shape = {4, -1}, untyped)
    => (float[batch,?,4] y, z, float[?] m_out)
<
  float[4] bias = {0.5, 0.25, 0.125, 1.0},
  int32[2,2] i32 = {1, -2, 3, -4},
  bool[3] flags = {1, 0, 1},
  uint8[2] bytes = {0, 255},
  int8[2] sbytes = {-128, 127},
  uint16[1] u16 = {65535},
  int16[1] i16 = {-32768},
  uint32[1] u32 = {4294967295},
  uint64[2] u64 = {0, 18446744073709551615},
  int64[1] i64 = {-9223372036854775808},
  double[2] d = {0.1, -1e-300},
  string[2] names = {"alpha", "beta gamma"},
  float pi = {3.14159274},
  float[0] nothing = {},
  float[batch,?,4] t,
  float[N] names_no_value
>
{
  t = Add (x, bias)
  y = Relu (t)
  z = Identity (untyped)
  m_out = Foo (shape, unranked, scalar)
}
)"},
    {"OmittedOptionalSlotsAndDomains", R"(
<ir_version: 8, opset_import: ["" : 17, "ai.onnx.ml" : 3, "com.example.deep" : 2]>
slots (float[N,8] x, float[4] scales) => (float[N,8] y, float[N,8] r, float[N,8] c) {
  r = Resize <mode = "linear"> (x, , scales)
  y, = Dropout (x, , )
  a, , c = com.example.deep.Split3 (x)
  n = ai.onnx.ml.Normalizer <norm = "L2"> (a)
  = com.example.deep.Sink (n)
}
)"},
};

class RoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(RoundTripTest, PrintParsePrintIsAFixedPoint) {
  std::unique_ptr<Model> parsed = ParseOrDie(GetParam().text);
  ASSERT_NE(parsed, nullptr);
  std::vector<std::string> losses;
  const std::string printed = PrintModel(*parsed, Full(&losses));
  EXPECT_THAT(losses, IsEmpty()) << printed;
  std::unique_ptr<Model> reparsed = ParseOrDie(printed);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(PrintModel(*reparsed, Full()), printed);
  // Text kept everything: the models agree as binary ONNX too.
  EXPECT_EQ(Serialized(*reparsed), Serialized(*parsed)) << printed;
}

INSTANTIATE_TEST_SUITE_P(Models, RoundTripTest, ::testing::ValuesIn(kRoundTripCases),
                         [](const ::testing::TestParamInfo<RoundTripCase>& info) {
                           return std::string(info.param.name);
                         });

TEST(PrintModelTest, ExactSyntax) {
  std::unique_ptr<Model> model = ParseOrDie(R"(
<ir_version: 8, opset_import: ["" : 17], producer_name: "p">
main (float[N,2] x, float[2] w = {1.0, 2.5}) => (float[N,2] y, float s)
<float[2] b = {0.5, -1.0}, float[N,2] t>
{
  t = Add(x, w)
  y, = Dropout (t, , )
  s = ReduceSum <keepdims = 0, note = "n"> (y, )
})");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(PrintModel(*model), R"(<
  ir_version: 8,
  opset_import: ["" : 17],
  producer_name: "p"
>
main (float[N,2] x, float[2] w = {1.0, 2.5}) => (float[N,2] y, float s)
<
  float[2] b = {0.5, -1.0},
  float[N,2] t
>
{
  t = Add (x, w)
  y, = Dropout (t, ,)
  s = ReduceSum <keepdims = 0, note = "n"> (y,)
}
)");
}

TEST(PrintModelTest, SubgraphLayout) {
  std::unique_ptr<Model> model = ParseOrDie(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float x) => (float y) {
  y = If <then_branch = a () => (float t) { t = Neg(x) }, else_branch = b () => (x) {}> (c)
})");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(PrintModel(*model), R"(<
  ir_version: 8,
  opset_import: ["" : 17]
>
g (bool c, float x) => (float y) {
  y = If <
    then_branch = a () => (float t) {
      t = Neg (x)
    },
    else_branch = b () => (float x) {
    }
  > (c)
}
)");
}

TEST(ParseModelTextTest, HeaderDefaults) {
  std::unique_ptr<Model> model = ParseOrDie("g (float x) => (float y) { y = Neg(x) }");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->ir_version, 8);
  EXPECT_THAT(model->opset_imports, ElementsAre(OpsetImport{"", 17}));
  EXPECT_EQ(model->graph().name(), "g");
  EXPECT_EQ(model->graph().num_nodes(), 1u);
}

TEST(ParseModelTextTest, SyntaxErrorIsOneLineInvalidArgument) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float x) => (float y) {
  y = Neg(x
})");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(model.status().message());
  EXPECT_THAT(message, HasSubstr("line 5, column 1"));
  EXPECT_THAT(message, HasSubstr("Expected character ) not found"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ParseModelTextTest, UndefinedNameIsAnImportError) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText("g (float x) => (float y) { y = Neg(nope) }");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(std::string(model.status().message()), HasSubstr("nope"));
}

TEST(ParseModelTextTest, OutOfRangeNumberIsAnErrorNotACrash) {
  // std::stof inside the 1.12 parser throws on subnormals.
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText("g (float[1] x = {1e-45}) => (x) {}");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(model.status().message()), HasSubstr("out of range"));
}

TEST(TextFormatTest, FloatsKeepTheirBits) {
  const std::vector<float> values = {0.1f,
                                     1.0f / 3.0f,
                                     -0.0f,
                                     16777216.0f,
                                     1e-7f,
                                     123456.789f,
                                     std::nextafter(1.0f, 2.0f),
                                     std::numeric_limits<float>::min(),
                                     std::numeric_limits<float>::max(),
                                     -std::numeric_limits<float>::max()};
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  g.set_name("floats");
  Value* c = g.AddInitializer(
      "c", DenseElements::FromVector<float>(ElementType::kFloat,
                                            {static_cast<int64_t>(values.size())}, values));
  Node* n = g.AddNode("LeakyRelu");
  n->AddInput(c);
  n->SetAttribute(Attribute::Float("alpha", 1.0f / 3.0f));
  n->SetAttribute(Attribute::Floats("many", values));
  g.AddOutput(n->AddOutput("y"));

  std::vector<std::string> losses;
  const std::string text = PrintModel(model, Full(&losses));
  EXPECT_THAT(losses, IsEmpty());
  std::unique_ptr<Model> parsed = ParseOrDie(text);
  ASSERT_NE(parsed, nullptr);
  const Value* c2 = parsed->graph().FindValue("c");
  ASSERT_NE(c2, nullptr);
  ASSERT_TRUE(c2->IsInitializer());
  EXPECT_TRUE(c2->constant()->Equals(*c->constant())) << text;
  const Node* n2 = *parsed->graph().nodes().begin();
  const Attribute* alpha = n2->FindAttribute("alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->type(),
            AttributeType::kFloat);  // "0.333333343", not an int literal
  EXPECT_TRUE(alpha->Equals(*n->FindAttribute("alpha")));
  EXPECT_TRUE(n2->FindAttribute("many")->Equals(*n->FindAttribute("many")));
  // Whole numbers still read as floats.
  EXPECT_THAT(text, HasSubstr("16777216.0"));
}

TEST(TextFormatTest, LargeConstantsAreElidedUnlessFull) {
  std::vector<float> values(40);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i);
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  Value* w =
      g.AddInitializer("w", DenseElements::FromVector<float>(ElementType::kFloat, {4, 10}, values));
  Node* k = g.AddNode("Constant");
  k->SetAttribute(Attribute::Tensor(
      "value", DenseElements::FromVector<float>(ElementType::kFloat, {40}, values)));
  Node* add = g.AddNode("Add");
  add->AddInput(w);
  add->AddInput(k->AddOutput("k"));
  g.AddOutput(add->AddOutput("y"));

  const std::string elided = PrintModel(model);
  EXPECT_THAT(elided,
              HasSubstr("float[4,10] w  # anvil-elided 40 values: 0.0, 0.5, 1.0, 1.5, ..."));
  EXPECT_THAT(elided, HasSubstr("value = float[40]  # anvil-elided 40 values"));
  EXPECT_THAT(elided, Not(HasSubstr("19.5")));
  absl::StatusOr<std::unique_ptr<Model>> from_elided = ParseModelText(elided);
  ASSERT_FALSE(from_elided.ok());
  EXPECT_THAT(std::string(from_elided.status().message()), HasSubstr("full_constants"));

  PrintOptions small;
  small.max_elements = 50;
  EXPECT_THAT(PrintModel(model, small), Not(HasSubstr("anvil-elided")));

  const std::string full = PrintModel(model, Full());
  EXPECT_THAT(full, HasSubstr("19.5"));
  std::unique_ptr<Model> parsed = ParseOrDie(full);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(Serialized(*parsed), Serialized(model));
}

TEST(TextFormatTest, NonIdentifierNamesAreMangledUniquely) {
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  g.set_name("main graph");
  Value* x = g.AddInput("input.1", Type::Tensor(ElementType::kFloat, {Dim::Param("batch size")}));
  Value* taken = g.AddInput("onnx__Relu_1", Type::Tensor(ElementType::kFloat, {}));
  Node* relu = g.AddNode("Relu");
  relu->set_name("/layer/Relu");
  relu->AddInput(x);
  Value* r = relu->AddOutput("onnx::Relu_1");  // sanitizes to a name already in use
  Node* neg = g.AddNode("Neg");
  neg->AddInput(r);
  Value* f = neg->AddOutput("float");  // a type keyword
  Node* add = g.AddNode("Add");
  add->AddInput(f);
  add->AddInput(taken);
  g.AddOutput(add->AddOutput("0"));

  std::vector<std::string> losses;
  const std::string text = PrintModel(model, Full(&losses));
  // "batch size" is a dim expression's alphabet: printed verbatim, read back unchanged.
  EXPECT_THAT(text, HasSubstr("main_graph (float[batch size] input_1, float onnx__Relu_1)"));
  EXPECT_THAT(text, HasSubstr("onnx__Relu_1_1 = Relu (input_1)  # /layer/Relu"));
  EXPECT_THAT(text, HasSubstr("float_ = Neg (onnx__Relu_1_1)"));
  EXPECT_THAT(text, HasSubstr("_0 = Add (float_, onnx__Relu_1)"));
  EXPECT_THAT(losses, UnorderedElementsAre(HasSubstr("graph names"), HasSubstr("not identifiers"),
                                           HasSubstr("node names")));
  std::unique_ptr<Model> parsed = ParseOrDie(text);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ(parsed->graph().num_nodes(), 3u);
}

TEST(TextFormatTest, LeadingOmittedOutputGetsAnUnusedName) {
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  Value* x = g.AddInput("x", Type::Tensor(ElementType::kFloat, {Dim::Literal(2)}));
  Node* lstm = g.AddNode("Split");
  lstm->AddInput(x);
  lstm->AddOutput("");
  Value* second = lstm->AddOutput("second");
  g.AddOutput(second);

  std::vector<std::string> losses;
  const std::string text = PrintModel(model, Full(&losses));
  EXPECT_THAT(text, HasSubstr("_unused, second = Split (x)"));
  EXPECT_THAT(losses, ElementsAre(HasSubstr("leading omitted outputs")));
  std::unique_ptr<Model> parsed = ParseOrDie(text);
  ASSERT_NE(parsed, nullptr);
  EXPECT_EQ((*parsed->graph().nodes().begin())->num_outputs(), 2);
}

// Sequence, optional, map and sparse types parse in value lists (the 1.12 parser reads them only
// as standalone types): a model with them round-trips through text, expression dims inside
// included, and an operator call spelled like a type keyword stays a call.
TEST(TextFormatTest, NonTensorTypesRoundTrip) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (seq(float[N, 2 * N]) s, int64 k, optional(seq(int64)) o, map(int64, float) m)
    => (optional(float[3]) y) {
  t = SequenceAt (s, k)
  y = Optional (t)
}
)";
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& g = (*model)->graph();
  EXPECT_EQ(g.inputs()[0]->type().ToString(), "seq(float[N,2 * N])");
  EXPECT_EQ(g.inputs()[2]->type().ToString(), "optional(seq(int64))");
  EXPECT_EQ(g.inputs()[3]->type().kind(), Type::Kind::kOther);
  EXPECT_EQ(g.outputs()[0]->type().ToString(), "optional(float[3])");
  std::vector<std::string> losses;
  const std::string text = PrintModel(**model, Full(&losses));
  EXPECT_THAT(losses, ElementsAre());
  absl::StatusOr<std::unique_ptr<Model>> again = ParseModelText(text);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  EXPECT_EQ(PrintModel(**again, Full(nullptr)), text);
}

TEST(TextFormatTest, UnparseableContentIsReportedAsLoss) {
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  Value* x = g.AddInput("x", Type::Tensor(ElementType::kFloat, {}));
  onnx::TypeProto seq;
  seq.mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  Value* s = g.AddInput("s", Type::Other(seq.SerializeAsString()));
  const std::vector<uint16_t> half_bits = {0x3c00, 0xc100};  // 1.0, -2.5
  Value* h = g.AddInitializer(
      "h", DenseElements::FromVector<uint16_t>(ElementType::kFloat16, {2}, half_bits));
  Node* n = g.AddNode("Clip");
  n->AddInput(x);
  n->AddInput(s);
  n->AddInput(h);
  n->SetAttribute(Attribute::Float("max", std::numeric_limits<float>::infinity()));
  n->SetAttribute(Attribute::Ints("axes", {}));
  g.AddOutput(n->AddOutput("y"));

  std::vector<std::string> losses;
  const std::string text = PrintModel(model, Full(&losses));
  // Printed the way newer ONNX spells them, so a reader still sees what is
  // there.
  EXPECT_THAT(text, HasSubstr("(float x, seq(float[]) s)"));
  EXPECT_THAT(text, HasSubstr("float16[2] h = {1.0, -2.5}"));
  EXPECT_THAT(text, HasSubstr("max = inf"));
  EXPECT_THAT(text, HasSubstr("axes: ints = []"));
  EXPECT_THAT(losses, UnorderedElementsAre(HasSubstr("float16/bfloat16/complex"),
                                           HasSubstr("inf, NaN"), HasSubstr("empty list")));
  EXPECT_FALSE(ParseModelText(text).ok());
}

TEST(TextFormatTest, PrintGraphAndPrintNode) {
  std::unique_ptr<Model> model = ParseOrDie(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float x) => (float y) {
  y = If <then_branch = a () => (float t) { t = Neg(x) }, else_branch = b () => (x) {}> (c)
})");
  ASSERT_NE(model, nullptr);
  const Node* if_node = *model->graph().nodes().begin();
  const Graph& then_branch = *if_node->FindAttribute("then_branch")->graphs[0];
  EXPECT_EQ(PrintGraph(then_branch), "a () => (float t) {\n  t = Neg (x)\n}\n");
  EXPECT_EQ(PrintNode(**then_branch.nodes().begin()), "t = Neg (x)");
}

TEST(TextFormatTest, ExpressionDimsRoundTrip) {
  constexpr char kText[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, H] x) => (float[N, floor((H - 1) / 2) + 1] y)
<float[min(N, 4), 2*N*M + 1] t>
{
  t = Identity (x)
  y = Identity (t)
}
)";
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kText);
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& g = (*model)->graph();
  ASSERT_EQ(g.outputs()[0]->type().shape().size(), 2u);
  EXPECT_EQ(g.outputs()[0]->type().shape()[1].param, "floor((H - 1) / 2) + 1");
  ASSERT_EQ(g.value_info().size(), 1u);
  EXPECT_EQ(g.value_info()[0]->type().shape()[0].param, "min(N, 4)");
  EXPECT_EQ(g.value_info()[0]->type().shape()[1].param, "2*N*M + 1");
  std::vector<std::string> losses;
  PrintOptions options;
  options.losses = &losses;
  const std::string printed = PrintModel(**model, options);
  EXPECT_NE(printed.find("floor((H - 1) / 2) + 1"), std::string::npos) << printed;
  EXPECT_TRUE(losses.empty());
  absl::StatusOr<std::unique_ptr<Model>> again = ParseModelText(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModel(**again), printed);
}

// The ONNX parser recurses without a limit: text nested deeper than import accepts is refused
// before it runs (5000 levels overflowed the stack), naming the line.
TEST(TextFormatTest, NestingDeeperThanTheLimitIsRefusedBeforeParsing) {
  auto nested = [](int depth) {
    std::string text = "<ir_version: 8, opset_import: [\"\" : 17]>\n";
    text += "main (bool c, float[2] x) => (float[2] y) {\n";
    for (int k = 0; k < depth; ++k) {
      absl::StrAppend(&text, "y = If <then_branch = g", k, " () => (float[2] y) {\n");
    }
    text += "y = Identity (x)\n";
    for (int k = depth - 1; k >= 0; --k) {
      absl::StrAppend(&text, "}, else_branch = e", k,
                      " () => (float[2] z) { z = Identity (x) }> (c)\n");
    }
    return text + "}\n";
  };
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(nested(5000));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            "ONNX text: line 104: subgraphs nested deeper than 100 levels");
  // Within the brace bound, the import's exact check (as for binary models) decides.
  model = ParseModelText(nested(kMaxSubgraphDepth + 1));
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("subgraphs nested deeper than 100 levels"));
  model = ParseModelText(nested(kMaxSubgraphDepth));
  EXPECT_TRUE(model.ok()) << model.status();

  // Types nest through parentheses: bounded too.
  std::string type;
  for (int k = 0; k < 300; ++k) type += "seq(";
  type += "float";
  for (int k = 0; k < 300; ++k) type += ")";
  model = ParseModelText("main (" + type + " x) => (" + type + " y) { y = Identity (x) }\n");
  ASSERT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(), HasSubstr("brackets nested deeper than 200 levels"));
}

// Text import sorts as binary import does, with the same warning.
TEST(TextFormatTest, UnsortedTextIsSortedWithAWarning) {
  std::vector<std::string> warnings;
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(
      "main (float[2] x) => (float[2] y) {\n  y = Relu (t)\n  t = Neg (x)\n}\n", &warnings);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*(*model)->graph().nodes().begin())->op_type(), "Neg");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("graph 'main' is not in topological order"));
  EXPECT_FALSE(ParseModelText("main (float[2] x) => (float[2] y) {\n  y = Relu (y)\n}\n").ok());
}

}  // namespace
}  // namespace anvil
