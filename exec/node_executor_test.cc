#include "exec/node_executor.h"

#include <memory>
#include <string>
#include <vector>

#include "exec/interpreter.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::unique_ptr<Model> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Model>> m = ParseModelText(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *std::move(m) : nullptr;
}

Tensor Floats(std::vector<int64_t> dims, std::vector<float> values) {
  Tensor t(ElementType::kFloat, dims);
  std::copy(values.begin(), values.end(), t.As<float>());
  return t;
}

const Node& FirstNode(const Model& m) { return **m.graph().nodes().begin(); }

TEST(NodeExecutorTest, ShapesFromTheShapeHelperWhenNotPlanned) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x) => (float[3,2] y) { y = Transpose (x) })");
  absl::StatusOr<std::vector<Tensor>> out =
      RunNode(FirstNode(*m), 17, {Floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Shape{3, 2}));
  EXPECT_EQ((*out)[0].As<float>()[1], 4);
}

TEST(NodeExecutorTest, PlannedOutputsSkipTheShapeHelper) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x) => (float[2] y) { y = Relu (x) })");
  const Node& node = FirstNode(*m);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(node, 17);
  ASSERT_TRUE(kernel.ok());
  Tensor x = Floats({2}, {-1, 2});
  Tensor y(ElementType::kFloat, {2});
  int made = 0;
  // No ShapeFn at all: the planned buffer is used, nothing else is made.
  absl::Status s =
      ExecuteNode(node, 17, **kernel, /*shape_fn=*/nullptr, {x.view()}, {y.view()},
                  [&](int, ElementType, absl::Span<const int64_t>) -> absl::StatusOr<TensorView> {
                    ++made;
                    return absl::InternalError("not expected");
                  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(made, 0);
  EXPECT_EQ(y.As<float>()[0], 0);
  EXPECT_EQ(y.As<float>()[1], 2);
}

// Resize's output dims come from its scales' contents; a Transpose's only from dims.
TEST(NodeExecutorTest, ReportsWhetherTheShapeHelperReadInputContents) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[1,1,2,2] x, float[4] s) => (float[1,1,4,4] y, float[2,2,1,1] t) {
      y = Resize <mode = "nearest"> (x, , s)
      t = Transpose <perm = [2, 3, 0, 1]> (y)
    })");
  std::vector<const Node*> nodes;
  for (const auto& n : m->graph().nodes()) nodes.push_back(&*n);
  ASSERT_EQ(nodes.size(), 2u);
  Tensor x = Floats({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor s = Floats({4}, {1, 1, 2, 2});
  bool read = false;
  NodeExecOptions options;
  options.shape_read_input_contents = &read;
  absl::StatusOr<std::vector<Tensor>> y = RunNode(*nodes[0], 17, {x, Tensor(), s}, options);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dims(), (Shape{1, 1, 4, 4}));
  EXPECT_TRUE(read);
  absl::StatusOr<std::vector<Tensor>> t = RunNode(*nodes[1], 17, {x}, options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)[0].dims(), (Shape{2, 2, 1, 1}));
  EXPECT_FALSE(read);
}

TEST(NodeExecutorTest, DataDependentOutputsAreMadeByTheKernel) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[4] x) => (int64[1,?] y) { y = NonZero (x) })");
  absl::StatusOr<std::vector<Tensor>> out = RunNode(FirstNode(*m), 17, {Floats({4}, {0, 3, 0, 1})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Shape{1, 2}));
  EXPECT_EQ((*out)[0].As<int64_t>()[1], 3);
}

TEST(NodeExecutorTest, ErrorsNameTheNode) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a, float[4,5] b) => (float[] y) { y = MatMul (a, b) })");
  absl::StatusOr<std::vector<Tensor>> out =
      RunNode(FirstNode(*m), 17,
              {Tensor(ElementType::kFloat, {2, 3}), Tensor(ElementType::kFloat, {4, 5})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("(MatMul"), std::string::npos)
      << out.status().message();
}

// String elements are objects: an op whose kernel moves bytes refuses them (Unimplemented, not
// empty strings); ops marked kStrings take them.
TEST(NodeExecutorTest, StringTensorsReachOnlyKernelsThatHandleThem) {
  Tensor s(ElementType::kString, {2});
  s.As<std::string>()[0] = "a";
  s.As<std::string>()[1] = "bc";
  std::unique_ptr<Model> concat = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (string[2] x) => (string[4] y) { y = Concat <axis = 0> (x, x) })");
  absl::StatusOr<std::vector<Tensor>> refused = RunNode(FirstNode(*concat), 17, {s, s});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(refused.status().message()).find("input 0 is a string tensor"),
            std::string::npos)
      << refused.status().message();

  std::unique_ptr<Model> identity = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (string[2] x) => (string[2] y) { y = Identity (x) })");
  absl::StatusOr<std::vector<Tensor>> copied = RunNode(FirstNode(*identity), 17, {s});
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  EXPECT_EQ((*copied)[0].As<std::string>()[1], "bc");
}

TEST(InterpreterTest, RunsSubgraphsThroughTheSameExecutor) {
  std::unique_ptr<Model> m = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If (c) <then_branch = t () => (float[2] a) { a = Relu (x) },
                  else_branch = e () => (float[2] b) { b = Neg (x) }>
    })");
  Tensor c(ElementType::kBool, {});
  c.As<bool>()[0] = false;
  absl::StatusOr<std::vector<Tensor>> out =
      InterpretGraph(*m, m->graph(), {c, Floats({2}, {-1, 2})});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].As<float>()[0], 1);
  EXPECT_EQ((*out)[0].As<float>()[1], -2);
}

// The caller's allocation limit holds for RunNode's outputs, for every tensor of an interpreted
// graph and its subgraphs, and for what a Loop holds before it stacks its scan outputs.
TEST(InterpreterTest, AllocationsStayWithinTheLimit) {
  std::unique_ptr<Model> big = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (int64[1] s) => (float[?] y) { y = ConstantOfShape (s) })");
  Tensor shape(ElementType::kInt64, {1});
  shape.As<int64_t>()[0] = 1000;  // 4000 bytes
  NodeExecOptions options;
  options.max_allocation_bytes = 1024;
  absl::StatusOr<std::vector<Tensor>> out = RunNode(FirstNode(*big), 17, {shape}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(out.status().message()).find("over the allocation limit of 1.0 KiB"),
            std::string::npos)
      << out.status().message();
  EXPECT_TRUE(RunNode(FirstNode(*big), 17, {shape}).ok());  // no limit by default

  // Inside an If's branch, run by the interpreter.
  std::unique_ptr<Model> branch = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (bool c, int64[1] s) => (float[?] y) {
      y = If (c) <then_branch = t () => (float[?] a) { a = ConstantOfShape (s) },
                  else_branch = e () => (float[?] b) { b = ConstantOfShape (s) }>
    })");
  Tensor c(ElementType::kBool, {});
  c.As<bool>()[0] = true;
  out = InterpretGraph(*branch, branch->graph(), {c, shape}, nullptr, nullptr, 1024);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(std::string(out.status().message()).find("(ConstantOfShape, output 'a')"),
            std::string::npos)
      << out.status().message();
  EXPECT_TRUE(InterpretGraph(*branch, branch->graph(), {c, shape}, nullptr, nullptr, 4096).ok());

  // A Loop of 10 iterations of 400 bytes: each piece fits 1 KiB, what it holds does not.
  std::unique_ptr<Model> loop = Parse(R"(<ir_version: 8, opset_import: ["" : 17]>
    g (int64 n, bool c, int64[1] s) => (float[?, ?] y) {
      y = Loop (n, c) <body = b (int64 i, bool ci) => (bool co, float[?] p) {
        co = Identity (ci)
        p = ConstantOfShape (s)
      }>
    })");
  Tensor n(ElementType::kInt64, {});
  n.As<int64_t>()[0] = 10;
  shape.As<int64_t>()[0] = 100;
  out = InterpretGraph(*loop, loop->graph(), {n, c, shape}, nullptr, nullptr, 1024);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(out.status().message(),
            "node #0 (Loop, output 'y'): output 0: 3 iterations (the last float[100]) hold 1200 "
            "bytes (1.2 KiB), over the allocation limit of 1024 bytes (1.0 KiB)");
  out = InterpretGraph(*loop, loop->graph(), {n, c, shape}, nullptr, nullptr, 4096);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Shape{10, 100}));
}

}  // namespace
}  // namespace anvil
