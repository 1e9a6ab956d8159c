// Comparisons (Equal, Greater, GreaterOrEqual, Less, LessOrEqual), logic (And, Or, Xor, Not),
// selection (Where) and the variadic reductions across inputs (Max, Min, Sum, Mean).
//
// Comparisons with NaN are false (Equal(NaN, NaN) too), as in IEEE and numpy. Max and Min
// propagate NaN from any input (numpy's maximum / minimum). Bool tensors are bytes; any nonzero
// byte reads as true.

// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; the loops here (any
// length, rows that may alias) need its dynamic cost model, which is what -O3 uses. Set before
// any include so that the templates of elementwise_internal.h and the lambdas they inline are
// compiled alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/elementwise_internal.h"
#include "kernels/tensor.h"

namespace anvil::elementwise {
namespace {

enum class Cmp { kEqual, kGreater, kGreaterOrEqual, kLess, kLessOrEqual };

template <Cmp kOp, typename C>
inline bool CompareValues(C a, C b) {
  if constexpr (kOp == Cmp::kEqual) return a == b;
  if constexpr (kOp == Cmp::kGreater) return a > b;
  if constexpr (kOp == Cmp::kGreaterOrEqual) return a >= b;
  if constexpr (kOp == Cmp::kLess) return a < b;
  if constexpr (kOp == Cmp::kLessOrEqual) return a <= b;
}

constexpr const char* CmpName(Cmp op) {
  switch (op) {
    case Cmp::kEqual:
      return "Equal";
    case Cmp::kGreater:
      return "Greater";
    case Cmp::kGreaterOrEqual:
      return "GreaterOrEqual";
    case Cmp::kLess:
      return "Less";
    case Cmp::kLessOrEqual:
      return "LessOrEqual";
  }
  return "";
}

template <Cmp kOp>
class CompareKernel final : public OpKernel {
 public:
  CompareKernel(const Node& node, int64_t opset) : legacy_(ReadLegacyBroadcast(node, opset)) {}

  absl::Status Compute(KernelContext& ctx) override {
    TensorView a, b;
    ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, legacy_, &a, &b));
    if (a.type != b.type) {
      return ctx.Error(absl::StrCat("inputs differ in type: ", AsAbsl(ElementTypeName(a.type)),
                                    " and ", AsAbsl(ElementTypeName(b.type))));
    }
    const TensorView& y = ctx.output(0);
    if constexpr (kOp == Cmp::kEqual) {
      if (a.type == ElementType::kString) {  // Equal-19
        MapBinary<std::string, std::string, bool>(
            a, b, y, [](const std::string& x, const std::string& z) { return x == z; });
        return absl::OkStatus();
      }
    }
    // Equal also takes bool (ONNX allows it for Equal only).
    constexpr uint32_t kTypes = kOp == Cmp::kEqual ? kAllNumericTypes : kNumericTypes;
    return DispatchTypes<kTypes>(a.type, CmpName(kOp), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        MapBinary<uint8_t, uint8_t, bool>(
            a, b, y, [](uint8_t x, uint8_t z) { return (x != 0) == (z != 0); });
      } else {
        MapBinary<T, T, bool>(a, b, y,
                              [](T x, T z) { return CompareValues<kOp>(Widen(x), Widen(z)); });
      }
      return absl::OkStatus();
    });
  }

 private:
  LegacyBroadcast legacy_;
};

template <Cmp kOp>
absl::StatusOr<std::unique_ptr<OpKernel>> CreateCompare(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new CompareKernel<kOp>(node, opset));
}

// ---------------------------------------------------------------------------------------------
// Logic
// ---------------------------------------------------------------------------------------------

enum class Logic { kAnd, kOr, kXor };

template <Logic kOp>
class LogicKernel final : public OpKernel {
 public:
  LogicKernel(const Node& node, int64_t opset) : legacy_(ReadLegacyBroadcast(node, opset)) {}

  absl::Status Compute(KernelContext& ctx) override {
    TensorView a, b;
    ANVIL_RETURN_IF_ERROR(BinaryOperands(ctx, legacy_, &a, &b));
    if (a.type != ElementType::kBool || b.type != ElementType::kBool) {
      return UnsupportedType(ctx.node().op_type(), a.type != ElementType::kBool ? a.type : b.type);
    }
    MapBinary<uint8_t, uint8_t, bool>(a, b, ctx.output(0), [](uint8_t x, uint8_t z) {
      const bool p = x != 0, q = z != 0;
      if constexpr (kOp == Logic::kAnd) return p && q;
      if constexpr (kOp == Logic::kOr) return p || q;
      if constexpr (kOp == Logic::kXor) return p != q;
    });
    return absl::OkStatus();
  }

 private:
  LegacyBroadcast legacy_;
};

template <Logic kOp>
absl::StatusOr<std::unique_ptr<OpKernel>> CreateLogic(const Node& node, int64_t opset) {
  return std::unique_ptr<OpKernel>(new LogicKernel<kOp>(node, opset));
}

absl::Status NotCompute(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  if (x.type != ElementType::kBool) return UnsupportedType("Not", x.type);
  const TensorView& y = ctx.output(0);
  if (x.dims != y.dims) return ctx.Error("input and output differ in shape");
  MapUnary<uint8_t, bool>(x, y, [](uint8_t v) { return v == 0; });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Where
// ---------------------------------------------------------------------------------------------

// Pure selection, so any element type moves by size (complex and bool included; strings have
// no fixed size and are Unimplemented).
absl::Status WhereCompute(KernelContext& ctx) {
  ANVIL_RETURN_IF_ERROR(CheckSameTypes(ctx, {1, 2}));
  if (ctx.input(0).type != ElementType::kBool) {
    return ctx.Error(absl::StrCat("condition is ", AsAbsl(ElementTypeName(ctx.input(0).type)),
                                  ", expected bool"));
  }
  const TensorView& y = ctx.output(0);
  TensorView v[3];
  for (int i = 0; i < 3; ++i) {
    ANVIL_ASSIGN_OR_RETURN(v[i], BroadcastInput(ctx, ctx.input(i), y.dims));
  }
  return DispatchBySize(y.type, "Where", [&](auto tag) {
    using U = decltype(tag);
    MapTernary<uint8_t, U, U, U>(v[0], v[1], v[2], y,
                                 [](uint8_t c, U a, U b) { return c != 0 ? a : b; });
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------------------------
// Max, Min, Sum, Mean
// ---------------------------------------------------------------------------------------------

enum class Fold { kMax, kMin, kSum, kMean };

template <Fold kOp, typename C>
inline C FoldValues(C a, C b) {
  if constexpr (kOp == Fold::kMax) return MaxValue(a, b);
  if constexpr (kOp == Fold::kMin) return MinValue(a, b);
  if constexpr (kOp == Fold::kSum || kOp == Fold::kMean) {
    if constexpr (std::is_integral_v<C>) {
      return WrapAdd(a, b);
    } else {
      return a + b;
    }
  }
}

constexpr const char* FoldName(Fold op) {
  switch (op) {
    case Fold::kMax:
      return "Max";
    case Fold::kMin:
      return "Min";
    case Fold::kSum:
      return "Sum";
    case Fold::kMean:
      return "Mean";
  }
  return "";
}

bool Overlaps(const TensorView& a, const TensorView& b) {
  const auto* a0 = static_cast<const char*>(a.data);
  const auto* b0 = static_cast<const char*>(b.data);
  // Dense output vs. an input that may be strided: compare the input's byte span.
  int64_t a_end = a.NumElements() * static_cast<int64_t>(a.ElementBytes());
  int64_t b_end = static_cast<int64_t>(b.ElementBytes());
  for (int64_t k = 0; k < b.rank(); ++k) {
    if (b.dims[k] == 0) return false;
    b_end += (b.dims[k] - 1) * b.strides[k] * static_cast<int64_t>(b.ElementBytes());
  }
  return a0 < b0 + b_end && b0 < a0 + a_end;
}

// Folds the inputs pairwise into the output: y = in0 op in1, then y = y op in_k. Inputs after
// the second are read after y is first written, so one that shares y's memory (a runtime
// reusing a dead input's buffer) is copied first.
template <Fold kOp>
absl::Status FoldCompute(KernelContext& ctx) {
  constexpr uint32_t kTypes = kOp == Fold::kMean ? kFloatTypes : kNumericTypes;
  const TensorView& y = ctx.output(0);
  const int n = ctx.num_inputs();
  if (n == 0) return ctx.Error("needs at least one input");
  for (int i = 0; i < n; ++i) {
    if (!ctx.HasInput(i)) return ctx.Error(absl::StrCat("input ", i, " is missing"));
  }
  for (int i = 0; i < n; ++i) {
    if (ctx.input(i).type != y.type) {
      return ctx.Error(absl::StrCat("input ", i, " is ", AsAbsl(ElementTypeName(ctx.input(i).type)),
                                    ", expected ", AsAbsl(ElementTypeName(y.type))));
    }
  }
  std::vector<TensorView> views(n);
  std::vector<Tensor> copies;
  for (int i = 0; i < n; ++i) {
    ANVIL_ASSIGN_OR_RETURN(views[i], BroadcastInput(ctx, ctx.input(i), y.dims));
    if (i >= 2 && Overlaps(y, ctx.input(i))) {
      copies.push_back(Tensor::CopyOf(ctx.input(i)));
      views[i] = copies.back().view().BroadcastTo(y.dims);
    }
  }
  return DispatchTypes<kTypes>(y.type, FoldName(kOp), [&](auto tag) {
    using T = decltype(tag);
    if (n == 1) {
      MapUnary<T, T>(views[0], y, [](T v) { return v; });
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Half>) {
      constexpr simd::BinaryOp kSimdOp = kOp == Fold::kMax   ? simd::BinaryOp::kMax
                                         : kOp == Fold::kMin ? simd::BinaryOp::kMin
                                                             : simd::BinaryOp::kAdd;
      FloatBinary(kSimdOp, views[0], views[1], y);
      for (int i = 2; i < n; ++i) FloatBinary(kSimdOp, y, views[i], y);
    } else {
      const auto f = [](T a, T b) { return Narrow<T>(FoldValues<kOp>(Widen(a), Widen(b))); };
      MapBinary<T, T, T>(views[0], views[1], y, f);
      for (int i = 2; i < n; ++i) MapBinary<T, T, T>(y, views[i], y, f);
    }
    if constexpr (kOp == Fold::kMean) {
      if constexpr (std::is_same_v<T, float>) {
        simd::BinaryVectorScalar(simd::BinaryOp::kDiv, y.As<float>(), static_cast<float>(n),
                                 y.As<float>(), static_cast<size_t>(y.NumElements()));
      } else {
        const ComputeType<T> count = static_cast<ComputeType<T>>(n);
        MapUnary<T, T>(y, y, [count](T v) { return Narrow<T>(Widen(v) / count); });
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateEqual(const Node& node, int64_t opset) {
  return CreateCompare<Cmp::kEqual>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateGreater(const Node& node, int64_t opset) {
  return CreateCompare<Cmp::kGreater>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateGreaterOrEqual(const Node& node, int64_t opset) {
  return CreateCompare<Cmp::kGreaterOrEqual>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateLess(const Node& node, int64_t opset) {
  return CreateCompare<Cmp::kLess>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateLessOrEqual(const Node& node, int64_t opset) {
  return CreateCompare<Cmp::kLessOrEqual>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateAnd(const Node& node, int64_t opset) {
  return CreateLogic<Logic::kAnd>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateOr(const Node& node, int64_t opset) {
  return CreateLogic<Logic::kOr>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateXor(const Node& node, int64_t opset) {
  return CreateLogic<Logic::kXor>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateNot(const Node& node, int64_t opset) {
  return Stateless<&NotCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateWhere(const Node& node, int64_t opset) {
  return Stateless<&WhereCompute>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMax(const Node& node, int64_t opset) {
  return Stateless<&FoldCompute<Fold::kMax>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMin(const Node& node, int64_t opset) {
  return Stateless<&FoldCompute<Fold::kMin>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateSum(const Node& node, int64_t opset) {
  return Stateless<&FoldCompute<Fold::kSum>>(node, opset);
}
absl::StatusOr<std::unique_ptr<OpKernel>> CreateMean(const Node& node, int64_t opset) {
  return Stateless<&FoldCompute<Fold::kMean>>(node, opset);
}

}  // namespace anvil::elementwise
