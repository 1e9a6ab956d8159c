// Tests of the compute kernel family (ops/compute*.cc) and its SIMD routines (simd/gemm.h,
// simd/reduce.h): GEMM against a naive reference over every path (small M, small N, packed;
// transposes; leading dimensions; alpha/beta), handwritten cases for what the ONNX backend data
// does not reach (strided and broadcast operands, float16, integer types, old opsets, random
// convolution geometries against a direct reference), then every single-node ONNX backend test
// of the family through RunNode.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/float16.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "exec/testing/backend_test_util.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "graph/op_table.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "kernels/dispatch.h"
#include "kernels/kernel_rules.h"
#include "kernels/op_kernel.h"
#include "kernels/simd/gemm.h"
#include "kernels/simd/reduce.h"
#include "kernels/tensor.h"
#include "kernels/tensor_file.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

// Every op of the op table (graph/op_list.inc) has a kernel, at every opset it lists.
TEST(KernelRegistryTest, EveryOpOfTheTableHasAKernel) {
  for (const OpInfo& op : AllOps()) {
    SCOPED_TRACE(std::string(op.op_type));
    for (int v = op.since_version; v <= op.last_version; ++v) {
      EXPECT_TRUE(HasKernel(op.domain, op.op_type, v)) << v;
    }
  }
  EXPECT_EQ(ListKernelOps().size(), AllOps().size());
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

using kernel_testing::CompareTensors;
using kernel_testing::Dims;
using kernel_testing::Floats;
using kernel_testing::Int64s;
using kernel_testing::MakeTensor;
using kernel_testing::ModelText;
using kernel_testing::RunText;
using kernel_testing::RunViews;
using kernel_testing::Values;

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Tensor RandomTensor(std::vector<int64_t> dims, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return Floats(std::move(dims), RandomFloats(n, seed));
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

// ---------------------------------------------------------------------------------------------
// GEMM
// ---------------------------------------------------------------------------------------------

template <typename T>
void NaiveGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A, int64_t lda,
               const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) {
        s += static_cast<double>(ta ? A[k * lda + i] : A[i * lda + k]) *
             static_cast<double>(tb ? B[j * ldb + k] : B[k * ldb + j]);
      }
      T& c = C[i * ldc + j];
      c = static_cast<T>(alpha * s + (beta == T(0) ? 0.0 : beta * static_cast<double>(c)));
    }
  }
}

template <typename T>
void CheckGemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, T beta, int64_t pad) {
  // Leading dims padded by `pad` elements: the kernels must honour lda/ldb/ldc.
  const int64_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N + pad;
  const int64_t a_rows = ta ? K : M, b_rows = tb ? N : K;
  std::vector<float> af = RandomFloats(a_rows * lda, 1), bf = RandomFloats(b_rows * ldb, 2),
                     cf = RandomFloats(M * ldc, 3);
  std::vector<T> a(af.begin(), af.end()), b(bf.begin(), bf.end()), c(cf.begin(), cf.end());
  if (beta == T(0)) {  // C must not be read: NaNs would leak into the result
    std::fill(c.begin(), c.end(), std::numeric_limits<T>::quiet_NaN());
  }
  std::vector<T> want = c;
  NaiveGemm<T>(ta, tb, M, N, K, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc);
  if constexpr (sizeof(T) == 4) {
    simd::Sgemm(ta, tb, M, N, K, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else {
    simd::Dgemm(ta, tb, M, N, K, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  }
  const double tol = sizeof(T) == 4 ? 1e-5 * std::sqrt(static_cast<double>(K) + 1) : 1e-12;
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      const double w = want[i * ldc + j], g = c[i * ldc + j];
      ASSERT_NEAR(g, w, tol * (1 + std::abs(w)))
          << "ta=" << ta << " tb=" << tb << " M=" << M << " N=" << N << " K=" << K << " pad=" << pad
          << " at (" << i << ", " << j << ")";
    }
    for (int64_t j = N; j < ldc; ++j) {  // the padding of C is untouched
      const T w = want[i * ldc + j], g = c[i * ldc + j];
      ASSERT_TRUE((std::isnan(w) && std::isnan(g)) || w == g);
    }
  }
}

struct GemmShape {
  int64_t m, n, k;
};

// Sizes reaching each path: M <= 4 (small M), N <= 4 (small N), packed with partial micro-tiles
// in both directions, K split into several slices, N split into several column blocks.
const GemmShape kGemmShapes[] = {
    {1, 1, 1},     {1, 37, 19},    {3, 70, 33},  {4, 5, 300},  {2, 1, 9},    {37, 1, 19},
    {70, 3, 33},   {9, 4, 17},     {5, 5, 5},    {17, 49, 31}, {8, 48, 256}, {13, 97, 300},
    {64, 67, 513}, {33, 1100, 40}, {100, 20, 0}, {6, 7, 1},
};

TEST(Gemm, MatchesNaiveFloat) {
  for (const GemmShape& s : kGemmShapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (int64_t pad : {0, 3}) {
          CheckGemm<float>(ta, tb, s.m, s.n, s.k, 1.0f, 0.0f, pad);
          CheckGemm<float>(ta, tb, s.m, s.n, s.k, 0.5f, 1.0f, pad);
          CheckGemm<float>(ta, tb, s.m, s.n, s.k, -1.5f, 0.25f, pad);
        }
      }
    }
  }
}

TEST(Gemm, MatchesNaiveDouble) {
  for (const GemmShape& s : kGemmShapes) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        CheckGemm<double>(ta, tb, s.m, s.n, s.k, 1.0, 0.0, 1);
        CheckGemm<double>(ta, tb, s.m, s.n, s.k, 2.0, -1.0, 0);
      }
    }
  }
}

TEST(Gemm, AlphaZeroScalesC) {
  std::vector<float> a(6, std::numeric_limits<float>::quiet_NaN()), b = a;
  std::vector<float> c = {1, 2, 3, 4};
  simd::Sgemm(false, false, 2, 2, 3, 0.0f, a.data(), 3, b.data(), 2, 2.0f, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{2, 4, 6, 8}));
}

// 4 KiB row strides (the L1-aliasing case packing exists for) still give the right answer.
TEST(Gemm, PageStrides) { CheckGemm<float>(false, false, 40, 64, 50, 1.0f, 0.0f, 1024 - 50); }

// ---------------------------------------------------------------------------------------------
// SIMD row routines
// ---------------------------------------------------------------------------------------------

TEST(SimdReduce, MatchesScalar) {
  for (int64_t n : {0, 1, 7, 16, 33, 64, 100, 1000}) {
    std::vector<float> x = RandomFloats(n, 7);
    double sum = 0, sq = 0, ab = 0;
    float mx = -INFINITY, mn = INFINITY;
    for (float v : x) {
      sum += v;
      sq += v * v;
      ab += std::abs(v);
      mx = std::max(mx, v);
      mn = std::min(mn, v);
    }
    EXPECT_NEAR(simd::ReduceSum(x.data(), n), sum, 1e-4);
    EXPECT_NEAR(simd::ReduceSumSquares(x.data(), n), sq, 1e-4);
    EXPECT_NEAR(simd::ReduceSumAbs(x.data(), n), ab, 1e-4);
    EXPECT_EQ(simd::ReduceMax(x.data(), n), mx);
    EXPECT_EQ(simd::ReduceMin(x.data(), n), mn);
    const float mean = n > 0 ? static_cast<float>(sum / n) : 0.0f;
    double dev = 0;
    for (float v : x) dev += (v - mean) * (v - mean);
    EXPECT_NEAR(simd::ReduceSumSquaredDiff(x.data(), mean, n), dev, 1e-4);
    std::vector<float> y(n, -1);
    double esum = 0;
    for (float v : x) esum += std::exp(v - 1.0);
    EXPECT_NEAR(simd::ExpShiftSum(x.data(), 1.0f, y.data(), n), esum, 1e-4 * (1 + esum));
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(y[i], std::exp(x[i] - 1.0), 1e-6);
  }
  std::vector<float> with_nan = {1, NAN, 3};
  EXPECT_TRUE(std::isnan(simd::ReduceMax(with_nan.data(), 3)));
  std::vector<float> acc = {0, 5, 0};
  simd::AccumulateMax(acc.data(), with_nan.data(), 3);
  EXPECT_EQ(acc[0], 1);
  EXPECT_TRUE(std::isnan(acc[1]));
  EXPECT_EQ(acc[2], 3);
}

// The softmax family's exp (ExpShiftSum and ExpSub) on every SIMD target: on AVX-512 vector_math's
// exp (within 1 ulp where exp is a normal float, within a subnormal's ulp where it is subnormal,
// +inf past 88.72), elsewhere within 2 ulp where exp is a normal float (3 on targets without FMA,
// whose multiply-adds round twice), 0 where it would be subnormal, +inf past 88.37; the sum
// returned is the sum of what is stored.
TEST(SimdReduce, SoftmaxExpWithinTwoUlpOnEveryTarget) {
  std::vector<float> t;
  for (float v = -90.0f; v < 88.5f; v += 0.00731f) t.push_back(v);
  for (float v : {-87.3365f, -87.33654f, -87.3366f, -86.64f, -0.0f, 0.0f, 1e-30f, -1e-30f, 88.376f,
                  88.3763f, -INFINITY}) {
    t.push_back(v);
  }
  const int64_t n = static_cast<int64_t>(t.size());
  struct AllTargets {
    ~AllTargets() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    const bool fma = (target & (HWY_SSE4 | HWY_SSSE3 | HWY_EMU128 | HWY_SCALAR)) == 0;
    const bool avx512 = HWY_ARCH_X86 && target <= HWY_AVX3;
    const double overflow = avx512 ? 88.72283935546875 : 88.3762626647949;
    std::vector<float> y(n), y2(n), zeros(n, 0.0f);
    const float sum = simd::ExpShiftSum(t.data(), 0.0f, y.data(), n);
    simd::ExpSub(t.data(), zeros.data(), y2.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      SCOPED_TRACE(absl::StrCat("exp(", t[i], ")"));
      ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(y2[i]));
      const double want = std::exp(static_cast<double>(t[i]));
      if (t[i] > overflow) {
        ASSERT_EQ(y[i], INFINITY);
      } else if (want < std::numeric_limits<float>::min()) {
        if (avx512) {
          ASSERT_LE(std::fabs(y[i] - want), std::numeric_limits<float>::denorm_min());
        } else {
          ASSERT_EQ(y[i], 0.0f);
        }
      } else {
        const double ulp = std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
        ASSERT_LE(std::fabs(y[i] - want), (avx512 ? 1 : fma ? 2 : 3) * ulp);
      }
    }
    EXPECT_EQ(sum, INFINITY);  // t holds values past 88.37
    // The sum over softmax's range, t <= 0: what the stored values add up to.
    std::vector<float> negative;
    double negative_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (t[i] > 0) continue;
      negative.push_back(t[i]);
      negative_sum += y[i];
    }
    EXPECT_NEAR(
        simd::ExpShiftSum(negative.data(), 0.0f, nullptr, static_cast<int64_t>(negative.size())),
        negative_sum, 1e-6 * negative_sum);
  }
}

// ---------------------------------------------------------------------------------------------
// MatMul, Gemm
// ---------------------------------------------------------------------------------------------

// Reference batched matmul on dense [B, M, K] x [B, K, N] (batch of b broadcast when Bb == 1).
std::vector<float> NaiveBatchedMatMul(const std::vector<float>& a, const std::vector<float>& b,
                                      int64_t Ba, int64_t Bb, int64_t M, int64_t K, int64_t N) {
  const int64_t B = std::max(Ba, Bb);
  std::vector<float> y(B * M * N);
  for (int64_t bi = 0; bi < B; ++bi) {
    const float* pa = a.data() + (Ba == 1 ? 0 : bi) * M * K;
    const float* pb = b.data() + (Bb == 1 ? 0 : bi) * K * N;
    for (int64_t i = 0; i < M; ++i) {
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += pa[i * K + k] * pb[k * N + j];
        y[(bi * M + i) * N + j] = static_cast<float>(s);
      }
    }
  }
  return y;
}

// MatMulInteger's zero points: per row of A, per column of B, and an error (not a read past
// its end) for one whose dims do not fit its operand (the model fuzzer rewired B [3, 2] into
// a_zero_point with A a [1] vector).
TEST(MatMulInteger, ZeroPointsPerRowPerColumnAndMisfits) {
  auto u8 = [](std::vector<int64_t> dims, std::vector<uint8_t> v) {
    return MakeTensor<uint8_t>(ElementType::kUint8, std::move(dims), std::move(v));
  };
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      ModelText(10, "g (uint8[2,2] a, uint8[2,2] b, uint8[2] az, uint8[2] bz) => (int32[2,2] y)",
                "y = MatMulInteger (a, b, az, bz)"),
      {u8({2, 2}, {11, 12, 23, 24}), u8({2, 2}, {5, 6, 7, 8}), u8({2}, {10, 20}), u8({2}, {4, 6})});
  ASSERT_TRUE(y.ok()) << y.status();
  // (a - [10; 20]) = [1 2; 3 4], (b - [4 6]) = [1 0; 3 2].
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{7, 4, 15, 8}));
  y = RunText(ModelText(10, "g (uint8[1] a, uint8[1] b, uint8[3,2] az) => (int32 y)",
                        "y = MatMulInteger (a, b, az)"),
              {u8({1}, {1}), u8({1}, {2}), u8({3, 2}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("a_zero_point"), std::string::npos) << y.status();
}

TEST(MatMul, BroadcastBatchAndVectors) {
  const std::string text =
      ModelText(13, "agraph (float[A] a, float[B] b) => (float[C] y)", "y = MatMul(a, b)");
  // [3, 5, 7] x [7, 6]: B shared by the batch (one merged GEMM).
  Tensor a = RandomTensor({3, 5, 7}, 1), b = RandomTensor({7, 6}, 2);
  absl::StatusOr<std::vector<Tensor>> y = RunText(text, {a, b});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Dims((*y)[0]), (std::vector<int64_t>{3, 5, 6}));
  ExpectNear(Values<float>((*y)[0]),
             NaiveBatchedMatMul(Values<float>(a), Values<float>(b), 3, 1, 5, 7, 6), 1e-5,
             "shared B");
  // [2, 1, 4, 3] x [5, 3, 2]: both batch dims broadcast.
  a = RandomTensor({2, 1, 4, 3}, 3);
  b = RandomTensor({5, 3, 2}, 4);
  y = RunText(text, {a, b});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(Dims((*y)[0]), (std::vector<int64_t>{2, 5, 4, 2}));
  const std::vector<float> av = Values<float>(a), bv = Values<float>(b),
                           got = Values<float>((*y)[0]);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const std::vector<float> want = NaiveBatchedMatMul(
          std::vector<float>(av.begin() + i * 12, av.begin() + (i + 1) * 12),
          std::vector<float>(bv.begin() + j * 6, bv.begin() + (j + 1) * 6), 1, 1, 4, 3, 2);
      ExpectNear(
          std::vector<float>(got.begin() + (i * 5 + j) * 8, got.begin() + (i * 5 + j + 1) * 8),
          want, 1e-5, "broadcast batch");
    }
  }
  // Vector operands: [3] x [3, 4] -> [4]; [2, 3] x [3] -> [2]; [3] x [3] -> [].
  a = Floats({3}, {1, 2, 3});
  b = Floats({3, 4}, {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1});
  y = RunText(text, {a, b});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{1, 2, 3, 6}));
  y = RunText(text, {Floats({2, 3}, {1, 2, 3, 4, 5, 6}), Floats({3}, {1, 1, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{6, 15}));
  y = RunText(text, {Floats({3}, {1, 2, 3}), Floats({3}, {4, 5, 6})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Dims((*y)[0]), std::vector<int64_t>{});
  EXPECT_EQ(Values<float>((*y)[0]), std::vector<float>{32});
}

TEST(MatMul, StridedOperands) {
  const std::string text =
      ModelText(13, "agraph (float[A] a, float[B] b) => (float[C] y)", "y = MatMul(a, b)");
  // a: the transpose of a dense [6, 5] (strides [1, 5]); b: a dense [2, 6, 4] with the batch
  // dim broadcast from 1 (stride 0) — read in place, no copies.
  Tensor at = RandomTensor({6, 5}, 5), b = RandomTensor({6, 4}, 6);
  TensorView av = at.view();
  av.dims = {5, 6};
  av.strides = {1, 5};
  TensorView bv = b.view();
  bv.dims = {2, 6, 4};
  bv.strides = {0, 4, 1};
  absl::StatusOr<std::vector<Tensor>> y = RunViews(text, {av, bv}, {{2, 5, 4}});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> a_dense;
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t k = 0; k < 6; ++k) a_dense.push_back(at.As<float>()[k * 5 + i]);
  }
  std::vector<float> want = NaiveBatchedMatMul(a_dense, Values<float>(b), 1, 1, 5, 6, 4);
  want.insert(want.end(), want.begin(), want.end());
  ExpectNear(Values<float>((*y)[0]), want, 1e-5, "strided");
  // Neither matrix dim unit-stride: a copy is made.
  Tensor big = RandomTensor({6, 10}, 7);
  TensorView odd = big.view();
  odd.dims = {5, 6};
  odd.strides = {2, 10};  // element (i, k) = big[k][2 i]
  y = RunViews(text, {odd, b.view()}, {{5, 4}});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> odd_dense;
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t k = 0; k < 6; ++k) odd_dense.push_back(big.As<float>()[k * 10 + 2 * i]);
  }
  ExpectNear(Values<float>((*y)[0]), NaiveBatchedMatMul(odd_dense, Values<float>(b), 1, 1, 5, 6, 4),
             1e-5, "copied");
}

TEST(MatMul, Float16AndIntegers) {
  Tensor a(ElementType::kFloat16, {2, 3}), b(ElementType::kFloat16, {3, 2});
  const float av[] = {1, 2, 3, 4, 5, 6}, bv[] = {0.5, -1, 2, 0, 1, 0.25};
  for (int i = 0; i < 6; ++i) {
    a.As<Half>()[i] = Half(av[i]);
    b.As<Half>()[i] = Half(bv[i]);
  }
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      ModelText(13, "agraph (float16[A] a, float16[B] b) => (float16[C] y)", "y = MatMul(a, b)"),
      {a, b});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> got;
  for (int i = 0; i < 4; ++i) got.push_back(static_cast<float>((*y)[0].As<Half>()[i]));
  EXPECT_EQ(got, (std::vector<float>{7.5, -0.25, 18, -2.5}));

  y = RunText(ModelText(13, "agraph (int32[A] a, int32[B] b) => (int32[C] y)", "y = MatMul(a, b)"),
              {MakeTensor<int32_t>(ElementType::kInt32, {2, 2}, {1, 2, 3, 4}),
               MakeTensor<int32_t>(ElementType::kInt32, {2, 2}, {-1, 2, 3, 2000000000})});
  ASSERT_TRUE(y.ok()) << y.status();
  // 2 * 2e9 wraps around in int32, as numpy's int32 matmul does.
  EXPECT_EQ(Values<int32_t>((*y)[0]),
            (std::vector<int32_t>{5, static_cast<int32_t>(2u + 4000000000u), 9,
                                  static_cast<int32_t>(6u + 8000000000u)}));
}

TEST(Gemm, TransposesAndBias) {
  // Y = 0.5 * A^T B^T + 2 * C, C [N] broadcast over rows.
  Tensor a = RandomTensor({7, 5}, 1), b = RandomTensor({9, 7}, 2), c = RandomTensor({9}, 3);
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(ModelText(13, "agraph (float[K, M] a, float[N, K] b, float[N] c) => (float[M, N] y)",
                        "y = Gemm <alpha = 0.5, beta = 2.0, transA = 1, transB = 1> (a, b, c)"),
              {a, b, c});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> want(5 * 9);
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 9; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 7; ++k) s += a.As<float>()[k * 5 + i] * b.As<float>()[j * 7 + k];
      want[i * 9 + j] = static_cast<float>(0.5 * s + 2 * c.As<float>()[j]);
    }
  }
  ExpectNear(Values<float>((*y)[0]), want, 1e-5, "gemm");
}

// ---------------------------------------------------------------------------------------------
// Convolutions
// ---------------------------------------------------------------------------------------------

struct ConvCase {
  std::vector<int64_t> x_dims;  // [N, C, spatial...]
  int64_t m, group;
  std::vector<int64_t> kernel, strides, dilations, pads;
};

// Direct convolution: the definition.
std::vector<float> NaiveConv(const ConvCase& c, const std::vector<int64_t>& out,
                             const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>& bias) {
  const int64_t S = c.kernel.size(), N = c.x_dims[0], C = c.x_dims[1];
  const int64_t Cg = C / c.group, Mg = c.m / c.group;
  int64_t out_size = 1, in_size = 1, k_size = 1;
  for (int64_t d = 0; d < S; ++d) {
    out_size *= out[d];
    in_size *= c.x_dims[d + 2];
    k_size *= c.kernel[d];
  }
  std::vector<float> y(N * c.m * out_size);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t m = 0; m < c.m; ++m) {
      const int64_t g = m / Mg;
      for (int64_t p = 0; p < out_size; ++p) {
        double s = bias.empty() ? 0 : bias[m];
        for (int64_t ci = 0; ci < Cg; ++ci) {
          for (int64_t kk = 0; kk < k_size; ++kk) {
            int64_t in_off = 0, pr = p, kr = kk;
            bool inside = true;
            std::vector<int64_t> o(S), k(S);
            for (int64_t d = S - 1; d >= 0; --d) {
              o[d] = pr % out[d];
              pr /= out[d];
              k[d] = kr % c.kernel[d];
              kr /= c.kernel[d];
            }
            for (int64_t d = 0; d < S; ++d) {
              const int64_t i = o[d] * c.strides[d] - c.pads[d] + k[d] * c.dilations[d];
              inside &= i >= 0 && i < c.x_dims[d + 2];
              in_off = in_off * c.x_dims[d + 2] + i;
            }
            if (!inside) continue;
            s += x[(n * C + g * Cg + ci) * in_size + in_off] * w[(m * Cg + ci) * k_size + kk];
          }
        }
        y[(n * c.m + m) * out_size + p] = static_cast<float>(s);
      }
    }
  }
  return y;
}

// QLinearConv's scalar parameters must hold one value: an empty x_scale was read as element 0
// (a division by its zero dim; the model fuzzer found it) and is now an error naming it.
TEST(QLinearConv, ScalarParametersHoldOneValue) {
  const std::string model =
      ModelText(10,
                "g (uint8[1,1,2,2] x, float[S] xs, uint8 xz, uint8[1,1,1,1] w, float ws, uint8 wz, "
                "float ys, uint8 yz) => (uint8[1,1,2,2] y)",
                "y = QLinearConv (x, xs, xz, w, ws, wz, ys, yz)");
  auto u8 = [](std::vector<int64_t> dims, std::vector<uint8_t> v) {
    return MakeTensor<uint8_t>(ElementType::kUint8, std::move(dims), std::move(v));
  };
  const Tensor x = u8({1, 1, 2, 2}, {10, 20, 30, 40});
  const Tensor w = u8({1, 1, 1, 1}, {3});
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(model, {x, Floats({1}, {0.5f}), u8({}, {0}), w, Floats({}, {1.0f}), u8({}, {0}),
                      Floats({}, {1.0f}), u8({}, {0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<uint8_t>((*y)[0]), (std::vector<uint8_t>{15, 30, 45, 60}));
  y = RunText(model, {x, Floats({0}, {}), u8({}, {0}), w, Floats({}, {1.0f}), u8({}, {0}),
                      Floats({}, {1.0f}), u8({}, {0})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("x_scale must hold one value"), std::string::npos)
      << y.status();
}

TEST(Conv, MatchesDirectConvolution) {
  const ConvCase cases[] = {
      {{1, 3, 9}, 4, 1, {3}, {2}, {1}, {1, 1}},
      {{2, 4, 7, 6}, 6, 2, {3, 2}, {1, 2}, {2, 1}, {1, 0, 2, 1}},
      {{1, 6, 5, 5}, 6, 6, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // depthwise
      {{1, 8, 4, 5}, 5, 1, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},  // pointwise
      {{1, 2, 30, 30}, 3, 1, {5, 5}, {3, 3}, {1, 1}, {2, 2, 2, 2}},
      {{1, 2, 4, 5, 6}, 3, 1, {2, 3, 2}, {1, 2, 1}, {1, 1, 2}, {1, 0, 1, 0, 1, 1}},
      {{1, 16, 70, 70}, 4, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},  // several col chunks
      // Depthwise (the direct kernel): strides, dilations, asymmetric pads, a multiplier of 2,
      // rows wider than a vector.
      {{2, 5, 9, 8}, 5, 5, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 3, 11, 37}, 6, 3, {3, 5}, {1, 3}, {2, 1}, {2, 0, 1, 3}},
      {{1, 4, 6, 40}, 4, 4, {5, 5}, {1, 1}, {1, 2}, {2, 2, 2, 2}},
      // Depthwise through the padded kernel (square 3x3 / 5x5, strides 1 / 2, pads under the
      // window): rows that fill four-row blocks and leave a tail, widths below, at and over a
      // vector, asymmetric and zero pads, a multiplier of 2.
      {{1, 3, 13, 17}, 3, 3, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 4, 11, 33}, 8, 4, {3, 3}, {2, 2}, {1, 1}, {0, 1, 1, 0}},
      {{1, 2, 7, 7}, 2, 2, {5, 5}, {1, 1}, {1, 1}, {2, 2, 2, 2}},
      {{1, 3, 19, 16}, 3, 3, {5, 5}, {2, 2}, {1, 1}, {1, 2, 2, 1}},
      {{1, 2, 9, 8}, 2, 2, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      // Dense few-channel convolutions through the padded kernels (four outputs and two rows at
      // a time, then single ones): 5x5 of one channel, 3x3 of three with a batch.
      {{1, 1, 17, 21}, 5, 1, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}},
      {{2, 3, 10, 9}, 7, 1, {3, 3}, {1, 1}, {1, 1}, {1, 0, 1, 1}},
      // Small outputs: several images per GEMM.
      {{5, 3, 6, 6}, 7, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      // More than 4 output channels per group: the im2col panels are filled straight from the
      // images (Im2ColPanels), with strides, dilations, asymmetric pads, groups, K over one
      // GEMM slice (40 x 9 = 360), rows wider than a vector, and batched small images.
      {{2, 3, 17, 19}, 8, 1, {3, 3}, {2, 2}, {2, 1}, {2, 1, 0, 3}},
      {{1, 40, 9, 35}, 6, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 4, 12, 40}, 10, 2, {3, 5}, {1, 1}, {1, 2}, {0, 2, 1, 2}},
      {{6, 3, 6, 6}, 8, 1, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 2, 5, 5}, 9, 1, {7, 7}, {1, 1}, {1, 1}, {3, 3, 3, 3}},  // taps wider than the input
      // 1-D with long kernels, windows read in place (an STFT's frames: overlapping, disjoint,
      // a last window ending short of the input), one or three channels, groups, a batch; and
      // with a pad or a dilation, through im2col.
      {{1, 1, 1000}, 9, 1, {64}, {20}, {1}, {0, 0}},
      {{2, 3, 300}, 6, 1, {40}, {50}, {1}, {0, 0}},
      {{1, 4, 200}, 6, 2, {33}, {7}, {1}, {0, 0}},
      {{1, 1, 500}, 5, 1, {64}, {16}, {1}, {8, 8}},
      {{1, 2, 300}, 5, 1, {32}, {9}, {2}, {0, 0}},
  };
  for (const ConvCase& c : cases) {
    const int64_t S = c.kernel.size();
    std::vector<int64_t> w_dims = {c.m, c.x_dims[1] / c.group}, out = {};
    w_dims.insert(w_dims.end(), c.kernel.begin(), c.kernel.end());
    for (int64_t d = 0; d < S; ++d) {
      const int64_t eff = (c.kernel[d] - 1) * c.dilations[d] + 1;
      out.push_back((c.x_dims[d + 2] + c.pads[d] + c.pads[d + S] - eff) / c.strides[d] + 1);
    }
    Tensor x = RandomTensor(c.x_dims, 11), w = RandomTensor(w_dims, 12),
           b = RandomTensor({c.m}, 13);
    const std::string attrs = absl::StrCat(
        "group = ", c.group, ", strides = [", absl::StrJoin(c.strides, ", "), "], dilations = [",
        absl::StrJoin(c.dilations, ", "), "], pads = [", absl::StrJoin(c.pads, ", "), "]");
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(ModelText(11, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                          absl::StrCat("y = Conv <", attrs, "> (x, w, b)")),
                {x, w, b});
    ASSERT_TRUE(y.ok()) << y.status();
    ExpectNear(Values<float>((*y)[0]),
               NaiveConv(c, out, Values<float>(x), Values<float>(w), Values<float>(b)), 1e-4,
               attrs);
  }
}

// ConvInteger with pads larger than the kernel: output rows wholly in the padding are zeros (the
// shifted input's padding) and are not computed; the rest as the definition, for rows padded at
// the start, at the end, both, strides and dilations, and every row in the padding.
TEST(ConvInteger, RowsWhollyInThePaddingAreZero) {
  struct Case {
    std::vector<int64_t> x_dims, kernel, strides, dilations, pads;
  };
  const Case cases[] = {
      {{1, 2, 3, 4}, {2, 2}, {1, 1}, {1, 1}, {5, 1, 7, 0}},
      {{2, 1, 4, 3}, {3, 1}, {2, 1}, {1, 1}, {9, 0, 1, 2}},
      {{1, 1, 5, 2}, {2, 2}, {1, 1}, {3, 1}, {0, 0, 11, 1}},
      {{1, 1, 2, 2}, {1, 1}, {1, 1}, {1, 1}, {4, 0, 4, 0}},
      // A start pad beyond every row the taps read (stride 3 over one row): nothing is copied.
      {{1, 2, 1, 2}, {1, 1}, {3, 3}, {1, 1}, {2, 2, 0, 0}},
  };
  for (const Case& c : cases) {
    const ConvCase conv{c.x_dims, 3, 1, c.kernel, c.strides, c.dilations, c.pads};
    std::vector<int64_t> out;
    for (int d = 0; d < 2; ++d) {
      const int64_t eff = (c.kernel[d] - 1) * c.dilations[d] + 1;
      out.push_back((c.x_dims[d + 2] + c.pads[d] + c.pads[d + 2] - eff) / c.strides[d] + 1);
    }
    const std::vector<int64_t> w_dims = {3, c.x_dims[1], c.kernel[0], c.kernel[1]};
    std::vector<uint8_t> xv(c.x_dims[0] * c.x_dims[1] * c.x_dims[2] * c.x_dims[3]);
    std::vector<uint8_t> wv(3 * c.x_dims[1] * c.kernel[0] * c.kernel[1]);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<uint8_t>((i * 37 + 11) % 251);
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = static_cast<uint8_t>((i * 53 + 7) % 241);
    const uint8_t x_zp = 100, w_zp = 120;
    std::vector<float> xf(xv.size()), wf(wv.size());
    for (size_t i = 0; i < xv.size(); ++i) xf[i] = static_cast<float>(xv[i]) - x_zp;
    for (size_t i = 0; i < wv.size(); ++i) wf[i] = static_cast<float>(wv[i]) - w_zp;
    const std::vector<float> want = NaiveConv(conv, out, xf, wf, std::vector<float>(3, 0.0f));
    const std::string attrs = absl::StrCat("kernel_shape = [", absl::StrJoin(c.kernel, ", "),
                                           "], strides = [", absl::StrJoin(c.strides, ", "),
                                           "], dilations = [", absl::StrJoin(c.dilations, ", "),
                                           "], pads = [", absl::StrJoin(c.pads, ", "), "]");
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        ModelText(10, "agraph (uint8[A] x, uint8[B] w, uint8 xz, uint8 wz) => (int32[D] y)",
                  absl::StrCat("y = ConvInteger <", attrs, "> (x, w, xz, wz)")),
        {MakeTensor(ElementType::kUint8, c.x_dims, xv), MakeTensor(ElementType::kUint8, w_dims, wv),
         MakeTensor(ElementType::kUint8, {}, std::vector<uint8_t>{x_zp}),
         MakeTensor(ElementType::kUint8, {}, std::vector<uint8_t>{w_zp})});
    ASSERT_TRUE(y.ok()) << attrs << ": " << y.status();
    const std::vector<int32_t> got = Values<int32_t>((*y)[0]);
    ASSERT_EQ(got.size(), want.size()) << attrs;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], static_cast<int32_t>(want[i])) << attrs << " element " << i;
    }
  }
}

// Sums past float's 2^24 stay exact (the kernel computes in double where that is exact): 64
// channels of 3x3 taps of shifted values of magnitude up to 255, against an int64 reference,
// with per-channel weight zero points at both ends of int8.
TEST(ConvInteger, LargeSumsAreExact) {
  const int64_t C = 64, H = 6, W = 5, M = 4;
  std::vector<uint8_t> xv(C * H * W);
  std::vector<int8_t> wv(M * C * 9);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = i % 7 == 3 ? 0 : static_cast<uint8_t>(255 - i % 3);
  for (size_t i = 0; i < wv.size(); ++i)
    wv[i] = static_cast<int8_t>(i % 5 == 1 ? 127 : -128 + i % 4);
  const std::vector<int8_t> w_zp = {127, -128, 0, 5};
  std::vector<int32_t> want;
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t oy = 0; oy < H; ++oy) {
      for (int64_t ox = 0; ox < W; ++ox) {
        int64_t sum = 0;
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t ky = 0; ky < 3; ++ky) {
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;  // x's zero point is 0
              sum += static_cast<int64_t>(xv[(c * H + iy) * W + ix]) *
                     (wv[((m * C + c) * 3 + ky) * 3 + kx] - w_zp[m]);
            }
          }
        }
        want.push_back(static_cast<int32_t>(sum));
      }
    }
  }
  int64_t largest = 0;
  for (int32_t v : want) largest = std::max<int64_t>(largest, std::abs(int64_t{v}));
  ASSERT_GT(largest, int64_t{1} << 24);  // past float's exact integers
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      ModelText(10, "agraph (uint8[A] x, int8[B] w, uint8 xz, int8[4] wz) => (int32[D] y)",
                "y = ConvInteger <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x, w, xz, wz)"),
      {MakeTensor(ElementType::kUint8, {1, C, H, W}, xv),
       MakeTensor(ElementType::kInt8, {M, C, 3, 3}, wv),
       MakeTensor(ElementType::kUint8, {}, std::vector<uint8_t>{0}),
       MakeTensor(ElementType::kInt8, {M}, w_zp)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<int32_t>((*y)[0]), want);
}

// An empty batch or no output channels: an empty output, nothing computed (an empty batch with
// padded rows made ConvInteger's image batching divide by zero; the model fuzzer found it).
TEST(Conv, EmptyBatchOrChannelsGiveEmptyOutputs) {
  for (const auto& [x_dims, w_dims] :
       {std::pair(std::vector<int64_t>{0, 1, 2, 5}, std::vector<int64_t>{3, 1, 2, 2}),
        std::pair(std::vector<int64_t>{1, 1, 2, 5}, std::vector<int64_t>{0, 1, 2, 2})}) {
    const std::string pads = "pads = [2, 1, 0, 3]";
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(ModelText(10, "agraph (float[A] x, float[B] w) => (float[D] y)",
                          absl::StrCat("y = Conv <", pads, "> (x, w)")),
                {Floats(x_dims, std::vector<float>(x_dims[0] * 10, 1.0f)),
                 Floats(w_dims, std::vector<float>(w_dims[0] * 4, 1.0f))});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ((*y)[0].dims(), (Shape{x_dims[0], w_dims[0], 3, 8}));
    y = RunText(ModelText(10, "agraph (uint8[A] x, uint8[B] w) => (int32[D] y)",
                          absl::StrCat("y = ConvInteger <", pads, "> (x, w)")),
                {MakeTensor(ElementType::kUint8, x_dims, std::vector<uint8_t>(x_dims[0] * 10, 1)),
                 MakeTensor(ElementType::kUint8, w_dims, std::vector<uint8_t>(w_dims[0] * 4, 1))});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ((*y)[0].dims(), (Shape{x_dims[0], w_dims[0], 3, 8}));
  }
}

// A float Conv with pads larger than the kernel (8 channels x 2x3 taps: the im2col path) has its
// rows wholly in the padding set to bias + 0 without computing them, the rest as the definition.
// With an inf in output channel 0's weight, every row is computed as before: im2col's padded
// zeros times inf make that channel's padded rows NaN, and the other channels' rows the bias.
TEST(Conv, RowsWhollyInThePaddingAreTheBias) {
  const ConvCase c{{2, 8, 4, 5}, 4, 1, {2, 3}, {1, 2}, {2, 1}, {9, 1, 6, 2}};
  // 17 output rows; a row's taps are rows r - 9 and r - 7 of the input: rows 0-6 end above it
  // and rows 13-16 start below it.
  const std::vector<int64_t> out = {(4 + 9 + 6 - 3) / 1 + 1, (5 + 1 + 2 - 3) / 2 + 1};
  const int64_t lo = 7, hi = 13;
  const std::vector<int64_t> w_dims = {4, 8, 2, 3};
  Tensor x = RandomTensor(c.x_dims, 61), w = RandomTensor(w_dims, 62), b = RandomTensor({4}, 63);
  const std::string text =
      ModelText(11, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                "y = Conv <strides = [1, 2], dilations = [2, 1], pads = [9, 1, 6, 2]> (x, w, b)");
  absl::StatusOr<std::vector<Tensor>> y = RunText(text, {x, w, b});
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectNear(Values<float>((*y)[0]),
             NaiveConv(c, out, Values<float>(x), Values<float>(w), Values<float>(b)), 1e-4,
             "pads larger than the kernel");

  std::vector<float> wv = Values<float>(w);
  wv[5] = INFINITY;  // output channel 0
  y = RunText(text, {x, Floats(w_dims, wv), b});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> got = Values<float>((*y)[0]);
  const int64_t row = out[1];
  for (int64_t plane = 0; plane < 2 * 4; ++plane) {
    for (int64_t r = 0; r < out[0]; ++r) {
      if (r >= lo && r < hi) continue;
      for (int64_t col = 0; col < row; ++col) {
        const float v = got[(plane * out[0] + r) * row + col];
        if (plane % 4 == 0) {
          EXPECT_TRUE(std::isnan(v)) << "plane " << plane << " row " << r << " column " << col;
        } else {
          EXPECT_EQ(v, Values<float>(b)[plane % 4] + 0.0f) << "plane " << plane << " row " << r;
        }
      }
    }
  }
}

// A Conv with a constant 3x3 weight, unit strides and enough channels and tiles runs Winograd
// F(4x4, 3x3), or F(2x2, 3x3) for few tiles of a large weight (ops/conv_winograd.h): the
// definition's values within 1e-4 per 32 input channels
// (relative above 1; Winograd's rounding is ~1e-6 of the sum of |terms|, which grows with the
// channels, and targets without FMA round twice per term; a wrong tap or tile is off by O(1)), for
// outputs that are and are not multiples of the 4x4 tile, asymmetric and zero pads, one and several
// images, several blocks of tiles, odd channel counts, no bias, and the channel-major products of
// few tiles.
TEST(Conv, WinogradGivesTheDirectSum) {
  struct Case {
    std::vector<int64_t> x_dims;
    int64_t m;
    std::vector<int64_t> pads;
    bool bias;
  };
  const Case cases[] = {
      {{1, 8, 16, 16}, 8, {1, 1, 1, 1}, true},
      {{2, 16, 13, 11}, 24, {1, 0, 2, 1}, true},
      {{3, 8, 20, 20}, 16, {0, 0, 0, 0}, true},
      {{2, 32, 30, 30}, 40, {2, 2, 2, 2}, true},  // 128 tiles: three blocks
      {{1, 9, 17, 17}, 9, {1, 1, 1, 1}, false},
      // Channel-major products (few tiles, or a tile count that leaves vectors part empty):
      {{1, 32, 8, 8}, 64, {1, 1, 1, 1}, true},    // 4 tiles
      {{1, 24, 7, 5}, 40, {1, 1, 1, 1}, true},    // partial vectors of channels, edge tiles
      {{1, 16, 4, 4}, 16, {1, 1, 1, 1}, false},   // 1 tile
      {{3, 8, 4, 6}, 17, {0, 1, 0, 1}, true},     // 3 images of 1 tile, 4 x 2 outputs
      {{1, 64, 26, 26}, 64, {1, 1, 1, 1}, true},  // 49 tiles
      // F(2x2, 3x3), channel-major: few tiles of a weight whose F(4x4) form passes 4 MiB; edge
      // tiles of one output row or column, asymmetric pads, no bias, two images.
      {{1, 120, 10, 9}, 248, {1, 1, 1, 1}, true},
      {{2, 248, 7, 7}, 120, {1, 0, 1, 0}, false},
  };
  for (const Case& c : cases) {
    const ConvCase conv{c.x_dims, c.m, 1, {3, 3}, {1, 1}, {1, 1}, c.pads};
    const std::vector<int64_t> out = {c.x_dims[2] + c.pads[0] + c.pads[2] - 2,
                                      c.x_dims[3] + c.pads[1] + c.pads[3] - 2};
    const std::vector<int64_t> w_dims = {c.m, c.x_dims[1], 3, 3};
    // Weights k / 64 print exactly in the model text.
    std::vector<float> wv = Values<float>(RandomTensor(w_dims, 52));
    for (float& v : wv) v = std::round(v * 64.0f) / 64.0f;
    const Tensor x = RandomTensor(c.x_dims, 51), w = Floats(w_dims, wv);
    const Tensor b = c.bias ? RandomTensor({c.m}, 53) : Floats({c.m}, std::vector<float>(c.m));
    const std::string attrs = absl::StrCat("pads = [", absl::StrJoin(c.pads, ", "), "]");
    const std::string text =
        ModelText(11,
                  absl::StrCat("agraph (float[A] x", c.bias ? ", float[K] b" : "",
                               ") => (float[D] y) <float[", absl::StrJoin(w_dims, ", "), "] w = {",
                               absl::StrJoin(wv, ", "), "}>"),
                  absl::StrCat("y = Conv <", attrs, "> (x, w", c.bias ? ", b" : "", ")"));
    KernelStats stats;
    NodeExecOptions with_stats;
    with_stats.stats = &stats;
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        text, c.bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w}, with_stats);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(stats.winograd_convolutions, 1) << attrs << ": no Winograd";
    const bool small_tiles = c.x_dims[1] * c.m * 36 * 4 > (4 << 20);
    EXPECT_EQ(stats.winograd_2x2_convolutions, small_tiles ? 1 : 0) << attrs;
    {  // Threads split the tiles, never an output's arithmetic: the same bits.
      parallel::ThreadScope threads(3);
      parallel::ScopedSplitAll split;
      absl::StatusOr<std::vector<Tensor>> split_y =
          RunText(text, c.bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w});
      ASSERT_TRUE(split_y.ok()) << split_y.status();
      EXPECT_EQ(Values<float>((*split_y)[0]), Values<float>((*y)[0])) << attrs;
    }
    const std::vector<float> want = NaiveConv(conv, out, Values<float>(x), wv, Values<float>(b));
    const double tol = 1e-4 * std::max<int64_t>(1, c.x_dims[1] / 32);
    ExpectNear(Values<float>((*y)[0]), want, tol,
               absl::StrCat(absl::StrJoin(c.x_dims, "x"), " ", attrs));
    // The transforms on every SIMD target this machine runs (the input transform loads window
    // rows in 4-float blocks of 8- and 16-lane vectors); every target again afterwards, however
    // this loop ends.
    struct AllTargets {
      ~AllTargets() { hwy::SetSupportedTargetsForTest(0); }
    } restore;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      absl::StatusOr<std::vector<Tensor>> on_target =
          RunText(text, c.bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w});
      ASSERT_TRUE(on_target.ok()) << on_target.status();
      ExpectNear(
          Values<float>((*on_target)[0]), want, tol,
          absl::StrCat(absl::StrJoin(c.x_dims, "x"), " ", attrs, " on ", hwy::TargetName(target)));
    }
  }
}

// MatMul and Gemm with a constant weight pack it once at kernel creation (simd::PackB): the
// same products as with the weight as a plain input, for 1-D, 2-D and 3-D A and transB.
TEST(MatMul, ConstantWeightPackedOnceGivesTheSameProducts) {
  struct Case {
    std::string op;  // "MatMul" or "Gemm <transB = 1>"
    std::vector<int64_t> a_dims, w_dims;
  };
  const Case cases[] = {
      {"MatMul", {33}, {33, 70}},
      {"MatMul", {3, 40}, {40, 130}},
      {"MatMul", {2, 9, 40}, {40, 50}},
      {"MatMul", {64, 100}, {100, 20}},
      {"Gemm <transB = 1>", {8, 30}, {70, 30}},
      {"Gemm <alpha = 0.5>", {50, 30}, {30, 40}},
  };
  for (const Case& c : cases) {
    // Weights k / 64 print exactly in the model text.
    const Tensor a = RandomTensor(c.a_dims, 31);
    std::vector<float> wv = Values<float>(RandomTensor(c.w_dims, 32));
    for (float& v : wv) v = std::round(v * 64.0f) / 64.0f;
    const Tensor w = Floats(c.w_dims, wv);
    const std::string op = c.op + " (a, w)";
    absl::StatusOr<std::vector<Tensor>> plain = RunText(
        ModelText(13, "agraph (float[A] a, float[B] w) => (float[C] y)", absl::StrCat("y = ", op)),
        {a, w});
    ASSERT_TRUE(plain.ok()) << plain.status();
    const std::string signature =
        absl::StrCat("agraph (float[A] a) => (float[C] y) <float[", absl::StrJoin(c.w_dims, ", "),
                     "] w = {", absl::StrJoin(wv, ", "), "}>");
    KernelStats stats;
    NodeExecOptions with_stats;
    with_stats.stats = &stats;
    absl::StatusOr<std::vector<Tensor>> packed =
        RunText(ModelText(13, signature, absl::StrCat("y = ", op)), {a, w}, with_stats);
    ASSERT_TRUE(packed.ok()) << packed.status();
    EXPECT_EQ(stats.packed_weight_products, 1) << c.op << ": the packed weight was not used";
    ExpectNear(Values<float>((*packed)[0]), Values<float>((*plain)[0]), 1e-6, c.op);
  }
}

// Constant float16 and bfloat16 weights are widened once and packed (ReadConstantFloats, then
// PackB): the same bits as the weight given as a plain input, whose product is computed in
// float and rounded per element.
TEST(MatMul, ConstantHalfWeightsWidenedOnceGiveThePlainBits) {
  for (const char* type : {"float16", "bfloat16"}) {
    const bool bf16 = std::string(type) == "bfloat16";
    const ElementType et = bf16 ? ElementType::kBfloat16 : ElementType::kFloat16;
    // Values k / 64: exact in both types and in the model text.
    auto halves = [&](std::vector<int64_t> dims, uint32_t seed) {
      Tensor t(et, dims);
      std::vector<float> v = Values<float>(RandomTensor(dims, seed));
      for (size_t i = 0; i < v.size(); ++i) {
        v[i] = std::round(v[i] * 64.0f) / 64.0f;
        static_cast<uint16_t*>(t.data())[i] =
            bf16 ? fp16::FloatToBfloat16(v[i]) : fp16::FloatToHalf(v[i]);
      }
      return std::make_pair(t, v);  // (the tensor, and its values as floats)
    };
    for (const std::string op : {"MatMul", "Gemm <transB = 1>"}) {
      const bool tb = op != "MatMul";
      const std::vector<int64_t> w_dims =
          tb ? std::vector<int64_t>{70, 40} : std::vector<int64_t>{40, 70};
      const Tensor a = halves({9, 40}, 51).first;
      const Tensor w = halves(w_dims, 52).first;
      absl::StatusOr<std::vector<Tensor>> plain = RunText(
          ModelText(13,
                    absl::StrCat("agraph (", type, "[A] a, ", type, "[B] w) => (", type, "[C] y)"),
                    absl::StrCat("y = ", op, " (a, w)")),
          {a, w});
      ASSERT_TRUE(plain.ok()) << type << " " << op << ": " << plain.status();
      KernelStats stats;
      NodeExecOptions with_stats;
      with_stats.stats = &stats;
      // (ONNX's text parser has no float16 literals: w becomes an initializer, not a graph
      // input a run could override, after parsing.)
      absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(ModelText(
          13, absl::StrCat("agraph (", type, "[A] a, ", type, "[B] w) => (", type, "[C] y)"),
          absl::StrCat("y = ", op, " (a, w)")));
      ASSERT_TRUE(model.ok()) << model.status();
      Graph& graph = (*model)->graph();
      Node& node = **graph.nodes().begin();
      node.SetInput(1, graph.AddInitializer("w_constant", w.ToElements()));
      absl::StatusOr<std::vector<Tensor>> packed = RunNode(node, 13, {a, w}, with_stats);
      ASSERT_TRUE(packed.ok()) << type << " " << op << ": " << packed.status();
      EXPECT_EQ(stats.packed_weight_products, 1) << type << " " << op;
      ASSERT_EQ((*packed)[0].ByteSize(), (*plain)[0].ByteSize());
      EXPECT_EQ(std::memcmp((*packed)[0].data(), (*plain)[0].data(), (*plain)[0].ByteSize()), 0)
          << type << " " << op;
    }
  }
}

// Gemm's bias row C on a packed weight is added in the GEMM's store: the products of the plain
// path (weights as inputs), for C as [N] and [1, N], with and without transB.
TEST(Gemm, BiasRowOnAPackedWeight) {
  for (const std::string attrs : {"", "transB = 1"}) {
    for (const std::vector<int64_t>& c_dims :
         {std::vector<int64_t>{40}, std::vector<int64_t>{1, 40}}) {
      const bool tb = !attrs.empty();
      const std::vector<int64_t> w_dims =
          tb ? std::vector<int64_t>{40, 300} : std::vector<int64_t>{300, 40};
      const Tensor a = RandomTensor({9, 300}, 41), c = RandomTensor(c_dims, 43);
      std::vector<float> wv = Values<float>(RandomTensor(w_dims, 42));
      for (float& v : wv) v = std::round(v * 64.0f) / 64.0f;
      const Tensor w = Floats(w_dims, wv);
      const std::string op = absl::StrCat(
          "y = Gemm ", attrs.empty() ? "" : absl::StrCat("<", attrs, "> "), "(a, w, c)");
      absl::StatusOr<std::vector<Tensor>> plain =
          RunText(ModelText(13, "agraph (float[A] a, float[B] w, float[C] c) => (float[D] y)", op),
                  {a, w, c});
      ASSERT_TRUE(plain.ok()) << plain.status();
      KernelStats stats;
      NodeExecOptions with_stats;
      with_stats.stats = &stats;
      absl::StatusOr<std::vector<Tensor>> packed =
          RunText(ModelText(13,
                            absl::StrCat("agraph (float[A] a, float[C] c) => (float[D] y) <float[",
                                         absl::StrJoin(w_dims, ", "), "] w = {",
                                         absl::StrJoin(wv, ", "), "}>"),
                            op),
                  {a, w, c},  // the node's inputs in order, the constant w included
                  with_stats);
      ASSERT_TRUE(packed.ok()) << packed.status();
      EXPECT_EQ(stats.packed_weight_products, 1);
      ExpectNear(Values<float>((*packed)[0]), Values<float>((*plain)[0]), 1e-5, attrs);
    }
  }
}

// x [N, C, H, W] with `extra` zero channels appended, and w [M, C, KH, KW] with `extra` channels
// of `fill` appended: the same convolution (the appended taps add w * 0 after the real ones) with
// a K (channels x taps) over simd::DirectConvPlanes' limit, so it runs im2col + GEMM.
std::pair<Tensor, Tensor> WithZeroChannels(const Tensor& x, const Tensor& w, int64_t extra,
                                           float fill) {
  const auto& xd = x.dims();
  const auto& wd = w.dims();
  const int64_t N = xd[0], C = xd[1], plane = xd[2] * xd[3];
  const int64_t M = wd[0], taps = wd[2] * wd[3];
  const std::vector<float> xs = Values<float>(x), ws = Values<float>(w);
  std::vector<float> x2, w2;
  for (int64_t n = 0; n < N; ++n) {
    x2.insert(x2.end(), xs.begin() + n * C * plane, xs.begin() + (n + 1) * C * plane);
    x2.insert(x2.end(), extra * plane, 0.0f);
  }
  for (int64_t m = 0; m < M; ++m) {
    w2.insert(w2.end(), ws.begin() + m * C * taps, ws.begin() + (m + 1) * C * taps);
    w2.insert(w2.end(), extra * taps, fill);
  }
  return {Floats({N, C + extra, xd[2], xd[3]}, x2), Floats({M, C + extra, wd[2], wd[3]}, w2)};
}

// A dense convolution with few input channels runs the direct kernel (simd::DirectConvPlanes):
// the bits of im2col + GEMM, for strides, dilations, asymmetric pads, output channels not a
// multiple of four and rows wider than a vector.
TEST(Conv, DirectFewChannelsGivesTheGemmBits) {
  const Tensor x = RandomTensor({2, 3, 11, 37}, 61), w = RandomTensor({6, 3, 3, 3}, 62),
               b = RandomTensor({6}, 63);
  for (const std::string attrs : {"pads = [1, 1, 1, 1]", "strides = [2, 2], pads = [1, 0, 1, 1]",
                                  "strides = [1, 3], dilations = [2, 1], pads = [2, 1, 0, 2]"}) {
    const std::string text =
        ModelText(11, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                  absl::StrCat("y = Conv <", attrs, "> (x, w, b)"));
    absl::StatusOr<std::vector<Tensor>> direct = RunText(text, {x, w, b});
    ASSERT_TRUE(direct.ok()) << direct.status();
    const auto [x2, w2] = WithZeroChannels(x, w, 1, 0.5f);
    absl::StatusOr<std::vector<Tensor>> gemm = RunText(text, {x2, w2, b});
    ASSERT_TRUE(gemm.ok()) << gemm.status();
    EXPECT_EQ(Values<float>((*direct)[0]), Values<float>((*gemm)[0])) << attrs;
  }
}

// The direct depthwise kernel and batched images give the bits of the im2col + GEMM path: each
// channel convolved alone (one group, one image, zero channels appended: the GEMM path) matches
// its slice.
// Depthwise convolutions of at least a block of channels on small planes run in the blocked
// layout (simd/nchwc.h), reordered in and out: each channel's bits equal the same channel
// convolved alone (one channel: the planar kernel), for channel counts off the block, batches,
// every padded window kind, with and without a bias.
TEST(Conv, BlockedDepthwiseGivesThePlanarBits) {
  struct Window {
    int64_t kernel;
    std::string attrs;
  };
  const Window windows[] = {{3, "strides = [1, 1], pads = [1, 1, 1, 1]"},
                            {3, "strides = [2, 2], pads = [0, 0, 1, 1]"},
                            {5, "strides = [2, 2], pads = [2, 1, 1, 2]"},
                            {5, "strides = [1, 1], pads = [2, 2, 2, 2]"}};
  for (const int64_t C : {int64_t{21}, int64_t{37}}) {
    const int64_t N = 2, H = 8, W = 7;  // outputs of at most 8x8: the blocked path's
    const Tensor x = RandomTensor({N, C, H, W}, 61);
    const std::vector<float> xs = Values<float>(x);
    for (const Window& window : windows) {
      for (bool with_bias : {true, false}) {
        const int64_t K = window.kernel, taps = K * K;
        const Tensor w = RandomTensor({C, 1, K, K}, 62), b = RandomTensor({C}, 63);
        const std::string inputs = with_bias ? "(x, w, b)" : "(x, w)";
        const std::string signature = "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)";
        absl::StatusOr<std::vector<Tensor>> y = RunText(
            ModelText(11, signature,
                      absl::StrCat("y = Conv <group = ", C, ", ", window.attrs, "> ", inputs)),
            with_bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w});
        ASSERT_TRUE(y.ok()) << y.status();
        const std::vector<float> all = Values<float>((*y)[0]);
        const int64_t out_size = static_cast<int64_t>(all.size()) / (N * C);
        const std::vector<float> ws = Values<float>(w), bs = Values<float>(b);
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t c = 0; c < C; ++c) {
            const Tensor xc =
                Floats({1, 1, H, W}, std::vector<float>(xs.begin() + (n * C + c) * H * W,
                                                        xs.begin() + (n * C + c + 1) * H * W));
            const Tensor wc = Floats({1, 1, K, K}, std::vector<float>(ws.begin() + c * taps,
                                                                      ws.begin() + (c + 1) * taps));
            const Tensor bc = Floats({1}, {bs[c]});
            absl::StatusOr<std::vector<Tensor>> one = RunText(
                ModelText(11, signature, absl::StrCat("y = Conv <", window.attrs, "> ", inputs)),
                with_bias ? std::vector<Tensor>{xc, wc, bc} : std::vector<Tensor>{xc, wc});
            ASSERT_TRUE(one.ok()) << one.status();
            const std::vector<float> want = Values<float>((*one)[0]);
            ASSERT_EQ(static_cast<int64_t>(want.size()), out_size);
            EXPECT_EQ(std::memcmp(all.data() + (n * C + c) * out_size, want.data(),
                                  out_size * sizeof(float)),
                      0)
                << C << " channels, " << window.attrs << (with_bias ? "" : ", no bias")
                << ": image " << n << " channel " << c;
          }
        }
      }
    }
  }
}

TEST(Conv, DepthwiseAndBatchedImagesGiveTheGemmBits) {
  const int64_t N = 3, C = 4, H = 9, W = 21, Mg = 2;
  const Tensor x = RandomTensor({N, C, H, W}, 21);
  const std::vector<float> xs = Values<float>(x);
  struct Window {
    int64_t kernel;
    std::string attrs;
  };
  // The general direct kernel (a dilation), then the padded one (3x3 stride 1, 5x5 stride 2).
  const Window windows[] = {{3, "strides = [2, 1], pads = [1, 1, 0, 1], dilations = [1, 2]"},
                            {3, "strides = [1, 1], pads = [1, 1, 1, 1]"},
                            {5, "strides = [2, 2], pads = [2, 1, 1, 2]"}};
  for (const Window& window : windows) {
    const int64_t K = window.kernel, taps = K * K;
    const std::string& attrs = window.attrs;
    const Tensor w = RandomTensor({C * Mg, 1, K, K}, 22), b = RandomTensor({C * Mg}, 23);
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(ModelText(11, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                          absl::StrCat("y = Conv <group = ", C, ", ", attrs, "> (x, w, b)")),
                {x, w, b});
    ASSERT_TRUE(y.ok()) << y.status();
    const std::vector<float> all = Values<float>((*y)[0]);
    const int64_t out_size = static_cast<int64_t>(all.size()) / (N * C * Mg);
    const std::vector<float> ws = Values<float>(w), bs = Values<float>(b);
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t c = 0; c < C; ++c) {
        const Tensor xc =
            Floats({1, 1, H, W}, std::vector<float>(xs.begin() + (n * C + c) * H * W,
                                                    xs.begin() + (n * C + c + 1) * H * W));
        const Tensor wc = Floats(
            {Mg, 1, K, K},
            std::vector<float>(ws.begin() + c * Mg * taps, ws.begin() + (c + 1) * Mg * taps));
        const Tensor bc =
            Floats({Mg}, std::vector<float>(bs.begin() + c * Mg, bs.begin() + (c + 1) * Mg));
        const auto [xg, wg] = WithZeroChannels(xc, wc, 3, 0.25f);
        absl::StatusOr<std::vector<Tensor>> one =
            RunText(ModelText(11, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                              absl::StrCat("y = Conv <", attrs, "> (x, w, b)")),
                    {xg, wg, bc});
        ASSERT_TRUE(one.ok()) << one.status();
        const std::vector<float> want = Values<float>((*one)[0]);
        const std::vector<float> got(all.begin() + (n * C + c) * Mg * out_size,
                                     all.begin() + (n * C + c + 1) * Mg * out_size);
        EXPECT_EQ(got, want) << attrs << ": image " << n << " channel " << c;
      }
    }
  }
  // Images batched into one GEMM (outputs under 256 positions) against one image at a time.
  const Tensor w2 = RandomTensor({5, C, 3, 3}, 24);
  absl::StatusOr<std::vector<Tensor>> batched =
      RunText(ModelText(11, "agraph (float[A] x, float[B] w) => (float[D] y)",
                        "y = Conv <pads = [1, 1, 1, 1]> (x, w)"),
              {x, w2});
  ASSERT_TRUE(batched.ok()) << batched.status();
  const std::vector<float> ball = Values<float>((*batched)[0]);
  const int64_t per_image = static_cast<int64_t>(ball.size()) / N;
  for (int64_t n = 0; n < N; ++n) {
    const Tensor xn = Floats({1, C, H, W}, std::vector<float>(xs.begin() + n * C * H * W,
                                                              xs.begin() + (n + 1) * C * H * W));
    absl::StatusOr<std::vector<Tensor>> one =
        RunText(ModelText(11, "agraph (float[A] x, float[B] w) => (float[D] y)",
                          "y = Conv <pads = [1, 1, 1, 1]> (x, w)"),
                {xn, w2});
    ASSERT_TRUE(one.ok()) << one.status();
    EXPECT_EQ(std::vector<float>(ball.begin() + n * per_image, ball.begin() + (n + 1) * per_image),
              Values<float>((*one)[0]))
        << "image " << n;
  }
}

// MaxPool without Indices (tap rows folded into output rows, strides 1 and 2 vectorized)
// against a direct loop: strides, dilations, pads, rows wider and narrower than a vector, NaN
// inputs (skipped by the fold, as the scalar path does), and the 2x2 stride-2 fast path on
// widths that take full, half, quarter vectors and scalar tails, odd planes (floor mode) and
// signed zeros (the first of equal maxima wins: compared bit for bit), and rows whose last
// vector overlaps the one before.
TEST(MaxPool, MatchesDirectPooling) {
  struct Case {
    std::vector<int64_t> x_dims, kernel, strides, dilations, pads;
  };
  const Case cases[] = {
      {{2, 3, 32, 32}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{1, 2, 16, 16}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{1, 2, 9, 70}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{1, 1, 11, 67}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      // ResNet's stem pool (even width: the last vector of a row overlaps the one before) and a
      // 5-tap stride-2 window (an odd last tap).
      {{1, 2, 9, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 1, 6, 77}, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}},
      {{1, 1, 10, 50}, {2, 3}, {1, 2}, {2, 2}, {0, 1, 1, 2}},
      {{1, 1, 7, 41}, {1, 5}, {1, 1}, {1, 3}, {0, 2, 0, 2}},
      {{3, 5, 8, 64}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{2, 3, 9, 43}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{1, 4, 8, 8}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{1, 2, 7, 7}, {2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      // Negative pads (a crop; the model fuzzer found the edge columns indexed from -1).
      {{1, 2, 9, 20}, {3, 2}, {1, 1}, {1, 1}, {-1, -2, 1, -1}},
      {{1, 1, 8, 40}, {2, 2}, {2, 2}, {1, 1}, {0, -1, 0, 1}},
  };
  for (const Case& c : cases) {
    for (const bool zeros : {false, true}) {
      Tensor x = RandomTensor(c.x_dims, 41);
      std::vector<float> xv = Values<float>(x);
      if (zeros) {  // only -1, -0, +0 and NaN: ties between zeros of both signs everywhere
        const float pick[] = {-1.0f, -0.0f, 0.0f, std::nanf("")};
        for (size_t i = 0; i < xv.size(); ++i) xv[i] = pick[(i * 2654435761u >> 9) % 4];
      } else {
        for (size_t i = 5; i < xv.size(); i += 97) xv[i] = std::nanf("");
      }
      x = Floats(c.x_dims, xv);
      const std::string attrs = absl::StrCat("kernel_shape = [", absl::StrJoin(c.kernel, ", "),
                                             "], strides = [", absl::StrJoin(c.strides, ", "),
                                             "], dilations = [", absl::StrJoin(c.dilations, ", "),
                                             "], pads = [", absl::StrJoin(c.pads, ", "), "]");
      absl::StatusOr<std::vector<Tensor>> y =
          RunText(ModelText(12, "agraph (float[A] x) => (float[D] y)",
                            absl::StrCat("y = MaxPool <", attrs, "> (x)")),
                  {x});
      ASSERT_TRUE(y.ok()) << y.status();
      const int64_t H = c.x_dims[2], W = c.x_dims[3], planes = c.x_dims[0] * c.x_dims[1];
      const int64_t OH =
          (H + c.pads[0] + c.pads[2] - ((c.kernel[0] - 1) * c.dilations[0] + 1)) / c.strides[0] + 1;
      const int64_t OW =
          (W + c.pads[1] + c.pads[3] - ((c.kernel[1] - 1) * c.dilations[1] + 1)) / c.strides[1] + 1;
      std::vector<float> want;
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t oh = 0; oh < OH; ++oh) {
          for (int64_t ow = 0; ow < OW; ++ow) {
            float m = -std::numeric_limits<float>::infinity();
            for (int64_t a = 0; a < c.kernel[0]; ++a) {
              const int64_t ih = oh * c.strides[0] - c.pads[0] + a * c.dilations[0];
              if (ih < 0 || ih >= H) continue;
              for (int64_t b = 0; b < c.kernel[1]; ++b) {
                const int64_t iw = ow * c.strides[1] - c.pads[1] + b * c.dilations[1];
                if (iw < 0 || iw >= W) continue;
                const float v = xv[(p * H + ih) * W + iw];
                m = v > m ? v : m;
              }
            }
            want.push_back(m);
          }
        }
      }
      std::vector<uint32_t> got_bits, want_bits;
      for (const float v : Values<float>((*y)[0])) got_bits.push_back(std::bit_cast<uint32_t>(v));
      for (const float v : want) want_bits.push_back(std::bit_cast<uint32_t>(v));
      EXPECT_EQ(got_bits, want_bits) << attrs << (zeros ? " (signed zeros)" : "");
    }
  }
}

// AveragePool with negative pads (a crop, which the shape rule allows) against a direct loop;
// count_include_pad = 1 over a crop has no agreed divisor, so it is only run.
TEST(AveragePool, NegativePadsCrop) {
  const Tensor x = RandomTensor({1, 2, 7, 12}, 47);
  const std::vector<float> xv = Values<float>(x);
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(ModelText(11, "agraph (float[A] x) => (float[D] y)",
                        "y = AveragePool <kernel_shape = [5, 2], pads = [2, -1, 0, 2]> (x)"),
              {x});
  ASSERT_TRUE(y.ok()) << y.status();
  // OH = 7 + 2 - 5 + 1 = 5, OW = 12 - 1 + 2 - 2 + 1 = 12.
  std::vector<float> want;
  for (int64_t p = 0; p < 2; ++p) {
    for (int64_t oh = 0; oh < 5; ++oh) {
      for (int64_t ow = 0; ow < 12; ++ow) {
        double sum = 0;
        int n = 0;
        for (int64_t a = 0; a < 5; ++a) {
          for (int64_t b = 0; b < 2; ++b) {
            const int64_t ih = oh - 2 + a, iw = ow + 1 + b;
            if (ih < 0 || ih >= 7 || iw >= 12) continue;
            sum += xv[(p * 7 + ih) * 12 + iw];
            ++n;
          }
        }
        want.push_back(static_cast<float>(sum / n));
      }
    }
  }
  const std::vector<float> got = Values<float>((*y)[0]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {  // the last column's window lies wholly in the end pads: 0 / 0
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-6) << i;
    }
  }
  y = RunText(ModelText(11, "agraph (float[A] x) => (float[D] y)",
                        "y = AveragePool <kernel_shape = [5, 2], count_include_pad = 1, "
                        "pads = [64, -1, 3, 2]> (x)"),
              {x});
  EXPECT_TRUE(y.ok()) << y.status();
}

// 3-D MaxPool over a depth of one: with no depth pads it is the 2x2 fast path's case; depth pads
// make planes of padding (-inf: no tap inside), which that path must not take.
TEST(MaxPool, DepthOfOneWithAndWithoutDepthPads) {
  const Tensor x = RandomTensor({1, 2, 1, 4, 6}, 43);
  const std::vector<float> xv = Values<float>(x);
  for (const bool depth_pads : {false, true}) {
    const std::string pads = depth_pads ? "[1, 0, 0, 1, 0, 0]" : "[0, 0, 0, 0, 0, 0]";
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        ModelText(12, "agraph (float[A] x) => (float[D] y)",
                  absl::StrCat("y = MaxPool <kernel_shape = [1, 2, 2], strides = [1, 2, 2], "
                               "pads = ",
                               pads, "> (x)")),
        {x});
    ASSERT_TRUE(y.ok()) << y.status();
    const int64_t depth = depth_pads ? 3 : 1;
    std::vector<float> want;
    for (int64_t p = 0; p < 2; ++p) {
      for (int64_t d = 0; d < depth; ++d) {
        for (int64_t oh = 0; oh < 2; ++oh) {
          for (int64_t ow = 0; ow < 3; ++ow) {
            float m = -std::numeric_limits<float>::infinity();
            if (d == depth / 2) {  // the one plane the input fills
              for (int64_t a = 0; a < 2; ++a) {
                for (int64_t b = 0; b < 2; ++b) {
                  const float v = xv[(p * 4 + 2 * oh + a) * 6 + 2 * ow + b];
                  m = v > m ? v : m;
                }
              }
            }
            want.push_back(m);
          }
        }
      }
    }
    EXPECT_EQ(std::vector<int64_t>((*y)[0].dims().begin(), (*y)[0].dims().end()),
              (std::vector<int64_t>{1, 2, depth, 2, 3}))
        << pads;
    EXPECT_EQ(Values<float>((*y)[0]), want) << pads;
  }
}

// The blocked direct path (ops/conv_blocked.h) on the convolutions it takes (strided, few input
// channels, at least twice as many outputs): 3x3 with every pad arrangement (asymmetric, none,
// rows wholly in the padding), unequal strides, a 7x7 stem on RGB, 5x5 and 3x5 windows, output
// channels on both sides of a block of 16, widths on both sides of a tile, with and without
// bias: the definition's sums, and the same bits when threads split the rows.
TEST(Conv, BlockedPathGivesTheDirectSum) {
  const ConvCase cases[] = {
      {{1, 8, 17, 15}, 20, 1, {3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}},
      {{2, 16, 9, 9}, 40, 1, {3, 3}, {2, 2}, {1, 1}, {0, 1, 1, 0}},
      {{1, 8, 12, 40}, 64, 1, {3, 3}, {2, 2}, {1, 1}, {0, 0, 0, 0}},
      {{1, 8, 5, 6}, 16, 1, {3, 3}, {2, 2}, {1, 1}, {4, 3, 4, 5}},
      {{1, 16, 20, 30}, 32, 1, {3, 3}, {2, 3}, {1, 1}, {1, 1, 1, 1}},
      {{1, 3, 30, 30}, 16, 1, {7, 7}, {2, 2}, {1, 1}, {3, 3, 3, 3}},
      {{2, 5, 12, 31}, 33, 1, {5, 5}, {2, 2}, {1, 1}, {2, 2, 2, 2}},
      {{1, 8, 10, 12}, 72, 1, {3, 5}, {2, 2}, {1, 1}, {1, 2, 1, 2}},
  };
  int64_t index = 0;
  for (const ConvCase& c : cases) {
    const bool with_bias = index++ % 3 != 2;
    std::vector<int64_t> out;
    for (int d = 0; d < 2; ++d) {
      out.push_back((c.x_dims[2 + d] + c.pads[d] + c.pads[2 + d] - c.kernel[d]) / c.strides[d] + 1);
    }
    const std::vector<int64_t> w_dims = {c.m, c.x_dims[1], c.kernel[0], c.kernel[1]};
    // Weights k / 64 print exactly in the model text.
    std::vector<float> wv = Values<float>(RandomTensor(w_dims, 62));
    for (float& v : wv) v = std::round(v * 64.0f) / 64.0f;
    const Tensor x = RandomTensor(c.x_dims, 61), w = Floats(w_dims, wv);
    const Tensor b = with_bias ? RandomTensor({c.m}, 63) : Floats({c.m}, std::vector<float>(c.m));
    const std::string attrs = absl::StrCat("kernel_shape = [", absl::StrJoin(c.kernel, ", "),
                                           "], strides = [", absl::StrJoin(c.strides, ", "),
                                           "], pads = [", absl::StrJoin(c.pads, ", "), "]");
    const std::string text =
        ModelText(11,
                  absl::StrCat("agraph (float[A] x", with_bias ? ", float[K] b" : "",
                               ") => (float[D] y) <float[", absl::StrJoin(w_dims, ", "), "] w = {",
                               absl::StrJoin(wv, ", "), "}>"),
                  absl::StrCat("y = Conv <", attrs, "> (x, w", with_bias ? ", b" : "", ")"));
    const std::vector<Tensor> inputs =
        with_bias ? std::vector<Tensor>{x, w, b} : std::vector<Tensor>{x, w};
    KernelStats stats;
    NodeExecOptions with_stats;
    with_stats.stats = &stats;
    absl::StatusOr<std::vector<Tensor>> y = RunText(text, inputs, with_stats);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(stats.blocked_convolutions, 1) << attrs;
    EXPECT_EQ(stats.winograd_convolutions, 0) << attrs;
    {  // Threads split the rows, never an output's arithmetic: the same bits.
      parallel::ThreadScope threads(3);
      parallel::ScopedSplitAll split;
      absl::StatusOr<std::vector<Tensor>> split_y = RunText(text, inputs);
      ASSERT_TRUE(split_y.ok()) << split_y.status();
      EXPECT_EQ(Values<float>((*split_y)[0]), Values<float>((*y)[0])) << attrs;
    }
    const std::vector<float> want = NaiveConv(c, out, Values<float>(x), wv, Values<float>(b));
    ExpectNear(Values<float>((*y)[0]), want, 1e-4,
               absl::StrCat(absl::StrJoin(c.x_dims, "x"), " ", attrs));
  }
}

// com.microsoft FusedConv: the bits of Conv then the activation node, for every activation it
// takes and every path of the Conv kernel (applied after the GEMM, or in the direct, depthwise
// and Winograd kernels' epilogue); an activation it does not take, wrong parameters and the Z
// input are clear errors.
TEST(FusedConv, GivesTheBitsOfConvThenActivation) {
  struct Case {
    std::string activation, params, standalone;  // standalone: the activation as an ONNX node
  };
  const Case cases[] = {
      {"Relu", "", "Relu"},
      {"LeakyRelu", "[0.125]", "LeakyRelu <alpha = 0.125>"},
      {"Sigmoid", "", "Sigmoid"},
      {"Tanh", "", "Tanh"},
      {"Clip", "[-0.5, 0.75]", "Clip <min = -0.5, max = 0.75>"},
      {"HardSigmoid", "[0.25, 0.375]", "HardSigmoid <alpha = 0.25, beta = 0.375>"},
  };
  // Every path of the Conv kernel: im2col + GEMM (the activation runs after), and the direct
  // few-channel, depthwise and Winograd kernels (the activation runs in their epilogue).
  struct Geometry {
    std::vector<int64_t> x_dims, w_dims;
    std::string attrs;
    bool constant_weight;  // Winograd needs one
  };
  const Geometry geometries[] = {
      {{2, 6, 9, 11}, {8, 6, 3, 3}, "pads = [1, 0, 1, 2], strides = [1, 2]", false},
      {{2, 3, 9, 11}, {7, 3, 3, 3}, "pads = [1, 0, 1, 2], strides = [1, 2]", false},
      {{2, 6, 9, 11}, {6, 1, 3, 3}, "pads = [1, 0, 1, 2], strides = [1, 2], group = 6", false},
      {{2, 8, 12, 12}, {8, 8, 3, 3}, "pads = [1, 1, 1, 1]", true},
  };
  for (const Geometry& geo : geometries) {
    const std::string& conv_attrs = geo.attrs;
    const Tensor x = RandomTensor(geo.x_dims, 51), b = RandomTensor({geo.w_dims[0]}, 53);
    // Weights k / 64 print exactly in the model text.
    std::vector<float> wv = Values<float>(RandomTensor(geo.w_dims, 52));
    for (float& v : wv) v = std::round(v * 64.0f) / 64.0f;
    const Tensor w = Floats(geo.w_dims, wv);
    const std::string signature =
        geo.constant_weight
            ? absl::StrCat("agraph (float[A] x, float[C] b) => (float[D] y) <float[",
                           absl::StrJoin(geo.w_dims, ", "), "] w = {", absl::StrJoin(wv, ", "),
                           "}>")
            : "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)";
    absl::StatusOr<std::vector<Tensor>> conv = RunText(
        ModelText(11, signature, absl::StrCat("y = Conv <", conv_attrs, "> (x, w, b)")), {x, w, b});
    ASSERT_TRUE(conv.ok()) << conv.status();
    auto fused_text = [&](const std::string& activation, const std::string& params) {
      return absl::StrCat(
          "<ir_version: 8, opset_import: [\"\" : 11, \"com.microsoft\" : 1]>\n", signature,
          " {\n  y = com.microsoft.FusedConv <", conv_attrs, ", activation = \"", activation, "\"",
          params.empty() ? "" : absl::StrCat(", activation_params = ", params), "> (x, w, b)\n}\n");
    };
    for (const Case& c : cases) {
      absl::StatusOr<std::vector<Tensor>> want =
          RunText(ModelText(6, "agraph (float[A] c) => (float[D] y)",  // Clip-6: bounds attributes
                            absl::StrCat("y = ", c.standalone, " (c)")),
                  {(*conv)[0]});
      ASSERT_TRUE(want.ok()) << want.status();
      absl::StatusOr<std::vector<Tensor>> got =
          RunText(fused_text(c.activation, c.params), {x, w, b});
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(Values<float>((*got)[0]), Values<float>((*want)[0]))
          << c.activation << " " << conv_attrs;
    }
  }
  const Tensor x = RandomTensor({2, 6, 9, 11}, 51), w = RandomTensor({8, 6, 3, 3}, 52),
               b = RandomTensor({8}, 53);
  auto fused_text = [&](const std::string& activation, const std::string& params) {
    return absl::StrCat(
        "<ir_version: 8, opset_import: [\"\" : 11, \"com.microsoft\" : 1]>\n",
        "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y) {\n",
        "  y = com.microsoft.FusedConv <pads = [1, 1, 1, 1], activation = \"", activation, "\"",
        params.empty() ? "" : absl::StrCat(", activation_params = ", params), "> (x, w, b)\n}\n");
  };
  absl::StatusOr<std::vector<Tensor>> elu = RunText(fused_text("Elu", "[1.0]"), {x, w, b});
  EXPECT_EQ(elu.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(elu.status().message().find("activation 'Elu' is not supported"), std::string::npos)
      << elu.status();
  absl::StatusOr<std::vector<Tensor>> missing = RunText(fused_text("LeakyRelu", ""), {x, w, b});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument) << missing.status();
}

// ConvTranspose is the adjoint of Conv: <conv(x, w), y> == <x, conv_transpose(y, w)>.
// A bias B that is not one value per output channel is an error naming it, for Conv and
// ConvTranspose alike (a 3-value B for 64 output channels was read past its end).
TEST(ConvTranspose, BiasMustHoldOneValuePerOutputChannel) {
  const Tensor x = RandomTensor({1, 1, 3, 1}, 71);
  for (const char* op : {"ConvTranspose", "Conv"}) {
    SCOPED_TRACE(op);
    const bool transpose = std::string(op) == "ConvTranspose";
    const std::vector<int64_t> w_dims =
        transpose ? std::vector<int64_t>{1, 64, 3, 3} : std::vector<int64_t>{64, 1, 3, 3};
    const Tensor w = RandomTensor(w_dims, 72);
    for (const std::vector<int64_t>& b_dims :
         {std::vector<int64_t>{3}, std::vector<int64_t>{1, 64}, std::vector<int64_t>{64}}) {
      absl::StatusOr<std::vector<Tensor>> y =
          RunText(ModelText(13, "agraph (float[A] x, float[B] w, float[C] b) => (float[D] y)",
                            absl::StrCat("y = ", op, " <pads = [1, 1, 1, 1]> (x, w, b)")),
                  {x, w, RandomTensor(b_dims, 73)});
      if (b_dims.size() == 1 && b_dims[0] == 64) {
        EXPECT_TRUE(y.ok()) << y.status();
        continue;
      }
      ASSERT_FALSE(y.ok());
      EXPECT_NE(y.status().message().find("one value per output channel"), std::string::npos)
          << y.status();
    }
  }
}

TEST(ConvTranspose, IsTheAdjointOfConv) {
  const ConvCase c = {{1, 4, 7, 8}, 6, 2, {3, 2}, {2, 1}, {1, 2}, {1, 0, 0, 1}};
  Tensor x = RandomTensor(c.x_dims, 21), w = RandomTensor({6, 2, 3, 2}, 22);
  absl::StatusOr<std::vector<Tensor>> conv = RunText(
      ModelText(11, "agraph (float[A] x, float[B] w) => (float[D] y)",
                "y = Conv <group = 2, strides = [2, 1], dilations = [1, 2], pads = [1, 0, 0, 1]> "
                "(x, w)"),
      {x, w});
  ASSERT_TRUE(conv.ok()) << conv.status();
  const std::vector<int64_t> y_dims = Dims((*conv)[0]);
  Tensor y = RandomTensor(y_dims, 23);
  // The transpose's output must be X's size: output_padding makes up for the stride.
  const int64_t op_h = c.x_dims[2] - ((y_dims[2] - 1) * 2 + 3 - 1);
  const int64_t op_w = c.x_dims[3] - ((y_dims[3] - 1) * 1 + 3 - 1);
  absl::StatusOr<std::vector<Tensor>> xt = RunText(
      ModelText(11, "agraph (float[A] y, float[B] w) => (float[D] x)",
                absl::StrCat("x = ConvTranspose <group = 2, strides = [2, 1], dilations = [1, 2], "
                             "pads = [1, 0, 0, 1], output_padding = [",
                             op_h, ", ", op_w, "]> (y, w)")),
      {y, w});
  ASSERT_TRUE(xt.ok()) << xt.status();
  ASSERT_EQ(Dims((*xt)[0]), c.x_dims);
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < y.NumElements(); ++i) lhs += (*conv)[0].As<float>()[i] * y.As<float>()[i];
  for (int64_t i = 0; i < x.NumElements(); ++i) rhs += x.As<float>()[i] * (*xt)[0].As<float>()[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * (1 + std::abs(lhs)));
}

// ---------------------------------------------------------------------------------------------
// Reductions, softmax
// ---------------------------------------------------------------------------------------------

TEST(Reduce, StridedInputAndIntegers) {
  const std::string text = ModelText(11, "agraph (float[A] x) => (float[B] y)",
                                     "y = ReduceSum <axes = [0, 2], keepdims = 0> (x)");
  // A transposed view [3, 4, 2] of a dense [2, 4, 3].
  Tensor dense = RandomTensor({2, 4, 3}, 31);
  TensorView v = dense.view();
  v.dims = {3, 4, 2};
  v.strides = {1, 3, 12};
  absl::StatusOr<std::vector<Tensor>> y = RunViews(text, {v}, {{4}});
  ASSERT_TRUE(y.ok()) << y.status();
  std::vector<float> want(4, 0);
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t b = 0; b < 4; ++b) {
      for (int64_t c = 0; c < 3; ++c) want[b] += dense.As<float>()[(a * 4 + b) * 3 + c];
    }
  }
  ExpectNear(Values<float>((*y)[0]), want, 1e-5, "strided ReduceSum");

  y = RunText(ModelText(13, "agraph (int32[A] x) => (int32[B] y)",
                        "y = ReduceMax <axes = [1], keepdims = 1> (x)"),
              {MakeTensor<int32_t>(ElementType::kInt32, {2, 3}, {1, -5, 3, -7, -2, -9})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{3, -2}));
  // ReduceSum-13 with axes as an input; an empty axes input with noop_with_empty_axes copies.
  y = RunText(ModelText(13, "agraph (int64[A] x, int64[N] axes) => (int64[B] y)",
                        "y = ReduceSum <keepdims = 0> (x, axes)"),
              {MakeTensor<int64_t>(ElementType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6}),
               MakeTensor<int64_t>(ElementType::kInt64, {1}, {-1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<int64_t>((*y)[0]), (std::vector<int64_t>{6, 15}));
}

// The mean over an empty axis: NaN for floats (0 / 0), an error naming the node for integers,
// whose division by zero had killed the process (the model fuzzer found it).
TEST(Reduce, MeanOfNothing) {
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(ModelText(13, "agraph (float[A] x) => (float[B] y)",
                        "y = ReduceMean <axes = [1], keepdims = 0> (x)"),
              {Floats({2, 0}, {})});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].dims(), (Shape{2}));
  EXPECT_TRUE(std::isnan((*y)[0].As<float>()[0]));
  y = RunText(ModelText(13, "agraph (int64[A] x) => (int64[B] y)",
                        "y = ReduceMean <axes = [1], keepdims = 0> (x)"),
              {MakeTensor<int64_t>(ElementType::kInt64, {2, 0}, {})});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("ReduceMean"), std::string::npos) << y.status();
  EXPECT_NE(y.status().message().find("mean of 0 elements"), std::string::npos) << y.status();
}

// An empty axis with columns after it: nothing to compute, for every family member (the
// column path had read a first row that is not there; the model fuzzer found it).
TEST(Softmax, EmptyAxisWithColumnsLeft) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(ModelText(13, "agraph (float[A] x) => (float[A] y)",
                          absl::StrCat("y = ", op, " <axis = 1> (x)")),
                {Floats({3, 0, 5}, {})});
    ASSERT_TRUE(y.ok()) << op << ": " << y.status();
    EXPECT_EQ((*y)[0].dims(), (Shape{3, 0, 5})) << op;
  }
}

TEST(Softmax, OldOpsetsFlattenToTwoDims) {
  Tensor x = RandomTensor({2, 3, 4}, 41);
  // Opset 11, axis 1: each of the 2 rows of 12 sums to 1.
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      ModelText(11, "agraph (float[A] x) => (float[A] y)", "y = Softmax <axis = 1> (x)"), {x});
  ASSERT_TRUE(y.ok()) << y.status();
  for (int r = 0; r < 2; ++r) {
    double s = 0;
    for (int i = 0; i < 12; ++i) s += (*y)[0].As<float>()[r * 12 + i];
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
  // Opset 13, axis 1: each of the 8 (n, k) columns of 3 sums to 1.
  y = RunText(ModelText(13, "agraph (float[A] x) => (float[A] y)", "y = Softmax <axis = 1> (x)"),
              {x});
  ASSERT_TRUE(y.ok()) << y.status();
  for (int n = 0; n < 2; ++n) {
    for (int k = 0; k < 4; ++k) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += (*y)[0].As<float>()[(n * 3 + c) * 4 + k];
      EXPECT_NEAR(s, 1.0, 1e-5);
    }
  }
  // Infinities and NaN follow numpy: exp(inf - inf) is NaN, and a NaN sum poisons the row.
  y = RunText(ModelText(13, "agraph (float[A] x) => (float[A] y)", "y = Softmax (x)"),
              {Floats({3, 3}, {1, INFINITY, 2, NAN, 0, 1, -INFINITY, 0, 1})});
  ASSERT_TRUE(y.ok()) << y.status();
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(std::isnan((*y)[0].As<float>()[i])) << i;
  EXPECT_EQ((*y)[0].As<float>()[6], 0.0f);
  EXPECT_NEAR((*y)[0].As<float>()[8], std::exp(1.0) / (1 + std::exp(1.0)), 1e-6);
}

TEST(ArgMax, TiesAndSelectLastIndex) {
  Tensor x = Floats({2, 4}, {1, 3, 3, 0, 2, 2, 1, 2});
  auto run = [&](const std::string& attrs) {
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(ModelText(13, "agraph (float[A] x) => (int64[B] y)",
                          absl::StrCat("y = ArgMax <", attrs, "> (x)")),
                {x});
    EXPECT_TRUE(y.ok()) << y.status();
    return y.ok() ? Values<int64_t>((*y)[0]) : std::vector<int64_t>{};
  };
  EXPECT_EQ(run("axis = 1, keepdims = 0"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(run("axis = 1, keepdims = 0, select_last_index = 1"), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(run("axis = 0, keepdims = 1"), (std::vector<int64_t>{1, 0, 0, 1}));
}

// ---------------------------------------------------------------------------------------------
// Einsum
// ---------------------------------------------------------------------------------------------

// The definition of a letters-only equation with an explicit output: every assignment of every
// label, operands indexed with numpy broadcasting (size-1 dims repeat).
std::vector<float> NaiveEinsum(const std::string& equation, const std::vector<Tensor>& inputs) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms = absl::StrSplit(equation.substr(0, arrow), ',');
  const std::string out_term = equation.substr(arrow + 2);
  std::map<char, int64_t> sizes;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t k = 0; k < terms[i].size(); ++k) {
      sizes[terms[i][k]] = std::max(sizes[terms[i][k]], inputs[i].dims()[k]);
    }
  }
  std::vector<char> labels;
  for (const auto& [l, size] : sizes) labels.push_back(l);
  int64_t out_size = 1;
  for (char l : out_term) out_size *= sizes[l];
  std::vector<float> out(out_size, 0);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  for (;;) {
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t offset = 0;
      for (size_t k = 0; k < terms[i].size(); ++k) {
        const int64_t d = inputs[i].dims()[k];
        offset = offset * d + (d == 1 ? 0 : at[terms[i][k]]);
      }
      product *= inputs[i].As<float>()[offset];
    }
    int64_t o = 0;
    for (char l : out_term) o = o * sizes[l] + at[l];
    out[o] += static_cast<float>(product);
    size_t k = 0;
    for (; k < labels.size(); ++k) {
      if (++at[labels[k]] < sizes[labels[k]]) break;
      at[labels[k]] = 0;
    }
    if (k == labels.size()) break;
  }
  return out;
}

TEST(Einsum, MatchesDefinition) {
  struct Case {
    std::string equation;   // as given to the op
    std::string reference;  // the same with letters only and an explicit output
    std::vector<std::vector<int64_t>> dims;
  };
  const Case cases[] = {
      {"...ij,...jk", "xyij,yjk->xyik", {{2, 1, 3, 4}, {5, 4, 2}}},
      {"ii->i", "ii->i", {{4, 4}}},
      {"ii", "ii->", {{3, 3}}},
      {"bii->b", "bii->b", {{2, 3, 3}}},
      {"ij,jk,kl->il", "ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 2}}},
      {"ab,cd->abcd", "ab,cd->abcd", {{2, 3}, {2, 2}}},
      {"aBc,cB->a", "aBc,cB->a", {{3, 4, 5}, {5, 4}}},
      {"ij,ij->", "ij,ij->", {{6, 7}, {6, 7}}},
      {"ijk->kji", "ijk->kji", {{2, 3, 4}}},
      {"bhqd,bhkd->bhqk", "bhqd,bhkd->bhqk", {{2, 3, 5, 8}, {2, 3, 6, 8}}},
      {"Ba,ab", "Ba,ab->Bb", {{3, 4}, {4, 3}}},
  };
  for (const Case& c : cases) {
    std::vector<Tensor> inputs;
    std::vector<std::string> sig;
    std::vector<std::string> names;
    for (size_t i = 0; i < c.dims.size(); ++i) {
      inputs.push_back(RandomTensor(c.dims[i], 50 + i));
      sig.push_back(absl::StrCat("float[", absl::StrJoin(c.dims[i], ","), "] x", i));
      names.push_back(absl::StrCat("x", i));
    }
    absl::StatusOr<std::vector<Tensor>> y = RunText(
        ModelText(12, absl::StrCat("agraph (", absl::StrJoin(sig, ", "), ") => (float[D] y)"),
                  absl::StrCat("y = Einsum <equation = \"", c.equation, "\"> (",
                               absl::StrJoin(names, ", "), ")")),
        inputs);
    ASSERT_TRUE(y.ok()) << c.equation << ": " << y.status();
    ExpectNear(Values<float>((*y)[0]), NaiveEinsum(c.reference, inputs), 1e-5, c.equation);
  }
}

// ---------------------------------------------------------------------------------------------
// ONNX backend node tests
// ---------------------------------------------------------------------------------------------

// The ops of the family: those of its kernel table.
const std::set<std::string>& FamilyOps() {
  static const auto* ops = [] {
    auto* set = new std::set<std::string>;
    for (const KernelRule* r = kernel_rules::kComputeKernels; r->op_type != nullptr; ++r) {
      set->insert(r->op_type);
    }
    return set;
  }();
  return *ops;
}

// The table is sorted and binds ops of the op table (which KernelRegistryTest checks for
// completeness).
TEST(ComputeKernels, TableSorted) {
  std::pair<std::string, std::string> previous;
  for (const KernelRule* r = kernel_rules::kComputeKernels; r->op_type != nullptr; ++r) {
    const std::pair<std::string, std::string> key(r->op_type, r->domain);
    EXPECT_LT(previous, key);
    previous = key;
    EXPECT_NE(FindOpAnyVersion(r->domain, r->op_type), nullptr) << r->op_type;
  }
}

TEST(ComputeKernels, OnnxBackendNodeTests) {
  kernel_testing::BackendTally tally;
  for (const std::filesystem::path& dir : kernel_testing::BackendTestDirs()) {
    absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile((dir / "model.onnx").string());
    if (!model.ok() || (*model)->graph().num_nodes() != 1) continue;
    const Node& node = **(*model)->graph().nodes().begin();
    if (!node.domain().empty() || FamilyOps().count(node.op_type()) == 0) continue;
    tally.Add(node.op_type(), dir.filename().string(),
              kernel_testing::CheckBackendTest(dir, **model));
  }
  tally.Print("compute");
  EXPECT_GE(tally.total(), 245);
  EXPECT_TRUE(tally.failures().empty()) << absl::StrJoin(tally.failures(), "\n");
}

}  // namespace
}  // namespace anvil
