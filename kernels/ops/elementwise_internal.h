// Shared machinery of the element-wise kernel family (ops/elementwise*.cc). Private to kernels.
//
// Broadcasting never copies: every input is a TensorView broadcast to the output's dims (stride
// 0 on stretched axes). A loop over the output then runs in rows: PlanLoop drops 1-dims and
// merges axes along which every operand is linear (a contiguous tensor becomes one row; [N,C] +
// [C] stays two axes, the inner one contiguous for both), and ForEachRow walks the outer axes
// with an odometer, calling a row function with each operand's first element and its stride
// along the innermost axis. Row functions special-case strides 1 and 0, which is where float32
// goes to the Highway routines of simd/elementwise.h (contiguous rows, rows against a broadcast
// scalar) and where other types get loops the compiler vectorizes.
//
// Element types: kernels are templates over storage types (dispatch.h); float16 and bfloat16
// compute in float (Widen / Narrow). Integer arithmetic wraps (two's complement) rather than
// being undefined on overflow.
#ifndef ANVIL_KERNELS_OPS_ELEMENTWISE_INTERNAL_H_
#define ANVIL_KERNELS_OPS_ELEMENTWISE_INTERNAL_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/float16.h"
#include "base/parallel.h"
#include "graph/ir.h"
#include "kernels/dispatch.h"
#include "kernels/op_kernel.h"
#include "kernels/simd/elementwise.h"
#include "kernels/simd/float16_convert.h"
#include "kernels/tensor_view.h"

namespace anvil::elementwise {

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------

template <typename T>
inline ComputeType<T> Widen(T v) {
  if constexpr (kIsHalfLike<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

// A computed value back to storage type T (rounding to nearest even for float16/bfloat16).
template <typename T, typename C>
inline T Narrow(C v) {
  if constexpr (kIsHalfLike<T>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Wrapping integer arithmetic: computes in an unsigned type at least as wide as int (so that
// neither signed overflow nor the promotion of uint16 to int is undefined), then converts back
// (modular since C++20).
template <typename T>
using WrapType = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
template <typename T>
inline T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
}
template <typename T>
inline T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
}

// Float to integer conversion without undefined behaviour: truncation toward zero, NaN -> 0,
// values beyond the range saturate to its ends. (C++ leaves out-of-range conversions undefined,
// ONNX leaves them unspecified; saturating is the deterministic choice.)
template <typename I, typename F>
inline I FloatToInt(F v) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>);
  if (std::isnan(v)) return 0;
  // Both limits as F: lowest is a power of two (exact); max + 1 is a power of two too, and
  // comparing against it avoids max's rounding up in F.
  constexpr F kLow = static_cast<F>(std::numeric_limits<I>::lowest());
  constexpr F kHighExclusive = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1) * F(2);
  if (v <= kLow) return std::numeric_limits<I>::lowest();
  if (v >= kHighExclusive) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// Any numeric storage type to any other: ConvertElement, except that floats go to integers
// through FloatToInt.
template <typename To, typename From>
inline To Convert(From v) {
  if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool> &&
                std::is_floating_point_v<ComputeType<From>>) {
    return FloatToInt<To>(Widen(v));
  } else {
    return ConvertElement<To>(v);
  }
}

// ---------------------------------------------------------------------------------------------
// Broadcast loops
// ---------------------------------------------------------------------------------------------

constexpr int kMaxLoopInputs = 4;

// A loop over a dense output with inputs broadcast to its dims, axes merged (see top).
struct LoopPlan {
  Shape dims;  // at least one axis; the last is the row
  int num_inputs = 0;
  std::array<Shape, kMaxLoopInputs> byte_strides;       // per input, per axis of `dims`
  std::array<int64_t, kMaxLoopInputs> row_step{};       // per input: element stride along the row
  std::array<int64_t, kMaxLoopInputs> element_bytes{};  // per input
  int64_t num_elements = 0;
};

// `inputs` must have exactly `out_dims` as dims (BroadcastInput). At most kMaxLoopInputs.
LoopPlan PlanLoop(absl::Span<const int64_t> out_dims,
                  std::initializer_list<const TensorView*> inputs);

// One row of a loop: `n` output elements from `out` (dense), input k's elements at in[k] +
// i * step[k] (in elements of its type).
template <int N>
struct Row {
  int64_t n;
  void* out;
  std::array<const void*, N> in;
  std::array<int64_t, N> step;

  template <typename T>
  T* Out() const {
    return static_cast<T*>(out);
  }
  template <typename T>
  const T* In(int k) const {
    return static_cast<const T*>(in[k]);
  }
};

// Calls row_fn(const Row<N>&) for rows [row_begin, row_end) of `plan` over `out` (elements of
// `out_size` bytes) and the inputs' data.
template <int N, typename RowFn>
void ForRowRange(const LoopPlan& plan, void* out, size_t out_size,
                 const std::array<const void*, N>& in, int64_t row_begin, int64_t row_end,
                 RowFn& row_fn) {
  const int rank = static_cast<int>(plan.dims.size());
  Row<N> row;
  row.n = plan.dims[rank - 1];
  const int64_t row_bytes = row.n * static_cast<int64_t>(out_size);
  std::array<const char*, N> ptr;
  for (int k = 0; k < N; ++k) {
    ptr[k] = static_cast<const char*>(in[k]);
    row.step[k] = plan.row_step[k];
  }
  // The odometer over the outer axes starts at row `row_begin`.
  absl::InlinedVector<int64_t, 6> index(rank, 0);
  for (int64_t axis = rank - 2, rest = row_begin; axis >= 0; --axis) {
    index[axis] = rest % plan.dims[axis];
    rest /= plan.dims[axis];
    for (int k = 0; k < N; ++k) ptr[k] += index[axis] * plan.byte_strides[k][axis];
  }
  char* out_ptr = static_cast<char*>(out) + row_begin * row_bytes;
  for (int64_t r = row_begin; r < row_end; ++r) {
    row.out = out_ptr;
    for (int k = 0; k < N; ++k) row.in[k] = ptr[k];
    row_fn(static_cast<const Row<N>&>(row));
    out_ptr += row_bytes;
    // Odometer over the outer axes, innermost first.
    for (int axis = rank - 2; axis >= 0; --axis) {
      for (int k = 0; k < N; ++k) ptr[k] += plan.byte_strides[k][axis];
      if (++index[axis] < plan.dims[axis]) break;
      for (int k = 0; k < N; ++k) ptr[k] -= plan.byte_strides[k][axis] * plan.dims[axis];
      index[axis] = 0;
    }
  }
}

// Calls row_fn(const Row<N>&) for every row of `plan` over `out` (elements of `out_size` bytes)
// and the inputs' data. Large loops split across the current parallel scope (base/parallel.h):
// by rows, or a single row into pieces; row_fn must only write its row's outputs (every
// element-wise row function does), and since each element is computed alone the result does not
// depend on the split.
template <int N, typename RowFn>
void ForEachRow(const LoopPlan& plan, void* out, size_t out_size,
                const std::array<const void*, N>& in, RowFn&& row_fn) {
  static_assert(N <= kMaxLoopInputs);
  if (plan.num_elements == 0) return;
  const int64_t row_n = plan.dims.back();
  const int64_t num_rows = plan.num_elements / row_n;
  if (num_rows > 1) {
    parallel::For(num_rows, parallel::MinChunk(row_n, parallel::kMinChunkElements),
                  [&](int64_t begin, int64_t end) {
                    ForRowRange<N>(plan, out, out_size, in, begin, end, row_fn);
                  });
    return;
  }
  parallel::For(
      row_n, parallel::MinChunk(1, parallel::kMinChunkElements), [&](int64_t begin, int64_t end) {
        Row<N> piece;
        piece.n = end - begin;
        piece.out = static_cast<char*>(out) + begin * static_cast<int64_t>(out_size);
        for (int k = 0; k < N; ++k) {
          piece.step[k] = plan.row_step[k];
          piece.in[k] =
              static_cast<const char*>(in[k]) + begin * plan.row_step[k] * plan.element_bytes[k];
        }
        row_fn(static_cast<const Row<N>&>(piece));
      });
}

// y[i] = f(x[i]) for x with y's dims (any strides). f maps In to Out.
template <typename In, typename Out, typename F>
void MapUnary(const TensorView& x, const TensorView& y, const F& f) {
  const LoopPlan plan = PlanLoop(y.dims, {&x});
  ForEachRow<1>(plan, y.data, sizeof(Out), {x.data}, [&](const Row<1>& r) {
    const In* a = r.In<In>(0);
    Out* o = r.Out<Out>();
    if (r.step[0] == 1) {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(a[i]);
    } else {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(a[i * r.step[0]]);
    }
  });
}

// y[i] = f(a[i], b[i]) for a, b broadcast to y's dims. Rows where one side is a broadcast
// scalar hoist it, so the compiler can vectorize.
template <typename A, typename B, typename Out, typename F>
void MapBinary(const TensorView& a, const TensorView& b, const TensorView& y, const F& f) {
  const LoopPlan plan = PlanLoop(y.dims, {&a, &b});
  ForEachRow<2>(plan, y.data, sizeof(Out), {a.data, b.data}, [&](const Row<2>& r) {
    const A* pa = r.In<A>(0);
    const B* pb = r.In<B>(1);
    Out* o = r.Out<Out>();
    const int64_t sa = r.step[0], sb = r.step[1];
    if (sa == 1 && sb == 1) {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(pa[i], pb[i]);
    } else if (sa == 1 && sb == 0) {
      const B vb = *pb;
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(pa[i], vb);
    } else if (sa == 0 && sb == 1) {
      const A va = *pa;
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(va, pb[i]);
    } else {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(pa[i * sa], pb[i * sb]);
    }
  });
}

// y[i] = f(a[i], b[i], c[i]).
template <typename A, typename B, typename C, typename Out, typename F>
void MapTernary(const TensorView& a, const TensorView& b, const TensorView& c, const TensorView& y,
                const F& f) {
  const LoopPlan plan = PlanLoop(y.dims, {&a, &b, &c});
  ForEachRow<3>(plan, y.data, sizeof(Out), {a.data, b.data, c.data}, [&](const Row<3>& r) {
    const A* pa = r.In<A>(0);
    const B* pb = r.In<B>(1);
    const C* pc = r.In<C>(2);
    Out* o = r.Out<Out>();
    const int64_t sa = r.step[0], sb = r.step[1], sc = r.step[2];
    if (sa == 1 && sb == 1 && sc == 1) {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(pa[i], pb[i], pc[i]);
    } else {
      for (int64_t i = 0; i < r.n; ++i) o[i] = f(pa[i * sa], pb[i * sb], pc[i * sc]);
    }
  });
}

// float32 through the Highway routines: y = a op b (a, b broadcast to y's dims), y = op(x)
// (x with y's dims). Contiguous rows and rows against a broadcast scalar are SIMD; other strided
// rows run the same operation in scalar code. float16 views (y.type kFloat16, the inputs alike)
// run the float32 operation on chunks widened and narrowed with F16C (simd/float16_convert.h):
// the float computation the scalar Widen / Narrow path does, a vector at a time.
void FloatBinary(simd::BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y);
void FloatUnary(simd::UnaryOp op, const TensorView& x, const TensorView& y);

// Elements of the float32 chunks float16 rows are computed in (on the stack).
inline constexpr int64_t kHalfChunk = 512;

// Runs simd_row(const float* x, float* y, size_t n) over a float16 row of n elements (x's
// elements `step` apart) through float32 chunks; x and y may be the same row.
template <typename SimdRow>
void HalfRowThroughFloat(const uint16_t* x, int64_t step, uint16_t* y, int64_t n,
                         const SimdRow& simd_row) {
  float in[kHalfChunk], out[kHalfChunk];
  for (int64_t i0 = 0; i0 < n; i0 += kHalfChunk) {
    const int64_t m = std::min(kHalfChunk, n - i0);
    if (step == 1) {
      simd::HalfToFloat(x + i0, in, static_cast<size_t>(m));
    } else {
      for (int64_t i = 0; i < m; ++i) in[i] = fp16::HalfToFloat(x[(i0 + i) * step]);
    }
    simd_row(in, out, static_cast<size_t>(m));
    simd::FloatToHalf(out, y + i0, static_cast<size_t>(m));
  }
}

// The general form of FloatUnary: simd_row(const float* x, float* y, size_t n) for contiguous
// rows, scalar(float) -> float for strided ones (float16: simd_row on every row, gathered).
template <typename SimdRow, typename Scalar>
void FloatUnaryRows(const TensorView& x, const TensorView& y, const SimdRow& simd_row,
                    const Scalar& scalar) {
  const LoopPlan plan = PlanLoop(y.dims, {&x});
  if (y.type == ElementType::kFloat16) {
    ForEachRow<1>(plan, y.data, sizeof(uint16_t), {x.data}, [&](const Row<1>& r) {
      HalfRowThroughFloat(r.In<uint16_t>(0), r.step[0], r.Out<uint16_t>(), r.n, simd_row);
    });
    return;
  }
  ForEachRow<1>(plan, y.data, sizeof(float), {x.data}, [&](const Row<1>& r) {
    const float* px = r.In<float>(0);
    float* o = r.Out<float>();
    if (r.step[0] == 1) {
      simd_row(px, o, static_cast<size_t>(r.n));
    } else {
      for (int64_t i = 0; i < r.n; ++i) o[i] = scalar(px[i * r.step[0]]);
    }
  });
}

// Whether the float32 SIMD rows above take `type` (float32, and float16 through chunks).
inline bool RunsFloatRows(ElementType type) {
  return type == ElementType::kFloat || type == ElementType::kFloat16;
}

// A unary op with y of x's type and dims: y = fn(x) on the compute type (Widen / Narrow), for x
// of an element type in kTypes. With `simd_op`, float32 runs that Highway routine instead (fn
// must agree with it).
template <uint32_t kTypes, typename Fn>
absl::Status ApplyUnary(KernelContext& ctx, const Fn& fn,
                        std::optional<simd::UnaryOp> simd_op = std::nullopt) {
  const TensorView& x = ctx.input(0);
  const TensorView& y = ctx.output(0);
  if (x.type != y.type || x.dims != y.dims) {
    return ctx.Error("input and output differ in type or shape");
  }
  if (simd_op.has_value() && RunsFloatRows(x.type)) {
    FloatUnary(*simd_op, x, y);
    return absl::OkStatus();
  }
  return DispatchTypes<kTypes>(x.type, ctx.node().op_type(), [&](auto tag) {
    using T = decltype(tag);
    MapUnary<T, T>(x, y, [&fn](T v) { return Narrow<T>(fn(Widen(v))); });
    return absl::OkStatus();
  });
}

// The scalar definitions of the SIMD operations (strided rows, and float types other than
// float32 where the semantics must agree).
template <typename C>
inline C MaxValue(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(b)) return b;
  }
  return a < b ? b : a;  // a when a is NaN
}
template <typename C>
inline C MinValue(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(b)) return b;
  }
  return b < a ? b : a;
}
template <typename C>
inline C SoftplusValue(C x) {
  if (std::isnan(x)) return x;
  return std::max(x, C(0)) + std::log1p(std::exp(-std::abs(x)));
}
template <typename C>
inline C SigmoidValue(C x) {
  const C e = std::exp(-std::abs(x));
  const C r = C(1) / (C(1) + e);
  return x < C(0) ? e * r : r;
}

// ---------------------------------------------------------------------------------------------
// Operands and attributes
// ---------------------------------------------------------------------------------------------

// `v` broadcast (numpy rules) to `dims`; InvalidArgument naming the node if it does not
// broadcast (the ShapeHelper should have refused such a model already).
absl::StatusOr<TensorView> BroadcastInput(const KernelContext& ctx, const TensorView& v,
                                          absl::Span<const int64_t> dims);

// Before opset 7, binary ops broadcast B into A only with broadcast=1: by suffix alignment
// (numpy), or with B's dims matching A's from `axis`. Read at kernel creation.
struct LegacyBroadcast {
  bool has_axis = false;  // opset < 7, broadcast=1 and an `axis` attribute
  int64_t axis = 0;
};
LegacyBroadcast ReadLegacyBroadcast(const Node& node, int64_t opset);

// The two operands of a binary op as views of output 0's dims.
absl::Status BinaryOperands(const KernelContext& ctx, const LegacyBroadcast& legacy, TensorView* a,
                            TensorView* b);

// Output 0 and every input have one element type (type variable T); InvalidArgument otherwise.
absl::Status CheckSameTypes(const KernelContext& ctx, std::initializer_list<int> inputs);

// The value of input `input`, a one-element tensor of storage type T (Clip's min/max);
// InvalidArgument naming `what` if it has another element count or type.
absl::Status NotAScalar(const KernelContext& ctx, int input, std::string_view what,
                        ElementType expected);
template <typename T>
absl::StatusOr<T> ScalarInput(const KernelContext& ctx, int input, std::string_view what,
                              ElementType expected) {
  const TensorView& v = ctx.input(input);
  if (v.NumElements() != 1 || v.type != expected) return NotAScalar(ctx, input, what, expected);
  return *v.As<T>();
}

// ---------------------------------------------------------------------------------------------
// Strings (elementwise_string.cc)
// ---------------------------------------------------------------------------------------------

// Cast where x or y (or both) is a string tensor: numbers formatted or parsed as the top of
// elementwise_string.cc says; an unparseable string is an error naming the element.
absl::Status CastWithStrings(const KernelContext& ctx, const TensorView& x, const TensorView& y);

// ---------------------------------------------------------------------------------------------
// Kernel factories (the KernelRule table is in elementwise.cc)
// ---------------------------------------------------------------------------------------------

// A function type with KernelFactory's signature: `Factory CreateAdd;` declares CreateAdd.
using Factory = absl::StatusOr<std::unique_ptr<OpKernel>>(const Node& node, int64_t opset);

// elementwise_binary.cc
Factory CreateAdd, CreateSub, CreateMul, CreateDiv, CreateMod, CreatePow, CreateBitShift,
    CreateBitwiseAnd, CreateBitwiseNot, CreateBitwiseOr, CreateBitwiseXor, CreatePRelu;
// elementwise_compare.cc
Factory CreateEqual, CreateGreater, CreateGreaterOrEqual, CreateLess, CreateLessOrEqual, CreateAnd,
    CreateOr, CreateXor, CreateNot, CreateWhere, CreateMax, CreateMin, CreateSum, CreateMean;
// elementwise_unary.cc
Factory CreateAbs, CreateAcos, CreateAcosh, CreateAsin, CreateAsinh, CreateAtan, CreateAtanh,
    CreateCeil, CreateCos, CreateCosh, CreateErf, CreateExp, CreateFloor, CreateIsInf, CreateIsNaN,
    CreateLog, CreateNeg, CreateReciprocal, CreateRound, CreateSign, CreateSin, CreateSinh,
    CreateSqrt, CreateTan;
// elementwise_activation.cc
Factory CreateCelu, CreateClip, CreateElu, CreateGelu, CreateHardSigmoid, CreateHardSwish,
    CreateLeakyRelu, CreateMish, CreateQuickGelu, CreateRelu, CreateSelu, CreateShrink,
    CreateSigmoid, CreateSoftplus, CreateSoftsign, CreateSwish, CreateTanh, CreateThresholdedRelu;
// elementwise_cast.cc
Factory CreateCast, CreateCastLike, CreateIdentity, CreateQuantizeLinear, CreateDequantizeLinear,
    CreateDynamicQuantizeLinear;

}  // namespace anvil::elementwise

#endif  // ANVIL_KERNELS_OPS_ELEMENTWISE_INTERNAL_H_
