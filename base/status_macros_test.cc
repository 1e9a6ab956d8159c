#include "base/status_macros.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace anvil {
namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2 != 0) return absl::InvalidArgumentError("odd");
  return x / 2;
}

absl::Status Check(int x) { return Half(x).status(); }

absl::StatusOr<int> Quarter(int x) {
  ANVIL_ASSIGN_OR_RETURN(int half, Half(x));
  ANVIL_ASSIGN_OR_RETURN(const int quarter, Half(half));
  return quarter;
}

absl::Status BothEven(int x, int y) {
  ANVIL_RETURN_IF_ERROR(Check(x));
  ANVIL_RETURN_IF_ERROR(Check(y));
  return absl::OkStatus();
}

absl::StatusOr<std::string> Pair(int x) {
  std::pair<int, int> p;
  ANVIL_ASSIGN_OR_RETURN(p, absl::StatusOr<std::pair<int, int>>(std::pair(x, x + 1)));
  ANVIL_RETURN_IF_ERROR(Check(p.first));
  return std::to_string(p.first) + "," + std::to_string(p.second);
}

int calls = 0;
absl::Status Counted() {
  ++calls;
  return absl::OkStatus();
}

TEST(StatusMacrosTest, PropagateErrorsAndValues) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status().message(), "odd");
  EXPECT_EQ(Quarter(7).status().message(), "odd");
  EXPECT_TRUE(BothEven(2, 4).ok());
  EXPECT_EQ(BothEven(2, 3).message(), "odd");
  EXPECT_EQ(*Pair(4), "4,5");
  EXPECT_FALSE(Pair(3).ok());
  // The expression runs once.
  calls = 0;
  EXPECT_TRUE([] {
    ANVIL_RETURN_IF_ERROR(Counted());
    return absl::OkStatus();
  }()
                  .ok());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace anvil
