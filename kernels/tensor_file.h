// Tensors as ONNX TensorProto files (input_K.pb / output_K.pb, the format of the ONNX backend
// test data and of ONNX Runtime's tools): reading them into runtime Tensors and writing results
// back, for anvil-run and the conformance runner.
#ifndef ANVIL_KERNELS_TENSOR_FILE_H_
#define ANVIL_KERNELS_TENSOR_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/type.h"
#include "kernels/tensor.h"

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace anvil {

struct NamedTensor {
  std::string name;  // TensorProto.name; may be empty
  Tensor tensor;
};

// A dense copy of a TensorProto's contents (raw_data, typed fields or external data relative to
// `base_dir`; string_data for string tensors).
absl::StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto,
                                       const std::string& base_dir = "");

// `tensor` as a TensorProto named `name` (raw_data).
absl::StatusOr<onnx::TensorProto> TensorToProto(const Tensor& tensor, const std::string& name);

// Reads a binary TensorProto file; errors name the file.
absl::StatusOr<NamedTensor> ReadTensorFile(const std::string& path);
// ReadTensorFile without the name.
absl::StatusOr<Tensor> ReadTensor(const std::string& path);

// Reads input_K.pb / output_K.pb of a value declared `declared`: a TensorProto for a tensor (or
// an untyped value), a SequenceProto of tensors for a sequence, an OptionalProto for an optional
// (an empty one as Tensor::NoneOptional). The file's proto kind follows from the declared type
// alone (a SequenceProto would parse as a garbage TensorProto), as ONNX's backend runner reads
// them. Errors name the file.
absl::StatusOr<NamedTensor> ReadValueFile(const std::string& path, const Type& declared);

// A protobuf file holds at most 2 GB; value files keep this much tensor data inline.
inline constexpr int64_t kMaxInlineTensorBytes = int64_t{1} << 30;

// Writes `value` as its declared type calls for: an OptionalProto for an optional (holding the
// tensor or sequence, or nothing), a SequenceProto for a sequence, else a TensorProto; named
// `name`. What anvil-run writes as input_K.pb / output_K.pb. Tensor bytes stay inline (raw_data)
// while together they are at most `max_inline_bytes`; the tensors past that go to `<path>.data`
// next to the file as ONNX external data (location "<file>.data", offset, length), which
// ReadValueFile, onnx.numpy_helper.to_array(t, base_dir) and ONNX Runtime read back. String
// tensors have no external form: a value whose strings pass 2 GB is an error, said in one line
// (protobuf would refuse it with a log line of its own). A `<path>.data` left by an earlier write
// is removed when this value needs none.
absl::Status WriteValueFile(const Tensor& value, const Type& declared, const std::string& name,
                            const std::string& path,
                            int64_t max_inline_bytes = kMaxInlineTensorBytes);

// Writes `tensor` as a binary TensorProto file named `name` (WriteValueFile of a tensor).
absl::Status WriteTensorFile(const Tensor& tensor, const std::string& name,
                             const std::string& path);

}  // namespace anvil

#endif  // ANVIL_KERNELS_TENSOR_FILE_H_
