// Loop planning and operand preparation shared by the element-wise kernels
// (elementwise_internal.h).

// GCC's -O2 vectorizes a loop only when no scalar remainder is needed; the loops here (any
// length, rows that may alias) need its dynamic cost model, which is what -O3 uses. Set before
// any include so that the templates of elementwise_internal.h and the lambdas they inline are
// compiled alike.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("vect-cost-model=dynamic")
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/elementwise_internal.h"
#include "kernels/simd/elementwise.h"

namespace anvil::elementwise {

LoopPlan PlanLoop(absl::Span<const int64_t> out_dims,
                  std::initializer_list<const TensorView*> inputs) {
  LoopPlan plan;
  plan.num_inputs = static_cast<int>(inputs.size());
  plan.num_elements = 1;
  for (int64_t d : out_dims) plan.num_elements *= d;

  // Axes innermost first; an axis joins the one inside it when every input steps through both
  // linearly (its stride is the inner stride times the inner extent; 0 and 0 qualify). The
  // output is dense, so it always does. 1-dims carry no iteration and are dropped.
  struct Axis {
    int64_t dim;
    std::array<int64_t, kMaxLoopInputs> stride;
  };
  absl::InlinedVector<Axis, 6> axes;
  for (int64_t k = static_cast<int64_t>(out_dims.size()) - 1; k >= 0; --k) {
    if (out_dims[k] == 1) continue;
    Axis axis{out_dims[k], {}};
    int i = 0;
    for (const TensorView* v : inputs) axis.stride[i++] = v->strides[k];
    if (!axes.empty()) {
      Axis& inner = axes.back();
      bool linear = true;
      for (int j = 0; j < plan.num_inputs; ++j) {
        linear = linear && axis.stride[j] == inner.stride[j] * inner.dim;
      }
      if (linear) {
        inner.dim *= axis.dim;
        continue;
      }
    }
    axes.push_back(axis);
  }
  if (axes.empty()) axes.push_back(Axis{1, {}});

  const int rank = static_cast<int>(axes.size());
  plan.dims.resize(rank);
  for (int j = 0; j < plan.num_inputs; ++j) plan.byte_strides[j].resize(rank);
  for (int a = 0; a < rank; ++a) {
    const Axis& axis = axes[rank - 1 - a];
    plan.dims[a] = axis.dim;
    int j = 0;
    for (const TensorView* v : inputs) {
      plan.byte_strides[j][a] = axis.stride[j] * static_cast<int64_t>(v->ElementBytes());
      ++j;
    }
  }
  for (int j = 0; j < plan.num_inputs; ++j) plan.row_step[j] = axes[0].stride[j];
  int j = 0;
  for (const TensorView* v : inputs) plan.element_bytes[j++] = v->ElementBytes();
  return plan;
}

absl::StatusOr<TensorView> BroadcastInput(const KernelContext& ctx, const TensorView& v,
                                          absl::Span<const int64_t> dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  bool ok = v.rank() <= rank;
  for (int64_t k = 0; ok && k < v.rank(); ++k) {
    const int64_t d = v.dims[k];
    ok = d == 1 || d == dims[rank - v.rank() + k];
  }
  if (!ok) {
    return ctx.Error(absl::StrCat("input of shape [", absl::StrJoin(v.dims, ","),
                                  "] does not broadcast to the output shape [",
                                  absl::StrJoin(dims, ","), "]"));
  }
  return v.BroadcastTo(dims);
}

LegacyBroadcast ReadLegacyBroadcast(const Node& node, int64_t opset) {
  LegacyBroadcast legacy;
  if (opset < 7 && node.GetInt("broadcast", 0) != 0) {
    if (const Attribute* axis = node.FindAttribute("axis"); axis != nullptr) {
      legacy.has_axis = true;
      legacy.axis = axis->i;
    }
  }
  return legacy;
}

absl::Status BinaryOperands(const KernelContext& ctx, const LegacyBroadcast& legacy, TensorView* a,
                            TensorView* b) {
  const Shape& dims = ctx.outputs()[0].dims;
  ANVIL_ASSIGN_OR_RETURN(*a, BroadcastInput(ctx, ctx.input(0), dims));
  const TensorView& in_b = ctx.input(1);
  if (!legacy.has_axis) {
    ANVIL_ASSIGN_OR_RETURN(*b, BroadcastInput(ctx, in_b, dims));
    return absl::OkStatus();
  }
  // B's dims match the output's from `axis` on; every other axis repeats B.
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t axis = legacy.axis < 0 ? legacy.axis + rank : legacy.axis;
  bool ok = axis >= 0 && axis + in_b.rank() <= rank;
  for (int64_t k = 0; ok && k < in_b.rank(); ++k) {
    ok = in_b.dims[k] == 1 || in_b.dims[k] == dims[axis + k];
  }
  if (!ok) {
    return ctx.Error(absl::StrCat("B of shape [", absl::StrJoin(in_b.dims, ","),
                                  "] does not broadcast to A's shape [", absl::StrJoin(dims, ","),
                                  "] from axis ", legacy.axis));
  }
  TensorView view = in_b;
  view.dims.assign(dims.begin(), dims.end());
  view.strides.assign(rank, 0);
  for (int64_t k = 0; k < in_b.rank(); ++k) {
    if (in_b.dims[k] != 1) view.strides[axis + k] = in_b.strides[k];
  }
  *b = std::move(view);
  return absl::OkStatus();
}

absl::Status CheckSameTypes(const KernelContext& ctx, std::initializer_list<int> inputs) {
  const ElementType type = ctx.outputs()[0].type;
  for (int i : inputs) {
    if (ctx.HasInput(i) && ctx.input(i).type != type) {
      return ctx.Error(absl::StrCat("input ", i, " is ", AsAbsl(ElementTypeName(ctx.input(i).type)),
                                    ", expected ", AsAbsl(ElementTypeName(type))));
    }
  }
  return absl::OkStatus();
}

absl::Status NotAScalar(const KernelContext& ctx, int input, std::string_view what,
                        ElementType expected) {
  const TensorView& v = ctx.input(input);
  return ctx.Error(absl::StrCat(AsAbsl(what), " must be a single ",
                                AsAbsl(ElementTypeName(expected)), " element, got ",
                                v.DebugString()));
}

namespace {

float BinaryValue(simd::BinaryOp op, float a, float b) {
  switch (op) {
    case simd::BinaryOp::kAdd:
      return a + b;
    case simd::BinaryOp::kSub:
      return a - b;
    case simd::BinaryOp::kMul:
      return a * b;
    case simd::BinaryOp::kDiv:
      return a / b;
    case simd::BinaryOp::kMax:
      return MaxValue(a, b);
    case simd::BinaryOp::kMin:
      return MinValue(a, b);
  }
  return 0.0f;
}

// FloatBinary on float16 rows: each operand's chunk widened (a broadcast scalar once), the
// float32 row operation, the result narrowed.
void HalfBinary(simd::BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  const LoopPlan plan = PlanLoop(y.dims, {&a, &b});
  ForEachRow<2>(plan, y.data, sizeof(uint16_t), {a.data, b.data}, [op](const Row<2>& r) {
    const uint16_t* pa = r.In<uint16_t>(0);
    const uint16_t* pb = r.In<uint16_t>(1);
    uint16_t* o = r.Out<uint16_t>();
    const int64_t sa = r.step[0], sb = r.step[1];
    float fa[kHalfChunk], fb[kHalfChunk], out[kHalfChunk];
    const auto widen = [](const uint16_t* p, int64_t step, int64_t i0, int64_t m, float* dst) {
      if (step == 1) {
        simd::HalfToFloat(p + i0, dst, static_cast<size_t>(m));
      } else {
        for (int64_t i = 0; i < m; ++i) dst[i] = fp16::HalfToFloat(p[(i0 + i) * step]);
      }
    };
    for (int64_t i0 = 0; i0 < r.n; i0 += kHalfChunk) {
      const int64_t m = std::min(kHalfChunk, r.n - i0);
      const size_t n = static_cast<size_t>(m);
      if (sa == 0 && sb == 0) {
        std::fill(out, out + m, BinaryValue(op, fp16::HalfToFloat(*pa), fp16::HalfToFloat(*pb)));
      } else if (sb == 0) {
        widen(pa, sa, i0, m, fa);
        simd::BinaryVectorScalar(op, fa, fp16::HalfToFloat(*pb), out, n);
      } else if (sa == 0) {
        widen(pb, sb, i0, m, fb);
        simd::BinaryScalarVector(op, fp16::HalfToFloat(*pa), fb, out, n);
      } else {
        widen(pa, sa, i0, m, fa);
        widen(pb, sb, i0, m, fb);
        simd::BinaryVectorVector(op, fa, fb, out, n);
      }
      simd::FloatToHalf(out, o + i0, n);
    }
  });
}

}  // namespace

void FloatBinary(simd::BinaryOp op, const TensorView& a, const TensorView& b, const TensorView& y) {
  if (y.type == ElementType::kFloat16) return HalfBinary(op, a, b, y);
  const LoopPlan plan = PlanLoop(y.dims, {&a, &b});
  ForEachRow<2>(plan, y.data, sizeof(float), {a.data, b.data}, [op](const Row<2>& r) {
    const float* pa = r.In<float>(0);
    const float* pb = r.In<float>(1);
    float* o = r.Out<float>();
    const int64_t sa = r.step[0], sb = r.step[1];
    const size_t n = static_cast<size_t>(r.n);
    if (sa == 1 && sb == 1) {
      simd::BinaryVectorVector(op, pa, pb, o, n);
    } else if (sa == 1 && sb == 0) {
      simd::BinaryVectorScalar(op, pa, *pb, o, n);
    } else if (sa == 0 && sb == 1) {
      simd::BinaryScalarVector(op, *pa, pb, o, n);
    } else if (sa == 0 && sb == 0) {  // both repeat along the row (a later input varies)
      std::fill(o, o + n, BinaryValue(op, *pa, *pb));
    } else {
      for (int64_t i = 0; i < r.n; ++i) o[i] = BinaryValue(op, pa[i * sa], pb[i * sb]);
    }
  });
}

void FloatUnary(simd::UnaryOp op, const TensorView& x, const TensorView& y) {
  if (y.type == ElementType::kFloat16) {
    FloatUnaryRows(
        x, y, [op](const float* in, float* out, size_t n) { simd::Unary(op, in, out, n); },
        [](float v) { return v; });
    return;
  }
  const LoopPlan plan = PlanLoop(y.dims, {&x});
  ForEachRow<1>(plan, y.data, sizeof(float), {x.data}, [op](const Row<1>& r) {
    const float* px = r.In<float>(0);
    float* o = r.Out<float>();
    if (r.step[0] == 1) {
      simd::Unary(op, px, o, static_cast<size_t>(r.n));
    } else {
      // Gathered and run through the same SIMD routine, so that an element's value does not
      // depend on the layout it came in (the SIMD Exp, Tanh, ... differ from libm's in the last
      // bit): a strided or repeated input gives what its dense copy would.
      constexpr int64_t kChunk = 256;
      float gathered[kChunk];
      for (int64_t i0 = 0; i0 < r.n; i0 += kChunk) {
        const int64_t n = std::min(kChunk, r.n - i0);
        for (int64_t i = 0; i < n; ++i) gathered[i] = px[(i0 + i) * r.step[0]];
        simd::Unary(op, gathered, o + i0, static_cast<size_t>(n));
      }
    }
  });
}

}  // namespace anvil::elementwise
