#include "kernels/tensor_file.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

Tensor Floats(std::vector<int64_t> dims, float start) {
  Tensor t(ElementType::kFloat, dims);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.As<float>()[i] = start + i;
  return t;
}

void ExpectSame(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.type(), b.type());
  ASSERT_EQ(a.dims(), b.dims());
  for (int64_t i = 0; i < a.NumElements(); ++i) EXPECT_EQ(a.As<float>()[i], b.As<float>()[i]);
}

// Tensors past the inline budget go to <file>.data as external data and read back whole.
TEST(TensorFileTest, LargeTensorsGoToExternalData) {
  const std::string path = TempPath("big_0.pb");
  const Tensor big = Floats({4, 8}, 1);  // 128 bytes
  ASSERT_TRUE(WriteValueFile(big, Type(), "y", path, /*max_inline_bytes=*/64).ok());
  ASSERT_TRUE(std::filesystem::exists(path + ".data"));
  EXPECT_EQ(std::filesystem::file_size(path + ".data"), 128u);
  EXPECT_LT(std::filesystem::file_size(path), 128u);
  absl::StatusOr<NamedTensor> read = ReadValueFile(path, Type());
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->name, "y");
  ExpectSame(read->tensor, big);

  // A small value written over it later leaves no stale side file.
  ASSERT_TRUE(WriteValueFile(Floats({2}, 5), Type(), "y", path, 64).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".data"));
  read = ReadValueFile(path, Type());
  ASSERT_TRUE(read.ok()) << read.status();
  ExpectSame(read->tensor, Floats({2}, 5));
}

// A sequence keeps its first tensors inline and appends the rest, at increasing offsets.
TEST(TensorFileTest, SequenceSplitsBetweenInlineAndExternal) {
  const std::string path = TempPath("seq_0.pb");
  std::vector<Tensor> items = {Floats({4}, 0), Floats({4}, 10), Floats({4}, 20)};
  const Tensor seq = Tensor::Sequence(ElementType::kFloat, items);
  const Type declared = Type::Sequence(Type::Tensor(ElementType::kFloat));
  ASSERT_TRUE(WriteValueFile(seq, declared, "s", path, /*max_inline_bytes=*/16).ok());
  EXPECT_EQ(std::filesystem::file_size(path + ".data"), 32u);
  absl::StatusOr<NamedTensor> read = ReadValueFile(path, declared);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->tensor.elements().size(), 3u);
  for (int k = 0; k < 3; ++k) ExpectSame(read->tensor.elements()[k], items[k]);
}

}  // namespace
}  // namespace anvil
