// simd/quantize.h on every SIMD target against the scalar formulas: ties that round to even,
// saturation at both ends of both types, lengths that end mid-vector.
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

}  // namespace
}  // namespace anvil::simd
