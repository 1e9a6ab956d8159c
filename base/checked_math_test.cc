#include "base/checked_math.h"

#include <limits>

#include "gtest/gtest.h"

namespace anvil {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(CheckedMathTest, MulAndAddDetectOverflow) {
  EXPECT_EQ(CheckedMul(3, 4), 12);
  EXPECT_EQ(CheckedMul(int64_t{1} << 62, 2), std::nullopt);
  EXPECT_EQ(CheckedMul(-1, std::numeric_limits<int64_t>::min()), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMax, 0), kMax);
  EXPECT_EQ(CheckedAdd(kMax, 1), std::nullopt);
}

TEST(CheckedMathTest, ElementCount) {
  EXPECT_EQ(*CheckedElementCount({}), 1);
  EXPECT_EQ(*CheckedElementCount({2, 3, 4}), 24);
  // A zero dim makes the tensor empty even when the other dims overflow.
  EXPECT_EQ(*CheckedElementCount({int64_t{1} << 62, 4, 0}), 0);
  absl::StatusOr<int64_t> big = CheckedElementCount({int64_t{1} << 62, 4});
  EXPECT_EQ(big.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(big.status().message(), "dims [4611686018427387904,4] have more than 2^63 elements");
  absl::StatusOr<int64_t> negative = CheckedElementCount({3, -5});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(), "dims [3,-5] have a negative dim -5");
}

TEST(CheckedMathTest, ByteSize) {
  EXPECT_EQ(*CheckedByteSize({2, 3}, 4), 24);
  EXPECT_EQ(CheckedByteSize({int64_t{1} << 61, 2}, 4).status().code(),
            absl::StatusCode::kOutOfRange);
}

TEST(CheckedMathTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(7), "7 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(int64_t{6} << 30), "6.0 GiB");
  EXPECT_EQ(HumanBytes(int64_t{512} << 20), "512 MiB");
}

}  // namespace
}  // namespace anvil
