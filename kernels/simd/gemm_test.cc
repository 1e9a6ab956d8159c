// simd/gemm.h under base/parallel.h: every thread count gives the serial call's bits, and both
// match a plain triple loop, across the shape classes that take different paths (small M,
// small N, packed; transposes; beta).
#include "kernels/simd/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "base/parallel.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"

namespace anvil::simd {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

struct Case {
  int64_t M, N, K;
  bool ta, tb;
  float beta;
};

std::vector<float> RunGemm(const Case& c, int threads, const std::vector<float>& a,
                           const std::vector<float>& b, const std::vector<float>& c0) {
  parallel::ThreadScope scope(threads);
  std::vector<float> out = c0;
  Sgemm(c.ta, c.tb, c.M, c.N, c.K, 0.5f, a.data(), c.ta ? c.M : c.K, b.data(), c.tb ? c.K : c.N,
        c.beta, out.data(), c.N);
  return out;
}

TEST(GemmTest, EveryThreadCountGivesTheSerialBits) {
  const Case cases[] = {
      {3, 4000, 300, false, false, 0.0f},
      {2, 3000, 257, false, true, 1.0f},
      {4000, 3, 300, false, false, 0.0f},
      {3000, 2, 129, true, false, 0.5f},
      {512, 512, 300, false, false, 0.0f},
      {301, 497, 513, true, true, 1.0f},
      {100, 1500, 64, false, true, 0.0f},
      {1500, 60, 64, true, false, 0.0f},
      // Batch-1 layers: split for their weight bytes, not their flops.
      {1, 1024, 1024, false, false, 0.0f},
      {1, 3136, 256, false, true, 1.0f},
  };
  for (const Case& c : cases) {
    const std::vector<float> a = Random(c.M * c.K, 1), b = Random(c.K * c.N, 2),
                             c0 = Random(c.M * c.N, 3);
    const std::vector<float> serial = RunGemm(c, 1, a, b, c0);
    // The reference: a double-precision triple loop.
    double max_err = 0;
    for (int64_t i = 0; i < c.M; i += 7) {
      for (int64_t j = 0; j < c.N; j += 5) {
        double s = 0;
        for (int64_t k = 0; k < c.K; ++k) {
          s += double{a[c.ta ? k * c.M + i : i * c.K + k]} * b[c.tb ? j * c.K + k : k * c.N + j];
        }
        const double want = 0.5 * s + c.beta * c0[i * c.N + j];
        max_err = std::max(max_err, std::fabs(want - serial[i * c.N + j]));
      }
    }
    EXPECT_LT(max_err, 1e-3) << c.M << "x" << c.N << "x" << c.K;
    for (int threads : {2, 3, 4}) {
      EXPECT_EQ(RunGemm(c, threads, a, b, c0), serial)
          << c.M << "x" << c.N << "x" << c.K << " with " << threads << " threads";
    }
  }
}

// A pre-packed B: the same products (against the double reference), for every M including
// the ones Sgemm handles unpacked, transposes, beta, and any thread count.
TEST(GemmTest, PrepackedBMatchesTheReference) {
  const Case cases[] = {
      {1, 1000, 300, false, false, 0.0f}, {3, 97, 1030, true, true, 1.0f},
      {8, 768, 768, false, true, 0.5f},   {200, 5, 64, false, false, 0.0f},
      {301, 497, 513, true, false, 1.0f}, {8, 1024, 1024, false, true, 0.0f},
      {2, 1000, 40, true, false, 1.0f},
  };
  for (const Case& c : cases) {
    const std::vector<float> a = Random(c.M * c.K, 4), b = Random(c.K * c.N, 5),
                             c0 = Random(c.M * c.N, 6);
    const std::unique_ptr<const PackedB> packed = PackB(c.tb, c.K, c.N, b.data(), c.tb ? c.K : c.N);
    auto run = [&](int threads, bool split_all = false) {
      parallel::ThreadScope scope(threads);
      std::optional<parallel::ScopedSplitAll> split;
      if (split_all) split.emplace();
      std::vector<float> out = c0;
      SgemmPackedB(c.ta, c.M, 0.5f, a.data(), c.ta ? c.M : c.K, *packed, c.beta, out.data(), c.N);
      return out;
    };
    const std::vector<float> got = run(1);
    double max_err = 0;
    for (int64_t i = 0; i < c.M; ++i) {
      for (int64_t j = 0; j < c.N; j += 3) {
        double s = 0;
        for (int64_t k = 0; k < c.K; ++k) {
          s += double{a[c.ta ? k * c.M + i : i * c.K + k]} * b[c.tb ? j * c.K + k : k * c.N + j];
        }
        max_err =
            std::max(max_err, std::fabs(0.5 * s + c.beta * c0[i * c.N + j] - got[i * c.N + j]));
      }
    }
    EXPECT_LT(max_err, 1e-3) << c.M << "x" << c.N << "x" << c.K;
    EXPECT_EQ(run(3), got) << c.M << "x" << c.N << "x" << c.K;
    // Every loop split: few rows split by panels, across the packed column blocks' boundaries.
    EXPECT_EQ(run(2, true), got) << c.M << "x" << c.N << "x" << c.K << " split";
    EXPECT_EQ(run(3, true), got) << c.M << "x" << c.N << "x" << c.K << " split";
    // A column bias in the store: the bits of C filled with it and beta = 1.
    const std::vector<float> bias = Random(c.N, 7);
    std::vector<float> filled(c.M * c.N);
    for (int64_t i = 0; i < c.M; ++i) std::copy(bias.begin(), bias.end(), filled.begin() + i * c.N);
    SgemmPackedB(c.ta, c.M, 0.5f, a.data(), c.ta ? c.M : c.K, *packed, 1.0f, filled.data(), c.N);
    for (int threads : {1, 3}) {
      parallel::ThreadScope scope(threads);
      std::vector<float> out(c.M * c.N, std::nanf(""));
      SgemmPackedB(c.ta, c.M, 0.5f, a.data(), c.ta ? c.M : c.K, *packed, 0.0f, out.data(), c.N,
                   bias.data());
      EXPECT_EQ(out, filled) << c.M << "x" << c.N << "x" << c.K << " column bias, " << threads
                             << " threads";
    }
  }
}

// B's panels from a filler (here copying a stored B): the bits of Sgemm's packed path, a row
// bias giving those of a C filled with it and beta = 1, across K slices and thread counts.
TEST(GemmTest, FilledBGivesThePackedPathsBits) {
  const Case cases[] = {
      {5, 7, 3, false, false, 0.0f},
      {37, 300, 600, false, false, 0.0f},
      {64, 1024, 27, false, false, 0.0f},
      {9, 100, 257, false, false, 1.0f},
      // Narrower than two 48-column blocks: threads split 16-column blocks (a 64-column product
      // 32:32 at 2 threads, 32:16:16 at 3).
      {64, 64, 288, false, false, 0.0f},
      {100, 40, 300, false, false, 0.5f},
      // Narrower than two 16-column blocks: threads split the rows, each filling all of B.
      {100, 20, 300, false, false, 0.0f},
  };
  for (const Case& c : cases) {
    const std::vector<float> a = Random(c.M * c.K, 7), b = Random(c.K * c.N, 8),
                             bias = Random(c.M, 9), c0 = Random(c.M * c.N, 10);
    auto fill = [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) {
      for (int64_t k = 0; k < kc; ++k) {
        for (int64_t j = 0; j < pw; ++j) dst[k * pw + j] = j < w ? b[(k0 + k) * c.N + j0 + j] : 0;
      }
    };
    // PackRowsOfB fills what the element-wise filler does (zeros past w included).
    for (int64_t j0 : {int64_t{0}, c.N / 2}) {
      const int64_t w = std::min<int64_t>(16, c.N - j0), pw = 16, kc = std::min<int64_t>(c.K, 5);
      std::vector<float> expected(kc * pw, -1.0f), packed(kc * pw, -1.0f);
      fill(1 % c.K, kc - 1 % c.K, j0, w, pw, expected.data());
      PackRowsOfB(b.data(), c.N, 1 % c.K, kc - 1 % c.K, j0, w, pw, packed.data());
      EXPECT_EQ(packed, expected) << c.M << "x" << c.N << "x" << c.K << " at column " << j0;
    }
    for (bool with_bias : {false, true}) {
      // The reference: Sgemm onto C = bias (beta 1) or onto c0 with the case's beta.
      std::vector<float> want = c0;
      float beta = c.beta;
      if (with_bias) {
        for (int64_t i = 0; i < c.M; ++i) {
          std::fill(want.begin() + i * c.N, want.begin() + (i + 1) * c.N, bias[i]);
        }
        beta = 1.0f;
      }
      Sgemm(false, false, c.M, c.N, c.K, 1.0f, a.data(), c.K, b.data(), c.N, beta, want.data(),
            c.N);
      for (int threads : {1, 3}) {
        parallel::ThreadScope scope(threads);
        std::vector<float> got = c0;
        SgemmFilledB(c.M, c.N, c.K, a.data(), c.K, fill, with_bias ? bias.data() : nullptr,
                     with_bias ? 0.0f : c.beta, got.data(), c.N);
        EXPECT_EQ(got, want) << c.M << "x" << c.N << "x" << c.K << (with_bias ? " with bias" : "")
                             << ", " << threads << " threads";
        std::vector<float> rows = c0;
        auto pack_rows = [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw,
                             float* dst) { PackRowsOfB(b.data(), c.N, k0, kc, j0, w, pw, dst); };
        SgemmFilledB(c.M, c.N, c.K, a.data(), c.K, pack_rows, with_bias ? bias.data() : nullptr,
                     with_bias ? 0.0f : c.beta, rows.data(), c.N);
        EXPECT_EQ(rows, want) << c.M << "x" << c.N << "x" << c.K << " from PackRowsOfB";
      }
    }
  }
}

// Every SIMD target this machine runs, with every operand one float off a vector boundary and
// rows that end mid-vector (tails of A, B, C and the bias): the reference's values. Targets that
// emulate masked loads with a full aligned load would fault or read past the rows here.
TEST(GemmTest, EveryTargetTakesUnalignedTails) {
  struct AllTargets {
    ~AllTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  const Case cases[] = {
      {3, 37, 21, false, false, 1.0f},  {37, 3, 21, false, true, 0.5f},
      {29, 43, 19, true, false, 1.0f},  {29, 43, 19, false, true, 0.0f},
      {17, 100, 70, true, true, 0.25f},
  };
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const Case& c : cases) {
      // One float in front of each operand: none is aligned to a vector.
      const std::vector<float> a = Random(c.M * c.K + 1, 8), b = Random(c.K * c.N + 1, 9),
                               c0 = Random(c.M * c.N + 1, 10), bias = Random(c.N + 1, 11);
      std::vector<float> out = c0;
      Sgemm(c.ta, c.tb, c.M, c.N, c.K, 0.5f, a.data() + 1, c.ta ? c.M : c.K, b.data() + 1,
            c.tb ? c.K : c.N, c.beta, out.data() + 1, c.N);
      const std::unique_ptr<const PackedB> packed =
          PackB(c.tb, c.K, c.N, b.data() + 1, c.tb ? c.K : c.N);
      std::vector<float> biased(c.M * c.N + 1, 0.0f);
      SgemmPackedB(c.ta, c.M, 0.5f, a.data() + 1, c.ta ? c.M : c.K, *packed, 0.0f,
                   biased.data() + 1, c.N, bias.data() + 1);
      double max_err = 0;
      for (int64_t i = 0; i < c.M; ++i) {
        for (int64_t j = 0; j < c.N; ++j) {
          double s = 0;
          for (int64_t k = 0; k < c.K; ++k) {
            s += double{a[1 + (c.ta ? k * c.M + i : i * c.K + k)]} *
                 b[1 + (c.tb ? j * c.K + k : k * c.N + j)];
          }
          const double want = 0.5 * s + c.beta * c0[1 + i * c.N + j];
          max_err = std::max(max_err, std::fabs(want - out[1 + i * c.N + j]));
          max_err = std::max(max_err, std::fabs(0.5 * s + bias[1 + j] - biased[1 + i * c.N + j]));
        }
      }
      EXPECT_LT(max_err, 1e-4) << c.M << "x" << c.N << "x" << c.K;
    }
  }
}

// A last column panel of one to three columns (a 7x7 image's 49 columns) takes the dot-product
// tail when A is read in place (alpha 1, not transposed): the reference's values on every
// target, across K slices and K tails that end mid-vector, with a row bias, beta and an
// epilogue, and the same bits for every thread count (rows or columns split).
TEST(GemmTest, NarrowLastPanelMatchesTheReference) {
  struct AllTargets {
    ~AllTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  const Case cases[] = {
      {70, 49, 600, false, false, 0.0f}, {13, 18, 37, false, false, 1.0f},
      {29, 35, 513, false, false, 0.5f}, {512, 49, 300, false, false, 0.0f},
      {7, 65, 9, false, false, 1.0f},
  };
  const Epilogue relu{Activation::kRelu};
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (const Case& c : cases) {
      // One float in front of each operand: none is aligned to a vector.
      const std::vector<float> a = Random(c.M * c.K + 1, 12), b = Random(c.K * c.N, 13),
                               c0 = Random(c.M * c.N, 14), bias = Random(c.M, 15);
      auto fill = [&](int64_t k0, int64_t kc, int64_t j0, int64_t w, int64_t pw, float* dst) {
        PackRowsOfB(b.data(), c.N, k0, kc, j0, w, pw, dst);
      };
      for (const Epilogue* epilogue : {static_cast<const Epilogue*>(nullptr), &relu}) {
        auto run = [&](int threads) {
          parallel::ThreadScope scope(threads);
          std::vector<float> out = c0;
          SgemmFilledB(c.M, c.N, c.K, a.data() + 1, c.K, fill, bias.data(), c.beta, out.data(), c.N,
                       epilogue);
          return out;
        };
        const std::vector<float> got = run(1);
        double max_err = 0;
        for (int64_t i = 0; i < c.M; ++i) {
          for (int64_t j = 0; j < c.N; ++j) {
            double s = bias[i] + c.beta * c0[i * c.N + j];
            for (int64_t k = 0; k < c.K; ++k) s += double{a[1 + i * c.K + k]} * b[k * c.N + j];
            if (epilogue != nullptr) s = std::max(s, 0.0);
            max_err = std::max(max_err, std::fabs(s - got[i * c.N + j]));
          }
        }
        EXPECT_LT(max_err, 1e-3) << c.M << "x" << c.N << "x" << c.K;
        for (int threads : {2, 3}) {
          EXPECT_EQ(run(threads), got)
              << c.M << "x" << c.N << "x" << c.K << ", " << threads << " threads";
        }
      }
    }
  }
}

}  // namespace
}  // namespace anvil::simd
