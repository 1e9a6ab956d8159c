// The evaluator on hand-written modules: loops, dims bound from the inputs, vectors, calls,
// gemm, workspaces and the errors it must give instead of crashing.
#include "lower/evaluator/evaluator.h"

#include <string>
#include <vector>

#include "base/status_macros.h"
#include "gtest/gtest.h"
#include "lower/ir/parser.h"

namespace anvil::lower {
namespace {

Tensor FloatTensor(std::vector<int64_t> dims, std::vector<float> values) {
  Tensor t(ElementType::kFloat, dims);
  for (size_t k = 0; k < values.size(); ++k) t.As<float>()[k] = values[k];
  return t;
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.As<float>(), t.As<float>() + t.NumElements());
}

absl::StatusOr<std::vector<Tensor>> RunText(const std::string& text, const std::vector<Tensor>& in) {
  ANVIL_ASSIGN_OR_RETURN(tir::Module m, tir::ParseModule(text));
  return EvaluateModule(m, in);
}

constexpr char kRelu[] = R"(module {
  entry main {
    dim N = input 0 axis 0
    input "x" = X
    output "y" = Y
  }
  func main(N: index, X: [f32 x N, 4], Y: [f32 x N, 4]) -> void {
    for i in (0, N, 1) parallel {
      for j in (0, 4, 1) vectorize(4) {
        Y[i, j] = max(X[i, j], 0.0f)
      }
    }
  }
})";

TEST(EvaluatorTest, RunsLoopsOverDimsFromTheInputs) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(kRelu, {FloatTensor({2, 4}, {1, -2, 3, -4, -5, 6, -7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{1, 0, 3, 0, 0, 6, 0, 8}));
  // Another batch size, the same module.
  out = RunText(kRelu, {FloatTensor({1, 4}, {-1, 2, -3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{0, 2, 0, 4}));
  // A dim that contradicts a literal of the module.
  out = RunText(kRelu, {FloatTensor({2, 3}, {})});
  EXPECT_EQ(out.status().message(), "input x is [2, 3], the model takes [2, 4]");
}

TEST(EvaluatorTest, VectorsCallsAndReductions) {
  const char* text = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func sq(a: f32) -> f32 {
      return a * a
    }
    func main(X: [f32 x 8], Y: [f32 x 2]) -> void {
      var acc: f32x4 = broadcast(0.0f, 4)
      for i in (0, 8, 4) {
        acc = acc + X[i:4]
      }
      Y[0] = reduce_add(acc)
      Y[1] = call<f32> sq(reduce_max(X[4:4]))
    }
  })";
  absl::StatusOr<std::vector<Tensor>> out = RunText(text, {FloatTensor({8}, {1, 2, 3, 4, 5, 6, 7, 8})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{36, 64}));
}

TEST(EvaluatorTest, Gemm) {
  const char* text = R"(module {
    entry main {
      input "a" = A
      input "b" = B
      output "c" = C
    }
    func main(A: [f32 x 2, 3], B: [f32 x 3, 2], C: [f32 x 2, 2]) -> void {
      evaluate gemm(false, false, 2, 2, 3, 1.0f, &A[0, 0], 3, &B[0, 0], 2, 0.0f, &C[0, 0], 2)
    }
  })";
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(text, {FloatTensor({2, 3}, {1, 2, 3, 4, 5, 6}), FloatTensor({3, 2}, {1, 0, 0, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{4, 5, 10, 11}));
}

TEST(EvaluatorTest, StaticWorkspace) {
  absl::StatusOr<tir::Module> m = tir::ParseModule(R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      tensor T: [f32 x 4] at 64
      for i in (0, 4, 1) { T[i] = X[i] * 2.0f }
      for i in (0, 4, 1) { Y[i] = T[3 - i] }
    }
  })");
  ASSERT_TRUE(m.ok()) << m.status();
  m->workspace.bytes = tir::IndexConst(128);
  Evaluator e(*m);
  absl::StatusOr<std::vector<Tensor>> out = e.Run({FloatTensor({4}, {1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{8, 6, 4, 2}));
  EXPECT_EQ(e.stats().workspace_bytes, 128);
  EXPECT_EQ(e.stats().local_allocations, 1);  // the output only
}

TEST(EvaluatorTest, ErrorsInsteadOfCrashes) {
  const char* oob = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      for i in (0, 4, 1) { Y[i] = X[i + 1] }
    }
  })";
  EXPECT_EQ(RunText(oob, {FloatTensor({4}, {1, 2, 3, 4})}).status().message(),
            "tensor IR: X[4] is out of range for dims [4]");
  const char* div = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      var z: index = 0
      for i in (0, 4, 1) { Y[i] = X[floordiv(i, z)] }
    }
  })";
  EXPECT_NE(RunText(div, {FloatTensor({4}, {})}).status().message().find("division by zero"),
            std::string::npos);
  // select evaluates both branches, but a failure in the one not taken is no failure.
  const char* guarded = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      var z: index = 0
      for i in (0, 4, 1) { Y[i] = X[select(z == 0, i, floordiv(i, z))] }
    }
  })";
  EXPECT_TRUE(RunText(guarded, {FloatTensor({4}, {})}).ok());
  const char* assert_text = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      assert(X[0] > 0.0f, "node 'g' (Gather): index -9 is out of range")
    }
  })";
  EXPECT_EQ(RunText(assert_text, {FloatTensor({4}, {-1, 0, 0, 0})}).status().message(),
            "node 'g' (Gather): index -9 is out of range");
  const char* huge = R"(module {
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      tensor T: [f32 x 1000000000, 1000000000]
    }
  })";
  absl::StatusOr<tir::Module> m = tir::ParseModule(huge);
  ASSERT_TRUE(m.ok());
  EvaluatorOptions limited;
  limited.max_allocation_bytes = 1 << 30;
  absl::Status s = EvaluateModule(*m, {FloatTensor({4}, {})}, limited).status();
  EXPECT_NE(s.message().find("tensor T"), std::string::npos) << s;
  EXPECT_NE(s.message().find("over the allocation limit"), std::string::npos) << s;
  // Kernel calls need the node a lowered module keeps.
  const char* kernel = R"(module {
    kernel 0 = Relu "r" opset 13 fallback slots(0, -1)
    entry main {
      input "x" = X
      output "y" = Y
    }
    func main(X: [f32 x 4], Y: [f32 x 4]) -> void {
      evaluate kernel(0, X, Y)
    }
  })";
  EXPECT_NE(RunText(kernel, {FloatTensor({4}, {})}).status().message().find("has no node to run"),
            std::string::npos);
}

}  // namespace
}  // namespace anvil::lower
