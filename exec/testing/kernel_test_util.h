// What the kernel family tests share: building small tensors, reading them back, and running the
// one node of a model given as ONNX text, either as the runtime does (RunText: the node executor,
// with ShapeHelpers and dense inputs) or on hand-made, possibly strided input views (RunViews: how
// the runtime hands kernels broadcast and transposed operands). Test-only.
#ifndef ANVIL_EXEC_TESTING_KERNEL_TEST_UTIL_H_
#define ANVIL_EXEC_TESTING_KERNEL_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/node_executor.h"
#include "gtest/gtest.h"
#include "kernels/tensor.h"

namespace anvil::kernel_testing {

// A tensor holding `values` as raw storage of type T (Half/BFloat16 bits for 16-bit floats).
template <typename T>
Tensor MakeTensor(ElementType type, std::vector<int64_t> dims, const std::vector<T>& values) {
  Tensor t(type, dims);
  EXPECT_EQ(t.ByteSize(), values.size() * sizeof(T)) << "values do not fill the tensor";
  if (!values.empty() && t.ByteSize() == values.size() * sizeof(T)) {
    std::memcpy(t.data(), values.data(), t.ByteSize());
  }
  return t;
}
Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& values);
Tensor Int64s(std::vector<int64_t> dims, const std::vector<int64_t>& values);

// The tensor's storage as T, row-major.
template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v(t.NumElements());
  if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}
std::vector<int64_t> Dims(const Tensor& t);

// Where Debian's libonnx-testdata puts the ONNX backend suite's single-node tests.
inline constexpr char kOnnxNodeTestDir[] = "/usr/include/onnx/backend/test/data/node";

// "" when `got` equals `want` (type, dims, and every element: floating types within
// atol + rtol * |want|, NaN matching NaN; other types exactly), else what differs: the count
// and the first difference.
std::string CompareTensors(const Tensor& got, const Tensor& want, double rtol = 1e-3,
                           double atol = 1e-7);
// Element `i` (row-major) of a numeric tensor as double.
double ElementAsDouble(const Tensor& t, int64_t i);

// `<ir_version: 8, opset_import: ["" : opset]> SIGNATURE { BODY }`.
std::string ModelText(int opset, std::string_view signature, std::string_view body);

// Parses a model and runs its first node on `inputs` at the model's opset of the node's domain.
absl::StatusOr<std::vector<Tensor>> RunText(const std::string& text,
                                            const std::vector<Tensor>& inputs,
                                            const NodeExecOptions& options = {});

// Runs the first node's kernel on `inputs` as given into fresh dense outputs of `out_dims`, of
// `out_type` (kUndefined: input 0's type).
absl::StatusOr<std::vector<Tensor>> RunViews(const std::string& text,
                                             std::vector<TensorView> inputs,
                                             std::vector<std::vector<int64_t>> out_dims,
                                             ElementType out_type = ElementType::kUndefined);

}  // namespace anvil::kernel_testing

#endif  // ANVIL_EXEC_TESTING_KERNEL_TEST_UTIL_H_
