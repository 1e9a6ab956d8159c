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

TEST(QuotedTest, EscapesWhatDoesNotPrint) {
  EXPECT_EQ(Quoted("conv1"), "'conv1'");
  EXPECT_EQ(Quoted(std::string("a\x01"
                               "b\nc\td\x7f",
                               8)),
            "'a\\x01b\\nc\\td\\x7f'");
  EXPECT_EQ(Quoted(std::string("nul\0x", 5)), "'nul\\x00x'");
  // Valid UTF-8 prints as itself; invalid bytes, C1 controls, U+2028 and overlong forms do not.
  EXPECT_EQ(Quoted("\xe5\x8d\xb7\xe7\xa7\xaf"), "'\xe5\x8d\xb7\xe7\xa7\xaf'");
  EXPECT_EQ(Quoted("\xff\xfe"), "'\\xff\\xfe'");
  EXPECT_EQ(Quoted("\xc2\x85"), "'\\xc2\\x85'");
  EXPECT_EQ(Quoted("\xe2\x80\xa8"), "'\\xe2\\x80\\xa8'");
  EXPECT_EQ(Quoted("\xc0\xaf"), "'\\xc0\\xaf'");
  EXPECT_EQ(Quoted("\xe5\x8d"), "'\\xe5\\x8d'");  // cut short
}

TEST(QuotedTest, LongNamesKeepBothEnds) {
  const std::string name = "head" + std::string(200000, 'x') + "tail";
  const std::string q = Quoted(name);
  EXPECT_LE(q.size(), kNameExcerptChars + 40);
  EXPECT_THAT(q, ::testing::StartsWith("'headxxx"));
  EXPECT_THAT(q, ::testing::EndsWith("xxxtail'"));
  EXPECT_THAT(q, ::testing::HasSubstr("...[199928 more]..."));
  // A cut never splits an escape or a UTF-8 character.
  const std::string bytes(1000, '\x01');
  const std::string e = Quoted(bytes, 21);
  EXPECT_EQ(e, "'\\x01\\x01...[996 more]...\\x01\\x01'");
  std::string cjk;
  for (int i = 0; i < 100; ++i) cjk += "\xe5\x8d\xb7";
  const std::string c = Quoted(cjk, 10);
  EXPECT_EQ(c, "'\xe5\x8d\xb7...[294 more]...\xe5\x8d\xb7'");
}

TEST(OneLineMessageTest, OneBoundedPrintableLine) {
  EXPECT_EQ(OneLineMessage("a\nb\r\nc\td"), "a b  c d");
  EXPECT_EQ(OneLineMessage("x\x1b[31mred"), "x\\x1b[31mred");
  const std::string huge = "start " + std::string(300000, '\n') + " end";
  const std::string m = OneLineMessage(huge);
  EXPECT_LE(m.size(), kMaxMessageChars + 40);
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_THAT(m, ::testing::StartsWith("start "));
  EXPECT_THAT(m, ::testing::EndsWith(" end"));
}

}  // namespace
}  // namespace anvil
