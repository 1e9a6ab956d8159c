// Index kernels: Gather, GatherElements, GatherND, Scatter/ScatterElements, ScatterND, Compress,
// OneHot, NonZero. Indices are read once as int64 (negative ones counting from the back where
// the spec allows; anything out of range is an error naming the node and the value); data moves
// by element size, whole inner blocks with memcpy.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/dispatch.h"
#include "kernels/ops/data_internal.h"

namespace anvil::data_ops {
namespace {

// The normalized axis `axis` of data of rank `rank` and the indices (input 1) along it, as read
// by Gather, GatherElements and ScatterElements.
struct AxisIndices {
  int64_t axis = 0;
  std::vector<int64_t> indices;
};

absl::StatusOr<AxisIndices> ReadAxisIndices(const KernelContext& ctx, int64_t axis, int64_t rank) {
  AxisIndices a;
  ANVIL_ASSIGN_OR_RETURN(a.axis, NormalizeAxis(ctx, axis, rank));
  ANVIL_ASSIGN_OR_RETURN(a.indices, ReadInt64s(ctx, 1));
  return a;
}

// ---- Gather ----

class GatherKernel final : public OpKernel {
 public:
  explicit GatherKernel(int64_t axis) : axis_(axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView data, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    ANVIL_ASSIGN_OR_RETURN(AxisIndices a, ReadAxisIndices(ctx, axis_, data.rank()));
    const int64_t n = data.dims[a.axis];
    for (int64_t& i : a.indices) {
      ANVIL_RETURN_IF_ERROR(NormalizeIndex(ctx, &i, n, "index"));
    }
    const int64_t outer = Product(data.dims, 0, a.axis);
    const int64_t inner = Product(data.dims, a.axis + 1, data.dims.size());
    const int64_t count = static_cast<int64_t>(a.indices.size());
    if (out->NumElements() != outer * count * inner) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " does not hold ", count,
                                    " gathered slices of ", data.DebugString()));
    }
    if (outer * count * inner == 0) return absl::OkStatus();
    const size_t esize = data.ElementBytes();
    if (inner == 1) {  // single elements: a typed loop beats a memcpy call per element
      return DispatchBySize(data.type, "Gather", [&](auto tag) -> absl::Status {
        using T = decltype(tag);
        const T* src = data.As<T>();
        T* dst = out->As<T>();
        for (int64_t o = 0; o < outer; ++o, src += n) {
          for (int64_t i : a.indices) *dst++ = src[i];
        }
        return absl::OkStatus();
      });
    }
    const size_t block = static_cast<size_t>(inner) * esize;
    const char* src = static_cast<const char*>(data.data);
    char* dst = static_cast<char*>(out->data);
    for (int64_t o = 0; o < outer; ++o, src += n * block) {
      for (int64_t i : a.indices) {
        std::memcpy(dst, src + i * block, block);
        dst += block;
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

// ---- GatherElements, ScatterElements ----

// Calls f(position, offset) for every element of a tensor of `dims` (row-major position), with
// `offset` the element offset in a tensor of `data_dims` and `strides` where the coordinate along
// `axis` is replaced by the normalized index values[position]. Every other dim of `dims` must be
// at most that of `data_dims` (else the offsets would leave the data). Returns the first
// out-of-range error.
template <typename F>
absl::Status ForEachAxisIndex(const KernelContext& ctx, absl::Span<const int64_t> dims,
                              absl::Span<const int64_t> data_dims,
                              absl::Span<const int64_t> strides, int64_t axis,
                              const std::vector<int64_t>& values, F&& f) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  for (int64_t k = 0; k < rank; ++k) {
    if (k != axis && dims[k] > data_dims[k]) {
      return ctx.Error(absl::StrCat("indices dim ", k, " is ", dims[k], ", more than the data's ",
                                    data_dims[k], " (only the axis ", axis, " may differ)"));
    }
  }
  const int64_t n = data_dims[axis];
  const int64_t total = Product(dims, 0, dims.size());
  if (total == 0) return absl::OkStatus();
  const int64_t width = dims[rank - 1];
  std::vector<int64_t> index(rank, 0);
  for (int64_t pos = 0; pos < total; pos += width) {
    int64_t base = 0;  // offset of the row, without the axis coordinate
    for (int64_t k = 0; k + 1 < rank; ++k) {
      if (k != axis) base += index[k] * strides[k];
    }
    const int64_t step = axis == rank - 1 ? 0 : strides[rank - 1];
    for (int64_t j = 0; j < width; ++j) {
      int64_t i = values[pos + j];
      if (i < -n || i >= n) {
        return ctx.Error(
            absl::StrCat("index ", i, " is out of range [", -n, ", ", n, ") for axis ", axis));
      }
      if (i < 0) i += n;
      f(pos + j, base + j * step + i * strides[axis]);
    }
    for (int64_t k = rank - 2; k >= 0; --k) {
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return absl::OkStatus();
}

class GatherElementsKernel final : public OpKernel {
 public:
  explicit GatherElementsKernel(int64_t axis) : axis_(axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView data, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    const TensorView& idx = ctx.input(1);
    if (data.rank() == 0 || idx.rank() != data.rank() || out->dims != idx.dims) {
      return ctx.Error(
          absl::StrCat("indices ", idx.DebugString(), " do not index data ", data.DebugString()));
    }
    ANVIL_ASSIGN_OR_RETURN(const AxisIndices a, ReadAxisIndices(ctx, axis_, data.rank()));
    return DispatchBySize(data.type, "GatherElements", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      const T* src = data.As<T>();
      T* dst = out->As<T>();
      return ForEachAxisIndex(ctx, idx.dims, data.dims, data.strides, a.axis, a.indices,
                              [&](int64_t pos, int64_t offset) { dst[pos] = src[offset]; });
    });
  }

 private:
  int64_t axis_;
};

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

absl::StatusOr<Reduction> ParseReduction(const Node& node, int64_t opset) {
  const std::string name = opset >= 16 ? node.GetString("reduction", "none") : "none";
  if (name == "none") return Reduction::kNone;
  if (name == "add") return Reduction::kAdd;
  if (name == "mul") return Reduction::kMul;
  if (name == "max") return Reduction::kMax;  // max and min: opset 18
  if (name == "min") return Reduction::kMin;
  return absl::InvalidArgumentError(
      absl::StrCat(node.Describe(), ": unknown reduction '", name, "' (none, add, mul, max, min)"));
}

template <typename T>
T Reduce(Reduction r, T a, T b) {
  if constexpr (kIsHalfLike<T>) {
    return T(Reduce(r, static_cast<float>(a), static_cast<float>(b)));
  } else if constexpr (std::is_same_v<T, bool>) {
    return r == Reduction::kAdd || r == Reduction::kMax ? (a || b) : (a && b);
  } else {
    switch (r) {
      case Reduction::kAdd:
        return static_cast<T>(a + b);
      case Reduction::kMul:
        return static_cast<T>(a * b);
      case Reduction::kMax:
        return std::max(a, b);
      case Reduction::kMin:
        return std::min(a, b);
      case Reduction::kNone:
        return b;
    }
    return b;
  }
}

// Runs `body(tag)` with the storage type: by size for plain stores, by numeric type when a
// reduction does arithmetic.
template <typename F>
absl::Status DispatchScatter(Reduction r, ElementType type, std::string_view op, F&& body) {
  if (r == Reduction::kNone) return DispatchBySize(type, op, body);
  return DispatchNumeric(type, op, body);
}

class ScatterElementsKernel final : public OpKernel {
 public:
  ScatterElementsKernel(int64_t axis, Reduction reduction) : axis_(axis), reduction_(reduction) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& data = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, data.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    Tensor scratch;
    const TensorView updates = DenseInput(ctx, 2, &scratch);
    const TensorView& idx = ctx.input(1);
    if (data.rank() == 0 || idx.rank() != data.rank() || updates.dims != idx.dims ||
        updates.type != data.type) {
      return ctx.Error(absl::StrCat("indices ", idx.DebugString(), " and updates ",
                                    updates.DebugString(), " do not fit data ",
                                    data.DebugString()));
    }
    ANVIL_ASSIGN_OR_RETURN(const AxisIndices a, ReadAxisIndices(ctx, axis_, data.rank()));
    CopyView(*out, data);
    const Reduction r = reduction_;
    return DispatchScatter(r, data.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      const T* src = updates.As<T>();
      T* dst = out->As<T>();
      return ForEachAxisIndex(
          ctx, idx.dims, data.dims, out->strides, a.axis, a.indices,
          [&](int64_t pos, int64_t offset) {
            if constexpr (std::is_arithmetic_v<T> || kIsHalfLike<T>) {
              dst[offset] = r == Reduction::kNone ? src[pos] : Reduce(r, dst[offset], src[pos]);
            } else {
              dst[offset] = src[pos];
            }
          });
    });
  }

 private:
  int64_t axis_;
  Reduction reduction_;
};

// ---- GatherND, ScatterND ----

// The offsets GatherND / ScatterND address: `indices` [..., k] holds tuples into the dims
// [batch_dims, batch_dims + k) of `dims`; returns one element offset (into a dense tensor of
// `dims`) per tuple, batch offsets included.
absl::StatusOr<std::vector<int64_t>> TupleOffsets(const KernelContext& ctx,
                                                  absl::Span<const int64_t> dims,
                                                  absl::Span<const int64_t> index_dims,
                                                  const std::vector<int64_t>& indices,
                                                  int64_t batch_dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t q = static_cast<int64_t>(index_dims.size());
  if (q < 1) return ctx.Error("indices must have rank >= 1");
  const int64_t k = index_dims[q - 1];
  if (batch_dims < 0 || batch_dims >= std::min(rank, q) || batch_dims + k > rank) {
    return ctx.Error(absl::StrCat("indices [", absl::StrJoin(index_dims, ","), "] with batch_dims ",
                                  batch_dims, " do not index data [", absl::StrJoin(dims, ","),
                                  "]"));
  }
  for (int64_t b = 0; b < batch_dims; ++b) {
    if (dims[b] != index_dims[b]) {
      return ctx.Error(absl::StrCat("batch dim ", b, " of indices [",
                                    absl::StrJoin(index_dims, ","), "] differs from data [",
                                    absl::StrJoin(dims, ","), "]"));
    }
  }
  const Shape strides = DenseStrides(dims);
  const int64_t batches = Product(dims, 0, batch_dims);
  const int64_t per_batch = Product(index_dims, batch_dims, q - 1);
  const int64_t batch_stride = batch_dims > 0 ? strides[batch_dims - 1] : 0;
  std::vector<int64_t> offsets;
  offsets.reserve(batches * per_batch);
  const int64_t* tuple = indices.data();
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t t = 0; t < per_batch; ++t, tuple += k) {
      int64_t offset = b * batch_stride;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t n = dims[batch_dims + j];
        int64_t i = tuple[j];
        if (i < -n || i >= n) {
          return ctx.Error(absl::StrCat("index ", i, " is out of range [", -n, ", ", n,
                                        ") for data dim ", batch_dims + j));
        }
        if (i < 0) i += n;
        offset += i * strides[batch_dims + j];
      }
      offsets.push_back(offset);
    }
  }
  return offsets;
}

class GatherNDKernel final : public OpKernel {
 public:
  explicit GatherNDKernel(int64_t batch_dims) : batch_dims_(batch_dims) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView data, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices, ReadInt64s(ctx, 1));
    const TensorView& idx = ctx.input(1);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> offsets,
                           TupleOffsets(ctx, data.dims, idx.dims, indices, batch_dims_));
    const int64_t slice = Product(data.dims, batch_dims_ + idx.dims.back(), data.dims.size());
    if (out->NumElements() != static_cast<int64_t>(offsets.size()) * slice) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " does not hold ",
                                    offsets.size(), " slices of ", slice, " elements"));
    }
    const size_t esize = data.ElementBytes();
    const char* src = static_cast<const char*>(data.data);
    char* dst = static_cast<char*>(out->data);
    const size_t block = static_cast<size_t>(slice) * esize;
    for (int64_t offset : offsets) {
      std::memcpy(dst, src + offset * static_cast<int64_t>(esize), block);
      dst += block;
    }
    return absl::OkStatus();
  }

 private:
  int64_t batch_dims_;
};

class ScatterNDKernel final : public OpKernel {
 public:
  explicit ScatterNDKernel(Reduction reduction) : reduction_(reduction) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& data = ctx.input(0);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, data.type));
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    Tensor scratch;
    const TensorView updates = DenseInput(ctx, 2, &scratch);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices, ReadInt64s(ctx, 1));
    const TensorView& idx = ctx.input(1);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> offsets,
                           TupleOffsets(ctx, data.dims, idx.dims, indices, 0));
    const int64_t slice = Product(data.dims, idx.dims.back(), data.dims.size());
    if (updates.type != data.type ||
        updates.NumElements() != static_cast<int64_t>(offsets.size()) * slice) {
      return ctx.Error(absl::StrCat("updates ", updates.DebugString(), " do not hold ",
                                    offsets.size(), " slices of ", slice, " elements"));
    }
    CopyView(*out, data);
    const Reduction r = reduction_;
    return DispatchScatter(r, data.type, "ScatterND", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      const T* src = updates.As<T>();
      T* dst = out->As<T>();
      for (int64_t offset : offsets) {
        T* d = dst + offset;
        if constexpr (std::is_arithmetic_v<T> || kIsHalfLike<T>) {
          if (r != Reduction::kNone) {
            for (int64_t j = 0; j < slice; ++j) d[j] = Reduce(r, d[j], src[j]);
            src += slice;
            continue;
          }
        }
        std::memcpy(d, src, static_cast<size_t>(slice) * sizeof(T));
        src += slice;
      }
      return absl::OkStatus();
    });
  }

 private:
  Reduction reduction_;
};

// ---- Compress ----

class CompressKernel final : public OpKernel {
 public:
  CompressKernel(bool has_axis, int64_t axis) : has_axis_(has_axis), axis_(axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    Tensor scratch;
    ANVIL_ASSIGN_OR_RETURN(const TensorView data, MovableDenseInput(ctx, 0, &scratch));
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> condition, ReadInt64s(ctx, 1));
    // Without an axis the input is taken flattened: [1, N, 1].
    int64_t axis = 0;
    int64_t outer = 1, n = data.NumElements(), inner = 1;
    if (has_axis_) {
      ANVIL_ASSIGN_OR_RETURN(axis, NormalizeAxis(ctx, axis_, data.rank()));
      outer = Product(data.dims, 0, axis);
      n = data.dims[axis];
      inner = Product(data.dims, axis + 1, data.dims.size());
    }
    // A condition shorter than the axis selects nothing past its end.
    std::vector<int64_t> selected;
    for (size_t k = 0; k < condition.size(); ++k) {
      if (condition[k] == 0) continue;
      if (static_cast<int64_t>(k) >= n) {
        return ctx.Error(absl::StrCat("condition selects index ", k, " beyond dim ", n));
      }
      selected.push_back(static_cast<int64_t>(k));
    }
    const int64_t count = static_cast<int64_t>(selected.size());
    Shape dims{count};
    if (has_axis_) {
      dims = data.dims;
      dims[axis] = count;
    }
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, ctx.AllocateOutput(0, dims));
    const size_t block = static_cast<size_t>(inner) * data.ElementBytes();
    const char* src = static_cast<const char*>(data.data);
    char* dst = static_cast<char*>(out->data);
    for (int64_t o = 0; o < outer; ++o, src += n * block) {
      for (int64_t k : selected) {
        std::memcpy(dst, src + k * block, block);
        dst += block;
      }
    }
    return absl::OkStatus();
  }

 private:
  bool has_axis_;
  int64_t axis_;
};

// ---- OneHot ----

class OneHotKernel final : public OpKernel {
 public:
  explicit OneHotKernel(int64_t axis) : axis_(axis) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    const TensorView& values = ctx.input(2);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, values.type));
    if (values.NumElements() != 2) {
      return ctx.Error(
          absl::StrCat("values must hold [off_value, on_value], is ", values.DebugString()));
    }
    ANVIL_ASSIGN_OR_RETURN(const std::vector<double> depth_values, ReadDoubles(ctx, 1));
    if (depth_values.size() != 1) return ctx.Error("depth must hold one element");
    const int64_t depth = static_cast<int64_t>(depth_values[0]);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> indices, ReadInt64s(ctx, 0));
    const TensorView& idx = ctx.input(0);
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, axis_, idx.rank() + 1));
    if (out->rank() != idx.rank() + 1 || out->dims[axis] != depth) {
      return ctx.Error(absl::StrCat("output ", out->DebugString(), " for depth ", depth,
                                    " and indices ", idx.DebugString()));
    }
    const size_t esize = values.ElementBytes();
    alignas(16) char off[16], on[16];
    Tensor scratch;
    const TensorView v = DenseInput(ctx, 2, &scratch);
    std::memcpy(off, v.data, esize);
    std::memcpy(on, static_cast<const char*>(v.data) + esize, esize);
    const int64_t inner = Product(idx.dims, axis, idx.dims.size());
    const int64_t outer = Product(idx.dims, 0, axis);
    char* dst = static_cast<char*>(out->data);
    FillBytes(dst, off, out->NumElements(), esize);
    // Indices outside [-depth, depth) leave their whole row off.
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        int64_t k = indices[o * inner + i];
        if (k < 0) k += depth;
        if (k < 0 || k >= depth) continue;
        std::memcpy(dst + ((o * depth + k) * inner + i) * esize, on, esize);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
};

// ---- NonZero ----

template <typename T>
bool IsNonZero(T v) {
  if constexpr (kIsHalfLike<T>) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != T(0);
  }
}

absl::Status NonZeroCompute(KernelContext& ctx) {
  Tensor scratch;
  const TensorView in = DenseInput(ctx, 0, &scratch);
  return DispatchNumeric(in.type, "NonZero", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* p = in.As<T>();
    const int64_t total = in.NumElements();
    int64_t count = 0;
    for (int64_t i = 0; i < total; ++i) count += IsNonZero(p[i]) ? 1 : 0;
    const int64_t rank = in.rank();
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, ctx.AllocateOutput(0, {rank, count}));
    int64_t* dst = out->As<int64_t>();
    if (rank == 0 || count == 0) return absl::OkStatus();
    // Row k of the output holds coordinate k of every nonzero, in row-major order.
    std::vector<int64_t> index(rank, 0);
    int64_t c = 0;
    for (int64_t i = 0; i < total; ++i) {
      if (IsNonZero(p[i])) {
        for (int64_t k = 0; k < rank; ++k) dst[k * count + c] = index[k];
        ++c;
      }
      for (int64_t k = rank - 1; k >= 0; --k) {
        if (++index[k] < in.dims[k]) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  });
}

// ---- TensorScatter ----

// TensorScatter (opset 24), a key/value cache's write: present = past_cache with update's rows
// written along `axis` (not the batch dim 0) at positions w + s of batch b, w = write_indices[b]
// (0 without them); with mode "circular" at (w + s) mod the cache's length, else w + s must stay
// within it.
class TensorScatterKernel final : public OpKernel {
 public:
  TensorScatterKernel(int64_t axis, bool circular) : axis_(axis), circular_(circular) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& past = ctx.input(0);
    const TensorView& update = ctx.input(1);
    ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, past.type));
    const int64_t rank = past.rank();
    ANVIL_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(ctx, axis_, rank));
    bool fits = axis > 0 && update.rank() == rank && update.type == past.type;
    for (int64_t k = 0; fits && k < rank; ++k) fits = k == axis || update.dims[k] == past.dims[k];
    if (!fits) {
      return ctx.Error(absl::StrCat("update ", update.DebugString(), " does not fit past_cache ",
                                    past.DebugString(), " along axis ", axis_,
                                    " (which may not be the batch dim 0)"));
    }
    const int64_t batch = past.dims[0], length = past.dims[axis], seq = update.dims[axis];
    std::vector<int64_t> writes(static_cast<size_t>(batch), 0);
    if (ctx.HasInput(2)) {
      ANVIL_ASSIGN_OR_RETURN(writes, ReadInt64s(ctx, 2));
      if (static_cast<int64_t>(writes.size()) != batch) {
        return ctx.Error(absl::StrCat("write_indices ", ctx.input(2).DebugString(), " must hold ",
                                      batch, " values, one per batch"));
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t w = writes[b];
      if (w < 0 || (circular_ ? (seq > 0 && length == 0) : w + seq > length)) {
        return ctx.Error(absl::StrCat("write index ", w, " of batch ", b, " with ", seq,
                                      " new rows does not fit the cache's ", length));
      }
    }
    ANVIL_ASSIGN_OR_RETURN(TensorView* const out, PreallocatedOutput(ctx, 0));
    if (out->data != past.data) CopyView(*out, past);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t s = 0; s < seq; ++s) {
        const int64_t at = circular_ ? (writes[b] + s) % length : writes[b] + s;
        TensorView dst = Offset(*out, b * out->strides[0] + at * out->strides[axis]);
        TensorView src = Offset(update, b * update.strides[0] + s * update.strides[axis]);
        dst.dims[0] = src.dims[0] = 1;
        dst.dims[axis] = src.dims[axis] = 1;
        CopyView(dst, src);
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t axis_;
  bool circular_;
};

}  // namespace

// ---- Factories ----

absl::StatusOr<std::unique_ptr<OpKernel>> MakeGather(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new GatherKernel(node.GetInt("axis", 0)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeGatherElements(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new GatherElementsKernel(node.GetInt("axis", 0)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeGatherND(const Node& node, int64_t opset) {
  const int64_t batch_dims = opset >= 12 ? node.GetInt("batch_dims", 0) : 0;
  if (batch_dims < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": batch_dims ", batch_dims, " is negative"));
  }
  return std::unique_ptr<OpKernel>(new GatherNDKernel(batch_dims));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeScatterElements(const Node& node, int64_t opset) {
  ANVIL_ASSIGN_OR_RETURN(const Reduction r, ParseReduction(node, opset));
  return std::unique_ptr<OpKernel>(new ScatterElementsKernel(node.GetInt("axis", 0), r));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeScatterND(const Node& node, int64_t opset) {
  ANVIL_ASSIGN_OR_RETURN(const Reduction r, ParseReduction(node, opset));
  return std::unique_ptr<OpKernel>(new ScatterNDKernel(r));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeTensorScatter(const Node& node, int64_t) {
  const std::string mode = node.GetString("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": mode '", mode, "' is not linear or circular"));
  }
  return std::unique_ptr<OpKernel>(
      new TensorScatterKernel(node.GetInt("axis", -2), mode == "circular"));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeCompress(const Node& node, int64_t) {
  const Attribute* axis = node.FindAttribute("axis");
  return std::unique_ptr<OpKernel>(new CompressKernel(axis != nullptr, axis ? axis->i : 0));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeOneHot(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new OneHotKernel(node.GetInt("axis", -1)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeNonZero(const Node&, int64_t) {
  return std::unique_ptr<OpKernel>(new FunctionKernel(&NonZeroCompute));
}

}  // namespace anvil::data_ops
