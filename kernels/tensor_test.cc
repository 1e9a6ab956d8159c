#include "kernels/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/tensor_view.h"

namespace anvil {
namespace {

// BroadcastsTo is BroadcastTo's precondition: right-aligned, each dim 1 or equal, rank at most
// the target's.
TEST(TensorViewTest, BroadcastsToFollowsNumpyOneWay) {
  float data[6] = {};
  auto view = [&](std::vector<int64_t> dims) {
    return TensorView::Dense(ElementType::kFloat, data, dims);
  };
  EXPECT_TRUE(view({}).BroadcastsTo({2, 3}));
  EXPECT_TRUE(view({3}).BroadcastsTo({2, 3}));
  EXPECT_TRUE(view({2, 1}).BroadcastsTo({2, 3}));
  EXPECT_TRUE(view({1, 1, 3}).BroadcastsTo({4, 2, 3}));
  EXPECT_FALSE(view({2}).BroadcastsTo({2, 3}));
  EXPECT_FALSE(view({3, 2}).BroadcastsTo({1}));        // the fuzzer's a_zero_point
  EXPECT_FALSE(view({1, 2, 3}).BroadcastsTo({2, 3}));  // higher rank, even with a leading 1
  EXPECT_FALSE(view({2, 3}).BroadcastsTo({2, 1}));     // one way only
}

TEST(TensorRecyclerTest, ReusesABufferOnlyOnceItsCallerDroppedIt) {
  TensorRecycler recycler;
  absl::StatusOr<Tensor> first =
      recycler.Allocate(0, ElementType::kFloat, {4, 8}, kNoAllocationLimit);
  ASSERT_TRUE(first.ok());
  void* const first_data = first->data();
  first->As<float>()[3] = 7.0f;
  // Still held by the caller: a second buffer.
  absl::StatusOr<Tensor> second =
      recycler.Allocate(0, ElementType::kFloat, {4, 8}, kNoAllocationLimit);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->data(), first_data);
  void* const second_data = second->data();
  // `out = Run()` in a loop: the first is dropped, the second still held.
  *first = Tensor();
  absl::StatusOr<Tensor> third =
      recycler.Allocate(0, ElementType::kFloat, {4, 8}, kNoAllocationLimit);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->data(), first_data);
  EXPECT_EQ(third->As<float>()[3], 0.0f);  // zeroed again
  // Other dims, type or slot: a new buffer.
  *second = Tensor();
  absl::StatusOr<Tensor> other =
      recycler.Allocate(0, ElementType::kFloat, {8, 4}, kNoAllocationLimit);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->data(), second_data);
  absl::StatusOr<Tensor> other_slot =
      recycler.Allocate(1, ElementType::kFloat, {4, 8}, kNoAllocationLimit);
  ASSERT_TRUE(other_slot.ok());
  EXPECT_NE(other_slot->data(), second_data);
  // Errors are Tensor::Allocate's.
  EXPECT_FALSE(recycler.Allocate(2, ElementType::kFloat, {1 << 20}, 1024).ok());
}

TEST(TensorBorrowTest, ViewsTheOwnersBytesAndKeepsItAliveUntilTheLastCopy) {
  int released = 0;
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  float* data = owner->data();
  std::shared_ptr<const void> keep(owner.get(), [&released, owner](const void*) { ++released; });
  owner.reset();
  Tensor t = Tensor::Borrow(ElementType::kFloat, {2, 3}, data, std::move(keep));
  EXPECT_EQ(t.data(), data);
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.As<float>()[5], 6.0f);
  EXPECT_EQ(t.view().dims, (Shape{2, 3}));
  {
    Tensor copy = t;
    EXPECT_FALSE(t.SoleOwner());  // a recycler never reuses a borrowed buffer still shared
  }
  EXPECT_EQ(released, 0);
  t = Tensor();
  EXPECT_EQ(released, 1);
}

}  // namespace
}  // namespace anvil
