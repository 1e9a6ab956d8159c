#include "python/numpy_tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "base/excerpt.h"
#include "base/float16.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "pybind11/numpy.h"
#include "pybind11/stl.h"

namespace anvil::python {
namespace py = pybind11;

namespace {

// numpy's dtypes of the element types it has, made once: looking a dtype up by name costs more
// than the rest of a small run's conversion. Leaked on purpose: they live as long as the module.
const py::dtype& DtypeOf(ElementType type) {
  static const auto* const dtypes = [] {
    auto* d = new std::vector<py::dtype>(17);
    const std::pair<ElementType, const char*> names[] = {
        {ElementType::kFloat, "float32"},
        {ElementType::kUint8, "uint8"},
        {ElementType::kInt8, "int8"},
        {ElementType::kUint16, "uint16"},
        {ElementType::kInt16, "int16"},
        {ElementType::kInt32, "int32"},
        {ElementType::kInt64, "int64"},
        {ElementType::kString, "object"},
        {ElementType::kBool, "bool"},
        {ElementType::kFloat16, "float16"},
        {ElementType::kDouble, "float64"},
        {ElementType::kUint32, "uint32"},
        {ElementType::kUint64, "uint64"},
        {ElementType::kComplex64, "complex64"},
        {ElementType::kComplex128, "complex128"},
    };
    for (const auto& [t, name] : names) (*d)[static_cast<int>(t)] = py::dtype(name);
    return d;
  }();
  return (*dtypes)[static_cast<int>(type)];
}

bool HasDtype(ElementType type) {
  return type != ElementType::kUndefined && type != ElementType::kBfloat16;
}

// The element type of numpy's dtype kind and item size: kString for str, bytes and object
// arrays; kUndefined when ONNX has none (datetime, void, float128, ...).
ElementType ElementTypeOf(char kind, size_t size) {
  switch (kind) {
    case 'f':
      return size == 2   ? ElementType::kFloat16
             : size == 4 ? ElementType::kFloat
             : size == 8 ? ElementType::kDouble
                         : ElementType::kUndefined;
    case 'i':
      return size == 1   ? ElementType::kInt8
             : size == 2 ? ElementType::kInt16
             : size == 4 ? ElementType::kInt32
             : size == 8 ? ElementType::kInt64
                         : ElementType::kUndefined;
    case 'u':
      return size == 1   ? ElementType::kUint8
             : size == 2 ? ElementType::kUint16
             : size == 4 ? ElementType::kUint32
             : size == 8 ? ElementType::kUint64
                         : ElementType::kUndefined;
    case 'b':
      return ElementType::kBool;
    case 'c':
      return size == 8    ? ElementType::kComplex64
             : size == 16 ? ElementType::kComplex128
                          : ElementType::kUndefined;
    case 'U':
    case 'S':
    case 'O':
      return ElementType::kString;
    default:
      return ElementType::kUndefined;
  }
}

ElementType ElementTypeOfDtype(const py::dtype& dtype) {
  return ElementTypeOf(dtype.kind(), dtype.itemsize());
}

// Drops the reference a borrowing Tensor holds. Usually the GIL is held (the run's inputs go
// after it is taken back); a copy that outlives the run may go on another thread.
void ReleaseArray(const void* p) {
  PyObject* array = static_cast<PyObject*>(const_cast<void*>(p));
  if (PyGILState_Check()) {
    Py_DECREF(array);
  } else {
    py::gil_scoped_acquire gil;
    Py_DECREF(array);
  }
}

// The common case without a Python call: a C-contiguous, aligned array of native byte order and
// the expected element type, read in place. Null when `value` is anything else.
std::optional<Tensor> BorrowInPlace(py::handle value, ElementType expected) {
  if (!py::isinstance<py::array>(value)) return std::nullopt;
  const auto* array = py::detail::array_proxy(value.ptr());
  const auto* descr = py::detail::array_descriptor_proxy(array->descr);
  const ElementType type = ElementTypeOf(descr->kind, static_cast<size_t>(descr->elsize));
  if (type == ElementType::kUndefined || type == ElementType::kString ||
      (expected != ElementType::kUndefined && type != expected) || descr->byteorder == '>' ||
      (array->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) == 0 ||
      reinterpret_cast<uintptr_t>(array->data) % static_cast<uintptr_t>(descr->elsize) != 0) {
    return std::nullopt;
  }
  static_assert(sizeof(py::ssize_t) == sizeof(int64_t), "numpy dims are read as int64_t");
  const absl::Span<const int64_t> dims(reinterpret_cast<const int64_t*>(array->dimensions),
                                       static_cast<size_t>(array->nd));
  Py_INCREF(value.ptr());  // the reference the tensor holds
  return Tensor::Borrow(type, dims, array->data,
                        std::shared_ptr<const void>(value.ptr(), &ReleaseArray));
}

std::string DtypeName(const py::dtype& dtype) { return dtype.attr("name").cast<std::string>(); }

std::string TypeName(ElementType type) { return std::string(ElementTypeName(type)); }

// A string tensor from any array of str, bytes or objects that are str or bytes.
absl::StatusOr<Tensor> StringTensor(const std::string& name, const py::array& array) {
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  Tensor tensor(ElementType::kString, dims);
  std::string* out = tensor.As<std::string>();
  py::list flat = array.attr("ravel")().attr("tolist")();
  for (size_t i = 0; i < flat.size(); ++i) {
    py::handle item = flat[i];
    if (PyUnicode_Check(item.ptr())) {
      out[i] = item.cast<std::string>();
    } else if (PyBytes_Check(item.ptr())) {
      out[i] = std::string(item.cast<py::bytes>());
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", Excerpt(name), "': element ", i, " of a string tensor is ",
                       Excerpt(py::str(py::type::of(item).attr("__name__")).cast<std::string>()),
                       ", not str or bytes"));
    }
  }
  return tensor;
}

// The declared element type of a tensor value, seen through optional().
ElementType DeclaredElementType(const Type& declared) {
  if (declared.is_optional()) return DeclaredElementType(declared.elem());
  return declared.is_tensor() ? declared.element_type() : ElementType::kUndefined;
}

absl::StatusOr<Tensor> DenseTensor(const std::string& name, py::handle value, ElementType expected);

// A bfloat16 input from a float32 array (numpy has no bfloat16), rounded to nearest even.
absl::StatusOr<Tensor> Bfloat16Tensor(const std::string& name, py::handle value) {
  ANVIL_ASSIGN_OR_RETURN(Tensor wide, DenseTensor(name, value, ElementType::kFloat));
  Tensor narrow = Tensor::Uninitialized(ElementType::kBfloat16, wide.dims());
  const float* in = wide.As<float>();
  uint16_t* out = narrow.As<uint16_t>();
  for (int64_t i = 0; i < wide.NumElements(); ++i) out[i] = fp16::FloatToBfloat16(in[i]);
  return narrow;
}

absl::StatusOr<Tensor> DenseTensor(const std::string& name, py::handle value,
                                   ElementType expected) {
  if (expected == ElementType::kBfloat16) return Bfloat16Tensor(name, value);
  if (std::optional<Tensor> borrowed = BorrowInPlace(value, expected)) return *std::move(borrowed);
  py::array array;
  if (py::isinstance<py::array>(value)) {
    array = py::reinterpret_borrow<py::array>(value);
  } else {
    // Python scalars and nested lists, as numpy reads them; of the declared type when known.
    try {
      array =
          HasDtype(expected) && expected != ElementType::kString
              ? py::array(py::module_::import("numpy").attr("asarray")(value, DtypeOf(expected)))
              : py::array(py::module_::import("numpy").attr("asarray")(value));
    } catch (const py::error_already_set& e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", Excerpt(name), "': not convertible to an array: ", Excerpt(e.what())));
    }
  }
  const ElementType given = ElementTypeOfDtype(array.dtype());
  if (given == ElementType::kUndefined) {
    return absl::InvalidArgumentError(absl::StrCat("input '", Excerpt(name), "': numpy dtype ",
                                                   DtypeName(array.dtype()),
                                                   " has no ONNX element type"));
  }
  if (expected != ElementType::kUndefined && given != expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", Excerpt(name), "': expected a tensor of ", TypeName(expected),
                     ", got ", TypeName(given), " (numpy ", DtypeName(array.dtype()), ")"));
  }
  if (given == ElementType::kString) return StringTensor(name, array);
  if (std::optional<Tensor> borrowed = BorrowInPlace(array, given)) return *std::move(borrowed);
  // Another layout or byte order: one copy into a C-contiguous array of native byte order, which
  // BorrowInPlace then takes.
  array = py::array(py::module_::import("numpy").attr("ascontiguousarray")(
      array, array.dtype().attr("newbyteorder")("=")));
  return *BorrowInPlace(array, given);
}

}  // namespace

absl::StatusOr<Tensor> TensorFromPython(const std::string& name, py::handle value,
                                        const Type& declared) {
  if (value.is_none()) {
    if (!declared.is_optional()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", Excerpt(name),
                                                     "' is None but the model declares ",
                                                     declared.ToString(), ", not an optional"));
    }
    const Type& elem = declared.elem();
    return Tensor::NoneOptional(elem.is_sequence() ? elem.elem().element_type()
                                                   : elem.element_type());
  }
  const Type& held = declared.is_optional() ? declared.elem() : declared;
  if (held.is_sequence()) {
    if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) {
      return absl::InvalidArgumentError(absl::StrCat("input '", Excerpt(name), "' is a sequence (",
                                                     declared.ToString(),
                                                     "): give a list of arrays"));
    }
    const ElementType elem = held.elem().element_type();
    std::vector<Tensor> tensors;
    for (py::handle item : value) {
      ANVIL_ASSIGN_OR_RETURN(Tensor t, DenseTensor(name, item, elem));
      tensors.push_back(std::move(t));
    }
    ElementType type = elem;
    if (type == ElementType::kUndefined && !tensors.empty()) type = tensors[0].type();
    return Tensor::Sequence(type, std::move(tensors));
  }
  return DenseTensor(name, value, DeclaredElementType(declared));
}

absl::StatusOr<py::object> TensorToPython(const std::string& name, Tensor tensor) {
  if (tensor.kind() == ValueKind::kNoneOptional) return py::object(py::none());
  if (tensor.kind() == ValueKind::kSequence) {
    py::list list;
    for (const Tensor& t : tensor.elements()) {
      ANVIL_ASSIGN_OR_RETURN(py::object item, TensorToPython(name, t));
      list.append(std::move(item));
    }
    return py::object(std::move(list));
  }
  const ElementType type = tensor.type();
  if (type == ElementType::kBfloat16) {
    // numpy has no bfloat16: float32 holds every value exactly (as onnx.numpy_helper does).
    Tensor widened = Tensor::Uninitialized(ElementType::kFloat, tensor.dims());
    const uint16_t* bits = tensor.As<uint16_t>();
    float* out = widened.As<float>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out[i] = fp16::Bfloat16ToFloat(bits[i]);
    return TensorToPython(name, std::move(widened));
  }
  if (!HasDtype(type)) {
    return absl::UnimplementedError(absl::StrCat("output '", Excerpt(name), "' is ", TypeName(type),
                                                 ", which numpy has no dtype for"));
  }
  std::vector<py::ssize_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (type == ElementType::kString) {
    py::list flat;
    const std::string* s = tensor.As<std::string>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      // ONNX strings are UTF-8; bytes that are not decode with replacement, not an exception.
      flat.append(py::reinterpret_steal<py::object>(
          PyUnicode_DecodeUTF8(s[i].data(), static_cast<py::ssize_t>(s[i].size()), "replace")));
    }
    py::array out = py::module_::import("numpy").attr("array")(flat, DtypeOf(type));
    return py::object(out.attr("reshape")(py::tuple(py::cast(shape))));
  }
  const py::dtype& dtype = DtypeOf(type);
  void* data = tensor.data();
  if (data == nullptr) return py::object(py::array(dtype, shape));  // no elements
  // The array's base owns a copy of the Tensor (sharing its buffer): no bytes are copied, and the
  // session does not reuse the buffer while the array lives.
  auto* keep = new Tensor(std::move(tensor));
  py::capsule base(keep, [](void* p) { delete static_cast<Tensor*>(p); });
  return py::object(py::array(dtype, shape, data, base));
}

std::string OrtTypeString(const Type& type) {
  switch (type.kind()) {
    case Type::Kind::kTensor:
      return absl::StrCat("tensor(", TypeName(type.element_type()), ")");
    case Type::Kind::kSparseTensor:
      return absl::StrCat("sparse_tensor(", TypeName(type.element_type()), ")");
    case Type::Kind::kSequence:
      return absl::StrCat("seq(", OrtTypeString(type.elem()), ")");
    case Type::Kind::kOptional:
      return absl::StrCat("optional(", OrtTypeString(type.elem()), ")");
    default:
      return "unknown";
  }
}

py::object ShapeToPython(const Type& type) {
  if (!type.is_tensor() || !type.has_shape()) return py::none();
  py::list shape;
  for (const Dim& d : type.shape()) {
    if (d.is_literal()) {
      shape.append(*d.value);
    } else if (d.is_param()) {
      shape.append(d.param);
    } else {
      shape.append(py::none());
    }
  }
  return std::move(shape);
}

}  // namespace anvil::python
