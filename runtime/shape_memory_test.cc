// Flat memory over ever new input shapes: a Session re-infers shapes (its shape engine runs the
// ShapeHelpers, which make questionmarks for data-dependent ops) for 10,000 random input shapes,
// and the shape-inference pass runs on models with ever new symbolic dims; the number of live
// IndexExpr atoms and monomials must not grow (each run's IndexExprContext frees its own).
#include <memory>
#include <random>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "runtime/session.h"
#include "shape/index_expr.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, M] x) => (float[?] y, int64[?, ?] nz, float[?, ?] t, int64[?] u) {
  r = Relu (x)
  minus1 = Constant <value = int64[1] {-1}> ()
  flat = Reshape (r, minus1)
  y = Neg (flat)
  nz = NonZero (r)
  t = Transpose (r)
  rounded = Floor (x)
  as_int = Cast <to = 7> (rounded)
  u, i, inv, c = Unique <sorted = 1> (as_int)
})";

TEST(ShapeMemoryTest, SessionOverTenThousandInputShapesIsFlat) {
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(kModel);
  ASSERT_TRUE(model.ok()) << model.status().message();
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(*std::move(model));
  ASSERT_TRUE(session.ok()) << session.status().message();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> dim(1, 40);
  std::uniform_real_distribution<float> value(-3, 3);
  int64_t warm = -1;
  int64_t most = 0;
  for (int i = 0; i < 10000; ++i) {
    Tensor x(ElementType::kFloat, {dim(rng), dim(rng)});
    for (int64_t k = 0; k < x.NumElements(); ++k) x.As<float>()[k] = value(rng);
    absl::StatusOr<std::vector<Tensor>> out = (*session)->Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status().message();
    if (i == 100) warm = LiveIndexExprNodes();
    if (i > 100) most = std::max(most, LiveIndexExprNodes());
  }
  EXPECT_GT((*session)->shape_inference_runs(), 9000);  // really new shapes, not the cache
  EXPECT_EQ(LiveIndexExprNodes(), warm);
  EXPECT_EQ(most, warm);
}

TEST(ShapeMemoryTest, ShapeInferenceOverNewSymbolsIsFlat) {
  int64_t warm = -1;
  for (int i = 0; i < 2000; ++i) {
    // New symbol names every time: each would be a new atom in a process-wide table.
    std::string text = kModel;
    const std::string n = absl::StrCat("n", i), m = absl::StrCat("m", i);
    text.replace(text.find("float[N, M]"), 11, absl::StrCat("float[", n, ", ", m, "]"));
    absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
    ASSERT_TRUE(model.ok()) << model.status().message();
    ASSERT_TRUE(InferShapes(**model).ok());
    if (i == 0) {
      EXPECT_EQ((*model)->graph().outputs()[0]->type().ToString(), "float[" + m + "*" + n + "]");
    }
    if (i == 10) warm = LiveIndexExprNodes();
  }
  EXPECT_EQ(LiveIndexExprNodes(), warm);
}

}  // namespace
}  // namespace anvil
