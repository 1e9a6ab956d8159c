// Python values <-> Anvil Tensors for the `_anvil` module, as ONNX Runtime's Python API maps
// them: a tensor is a numpy array (strings: an object array of str), a sequence a list of
// arrays, an empty optional None.
//
// Inputs are read in place when they are C-contiguous, aligned, in native byte order and of the
// declared element type: the Tensor borrows the array (kept alive, never written). Another layout
// or byte order is copied once. Outputs are numpy arrays over the Tensor's own buffer, which the
// array keeps alive (no copy), except strings, which become Python str objects.
#ifndef ANVIL_PYTHON_NUMPY_TENSOR_H_
#define ANVIL_PYTHON_NUMPY_TENSOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "graph/type.h"
#include "kernels/tensor.h"
#include "pybind11/pybind11.h"

namespace anvil::python {

// The Tensor for `value` given as graph input `name` declared as `declared`. Errors name the
// input: an element type other than the declared one (no silent casts, as ONNX Runtime), a
// numpy dtype ONNX has no type for, a Python object that is no array, list or None as the
// declared type needs. Call with the GIL held.
absl::StatusOr<Tensor> TensorFromPython(const std::string& name, pybind11::handle value,
                                        const Type& declared);

// The Python value of an output: see the file comment. bfloat16, which numpy has no dtype for,
// becomes float32 (exactly, as onnx.numpy_helper does; a bfloat16 input is given as float32 and
// rounded to nearest even). Call with the GIL held.
absl::StatusOr<pybind11::object> TensorToPython(const std::string& name, Tensor tensor);

// ONNX Runtime's spelling of a type: "tensor(float)", "seq(tensor(int64))",
// "optional(tensor(float))"; "unknown" for a value without a type.
std::string OrtTypeString(const Type& type);

// The declared shape as ONNX Runtime's NodeArg.shape: ints, dim_param strings, None for an
// unknown dim; None when the rank is unknown or the value is no tensor.
pybind11::object ShapeToPython(const Type& type);

}  // namespace anvil::python

#endif  // ANVIL_PYTHON_NUMPY_TENSOR_H_
