#include "shape/dim_ranges.h"

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "shape/index_expr.h"

namespace anvil {
namespace {

TEST(DimRangesTest, ParsesAndFormatsRoundTrip) {
  absl::StatusOr<std::vector<SymbolRange>> r =
      ParseSymbolRanges(" batch=1:64, seq = 1:4096,NonZero_nz_n=0:,`a,b`=2:2,`x``y`=0:1");
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<SymbolRange> want = {{"batch", 1, 64},
                                         {"seq", 1, 4096},
                                         {"NonZero_nz_n", 0, std::nullopt},
                                         {"a,b", 2, 2},
                                         {"x`y", 0, 1}};
  EXPECT_EQ(*r, want);
  const std::string text = FormatSymbolRanges(*r);
  EXPECT_EQ(text, "batch=1:64,seq=1:4096,NonZero_nz_n=0:,`a,b`=2:2,`x``y`=0:1");
  EXPECT_EQ(*ParseSymbolRanges(text), want);
  EXPECT_TRUE(ParseSymbolRanges("")->empty());
}

TEST(DimRangesTest, RejectsBadEntriesNamingThem) {
  for (const char* bad : {"batch", "batch=1", "batch=x:2", "batch=1:y", "batch=3:2", "batch=-1:2",
                          "=1:2", "a=1:2,a=1:3", "`open=1:2", "a=1:2,"}) {
    absl::StatusOr<std::vector<SymbolRange>> r = ParseSymbolRanges(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("dim ranges"), std::string::npos) << bad;
    }
  }
}

TEST(DimRangesTest, ModelMetadataRoundTripAndMerge) {
  Model model;
  model.metadata_props.emplace_back("author", "someone");
  WriteModelRanges(model, {{"seq", 1, 4096}, {"batch", 1, 64}});
  ASSERT_EQ(model.metadata_props.size(), 2u);
  EXPECT_EQ(model.metadata_props[1].first, kDimRangesKey);
  EXPECT_EQ(model.metadata_props[1].second, "batch=1:64,seq=1:4096");  // sorted by name
  ASSERT_TRUE(MergeModelRanges(model, {{"seq", 1, 128}, {"n", 0, std::nullopt}}).ok());
  EXPECT_EQ(FormatSymbolRanges(*ReadModelRanges(model)), "batch=1:64,n=0:,seq=1:128");
  WriteModelRanges(model, {});
  EXPECT_EQ(model.metadata_props.size(), 1u);
  model.metadata_props.emplace_back(kDimRangesKey, "batch=9:1");
  EXPECT_FALSE(ReadModelRanges(model).ok());
  // Readers that must not refuse the model see no ranges, and are told why.
  std::string problem;
  EXPECT_TRUE(ModelRangesOrNone(model, &problem).empty());
  EXPECT_NE(problem.find("anvil.dim_ranges"), std::string::npos) << problem;
  // Merging replaces a value that does not parse.
  ASSERT_TRUE(MergeModelRanges(model, {{"n", 0, 4}}).ok());
  EXPECT_EQ(FormatSymbolRanges(*ReadModelRanges(model)), "n=0:4");
}

TEST(DimRangesTest, DeclaresIntoTheInstalledContext) {
  ScopedIndexExprContext scope;
  ASSERT_TRUE(DeclareRanges(*ParseSymbolRanges("b=1:8,s=2:")).ok());
  EXPECT_EQ(RangeToString(RangeOf(IndexExpr::Symbol("b") * IndexExpr::Symbol("s"))), "[2, inf)");
  EXPECT_EQ(RangeToString(RangeOf(IndexExpr::Symbol("b") * 3)), "[3, 24]");
  EXPECT_TRUE(DeclareRanges(*ParseSymbolRanges("b=1:8")).ok());  // again, the same: fine
  EXPECT_EQ(DeclareRanges(*ParseSymbolRanges("b=1:9")).code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace anvil
