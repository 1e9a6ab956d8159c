// Unit tests of the conformance runner's pieces that do not need the suite: the scope rule on
// synthetic models, test-data decoding and binding, the shapes mode's model preparation, dim and
// shape judging, and crash isolation.
#include "tools/conformance/shape_check.h"

#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/onnx_import.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "tools/conformance/runner.h"
#include "tools/conformance/shapes_mode.h"
#include "tools/conformance/test_suite.h"

namespace anvil::conformance {
namespace {

// ---- Scope rule ----

onnx::ValueInfoProto ValueInfo(const std::string& name, int elem_type) {
  onnx::ValueInfoProto info;
  info.set_name(name);
  info.mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  return info;
}

// x -> Relu -> y, float.
onnx::ModelProto ReluModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  *g->add_input() = ValueInfo("x", onnx::TensorProto::FLOAT);
  *g->add_output() = ValueInfo("y", onnx::TensorProto::FLOAT);
  onnx::NodeProto* n = g->add_node();
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  return model;
}

TEST(ScopeTest, PlainTensorModelIsInScope) {
  EXPECT_EQ(OutOfScopeReason(ReluModel()), std::nullopt);
}

// Sequences and optionals run; a map (also as their element) does not.
TEST(ScopeTest, SequenceAndOptionalTypesAreInMapsAreOut) {
  onnx::ModelProto seq = ReluModel();
  seq.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  EXPECT_EQ(OutOfScopeReason(seq), std::nullopt);

  onnx::ModelProto opt = ReluModel();
  onnx::ValueInfoProto* info = opt.mutable_graph()->add_value_info();
  info->set_name("t");
  info->mutable_type()->mutable_optional_type();
  EXPECT_EQ(OutOfScopeReason(opt), std::nullopt);

  onnx::ModelProto seq_of_maps = ReluModel();
  seq_of_maps.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_map_type();
  EXPECT_EQ(OutOfScopeReason(seq_of_maps), "map type of 'y'");

  onnx::ModelProto map = ReluModel();
  map.mutable_graph()->mutable_input(0)->mutable_type()->mutable_map_type();
  EXPECT_EQ(OutOfScopeReason(map), "map type of 'x'");
}

// String tensors run (Cast, StringNormalizer, Constant, Identity): in scope wherever they are.
TEST(ScopeTest, StringTensorsAreIn) {
  onnx::ModelProto io = ReluModel();
  io.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::STRING);
  EXPECT_EQ(OutOfScopeReason(io), std::nullopt);

  onnx::ModelProto value_strings = ReluModel();
  onnx::NodeProto* vs = value_strings.mutable_graph()->add_node();
  vs->set_op_type("Constant");
  vs->add_output("k");
  onnx::AttributeProto* s = vs->add_attribute();
  s->set_name("value_strings");
  s->set_type(onnx::AttributeProto::STRINGS);
  s->add_strings("a");
  EXPECT_EQ(OutOfScopeReason(value_strings), std::nullopt);
}

TEST(ScopeTest, GradientAndUnknownTrainingOpsAreOut) {
  for (const char* op : {"SequenceAt", "SplitToSequence", "OptionalHasElement"}) {
    onnx::ModelProto m = ReluModel();
    m.mutable_graph()->mutable_node(0)->set_op_type(op);
    EXPECT_EQ(OutOfScopeReason(m), std::nullopt) << op;
  }
  onnx::ModelProto gradient = ReluModel();
  gradient.mutable_graph()->mutable_node(0)->set_op_type("Gradient");
  EXPECT_EQ(OutOfScopeReason(gradient), "training op Gradient");
  // The optimizer updates run.
  for (const char* op : {"Adagrad", "Adam", "Momentum"}) {
    onnx::ModelProto m = ReluModel();
    m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx.preview.training");
    m.mutable_graph()->mutable_node(0)->set_op_type(op);
    EXPECT_EQ(OutOfScopeReason(m), std::nullopt) << op;
  }
  onnx::ModelProto training = ReluModel();
  training.mutable_graph()->mutable_node(0)->set_domain("ai.onnx.preview.training");
  training.mutable_graph()->mutable_node(0)->set_op_type("Anything");
  EXPECT_TRUE(OutOfScopeReason(training).has_value());
}

TEST(ScopeTest, SubgraphsAreSearched) {
  onnx::ModelProto m = ReluModel();
  onnx::NodeProto* if_node = m.mutable_graph()->add_node();
  if_node->set_op_type("If");
  onnx::AttributeProto* branch = if_node->add_attribute();
  branch->set_name("then_branch");
  branch->set_type(onnx::AttributeProto::GRAPH);
  branch->mutable_g()->add_node()->set_op_type("Gradient");
  EXPECT_EQ(OutOfScopeReason(m), "training op Gradient");
  EXPECT_EQ(ModelOpTypes(m), (std::vector<std::string>{"Gradient", "If", "Relu"}));
}

// ---- Test data ----

TEST(TestDataTest, DecodesIntegerTensorsFromEveryStorageForm) {
  onnx::TensorProto raw;
  raw.set_data_type(onnx::TensorProto::INT64);
  raw.add_dims(2);
  const int64_t values[] = {7, -3};
  raw.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  auto e = IntegerTensorToElements(raw);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->GetInt64(0), 7);
  EXPECT_EQ((*e)->GetInt64(1), -3);

  onnx::TensorProto i32;
  i32.set_data_type(onnx::TensorProto::INT32);
  i32.add_dims(3);
  for (int v : {1, -2, 3}) i32.add_int32_data(v);
  e = IntegerTensorToElements(i32);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->element_type(), ElementType::kInt32);
  EXPECT_EQ((*e)->GetInt64(1), -2);

  onnx::TensorProto i8;
  i8.set_data_type(onnx::TensorProto::INT8);
  i8.add_int32_data(-5);  // a scalar
  e = IntegerTensorToElements(i8);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->GetInt64(0), -5);

  onnx::TensorProto u64;
  u64.set_data_type(onnx::TensorProto::UINT64);
  u64.add_dims(1);
  u64.add_uint64_data(42);
  e = IntegerTensorToElements(u64);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)->GetInt64(0), 42);

  onnx::TensorProto wrong_size = raw;
  wrong_size.set_dims(0, 3);
  EXPECT_FALSE(IntegerTensorToElements(wrong_size).ok());
  onnx::TensorProto floats;
  floats.set_data_type(onnx::TensorProto::FLOAT);
  EXPECT_FALSE(IntegerTensorToElements(floats).ok());
}

onnx::TensorProto FloatInput(const std::string& name, std::vector<int64_t> dims) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t.add_dims(d);
    n *= d;
  }
  for (int64_t i = 0; i < n; ++i) t.add_float_data(0);
  return t;
}

onnx::TensorProto Int64Input(const std::string& name, std::vector<int64_t> values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

// data (float), shape (int64) -> Reshape -> out; with a stated output shape and a value_info that
// must not survive preparation.
onnx::ModelProto ReshapeModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  *g->add_input() = ValueInfo("data.in", onnx::TensorProto::FLOAT);
  *g->add_input() = ValueInfo("shape", onnx::TensorProto::INT64);
  onnx::ValueInfoProto out = ValueInfo("out", onnx::TensorProto::FLOAT);
  out.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(6);
  *g->add_output() = out;
  onnx::ValueInfoProto mid = ValueInfo("mid", onnx::TensorProto::FLOAT);
  mid.mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  *g->add_value_info() = mid;
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->add_input("data.in");
  relu->add_output("mid");
  onnx::NodeProto* reshape = g->add_node();
  reshape->set_op_type("Reshape");
  reshape->add_input("mid");
  reshape->add_input("shape");
  reshape->add_output("out");
  return model;
}

TEST(TestDataTest, BindsByNameThenByPosition) {
  auto model = ImportModelProto(ReshapeModel());
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& g = (*model)->graph();
  // Named, out of order.
  auto bound = BindTestInputs(g, {Int64Input("shape", {6}), FloatInput("data.in", {2, 3})});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)[0]->name(), "shape");
  EXPECT_EQ((*bound)[1]->name(), "data.in");
  // Unnamed: positional.
  bound = BindTestInputs(g, {FloatInput("", {2, 3}), Int64Input("", {6})});
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)[0]->name(), "data.in");
  // Too many inputs.
  EXPECT_FALSE(
      BindTestInputs(g, {FloatInput("", {1}), Int64Input("", {1}), Int64Input("", {1})}).ok());
}

// ---- Shapes mode: model preparation ----

TEST(PrepareShapesModelTest, StaticSetsLiteralInputsAndStripsComputedShapes) {
  auto model = ImportModelProto(ReshapeModel());
  ASSERT_TRUE(model.ok()) << model.status();
  auto symbols =
      PrepareShapesModel(**model, {FloatInput("data.in", {2, 3}), Int64Input("shape", {6})}, {});
  ASSERT_TRUE(symbols.ok()) << symbols.status();
  EXPECT_TRUE(symbols->empty());
  const Graph& g = (*model)->graph();
  EXPECT_EQ(g.FindValue("data.in")->type().ToString(), "float[2,3]");
  EXPECT_EQ(g.FindValue("shape")->type().ToString(), "int64[1]");
  EXPECT_FALSE(g.FindValue("shape")->IsInitializer());
  EXPECT_EQ(g.FindValue("mid")->type().ToString(), "float[]");  // rank unknown
  EXPECT_EQ(g.outputs()[0]->type().ToString(), "float[]");
}

TEST(PrepareShapesModelTest, DynamicWithIntInputsConst) {
  auto model = ImportModelProto(ReshapeModel());
  ASSERT_TRUE(model.ok()) << model.status();
  ShapesOptions options{.dynamic = true, .int_inputs_const = true};
  auto symbols = PrepareShapesModel(
      **model, {FloatInput("data.in", {2, 3}), Int64Input("shape", {6})}, options);
  ASSERT_TRUE(symbols.ok()) << symbols.status();
  EXPECT_EQ(*symbols, (SymbolValues{{"data_in_d0", 2}, {"data_in_d1", 3}}));
  const Graph& g = (*model)->graph();
  EXPECT_EQ(g.FindValue("data.in")->type().ToString(), "float[data_in_d0,data_in_d1]");
  const Value* shape = g.FindValue("shape");
  ASSERT_NE(shape, nullptr);
  ASSERT_TRUE(shape->IsInitializer());
  EXPECT_FALSE(shape->IsGraphInput());  // an input+initializer would be overridable
  EXPECT_EQ(g.inputs().size(), 1);
  EXPECT_EQ(g.FindValue("out")->producer()->input(1), shape);
  EXPECT_EQ(shape->type().ToString(), "int64[1]");  // literal dims even in dynamic mode
  EXPECT_EQ(shape->constant()->GetInt64(0), 6);
}

TEST(PrepareShapesModelTest, SymbolNamesAreIdentifiers) {
  EXPECT_EQ(InputSymbolName("x", 0), "x_d0");
  EXPECT_EQ(InputSymbolName("input:0", 2), "input_0_d2");
  EXPECT_EQ(InputSymbolName("0", 1), "in_0_d1");
  EXPECT_EQ(InputSymbolName("", 0), "in__d0");
}

TEST(ShapesFlagsTest, ParsesAndRejects) {
  auto options = ParseShapesFlags({"--dynamic", "--int-inputs-const"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(ShapesTitle(*options), "shapes (dynamic, int inputs constant)");
  EXPECT_EQ(ShapesTitle({}), "shapes (static)");
  auto bad = ParseShapesFlags({"--dinamic"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown option '--dinamic' for mode shapes");
}

// ---- Dim and shape judging ----

const SymbolValues kSymbols = {{"x_d0", 4}, {"x_d1", 6}};

TEST(CheckDimTest, Literals) {
  EXPECT_EQ(CheckDim(Dim::Literal(4), 4, kSymbols).verdict, Verdict::kPass);
  DimCheck wrong = CheckDim(Dim::Literal(5), 4, kSymbols);
  EXPECT_EQ(wrong.verdict, Verdict::kWrong);
  EXPECT_EQ(wrong.got, "5");
}

TEST(CheckDimTest, ExpressionsOverInputSymbols) {
  EXPECT_EQ(CheckDim(Dim::Param("x_d0"), 4, kSymbols).verdict, Verdict::kPass);
  EXPECT_EQ(CheckDim(Dim::Param("x_d0*x_d1"), 24, kSymbols).verdict, Verdict::kPass);
  EXPECT_EQ(CheckDim(Dim::Param("floor((x_d1 - 1) / 2) + 1"), 3, kSymbols).verdict, Verdict::kPass);
  EXPECT_EQ(CheckDim(Dim::Param("min(x_d0, x_d1)"), 4, kSymbols).verdict, Verdict::kPass);
  DimCheck wrong = CheckDim(Dim::Param("x_d0 + 1"), 4, kSymbols);
  EXPECT_EQ(wrong.verdict, Verdict::kWrong);
  EXPECT_EQ(wrong.got, "x_d0 + 1 = 5");
  // A literal written as a param.
  EXPECT_EQ(CheckDim(Dim::Param("4"), 4, kSymbols).verdict, Verdict::kPass);
}

TEST(CheckDimTest, UnknownDims) {
  EXPECT_EQ(CheckDim(Dim::Unknown(), 4, kSymbols).verdict, Verdict::kUnknown);
  EXPECT_EQ(CheckDim(Dim::Param("?"), 4, kSymbols).verdict, Verdict::kUnknown);
  EXPECT_EQ(CheckDim(Dim::Param("unk__3"), 4, kSymbols).verdict, Verdict::kUnknown);
  // A fresh symbol mixed with input symbols is still not determined by the inputs.
  EXPECT_EQ(CheckDim(Dim::Param("x_d0 + nz_0"), 4, kSymbols).verdict, Verdict::kUnknown);
  // In static mode there are no input symbols at all.
  EXPECT_EQ(CheckDim(Dim::Param("x_d0"), 4, {}).verdict, Verdict::kUnknown);
}

TEST(CheckDimTest, UndefinedIsWrong) {
  EXPECT_EQ(CheckDim(Dim::Param("<undefined: division by zero>"), 4, kSymbols).verdict,
            Verdict::kWrong);
}

TEST(CheckShapeTest, Verdicts) {
  Type ok = Type::Tensor(ElementType::kFloat, {Dim::Param("x_d0"), Dim::Literal(6)});
  TestResult r = CheckShape("y", ok, {4, 6}, kSymbols);
  EXPECT_EQ(r.verdict, Verdict::kPass);
  EXPECT_EQ(r.detail, "");

  Type mixed = Type::Tensor(ElementType::kFloat, {Dim::Param("?"), Dim::Param("x_d1 - 1")});
  r = CheckShape("y", mixed, {4, 6}, kSymbols);
  EXPECT_EQ(r.verdict, Verdict::kWrong);  // wrong beats unknown
  EXPECT_EQ(r.detail, "output 'y': dim 0 is ?; dim 1 is x_d1 - 1 = 5, expected 6");

  Type unknown = Type::Tensor(ElementType::kFloat, {Dim::Unknown(), Dim::Literal(6)});
  EXPECT_EQ(CheckShape("y", unknown, {4, 6}, kSymbols).verdict, Verdict::kUnknown);

  EXPECT_EQ(CheckShape("y", Type::Tensor(ElementType::kFloat), {4}, kSymbols).verdict,
            Verdict::kUnknown);  // rank unknown
  EXPECT_EQ(CheckShape("y", Type(), {4}, kSymbols).verdict, Verdict::kUnknown);

  Type rank = Type::Tensor(ElementType::kFloat, {Dim::Literal(4)});
  r = CheckShape("y", rank, {4, 6}, kSymbols);
  EXPECT_EQ(r.verdict, Verdict::kWrong);
  EXPECT_EQ(r.detail, "output 'y': rank 1 float[4], expected 2 [4,6]");

  // A scalar.
  EXPECT_EQ(CheckShape("s", Type::Tensor(ElementType::kFloat, {}), {}, kSymbols).verdict,
            Verdict::kPass);
}

TEST(IsDeterminedTypeTest, LiteralsAndInputExpressionsOnly) {
  EXPECT_TRUE(IsDeterminedType(
      Type::Tensor(ElementType::kFloat, {Dim::Literal(2), Dim::Param("x_d0 + 1")}), kSymbols));
  EXPECT_TRUE(IsDeterminedType(Type::Tensor(ElementType::kFloat, {}), kSymbols));
  EXPECT_FALSE(IsDeterminedType(Type::Tensor(ElementType::kFloat, {Dim::Param("?")}), kSymbols));
  EXPECT_FALSE(IsDeterminedType(Type::Tensor(ElementType::kFloat, {Dim::Unknown()}), kSymbols));
  EXPECT_FALSE(IsDeterminedType(Type::Tensor(ElementType::kFloat, {Dim::Param("nz")}), kSymbols));
  EXPECT_FALSE(IsDeterminedType(Type::Tensor(ElementType::kFloat), kSymbols));
  EXPECT_FALSE(IsDeterminedType(Type(), kSymbols));
}

// ---- Isolation ----

TEST(RunIsolatedTest, PassesResultsAndSurvivesCrashes) {
  TestResult r = RunIsolated([] { return TestResult{Verdict::kWrong, "dim 0"}; }, 10);
  EXPECT_EQ(r.verdict, Verdict::kWrong);
  EXPECT_EQ(r.detail, "dim 0");
  EXPECT_TRUE(r.ops.empty());

  r = RunIsolated(
      [] {
        return TestResult{Verdict::kUnknown, "a\nb", {"Range", "ai.onnx.ml.X"}};
      },
      10);
  EXPECT_EQ(r.verdict, Verdict::kUnknown);
  EXPECT_EQ(r.detail, "a\nb");
  EXPECT_EQ(r.ops, (std::vector<std::string>{"Range", "ai.onnx.ml.X"}));

  r = RunIsolated(
      []() -> TestResult {
        std::raise(SIGSEGV);
        return {};
      },
      10);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.detail.find("crashed: signal"), std::string::npos) << r.detail;

  r = RunIsolated(
      []() -> TestResult {
        volatile int64_t spin = 0;  // volatile: an empty infinite loop could be optimized away
        for (;;) spin = spin + 1;
      },
      1);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_EQ(r.detail, "timed out after 1 s");
}

// Tests forked several at a time report exactly what one at a time reports, in the same order,
// whichever finishes first (some sleep, some crash).
TEST(RunSuiteTest, JobsDoNotChangeTheOutput) {
  const TestFn fn = [](const TestCase& test, const onnx::ModelProto&) -> TestResult {
    const size_t h = std::hash<std::string>()(test.name);
    if (h % 3 == 0) usleep(20000);
    switch (h % 5) {
      case 0:
        return {Verdict::kWrong, absl::StrCat(test.name, " is wrong\non two lines")};
      case 1:
        std::raise(SIGSEGV);
        return {};
      case 2:
        return {Verdict::kUnknown, "?", {"Abs"}};
      default:
        return {Verdict::kPass, "", {}, "tag"};
    }
  };
  auto run = [&](int jobs) {
    RunnerOptions options;
    options.filter = "^node/test_a";
    options.verbose = true;
    options.jobs = jobs;
    std::ostringstream out, err;
    EXPECT_EQ(RunSuite("fake", options, fn, out, err), 0) << err.str();
    // Without the line that times the run.
    std::string kept;
    for (absl::string_view line : absl::StrSplit(out.str(), '\n')) {
      if (!absl::StartsWith(line, "time: ")) absl::StrAppend(&kept, line, "\n");
    }
    return kept;
  };
  const std::string one = run(1);
  EXPECT_NE(one.find("WRONG node/test_a"), std::string::npos) << one;
  EXPECT_NE(one.find("crashed: signal"), std::string::npos) << one;
  EXPECT_EQ(run(3), one);
}

}  // namespace
}  // namespace anvil::conformance
