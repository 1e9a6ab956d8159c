// Tests of the misc kernel family (ops/misc*.cc): handwritten cases for what the ONNX backend
// tests do not cover (bidirectional and reverse recurrences with sequence_lens, custom
// activations, non-power-of-two DFTs, ties, random ops), then every single-node backend test of
// the family's ops, run through RunNode and compared with the recorded outputs (rtol 1e-3,
// atol 1e-7; exact for integers and bools). Random ops are checked for shape, type, range and
// determinism only: their values cannot match numpy's generator.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "exec/node_executor.h"
#include "exec/testing/backend_test_util.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/tensor.h"
#include "kernels/tensor_file.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

using kernel_testing::CompareTensors;

// ---- Helpers ----

template <typename T>
Tensor Make(ElementType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  Tensor t(type, dims);
  EXPECT_EQ(t.NumElements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    DispatchNumeric(type, "test", [&](auto tag) {
      using S = decltype(tag);
      t.As<S>()[i] = ConvertElement<S>(values[i]);
      return absl::OkStatus();
    }).IgnoreError();
  }
  return t;
}

Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& v) {
  return Make(ElementType::kFloat, std::move(dims), v);
}
Tensor Int64s(std::vector<int64_t> dims, const std::vector<int64_t>& v) {
  return Make(ElementType::kInt64, std::move(dims), v);
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    v[i] = ReadElementAsDouble(t.type(), t.As<uint8_t>(), i);
  }
  return v;
}

struct NodeRun {
  std::unique_ptr<Model> model;
  absl::StatusOr<std::vector<Tensor>> outputs = absl::UnknownError("not run");
};

// Runs the first node of a model in ONNX text syntax on `inputs` (one per node input slot).
NodeRun RunText(const std::string& text, const std::vector<Tensor>& inputs,
                uint64_t seed = 0x5eed) {
  NodeRun run;
  absl::StatusOr<std::unique_ptr<Model>> model = ParseModelText(text);
  EXPECT_TRUE(model.ok()) << model.status() << "\n" << text;
  if (!model.ok()) return run;
  run.model = *std::move(model);
  const Node* node = *run.model->graph().nodes().begin();
  NodeExecOptions options;
  options.default_seed = seed;
  run.outputs = RunNode(*node, run.model->OpsetVersion(node->domain()), inputs, options);
  return run;
}

#define EXPECT_MATCH(actual, expected)                         \
  do {                                                         \
    const std::string diff = CompareTensors(actual, expected); \
    EXPECT_EQ(diff, "") << #actual;                            \
  } while (0)

// ---- Recurrent layers (expected values from a numpy transcription of the ONNX equations) ----

const std::vector<float> kX = {-0.85, 0.56,  -0.12, 0.45, 0.96, 0.08,
                               0,     -0.86, -0.46, -0,   0.36, 0.61};

TEST(MiscRnnTest, BidirectionalLstmWithSequenceLensPeepholesAndClip) {
  const std::vector<float> w = {-0.24, -0.87, -0.42, 0.82,  -0.57, -0.1,  0.86,  -0.95,
                                0.2,   0.9,   -0.54, 0.1,   0.82,  -0.73, 0.05,  0.5,
                                0.34,  -0.06, -0.59, -0.02, -0.26, -0.05, -0.27, 0.68,
                                0.54,  -0.37, 0.15,  -0.45, -0.09, -0.29, 0.31,  -0.26};
  const std::vector<float> r = {-0.08, 0.44,  -0.17, 0.81,  -0.64, 0.48,  -0.16, -0.15,
                                0.27,  0.05,  -0.17, -1,    -0.82, 0.42,  0.05,  0.39,
                                0.91,  0.37,  -0.89, -0.38, 0.19,  -0.53, 0.93,  0.89,
                                0.7,   -0.06, 0.68,  -0.74, -0.38, -0.07, 0.48,  -0.03};
  const std::vector<float> b = {-0.73, -0.31, -0.35, -0.4,  -0.67, -0.17, -0.1,  0.55,
                                0.59,  0.04,  -0.08, 0.56,  0.77,  0.35,  0.6,   0.88,
                                -0.92, 0.75,  -0.45, -0.05, 0.59,  0.43,  -0.71, 0.32,
                                -0.86, -0.29, 0.63,  -0.14, 0.2,   0.46,  0.64,  0.52};
  const std::vector<float> h0 = {-0.99, -0.16, -0.07, -0.89, 0.08, 0.22, 0.66, 0.88};
  const std::vector<float> c0 = {-0.74, -0.54, 0.32, -0.74, -0.55, 0.15, -0.66, 0.56};
  const std::vector<float> p = {0.71,  -0.93, 0.07, 0.59, 0.95,  -0.45,
                                -0.66, 0.75,  0.82, -0.6, -0.12, 0.44};
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 14]>
g (float[3,2,2] X, float[2,8,2] W, float[2,8,2] R, float[2,16] B, int32[2] lens,
   float[2,2,2] h0, float[2,2,2] c0, float[2,6] P) => (float[3,2,2,2] Y, float[2,2,2] Y_h,
   float[2,2,2] Y_c) {
  Y, Y_h, Y_c = LSTM <direction = "bidirectional", hidden_size = 2, clip = 0.9>
      (X, W, R, B, lens, h0, c0, P)
})",
                        {Floats({3, 2, 2}, kX), Floats({2, 8, 2}, w), Floats({2, 8, 2}, r),
                         Floats({2, 16}, b), Make(ElementType::kInt32, {2}, std::vector<int>{3, 2}),
                         Floats({2, 2, 2}, h0), Floats({2, 2, 2}, c0), Floats({2, 6}, p)});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH(
      (*run.outputs)[0],
      Floats({3, 2, 2, 2}, {-0.1438696, 0.03742296, 0.04191782, -0.06085363, -0.1010386, 0.3273678,
                            -0.146526,  0.310163,   0.03989887, 0.2024592,   0.1971256,  0.09005301,
                            -0.1147272, 0.1999316,  -0.1760365, 0.3452794,   0.07894798, 0.2227884,
                            0,          0,          -0.1720426, 0.2252162,   0,          0}));
  EXPECT_MATCH((*run.outputs)[1], Floats({2, 2, 2}, {0.07894798, 0.2227884, 0.1971256, 0.09005301,
                                                     -0.1010386, 0.3273678, -0.146526, 0.310163}));
  EXPECT_MATCH((*run.outputs)[2],
               Floats({2, 2, 2}, {0.1663761, 0.4767062, 0.5237975, 0.1273499, -0.1964067, 0.7656102,
                                  -0.3651788, 0.8669688}));

  // The same forward direction with input_forget, batch-major (layout 1), in double.
  std::vector<double> xt(12);  // [batch, seq, input]
  for (int t = 0; t < 3; ++t) {
    for (int bb = 0; bb < 2; ++bb) {
      for (int i = 0; i < 2; ++i) xt[(bb * 3 + t) * 2 + i] = kX[(t * 2 + bb) * 2 + i];
    }
  }
  NodeRun forget =
      RunText(R"(<ir_version: 8, opset_import: ["" : 14]>
g (double[2,3,2] X, double[1,8,2] W, double[1,8,2] R, double[1,16] B) => (double[2,3,1,2] Y,
   double[2,1,2] Y_h, double[2,1,2] Y_c) {
  Y, Y_h, Y_c = LSTM <hidden_size = 2, input_forget = 1, layout = 1> (X, W, R, B)
})",
              {Make(ElementType::kDouble, {2, 3, 2}, xt),
               Make(ElementType::kDouble, {1, 8, 2}, std::vector<float>(w.begin(), w.begin() + 16)),
               Make(ElementType::kDouble, {1, 8, 2}, std::vector<float>(r.begin(), r.begin() + 16)),
               Make(ElementType::kDouble, {1, 16}, std::vector<float>(b.begin(), b.begin() + 16))});
  ASSERT_TRUE(forget.outputs.ok()) << forget.outputs.status();
  // Expected Y in [seq, batch] order, transposed to [batch, seq].
  const std::vector<double> y_seq = {-0.1053963, 0.1319844, 0.01099089, 0.188389,
                                     0.06788267, 0.43689,   0.2223637,  0.3807492,
                                     0.1172003,  0.2875842, 0.1515524,  0.2996533};
  std::vector<double> y_batch(12);
  for (int t = 0; t < 3; ++t) {
    for (int bb = 0; bb < 2; ++bb) {
      for (int j = 0; j < 2; ++j) y_batch[(bb * 3 + t) * 2 + j] = y_seq[(t * 2 + bb) * 2 + j];
    }
  }
  EXPECT_MATCH((*forget.outputs)[0], Make(ElementType::kDouble, {2, 3, 1, 2}, y_batch));
  EXPECT_MATCH((*forget.outputs)[2],
               Make(ElementType::kDouble, {2, 1, 2},
                    std::vector<double>{0.2390317, 0.8299826, 0.4766196, 0.804599}));
}

TEST(MiscRnnTest, ReverseGruLinearBeforeResetCustomActivations) {
  NodeRun run = RunText(
      R"(<ir_version: 8, opset_import: ["" : 7]>
g (float[3,2,2] X, float[1,6,2] W, float[1,6,2] R, float[1,12] B, int32[2] lens,
   float[1,2,2] h0) => (float[3,1,2,2] Y, float[1,2,2] Y_h) {
  Y, Y_h = GRU <direction = "reverse", hidden_size = 2, linear_before_reset = 1,
                activations = ["HardSigmoid", "LeakyRelu"], activation_alpha = [0.3, 0.2],
                activation_beta = [0.4]> (X, W, R, B, lens, h0)
})",
      {Floats({3, 2, 2}, kX),
       Floats({1, 6, 2},
              {0.69, -0.66, 0.33, 0.62, 0.1, -0.67, -0.93, -0.44, 0.62, -0.91, -0.98, -0.28}),
       Floats({1, 6, 2},
              {-0.87, -0.7, -0.95, 0.05, 0.39, -0.15, -0.73, -0.34, 0.18, 0.88, 0.99, -0.52}),
       Floats({1, 12},
              {-0.98, 0.66, 0.85, -0.08, 0.54, 0.73, 0.22, 0.75, -0.95, -0.46, -0.45, -0.76}),
       Make(ElementType::kInt32, {2}, std::vector<int>{2, 3}),
       Floats({1, 2, 2}, {0.82, -0.94, 0.35, -0.86})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH(
      (*run.outputs)[0],
      Floats({3, 1, 2, 2}, {-0.1603905, 0.05271591, -0.02266026, 0.02783678, 0.5909874, -0.6586988,
                            0.3893628, -0.154366, 0, 0, 0.04724969, -0.7097949}));
  EXPECT_MATCH((*run.outputs)[1],
               Floats({1, 2, 2}, {-0.1603905, 0.05271591, -0.02266026, 0.02783678}));
}

TEST(MiscRnnTest, BidirectionalRnnPerDirectionActivations) {
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 7]>
g (float[3,2,2] X, float[2,2,2] W, float[2,2,2] R, float[2,4] B) => (float[3,2,2,2] Y,
   float[2,2,2] Y_h) {
  Y, Y_h = RNN <direction = "bidirectional", activations = ["Relu", "ScaledTanh"],
                activation_alpha = [0.5], activation_beta = [2.0]> (X, W, R, B)
})",
                        {Floats({3, 2, 2}, kX),
                         Floats({2, 2, 2}, {-0.28, -0.16, -0.64, 0.04, 0.07, -0.37, 0.47, -0.68}),
                         Floats({2, 2, 2}, {-0.61, -0.29, -0.24, -0.59, 0.84, 0.66, -0.79, -0.26}),
                         Floats({2, 4}, {-0.53, -0.1, -0.45, 0, 0.85, -0.23, 0.3, 0.19})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH((*run.outputs)[0],
               Floats({3, 2, 2, 2}, {0, 0.4664, 0, 0, 0.49497,   -0.4924951, 0.4978783, -0.4681174,
                                     0, 0,      0, 0, 0.4968888, 0.03202223, 0.4988849, 0.2184781,
                                     0, 0.1944, 0, 0, 0.4886957, -0.2359065, 0.4780759, -0.25812}));
  EXPECT_MATCH((*run.outputs)[1],
               Floats({2, 2, 2}, {0, 0.1944, 0, 0, 0.49497, -0.4924951, 0.4978783, -0.4681174}));
}

TEST(MiscRnnTest, Float16MatchesFloat) {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 14]>
g (T[3,2,2] X, T[1,8,2] W, T[1,8,2] R) => (T[1,2,2] Y_h) {
  _y, Y_h = LSTM <hidden_size = 2> (X, W, R)
})";
  std::vector<float> w(16), r(16);
  for (int i = 0; i < 16; ++i) {
    w[i] = 0.1f * (i % 5) - 0.2f;
    r[i] = 0.05f * (i % 7) - 0.15f;
  }
  auto with_type = [&](const char* t) {
    std::string s = text;
    for (size_t pos; (pos = s.find("T[")) != std::string::npos;) s.replace(pos, 1, t);
    return s;
  };
  NodeRun f32 = RunText(with_type("float"),
                        {Floats({3, 2, 2}, kX), Floats({1, 8, 2}, w), Floats({1, 8, 2}, r)});
  NodeRun f16 = RunText(with_type("float16"), {Make(ElementType::kFloat16, {3, 2, 2}, kX),
                                               Make(ElementType::kFloat16, {1, 8, 2}, w),
                                               Make(ElementType::kFloat16, {1, 8, 2}, r)});
  ASSERT_TRUE(f32.outputs.ok()) << f32.outputs.status();
  ASSERT_TRUE(f16.outputs.ok()) << f16.outputs.status();
  const std::vector<double> a = Values((*f32.outputs)[1]), b = Values((*f16.outputs)[1]);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 5e-3);
}

// ---- Signal ops (expected values from a direct double-precision DFT) ----

std::vector<std::complex<double>> NaiveDft(const std::vector<std::complex<double>>& x,
                                           bool inverse) {
  const size_t n = x.size();
  std::vector<std::complex<double>> y(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < n; ++j) {
      const double angle = (inverse ? 2 : -2) * std::numbers::pi * double(j * k % n) / n;
      y[k] += x[j] * std::complex<double>(std::cos(angle), std::sin(angle));
    }
    if (inverse) y[k] /= double(n);
  }
  return y;
}

TEST(MiscSignalTest, DftSizesOnesidedLengthAndInverse) {
  // 100 and 67 take Bluestein's path, 128 the radix-2 one, 12 the direct sum.
  for (int64_t n : {12, 67, 100, 128}) {
    for (bool inverse : {false, true}) {
      std::vector<float> x(2 * n);
      std::vector<std::complex<double>> xc(n);
      for (int64_t j = 0; j < n; ++j) {
        x[2 * j] = std::sin(0.3 * j) + 0.01 * j;
        x[2 * j + 1] = std::cos(0.7 * j);
        xc[j] = {x[2 * j], x[2 * j + 1]};
      }
      NodeRun run = RunText(absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,)",
                                         n, R"(,2] x) => (float[1,)", n, R"(,2] y) {
  y = DFT <inverse = )",
                                         inverse ? 1 : 0, R"(> (x)
})"),
                            {Floats({1, n, 2}, x)});
      ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
      std::vector<float> expected(2 * n);
      const auto y = NaiveDft(xc, inverse);
      for (int64_t k = 0; k < n; ++k) {
        expected[2 * k] = y[k].real();
        expected[2 * k + 1] = y[k].imag();
      }
      const std::string diff =
          CompareTensors((*run.outputs)[0], Floats({1, n, 2}, expected), 1e-4, 1e-4);
      EXPECT_EQ(diff, "") << "n " << n << " inverse " << inverse;
    }
  }
  // A real signal of 5, zero-padded to dft_length 8, onesided: 5 bins.
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1,5,1] x, int64 len) => (float[1,5,2] y) {
  y = DFT <onesided = 1> (x, len)
})",
                        {Floats({1, 5, 1}, {1, 2, 3, 4, 5}), Int64s({}, {8})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  const auto y = NaiveDft({1, 2, 3, 4, 5, 0, 0, 0}, false);
  std::vector<float> expected;
  for (int k = 0; k < 5; ++k)
    expected.insert(expected.end(), {float(y[k].real()), float(y[k].imag())});
  const std::string diff =
      CompareTensors((*run.outputs)[0], Floats({1, 5, 2}, expected), 1e-5, 1e-5);
  EXPECT_EQ(diff, "");
}

TEST(MiscSignalTest, WindowsInOtherTypes) {
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 n) => (double[4] y) {
  y = HannWindow <output_datatype = 11, periodic = 0> (n)
})",
                        {Int64s({}, {4})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH((*run.outputs)[0],
               Make(ElementType::kDouble, {4}, std::vector<double>{0, 0.75, 0.75, 0}));
}

// ---- Detection ----

// GridSample from an image with a zero spatial dim: zeros padding samples zeros; border and
// reflection padding have no pixel to repeat, an error rather than a read of the empty image.
TEST(MiscDetectionTest, GridSampleOfAnEmptyImage) {
  for (const char* padding : {"zeros", "border", "reflection"}) {
    SCOPED_TRACE(padding);
    NodeRun run =
        RunText(absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 16]>
g (float[1,1,0,2] X, float[1,2,4,2] Grid) => (float[1,1,2,4] Y) {
  Y = GridSample <padding_mode = ")",
                             padding, R"("> (X, Grid)
})"),
                {Floats({1, 1, 0, 2}, {}), Floats({1, 2, 4, 2}, std::vector<float>(16, 0.25f))});
    if (std::string(padding) == "zeros") {
      ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
      EXPECT_MATCH((*run.outputs)[0], Floats({1, 1, 2, 4}, std::vector<float>(8, 0.0f)));
      continue;
    }
    ASSERT_FALSE(run.outputs.ok());
    EXPECT_NE(run.outputs.status().message().find("empty image"), std::string::npos)
        << run.outputs.status();
  }
}

TEST(MiscDetectionTest, RoiAlignMaxModeAndMaxRoiPool) {
  // One sample per bin at the roi's center (1.0, 1.0): corners (1,1) only, weight 1.
  NodeRun align = RunText(R"(<ir_version: 8, opset_import: ["" : 16]>
g (float[1,1,3,3] X, float[1,4] rois, int64[1] idx) => (float[1,1,1,1] Y) {
  Y = RoiAlign <mode = "max", sampling_ratio = 1, coordinate_transformation_mode = "output_half_pixel">
      (X, rois, idx)
})",
                          {Floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                           Floats({1, 4}, {0.5, 0.5, 1.5, 1.5}), Int64s({1}, {0})});
  ASSERT_TRUE(align.outputs.ok()) << align.outputs.status();
  EXPECT_MATCH((*align.outputs)[0], Floats({1, 1, 1, 1}, {5}));

  // An image of width 0 has nothing to sample: an error, not a read through null data.
  NodeRun empty =
      RunText(R"(<ir_version: 8, opset_import: ["" : 16]>
g (float[1,1,10,0] X, float[1,4] rois, int64[1] idx) => (float[1,1,5,5] Y) {
  Y = RoiAlign <output_height = 5, output_width = 5, sampling_ratio = 7> (X, rois, idx)
})",
              {Floats({1, 1, 10, 0}, {}), Floats({1, 4}, {0.5, 0.5, 1.5, 1.5}), Int64s({1}, {0})});
  ASSERT_FALSE(empty.outputs.ok());
  EXPECT_NE(empty.outputs.status().message().find("empty image"), std::string::npos)
      << empty.outputs.status();

  NodeRun pool =
      RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,3,3] X, float[1,5] rois) => (float[1,1,2,2] Y) {
  Y = MaxRoiPool <pooled_shape = [2, 2]> (X, rois)
})",
              {Floats({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), Floats({1, 5}, {0, 0, 0, 2, 2})});
  ASSERT_TRUE(pool.outputs.ok()) << pool.outputs.status();
  // 3x3 roi in 2x2 bins of 1.5: rows [0,2) and [1,3), same for columns.
  EXPECT_MATCH((*pool.outputs)[0], Floats({1, 1, 2, 2}, {5, 6, 8, 9}));
}

// ---- Selection ----

TEST(MiscSelectTest, TopKTiesAndVersions) {
  NodeRun largest =
      RunText(R"(<ir_version: 8, opset_import: ["" : 11]>
g (int32[2,4] x, int64[1] k) => (int32[2,2] v, int64[2,2] i) {
  v, i = TopK <axis = 1> (x, k)
})",
              {Make(ElementType::kInt32, {2, 4}, std::vector<int>{3, 7, 7, 1, 2, 2, 2, 2}),
               Int64s({1}, {2})});
  ASSERT_TRUE(largest.outputs.ok()) << largest.outputs.status();
  EXPECT_MATCH((*largest.outputs)[0],
               Make(ElementType::kInt32, {2, 2}, std::vector<int>{7, 7, 2, 2}));
  EXPECT_MATCH((*largest.outputs)[1], Int64s({2, 2}, {1, 2, 0, 1}));

  NodeRun smallest = RunText(R"(<ir_version: 8, opset_import: ["" : 1]>
g (float[5] x) => (float[3] v, int64[3] i) {
  v, i = TopK <k = 3> (x)
})",
                             {Floats({5}, {0.5, -1, 4, -1, 2})});
  ASSERT_TRUE(smallest.outputs.ok()) << smallest.outputs.status();
  EXPECT_MATCH((*smallest.outputs)[0], Floats({3}, {4, 2, 0.5}));
  EXPECT_MATCH((*smallest.outputs)[1], Int64s({3}, {2, 4, 0}));

  NodeRun ascending = RunText(R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[5] x, int64[1] k) => (float[3] v, int64[3] i) {
  v, i = TopK <largest = 0> (x, k)
})",
                              {Floats({5}, {0.5, -1, 4, -1, 2}), Int64s({1}, {3})});
  ASSERT_TRUE(ascending.outputs.ok()) << ascending.outputs.status();
  EXPECT_MATCH((*ascending.outputs)[0], Floats({3}, {-1, -1, 0.5}));
  EXPECT_MATCH((*ascending.outputs)[1], Int64s({3}, {1, 3, 0}));
}

TEST(MiscSelectTest, UniqueUnsortedWithAxis) {
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 11]>
g (int64[2,4] x) => (int64[2,?] y, int64[?] idx, int64[4] inv, int64[?] counts) {
  y, idx, inv, counts = Unique <axis = 1, sorted = 0> (x)
})",
                        {Int64s({2, 4}, {5, 1, 5, 1, 0, 2, 0, 3})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH((*run.outputs)[0], Int64s({2, 3}, {5, 1, 1, 0, 2, 3}));
  EXPECT_MATCH((*run.outputs)[1], Int64s({3}, {0, 1, 3}));
  EXPECT_MATCH((*run.outputs)[2], Int64s({4}, {0, 1, 0, 2}));
  EXPECT_MATCH((*run.outputs)[3], Int64s({3}, {2, 1, 1}));
}

TEST(MiscSelectTest, TfIdfWeightedModes) {
  // Pool: unigrams 1, 2; bigram (1, 2). Row [1, 2, 1, 2, 2]: counts 2, 3, 2.
  for (const auto& [mode, expected] : std::vector<std::pair<std::string, std::vector<float>>>{
           {"TF", {2, 3, 2}}, {"IDF", {0.5, 2, 4}}, {"TFIDF", {1, 6, 8}}}) {
    NodeRun run = RunText(absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 9]>
g (int32[5] x) => (float[3] y) {
  y = TfIdfVectorizer <mode = ")",
                                       mode, R"(", min_gram_length = 1, max_gram_length = 2,
      max_skip_count = 0, ngram_counts = [0, 2], ngram_indexes = [0, 1, 2],
      pool_int64s = [1, 2, 1, 2], weights = [0.5, 2.0, 4.0]> (x)
})"),
                          {Make(ElementType::kInt32, {5}, std::vector<int>{1, 2, 1, 2, 2})});
    ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
    EXPECT_MATCH((*run.outputs)[0], Floats({3}, expected));
  }
}

// The same pool as strings (each distinct string one token; tokens the pool lacks match
// nothing), over a [2, 5] batch: the counts of TfIdfWeightedModes in row 0.
TEST(MiscSelectTest, TfIdfOverStrings) {
  Tensor x(ElementType::kString, {2, 5});
  const std::vector<std::string> words = {"a", "b", "a", "b", "b", "b", "zz", "a", "b", "a"};
  std::copy(words.begin(), words.end(), x.As<std::string>());
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 9]>
g (string[2,5] x) => (float[2,3] y) {
  y = TfIdfVectorizer <mode = "TF", min_gram_length = 1, max_gram_length = 2,
      max_skip_count = 0, ngram_counts = [0, 2], ngram_indexes = [0, 1, 2],
      pool_strings = ["a", "b", "a", "b"]> (x)
})",
                        {x});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH((*run.outputs)[0], Floats({2, 3}, {2, 3, 2, 2, 2, 1}));
}

// ---- Random ops and Dropout ----

TEST(MiscRandomTest, ShapesTypesRangesAndDeterminism) {
  const std::string uniform = R"(<ir_version: 8, opset_import: ["" : 13]>
g () => (double[100,50] y) {
  y = RandomUniform <dtype = 11, low = -2.0, high = 3.0, shape = [100, 50]> ()
})";
  NodeRun a = RunText(uniform, {});
  NodeRun b = RunText(uniform, {});
  NodeRun c = RunText(uniform, {}, /*seed=*/7);
  ASSERT_TRUE(a.outputs.ok()) << a.outputs.status();
  ASSERT_TRUE(c.outputs.ok()) << c.outputs.status();
  const Tensor& y = (*a.outputs)[0];
  EXPECT_EQ(y.type(), ElementType::kDouble);
  EXPECT_EQ(CompareTensors(y, (*b.outputs)[0], 0, 0), "");
  EXPECT_NE(CompareTensors(y, (*c.outputs)[0], 0, 0), "");  // another default seed, another tensor
  const std::vector<double> v = Values(y);
  double sum = 0;
  for (double x : v) {
    EXPECT_GE(x, -2.0);
    EXPECT_LT(x, 3.0);
    sum += x;
  }
  EXPECT_NEAR(sum / v.size(), 0.5, 0.1);

  NodeRun normal = RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float16[4000] x) => (float[4000] y) {
  y = RandomNormalLike <dtype = 1, mean = 10.0, scale = 2.0, seed = 3.0> (x)
})",
                           {Make(ElementType::kFloat16, {4000}, std::vector<float>(4000))});
  ASSERT_TRUE(normal.outputs.ok()) << normal.outputs.status();
  const std::vector<double> n = Values((*normal.outputs)[0]);
  double mean = 0, var = 0;
  for (double x : n) mean += x / n.size();
  for (double x : n) var += (x - mean) * (x - mean) / n.size();
  EXPECT_NEAR(mean, 10.0, 0.2);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.2);
  // The seed attribute wins over the default seed.
  NodeRun reseeded = RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float16[4000] x) => (float[4000] y) {
  y = RandomNormalLike <dtype = 1, mean = 10.0, scale = 2.0, seed = 3.0> (x)
})",
                             {Make(ElementType::kFloat16, {4000}, std::vector<float>(4000))}, 99);
  EXPECT_EQ(CompareTensors((*normal.outputs)[0], (*reseeded.outputs)[0], 0, 0), "");

  NodeRun multinomial = RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] x) => (int64[2,20] y) {
  y = Multinomial <dtype = 7, sample_size = 20> (x)
})",
                                {Floats({2, 3}, {0, -INFINITY, -INFINITY, 0, 0, 0})});
  ASSERT_TRUE(multinomial.outputs.ok()) << multinomial.outputs.status();
  const std::vector<double> m = Values((*multinomial.outputs)[0]);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(m[i], 0);
  for (int i = 20; i < 40; ++i) EXPECT_TRUE(m[i] >= 0 && m[i] <= 2) << m[i];
}

TEST(MiscRandomTest, DropoutModes) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  // Inference (opset 7): identity, mask of the data type all ones.
  NodeRun old = RunText(R"(<ir_version: 8, opset_import: ["" : 7]>
g (float[8] x) => (float[8] y, float[8] mask) {
  y, mask = Dropout <ratio = 0.3> (x)
})",
                        {Floats({8}, x)});
  ASSERT_TRUE(old.outputs.ok()) << old.outputs.status();
  EXPECT_MATCH((*old.outputs)[0], Floats({8}, x));
  EXPECT_MATCH((*old.outputs)[1], Floats({8}, std::vector<float>(8, 1)));
  // Opset 6 without is_test trains.
  NodeRun train6 = RunText(R"(<ir_version: 8, opset_import: ["" : 6]>
g (float[8] x) => (float[8] y) {
  y = Dropout <ratio = 0.5> (x)
})",
                           {Floats({8}, x)});
  ASSERT_TRUE(train6.outputs.ok()) << train6.outputs.status();
  const std::vector<double> y6 = Values((*train6.outputs)[0]);
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(y6[i] == 0 || y6[i] == 2 * x[i]) << y6[i];
  // Opset 13 training with ratio 0.75: kept elements scaled by 4, mask says which.
  NodeRun train = RunText(
      R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[8] x, float r, bool t) => (float[8] y, bool[8] mask) {
  y, mask = Dropout <seed = 1.0> (x, r, t)
})",
      {Floats({8}, x), Floats({}, {0.75}), Make(ElementType::kBool, {}, std::vector<int>{1})});
  ASSERT_TRUE(train.outputs.ok()) << train.outputs.status();
  const std::vector<double> y = Values((*train.outputs)[0]);
  const std::vector<double> mask = Values((*train.outputs)[1]);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], mask[i] != 0 ? 4 * x[i] : 0.0);
}

// A seed attribute draws numpy's legacy stream: the values ONNX's reference implementation
// computes (np.random.seed(seed) then uniform / normal), as printed by numpy 1.24.
TEST(MiscRandomTest, SeededNodesDrawNumpysStream) {
  NodeRun uniform = RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g () => (float[4] y) {
  y = RandomUniform <dtype = 1, low = -2.0, high = 3.0, shape = [4], seed = 0.0> ()
})",
                            {});
  ASSERT_TRUE(uniform.outputs.ok()) << uniform.outputs.status();
  EXPECT_MATCH((*uniform.outputs)[0], Floats({4}, {0.7440674901008606f, 1.5759468078613281f,
                                                   1.0138168334960938f, 0.7244158983230591f}));
  NodeRun normal = RunText(R"(<ir_version: 8, opset_import: ["" : 13]>
g () => (float[4] y) {
  y = RandomNormal <dtype = 1, mean = 10.0, scale = 2.0, shape = [4], seed = 0.0> ()
})",
                           {});
  ASSERT_TRUE(normal.outputs.ok()) << normal.outputs.status();
  EXPECT_MATCH((*normal.outputs)[0], Floats({4}, {13.528104782104492f, 10.800313949584961f,
                                                  11.957475662231445f, 14.481786727905273f}));
  // Dropout's mask: np.random.seed(5); np.random.uniform(0, 1, 8) >= 0.75.
  NodeRun dropout = RunText(
      R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[8] x, float r, bool t) => (float[8] y, bool[8] mask) {
  y, mask = Dropout <seed = 5.0> (x, r, t)
})",
      {Floats({8}, {1, 2, 3, 4, 5, 6, 7, 8}), Floats({}, {0.75}),
       Make(ElementType::kBool, {}, std::vector<int>{1})});
  ASSERT_TRUE(dropout.outputs.ok()) << dropout.outputs.status();
  EXPECT_EQ(Values((*dropout.outputs)[1]), (std::vector<double>{0, 1, 0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(Values((*dropout.outputs)[0]), (std::vector<double>{0, 8, 0, 16, 0, 0, 28, 0}));
}

// ---- StringNormalizer ----

Tensor Strings(std::vector<int64_t> dims, const std::vector<std::string>& values) {
  Tensor t(ElementType::kString, dims);
  std::copy(values.begin(), values.end(), t.As<std::string>());
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  if (t.type() != ElementType::kString) return {"<not strings>"};
  return std::vector<std::string>(t.As<std::string>(), t.As<std::string>() + t.NumElements());
}

TEST(MiscStringTest, StringNormalizerDropsStopwordsAndMapsCaseOfUnicode) {
  NodeRun upper = RunText(R"(<ir_version: 8, opset_import: ["" : 10]>
g (string[1,4] x) => (string[1,?] y) {
  y = StringNormalizer <case_change_action = "UPPER", stopwords = ["monday"]> (x)
})",
                          {Strings({1, 4}, {"Monday", "tuesday",
                                            "\xC3\xA9"
                                            "cole",
                                            "stra\xC3\x9F"
                                            "e"})});
  ASSERT_TRUE(upper.outputs.ok()) << upper.outputs.status();
  EXPECT_EQ((*upper.outputs)[0].dims(), (Shape{1, 3}));
  // é -> É; ß has no one-letter upper case and stays.
  EXPECT_EQ(StringValues((*upper.outputs)[0]), (std::vector<std::string>{"TUESDAY",
                                                                         "\xC3\x89"
                                                                         "COLE",
                                                                         "STRA\xC3\x9F"
                                                                         "E"}));
  // Case-sensitive stopwords keep "Monday"; everything removed leaves one empty string.
  NodeRun sensitive = RunText(R"(<ir_version: 8, opset_import: ["" : 10]>
g (string[3] x) => (string[?] y) {
  y = StringNormalizer <is_case_sensitive = 1, case_change_action = "LOWER",
                        stopwords = ["monday"]> (x)
})",
                              {Strings({3}, {"Monday", "monday",
                                             "\xC3\x89"
                                             "T\xC3\x89"})});
  ASSERT_TRUE(sensitive.outputs.ok()) << sensitive.outputs.status();
  EXPECT_EQ(StringValues((*sensitive.outputs)[0]), (std::vector<std::string>{"monday",
                                                                             "\xC3\xA9"
                                                                             "t\xC3\xA9"}));
  NodeRun empty = RunText(R"(<ir_version: 8, opset_import: ["" : 10]>
g (string[2] x) => (string[?] y) {
  y = StringNormalizer <stopwords = ["a"]> (x)
})",
                          {Strings({2}, {"a", "A"})});
  ASSERT_TRUE(empty.outputs.ok()) << empty.outputs.status();
  EXPECT_EQ((*empty.outputs)[0].dims(), (Shape{1}));
  EXPECT_EQ(StringValues((*empty.outputs)[0]), (std::vector<std::string>{""}));
  NodeRun invalid = RunText(R"(<ir_version: 8, opset_import: ["" : 10]>
g (string[1] x) => (string[1] y) {
  y = StringNormalizer <case_change_action = "UPPER"> (x)
})",
                            {Strings({1}, {"\xFF"})});
  ASSERT_FALSE(invalid.outputs.ok());
  EXPECT_TRUE(absl::StrContains(invalid.outputs.status().message(), "is not UTF-8"))
      << invalid.outputs.status();
}

// ---- Optimizer updates (ai.onnx.preview.training) ----

// Expected values from the numpy formulas of onnx/backend/test/case/node/{momentum,adam}.py.
TEST(MiscTrainingTest, MomentumAndAdamFollowTheReferenceFormulas) {
  const std::vector<Tensor> inputs = {
      Floats({}, {0.1f}), Make(ElementType::kInt64, {}, std::vector<int>{1}), Floats({2}, {1, 2}),
      Floats({2}, {-0.5f, 0.25f}), Floats({2}, {0.5f, -1})};
  NodeRun nesterov = RunText(
      R"(<ir_version: 7, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[2] g, float[2] v) => (float[2] x_new, float[2] v_new) {
  x_new, v_new = ai.onnx.preview.training.Momentum <alpha = 0.9, beta = 0.5,
      norm_coefficient = 0.01, mode = "nesterov"> (r, t, x, g, v)
})",
      inputs);
  ASSERT_TRUE(nesterov.outputs.ok()) << nesterov.outputs.status();
  EXPECT_MATCH((*nesterov.outputs)[0], Floats({2}, {1.0305500030517578f, 2.0418500900268555f}));
  EXPECT_MATCH((*nesterov.outputs)[1], Floats({2}, {0.20499998331069946f, -0.7649999856948853f}));

  std::vector<Tensor> adam_inputs = inputs;
  adam_inputs[1] = Make(ElementType::kInt64, {}, std::vector<int>{2});
  adam_inputs.push_back(Floats({2}, {0.1f, 0.2f}));
  NodeRun adam = RunText(
      R"(<ir_version: 7, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[2] g, float[2] v, float[2] h)
    => (float[2] x_new, float[2] v_new, float[2] h_new) {
  x_new, v_new, h_new = ai.onnx.preview.training.Adam <alpha = 0.8, beta = 0.9,
      norm_coefficient = 0.01, norm_coefficient_post = 0.05> (r, t, x, g, v, h)
})",
      adam_inputs);
  ASSERT_TRUE(adam.outputs.ok()) << adam.outputs.status();
  EXPECT_MATCH((*adam.outputs)[0], Floats({2}, {0.8471196889877319f, 2.0982797145843506f}));
  EXPECT_MATCH((*adam.outputs)[1], Floats({2}, {0.3019999861717224f, -0.7459999918937683f}));
  EXPECT_MATCH((*adam.outputs)[2], Floats({2}, {0.11400999873876572f, 0.1872899979352951f}));

  // Momentum's mode and coefficients have no defaults.
  NodeRun bad = RunText(
      R"(<ir_version: 7, opset_import: ["" : 13, "ai.onnx.preview.training" : 1]>
g (float r, int64 t, float[2] x, float[2] g, float[2] v) => (float[2] x_new, float[2] v_new) {
  x_new, v_new = ai.onnx.preview.training.Momentum <alpha = 0.9, beta = 0.5,
      norm_coefficient = 0.01, mode = "adam"> (r, t, x, g, v)
})",
      inputs);
  ASSERT_FALSE(bad.outputs.ok());
  EXPECT_TRUE(absl::StrContains(bad.outputs.status().message(), "mode 'adam'"))
      << bad.outputs.status();
}

// ---- Errors and empty results ----

TEST(MiscErrorTest, BadAttributesAndTypes) {
  absl::StatusOr<std::unique_ptr<Model>> model =
      ParseModelText(R"(<ir_version: 8, opset_import: ["" : 14]>
g (float[3,2,2] X, float[1,8,2] W, float[1,8,2] R, int64[4] t) => (float[1,2,2] h, float[3] y) {
  _y, h = LSTM <hidden_size = 2, activations = ["Sigmoid", "Tanh", "Cosine"]> (X, W, R)
  y = TfIdfVectorizer <mode = "TF", min_gram_length = 1, max_gram_length = 1,
      ngram_counts = [0], ngram_indexes = [0, 1, 2], pool_strings = ["a", "b", "c"]> (t)
})");
  ASSERT_TRUE(model.ok()) << model.status();
  std::vector<const Node*> nodes;
  for (const Node* n : (*model)->graph().nodes()) nodes.push_back(n);
  absl::StatusOr<std::unique_ptr<OpKernel>> lstm = CreateKernel(*nodes[0], 14);
  EXPECT_EQ(lstm.status().code(), absl::StatusCode::kInvalidArgument) << lstm.status();
  EXPECT_TRUE(absl::StrContains(lstm.status().message(), "Cosine")) << lstm.status();
  // A string pool over an integer input: the kernel exists, the run names the mismatch.
  absl::StatusOr<std::unique_ptr<OpKernel>> tfidf = CreateKernel(*nodes[1], 14);
  EXPECT_TRUE(tfidf.ok()) << tfidf.status();

  // An integer RNN input is not a supported element type.
  NodeRun ints = RunText(R"(<ir_version: 8, opset_import: ["" : 14]>
g (int32[1,1,1] X, int32[1,1,1] W, int32[1,1,1] R) => (int32[1,1,1] h) {
  _y, h = RNN <hidden_size = 1> (X, W, R)
})",
                         {Make(ElementType::kInt32, {1, 1, 1}, std::vector<int>{1}),
                          Make(ElementType::kInt32, {1, 1, 1}, std::vector<int>{1}),
                          Make(ElementType::kInt32, {1, 1, 1}, std::vector<int>{1})});
  EXPECT_EQ(ints.outputs.status().code(), absl::StatusCode::kUnimplemented)
      << ints.outputs.status();
}

TEST(MiscErrorTest, NonMaxSuppressionSelectsNothing) {
  NodeRun run = RunText(R"(<ir_version: 8, opset_import: ["" : 11]>
g (float[1,2,4] boxes, float[1,1,2] scores, int64[1] max) => (int64[?,3] selected) {
  selected = NonMaxSuppression (boxes, scores, max)
})",
                        {Floats({1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 1}), Floats({1, 1, 2}, {0.5, 0.6}),
                         Int64s({1}, {0})});
  ASSERT_TRUE(run.outputs.ok()) << run.outputs.status();
  EXPECT_MATCH((*run.outputs)[0], Int64s({0, 3}, {}));
}

// ---- ONNX backend tests ----

constexpr const char* kBackendPrefixes[] = {
    "test_bernoulli",
    "test_blackmanwindow",
    "test_dft",
    "test_dropout",
    "test_gridsample",
    "test_gru",
    "test_hammingwindow",
    "test_hannwindow",
    "test_lstm",
    "test_maxroipool",
    "test_melweightmatrix",
    "test_multinomial",
    "test_nllloss",
    "test_nonmaxsuppression",
    "test_random",
    "test_rnn",
    "test_roialign",
    "test_sce",
    "test_simple_rnn",
    "test_stft",
    "test_tfidfvectorizer",
    "test_top_k",
    "test_training_dropout",
    "test_unique",
};

std::vector<std::string> BackendTests() {
  std::vector<std::string> names;
  for (const std::filesystem::path& dir : kernel_testing::BackendTestDirs()) {
    const std::string name = dir.filename().string();
    if (absl::StrContains(name, "_expanded")) continue;  // multi-node function expansions
    for (const char* prefix : kBackendPrefixes) {
      if (absl::StartsWith(name, prefix)) {
        names.push_back(name);
        break;
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class MiscBackendTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MiscBackendTest, MatchesRecordedOutputs) {
  const std::string dir = absl::StrCat(kernel_testing::kOnnxNodeTestDir, "/", GetParam());
  absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile(dir + "/model.onnx");
  ASSERT_TRUE(model.ok()) << model.status();
  const Graph& graph = (*model)->graph();
  if (graph.num_nodes() != 1) GTEST_SKIP() << "not a single-node model";
  const Node& node = **graph.nodes().begin();

  const std::filesystem::path data_set = std::filesystem::path(dir) / "test_data_set_0";
  absl::StatusOr<std::map<const Value*, Tensor>> values =
      kernel_testing::ReadBackendInputs(**model, data_set);
  ASSERT_TRUE(values.ok()) << values.status();
  std::vector<Tensor> inputs(node.num_inputs());
  for (int i = 0; i < node.num_inputs(); ++i) {
    if (node.input(i) != nullptr) inputs[i] = (*values)[node.input(i)];
  }
  const int64_t opset = (*model)->OpsetVersion("");
  absl::StatusOr<std::vector<Tensor>> outputs = RunNode(node, opset, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();

  // Random results: shape, type, range and determinism instead of values.
  const bool bernoulli = node.op_type() == "Bernoulli";
  bool random_dropout = false;
  if (node.op_type() == "Dropout" && opset >= 12 && inputs.size() >= 3 && inputs[2].defined()) {
    random_dropout = Values(inputs[2])[0] != 0 && Values(inputs[1])[0] != 0;
  }
  if (bernoulli || random_dropout) {
    absl::StatusOr<std::vector<Tensor>> again = RunNode(node, opset, inputs);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(CompareTensors((*again)[0], (*outputs)[0], 0, 0), "") << "not deterministic";
  }

  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    absl::StatusOr<Tensor> expected = kernel_testing::ReadBackendOutput(**model, data_set, k);
    ASSERT_TRUE(expected.ok()) << expected.status();
    int slot = -1;
    for (int i = 0; i < node.num_outputs(); ++i) {
      if (node.output(i) == graph.outputs()[k]) slot = i;
    }
    ASSERT_GE(slot, 0) << "graph output " << k << " is not the node's";
    const Tensor& actual = (*outputs)[slot];
    if (bernoulli) {
      ASSERT_EQ(actual.type(), expected->type());
      EXPECT_EQ(TensorView(actual.view()).DebugString(),
                TensorView(expected->view()).DebugString());
      for (double v : Values(actual)) EXPECT_TRUE(v == 0 || v == 1) << v;
    } else if (random_dropout) {
      ASSERT_EQ(actual.type(), expected->type());
      ASSERT_EQ(actual.NumElements(), expected->NumElements());
      const double scale = 1.0 / (1.0 - Values(inputs[1])[0]);
      const std::vector<double> x = Values(inputs[0]);
      const std::vector<double> y = Values((*outputs)[0]);
      const std::vector<double> a = Values(actual);
      for (size_t i = 0; i < a.size(); ++i) {
        if (slot == 0) {
          EXPECT_TRUE(a[i] == 0 || std::abs(a[i] - x[i] * scale) <= 1e-5 * std::abs(x[i] * scale))
              << i;
        } else {  // the mask marks exactly the kept (scaled) elements
          EXPECT_EQ(a[i] != 0, y[i] != 0 || x[i] == 0) << i;
        }
      }
    } else {
      EXPECT_EQ(CompareTensors(actual, *expected), "") << "output " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Node, MiscBackendTest, ::testing::ValuesIn(BackendTests()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(5);  // without "test_"
                         });

}  // namespace
}  // namespace anvil
