#include "base/axes.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace anvil {
namespace {

// Pad-18's pads for axes [2, 0] of a rank-3 input: begins then ends, the other dim unpadded.
TEST(SpreadOverAxesTest, PadsBeginsThenEndsAtTheirAxes) {
  const std::vector<int64_t> pads = {1, 2, 3, 4};  // begin of dim 2, of dim 0; end of 2, of 0
  EXPECT_EQ(SpreadOverAxes<int64_t>(pads, {2, 0}, 3, {0, 0}),
            (std::vector<int64_t>{2, 0, 1, 4, 0, 3}));
}

// Resize-18's roi: each run keeps its own neutral value ([0, 1] of every unlisted dim).
TEST(SpreadOverAxesTest, EachRunHasItsOwnFill) {
  const std::vector<double> roi = {0.25, 0.75};
  EXPECT_EQ(SpreadOverAxes<double>(roi, {1}, 3, {0.0, 1.0}),
            (std::vector<double>{0.0, 0.25, 0.0, 1.0, 0.75, 1.0}));
  const std::vector<double> scales = {2.0, 3.0};
  EXPECT_EQ(SpreadOverAxes<double>(scales, {3, 2}, 4, {1.0}),
            (std::vector<double>{1.0, 1.0, 3.0, 2.0}));
}

TEST(SpreadOverAxesTest, NoAxesIsAllFill) {
  EXPECT_EQ(SpreadOverAxes<double>({}, {}, 2, {1.0}), (std::vector<double>{1.0, 1.0}));
}

}  // namespace
}  // namespace anvil
