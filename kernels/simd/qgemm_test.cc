// simd/qgemm.h against plain integer loops: 8-bit operands of both signs with zero points at
// their edges (every pair at its largest magnitude), odd K, columns that end mid-panel, sums
// that wrap around int32; on every SIMD target and thread count.
#include "kernels/simd/qgemm.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "base/parallel.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"

namespace anvil::simd {
namespace {

std::vector<uint8_t> RandomBytes(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

int32_t Value(const std::vector<uint8_t>& bytes, bool is_signed, int64_t i) {
  return is_signed ? static_cast<int8_t>(bytes[i]) : bytes[i];
}

// Restores the CPU's own SIMD target when a test that forced others ends.
struct RestoreTargets {
  ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
};

struct Case {
  int64_t M, N, K;
  bool a_signed, b_signed;
  bool per_row, per_column;  // zero points
};

TEST(QGemmTest, MatchesIntegerLoopsOnEveryTarget) {
  RestoreTargets restore;
  const Case cases[] = {
      {1, 1, 1, false, true, false, false},      {7, 33, 17, false, true, false, true},
      {50, 19, 64, true, true, true, false},     {6, 16, 3, false, false, true, true},
      {13, 100, 129, true, false, false, false}, {49, 70, 576, false, true, false, true},
  };
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const Case& c : cases) {
      SCOPED_TRACE(testing::Message() << c.M << "x" << c.N << "x" << c.K);
      const std::vector<uint8_t> a = RandomBytes(c.M * c.K, 1), b = RandomBytes(c.K * c.N, 2);
      // Zero points at the far edge of each type, so that pairs reach 2 x 255^2.
      std::vector<int32_t> a_zero(c.M), b_zero(c.N);
      for (int64_t i = 0; i < c.M; ++i) {
        a_zero[i] = c.per_row ? (i % 2 ? (c.a_signed ? 127 : 255) : 0) : (c.a_signed ? -128 : 255);
      }
      for (int64_t j = 0; j < c.N; ++j) {
        b_zero[j] = c.per_column ? (j % 3 == 0 ? (c.b_signed ? -128 : 255) : j % 50)
                                 : (c.b_signed ? 127 : 0);
      }
      const QRows rows = PackQRows(a.data(), c.a_signed, c.K, c.M, c.K, a_zero.data(), c.per_row);
      const QColumns cols =
          PackQColumns(b.data(), c.b_signed, c.N, c.K, c.N, b_zero.data(), c.per_column);
      for (int threads : {1, 2, 3}) {
        parallel::ThreadScope scope(threads);
        std::vector<int32_t> got(c.M * c.N, -1);
        QGemm(rows, cols, got.data(), c.N);
        for (int64_t i = 0; i < c.M; ++i) {
          for (int64_t j = 0; j < c.N; ++j) {
            int64_t want = 0;
            for (int64_t k = 0; k < c.K; ++k) {
              want += int64_t{Value(a, c.a_signed, i * c.K + k) - a_zero[i]} *
                      (Value(b, c.b_signed, k * c.N + j) - b_zero[j]);
            }
            ASSERT_EQ(got[i * c.N + j], want) << "threads " << threads << " at " << i << "," << j;
          }
        }
      }
    }
  }
}

// K large enough that the sums pass 2^31 (255 x 255 x 2^15 terms): they wrap as int32 does.
TEST(QGemmTest, SumsWrapAroundAsInt32) {
  const int64_t M = 2, N = 3, K = 1 << 16;
  const std::vector<uint8_t> a(M * K, 255), b(K * N, 0);
  const int32_t a_zero = 0, b_zero = 255;  // every term 255 x -255
  const QRows rows = PackQRows(a.data(), false, K, M, K, &a_zero, false);
  const QColumns cols = PackQColumns(b.data(), false, N, K, N, &b_zero, false);
  std::vector<int32_t> got(M * N);
  QGemm(rows, cols, got.data(), N);
  const int64_t exact = int64_t{K} * 255 * -255;
  const int32_t wrapped = static_cast<int32_t>(static_cast<uint32_t>(exact));
  for (int32_t v : got) EXPECT_EQ(v, wrapped);
}

}  // namespace
}  // namespace anvil::simd
