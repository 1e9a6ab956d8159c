// Tests of the data-movement kernels (ops/data*.cc): handwritten cases for paths the ONNX
// backend data does not reach (strided inputs, every element size, old opsets, errors), then
// every single-node ONNX backend test of the family run through RunNode and compared with its
// expected outputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "exec/node_executor.h"
#include "exec/testing/backend_test_util.h"
#include "exec/testing/kernel_test_util.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "kernels/tensor_file.h"
#include "onnx/onnx_pb.h"

namespace anvil {
namespace {

// ---- Helpers ----

using kernel_testing::CompareTensors;
using kernel_testing::Dims;
using kernel_testing::Floats;
using kernel_testing::Int64s;
using kernel_testing::MakeTensor;
using kernel_testing::ModelText;
using kernel_testing::RunText;
using kernel_testing::RunViews;
using kernel_testing::Values;

// 0, 1, 2, ... as `T`.
template <typename T>
Tensor Iota(ElementType type, std::vector<int64_t> dims) {
  Tensor t(type, dims);
  T* p = t.As<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<T>(i);
  return t;
}

// ---- Transpose ----

// Reference transpose by index arithmetic.
template <typename T>
std::vector<T> NaiveTranspose(const std::vector<T>& in, const std::vector<int64_t>& dims,
                              const std::vector<int64_t>& perm) {
  const int64_t rank = dims.size();
  std::vector<int64_t> in_strides(rank, 1), out_dims(rank);
  for (int64_t k = rank - 2; k >= 0; --k) in_strides[k] = in_strides[k + 1] * dims[k + 1];
  for (int64_t k = 0; k < rank; ++k) out_dims[k] = dims[perm[k]];
  std::vector<T> out;
  std::vector<int64_t> index(rank, 0);
  for (size_t n = 0; n < in.size(); ++n) {
    int64_t offset = 0;
    for (int64_t k = 0; k < rank; ++k) offset += index[k] * in_strides[perm[k]];
    out.push_back(in[offset]);
    for (int64_t k = rank - 1; k >= 0; --k) {
      if (++index[k] < out_dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

TEST(DataKernels, TransposeTiledAndPermutations) {
  const std::vector<int64_t> dims = {3, 37, 70};  // not multiples of the tile
  Tensor x = Iota<float>(ElementType::kFloat, dims);
  const std::vector<float> in = Values<float>(x);
  for (std::vector<int64_t> perm : std::vector<std::vector<int64_t>>{
           {0, 2, 1}, {2, 1, 0}, {1, 0, 2}, {2, 0, 1}, {1, 2, 0}, {0, 1, 2}}) {
    std::vector<int64_t> out_dims;
    for (int64_t p : perm) out_dims.push_back(dims[p]);
    const std::string text = ModelText(
        17, absl::StrCat("g (float[3,37,70] x) => (float[", absl::StrJoin(out_dims, ","), "] y)"),
        absl::StrCat("y = Transpose <perm = [", absl::StrJoin(perm, ", "), "]> (x)"));
    absl::StatusOr<std::vector<Tensor>> out = RunText(text, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Dims((*out)[0]), out_dims);
    EXPECT_EQ(Values<float>((*out)[0]), NaiveTranspose(in, dims, perm)) << absl::StrJoin(perm, ",");
  }
}

TEST(DataKernels, TransposeEveryElementSize) {
  const std::vector<int64_t> dims = {5, 3, 4};
  const std::vector<int64_t> perm = {2, 0, 1};
  for (ElementType type : {ElementType::kUint8, ElementType::kBool, ElementType::kFloat16,
                           ElementType::kInt32, ElementType::kDouble, ElementType::kComplex128}) {
    const size_t esize = ElementSize(type);
    Tensor x(type, dims);
    auto* bytes = x.As<uint8_t>();
    for (size_t i = 0; i < x.ByteSize(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
    if (type == ElementType::kBool) {
      for (size_t i = 0; i < x.ByteSize(); ++i) bytes[i] &= 1;
    }
    const std::string name(ElementTypeName(type));
    const std::string text =
        ModelText(17, absl::StrCat("g (", name, "[5,3,4] x) => (", name, "[4,5,3] y)"),
                  "y = Transpose <perm = [2, 0, 1]> (x)");
    absl::StatusOr<std::vector<Tensor>> out = RunText(text, {x});
    if (type == ElementType::kComplex128 && !out.ok()) continue;  // text syntax may lack it
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    // Compare element by element (as byte groups).
    std::vector<int64_t> index(dims.size());
    std::vector<int64_t> flat(x.NumElements());
    std::iota(flat.begin(), flat.end(), 0);
    const std::vector<int64_t> expected = NaiveTranspose(flat, dims, perm);
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(
          std::memcmp((*out)[0].As<uint8_t>() + i * esize, bytes + expected[i] * esize, esize), 0)
          << name << " element " << i;
    }
  }
}

TEST(DataKernels, TransposeOfStridedInput) {
  // x is the transpose of a dense [4, 6] buffer (a strided view); Transpose gives it back.
  Tensor base = Iota<int32_t>(ElementType::kInt32, {4, 6});
  TensorView x = base.view();
  x.dims = {6, 4};
  x.strides = {1, 6};
  absl::StatusOr<std::vector<Tensor>> out = RunViews(
      ModelText(17, "g (int32[6,4] x) => (int32[4,6] y)", "y = Transpose (x)"), {x}, {{4, 6}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), Values<int32_t>(base));
}

// ---- Reshape-like copies ----

TEST(DataKernels, ReshapeCopiesStridedInput) {
  Tensor base = Iota<float>(ElementType::kFloat, {3, 4});
  TensorView x = base.view();  // columns 1..2 of every row: [3, 2] with strides [4, 1]
  x.data = base.As<float>() + 1;
  x.dims = {3, 2};
  absl::StatusOr<std::vector<Tensor>> out =
      RunViews(ModelText(17, "g (float[3,2] x, int64[1] s) => (float[6] y)", "y = Reshape (x, s)"),
               {x, Int64s({1}, {6}).view()}, {{6}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 5, 6, 9, 10}));
}

TEST(DataKernels, ReshapeOpset1AndSqueezeOpset11) {
  absl::StatusOr<std::vector<Tensor>> out = RunText(
      ModelText(4, "g (float[2,3] x) => (float[3,2] y)", "y = Reshape <shape = [3, -1]> (x)"),
      {Iota<float>(ElementType::kFloat, {2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Dims((*out)[0]), (std::vector<int64_t>{3, 2}));
  out = RunText(
      ModelText(11, "g (float[1,3,1] x) => (float[3] y)", "y = Squeeze <axes = [0, -1]> (x)"),
      {Iota<float>(ElementType::kFloat, {1, 3, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 1, 2}));
}

// ---- Concat, Split, Slice ----

TEST(DataKernels, ConcatStridedAndBroadcastInputs) {
  Tensor a = Iota<float>(ElementType::kFloat, {2, 2});
  TensorView b = Floats({1}, {9}).view();  // broadcast [2, 3] view of one element
  Tensor b_base = Floats({1}, {9});
  b.data = b_base.data();
  b.dims = {2, 3};
  b.strides = {0, 0};
  absl::StatusOr<std::vector<Tensor>> out =
      RunViews(ModelText(17, "g (float[2,2] a, float[2,3] b) => (float[2,5] y)",
                         "y = Concat <axis = -1> (a, b)"),
               {a.view(), b}, {{2, 5}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 1, 9, 9, 9, 2, 3, 9, 9, 9}));
}

TEST(DataKernels, SplitVersions) {
  Tensor x = Iota<int64_t>(ElementType::kInt64, {2, 5});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(11, "g (int64[2,5] x) => (int64[2,2] a, int64[2,3] b)",
                        "a, b = Split <axis = 1, split = [2, 3]> (x)"),
              {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 1, 5, 6}));
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{2, 3, 4, 7, 8, 9}));
  out = RunText(ModelText(13, "g (int64[2,5] x, int64[2] s) => (int64[2,4] a, int64[2,1] b)",
                          "a, b = Split <axis = 1> (x, s)"),
                {x, Int64s({2}, {4, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{4, 9}));
}

TEST(DataKernels, SliceNegativeStepsAndOpset1) {
  Tensor x = Iota<float>(ElementType::kFloat, {3, 4});
  absl::StatusOr<std::vector<Tensor>> out = RunText(
      ModelText(
          13, "g (float[3,4] x, int64[2] s, int64[2] e, int64[2] a, int64[2] st) => (float[2,2] y)",
          "y = Slice (x, s, e, a, st)"),
      {x, Int64s({2}, {-1, 100}), Int64s({2}, {0, -100}), Int64s({2}, {1, 0}),
       Int64s({2}, {-2, -2})});
  ASSERT_TRUE(out.ok()) << out.status();
  // rows 2, 0 (axis 0 step -2 from the end); columns 3, 1.
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{11, 9, 3, 1}));
  out = RunText(ModelText(9, "g (float[3,4] x) => (float[2,3] y)",
                          "y = Slice <starts = [1, 1], ends = [1000, 4]> (x)"),
                {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{5, 6, 7, 9, 10, 11}));
  // A step of INT64_MIN from the end takes exactly the last element.
  Tensor v = Iota<float>(ElementType::kFloat, {10});
  out = RunText(
      ModelText(13,
                "g (float[10] x, int64[1] s, int64[1] e, int64[1] a, int64[1] st) => (float[1] y)",
                "y = Slice (x, s, e, a, st)"),
      {v, Int64s({1}, {-1}), Int64s({1}, {std::numeric_limits<int64_t>::min()}), Int64s({1}, {0}),
       Int64s({1}, {std::numeric_limits<int64_t>::min()})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{9}));
}

// ---- Gather family ----

TEST(DataKernels, GatherElementsRefusesIndicesWiderThanData) {
  // Only the axis dim may differ; a wider dim 0 would read past the data (found by
  // //fuzz:model_fuzzer).
  Tensor x = Iota<float>(ElementType::kFloat, {2, 3});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (float[2,3] x, int64[4,1] i) => (float[4,1] y)",
                        "y = GatherElements <axis = 1> (x, i)"),
              {x, Int64s({4, 1}, {0, 1, 2, 0})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("indices dim 0 is 4, more than the data's 2"),
            std::string::npos)
      << out.status();
}

TEST(DataKernels, GatherInnerBlocksAndErrors) {
  Tensor x = Iota<float>(ElementType::kFloat, {3, 2, 2});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (float[3,2,2] x, int32[2] i) => (float[2,2,2] y)",
                        "y = Gather <axis = 0> (x, i)"),
              {x, MakeTensor<int32_t>(ElementType::kInt32, {2}, {-1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3}));
  out = RunText(ModelText(13, "g (float[3,2,2] x, int64[1] i) => (float[1,2,2] y)",
                          "y = Gather <axis = 0> (x, i)  # gather_node"),
                {x, Int64s({1}, {3})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("index 3"), std::string::npos) << out.status();
}

TEST(DataKernels, GatherNDBatchAndScatterNDReduction) {
  Tensor data = Iota<int32_t>(ElementType::kInt32, {2, 3});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (int32[2,3] x, int64[2,1] i) => (int32[2] y)",
                        "y = GatherND <batch_dims = 1> (x, i)"),
              {data, Int64s({2, 1}, {2, -3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{2, 3}));
  out = RunText(ModelText(16, "g (int32[2,3] x, int64[2,1] i, int32[2,3] u) => (int32[2,3] y)",
                          "y = ScatterND <reduction = \"mul\"> (x, i, u)"),
                {data, Int64s({2, 1}, {1, 1}),
                 MakeTensor<int32_t>(ElementType::kInt32, {2, 3}, {2, 2, 2, 3, 3, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 1, 2, 18, 24, 30}));
}

TEST(DataKernels, ScatterElementsAddHalf) {
  Tensor data(ElementType::kFloat16, {2, 2});
  Tensor updates(ElementType::kFloat16, {2, 1});
  for (int i = 0; i < 4; ++i) data.As<Half>()[i] = Half(static_cast<float>(i));
  updates.As<Half>()[0] = Half(0.5f);
  updates.As<Half>()[1] = Half(0.25f);
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(16, "g (float16[2,2] x, int64[2,1] i, float16[2,1] u) => (float16[2,2] y)",
                        "y = ScatterElements <axis = 1, reduction = \"add\"> (x, i, u)"),
              {data, Int64s({2, 1}, {1, -2}), updates});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> got;
  for (int i = 0; i < 4; ++i) got.push_back(static_cast<float>((*out)[0].As<Half>()[i]));
  EXPECT_EQ(got, (std::vector<float>{0, 1.5f, 2.25f, 3}));
}

TEST(DataKernels, IndexErrorsNameNodeAndValue) {
  Tensor data = Iota<float>(ElementType::kFloat, {2, 3});
  absl::StatusOr<std::vector<Tensor>> out = RunText(
      ModelText(13, "g (float[2,3] x, int64[1,2] i) => (float[1] y)", "y = GatherND (x, i)  # gnd"),
      {data, Int64s({1, 2}, {1, -4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("index -4"), std::string::npos) << out.status();
  out = RunText(ModelText(13, "g (float[2,3] x, int64[2,1] i, float[2,1] u) => (float[2,3] y)",
                          "y = ScatterElements <axis = 1> (x, i, u)"),
                {data, Int64s({2, 1}, {0, 3}), Floats({2, 1}, {1, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("ScatterElements"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("index 3"), std::string::npos) << out.status();
}

TEST(DataKernels, StringsAreUnimplemented) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (string[2,1] x) => (string[1,2] y)", "y = Transpose (x)"),
              {Tensor(ElementType::kString, {2, 1})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
}

// ---- Tile, Expand, Pad ----

TEST(DataKernels, TileOpset1AndExpand) {
  Tensor x = Iota<uint16_t>(ElementType::kUint16, {2, 2});
  absl::StatusOr<std::vector<Tensor>> out = RunText(
      ModelText(5, "g (uint16[2,2] x, int64 t, int64 a) => (uint16[2,6] y)", "y = Tile (x, t, a)"),
      {x, Int64s({}, {3}), Int64s({}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0]),
            (std::vector<uint16_t>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3}));
  out = RunText(
      ModelText(13, "g (uint16[2,1] x, int64[3] s) => (uint16[2,2,3] y)", "y = Expand (x, s)"),
      {MakeTensor<uint16_t>(ElementType::kUint16, {2, 1}, {4, 5}), Int64s({3}, {2, 1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0]),
            (std::vector<uint16_t>{4, 4, 4, 5, 5, 5, 4, 4, 4, 5, 5, 5}));
}

TEST(DataKernels, PadModesAndOldOpsets) {
  Tensor x = Iota<int32_t>(ElementType::kInt32, {1, 3});
  // reflect wider than the dim: numpy's periodic reflection.
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (int32[1,3] x, int64[4] p) => (int32[1,10] y)",
                        "y = Pad <mode = \"reflect\"> (x, p)"),
              {x, Int64s({4}, {0, 4, 0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 1, 2, 1, 0, 1, 2, 1, 0, 1}));
  // Negative pads crop; opset 2 attributes; constant 7.
  out = RunText(ModelText(2, "g (int32[1,3] x) => (int32[2,3] y)",
                          "y = Pad <pads = [1, -1, 0, 1], value = 7.0> (x)"),
                {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{7, 7, 7, 1, 2, 7}));
  out = RunText(ModelText(1, "g (int32[1,3] x) => (int32[1,5] y)",
                          "y = Pad <paddings = [0, 1, 0, 1], mode = \"edge\"> (x)"),
                {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 0, 1, 2, 2}));
}

// ---- Creation ops ----

TEST(DataKernels, RangeConstantEyeLikeShape) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (int16 a, int16 b, int16 c) => (int16[4] y)", "y = Range (a, b, c)"),
              {MakeTensor<int16_t>(ElementType::kInt16, {}, {10}),
               MakeTensor<int16_t>(ElementType::kInt16, {}, {2}),
               MakeTensor<int16_t>(ElementType::kInt16, {}, {-2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int16_t>((*out)[0]), (std::vector<int16_t>{10, 8, 6, 4}));

  out = RunText(ModelText(13, "g () => (int64[3] y)", "y = Constant <value_ints = [4, 5, 6]> ()"),
                {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{4, 5, 6}));

  out = RunText(
      ModelText(13, "g (float[3,4] x) => (int32[3,4] y)", "y = EyeLike <k = -1, dtype = 6> (x)"),
      {Floats({3, 4}, std::vector<float>(12))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));

  // A diagonal outside the matrix, as far as int64 reaches (INT64_MIN once overflowed -k).
  for (const char* k : {"-9223372036854775808", "9223372036854775807", "4", "-3"}) {
    out = RunText(ModelText(13, "g (float[3,4] x) => (float[3,4] y)",
                            absl::StrCat("y = EyeLike <k = ", k, "> (x)")),
                  {Floats({3, 4}, std::vector<float>(12))});
    ASSERT_TRUE(out.ok()) << k << ": " << out.status();
    EXPECT_EQ(Values<float>((*out)[0]), std::vector<float>(12)) << k;
  }

  out = RunText(
      ModelText(15, "g (float[2,3,4,5] x) => (int64[2] y)", "y = Shape <start = -3, end = -1> (x)"),
      {Floats({2, 3, 4, 5}, std::vector<float>(120))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{3, 4}));
}

TEST(DataKernels, CompressNonZeroOneHot) {
  Tensor x = Iota<float>(ElementType::kFloat, {2, 3});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (float[2,3] x, bool[4] c) => (float[?] y)", "y = Compress (x, c)"),
              {x, MakeTensor<uint8_t>(ElementType::kBool, {4}, {0, 1, 0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 3}));

  out = RunText(ModelText(13, "g (bool[2,2] x) => (int64[2,?] y)", "y = NonZero (x)"),
                {MakeTensor<uint8_t>(ElementType::kBool, {2, 2}, {1, 0, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Dims((*out)[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 1, 1, 0, 0, 1}));

  out = RunText(
      ModelText(11, "g (int64[3] i, float d, int8[2] v) => (int8[3,4] y)", "y = OneHot (i, d, v)"),
      {Int64s({3}, {1, -1, 7}), Floats({}, {4.0f}),
       MakeTensor<int8_t>(ElementType::kInt8, {2}, {-1, 5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0]),
            (std::vector<int8_t>{-1, 5, -1, -1, -1, -1, -1, 5, -1, -1, -1, -1}));
}

// ---- Resize, Upsample ----

TEST(DataKernels, ResizeNearestIntAndLinearUint8) {
  Tensor x = MakeTensor<int8_t>(ElementType::kInt8, {1, 2}, {-3, 7});
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (int8[1,2] x, float[2] s) => (int8[1,4] y)",
                        "y = Resize <mode = \"nearest\"> (x, , s)"),
              {x, Tensor(), Floats({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{-3, -3, 7, 7}));
  Tensor u = MakeTensor<uint8_t>(ElementType::kUint8, {1, 2}, {0, 255});
  out = RunText(ModelText(13, "g (uint8[1,2] x, float[2] s) => (uint8[1,4] y)",
                          "y = Resize <mode = \"linear\", coordinate_transformation_mode = "
                          "\"align_corners\"> (x, , s)"),
                {u, Tensor(), Floats({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  // x * (2 - 1) / (4 - 1): 0, 85, 170, 255.
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 85, 170, 255}));
}

// A float linear resize of the last two dims computes ONNX Runtime's bits (its CPU kernel's
// float coordinates, clamping, distance weights and one four-term blend; checked against ONNX
// Runtime 1.30 itself when written): here against that arithmetic spelled out per element, for
// every coordinate mode, scales and sizes, a roi with extrapolation, ranks 2 and 4. (Where scale x
// input length is fractional, align_corners, pytorch_half_pixel and tf_crop_and_resize divide by
// it as the reference does, not by the output length as ONNX Runtime: OnnxBackendNodeTests.)
TEST(DataKernels, LinearResizeGivesOnnxRuntimesBits) {
  struct Case {
    std::string mode;
    std::vector<int64_t> dims;
    float sh, sw;            // scales of H and W (unused with sizes)
    int64_t oh, ow;          // sizes, or 0: from the scales
    std::vector<float> roi;  // tf_crop_and_resize's, of H and W
  };
  const std::vector<Case> cases = {
      {"half_pixel", {2, 3, 5, 7}, 2.5f, 1.75f, 0, 0, {}},
      {"half_pixel", {1, 2, 30, 40}, 1.3f, 2.2f, 0, 0, {}},  // 30 x 1.3f: 39 rows, as float
      {"half_pixel", {1, 1, 16, 16}, 0.5f, 0.75f, 0, 0, {}},
      {"half_pixel", {9, 11}, 2.0f, 3.0f, 0, 0, {}},
      {"half_pixel", {1, 2, 5, 7}, 0, 0, 13, 9, {}},
      {"pytorch_half_pixel", {1, 2, 4, 4}, 0.25f, 2.0f, 0, 0, {}},  // one output row
      {"align_corners", {1, 2, 6, 4}, 2.0f, 3.0f, 0, 0, {}},
      {"asymmetric", {1, 2, 6, 4}, 1.6f, 2.5f, 0, 0, {}},
      {"tf_half_pixel_for_nn", {1, 2, 6, 4}, 3.0f, 0.7f, 0, 0, {}},
      {"tf_crop_and_resize", {1, 2, 6, 5}, 1.5f, 2.0f, 0, 0, {0.2f, -0.1f, 1.3f, 0.7f}},
      {"half_pixel", {1, 2, 6, 5}, 1.0f, 2.0f, 0, 0, {}},  // scale 1: rows copied
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.mode, " ", absl::StrJoin(c.dims, "x")));
    const int64_t rank = static_cast<int64_t>(c.dims.size());
    const int64_t h = c.dims[rank - 2], w = c.dims[rank - 1];
    const int64_t planes = rank == 4 ? c.dims[0] * c.dims[1] : 1;
    std::vector<float> x(planes * h * w);
    uint32_t state = 12345;
    for (float& v : x) {
      state = state * 1664525u + 1013904223u;
      v = static_cast<float>(static_cast<int32_t>(state >> 8) - (1 << 23)) / (1 << 22);
    }
    const bool sizes = c.oh > 0;
    const int64_t oh =
        sizes ? c.oh : static_cast<int64_t>(std::floor(static_cast<float>(h) * c.sh));
    const int64_t ow =
        sizes ? c.ow : static_cast<int64_t>(std::floor(static_cast<float>(w) * c.sw));
    const float sh = sizes ? static_cast<float>(oh) / static_cast<float>(h) : c.sh;
    const float sw = sizes ? static_cast<float>(ow) / static_cast<float>(w) : c.sw;
    const bool crop = c.mode == "tf_crop_and_resize";
    // The coordinate, neighbours and distances of output index i along an axis (ORT's steps).
    struct Axis {
      int64_t i1, i2;
      float d1, d2;
      bool outside;
    };
    auto axis = [&](int64_t i, int64_t in, int64_t out, float scale, float r0, float r1) {
      const float xf = static_cast<float>(i), len = static_cast<float>(in),
                  olen = static_cast<float>(out);
      float v = xf;
      if (scale != 1) {
        if (c.mode == "half_pixel") v = (xf + 0.5f) / scale - 0.5f;
        if (c.mode == "pytorch_half_pixel") v = olen > 1 ? (xf + 0.5f) / scale - 0.5f : 0.0f;
        if (c.mode == "align_corners") v = olen == 1 ? 0.0f : xf * (len - 1) / (olen - 1);
        if (c.mode == "asymmetric") v = xf / scale;
        if (c.mode == "tf_half_pixel_for_nn") v = (xf + 0.5f) / scale;
        if (crop) v = r0 * (len - 1) + xf * (r1 - r0) * (len - 1) / (olen - 1);
      }
      Axis a;
      a.outside = crop && (v < 0 || v > len - 1);
      v = std::max(0.0f, std::min(v, len - 1));
      a.i1 = std::min<int64_t>(static_cast<int64_t>(v), in - 1);
      a.i2 = std::min<int64_t>(a.i1 + 1, in - 1);
      a.d1 = a.i1 == a.i2 ? 0.5f : std::fabs(v - static_cast<float>(a.i1));
      a.d2 = a.i1 == a.i2 ? 0.5f : std::fabs(v - static_cast<float>(a.i2));
      return a;
    };
    const float fill = -7.5f;
    std::vector<float> expected;
    for (int64_t p = 0; p < planes; ++p) {
      const float* plane = x.data() + p * h * w;
      for (int64_t i = 0; i < oh; ++i) {
        const Axis ay = axis(i, h, oh, sh, crop ? c.roi[0] : 0, crop ? c.roi[2] : 1);
        for (int64_t j = 0; j < ow; ++j) {
          const Axis ax = axis(j, w, ow, sw, crop ? c.roi[1] : 0, crop ? c.roi[3] : 1);
          if (ay.outside || ax.outside) {
            expected.push_back(fill);
            continue;
          }
          const float* r1 = plane + ay.i1 * w;
          const float* r2 = plane + ay.i2 * w;
          expected.push_back(ax.d2 * ay.d2 * r1[ax.i1] + ax.d1 * ay.d2 * r1[ax.i2] +
                             ax.d2 * ay.d1 * r2[ax.i1] + ax.d1 * ay.d1 * r2[ax.i2]);
        }
      }
    }
    std::vector<int64_t> out_dims = c.dims;
    out_dims[rank - 2] = oh;
    out_dims[rank - 1] = ow;
    std::vector<float> scales(rank, 1.0f), roi;
    scales[rank - 2] = c.sh;
    scales[rank - 1] = c.sw;
    std::vector<int64_t> size_values = out_dims;
    if (crop) {
      roi.assign(2 * rank, 0.0f);
      for (int64_t k = 0; k < rank; ++k) roi[rank + k] = 1;
      roi[rank - 2] = c.roi[0];
      roi[rank - 1] = c.roi[1];
      roi[2 * rank - 2] = c.roi[2];
      roi[2 * rank - 1] = c.roi[3];
    }
    const std::string signature =
        absl::StrCat("g (float[", absl::StrJoin(c.dims, ","), "] x, float[", crop ? 2 * rank : 0,
                     "] roi, float[", sizes ? 0 : rank, "] s, int64[", sizes ? rank : 0,
                     "] n) => (float[", absl::StrJoin(out_dims, ","), "] y)");
    const std::string body =
        absl::StrCat("y = Resize <mode = \"linear\", coordinate_transformation_mode = \"", c.mode,
                     "\", extrapolation_value = ", fill, "> (x, roi, s", sizes ? ", n)" : ")");
    absl::StatusOr<std::vector<Tensor>> out =
        RunText(ModelText(13, signature, body),
                {Floats(c.dims, x), Floats({crop ? 2 * rank : 0}, roi),
                 Floats({sizes ? 0 : rank}, sizes ? std::vector<float>{} : scales),
                 Int64s({sizes ? rank : 0}, sizes ? size_values : std::vector<int64_t>{})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Dims((*out)[0]), out_dims);
    const std::vector<float> got = Values<float>((*out)[0]);
    ASSERT_EQ(got.size(), expected.size());
    int64_t differing = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      differing += std::memcmp(&got[k], &expected[k], sizeof(float)) != 0;
    }
    EXPECT_EQ(differing, 0) << "of " << got.size();
  }
}

TEST(DataKernels, UpsampleOpset7Linear) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(7, "g (float[1,2] x) => (float[1,4] y)",
                        "y = Upsample <mode = \"linear\", scales = [1.0, 2.0]> (x)"),
              {Floats({1, 2}, {1, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  // asymmetric: x / 2 -> 0, 0.5, 1, 1.5 (clamped).
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 3}));
}

TEST(DataKernels, ReverseSequenceAndTrilu) {
  Tensor x = Iota<float>(ElementType::kFloat, {3, 2});  // [time, batch]
  absl::StatusOr<std::vector<Tensor>> out =
      RunText(ModelText(13, "g (float[3,2] x, int64[2] l) => (float[3,2] y)",
                        "y = ReverseSequence <batch_axis = 1, time_axis = 0> (x, l)"),
              {x, Int64s({2}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{4, 3, 2, 1, 0, 5}));
  out = RunText(
      ModelText(14, "g (float[3,2] x, int64 k) => (float[3,2] y)", "y = Trilu <upper = 0> (x, k)"),
      {x, Int64s({}, {-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 0, 2, 0, 4, 5}));
  // k at the ends of int64: upper keeps nothing for INT64_MAX and everything for INT64_MIN.
  for (const auto& [k, upper, want] : std::vector<std::tuple<int64_t, int, std::vector<float>>>{
           {std::numeric_limits<int64_t>::max(), 1, std::vector<float>(6)},
           {std::numeric_limits<int64_t>::min(), 1, {0, 1, 2, 3, 4, 5}},
           {std::numeric_limits<int64_t>::max(), 0, {0, 1, 2, 3, 4, 5}},
           {std::numeric_limits<int64_t>::min(), 0, std::vector<float>(6)}}) {
    out = RunText(ModelText(14, "g (float[3,2] x, int64 k) => (float[3,2] y)",
                            absl::StrCat("y = Trilu <upper = ", upper, "> (x, k)")),
                  {x, Int64s({}, {k})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<float>((*out)[0]), want) << "k " << k << " upper " << upper;
  }
}

// ---- ONNX backend tests ----

// The ops of this family.
const std::set<std::string>& FamilyOps() {
  static const auto* ops = new std::set<std::string>{"Compress",     "Concat",
                                                     "Constant",     "ConstantOfShape",
                                                     "DepthToSpace", "Expand",
                                                     "EyeLike",      "Flatten",
                                                     "Gather",       "GatherElements",
                                                     "GatherND",     "NonZero",
                                                     "OneHot",       "Pad",
                                                     "Range",        "Reshape",
                                                     "Resize",       "ReverseSequence",
                                                     "Scatter",      "ScatterElements",
                                                     "ScatterND",    "Shape",
                                                     "Size",         "Slice",
                                                     "SpaceToDepth", "Split",
                                                     "Squeeze",      "Tile",
                                                     "Transpose",    "Trilu",
                                                     "Unsqueeze",    "Upsample"};
  return *ops;
}

TEST(DataKernels, OnnxBackendNodeTests) {
  // ANVIL_NODE_TEST_DIR points the test at another tree of node tests in the backend layout
  // (newer ONNX data, generated cases).
  const char* override_dir = std::getenv("ANVIL_NODE_TEST_DIR");
  kernel_testing::BackendTally tally;
  for (const std::filesystem::path& dir : kernel_testing::BackendTestDirs(
           override_dir != nullptr ? override_dir : kernel_testing::kOnnxNodeTestDir)) {
    absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile((dir / "model.onnx").string());
    if (!model.ok() || (*model)->graph().num_nodes() == 0) continue;
    // Tests made only of this family's ops (one node, or Constant feeding one); the op tested
    // is the last node's.
    bool ours = true;
    const Node* tested = nullptr;
    for (const Node* node : (*model)->graph().nodes()) {
      ours = ours && node->domain().empty() && FamilyOps().count(node->op_type()) > 0;
      tested = node;
    }
    if (!ours) continue;
    tally.Add(tested->op_type(), dir.filename().string(),
              kernel_testing::CheckBackendTest(dir, **model));
  }
  tally.Print("data");
  if (override_dir == nullptr) EXPECT_GT(tally.total(), 150);
  EXPECT_TRUE(tally.failures().empty()) << absl::StrJoin(tally.failures(), "\n");
}

}  // namespace
}  // namespace anvil
