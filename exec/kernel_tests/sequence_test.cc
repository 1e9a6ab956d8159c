// The sequence and optional kernels (ops/sequence.cc), one node at a time through the node
// executor: sequences share their element tensors, positions may be negative, and every misuse
// is an error naming the node.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "exec/testing/kernel_test_util.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::Floats;
using kernel_testing::MakeTensor;
using kernel_testing::RunText;

std::string Model(const std::string& signature, const std::string& body) {
  return absl::StrCat("<ir_version: 8, opset_import: [\"\" : 17]> g ", signature, " { ", body,
                      " }");
}

Tensor Seq(std::vector<Tensor> tensors) {
  return Tensor::Sequence(ElementType::kFloat, std::move(tensors));
}

Tensor I64(int64_t v) { return MakeTensor<int64_t>(ElementType::kInt64, {}, {v}); }

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.As<float>(), t.As<float>() + t.NumElements());
}

TEST(SequenceTest, ConstructInsertAtEraseLength) {
  const Tensor a = Floats({2}, {1, 2}), b = Floats({3}, {3, 4, 5});
  absl::StatusOr<std::vector<Tensor>> s = RunText(
      Model("(float[2] a, float[3] b) => (seq(float) s)", "s = SequenceConstruct (a, b)"), {a, b});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ((*s)[0].kind(), ValueKind::kSequence);
  ASSERT_EQ((*s)[0].elements().size(), 2u);

  // Insert at the front with a negative position; the inserted tensor is copied in.
  absl::StatusOr<std::vector<Tensor>> inserted =
      RunText(Model("(seq(float) s, float[1] t, int64 p) => (seq(float) r)",
                    "r = SequenceInsert (s, t, p)"),
              {(*s)[0], Floats({1}, {9}), I64(-2)});
  ASSERT_TRUE(inserted.ok()) << inserted.status();
  const std::vector<Tensor>& r = (*inserted)[0].elements();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(Values(r[0]), (std::vector<float>{9}));
  EXPECT_EQ(r[1].data(), (*s)[0].elements()[0].data()) << "elements are shared, not copied";

  absl::StatusOr<std::vector<Tensor>> at = RunText(
      Model("(seq(float) s, int64 p) => (float[] y)", "y = SequenceAt (s, p)"), {Seq(r), I64(-1)});
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(Values((*at)[0]), (std::vector<float>{3, 4, 5}));

  absl::StatusOr<std::vector<Tensor>> erased =
      RunText(Model("(seq(float) s) => (seq(float) e)", "e = SequenceErase (s)"), {Seq(r)});
  ASSERT_TRUE(erased.ok()) << erased.status();
  EXPECT_EQ((*erased)[0].elements().size(), 2u);

  absl::StatusOr<std::vector<Tensor>> length =
      RunText(Model("(seq(float) s) => (int64 n)", "n = SequenceLength (s)"), {Seq(r)});
  ASSERT_TRUE(length.ok()) << length.status();
  EXPECT_EQ(*(*length)[0].As<int64_t>(), 3);

  absl::StatusOr<std::vector<Tensor>> out_of_range = RunText(
      Model("(seq(float) s, int64 p) => (float[] y)", "y = SequenceAt (s, p)"), {Seq(r), I64(3)});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_TRUE(absl::StrContains(out_of_range.status().message(), "position 3 is out of range"))
      << out_of_range.status();
  absl::StatusOr<std::vector<Tensor>> not_a_sequence =
      RunText(Model("(float[2] s) => (int64 n)", "n = SequenceLength (s)"), {a});
  EXPECT_FALSE(not_a_sequence.ok());
}

TEST(SequenceTest, SplitToSequenceAndConcatFromSequenceInvertEachOther) {
  const Tensor x = Floats({2, 3}, {0, 1, 2, 3, 4, 5});
  // A scalar split: pieces of 2 along axis 1, the last one shorter.
  absl::StatusOr<std::vector<Tensor>> pieces = RunText(
      Model("(float[2,3] x, int64 k) => (seq(float) s)", "s = SplitToSequence <axis = 1> (x, k)"),
      {x, I64(2)});
  ASSERT_TRUE(pieces.ok()) << pieces.status();
  const std::vector<Tensor>& p = (*pieces)[0].elements();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].dims(), (Shape{2, 2}));
  EXPECT_EQ(Values(p[0]), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(Values(p[1]), (std::vector<float>{2, 5}));
  absl::StatusOr<std::vector<Tensor>> joined =
      RunText(Model("(seq(float) s) => (float[2,3] y)", "y = ConcatFromSequence <axis = 1> (s)"),
              {(*pieces)[0]});
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(Values((*joined)[0]), Values(x));

  // Without a split and keepdims = 0: rows; stacked back along a new axis.
  absl::StatusOr<std::vector<Tensor>> rows = RunText(
      Model("(float[2,3] x) => (seq(float) s)", "s = SplitToSequence <keepdims = 0> (x)"), {x});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].elements()[1].dims(), (Shape{3}));
  absl::StatusOr<std::vector<Tensor>> stacked =
      RunText(Model("(seq(float) s) => (float[3,2] y)",
                    "y = ConcatFromSequence <axis = -1, new_axis = 1> (s)"),
              {(*rows)[0]});
  ASSERT_TRUE(stacked.ok()) << stacked.status();
  EXPECT_EQ((*stacked)[0].dims(), (Shape{3, 2}));
  EXPECT_EQ(Values((*stacked)[0]), (std::vector<float>{0, 3, 1, 4, 2, 5}));

  absl::StatusOr<std::vector<Tensor>> mismatch =
      RunText(Model("(seq(float) s) => (float[] y)", "y = ConcatFromSequence <axis = 0> (s)"),
              {Seq({Floats({1, 2}, {1, 2}), Floats({1, 3}, {1, 2, 3})})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_TRUE(absl::StrContains(mismatch.status().message(), "does not match element 0"))
      << mismatch.status();
}

TEST(SequenceTest, OptionalsHoldAValueOrNothing) {
  const Tensor x = Floats({2}, {1, 2});
  absl::StatusOr<std::vector<Tensor>> some =
      RunText(Model("(float[2] x) => (optional(float[2]) o)", "o = Optional (x)"), {x});
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ((*some)[0].kind(), ValueKind::kTensor);  // a present optional is its value
  const Tensor none = Tensor::NoneOptional(ElementType::kFloat);
  for (const Tensor& o : {(*some)[0], none}) {
    absl::StatusOr<std::vector<Tensor>> has =
        RunText(Model("(optional(float[2]) o) => (bool h)", "h = OptionalHasElement (o)"), {o});
    ASSERT_TRUE(has.ok()) << has.status();
    EXPECT_EQ(*(*has)[0].As<uint8_t>(), o.kind() == ValueKind::kTensor ? 1 : 0);
  }
  absl::StatusOr<std::vector<Tensor>> got = RunText(
      Model("(optional(float[2]) o) => (float[2] y)", "y = OptionalGetElement (o)"), {(*some)[0]});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Values((*got)[0]), (std::vector<float>{1, 2}));
  absl::StatusOr<std::vector<Tensor>> empty = RunText(
      Model("(optional(float[2]) o) => (float[2] y)", "y = OptionalGetElement (o)"), {none});
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(absl::StrContains(empty.status().message(), "the optional is empty"))
      << empty.status();
}

}  // namespace
}  // namespace anvil
