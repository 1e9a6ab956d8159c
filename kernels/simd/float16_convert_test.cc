#include "kernels/simd/float16_convert.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "base/float16.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"

namespace anvil::simd {
namespace {

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }
float FromBits(uint32_t b) { return std::bit_cast<float>(b); }

// Every SIMD target this machine runs (F16C's and the scalar fallback's), at offsets that leave
// vector tails: the bits of base/float16.h for all 65536 float16 values and for floats around
// every rounding boundary (ties, overflow to inf, subnormals, NaN payloads, signed zeros).
TEST(Float16Convert, EveryTargetGivesTheScalarBits) {
  struct AllTargets {
    ~AllTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  std::vector<uint16_t> halves(65536 + 3);
  for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i * 40503u);
  std::vector<float> floats = {0.0f,
                               -0.0f,
                               1.0f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               -65520.0f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               FromBits(0xff812345u),
                               FromBits(0x7fa00001u),
                               1e-8f,
                               -3e-6f,
                               6e-5f,
                               5.9604645e-8f,
                               2.9802322e-8f,
                               1.0f + 1.0f / 2048,
                               1.0f + 3.0f / 2048};
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    // Random bits in the float16 range and beyond, so every exponent and rounding case occurs.
    floats.push_back(FromBits((rng() & 0x807fffffu) | ((100 + rng() % 60) << 23)));
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
      const size_t n = halves.size() - offset;
      std::vector<float> widened(n);
      HalfToFloat(halves.data() + offset, widened.data(), n);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(widened[i]), Bits(fp16::HalfToFloat(halves[offset + i])))
            << "half 0x" << std::hex << halves[offset + i];
      }
      const size_t m = floats.size() - offset;
      std::vector<uint16_t> narrowed(m);
      FloatToHalf(floats.data() + offset, narrowed.data(), m);
      for (size_t i = 0; i < m; ++i) {
        ASSERT_EQ(narrowed[i], fp16::FloatToHalf(floats[offset + i]))
            << "float bits 0x" << std::hex << Bits(floats[offset + i]);
      }
    }
  }
}

}  // namespace
}  // namespace anvil::simd
