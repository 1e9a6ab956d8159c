// Reductions: the ten Reduce* ops, ArgMax/ArgMin and CumSum.
//
// Reduce* make one pass over the (dense) input with an accumulator per output element. After
// dropping size-1 dims and merging neighbours that are both reduced or both kept, the innermost
// dim is either reduced — each contiguous row folds into one accumulator, with SIMD for float —
// or kept — each row accumulates element-wise into a contiguous run of accumulators, also SIMD.
// Either way the input is read once, in order, whatever the axes.
//
// Accumulators are float for float/float16/bfloat16 (as numpy accumulates float32), double for
// double, and 64-bit for integers (the result is cast back, wrapping like numpy's int math).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/op_table.h"
#include "kernels/ops/compute_util.h"
#include "kernels/simd/reduce.h"

namespace anvil::compute_ops {
namespace {

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

// The accumulator type of element type T.
template <typename T>
using AccType = std::conditional_t<kIsFloatLike<T>, ComputeType<T>,
                                   std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename A>
constexpr A Lowest() {
  return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                              : std::numeric_limits<A>::lowest();
}
template <typename A>
constexpr A Highest() {
  return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                              : std::numeric_limits<A>::max();
}

template <typename A>
bool IsNan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// One reduction's element transform and combine step on accumulator type A.
template <typename A>
struct Reducer {
  ReduceOp op;

  // The combine step of `op` (LogSumExp's second pass sums).
  enum class Combine { kAdd, kMul, kMax, kMin };
  Combine combine() const {
    switch (op) {
      case ReduceOp::kMax:
        return Combine::kMax;
      case ReduceOp::kMin:
        return Combine::kMin;
      case ReduceOp::kProd:
        return Combine::kMul;
      default:
        return Combine::kAdd;
    }
  }
  A Identity() const {
    switch (combine()) {
      case Combine::kMax:
        return Lowest<A>();
      case Combine::kMin:
        return Highest<A>();
      case Combine::kMul:
        return A(1);
      case Combine::kAdd:
        break;
    }
    return A(0);
  }
  A Transform(A v) const {
    switch (op) {
      case ReduceOp::kSumSquare:
      case ReduceOp::kL2:
        return v * v;
      case ReduceOp::kL1:
        if constexpr (std::is_signed_v<A>) return v < A(0) ? A(-v) : v;
        return v;
      default:
        return v;
    }
  }
  A Apply(A acc, A v) const {
    switch (combine()) {
      case Combine::kMax:
        return IsNan(acc) || v > acc || IsNan(v) ? v : acc;
      case Combine::kMin:
        return IsNan(acc) || v < acc || IsNan(v) ? v : acc;
      case Combine::kMul:
        return acc * v;
      case Combine::kAdd:
        break;
    }
    return acc + v;
  }

  // *acc = Apply(*acc, fold of Transform(x[0, n))).
  void Row(const A* x, int64_t n, A* acc) const {
    if constexpr (std::is_same_v<A, float>) {
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMean:
        case ReduceOp::kLogSum:
          *acc += simd::ReduceSum(x, n);
          return;
        case ReduceOp::kSumSquare:
        case ReduceOp::kL2:
          *acc += simd::ReduceSumSquares(x, n);
          return;
        case ReduceOp::kL1:
          *acc += simd::ReduceSumAbs(x, n);
          return;
        case ReduceOp::kMax:
          *acc = Apply(*acc, simd::ReduceMax(x, n));
          return;
        case ReduceOp::kMin:
          *acc = Apply(*acc, simd::ReduceMin(x, n));
          return;
        default:
          break;
      }
    }
    A r = *acc;
    for (int64_t i = 0; i < n; ++i) r = Apply(r, Transform(x[i]));
    *acc = r;
  }

  // acc[i] = Apply(acc[i], Transform(x[i])) for i < n.
  void Elementwise(const A* x, int64_t n, A* acc) const {
    if constexpr (std::is_same_v<A, float>) {
      switch (op) {
        case ReduceOp::kSum:
        case ReduceOp::kMean:
        case ReduceOp::kLogSum:
          simd::AccumulateSum(acc, x, n);
          return;
        case ReduceOp::kSumSquare:
        case ReduceOp::kL2:
          simd::AccumulateSumSquares(acc, x, n);
          return;
        case ReduceOp::kL1:
          simd::AccumulateSumAbs(acc, x, n);
          return;
        case ReduceOp::kMax:
          simd::AccumulateMax(acc, x, n);
          return;
        case ReduceOp::kMin:
          simd::AccumulateMin(acc, x, n);
          return;
        case ReduceOp::kProd:
          simd::AccumulateProd(acc, x, n);
          return;
        default:
          break;
      }
    }
    for (int64_t i = 0; i < n; ++i) acc[i] = Apply(acc[i], Transform(x[i]));
  }
};

// The input's dims with size-1 dims dropped and runs of reduced / kept dims merged.
struct MergedDims {
  Shape dims;
  std::vector<bool> reduced;
  Shape out_strides;  // per merged dim: stride in the (dense, kept-dims) output; 0 if reduced
};

MergedDims MergeDims(const Shape& dims, const std::vector<bool>& reduced) {
  MergedDims m;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 1) continue;
    if (!m.dims.empty() && m.reduced.back() == reduced[k]) {
      m.dims.back() *= dims[k];
    } else {
      m.dims.push_back(dims[k]);
      m.reduced.push_back(reduced[k]);
    }
  }
  if (m.dims.empty()) {  // a single element
    m.dims.push_back(1);
    m.reduced.push_back(false);
  }
  m.out_strides.resize(m.dims.size());
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(m.dims.size()) - 1; k >= 0; --k) {
    m.out_strides[k] = m.reduced[k] ? 0 : s;
    if (!m.reduced[k]) s *= m.dims[k];
  }
  return m;
}

// Calls row(x_offset, out_offset) for each innermost row of the merged dims, in input order.
template <class Row>
void ForEachMergedRow(const MergedDims& m, Row&& row) {
  const int64_t rank = static_cast<int64_t>(m.dims.size());
  const int64_t inner = m.dims[rank - 1];
  int64_t rows = 1;
  for (int64_t k = 0; k + 1 < rank; ++k) rows *= m.dims[k];
  Shape index(rank, 0);
  int64_t out = 0;
  for (int64_t r = 0; r < rows; ++r) {
    row(r * inner, out);
    for (int64_t k = rank - 2; k >= 0; --k) {
      if (++index[k] < m.dims[k]) {
        out += m.out_strides[k];
        break;
      }
      out -= m.out_strides[k] * (m.dims[k] - 1);
      index[k] = 0;
    }
  }
}

// acc[out] = fold over the reduced dims of x (dense, in A) with `reducer`.
template <typename A>
void ReduceInto(const MergedDims& m, const A* x, const Reducer<A>& reducer, A* acc) {
  const int64_t inner = m.dims.back();
  if (m.reduced.back()) {
    ForEachMergedRow(m, [&](int64_t xo, int64_t o) { reducer.Row(x + xo, inner, acc + o); });
  } else {
    ForEachMergedRow(m,
                     [&](int64_t xo, int64_t o) { reducer.Elementwise(x + xo, inner, acc + o); });
  }
}

class ReduceKernel final : public OpKernel {
 public:
  // keepdims only shapes the output, which the ShapeHelper computed.
  ReduceKernel(ReduceOp op, bool axes_from_input, bool noop_with_empty_axes,
               std::vector<int64_t> axes)
      : op_(op),
        axes_from_input_(axes_from_input),
        noop_with_empty_axes_(noop_with_empty_axes),
        axes_(std::move(axes)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    if (x.type == ElementType::kBool && y.type == ElementType::kBool &&
        (op_ == ReduceOp::kMax || op_ == ReduceOp::kMin)) {
      // ReduceMax-20 and ReduceMin-20 on bool: any and all, uint8's max and min of 0 and 1.
      TensorView x8 = x, y8 = y;
      x8.type = y8.type = ElementType::kUint8;
      return Run(ctx, x8, y8);
    }
    return Run(ctx, x, y);
  }

 private:
  absl::Status Run(KernelContext& ctx, const TensorView& x, TensorView& y) {
    std::vector<int64_t> axes = axes_;
    if (axes_from_input_ && ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(axes, ReadInt64s(ctx, 1));
    }
    const int64_t rank = x.rank();
    std::vector<bool> reduced(rank, axes.empty() && !noop_with_empty_axes_);
    for (int64_t a : axes) {
      ANVIL_ASSIGN_OR_RETURN(int64_t k, NormalizeAxis(ctx.node(), a, rank, "axes value"));
      reduced[k] = true;
    }
    int64_t count = 1, kept = 1;
    for (int64_t k = 0; k < rank; ++k) (reduced[k] ? count : kept) *= x.dims[k];
    ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, kept));
    return DispatchArithmetic(x.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      using A = AccType<T>;
      const int64_t n_out = y.NumElements();
      DenseOutput<A> out(y);
      if (n_out == 0) return absl::OkStatus();
      // (Floats: 0 / 0 = NaN, as numpy's mean of nothing.)
      if (std::is_integral_v<A> && op_ == ReduceOp::kMean && count == 0) {
        return ctx.Error(absl::StrCat("the mean of 0 elements of an integer tensor ",
                                      x.DebugString(), " is undefined (a division by zero)"));
      }
      DenseInput<A> xd(x);
      const MergedDims m = MergeDims(x.dims, reduced);
      A* acc = out.data();
      const Reducer<A> reducer{op_ == ReduceOp::kLogSumExp ? ReduceOp::kMax : op_};
      std::fill(acc, acc + n_out, reducer.Identity());
      if (x.NumElements() > 0) ReduceInto(m, xd.data(), reducer, acc);
      Finish<A>(m, xd.data(), x.NumElements() > 0, count, acc, n_out);
      out.Commit();
      return absl::OkStatus();
    });
  }

  // The per-op epilogue (and LogSumExp's second pass, with acc holding the maxima).
  template <typename A>
  void Finish(const MergedDims& m, const A* x, bool nonempty, int64_t count, A* acc,
              int64_t n) const {
    switch (op_) {
      case ReduceOp::kMean:
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] / static_cast<A>(count);
        break;
      case ReduceOp::kL2:
        for (int64_t i = 0; i < n; ++i) acc[i] = static_cast<A>(std::sqrt(acc[i]));
        break;
      case ReduceOp::kLogSum:
        for (int64_t i = 0; i < n; ++i) acc[i] = static_cast<A>(std::log(acc[i]));
        break;
      case ReduceOp::kLogSumExp: {
        if constexpr (std::is_floating_point_v<A>) {
          // sum(exp(x - max)) per output, then max + log(sum); an infinite or NaN max is the
          // result itself (exp(inf - inf) would be NaN).
          std::vector<A> shift(acc, acc + n);
          for (A& s : shift) s = std::isfinite(s) ? s : A(0);
          std::vector<A> sum(n, A(0));
          if (nonempty) {
            const int64_t inner = m.dims.back();
            if (m.reduced.back()) {
              ForEachMergedRow(m, [&](int64_t xo, int64_t o) {
                if constexpr (std::is_same_v<A, float>) {
                  sum[o] += simd::ExpShiftSum(x + xo, shift[o], nullptr, inner);
                } else {
                  for (int64_t i = 0; i < inner; ++i) sum[o] += std::exp(x[xo + i] - shift[o]);
                }
              });
            } else {
              ForEachMergedRow(m, [&](int64_t xo, int64_t o) {
                for (int64_t i = 0; i < inner; ++i) {
                  sum[o + i] += std::exp(x[xo + i] - shift[o + i]);
                }
              });
            }
          }
          for (int64_t i = 0; i < n; ++i) {
            if (std::isfinite(acc[i])) acc[i] = shift[i] + std::log(sum[i]);
          }
        }
        // Integers: the spec lists no integer type for ReduceLogSumExp; the max is kept.
        break;
      }
      default:
        break;
    }
  }

  ReduceOp op_;
  bool axes_from_input_;
  bool noop_with_empty_axes_;
  std::vector<int64_t> axes_;
};

// ---------------------------------------------------------------------------------------------
// MeanVarianceNormalization
// ---------------------------------------------------------------------------------------------

// y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), the expectations over `axes` (default
// [0, 2, 3]), as the ONNX reference computes it.
class MvnKernel final : public OpKernel {
 public:
  explicit MvnKernel(std::vector<int64_t> axes) : axes_(std::move(axes)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes_) {
      ANVIL_ASSIGN_OR_RETURN(int64_t k, NormalizeAxis(ctx.node(), a, rank, "axes value"));
      reduced[k] = true;
    }
    int64_t count = 1, n_out = 1;
    for (int64_t k = 0; k < rank; ++k) (reduced[k] ? count : n_out) *= x.dims[k];
    ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, x.NumElements()));
    return DispatchFloat(x.type, "MeanVarianceNormalization", [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseOutput<C> yd(ctx.output(0));
      if (x.NumElements() == 0) return absl::OkStatus();
      DenseInput<C> xd(x);
      const MergedDims m = MergeDims(x.dims, reduced);
      std::vector<C> mean(n_out, C(0)), denom(n_out, C(0));
      ReduceInto(m, xd.data(), Reducer<C>{ReduceOp::kSum}, mean.data());
      ReduceInto(m, xd.data(), Reducer<C>{ReduceOp::kSumSquare}, denom.data());
      for (int64_t o = 0; o < n_out; ++o) {
        mean[o] /= static_cast<C>(count);
        const C var = denom[o] / static_cast<C>(count) - mean[o] * mean[o];
        denom[o] = std::sqrt(std::max(var, C(0))) + static_cast<C>(1e-9);
      }
      const int64_t inner = m.dims.back();
      const bool inner_reduced = m.reduced.back();
      const C* xs = xd.data();
      C* ys = yd.data();
      ForEachMergedRow(m, [&](int64_t xo, int64_t o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t k = inner_reduced ? o : o + i;
          ys[xo + i] = (xs[xo + i] - mean[k]) / denom[k];
        }
      });
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  std::vector<int64_t> axes_;
};

// ---------------------------------------------------------------------------------------------
// ArgMax, ArgMin
// ---------------------------------------------------------------------------------------------

class ArgKernel final : public OpKernel {
 public:
  ArgKernel(bool is_max, int64_t axis, bool select_last)
      : is_max_(is_max), axis_(axis), select_last_(select_last) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    int64_t* y = ctx.output(0).As<int64_t>();
    ANVIL_ASSIGN_OR_RETURN(int64_t axis,
                           NormalizeAxis(ctx.node(), axis_, std::max<int64_t>(1, x.rank())));
    const int64_t outer = Product(x.dims, 0, axis);
    const int64_t n = x.rank() == 0 ? 1 : x.dims[axis];
    const int64_t inner = Product(x.dims, axis + 1);
    if (n == 0 && outer * inner > 0) {
      return ctx.Error("cannot take an arg-extremum over an empty axis");
    }
    ANVIL_RETURN_IF_ERROR(CheckOutputSize(ctx, 0, outer * inner));
    return DispatchNumeric(x.type, ctx.node().op_type(), [&](auto tag) -> absl::Status {
      using C = ComputeType<decltype(tag)>;
      DenseInput<C> xd(x);
      const C* data = xd.data();
      // Whether v replaces the current best b: numpy's argmax/argmin pick the first NaN (the
      // last with select_last_index, which the reference computes on the flipped axis).
      auto better = [&](C v, C b) {
        if (IsNan(b)) return select_last_ && IsNan(v);
        if (IsNan(v)) return true;
        if (select_last_) return is_max_ ? v >= b : v <= b;
        return is_max_ ? v > b : v < b;
      };
      std::vector<C> best(inner);
      for (int64_t o = 0; o < outer; ++o) {
        const C* xo = data + o * n * inner;
        int64_t* yo = y + o * inner;
        if (inner == 1) {
          C b = xo[0];
          int64_t bi = 0;
          for (int64_t a = 1; a < n; ++a) {
            if (better(xo[a], b)) {
              b = xo[a];
              bi = a;
            }
          }
          yo[0] = bi;
          continue;
        }
        std::copy(xo, xo + inner, best.begin());
        std::fill(yo, yo + inner, 0);
        for (int64_t a = 1; a < n; ++a) {
          const C* row = xo + a * inner;
          for (int64_t j = 0; j < inner; ++j) {
            if (better(row[j], best[j])) {
              best[j] = row[j];
              yo[j] = a;
            }
          }
        }
      }
      return absl::OkStatus();
    });
  }

 private:
  bool is_max_;
  int64_t axis_;
  bool select_last_;
};

// ---------------------------------------------------------------------------------------------
// CumSum
// ---------------------------------------------------------------------------------------------

class CumSumKernel final : public OpKernel {
 public:
  CumSumKernel(bool exclusive, bool reverse) : exclusive_(exclusive), reverse_(reverse) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& x = ctx.input(0);
    TensorView& y = ctx.output(0);
    ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> axis_values, ReadInt64s(ctx, 1));
    if (axis_values.size() != 1) return ctx.Error("axis must hold one value");
    ANVIL_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(ctx.node(), axis_values[0], x.rank()));
    const int64_t outer = Product(x.dims, 0, axis);
    const int64_t n = x.dims[axis];
    const int64_t inner = Product(x.dims, axis + 1);
    return DispatchArithmetic(x.type, "CumSum", [&](auto tag) -> absl::Status {
      using A = AccType<decltype(tag)>;
      DenseInput<A> xd(x);
      DenseOutput<A> yd(y);
      std::vector<A> running(inner);
      for (int64_t o = 0; o < outer; ++o) {
        std::fill(running.begin(), running.end(), A(0));
        for (int64_t step = 0; step < n; ++step) {
          const int64_t a = reverse_ ? n - 1 - step : step;
          const A* src = xd.data() + (o * n + a) * inner;
          A* dst = yd.data() + (o * n + a) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            if (exclusive_) {
              dst[j] = running[j];
              running[j] += src[j];
            } else {
              running[j] += src[j];
              dst[j] = running[j];
            }
          }
        }
      }
      yd.Commit();
      return absl::OkStatus();
    });
  }

 private:
  bool exclusive_;
  bool reverse_;
};

}  // namespace

KernelOr CreateReduce(const Node& node, int64_t opset) {
  const std::string& op = node.op_type();
  ReduceOp kind;
  if (op == "ReduceSum") {
    kind = ReduceOp::kSum;
  } else if (op == "ReduceMean") {
    kind = ReduceOp::kMean;
  } else if (op == "ReduceMax") {
    kind = ReduceOp::kMax;
  } else if (op == "ReduceMin") {
    kind = ReduceOp::kMin;
  } else if (op == "ReduceProd") {
    kind = ReduceOp::kProd;
  } else if (op == "ReduceSumSquare") {
    kind = ReduceOp::kSumSquare;
  } else if (op == "ReduceL1") {
    kind = ReduceOp::kL1;
  } else if (op == "ReduceL2") {
    kind = ReduceOp::kL2;
  } else if (op == "ReduceLogSum") {
    kind = ReduceOp::kLogSum;
  } else if (op == "ReduceLogSumExp") {
    kind = ReduceOp::kLogSumExp;
  } else {
    return NodeError(node, "not a Reduce op");
  }
  const bool axes_from_input = ReduceAxesInput(op, opset) == 1;
  return std::unique_ptr<OpKernel>(new ReduceKernel(
      kind, axes_from_input, axes_from_input && node.GetInt("noop_with_empty_axes", 0) != 0,
      node.GetInts("axes")));
}

KernelOr CreateArgMinMax(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(new ArgKernel(node.op_type() == "ArgMax", node.GetInt("axis", 0),
                                                 node.GetInt("select_last_index", 0) != 0));
}

KernelOr CreateMeanVarianceNormalization(const Node& node, int64_t) {
  std::vector<int64_t> axes = node.GetInts("axes");
  if (node.FindAttribute("axes") == nullptr) axes = {0, 2, 3};
  return std::unique_ptr<OpKernel>(new MvnKernel(std::move(axes)));
}

KernelOr CreateCumSum(const Node& node, int64_t) {
  return std::unique_ptr<OpKernel>(
      new CumSumKernel(node.GetInt("exclusive", 0) != 0, node.GetInt("reverse", 0) != 0));
}

}  // namespace anvil::compute_ops
