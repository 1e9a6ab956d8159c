// Row-tile fusion (row_tiles.h): which gemm calls and nests become one loop over row tiles, what
// shrinks to a tile, and that no output changes by a single bit — each model runs through the
// evaluator with the pass on and off, on dims whose rows are not a multiple of the tile.
#include "lower/passes/row_tiles.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lower/lowering/lower_to_tir.h"
#include "lower/passes/passes.h"
#include "lower/testing/lowering_test_util.h"

namespace anvil::lower {
namespace {

using testing::AllPasses;
using testing::FeedForwardModelText;
using testing::Lowered;
using testing::ParseModel;
using testing::TestInput;
using testing::WeightText;

// Every pass on; tile-rows as asked, with tiles of `tile_bytes`.
LoweringOptions Options(bool tile_rows, int64_t tile_bytes = 2048) {
  LoweringOptions options = AllPasses(true);
  options.tile_rows = tile_rows;
  options.row_tiles.tile_bytes = tile_bytes;
  return options;
}

Lowered Lower(const Model& model, bool tile_rows, int64_t tile_bytes = 2048) {
  return testing::LowerModel(model, Options(tile_rows, tile_bytes));
}

Tensor Input(std::vector<int64_t> dims, int salt) {
  return TestInput(ElementType::kFloat, std::move(dims), salt);
}

void ExpectBitIdentical(const Model& model, const std::vector<Tensor>& inputs) {
  testing::ExpectSameBits(model, Options(false), Options(true), inputs);
}

TEST(RowTilesTest, FeedForwardIsOneLoopOverRowTiles) {
  std::unique_ptr<Model> model = ParseModel(FeedForwardModelText());
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  const RowTileStats& s = l.stats.passes.row_tiles;
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(s.gemms, 2);
  EXPECT_EQ(s.nests, 3);  // the layer norm, bias + Relu, bias + residual
  // n, u, a, d: every intermediate lives in one tile.
  EXPECT_EQ(s.contracted, 4);
  const ModuleCounts counts = CountLoops(l.module);
  EXPECT_EQ(counts.nests, 1);
  EXPECT_EQ(counts.stored_intermediates, 0);
  EXPECT_EQ(counts.local_buffers, 4);
  EXPECT_TRUE(l.module.workspace.empty());
  // Rows (B * S) of 15, 1, 7 * 9 and 2 * 40 against tiles of 8 rows (2 KiB of rows of 4 * 80
  // bytes, rounded down to 8 rows), so the last tile is partial.
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{3, 5, 16}, std::vector<int64_t>{1, 1, 16},
        std::vector<int64_t>{7, 9, 16}, std::vector<int64_t>{2, 40, 16}}) {
    ExpectBitIdentical(*model, {Input(dims, 1)});
  }
}

TEST(RowTilesTest, TileBytesSetTheRowsPerTile) {
  std::unique_ptr<Model> model = ParseModel(FeedForwardModelText());
  ASSERT_NE(model, nullptr);
  // A tile writes n, u, a, d and y: 16 + 32 + 32 + 16 + 16 floats a row, 448 bytes.
  for (auto [bytes, rows] :
       {std::pair<int64_t, int64_t>{448 * 24, 24}, {448 * 31, 24}, {100, 8}, {448 * 64, 64}}) {
    Lowered l = Lower(*model, true, bytes);
    const auto* body = l.module.FindFunction("main")->body.as<tir::BlockNode>();
    ASSERT_NE(body, nullptr);
    const tir::ForNode* loop = nullptr;
    for (const tir::Stmt& st : body->stmts) {
      if (st.as<tir::ForNode>()) loop = st.as<tir::ForNode>();
    }
    ASSERT_NE(loop, nullptr);
    EXPECT_TRUE(tir::IsIntConstant(loop->step, rows))
        << bytes << " bytes: " << loop->step.ToString();
    EXPECT_TRUE(loop->attrs.parallel);
  }
}

// A multilayer perceptron of Gemm nodes (bias through C) and a Softmax: rows are [N].
TEST(RowTilesTest, GemmLayersAndSoftmaxShareTheTiles) {
  const std::string text =
      absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 12] x) => (float[N, 8] y) <)",
                   WeightText("w1", 12, 24, 1), ", ", WeightText("c1", 0, 24, 2), ", ",
                   WeightText("w2", 8, 24, 3), ", ", WeightText("c2", 0, 8, 4), R"(> {
  h = Gemm<alpha = 0.5>(x, w1, c1)
  r = Relu(h)
  o = Gemm<transB = 1, beta = 2.0>(r, w2, c2)
  y = Softmax<axis = -1>(o)
})");
  std::unique_ptr<Model> model = ParseModel(text);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  EXPECT_EQ(l.stats.passes.row_tiles.runs, 1);
  EXPECT_EQ(l.stats.passes.row_tiles.gemms, 2);
  EXPECT_EQ(CountLoops(l.module).nests, 1);
  for (int64_t n : {1, 9, 33}) ExpectBitIdentical(*model, {Input({n, 12}, 2)});
}

// What is not row-wise stays out: a product with a weight the caller passes (not a global), a
// reduction over the rows, a transpose of a product.
TEST(RowTilesTest, WhatIsNotRowWiseStaysOut) {
  const std::string text = absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[N, 8] x, float[8, 8] v) => (float[N, 8] p, float[8] s, float[8, N] t) <)",
                                        WeightText("w", 8, 8, 1), R"(> {
  a = MatMul(x, v)
  r = Relu(a)
  b = MatMul(r, w)
  s = ReduceSum<axes = [0], keepdims = 0>(b)
  c = MatMul(x, w)
  t = Transpose<perm = [1, 0]>(c)
  p = Tanh(c)
})");
  std::unique_ptr<Model> model = ParseModel(text);
  ASSERT_NE(model, nullptr);
  Lowered l = Lower(*model, true);
  // r (Relu of a gemm by v) joins b's run; s reads every row of b, t every row of c; p = Tanh(c)
  // follows the Transpose and runs with c's gemm only if next to it: it is not.
  EXPECT_EQ(l.stats.passes.row_tiles.runs, 1);
  EXPECT_EQ(l.stats.passes.row_tiles.gemms, 1);
  for (int64_t n : {3, 17}) {
    ExpectBitIdentical(*model, {Input({n, 8}, 3), Input({8, 8}, 4)});
  }
}

}  // namespace
}  // namespace anvil::lower
