#include "shape/einsum_equation.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace anvil::einsum {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Canonical(std::string_view text) {
  absl::StatusOr<Equation> eq = Equation::Parse(text);
  if (!eq.ok()) return std::string(eq.status().message());
  return eq->Canonical();
}

std::string ParseError(std::string_view text) {
  absl::StatusOr<Equation> eq = Equation::Parse(text);
  return eq.ok() ? "ok" : std::string(eq.status().message());
}

// Labels of a bound equation as text: "ij|jk->ik"; ellipsis dims as "0", "1", ...
std::string Bound(std::string_view text, std::vector<int64_t> ranks) {
  absl::StatusOr<Equation> eq = Equation::Parse(text);
  if (!eq.ok()) return std::string(eq.status().message());
  absl::StatusOr<BoundEquation> b = eq->Bind(ranks);
  if (!b.ok()) return std::string(b.status().message());
  auto name = [](int l) {
    return l >= kFirstEllipsisLabel ? std::to_string(l - kFirstEllipsisLabel) : LabelName(l);
  };
  std::string s;
  for (size_t i = 0; i < b->operands.size(); ++i) {
    if (i > 0) s += "|";
    if (!b->operands[i].rank_known) s += "?";
    for (int l : b->operands[i].labels) s += name(l);
  }
  s += "->";
  if (!b->output_known) return s + "?";
  for (int l : b->output) s += name(l);
  return s;
}

TEST(EquationTest, CanonicalForms) {
  EXPECT_EQ(Canonical("ij,jk->ik"), "ij,jk->ik");
  EXPECT_EQ(Canonical("bij, bjk -> bik"), "bij,bjk->bik");
  EXPECT_EQ(Canonical("  i , i  "), "i,i->");
  EXPECT_EQ(Canonical("ij,jk"), "ij,jk->ik");
  EXPECT_EQ(Canonical("ii"), "ii->");          // numpy: the trace
  EXPECT_EQ(Canonical("ii->i"), "ii->i");      // the diagonal
  EXPECT_EQ(Canonical("ij->"), "ij->");        // scalar output
  EXPECT_EQ(Canonical(""), "->");              // one scalar operand
  EXPECT_EQ(Canonical(",ij"), ",ij->ij");      // scalar times matrix
  EXPECT_EQ(Canonical("ba"), "ba->ab");        // implicit output sorts
  EXPECT_EQ(Canonical("bA,ba"), "bA,ba->Aa");  // upper case first, as numpy
  EXPECT_EQ(Canonical("...ii->...i"), "...ii->...i");
  EXPECT_EQ(Canonical("...ij,...jk"), "...ij,...jk->...ik");
  EXPECT_EQ(Canonical("i...,j"), "i...,j->...ij");
  EXPECT_EQ(Canonical("a b c , c d"), "abc,cd->abd");
}

TEST(EquationTest, Normalized) {
  auto normalized = [](std::string_view text) { return Equation::Parse(text)->Normalized(); };
  EXPECT_EQ(normalized("ij,jk->ik"), "ab,bc->ac");
  EXPECT_EQ(normalized("dk,kv->dv"), "ab,bc->ac");
  EXPECT_EQ(normalized("bsnh,btnh->bnts"), "abcd,aecd->aceb");
  EXPECT_EQ(normalized("...Zz"), "...ab->...ab");
}

TEST(EquationTest, TermsKeepColumnsAndEllipsis) {
  absl::StatusOr<Equation> eq = Equation::Parse("a...b, c -> ...c");
  ASSERT_TRUE(eq.ok());
  ASSERT_EQ(eq->num_inputs(), 2);
  const Term& t0 = eq->inputs()[0];
  EXPECT_THAT(t0.letters, ElementsAre(LetterLabel('a'), LetterLabel('b')));
  EXPECT_THAT(t0.columns, ElementsAre(1, 5));
  EXPECT_EQ(t0.ellipsis_index, 1);
  EXPECT_EQ(t0.ellipsis_column, 2);
  EXPECT_EQ(eq->inputs()[1].column, 7);
  EXPECT_TRUE(eq->explicit_output());
  EXPECT_TRUE(eq->output().has_ellipsis());
}

TEST(EquationTest, LabelsSortInAsciiOrder) {
  EXPECT_LT(LetterLabel('Z'), LetterLabel('a'));
  EXPECT_EQ(LetterLabel('A'), 0);
  EXPECT_EQ(LetterLabel('z'), kNumLetters - 1);
  EXPECT_EQ(LetterLabel('.'), -1);
  EXPECT_EQ(LabelName(LetterLabel('q')), "q");
  EXPECT_EQ(LabelName(kFirstEllipsisLabel + 1), "...[1]");
}

TEST(EquationTest, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(ParseError("ij,jk->ik"), "ok");
  EXPECT_EQ(ParseError("ij,j#->ik"),
            "einsum 'ij,j#->ik': column 5: invalid character '#' "
            "(labels are a-z and A-Z, with ',' between terms and one '->')");
  EXPECT_EQ(ParseError("i.j->i"),
            "einsum 'i.j->i': column 2: '.' is not part of an ellipsis '...'");
  EXPECT_EQ(ParseError("..i->i"),
            "einsum '..i->i': column 1: '.' is not part of an ellipsis '...'");
  EXPECT_EQ(ParseError("...i...->i"),
            "einsum '...i...->i': column 5: a term has a second ellipsis '...'");
  EXPECT_EQ(ParseError("i->i->i"), "einsum 'i->i->i': column 5: a second '->'");
  EXPECT_EQ(ParseError("ij->ii"), "einsum 'ij->ii': column 6: output label 'i' is repeated");
  EXPECT_EQ(ParseError("ij->iz"),
            "einsum 'ij->iz': column 6: output label 'z' does not occur in any input term");
  EXPECT_EQ(ParseError("ij->...i"),
            "einsum 'ij->...i': column 5: the output has '...' but no input term has one");
  EXPECT_EQ(ParseError("i,j->i,j"), "einsum 'i,j->i,j': column 7: the output term has a ','");
  EXPECT_EQ(ParseError("ij-k"),
            "einsum 'ij-k': column 3: invalid character '-' (labels are a-z "
            "and A-Z, with ',' between terms and one '->')");
}

TEST(EquationTest, BindExpandsEllipsisRightAligned) {
  EXPECT_EQ(Bound("ij,jk->ik", {2, 2}), "ij|jk->ik");
  EXPECT_EQ(Bound("...ij,...jk->...ik", {4, 3}), "01ij|1jk->01ik");
  EXPECT_EQ(Bound("...ij,...jk", {2, 3}), "ij|0jk->0ik");
  EXPECT_EQ(Bound("i...j->j...", {4}), "i01j->j01");
  EXPECT_EQ(Bound("...", {0}), "->");
  EXPECT_EQ(Bound("...ii->...i", {3}), "0ii->0i");
  EXPECT_EQ(Bound("...ij->ij", {5}), "012ij->ij");
  // Unknown ranks: letters alone still bind; an unknown "..." makes the output rank unknown.
  EXPECT_EQ(Bound("ij,jk->ik", {-1, 2}), "ij|jk->ik");
  EXPECT_EQ(Bound("...ij,jk->...ik", {-1, 2}), "?|jk->?");
  EXPECT_EQ(Bound("...ij,jk->ik", {-1, 2}), "?|jk->ik");
}

TEST(EquationTest, BindErrors) {
  EXPECT_EQ(Bound("ij,jk->ik", {2}), "einsum 'ij,jk->ik': 2 input terms for 1 operand");
  EXPECT_EQ(Bound("ij,jk->ik", {2, 3}),
            "einsum 'ij,jk->ik': column 4: term 'jk' has 2 labels but operand 1 has rank 3");
  EXPECT_EQ(Bound("...ij->i", {1}),
            "einsum '...ij->i': column 1: term '...ij' has 2 labels and '...' but operand 0 has "
            "rank 1");
}

}  // namespace
}  // namespace anvil::einsum
