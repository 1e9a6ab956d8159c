// Kernels that create tensors or read shapes: Shape, Size, Range, ConstantOfShape, Constant,
// EyeLike, and Trilu (a masked copy).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/dispatch.h"
#include "kernels/ops/data_internal.h"

namespace anvil::data_ops {
namespace {

// ---- Shape, Size ----

class ShapeKernel final : public OpKernel {
 public:
  ShapeKernel(int64_t start, std::optional<int64_t> end) : start_(start), end_(end) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    const TensorView& in = ctx.input(0);
    const int64_t rank = in.rank();
    // As InferShape: negative bounds count from the back, both clamp into [0, rank].
    auto clamp = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
    const int64_t start = clamp(start_);
    const int64_t end = std::max(start, clamp(end_.value_or(rank)));
    if (out->NumElements() != end - start) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " for dims [", start, ", ", end,
                                    ") of ", in.DebugString()));
    }
    std::copy(in.dims.begin() + start, in.dims.begin() + end, out->As<int64_t>());
    return absl::OkStatus();
  }

 private:
  int64_t start_;
  std::optional<int64_t> end_;
};

absl::Status SizeCompute(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
  *out->As<int64_t>() = ctx.input(0).NumElements();
  return absl::OkStatus();
}

// ---- Range ----

absl::Status RangeCompute(KernelContext& ctx) {
  const ElementType type = ctx.input(0).type;
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i).NumElements() != 1 || ctx.input(i).type != type) {
      return ctx.Error("start, limit and delta must be scalars of one type");
    }
  }
  if (type == ElementType::kBool) return UnsupportedType("Range", type);
  return DispatchNumeric(type, "Range", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T start = *ctx.input(0).As<T>();
    const T limit = *ctx.input(1).As<T>();
    const T delta = *ctx.input(2).As<T>();
    TensorView* out = nullptr;
    if (ctx.IsOutputAllocated(0)) {
      out = &ctx.output(0);
    } else {
      // Bounds the ShapeHelper could not read: count as it would (InferRange).
      int64_t count;
      if constexpr (kIsFloatLike<T>) {
        const double d = ConvertElement<double>(delta);
        if (d == 0) return ctx.Error("delta is 0");
        const double diff =
            std::is_same_v<T, double>
                ? ConvertElement<double>(limit) - ConvertElement<double>(start)
                : static_cast<double>(ConvertElement<float>(limit) - ConvertElement<float>(start));
        const double n = std::ceil(diff / d);
        if (!std::isfinite(n)) return ctx.Error("the number of elements is not finite");
        count = std::max<int64_t>(static_cast<int64_t>(n), 0);
      } else {
        const int64_t d = static_cast<int64_t>(delta);
        if (d == 0) return ctx.Error("delta is 0");
        const int64_t diff = static_cast<int64_t>(limit) - static_cast<int64_t>(start);
        // ceil(diff / d) with a positive divisor.
        const int64_t num = d > 0 ? diff : -diff;
        const int64_t den = d > 0 ? d : -d;
        count = std::max<int64_t>(num > 0 ? (num + den - 1) / den : -((-num) / den), 0);
      }
      ANVIL_ASSIGN_OR_RETURN(out, ctx.AllocateOutput(0, {count}));
    }
    T* dst = out->As<T>();
    const int64_t n = out->NumElements();
    if constexpr (kIsFloatLike<T>) {
      // start + i * delta, as numpy.arange computes it (no accumulated rounding).
      const double s = ConvertElement<double>(start);
      const double d = ConvertElement<double>(delta);
      for (int64_t i = 0; i < n; ++i) dst[i] = ConvertElement<T>(s + static_cast<double>(i) * d);
    } else {
      // In int64: `i` may exceed T's range while start + i * delta does not.
      const int64_t s = static_cast<int64_t>(start), d = static_cast<int64_t>(delta);
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(s + i * d);
    }
    return absl::OkStatus();
  });
}

// ---- ConstantOfShape ----

class ConstantOfShapeKernel final : public OpKernel {
 public:
  ConstantOfShapeKernel(ElementType type, const char* value) : type_(type) {
    std::memcpy(value_, value, sizeof(value_));
  }

  absl::Status Compute(KernelContext& ctx) override {
    TensorView* out = nullptr;
    if (ctx.IsOutputAllocated(0)) {
      out = &ctx.output(0);
    } else {
      ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadInt64s(ctx, 0));
      for (int64_t d : dims) {
        if (d < 0) return ctx.Error(absl::StrCat("negative dim ", d, " in the shape input"));
      }
      ANVIL_ASSIGN_OR_RETURN(out, ctx.AllocateOutput(0, dims));
    }
    if (out->type != type_) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " is not of the value's type"));
    }
    FillBytes(out->data, value_, out->NumElements(), ElementSize(type_));
    return absl::OkStatus();
  }

 private:
  ElementType type_;
  alignas(16) char value_[16] = {};
};

// ---- Constant ----

class ConstantKernel final : public OpKernel {
 public:
  explicit ConstantKernel(Tensor value) : value_(std::move(value)) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    if (out->type != value_.type() || out->dims != value_.dims()) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " does not fit the value ",
                                    value_.view().DebugString()));
    }
    if (value_.type() == ElementType::kString) {
      std::copy_n(value_.As<std::string>(), value_.NumElements(), out->As<std::string>());
    } else if (value_.ByteSize() > 0) {
      std::memcpy(out->data, value_.data(), value_.ByteSize());
    }
    return absl::OkStatus();
  }

 private:
  Tensor value_;
};

// ---- EyeLike ----

class EyeLikeKernel final : public OpKernel {
 public:
  explicit EyeLikeKernel(int64_t k) : k_(k) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    if (out->rank() != 2) {
      return ctx.Error(absl::StrCat("output must be 2-D, is ", out->DebugString()));
    }
    const size_t esize = out->ElementBytes();
    alignas(16) char one[16] = {};
    ANVIL_RETURN_IF_ERROR(ConvertScalar(1.0, out->type, "EyeLike", one));
    const int64_t rows = out->dims[0], cols = out->dims[1];
    char* dst = static_cast<char*>(out->data);
    std::memset(dst, 0, static_cast<size_t>(rows * cols) * esize);
    // k is any int64 (the fuzzer found k = INT64_MIN): a diagonal wholly outside the matrix
    // leaves it zero, and the bounds below are formed only once |k| is known to fit.
    if (k_ >= cols || k_ <= -rows) return absl::OkStatus();
    const int64_t first_row = k_ < 0 ? -k_ : 0;
    const int64_t end_row = std::min(rows, cols - k_);
    for (int64_t i = first_row; i < end_row; ++i) {
      std::memcpy(dst + (i * cols + i + k_) * static_cast<int64_t>(esize), one, esize);
    }
    return absl::OkStatus();
  }

 private:
  int64_t k_;
};

// ---- Trilu ----

class TriluKernel final : public OpKernel {
 public:
  explicit TriluKernel(bool upper) : upper_(upper) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView in, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
    if (in.rank() < 2 || out->dims != in.dims) {
      return ctx.Error(absl::StrCat("input must have rank >= 2, is ", in.DebugString()));
    }
    int64_t k = 0;
    if (ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ReadInt64s(ctx, 1));
      if (kv.size() != 1) return ctx.Error("k must hold one element");
      k = kv[0];
    }
    const int64_t rows = in.dims[in.rank() - 2], cols = in.dims[in.rank() - 1];
    // Any k beyond the matrix selects all or nothing; clamping keeps i + k from overflowing.
    k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
    const int64_t matrices = rows * cols == 0 ? 0 : in.NumElements() / (rows * cols);
    const size_t esize = in.ElementBytes();
    const char* src = static_cast<const char*>(in.data);
    char* dst = static_cast<char*>(out->data);
    // Each row keeps one contiguous run: columns j >= i + k (upper) or j <= i + k (lower).
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i, src += cols * esize, dst += cols * esize) {
        const int64_t bound = std::clamp<int64_t>(upper_ ? i + k : i + k + 1, 0, cols);
        const int64_t begin = upper_ ? bound : 0;
        const int64_t end = upper_ ? cols : bound;
        std::memset(dst, 0, begin * esize);
        std::memcpy(dst + begin * esize, src + begin * esize, (end - begin) * esize);
        std::memset(dst + end * esize, 0, (cols - end) * esize);
      }
    }
    return absl::OkStatus();
  }

 private:
  bool upper_;
};

absl::Status InvalidAttr(const Node& node, std::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": ", AsAbsl(what)));
}

}  // namespace

// ---- Factories ----

absl::StatusOr<std::unique_ptr<OpKernel>> MakeShape(const Node& node, int64_t opset) {
  int64_t start = 0;
  std::optional<int64_t> end;
  if (opset >= 15) {
    start = node.GetInt("start", 0);
    if (const Attribute* a = node.FindAttribute("end")) end = a->i;
  }
  return std::unique_ptr<OpKernel>(new ShapeKernel(start, end));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeSize(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&SizeCompute));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeRange(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&RangeCompute));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeConstantOfShape(const Node& node, int64_t) {
  ElementType type = ElementType::kFloat;
  alignas(16) char value[16] = {};
  if (const Attribute* a = node.FindAttribute("value")) {
    if (a->tensors.empty() || a->tensors[0].elements == nullptr) {
      return InvalidAttr(node, "attribute value holds no tensor");
    }
    const Elements& e = *a->tensors[0].elements;
    if (e.NumElements() != 1) {
      return InvalidAttr(node, absl::StrCat("value must hold one element, has ", e.NumElements()));
    }
    type = e.element_type();
    if (ElementSize(type) == 0 || ElementSize(type) > sizeof(value)) {
      return UnsupportedType("ConstantOfShape", type);
    }
    e.CopyTo(reinterpret_cast<uint8_t*>(value));
  }
  return std::unique_ptr<OpKernel>(new ConstantOfShapeKernel(type, value));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeConstant(const Node& node, int64_t) {
  Tensor value;
  if (const Attribute* a = node.FindAttribute("value")) {
    if (a->tensors.empty() || a->tensors[0].elements == nullptr) {
      return InvalidAttr(node, "attribute value holds no tensor");
    }
    const Elements& e = *a->tensors[0].elements;
    if (ElementSize(e.element_type()) == 0 && e.element_type() != ElementType::kString) {
      return UnsupportedType("Constant", e.element_type());
    }
    value = Tensor::FromElements(e);
  } else if (const Attribute* a = node.FindAttribute("value_float")) {
    value = Tensor(ElementType::kFloat, {});
    *value.As<float>() = a->f;
  } else if (const Attribute* a = node.FindAttribute("value_floats")) {
    value = Tensor(ElementType::kFloat, {static_cast<int64_t>(a->floats.size())});
    std::copy(a->floats.begin(), a->floats.end(), value.As<float>());
  } else if (const Attribute* a = node.FindAttribute("value_int")) {
    value = Tensor(ElementType::kInt64, {});
    *value.As<int64_t>() = a->i;
  } else if (const Attribute* a = node.FindAttribute("value_ints")) {
    value = Tensor(ElementType::kInt64, {static_cast<int64_t>(a->ints.size())});
    std::copy(a->ints.begin(), a->ints.end(), value.As<int64_t>());
  } else if (const Attribute* a = node.FindAttribute("value_string")) {
    value = Tensor(ElementType::kString, {});
    *value.As<std::string>() = a->s;
  } else if (const Attribute* a = node.FindAttribute("value_strings")) {
    value = Tensor(ElementType::kString, {static_cast<int64_t>(a->strings.size())});
    std::copy(a->strings.begin(), a->strings.end(), value.As<std::string>());
  } else if (node.FindAttribute("sparse_value") != nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": Constant with sparse_value is not implemented"));
  } else {
    return InvalidAttr(node, "no value attribute (value, value_float(s), value_int(s))");
  }
  return std::unique_ptr<OpKernel>(new ConstantKernel(std::move(value)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeEyeLike(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new EyeLikeKernel(node.GetInt("k", 0)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeTrilu(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new TriluKernel(node.GetInt("upper", 1) != 0));
}

}  // namespace anvil::data_ops
