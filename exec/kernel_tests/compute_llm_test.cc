// Tests of ONNX Runtime's decoder LLM ops (kernels/ops/compute_nbits.cc, compute_gqa.cc,
// compute_rotary.cc, compute_skip_norm.cc; FusedMatMul, a tied LM head's product, in
// compute_matmul.cc) through the node executor, shape rules included, against double-precision
// references of ONNX Runtime 1.30's definitions, within the tolerances its own tests use
// (MatMulNBits: abs 1e-5 + rel 1e-4 in float, abs 0.1 + rel 0.02 with int8 activations;
// GroupQueryAttention: 1e-3). tools/llm_ops_vs_ort.sh runs the same ops in ONNX Runtime itself.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/float16.h"
#include "base/parallel.h"
#include "exec/node_executor.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/op_kernel.h"
#include "kernels/simd/nbits.h"
#include "kernels/tensor.h"

namespace anvil {
namespace {

using kernel_testing::Dims;
using kernel_testing::Floats;
using kernel_testing::Int64s;
using kernel_testing::MakeTensor;
using kernel_testing::RunText;
using kernel_testing::Values;

constexpr char kHeader[] = "<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\n";

std::vector<float> Uniform(int64_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}

// |got - want| <= atol + rtol * |want| for every element.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want, double atol,
                 double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i])) continue;
    if (bad++ < 3) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

// A node's inputs by position: a name and its tensor, or "" and none (an omitted optional input).
// Trailing omitted ones are dropped.
struct Slots {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  void Add(const std::string& name, Tensor t) {
    names.push_back(name);
    tensors.push_back(std::move(t));
  }
  void Skip() { Add("", Tensor()); }
  void Trim() {
    while (!names.empty() && names.back().empty()) {
      names.pop_back();
      tensors.pop_back();
    }
  }
  std::string Text() const { return absl::StrJoin(names, ", "); }
};

// ---------------------------------------------------------------------------------------------
// MatMulNBits
// ---------------------------------------------------------------------------------------------

enum class Zeros { kNone, kPacked, kFloat };

struct NBitsCase {
  int64_t m, k, n, block;
  Zeros zeros;
  bool bias;
  int accuracy_level;
};

struct NBitsOperands {
  Tensor a, b, scales, zeros, bias;
  std::vector<double> w;  // [n, k] dequantized
};

NBitsOperands MakeNBits(const NBitsCase& c, uint32_t seed) {
  const int64_t blocks = (c.k + c.block - 1) / c.block, blob = c.block / 2;
  std::mt19937 rng(seed);
  NBitsOperands o;
  o.a = Floats({c.m, c.k}, Uniform(c.m * c.k, -1.0f, 1.0f, seed + 1));
  std::vector<uint8_t> q(static_cast<size_t>(c.n * blocks * blob));
  for (uint8_t& x : q) x = static_cast<uint8_t>(rng());
  o.b = MakeTensor<uint8_t>(ElementType::kUint8, {c.n, blocks, blob}, q);
  const std::vector<float> scales = Uniform(c.n * blocks, 0.01f, 0.1f, seed + 2);
  o.scales = Floats({c.n * blocks}, scales);
  std::vector<float> zero(static_cast<size_t>(c.n * blocks), 8.0f);
  if (c.zeros == Zeros::kPacked) {
    const int64_t per_row = (blocks + 1) / 2;
    std::vector<uint8_t> packed(static_cast<size_t>(c.n * per_row));
    for (uint8_t& x : packed) x = static_cast<uint8_t>(rng());
    for (int64_t r = 0; r < c.n; ++r) {
      for (int64_t bl = 0; bl < blocks; ++bl) {
        const uint8_t byte = packed[r * per_row + bl / 2];
        zero[r * blocks + bl] = static_cast<float>((bl & 1) ? byte >> 4 : byte & 0xF);
      }
    }
    o.zeros = MakeTensor<uint8_t>(ElementType::kUint8, {c.n * per_row}, packed);
  } else if (c.zeros == Zeros::kFloat) {
    zero = Uniform(c.n * blocks, 0.0f, 15.0f, seed + 3);
    o.zeros = Floats({c.n, blocks}, zero);
  }
  if (c.bias) o.bias = Floats({c.n}, Uniform(c.n, -1.0f, 1.0f, seed + 4));
  o.w.resize(static_cast<size_t>(c.n * c.k));
  for (int64_t r = 0; r < c.n; ++r) {
    for (int64_t k = 0; k < c.k; ++k) {
      const int64_t bl = k / c.block;
      const uint8_t byte = q[(r * blocks + bl) * blob + (k % c.block) / 2];
      const int v = (k & 1) ? byte >> 4 : byte & 0xF;
      o.w[r * c.k + k] = (v - static_cast<double>(zero[r * blocks + bl])) * scales[r * blocks + bl];
    }
  }
  return o;
}

std::vector<double> NBitsReference(const NBitsCase& c, const NBitsOperands& o) {
  const std::vector<float> a = Values<float>(o.a);
  const std::vector<float> bias = c.bias ? Values<float>(o.bias) : std::vector<float>();
  std::vector<double> y(static_cast<size_t>(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = c.bias ? bias[j] : 0.0;
      for (int64_t k = 0; k < c.k; ++k) sum += a[i * c.k + k] * o.w[j * c.k + k];
      y[i * c.n + j] = sum;
    }
  }
  return y;
}

Slots NBitsSlots(const NBitsCase& c, const NBitsOperands& o) {
  Slots slots;
  slots.Add("a", o.a);
  slots.Add("b", o.b);
  slots.Add("s", o.scales);
  if (c.zeros != Zeros::kNone) {
    slots.Add("zp", o.zeros);
  } else {
    slots.Skip();
  }
  slots.Skip();  // g_idx
  if (c.bias) slots.Add("bias", o.bias);
  slots.Trim();
  return slots;
}

std::string NBitsModel(const NBitsCase& c, const Slots& slots) {
  const std::string zp_decl = c.zeros == Zeros::kPacked  ? ", uint8[Z] zp"
                              : c.zeros == Zeros::kFloat ? ", float[R, C] zp"
                                                         : "";
  return absl::StrCat(kHeader, "agraph (float[M, K] a, uint8[N, B, L] b, float[S] s", zp_decl,
                      c.bias ? ", float[N] bias" : "", ") => (float[M, ", c.n, "] y) {\n",
                      "  y = com.microsoft.MatMulNBits <K = ", c.k, ", N = ", c.n,
                      ", bits = 4, block_size = ", c.block, ", accuracy_level = ", c.accuracy_level,
                      "> (", slots.Text(), ")\n}\n");
}

absl::StatusOr<std::vector<Tensor>> RunNBits(const NBitsCase& c, const NBitsOperands& o) {
  const Slots slots = NBitsSlots(c, o);
  return RunText(NBitsModel(c, slots), slots.tensors);
}

// Every block size, K a multiple of the block or not, N not a multiple of the kernel's 4 columns,
// rows of A through the matrix-vector path (M <= 4) and the GEMM paths (int8 with accuracy_level
// 4 and integer zero points where the CPU has byte products; float otherwise, in both orders: the
// transposed one for 9 rows, the direct one for 80 rows of K = 896, past 256 KiB), zero points
// absent, packed and float, with and without bias; each at 1 and 2 threads with the same bits.
TEST(MatMulNBitsTest, MatchesTheDequantizedProduct) {
  uint32_t seed = 100;
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t k : {block * 3, block * 2 + 6, int64_t{896}}) {
      for (int64_t m : {1, 3, 9, 80}) {
        for (Zeros zeros : {Zeros::kNone, Zeros::kPacked, Zeros::kFloat}) {
          for (int level : {0, 4}) {
            const NBitsCase c{m, k, 7 + (seed % 5), block, zeros, seed % 2 == 0, level};
            const NBitsOperands o = MakeNBits(c, seed++);
            const std::string what = absl::StrCat("M=", m, " K=", k, " N=", c.n, " block=", block,
                                                  " zeros=", static_cast<int>(zeros),
                                                  " bias=", c.bias, " level=", level);
            std::vector<float> first;
            for (int threads : {1, 2}) {
              parallel::ThreadScope scope(threads);
              parallel::ScopedSplitAll split;
              absl::StatusOr<std::vector<Tensor>> y = RunNBits(c, o);
              ASSERT_TRUE(y.ok()) << what << ": " << y.status();
              ASSERT_EQ(Dims((*y)[0]), (std::vector<int64_t>{m, c.n})) << what;
              const std::vector<float> got = Values<float>((*y)[0]);
              // int8 activations (accuracy_level 4, integer zero points; a prompt's rows too
              // where the CPU has byte products) within ONNX Runtime's tolerance for them; the
              // float arithmetic within its float's.
              const bool int8 = level == 4 && zeros != Zeros::kFloat;
              ExpectClose(got, NBitsReference(c, o), int8 ? 0.1 : 1e-5, int8 ? 0.02 : 1e-4, what);
              if (threads == 1) {
                first = got;
              } else {
                EXPECT_EQ(got, first) << what << ": 2 threads differ from 1";
              }
            }
          }
        }
      }
    }
  }
}

// The int8 arithmetic is nearer than ONNX Runtime's tolerance for it: per block, |error| is at most
// half a step of a's quantization times sum |w|.
// One row (the matrix-vector path) and a prompt's 80 (the GEMM path).
TEST(MatMulNBitsTest, Int8ActivationsErrorIsBoundedByTheirQuantizationStep) {
  for (int64_t m : {1, 80}) {
    for (Zeros zeros : {Zeros::kNone, Zeros::kPacked}) {
      const NBitsCase c{m, 4864, 64, 32, zeros, false, 4};
      const NBitsOperands o = MakeNBits(c, 7);
      absl::StatusOr<std::vector<Tensor>> y = RunNBits(c, o);
      ASSERT_TRUE(y.ok()) << y.status();
      const std::vector<float> got = Values<float>((*y)[0]);
      const std::vector<double> want = NBitsReference(c, o);
      const std::vector<float> a = Values<float>(o.a);
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t j = 0; j < c.n; ++j) {
          double bound = 0;
          for (int64_t bl = 0; bl < c.k / c.block; ++bl) {
            double amax = 0, wsum = 0;
            for (int64_t k = bl * c.block; k < (bl + 1) * c.block; ++k) {
              amax = std::max(amax, std::fabs(static_cast<double>(a[r * c.k + k])));
              wsum += std::fabs(o.w[j * c.k + k]);
            }
            bound += 0.5 * amax / 127.0 * wsum;
          }
          EXPECT_LE(std::fabs(got[r * c.n + j] - want[r * c.n + j]), bound * 1.01 + 1e-5)
              << "M=" << m << " zeros=" << static_cast<int>(zeros) << " row " << r << " column "
              << j;
        }
      }
    }
  }
}

// With accuracy_level 4, constant B and scales are packed at load into the interleaved layout
// (where this CPU runs it: kernels with byte products) and their bytes released: the products, of
// the matrix-vector path and the GEMM path, are the plain layout's bits.
TEST(MatMulNBitsTest, ConstantWeightsPackedAtLoadGiveThePlainBits) {
  uint32_t seed = 500;
  for (int64_t block : {32, 64, 256}) {
    for (int64_t k : {block * 4, block * 3, int64_t{896}}) {
      for (int64_t m : {1, 3, 9}) {
        for (Zeros zeros : {Zeros::kNone, Zeros::kPacked}) {
          const NBitsCase c{m, k, 13, block, zeros, seed % 2 == 0, 4};
          const NBitsOperands o = MakeNBits(c, seed++);
          const std::string what =
              absl::StrCat("M=", m, " K=", k, " block=", block, " zeros=", static_cast<int>(zeros));
          const Slots slots = NBitsSlots(c, o);
          absl::StatusOr<std::vector<Tensor>> plain = RunText(NBitsModel(c, slots), slots.tensors);
          ASSERT_TRUE(plain.ok()) << what << ": " << plain.status();
          absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(NBitsModel(c, slots));
          ASSERT_TRUE(model.ok()) << model.status();
          Graph& graph = (*model)->graph();
          Node& node = **graph.nodes().begin();
          node.SetInput(1, graph.AddInitializer("b_constant", o.b.ToElements()));
          node.SetInput(2, graph.AddInitializer("s_constant", o.scales.ToElements()));
          absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(node, 1);
          ASSERT_TRUE(kernel.ok()) << kernel.status();
          simd::Int4Weights w;
          w.n = c.n;
          w.k = k;
          w.block = block;
          EXPECT_EQ((*kernel)->KeepsOwnCopyOf(1), simd::Int4InterleavedSupported(w)) << what;
          absl::StatusOr<std::vector<Tensor>> packed = RunNode(node, 1, slots.tensors);
          ASSERT_TRUE(packed.ok()) << what << ": " << packed.status();
          EXPECT_EQ(Values<float>((*packed)[0]), Values<float>((*plain)[0])) << what;
        }
      }
    }
  }
}

TEST(MatMulNBitsTest, RefusesWhatOnnxRuntimeRefuses) {
  const NBitsCase c{1, 64, 4, 32, Zeros::kNone, false, 0};
  const NBitsOperands o = MakeNBits(c, 3);
  // B of the wrong size for K, N and block_size.
  const Tensor short_b =
      MakeTensor<uint8_t>(ElementType::kUint8, {4, 1, 16}, std::vector<uint8_t>(64, 0));
  const std::string model = NBitsModel(c, NBitsSlots(c, o));
  absl::StatusOr<std::vector<Tensor>> y = RunText(model, {o.a, short_b, o.scales});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  EXPECT_NE(y.status().message().find("must be uint8 [4, 2, 16]"), std::string::npos) << y.status();
  // A whose last dim is not K: the shape rule names it.
  y = RunText(model, {Floats({1, 63}, std::vector<float>(63, 0.0f)), o.b, o.scales});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  // block_size not a power of 2; bits other than 4.
  y = RunText(absl::StrCat(kHeader,
                           "agraph (float[1, 64] a, uint8[4, 2, 16] b, float[8] s) => (float[1, 4] "
                           "y) {\n  y = com.microsoft.MatMulNBits <K = 64, N = 4, bits = 4, "
                           "block_size = 24> (a, b, s)\n}\n"),
              {o.a, o.b, o.scales});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  y = RunText(absl::StrCat(kHeader,
                           "agraph (float[1, 64] a, uint8[4, 2, 16] b, float[8] s) => (float[1, 4] "
                           "y) {\n  y = com.microsoft.MatMulNBits <K = 64, N = 4, bits = 8, "
                           "block_size = 32> (a, b, s)\n}\n"),
              {o.a, o.b, o.scales});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kUnimplemented) << y.status();
  // g_idx: the plain order runs, a permutation is Unimplemented.
  std::vector<int32_t> order(64);
  for (int i = 0; i < 64; ++i) order[i] = i / 32;
  const std::string with_g = absl::StrCat(
      kHeader,
      "agraph (float[1, 64] a, uint8[4, 2, 16] b, float[8] s, int32[64] g) => (float[1, 4] y) {\n"
      "  y = com.microsoft.MatMulNBits <K = 64, N = 4, bits = 4, block_size = 32> (a, b, s, , g)\n"
      "}\n");
  y = RunText(with_g, {o.a, o.b, o.scales, Tensor(),
                       MakeTensor<int32_t>(ElementType::kInt32, {64}, order)});
  EXPECT_TRUE(y.ok()) << y.status();
  std::swap(order[0], order[40]);
  y = RunText(with_g, {o.a, o.b, o.scales, Tensor(),
                       MakeTensor<int32_t>(ElementType::kInt32, {64}, order)});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kUnimplemented) << y.status();
}

// ---------------------------------------------------------------------------------------------
// FusedMatMul (ONNX Runtime's MatMul + Transpose fusion, written by fuse-matmul-transpose)
// ---------------------------------------------------------------------------------------------

// Y = alpha * op(A) op(B) for every transA / transB, batched A over a 2-D or a batched B, one
// row and several, against a double reference. B as a run input is read strided in place; as a
// constant with no other reader it is packed once from its stored layout; a constant another
// node also reads (a tied embedding) is not packed, and gives the same products.
TEST(FusedMatMulTest, TransposedOperandsReadInPlaceOrPacked) {
  uint32_t seed = 900;
  constexpr int64_t kBatch = 2, kK = 7, kN = 6;
  for (int ta : {0, 1}) {
    for (int tb : {0, 1}) {
      for (bool batched_b : {false, true}) {
        for (int64_t m : {1, 5}) {
          const std::string what =
              absl::StrCat("transA=", ta, " transB=", tb, " batched B=", batched_b, " M=", m);
          std::vector<int64_t> a_dims =
              ta ? std::vector<int64_t>{kBatch, kK, m} : std::vector<int64_t>{kBatch, m, kK};
          std::vector<int64_t> b_dims =
              tb ? std::vector<int64_t>{kN, kK} : std::vector<int64_t>{kK, kN};
          if (batched_b) b_dims.insert(b_dims.begin(), kBatch);
          const Tensor a = Floats(a_dims, Uniform(kBatch * m * kK, -1, 1, seed++));
          const Tensor b =
              Floats(b_dims, Uniform((batched_b ? kBatch : 1) * kK * kN, -1, 1, seed++));
          std::vector<double> want(kBatch * m * kN);
          for (int64_t p = 0; p < kBatch; ++p) {
            const float* ap = a.As<float>() + p * m * kK;
            const float* bp = b.As<float>() + (batched_b ? p * kK * kN : 0);
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < kN; ++j) {
                double sum = 0;
                for (int64_t k = 0; k < kK; ++k) {
                  sum += double{ta ? ap[k * m + i] : ap[i * kK + k]} *
                         (tb ? bp[j * kK + k] : bp[k * kN + j]);
                }
                want[(p * m + i) * kN + j] = 0.5 * sum;
              }
            }
          }
          const std::string text = absl::StrCat(
              kHeader, "agraph (float[", absl::StrJoin(a_dims, ", "), "] a, float[",
              absl::StrJoin(b_dims, ", "), "] b) => (float[", kBatch, ", ", m, ", ", kN,
              "] y) {\n  y = com.microsoft.FusedMatMul <alpha = 0.5, transA = ", ta,
              ", transB = ", tb, "> (a, b)\n}\n");
          absl::StatusOr<std::vector<Tensor>> plain = RunText(text, {a, b});
          ASSERT_TRUE(plain.ok()) << what << ": " << plain.status();
          EXPECT_EQ(Dims((*plain)[0]), (std::vector<int64_t>{kBatch, m, kN})) << what;
          ExpectClose(Values<float>((*plain)[0]), want, 1e-5, 1e-5, what);
          if (batched_b) continue;
          for (bool second_reader : {false, true}) {
            absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
            ASSERT_TRUE(model.ok()) << model.status();
            Graph& graph = (*model)->graph();
            Node& node = **graph.nodes().begin();
            Value* constant = graph.AddInitializer("b_constant", b.ToElements());
            node.SetInput(1, constant);
            if (second_reader) {
              Node* other = graph.AddNode("Identity");
              other->AddInput(constant);
              other->AddOutput("b_copy");
            }
            absl::StatusOr<std::unique_ptr<OpKernel>> kernel = CreateKernel(node, 1);
            ASSERT_TRUE(kernel.ok()) << kernel.status();
            EXPECT_EQ((*kernel)->KeepsOwnCopyOf(1), !second_reader) << what;
            absl::StatusOr<std::vector<Tensor>> constant_b = RunNode(node, 1, {a, b});
            ASSERT_TRUE(constant_b.ok()) << what << ": " << constant_b.status();
            ExpectClose(Values<float>((*constant_b)[0]), want, 1e-5, 1e-5,
                        absl::StrCat(what, " constant B, second reader ", second_reader));
          }
        }
      }
    }
  }
}

// float16 operands are computed in float32 and rounded once, alpha included; transBatch is
// Unimplemented, as the shape rule says.
TEST(FusedMatMulTest, Float16AndWhatItDoesNotImplement) {
  const std::vector<float> av = {1, 2, 3, 4, 5, 6}, bv = {0.5, -1, 2, 0.25, 1, -0.5};
  std::vector<uint16_t> ah, bh;
  for (float v : av) ah.push_back(fp16::FloatToHalf(v));
  for (float v : bv) bh.push_back(fp16::FloatToHalf(v));
  const std::string text =
      absl::StrCat(kHeader,
                   "agraph (float16[2, 3] a, float16[2, 3] b) => (float16[2, 2] y) {\n"
                   "  y = com.microsoft.FusedMatMul <alpha = 2.0, transB = 1> (a, b)\n}\n");
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(text, {MakeTensor(ElementType::kFloat16, {2, 3}, ah),
                     MakeTensor(ElementType::kFloat16, {2, 3}, bh)});
  ASSERT_TRUE(out.ok()) << out.status();
  // a b^T = [[1*0.5 - 2 + 6, 0.25 + 2 - 1.5], [2 - 5 + 12, 1 + 5 - 3]] = [[4.5, 0.75], [9, 3]].
  const std::vector<double> want = {9, 1.5, 18, 6};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(kernel_testing::ElementAsDouble((*out)[0], i), want[i]);
  absl::StatusOr<std::vector<Tensor>> batch =
      RunText(absl::StrCat(kHeader,
                           "agraph (float[2, 2, 3] a, float[3, 2] b) => (float[2, 2, 2] y) {\n"
                           "  y = com.microsoft.FusedMatMul <transBatchA = 1> (a, b)\n}\n"),
              {Floats({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), Floats({3, 2}, bv)});
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.status().code(), absl::StatusCode::kUnimplemented) << batch.status();
  EXPECT_NE(batch.status().message().find("transBatchA"), std::string::npos) << batch.status();
}

// ---------------------------------------------------------------------------------------------
// RotaryEmbedding (and the rotation GroupQueryAttention shares)
// ---------------------------------------------------------------------------------------------

// One head row rotated at `pos` by caches of `half` columns: rotary_dim = 2 * half of `head`.
std::vector<double> RotateReference(const float* x, int64_t head, int64_t rotary,
                                    const std::vector<float>& cos, const std::vector<float>& sin,
                                    int64_t half, int64_t pos, bool interleaved) {
  std::vector<double> y(x, x + head);
  for (int64_t i = 0; i < rotary / 2; ++i) {
    const int64_t i0 = interleaved ? 2 * i : i, i1 = interleaved ? 2 * i + 1 : i + rotary / 2;
    const double c = cos[pos * half + i], s = sin[pos * half + i];
    y[i0] = x[i0] * c - x[i1] * s;
    y[i1] = x[i0] * s + x[i1] * c;
  }
  return y;
}

struct Caches {
  std::vector<float> cos, sin;
  int64_t rows, half;
  Tensor cos_t() const { return Floats({rows, half}, cos); }
  Tensor sin_t() const { return Floats({rows, half}, sin); }
};

Caches MakeCaches(int64_t rows, int64_t half) {
  Caches c{{}, {}, rows, half};
  for (int64_t p = 0; p < rows; ++p) {
    for (int64_t i = 0; i < half; ++i) {
      const double angle = p / std::pow(10000.0, static_cast<double>(i) / half);
      c.cos.push_back(static_cast<float>(std::cos(angle)));
      c.sin.push_back(static_cast<float>(std::sin(angle)));
    }
  }
  return c;
}

TEST(RotaryEmbeddingTest, RotatesEachHeadAtItsPosition) {
  const int64_t batch = 2, seq = 5, heads = 3, head = 16;
  const Caches caches = MakeCaches(64, 8);
  struct Case {
    bool bnsh, interleaved, offset;
    int64_t rotary_dim;  // 0: the whole head
  };
  for (const Case& c :
       {Case{false, false, false, 0}, Case{false, true, true, 0}, Case{true, false, true, 8},
        Case{true, true, false, 12}, Case{false, false, false, 8}}) {
    const std::vector<int64_t> dims = c.bnsh ? std::vector<int64_t>{batch, heads, seq, head}
                                             : std::vector<int64_t>{batch, seq, heads * head};
    const std::vector<float> x = Uniform(batch * seq * heads * head, -1, 1, 5);
    std::vector<int64_t> pos;
    if (c.offset) {
      pos = {7};
    } else {
      for (int64_t i = 0; i < batch * seq; ++i) pos.push_back((i * 13) % 60);
    }
    const Tensor pos_t = c.offset ? Int64s({1}, pos) : Int64s({batch, seq}, pos);
    const std::string attrs = absl::StrCat(
        "interleaved = ", c.interleaved ? 1 : 0,
        c.rotary_dim > 0 || !c.bnsh ? absl::StrCat(", num_heads = ", heads) : "",
        c.rotary_dim > 0 ? absl::StrCat(", rotary_embedding_dim = ", c.rotary_dim) : "");
    const std::string text =
        absl::StrCat(kHeader, "agraph (float[", absl::StrJoin(dims, ", "), "] x, int64[",
                     c.offset ? "1" : "B, S", "] p, float[R, H] cs, float[R, H] sn) => (float[",
                     absl::StrJoin(dims, ", "), "] y) {\n  y = com.microsoft.RotaryEmbedding <",
                     attrs, "> (x, p, cs, sn)\n}\n");
    absl::StatusOr<std::vector<Tensor>> y =
        RunText(text, {Floats(dims, x), pos_t, caches.cos_t(), caches.sin_t()});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<double> want(x.size());
    const int64_t rotary = c.rotary_dim > 0 ? c.rotary_dim : head;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t p = c.offset ? pos[0] + s : pos[b * seq + s];
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t at =
              c.bnsh ? ((b * heads + h) * seq + s) * head : (b * seq + s) * heads * head + h * head;
          const std::vector<double> r = RotateReference(x.data() + at, head, rotary, caches.cos,
                                                        caches.sin, 8, p, c.interleaved);
          std::copy(r.begin(), r.end(), want.begin() + at);
        }
      }
    }
    ExpectClose(Values<float>((*y)[0]), want, 1e-6, 1e-5,
                absl::StrCat("bnsh=", c.bnsh, " interleaved=", c.interleaved));
  }
}

TEST(RotaryEmbeddingTest, PositionsPastTheCachesAreAnError) {
  const Caches caches = MakeCaches(8, 4);
  const std::string text = absl::StrCat(
      kHeader,
      "agraph (float[1, 4, 8] x, int64[1] p, float[R, H] cs, float[R, H] sn) => (float[1, 4, 8] "
      "y) {\n  y = com.microsoft.RotaryEmbedding <num_heads = 1> (x, p, cs, sn)\n}\n");
  absl::StatusOr<std::vector<Tensor>> y =
      RunText(text, {Floats({1, 4, 8}, std::vector<float>(32, 1.0f)), Int64s({1}, {5}),
                     caches.cos_t(), caches.sin_t()});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  EXPECT_NE(y.status().message().find("outside the caches' 8 rows"), std::string::npos)
      << y.status();
}

// ---------------------------------------------------------------------------------------------
// GroupQueryAttention
// ---------------------------------------------------------------------------------------------

struct GqaCase {
  int64_t batch, seq, heads, kv_heads, head;
  std::vector<int64_t> totals;  // per batch: seqlens_k + 1
  int64_t past_len;             // past_key's sequence dim (-1: no past inputs)
  bool packed = false, rotary = false, interleaved = false;
  int64_t rotary_half = 0;  // cache width (rotary_dim / 2)
  int64_t window = -1;
  float softcap = 0.0f;
  bool smooth = false, sink = false, bias = false;
  float scale = 0.0f;
};

struct GqaData {
  std::vector<float> q, k, v, past_k, past_v, bias, sink;
  Caches caches;
  int64_t total_max;
};

GqaData MakeGqa(const GqaCase& c, uint32_t seed) {
  GqaData d;
  const int64_t q_width = c.packed ? c.heads + 2 * c.kv_heads : c.heads;
  d.q = Uniform(c.batch * c.seq * q_width * c.head, -1, 1, seed);
  if (!c.packed) {
    d.k = Uniform(c.batch * c.seq * c.kv_heads * c.head, -1, 1, seed + 1);
    d.v = Uniform(c.batch * c.seq * c.kv_heads * c.head, -1, 1, seed + 2);
  }
  if (c.past_len >= 0) {
    d.past_k = Uniform(c.batch * c.kv_heads * c.past_len * c.head, -1, 1, seed + 3);
    d.past_v = Uniform(c.batch * c.kv_heads * c.past_len * c.head, -1, 1, seed + 4);
  }
  d.total_max = *std::max_element(c.totals.begin(), c.totals.end());
  if (c.bias) d.bias = Uniform(c.batch * c.heads * c.seq * d.total_max, -2, 2, seed + 5);
  if (c.sink) d.sink = Uniform(c.heads, -1, 1, seed + 6);
  if (c.rotary) d.caches = MakeCaches(d.total_max + 4, c.rotary_half);
  return d;
}

struct GqaResult {
  std::vector<double> out, present_k, present_v;
};

// The definition, in double (the header of compute_gqa.cc), for the unshared cache.
GqaResult GqaReference(const GqaCase& c, const GqaData& d) {
  const int64_t h = c.head, n = c.heads, nkv = c.kv_heads, groups = n / nkv;
  const int64_t q_width = c.packed ? n + 2 * nkv : n;
  const int64_t present_len = std::max(d.total_max, c.past_len);
  const bool first = c.seq == d.total_max;
  GqaResult r;
  r.out.assign(c.batch * c.seq * n * h, 0.0);
  r.present_k.assign(c.batch * nkv * present_len * h, 0.0);
  r.present_v = r.present_k;
  const double scale = c.scale != 0.0f ? c.scale : 1.0 / std::sqrt(static_cast<double>(h));
  for (int64_t b = 0; b < c.batch; ++b) {
    const int64_t t = c.totals[b], p = first ? 0 : t - c.seq;
    auto new_row = [&](int which, int64_t s, int64_t j) {  // which: 0 q head j, 1 k, 2 v
      const int64_t token = b * c.seq + s;
      if (c.packed) {
        const int64_t head_index = which == 0 ? j : which == 1 ? n + j : n + nkv + j;
        return d.q.data() + (token * q_width + head_index) * h;
      }
      const std::vector<float>& src = which == 0 ? d.q : which == 1 ? d.k : d.v;
      return src.data() + (token * (which == 0 ? n : nkv) + j) * h;
    };
    auto rotated = [&](const float* x, int64_t pos) {
      if (!c.rotary) return std::vector<double>(x, x + h);
      return RotateReference(x, h, 2 * c.rotary_half, d.caches.cos, d.caches.sin, c.rotary_half,
                             pos, c.interleaved);
    };
    for (int64_t j = 0; j < nkv; ++j) {
      double* pk = r.present_k.data() + (b * nkv + j) * present_len * h;
      double* pv = r.present_v.data() + (b * nkv + j) * present_len * h;
      for (int64_t row = 0; row < p; ++row) {
        for (int64_t e = 0; e < h; ++e) {
          pk[row * h + e] = d.past_k[((b * nkv + j) * c.past_len + row) * h + e];
          pv[row * h + e] = d.past_v[((b * nkv + j) * c.past_len + row) * h + e];
        }
      }
      for (int64_t s = 0; s < c.seq; ++s) {
        const std::vector<double> kr = rotated(new_row(1, s, j), p + s);
        const float* vr = new_row(2, s, j);
        for (int64_t e = 0; e < h; ++e) {
          pk[(p + s) * h + e] = kr[e];
          pv[(p + s) * h + e] = vr[e];
        }
      }
    }
    for (int64_t head = 0; head < n; ++head) {
      const int64_t j = head / groups;
      const double* keys = r.present_k.data() + (b * nkv + j) * present_len * h;
      const double* values = r.present_v.data() + (b * nkv + j) * present_len * h;
      for (int64_t s = 0; s < c.seq; ++s) {
        const std::vector<double> q = rotated(new_row(0, s, head), p + s);
        const int64_t limit = std::min(t, p + s + 1);
        const int64_t start = c.window >= 0 ? std::max<int64_t>(0, limit - c.window) : 0;
        std::vector<double> x(limit - start);
        for (int64_t key = start; key < limit; ++key) {
          double dot = 0;
          for (int64_t e = 0; e < h; ++e) dot += q[e] * keys[key * h + e];
          dot *= scale;
          if (c.softcap > 0) dot = c.softcap * std::tanh(dot / c.softcap);
          if (c.bias) dot += d.bias[((b * n + head) * c.seq + s) * d.total_max + key];
          x[key - start] = dot;
        }
        double m = -INFINITY;
        for (double v : x) m = std::max(m, v);
        const bool has_sink = c.sink || c.smooth;
        const double sink = c.sink ? d.sink[head] : 0.0;
        if (has_sink) m = std::max(m, sink);
        double sum = has_sink ? std::exp(sink - m) : 0.0;
        for (double& v : x) sum += (v = std::exp(v - m));
        double* o = r.out.data() + (b * c.seq + s) * n * h + head * h;
        for (int64_t key = start; key < limit; ++key) {
          for (int64_t e = 0; e < h; ++e) o[e] += x[key - start] / sum * values[key * h + e];
        }
      }
    }
  }
  return r;
}

absl::StatusOr<std::vector<Tensor>> RunGqa(const GqaCase& c, const GqaData& d) {
  const int64_t q_width = (c.packed ? c.heads + 2 * c.kv_heads : c.heads) * c.head;
  std::vector<int32_t> seqlens;
  for (int64_t t : c.totals) seqlens.push_back(static_cast<int32_t>(t - 1));
  Slots slots;
  slots.Add("q", Floats({c.batch, c.seq, q_width}, d.q));
  if (c.packed) {
    slots.Skip();
    slots.Skip();
  } else {
    slots.Add("k", Floats({c.batch, c.seq, c.kv_heads * c.head}, d.k));
    slots.Add("v", Floats({c.batch, c.seq, c.kv_heads * c.head}, d.v));
  }
  if (c.past_len >= 0) {
    slots.Add("pk", Floats({c.batch, c.kv_heads, c.past_len, c.head}, d.past_k));
    slots.Add("pv", Floats({c.batch, c.kv_heads, c.past_len, c.head}, d.past_v));
  } else {
    slots.Skip();
    slots.Skip();
  }
  slots.Add("sl", MakeTensor<int32_t>(ElementType::kInt32, {c.batch}, seqlens));
  slots.Add("tl",
            MakeTensor<int32_t>(ElementType::kInt32, {1}, {static_cast<int32_t>(d.total_max)}));
  if (c.rotary) {
    slots.Add("cs", d.caches.cos_t());
    slots.Add("sn", d.caches.sin_t());
  } else {
    slots.Skip();
    slots.Skip();
  }
  slots.Skip();  // position_ids
  if (c.bias) {
    slots.Add("ab", Floats({c.batch, c.heads, c.seq, d.total_max}, d.bias));
  } else {
    slots.Skip();
  }
  if (c.sink) {
    slots.Add("hs", Floats({c.heads}, d.sink));
  } else {
    slots.Skip();
  }
  slots.Trim();
  std::string attrs = absl::StrCat("num_heads = ", c.heads, ", kv_num_heads = ", c.kv_heads);
  if (c.scale != 0.0f) absl::StrAppend(&attrs, ", scale = ", c.scale);
  if (c.rotary) absl::StrAppend(&attrs, ", do_rotary = 1, rotary_interleaved = ", c.interleaved);
  if (c.window >= 0) absl::StrAppend(&attrs, ", local_window_size = ", c.window);
  if (c.softcap > 0) absl::StrAppend(&attrs, ", softcap = ", c.softcap);
  if (c.smooth) absl::StrAppend(&attrs, ", smooth_softmax = 1");
  const std::string text = absl::StrCat(
      kHeader,
      "agraph (float[B, S, Q] q, float[B, S, D] k, float[B, S, D] v, float[B, G, P, H] pk, "
      "float[B, G, P, H] pv, int32[B] sl, int32[1] tl, float[R, C] cs, float[R, C] sn, "
      "float[X, Y, S, T] ab, float[N] hs) => (float[B, S, O] y, float[B, G, L, H] yk, "
      "float[B, G, L, H] yv) {\n  y, yk, yv = com.microsoft.GroupQueryAttention <",
      attrs, "> (", slots.Text(), ")\n}\n");
  return RunText(text, slots.tensors);
}

void CheckGqa(const GqaCase& c, uint32_t seed, const std::string& what) {
  const GqaData d = MakeGqa(c, seed);
  absl::StatusOr<std::vector<Tensor>> y = RunGqa(c, d);
  ASSERT_TRUE(y.ok()) << what << ": " << y.status();
  const GqaResult want = GqaReference(c, d);
  const int64_t present_len = std::max(d.total_max, c.past_len);
  ASSERT_EQ(Dims((*y)[1]), (std::vector<int64_t>{c.batch, c.kv_heads, present_len, c.head}))
      << what;
  ExpectClose(Values<float>((*y)[0]), want.out, 1e-3, 1e-3, what + " output");
  ExpectClose(Values<float>((*y)[1]), want.present_k, 1e-3, 1e-3, what + " present_key");
  ExpectClose(Values<float>((*y)[2]), want.present_v, 1e-3, 1e-3, what + " present_value");
}

// The model builder's two steps: a prompt with an empty past, then decode steps with past lengths
// from 0 to 2048 (drawn), the rotation inside (half-split and interleaved, whole and partial).
TEST(GroupQueryAttentionTest, PromptThenDecodeStepsOverCachesUpTo2048) {
  std::mt19937 rng(42);
  GqaCase prompt{1, 7, 14, 2, 64, {7}, 0};
  prompt.packed = true;
  prompt.rotary = true;
  prompt.rotary_half = 32;
  prompt.scale = 0.125f;
  CheckGqa(prompt, 1, "prompt");
  for (int i = 0; i < 6; ++i) {
    const int64_t past = i == 0 ? 0 : i == 1 ? 2047 : static_cast<int64_t>(rng() % 2048);
    GqaCase step{1, 1, 8, 2, 32, {past + 1}, past};
    step.rotary = i % 2 == 0;
    step.interleaved = i % 3 == 0;
    step.rotary_half = i % 4 == 0 ? 16 : 8;
    step.packed = i % 2 == 1;
    CheckGqa(step, 10 + i, absl::StrCat("decode with past ", past));
  }
}

// Batches of different lengths in one cache of the longest (the rows past a batch's length
// stay zero); a prompt after a past (chunked prefill, batch 1); multi-head groups of 1 and 4.
TEST(GroupQueryAttentionTest, RaggedBatchesAndPromptsAfterAPast) {
  GqaCase ragged{3, 1, 4, 2, 16, {5, 9, 2}, 8};
  CheckGqa(ragged, 20, "ragged decode");
  GqaCase chunk{1, 6, 4, 1, 16, {20}, 14};
  chunk.rotary = true;
  chunk.rotary_half = 8;
  CheckGqa(chunk, 21, "prompt after a past");
  GqaCase mha{2, 5, 3, 3, 8, {5, 5}, -1};
  CheckGqa(mha, 22, "no past inputs, one query head per kv head");
}

// Sliding window, softcap, attention_bias, smooth softmax and head_sink, each on its own and with
// the causal mask of a prompt.
TEST(GroupQueryAttentionTest, WindowSoftcapBiasAndSinks) {
  uint32_t seed = 30;
  for (int variant = 0; variant < 5; ++variant) {
    GqaCase c{2, 6, 4, 2, 16, {6, 6}, 0};
    c.window = variant == 0 ? 3 : -1;
    c.softcap = variant == 1 ? 1.5f : 0.0f;
    c.bias = variant == 2;
    c.smooth = variant == 3;
    c.sink = variant == 4;
    CheckGqa(c, seed++, absl::StrCat("variant ", variant));
  }
}

TEST(GroupQueryAttentionTest, LengthsThatDoNotFitAreErrors) {
  GqaCase c{1, 1, 4, 2, 16, {6}, 3};  // a past of 5 rows would be needed, past_key has 3
  const GqaData d = MakeGqa(c, 40);
  absl::StatusOr<std::vector<Tensor>> y = RunGqa(c, d);
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  EXPECT_NE(y.status().message().find("seqlens_k[0] = 5"), std::string::npos) << y.status();
}

// ---------------------------------------------------------------------------------------------
// SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, SkipLayerNormalization
// ---------------------------------------------------------------------------------------------

// Rows of n: sum = x + skip (+ bias); y = (sum - mean) / sqrt(var + eps) * gamma (+ beta), with
// mean 0 and var = mean(sum^2) for the RMS norms.
struct NormReference {
  std::vector<double> y, sum, mean, inv;
};

NormReference Norm(const std::vector<float>& x, const std::vector<float>* skip, int64_t n,
                   const std::vector<float>& gamma, const std::vector<float>* beta,
                   const std::vector<float>* bias, bool simplified, double eps) {
  NormReference r;
  const int64_t rows = static_cast<int64_t>(x.size()) / n;
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<double> v(n);
    for (int64_t j = 0; j < n; ++j) {
      v[j] = x[i * n + j] + (skip ? (*skip)[(i * n + j) % skip->size()] : 0.0) +
             (bias ? (*bias)[j] : 0.0);
      r.sum.push_back(v[j]);
    }
    double mean = 0, var = 0;
    if (!simplified) {
      for (double e : v) mean += e / n;
    }
    for (double e : v) var += (e - mean) * (e - mean) / n;
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < n; ++j) {
      r.y.push_back((v[j] - mean) * inv * gamma[j] + (beta ? (*beta)[j] : 0.0));
    }
    r.mean.push_back(mean);
    r.inv.push_back(inv);
  }
  return r;
}

TEST(SkipNormTest, SimplifiedLayerNormalizationOverTheLastAxes) {
  const std::vector<float> x = Uniform(2 * 3 * 8, -2, 2, 50), scale = Uniform(24, 0.5, 1.5, 51);
  // axis 1 of [2, 3, 8]: rows of 24, inv_std_var [2, 1, 1].
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      absl::StrCat(kHeader,
                   "agraph (float[2, 3, 8] x, float[3, 8] s) => (float[2, 3, 8] y, float[2, 1, 1] "
                   "r) {\n  y, r = SimplifiedLayerNormalization <axis = 1, epsilon = 0.001, "
                   "stash_type = 1> (x, s)\n}\n"),
      {Floats({2, 3, 8}, x), Floats({3, 8}, scale)});
  ASSERT_TRUE(y.ok()) << y.status();
  const NormReference want = Norm(x, nullptr, 24, scale, nullptr, nullptr, true, 1e-3);
  ExpectClose(Values<float>((*y)[0]), want.y, 1e-6, 1e-5, "Y");
  EXPECT_EQ(Dims((*y)[1]), (std::vector<int64_t>{2, 1, 1}));
  ExpectClose(Values<float>((*y)[1]), want.inv, 1e-6, 1e-5, "inv_std_var");
}

TEST(SkipNormTest, SkipNormsAddTheSkipAndBiasAndKeepTheSum) {
  const int64_t batch = 2, seq = 3, n = 40;
  const std::vector<float> x = Uniform(batch * seq * n, -2, 2, 60);
  const std::vector<float> gamma = Uniform(n, 0.5, 1.5, 61), beta = Uniform(n, -1, 1, 62);
  const std::vector<float> bias = Uniform(n, -1, 1, 63);
  for (bool simplified : {true, false}) {
    for (bool broadcast_skip : {false, true}) {
      const std::vector<float> skip =
          Uniform(broadcast_skip ? seq * n : batch * seq * n, -2, 2, 64);
      const Tensor skip_t = broadcast_skip ? Floats({seq, n}, skip) : Floats({batch, seq, n}, skip);
      const std::string op =
          simplified ? "SkipSimplifiedLayerNormalization" : "SkipLayerNormalization";
      const std::string inputs = simplified ? "x, k, g, bias" : "x, k, g, beta, bias";
      const std::string text = absl::StrCat(
          kHeader, "agraph (float[2, 3, 40] x, float[", broadcast_skip ? "3, 40" : "2, 3, 40",
          "] k, float[40] g, float[40] beta, float[40] bias) => (float[2, 3, 40] y, float[2, 3, "
          "1] m, float[2, 3, 1] r, float[2, 3, 40] sum) {\n  y, m, r, sum = com.microsoft.",
          op, " <epsilon = 0.0001> (", inputs, ")\n}\n");
      std::vector<Tensor> in = {Floats({batch, seq, n}, x), skip_t, Floats({n}, gamma)};
      if (!simplified) in.push_back(Floats({n}, beta));
      in.push_back(Floats({n}, bias));
      absl::StatusOr<std::vector<Tensor>> y = RunText(text, in);
      ASSERT_TRUE(y.ok()) << y.status();
      const NormReference want =
          Norm(x, &skip, n, gamma, simplified ? nullptr : &beta, &bias, simplified, 1e-4);
      const std::string what = absl::StrCat(op, broadcast_skip ? " (skip [S, H])" : "");
      ExpectClose(Values<float>((*y)[0]), want.y, 1e-5, 1e-5, what + " output");
      ExpectClose(Values<float>((*y)[1]), want.mean, 1e-6, 1e-5, what + " mean");
      ExpectClose(Values<float>((*y)[2]), want.inv, 1e-6, 1e-5, what + " inv_std_var");
      ExpectClose(Values<float>((*y)[3]), want.sum, 1e-6, 1e-6, what + " input_skip_bias_sum");
    }
  }
}

TEST(SkipNormTest, SkipOfAnotherShapeIsAnError) {
  absl::StatusOr<std::vector<Tensor>> y = RunText(
      absl::StrCat(kHeader,
                   "agraph (float[2, 3, 8] x, float[2, 8] k, float[8] g) => (float[2, 3, 8] y) {\n"
                   "  y = com.microsoft.SkipSimplifiedLayerNormalization (x, k, g)\n}\n"),
      {Floats({2, 3, 8}, std::vector<float>(48, 1)), Floats({2, 8}, std::vector<float>(16, 1)),
       Floats({8}, std::vector<float>(8, 1))});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  EXPECT_NE(y.status().message().find("does not fit input"), std::string::npos) << y.status();
}

}  // namespace
}  // namespace anvil
