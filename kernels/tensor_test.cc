#include "kernels/tensor.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace anvil {
namespace {

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

}  // namespace
}  // namespace anvil
