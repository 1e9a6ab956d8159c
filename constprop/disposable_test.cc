#include "constprop/disposable.h"

#include <cstring>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace anvil {
namespace {

// A 2x3 float constant 0..5 in a pool buffer.
std::shared_ptr<const DisposableElements> Iota23(DisposablePool& pool) {
  auto buffer = pool.Allocate(6 * sizeof(float));
  std::vector<float> values(6);
  std::iota(values.begin(), values.end(), 0.0f);
  std::memcpy(buffer->mutable_data(), values.data(), 6 * sizeof(float));
  return DisposableElements::Dense(buffer, ElementType::kFloat, {2, 3});
}

template <typename T>
std::vector<T> Read(const Elements& e) {
  std::vector<T> out(e.NumElements());
  e.CopyTo(reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

TEST(DisposableTest, TransposeIsAViewThatReadsPermuted) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto t = a->Transpose({1, 0});
  EXPECT_EQ(t->buffer(), a->buffer());
  EXPECT_EQ(t->ContiguousData(), nullptr);
  EXPECT_EQ(Read<float>(*t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(pool.stats().bytes_live, 24);
}

TEST(DisposableTest, BroadcastSliceReshapeAndSplat) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto row = a->Slice({1, 0}, {1, 2}, {1, 2});  // a[1:2, ::2] = [[3, 5]]
  EXPECT_EQ(Read<float>(*row), (std::vector<float>{3, 5}));
  auto wide = row->BroadcastTo({3, 2});
  EXPECT_EQ(Read<float>(*wide), (std::vector<float>{3, 5, 3, 5, 3, 5}));
  auto flat = a->Reshape({3, 2});
  ASSERT_NE(flat, nullptr);
  EXPECT_NE(flat->ContiguousData(), nullptr);
  EXPECT_EQ(a->Transpose({1, 0})->Reshape({6}), nullptr);  // not dense: caller materializes
  auto one = a->Slice({0, 2}, {1, 1}, {1, 1})->BroadcastTo({4, 4});
  EXPECT_TRUE(one->IsSplat());
  EXPECT_EQ(Read<float>(*one), std::vector<float>(16, 2.0f));
}

TEST(DisposableTest, ReshapeIsAViewWheneverTheStridesAllowIt) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto t = a->Transpose({1, 0});  // [3, 2], strides [1, 3]
  // Splitting a dim of a transposed view is a view; merging its two dims is not.
  auto split = t->Reshape({3, 2, 1});
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->buffer(), a->buffer());
  EXPECT_EQ(Read<float>(*split), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  auto a6 = Iota23(pool)->Reshape({6});
  auto t23 = a6->Reshape({2, 3})->Transpose({1, 0})->Reshape({1, 3, 1, 2});
  ASSERT_NE(t23, nullptr);
  EXPECT_EQ(Read<float>(*t23), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t->Reshape({6}), nullptr);
  EXPECT_EQ(ReshapeStrides({3, 2}, {1, 3}, {3, 2, 1}), (std::vector<int64_t>{1, 3, 0}));
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 4}, {2, 2, 3, 2}), (std::vector<int64_t>{2, 1, 8, 4}));
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 4}, {24}), std::nullopt);
  // A broadcast dim (stride 0) splits into broadcast dims.
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 0}, {4, 2, 3}), (std::vector<int64_t>{1, 0, 0}));
}

TEST(DisposableTest, CollectorReleasesUnreachableBuffers) {
  DisposablePool pool;
  const Buffer* kept;
  {
    auto a = Iota23(pool);
    auto b = Iota23(pool);
    kept = a->buffer().get();
    EXPECT_EQ(pool.stats().bytes_live, 48);
    // `b` is still held here: releasing the pool's reference frees nothing yet.
    EXPECT_EQ(pool.ReleaseUnreachable({kept}), 0);
    EXPECT_EQ(pool.stats().bytes_live, 48);
  }
  // Both views are gone; `a`'s buffer is still owned by the pool (it was reachable).
  EXPECT_EQ(pool.stats().bytes_live, 24);
  EXPECT_EQ(pool.ReleaseUnreachable({}), 24);
  EXPECT_EQ(pool.stats().bytes_live, 0);
  EXPECT_EQ(pool.stats().bytes_peak, 48);
  EXPECT_EQ(pool.stats().bytes_released, 48);
}

TEST(DisposableTest, WrapSharesContiguousConstants) {
  DisposablePool pool;
  auto dense = DenseElements::FromVector<int32_t>(ElementType::kInt32, {3}, {7, 8, 9});
  auto wrapped = DisposableElements::Wrap(dense, pool);
  EXPECT_EQ(wrapped->ContiguousData(), dense->ContiguousData());
  EXPECT_EQ(pool.stats().bytes_live, 0);
  EXPECT_EQ(Read<int32_t>(*wrapped->BroadcastTo({2, 3})), (std::vector<int32_t>{7, 8, 9, 7, 8, 9}));
}

}  // namespace
}  // namespace anvil
