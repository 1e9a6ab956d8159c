// OpTest: one node of an op in a fresh model, its inputs described as the analysis builder would
// see them (TensorInfo, optionally a constant payload), inferred with InferNodeShapes through a
// FakeBuilder. What every ShapeHelper unit test needs; test-only.
//
//   EXPECT_EQ(OpTest("Conv").In(T(kF32, {S("N"), 3, 8, 8})).In(T(kF32, {16, 3, 3, 3})).Text(),
//             "float[N, 16, 6, 6]");
//   EXPECT_THAT(OpTest("Reshape").In(...).Error(), HasSubstr("node 'n'"));
#ifndef ANVIL_SHAPE_TESTING_OP_TEST_H_
#define ANVIL_SHAPE_TESTING_OP_TEST_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "gtest/gtest.h"
#include "shape/index_expr.h"
#include "shape/tensor_info.h"

namespace anvil::shape_testing {

// One input: what the builder knows about it (nullopt: an omitted optional input) and, for a
// constant, its payload.
struct Arg {
  Arg(TensorInfo info) : info(std::move(info)) {}  // NOLINT: a TensorInfo is an Arg
  Arg(std::optional<TensorInfo> info, std::shared_ptr<const Elements> constant)
      : info(std::move(info)), constant(std::move(constant)) {}
  std::optional<TensorInfo> info;
  std::shared_ptr<const Elements> constant;
};

class OpTest {
 public:
  // `opset` is the version of the op's `domain` ("" is ai.onnx).
  explicit OpTest(std::string op_type, int64_t opset = 17, std::string domain = "");

  OpTest& In(Arg arg);
  OpTest& NoInput();
  // A constant input of `type` holding `data`; for int32/int64 its contents are also given as
  // values (unless `values` is false), as the analysis builder reports small integer constants.
  template <typename T>
  OpTest& Const(ElementType type, std::vector<int64_t> dims, const std::vector<T>& data,
                bool values = true) {
    TensorInfo info{type, DimsExpr(dims.begin(), dims.end()), {}};
    if (values && (type == ElementType::kInt64 || type == ElementType::kInt32)) {
      info.values.emplace();
      for (T v : data) info.values->push_back(static_cast<int64_t>(v));
    }
    return In(Arg(std::move(info), DenseElements::FromVector(type, std::move(dims), data)));
  }
  OpTest& Attr(Attribute attr);
  // The node's name (default "n"), which errors must quote.
  OpTest& Name(std::string name);
  // The node's output slots: `n` of them, or by name ("" is an omitted optional output).
  // Default: one.
  OpTest& Outputs(int n);
  OpTest& Outputs(std::vector<std::string> names);

  // Infers the node's outputs (again, when called again).
  absl::Status Run();
  // Output `i`, running once first if nothing ran yet (expecting success).
  TensorInfo Info(int i = 0);
  // Info(i) printed: "float[N, 3]", "int64[]" (a scalar), "float[unknown rank]".
  std::string Text(int i = 0);
  // Output `i` as the next node's input.
  Arg Next(int i = 0) { return Info(i); }
  // Runs and returns the error message, expecting InvalidArgument.
  std::string Error();

 private:
  std::string op_type_;
  int64_t opset_;
  std::string domain_;
  std::string name_ = "n";
  std::vector<std::optional<TensorInfo>> inputs_;
  std::map<int, std::shared_ptr<const Elements>> constants_;
  std::vector<Attribute> attrs_;
  std::vector<std::string> output_names_ = {"y0"};
  std::vector<TensorInfo> outputs_;
  bool ran_ = false;
};

// The fixture of ShapeHelper tests (`using ConvTest = ContextTest;`, then TEST_F): each test makes
// its symbols and questionmarks in an IndexExprContext of its own, installed for the test's
// duration and freed with it (shape/index_expr.h: nothing makes symbols without one).
class ContextTest : public ::testing::Test {
 private:
  ScopedIndexExprContext context_;
};

inline IndexExpr S(std::string_view name) { return IndexExpr::Symbol(name); }
inline IndexExpr Q() { return IndexExpr::Questionmark(); }
inline TensorInfo T(ElementType type, DimsExpr dims) {
  return TensorInfo{type, std::move(dims), {}};
}
inline TensorInfo UnknownRank(ElementType type) { return TensorInfo{type, std::nullopt, {}}; }

// A TensorInfo printed as OpTest::Text prints outputs.
std::string InfoText(const TensorInfo& info);

// Element-wise equality of dims or values; an expected questionmark matches any questionmark
// (each has its own identity); nullopt (unknown) matches only nullopt.
::testing::AssertionResult SameExprs(const std::optional<IndexExprList>& actual,
                                     const std::optional<IndexExprList>& expected);

}  // namespace anvil::shape_testing

#endif  // ANVIL_SHAPE_TESTING_OP_TEST_H_
