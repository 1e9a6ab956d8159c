// The emitted units' preludes compiled on their own: prelude.inc (with base/float16.inc) and
// vector_prelude.inc (with the kernels' vector math, on Highway's static target), as the top of
// an emitted unit includes them, and a few of their helpers checked.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "lower/emit/abi.h"

// clang-format off
#include "lower/emit/prelude.inc"
#define ANVIL_VECTOR_MATH(...) __VA_ARGS__
#include "lower/emit/vector_prelude.inc"
#undef ANVIL_VECTOR_MATH
// clang-format on

#include "base/float16.h"
#include "gtest/gtest.h"
#include "lower/emit/prelude_text.h"

namespace anvil::lower {
namespace {

float Bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// A host whose failures are counted and whose allocations come from a vector.
struct TestHost {
  int failures = 0;
  std::string last;
  std::vector<std::vector<uint8_t>> blocks;
  AnvilHost host = {this, nullptr, nullptr, &Alloc, &Fail, nullptr};

  static void Fail(void* ctx, const char* message) {
    auto* self = static_cast<TestHost*>(ctx);
    ++self->failures;
    self->last = message;
  }
  static void* Alloc(void* ctx, int64_t bytes) {
    auto* self = static_cast<TestHost*>(ctx);
    self->blocks.emplace_back(static_cast<size_t>(bytes));
    return self->blocks.back().data();
  }
};

TEST(PreludeTest, IntegersWrapAndSizesReportOverflow) {
  EXPECT_EQ(anvil_add<int32_t>(std::numeric_limits<int32_t>::max(), 1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(anvil_mul<int8_t>(64, 4), 0);
  EXPECT_EQ(anvil_neg<int64_t>(std::numeric_limits<int64_t>::min()),
            std::numeric_limits<int64_t>::min());
  bool overflow = false;
  EXPECT_EQ(anvil_mul_chk<int64_t>(int64_t{1} << 40, 1 << 10, &overflow), int64_t{1} << 50);
  EXPECT_FALSE(overflow);
  anvil_mul_chk<int64_t>(int64_t{1} << 40, int64_t{1} << 40, &overflow);
  EXPECT_TRUE(overflow);
}

TEST(PreludeTest, IntegerDivisionFloorsAndFailsOnZero) {
  TestHost h;
  int32_t err = 0;
  EXPECT_EQ(anvil_idiv(&h.host, &err, -7, 2, /*op=*/0, false), -3);
  EXPECT_EQ(anvil_idiv(&h.host, &err, -7, 2, /*op=*/1, false), -4);
  EXPECT_EQ(anvil_idiv(&h.host, &err, -7, 2, /*op=*/2, false), 1);
  EXPECT_EQ(anvil_idiv(&h.host, &err, -7, 2, /*op=*/3, false), -1);
  EXPECT_EQ(anvil_idiv(&h.host, &err, std::numeric_limits<int64_t>::min(), -1, /*op=*/1, false),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(err, 0);
  EXPECT_EQ(anvil_idiv(&h.host, &err, 1, 0, /*op=*/0, false), 0);
  EXPECT_EQ(anvil_idiv(&h.host, &err, 1, 0, /*op=*/0, false), 0);
  EXPECT_EQ(err, 1);
  EXPECT_EQ(h.failures, 1);  // reported once
  EXPECT_EQ(h.last, "integer division by zero");
}

TEST(PreludeTest, FloatToIntegerSaturatesAndNaNIsZero) {
  EXPECT_EQ(anvil_f2i(std::nan(""), -128.0, 127.0), 0);
  EXPECT_EQ(anvil_f2i(1e10, -2147483648.0, 2147483647.0), 2147483647);
  EXPECT_EQ(anvil_f2i(-2.9, -128.0, 127.0), -2);
  EXPECT_EQ(anvil_f2s64(1e30), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(anvil_f2u64(-1.0), 0u);
  EXPECT_TRUE(std::isnan(anvil_fmin(1.0f, std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(anvil_fmax(std::numeric_limits<float>::quiet_NaN(), 1.0f)));
  EXPECT_EQ(anvil_fmin(-0.5f, 2.0f), -0.5f);
}

TEST(PreludeTest, Float16RoundsToNearestEvenAndWidensExactly) {
  EXPECT_EQ(anvil_f2h(1.0f), 0x3c00);
  EXPECT_EQ(anvil_f2h(65520.0f), 0x7c00);               // rounds up to inf
  EXPECT_EQ(anvil_f2h(65519.0f), 0x7bff);               // the largest half
  EXPECT_EQ(anvil_f2h(1.0f + 1.0f / 2048), 0x3c00);     // a tie: to even
  EXPECT_EQ(anvil_f2h(1.0f + 3.0f / 2048), 0x3c02);     // a tie: to even
  EXPECT_EQ(anvil_f2h(Bits(0x33000000u)), 0x0000);      // 2^-25: a tie, to even (0)
  EXPECT_EQ(anvil_f2h(Bits(0x33c00000u)), 0x0002);      // 1.5 * 2^-24: a tie, to even (2)
  EXPECT_EQ(anvil_h2f(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_EQ(anvil_f2h(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(anvil_f2h(std::numeric_limits<float>::quiet_NaN()) & 0x7e00, 0x7e00);  // quiet NaN
  // Every half that is not NaN comes back to its bits through float.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) continue;
    ASSERT_EQ(anvil_f2h(anvil_h2f(static_cast<uint16_t>(h))), h) << h;
  }
  // base/float16.h is the same text.
  EXPECT_EQ(fp16::FloatToHalf(0.1f), anvil_f2h(0.1f));
  EXPECT_EQ(fp16::HalfToFloat(0x3555), anvil_h2f(0x3555));
  EXPECT_EQ(anvil_rnd_f16(0.1f), anvil_h2f(anvil_f2h(0.1f)));
}

TEST(PreludeTest, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(anvil_f2bf(1.0f), 0x3f80);
  EXPECT_EQ(anvil_f2bf(Bits(0x3f808000u)), 0x3f80);           // a tie: to even
  EXPECT_EQ(anvil_f2bf(Bits(0x3f818000u)), 0x3f82);           // a tie: to even
  EXPECT_EQ(anvil_f2bf(Bits(0x7f800001u)) & 0xffc0, 0x7fc0);  // a signaling NaN becomes quiet
  EXPECT_EQ(anvil_bf2f(0x3f80), 1.0f);
  EXPECT_EQ(fp16::FloatToBfloat16(3.3f), anvil_f2bf(3.3f));
  EXPECT_EQ(fp16::Bfloat16ToFloat(0x4040), 3.0f);
}

TEST(PreludeTest, LoopsAllocationsAndParallelChunks) {
  EXPECT_EQ(anvil_trips(0, 10, 3), 4);
  EXPECT_EQ(anvil_trips(5, 5, 1), 0);
  EXPECT_EQ(anvil_trips(0, 10, 0), 0);
  TestHost h;
  const int64_t dims[] = {3, 4};
  EXPECT_NE(anvil_alloc(&h.host, 4, 2, dims), nullptr);
  EXPECT_EQ(h.blocks.back().size(), 48u);
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(anvil_alloc(&h.host, 4, 2, huge), nullptr);
  EXPECT_EQ(h.last, "a local tensor's byte size overflows");
  // Without the host's parallel_for, one chunk of all the trips.
  int64_t seen_lo = -1, seen_hi = -1;
  auto chunk = [&](int64_t lo, int64_t hi) -> int32_t {
    seen_lo = lo;
    seen_hi = hi;
    return 0;
  };
  EXPECT_EQ(anvil_parallel(&h.host, 7, 1, chunk), 0);
  EXPECT_EQ(seen_lo, 0);
  EXPECT_EQ(seen_hi, 7);
}

TEST(VectorPreludeTest, MinMaxPropagateNaNAndDivisionByAnInvariant) {
  const D d;
  const size_t n = hn::Lanes(d);
  std::vector<float> a(n, 2.0f), b(n, 3.0f), out(n);
  a[0] = std::numeric_limits<float>::quiet_NaN();
  hn::StoreU(anvil_vmin(d, hn::LoadU(d, a.data()), hn::LoadU(d, b.data())), d, out.data());
  EXPECT_TRUE(std::isnan(out[0]));
  if (n > 1) {
    EXPECT_EQ(out[1], 2.0f);
  }
  hn::StoreU(anvil_vmax(d, hn::LoadU(d, b.data()), hn::LoadU(d, a.data())), d, out.data());
  EXPECT_TRUE(std::isnan(out[0]));
  if (n > 1) {
    EXPECT_EQ(out[1], 3.0f);
  }
  hn::StoreU(anvil_vdiv(hn::Set(d, 3.0f), hn::Set(d, 0.5f), /*reciprocal=*/true), d, out.data());
  EXPECT_EQ(out[0], 1.5f);
  hn::StoreU(anvil_vdiv(hn::Set(d, 3.0f), hn::Set(d, 2.0f), /*reciprocal=*/false), d, out.data());
  EXPECT_EQ(out[0], 1.5f);
  // The kernels' vector math is in scope.
  hn::StoreU(ExpOp()(d, hn::Zero(d)), d, out.data());
  EXPECT_EQ(out[0], 1.0f);
}

// The emitter embeds both files: the text starts as the unit's helpers do.
TEST(PreludeTextTest, EmbeddedTextIsTheSourceIndented) {
  const std::string prelude = kCcPrelude;
  EXPECT_EQ(prelude.rfind("\n  namespace {\n\n  template <class T>\n  inline T anvil_add", 0), 0u);
  EXPECT_NE(prelude.find("\n  inline uint16_t anvil_f2h(float f) {\n"), std::string::npos);
  EXPECT_EQ(prelude.find("clang-format"), std::string::npos);
  EXPECT_EQ(prelude.find("#include"), std::string::npos);
  const std::string vector_prelude = kCcVectorPrelude;
  EXPECT_NE(vector_prelude.find("struct ExpOp"), std::string::npos);
  EXPECT_NE(vector_prelude.find("\n\n  inline V anvil_vmin(D d, V a, V b) {\n"), std::string::npos);
}

}  // namespace
}  // namespace anvil::lower
