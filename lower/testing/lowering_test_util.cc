#include "lower/testing/lowering_test_util.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "lower/evaluator/evaluator.h"

namespace anvil::lower::testing {

std::unique_ptr<Model> ParseModel(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Model>> m = ParseModelText(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

Lowered LowerModel(const Model& model, const LoweringOptions& options) {
  Lowered l;
  absl::StatusOr<tir::Module> m = LowerToTir(model, options, &l.stats);
  EXPECT_TRUE(m.ok()) << m.status();
  if (m.ok()) l.module = *std::move(m);
  return l;
}

LoweringOptions AllPasses(bool on) {
  LoweringOptions options;
  options.fuse = options.tile_rows = options.plan_buffers = options.collapse_loops =
      options.mark_loops = on;
  return options;
}

Tensor TestInput(ElementType type, std::vector<int64_t> dims, int salt) {
  Tensor t(type, dims);
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    const int64_t v = (k * 37 + salt * 11) % 23 - 11;
    switch (type) {
      case ElementType::kFloat:
        t.As<float>()[k] = static_cast<float>(v) / 4.0f;
        break;
      case ElementType::kDouble:
        t.As<double>()[k] = static_cast<double>(v) / 3.0;
        break;
      case ElementType::kInt32:
        t.As<int32_t>()[k] = static_cast<int32_t>(v);
        break;
      case ElementType::kInt64:
        t.As<int64_t>()[k] = (k * 7 + salt) % 5;
        break;
      case ElementType::kBool:
        t.As<bool>()[k] = (k + salt) % 3 == 0;
        break;
      default:
        break;
    }
  }
  return t;
}

void ExpectSameBits(const Model& model, const LoweringOptions& a, const LoweringOptions& b,
                    const std::vector<Tensor>& inputs) {
  Lowered la = LowerModel(model, a);
  Lowered lb = LowerModel(model, b);
  absl::StatusOr<std::vector<Tensor>> ra = EvaluateModule(la.module, inputs);
  absl::StatusOr<std::vector<Tensor>> rb = EvaluateModule(lb.module, inputs);
  ASSERT_TRUE(ra.ok()) << ra.status();
  ASSERT_TRUE(rb.ok()) << rb.status();
  ASSERT_EQ(ra->size(), rb->size());
  for (size_t k = 0; k < ra->size(); ++k) {
    ASSERT_EQ((*ra)[k].dims(), (*rb)[k].dims()) << "output " << k;
    ASSERT_EQ((*ra)[k].ByteSize(), (*rb)[k].ByteSize()) << "output " << k;
    EXPECT_EQ(std::memcmp((*ra)[k].data(), (*rb)[k].data(), (*ra)[k].ByteSize()), 0)
        << "output " << k << " differs between the two lowerings";
  }
}

std::string WeightText(const std::string& name, int rows, int cols, int salt) {
  std::vector<std::string> values;
  for (int k = 0; k < (rows > 0 ? rows : 1) * cols; ++k) {
    values.push_back(absl::StrCat(static_cast<float>(((k * 29 + salt * 13) % 17) - 8) / 16.0f));
  }
  const std::string dims = rows > 0 ? absl::StrCat(rows, ", ", cols) : absl::StrCat(cols);
  return absl::StrCat("float[", dims, "] ", name, " = {", absl::StrJoin(values, ", "), "}");
}

std::string FeedForwardModelText() {
  return absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[B, S, 16] x) => (float[B, S, 16] y) <)",
                      WeightText("g", 0, 16, 1), ", ", WeightText("be", 0, 16, 2), ", ",
                      WeightText("w1", 16, 32, 3), ", ", WeightText("b1", 0, 32, 4), ", ",
                      WeightText("w2", 32, 16, 5), ", ", WeightText("b2", 0, 16, 6), R"(> {
  n = LayerNormalization<axis = -1, epsilon = 0.001>(x, g, be)
  u = MatMul(n, w1)
  ub = Add(u, b1)
  a = Relu(ub)
  d = MatMul(a, w2)
  db = Add(d, b2)
  y = Add(db, x)
})");
}

}  // namespace anvil::lower::testing
