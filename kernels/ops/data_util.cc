// The data-movement family's copy engine and input readers (see data_internal.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "graph/node_errors.h"
#include "kernels/dispatch.h"
#include "kernels/ops/data_internal.h"

namespace anvil::data_ops {
namespace {

// One dim of a copy: its size and the strides (elements) of the destination and the source.
struct CopyDim {
  int64_t n;
  int64_t ds;
  int64_t ss;
};
using CopyDims = absl::InlinedVector<CopyDim, 8>;

// Drops size-1 dims and merges each dim into its outer neighbor when both views step over the
// pair as over one dim: a dense copy becomes one row, a Concat piece [outer, rows] two dims.
CopyDims Coalesce(const TensorView& dst, const TensorView& src) {
  CopyDims dims;
  for (int64_t k = 0; k < src.rank(); ++k) {
    const int64_t n = src.dims[k];
    if (n == 1) continue;
    const CopyDim inner{n, dst.strides[k], src.strides[k]};
    if (!dims.empty()) {
      CopyDim& outer = dims.back();
      if (outer.ds == inner.ds * n && outer.ss == inner.ss * n) {
        outer = {outer.n * n, inner.ds, inner.ss};
        continue;
      }
    }
    dims.push_back(inner);
  }
  return dims;
}

// Calls f(dst_offset, src_offset) for every index of `dims` (last fastest), offsets in
// elements, updated incrementally.
template <typename F>
void ForEachIndex(absl::Span<const CopyDim> dims, F&& f) {
  const size_t rank = dims.size();
  absl::InlinedVector<int64_t, 8> index(rank, 0);
  int64_t d = 0;
  int64_t s = 0;
  for (;;) {
    f(d, s);
    size_t k = rank;
    for (;;) {
      if (k == 0) return;
      --k;
      d += dims[k].ds;
      s += dims[k].ss;
      if (++index[k] < dims[k].n) break;
      d -= dims[k].ds * dims[k].n;
      s -= dims[k].ss * dims[k].n;
      index[k] = 0;
    }
  }
}

// Transpose tiles: `cols` elements along the destination's contiguous dim (at least a 64-byte
// line per destination row), `rows` along the source's, for 8 KB per tile. Long source runs
// with few live source rows measured ~2x faster than 32x32 tiles on power-of-two strides
// (512x512 floats), where 32 live rows alias into two cache sets.
template <typename T>
constexpr int64_t kTileCols = std::max<int64_t>(16, 64 / sizeof(T));
template <typename T>
constexpr int64_t kTileRows = 8192 / (kTileCols<T> * sizeof(T));

// One tile of a transpose: out[i * ds + j] = in[j * ss + i] for i in [i0, i1), j in [j0, j1).
template <typename T>
void TransposeTile(T* out, int64_t ds, const T* in, int64_t ss, int64_t i0, int64_t i1, int64_t j0,
                   int64_t j1) {
  int64_t i = i0;
#if defined(__SSE2__)
  // 4-byte elements (float, int32: the common case) in 4x4 register transposes, ~1.5-2x the
  // scalar loop. The shuffles move bits unchanged, so any 4-byte type may pass as float.
  if constexpr (sizeof(T) == 4) {
    const float* src = reinterpret_cast<const float*>(in);
    float* dst = reinterpret_cast<float*>(out);
    for (; i + 4 <= i1; i += 4) {
      int64_t j = j0;
      for (; j + 4 <= j1; j += 4) {
        __m128 r0 = _mm_loadu_ps(src + (j + 0) * ss + i);
        __m128 r1 = _mm_loadu_ps(src + (j + 1) * ss + i);
        __m128 r2 = _mm_loadu_ps(src + (j + 2) * ss + i);
        __m128 r3 = _mm_loadu_ps(src + (j + 3) * ss + i);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(dst + (i + 0) * ds + j, r0);
        _mm_storeu_ps(dst + (i + 1) * ds + j, r1);
        _mm_storeu_ps(dst + (i + 2) * ds + j, r2);
        _mm_storeu_ps(dst + (i + 3) * ds + j, r3);
      }
      for (; j < j1; ++j) {
        for (int64_t b = 0; b < 4; ++b) out[(i + b) * ds + j] = in[j * ss + i + b];
      }
    }
  }
#endif
  for (; i < i1; ++i) {
    T* o = out + i * ds;
    const T* p = in + i;
    for (int64_t j = j0; j < j1; ++j) o[j] = p[j * ss];
  }
}

// The copies that are not plain rows, on typed elements `T` (of the element size).
template <typename T>
void CopyTyped(T* dst, const T* src, const CopyDims& dims) {
  const CopyDim inner = dims.back();
  const absl::Span<const CopyDim> outer = absl::MakeConstSpan(dims).first(dims.size() - 1);
  if (inner.ss == 0) {  // broadcast along the innermost dim: fill
    ForEachIndex(outer, [&](int64_t d, int64_t s) {
      const T v = src[s];
      T* out = dst + d;
      if (inner.ds == 1) {
        std::fill_n(out, inner.n, v);
      } else {
        for (int64_t i = 0; i < inner.n; ++i) out[i * inner.ds] = v;
      }
    });
    return;
  }
  // A transpose: the destination is contiguous along the innermost dim, the source along
  // another one. Copy 2-D tiles of those two dims so both sides stay in cache.
  if (inner.ds == 1) {
    for (size_t t = 0; t + 1 < dims.size(); ++t) {
      if (dims[t].ss != 1) continue;
      const CopyDim rows = dims[t];
      CopyDims rest;
      for (size_t k = 0; k + 1 < dims.size(); ++k) {
        if (k != t) rest.push_back(dims[k]);
      }
      ForEachIndex(rest, [&](int64_t d, int64_t s) {
        T* out = dst + d;
        const T* in = src + s;
        for (int64_t i0 = 0; i0 < rows.n; i0 += kTileRows<T>) {
          const int64_t i1 = std::min(i0 + kTileRows<T>, rows.n);
          for (int64_t j0 = 0; j0 < inner.n; j0 += kTileCols<T>) {
            const int64_t j1 = std::min(j0 + kTileCols<T>, inner.n);
            TransposeTile(out, rows.ds, in, inner.ss, i0, i1, j0, j1);
          }
        }
      });
      return;
    }
  }
  // Anything else (reversed or stepped slices, ...): a strided innermost loop.
  ForEachIndex(outer, [&](int64_t d, int64_t s) {
    T* out = dst + d;
    const T* in = src + s;
    for (int64_t i = 0; i < inner.n; ++i) out[i * inner.ds] = in[i * inner.ss];
  });
}

// CopyView on coalesced dims (at least one) of elements of `type`.
void CopyCoalesced(char* d, const char* s, const CopyDims& dims, ElementType type, size_t esize) {
  const CopyDim inner = dims.back();
  if (inner.ds == 1 && inner.ss == 1) {  // contiguous rows on both sides
    const size_t row = static_cast<size_t>(inner.n) * esize;
    ForEachIndex(absl::MakeConstSpan(dims).first(dims.size() - 1), [&](int64_t dof, int64_t sof) {
      std::memcpy(d + dof * static_cast<int64_t>(esize), s + sof * static_cast<int64_t>(esize),
                  row);
    });
    return;
  }
  // Element sizes are 1..16 bytes; the status is always OK for those.
  DispatchBySize(type, "copy", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    CopyTyped(reinterpret_cast<T*>(d), reinterpret_cast<const T*>(s), dims);
    return absl::OkStatus();
  }).IgnoreError();
}

}  // namespace

void CopyView(const TensorView& dst, const TensorView& src) {
  const int64_t elements = src.NumElements();
  if (elements == 0) return;
  if (src.type == ElementType::kString) {
    // std::string objects (no byte size): assigned one by one, the two odometers in step.
    const int64_t rank = src.rank();
    Shape index(rank, 0);
    int64_t so = 0, doff = 0;
    for (int64_t i = 0; i < elements; ++i) {
      dst.As<std::string>()[doff] = src.As<const std::string>()[so];
      for (int64_t k = rank - 1; k >= 0; --k) {
        if (++index[k] < src.dims[k]) {
          so += src.strides[k];
          doff += dst.strides[k];
          break;
        }
        so -= src.strides[k] * (src.dims[k] - 1);
        doff -= dst.strides[k] * (dst.dims[k] - 1);
        index[k] = 0;
      }
    }
    return;
  }
  const size_t esize = src.ElementBytes();
  char* d = static_cast<char*>(dst.data);
  const char* s = static_cast<const char*>(src.data);
  const CopyDims dims = Coalesce(dst, src);
  if (dims.empty()) {
    std::memcpy(d, s, esize);
    return;
  }
  if (dims.size() < 2) {
    CopyCoalesced(d, s, dims, src.type, esize);
    return;
  }
  // Large copies (transposes above all) split the outermost dim across threads: disjoint
  // destination ranges, the same bytes.
  const CopyDim outer = dims.front();
  const int64_t per_index = elements / outer.n;
  parallel::For(
      outer.n, parallel::MinChunk(static_cast<double>(per_index), parallel::kMinChunkElements),
      [&](int64_t begin, int64_t end) {
        CopyDims part = dims;
        part.front().n = end - begin;
        CopyCoalesced(d + begin * outer.ds * static_cast<int64_t>(esize),
                      s + begin * outer.ss * static_cast<int64_t>(esize), part, src.type, esize);
      });
}

TensorView Offset(const TensorView& view, int64_t elements) {
  TensorView v = view;
  v.data = static_cast<char*>(view.data) + elements * static_cast<int64_t>(view.ElementBytes());
  return v;
}

void FillBytes(void* dst, const void* value, int64_t count, size_t element_size) {
  if (count <= 0) return;
  char* d = static_cast<char*>(dst);
  // All-zero values (the common padding) are one memset.
  const char* v = static_cast<const char*>(value);
  if (std::all_of(v, v + element_size, [](char c) { return c == 0; })) {
    std::memset(d, 0, static_cast<size_t>(count) * element_size);
    return;
  }
  std::memcpy(d, value, element_size);
  // Doubling copies: log2(count) memcpys.
  int64_t filled = 1;
  while (filled < count) {
    const int64_t n = std::min(filled, count - filled);
    std::memcpy(d + filled * element_size, d, static_cast<size_t>(n) * element_size);
    filled += n;
  }
}

absl::StatusOr<TensorView*> PreallocatedOutput(KernelContext& ctx, int i) {
  if (!ctx.IsOutputAllocated(i)) {
    return absl::InternalError(absl::StrCat(ctx.node().Describe(), ": output ", i,
                                            " was not allocated although its shape is known"));
  }
  return &ctx.output(i);
}

absl::Status CheckMovable(const KernelContext& ctx, ElementType type) {
  if (ElementSize(type) == 0) return UnsupportedType(ctx.node().op_type(), type);
  return absl::OkStatus();
}

absl::Status CopyInputToOutput(KernelContext& ctx) {
  if (!ctx.HasOutput(0)) return absl::OkStatus();
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, PreallocatedOutput(ctx, 0));
  const TensorView& in = ctx.input(0);
  if (in.NumElements() != out->NumElements() || in.type != out->type) {
    return ctx.Error(
        absl::StrCat("input ", in.DebugString(), " does not fit output ", out->DebugString()));
  }
  ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, in.type));
  // A runtime that aliases the output to a contiguous input has nothing left to do.
  if (out->data == in.data && in.Contiguous()) return absl::OkStatus();
  // The output's bytes seen with the input's dims: a dense copy in row-major order.
  CopyView(TensorView::Dense(in.type, out->data, in.dims), in);
  return absl::OkStatus();
}

TensorView DenseInput(const KernelContext& ctx, int i, Tensor* scratch) {
  const TensorView& in = ctx.input(i);
  if (in.Contiguous()) return in;
  *scratch = Tensor(in.type, in.dims);
  CopyView(scratch->view(), in);
  return scratch->view();
}

namespace {}  // namespace

absl::StatusOr<TensorView> MovableDenseInput(const KernelContext& ctx, int i, Tensor* scratch) {
  ANVIL_RETURN_IF_ERROR(CheckMovable(ctx, ctx.input(i).type));
  return DenseInput(ctx, i, scratch);
}

absl::StatusOr<int64_t> NormalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank) {
  return ::anvil::NormalizeAxis(ctx.node(), axis, rank);
}

absl::Status NormalizeIndex(const KernelContext& ctx, int64_t* index, int64_t n,
                            std::string_view what) {
  if (*index < -n || *index >= n) {
    return ctx.Error(
        absl::StrCat(AsAbsl(what), " ", *index, " is out of range [", -n, ", ", n, ")"));
  }
  if (*index < 0) *index += n;
  return absl::OkStatus();
}

int64_t Product(absl::Span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end && k < dims.size(); ++k) p *= dims[k];
  return p;
}

absl::Status ConvertScalar(double value, ElementType type, std::string_view op, void* out) {
  return DispatchNumeric(type, op, [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T v = ConvertElement<T>(value);
    std::memcpy(out, &v, sizeof(T));
    return absl::OkStatus();
  });
}

}  // namespace anvil::data_ops
