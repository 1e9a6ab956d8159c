// simd/quantize.h on every SIMD target against the scalar formulas: ties that round to even,
// saturation at both ends of both types, lengths that end mid-vector; Requantize with biases and
// sums far past any range.
#include "kernels/simd/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "hwy/targets.h"

namespace anvil::simd {
namespace {

struct RestoreTargets {
  ~RestoreTargets() { hwy::SetSupportedTargetsForTest(0); }
};

std::vector<float> Values(int64_t n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-300.0f, 300.0f);
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    // Every fourth value an exact tie x.5 (of the scale 0.5 below: a quarter), the rest spread.
    v[i] = i % 4 == 0 ? 0.25f * static_cast<float>(2 * (i % 200) - 199) : dist(rng);
  }
  return v;
}

TEST(QuantizeTest, MatchesTheScalarFormulasOnEveryTarget) {
  RestoreTargets restore;
  const int64_t n = 203;
  const std::vector<float> x = Values(n);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    float lo = 0.0f, hi = 0.0f;
    MinMax(x.data(), n, &lo, &hi);
    EXPECT_EQ(lo, *std::min_element(x.begin(), x.end()));
    EXPECT_EQ(hi, *std::max_element(x.begin(), x.end()));
    for (bool is_signed : {false, true}) {
      for (int32_t zero :
           is_signed ? std::vector<int32_t>{-128, 0, 127} : std::vector<int32_t>{0, 128, 255}) {
        std::vector<uint8_t> q(n);
        QuantizeLinear(x.data(), n, 0.5f, zero, is_signed, q.data());
        std::vector<float> back(n);
        DequantizeLinear(q.data(), is_signed, n, 0.5f, zero, back.data());
        for (int64_t i = 0; i < n; ++i) {
          const int64_t want =
              std::clamp<int64_t>(static_cast<int64_t>(std::nearbyint(x[i] / 0.5f)) + zero,
                                  is_signed ? -128 : 0, is_signed ? 127 : 255);
          const int64_t have = is_signed ? static_cast<int8_t>(q[i]) : q[i];
          ASSERT_EQ(have, want) << "x " << x[i] << " zero " << zero;
          ASSERT_EQ(back[i], static_cast<float>(have - zero) * 0.5f);
        }
      }
    }
  }
}

TEST(QuantizeTest, RequantizeRoundsHalfToEvenAndSaturates) {
  RestoreTargets restore;
  const int64_t n = 37;
  std::vector<int32_t> acc(n);
  std::vector<float> multiplier(n);
  std::vector<int32_t> zero(n);
  std::mt19937 rng(3);
  for (int64_t j = 0; j < n; ++j) {
    // Ties (odd / 2), values near the int8 and uint8 edges, and far past any range.
    acc[j] = j < 10   ? 2 * j - 9
             : j < 20 ? static_cast<int32_t>(rng() % 600) - 300
                      : static_cast<int32_t>(rng());
    multiplier[j] = j < 10 ? 0.5f : j < 20 ? 0.75f : 1e-3f * static_cast<float>(j);
    zero[j] = static_cast<int32_t>(j % 5) * 31;
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (bool is_signed : {false, true}) {
      for (bool per_column : {false, true}) {
        std::vector<uint8_t> got(n);
        const int32_t bias = is_signed ? -37 : 1000;
        Requantize(acc.data(), n, bias, multiplier.data(), zero.data(), per_column, is_signed,
                   got.data());
        for (int64_t j = 0; j < n; ++j) {
          const int64_t c = per_column ? j : 0;
          const int32_t sum =
              static_cast<int32_t>(static_cast<uint32_t>(acc[j]) + static_cast<uint32_t>(bias));
          const double scaled = std::nearbyint(double{static_cast<float>(sum) * multiplier[c]});
          const int64_t want = std::clamp<int64_t>(static_cast<int64_t>(scaled) + zero[c],
                                                   is_signed ? -128 : 0, is_signed ? 127 : 255);
          const int64_t have = is_signed ? static_cast<int8_t>(got[j]) : got[j];
          ASSERT_EQ(have, want) << "element " << j << " signed " << is_signed;
        }
      }
    }
  }
}

}  // namespace
}  // namespace anvil::simd
