#include "base/excerpt.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

TEST(ExcerptTest, ShortTextIsUnchanged) {
  EXPECT_EQ(Excerpt("cse,dce"), "cse,dce");
  EXPECT_EQ(Excerpt(std::string(120, 'a')), std::string(120, 'a'));
}

TEST(ExcerptTest, LongTextKeepsBothEndsAndCountsTheRest) {
  std::string text = std::string(1000, 'a') + "END";
  std::string e = Excerpt(text, 20);
  EXPECT_EQ(e, std::string(10, 'a') + "...[983 more]..." + std::string(7, 'a') + "END");
}

TEST(ExcerptTest, AroundKeepsThePositionInView) {
  std::string text = std::string(500, 'a') + "X" + std::string(500, 'b');
  size_t at = 0;
  std::string e = ExcerptAround(text, 500, &at, 40);
  ASSERT_LT(at, e.size());
  EXPECT_EQ(e[at], 'X');
  EXPECT_THAT(e, ::testing::StartsWith("[480 before]..."));
  EXPECT_THAT(e, ::testing::EndsWith("...[481 after]"));
  // Near the start: nothing cut before.
  e = ExcerptAround(text, 3, &at, 40);
  EXPECT_EQ(at, 3u);
  EXPECT_THAT(e, ::testing::EndsWith("...[961 after]"));
  // Near the end: the window ends at the text's end.
  e = ExcerptAround(text, text.size() - 1, &at, 40);
  EXPECT_EQ(e[at], 'b');
  EXPECT_THAT(e, ::testing::EndsWith(std::string(10, 'b')));
}

}  // namespace
}  // namespace anvil
