// Kernels of the sequence and optional ops. A sequence is a Tensor of kind kSequence holding its
// element tensors (kernels/tensor.h); ops that rearrange sequences share the element buffers
// instead of copying them, and a tensor put into a sequence is copied once (its view may be
// arena memory the next step reuses). An optional is its value when present and a kNoneOptional
// Tensor when empty. Outputs that are sequences, optionals or whole element tensors go out with
// KernelContext::SetOutputValue.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/node_errors.h"
#include "kernels/kernel_rules.h"
#include "kernels/ops/data_internal.h"
#include "kernels/ops/op_util.h"

namespace anvil::sequence_ops {
namespace {

// The tensors of sequence input `i`.
absl::StatusOr<const std::vector<Tensor>*> SequenceInput(const KernelContext& ctx, int i) {
  const TensorView& v = ctx.input(i);
  if (v.kind != ValueKind::kSequence || v.elements == nullptr) {
    return ctx.Error(absl::StrCat("input ", i, " must be a sequence, is ",
                                  v.kind == ValueKind::kNoneOptional ? "an empty optional"
                                                                     : v.DebugString()));
  }
  return v.elements;
}

// A position input (one int32/int64) in [-n, n) (or [-n, n] when `end_ok`), made non-negative.
absl::StatusOr<int64_t> Position(const KernelContext& ctx, int i, int64_t n, bool end_ok) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<int64_t> values, ReadInt64s(ctx, i));
  // A scalar per the spec; exporters (and the backend tests) also write one-element tensors.
  if (values.size() != 1) {
    return ctx.Error(absl::StrCat("position ", ctx.input(i).DebugString(), " is not a scalar"));
  }
  const int64_t p = values[0];
  const int64_t hi = end_ok ? n : n - 1;
  if (p < -n || p > hi) {
    return ctx.Error(absl::StrCat("position ", p, " is out of range for a sequence of ", n,
                                  " tensors"));
  }
  return p < 0 ? p + n : p;
}

// Output 0 is `t`: into the preallocated output (a copy) when the ShapeHelper sized it, else
// handed over whole.
absl::Status EmitTensor(KernelContext& ctx, int i, const Tensor& t) {
  if (ctx.IsOutputAllocated(i)) {
    TensorView& out = ctx.output(i);
    if (out.type != t.type() || out.dims != t.dims()) {
      return ctx.Error(absl::StrCat("output ", i, " ", out.DebugString(), " cannot hold ",
                                    t.view().DebugString()));
    }
    data_ops::CopyView(out, t.view());
    return absl::OkStatus();
  }
  return ctx.SetOutputValue(i, t);
}

// An owned copy of input `i` (a tensor's view may be arena memory; a sequence shares its tensors).
Tensor Own(const KernelContext& ctx, int i) { return Tensor::CopyOf(ctx.input(i)); }

absl::Status SequenceEmpty(KernelContext& ctx) {
  const int64_t dtype = ctx.node().GetInt("dtype", static_cast<int64_t>(ElementType::kFloat));
  if (dtype < 0 || dtype > INT32_MAX || !IsValidElementType(static_cast<int32_t>(dtype))) {
    return ctx.Error(absl::StrCat("dtype ", dtype, " is not an ONNX data type"));
  }
  return ctx.SetOutputValue(0, Tensor::Sequence(static_cast<ElementType>(dtype), {}));
}

absl::Status SequenceConstruct(KernelContext& ctx) {
  std::vector<Tensor> tensors;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.input(i).is_tensor() || ctx.input(i).type != ctx.input(0).type) {
      return ctx.Error(absl::StrCat("input ", i, " ", ctx.input(i).DebugString(),
                                    " is not a tensor of input 0's type ",
                                    AsAbsl(ElementTypeName(ctx.input(0).type))));
    }
    tensors.push_back(Own(ctx, i));
  }
  return ctx.SetOutputValue(0, Tensor::Sequence(ctx.input(0).type, std::move(tensors)));
}

absl::Status SequenceInsert(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<Tensor>* in, SequenceInput(ctx, 0));
  const TensorView& t = ctx.input(1);
  if (!t.is_tensor() || t.type != ctx.input(0).type) {
    return ctx.Error(absl::StrCat("cannot insert ", t.DebugString(), " into a sequence of ",
                                  AsAbsl(ElementTypeName(ctx.input(0).type))));
  }
  const int64_t n = static_cast<int64_t>(in->size());
  int64_t position = n;
  if (ctx.HasInput(2)) {
    ANVIL_ASSIGN_OR_RETURN(position, Position(ctx, 2, n, /*end_ok=*/true));
  }
  std::vector<Tensor> tensors = *in;
  tensors.insert(tensors.begin() + position, Own(ctx, 1));
  return ctx.SetOutputValue(0, Tensor::Sequence(ctx.input(0).type, std::move(tensors)));
}

absl::Status SequenceAt(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<Tensor>* in, SequenceInput(ctx, 0));
  ANVIL_ASSIGN_OR_RETURN(const int64_t position,
                         Position(ctx, 1, static_cast<int64_t>(in->size()), /*end_ok=*/false));
  return EmitTensor(ctx, 0, (*in)[position]);
}

absl::Status SequenceErase(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<Tensor>* in, SequenceInput(ctx, 0));
  const int64_t n = static_cast<int64_t>(in->size());
  if (n == 0) return ctx.Error("cannot erase from an empty sequence");
  int64_t position = n - 1;
  if (ctx.HasInput(1)) {
    ANVIL_ASSIGN_OR_RETURN(position, Position(ctx, 1, n, /*end_ok=*/false));
  }
  std::vector<Tensor> tensors = *in;
  tensors.erase(tensors.begin() + position);
  return ctx.SetOutputValue(0, Tensor::Sequence(ctx.input(0).type, std::move(tensors)));
}

absl::Status SequenceLength(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<Tensor>* in, SequenceInput(ctx, 0));
  Tensor length(ElementType::kInt64, {});
  *length.As<int64_t>() = static_cast<int64_t>(in->size());
  return EmitTensor(ctx, 0, length);
}

// Pieces of input 0 along `axis`: the sizes of `split` (a 1-D input), equal pieces of a scalar
// split (the last one shorter), or pieces of 1 (dropped when keepdims = 0) without one.
absl::Status SplitToSequence(KernelContext& ctx) {
  const TensorView& x = ctx.input(0);
  if (!x.is_tensor() || x.rank() == 0) {
    return ctx.Error(absl::StrCat("input ", x.DebugString(), " must be a tensor of rank >= 1"));
  }
  ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                         anvil::NormalizeAxis(ctx.node(), ctx.node().GetInt("axis", 0), x.rank(), "axis"));
  const int64_t length = x.dims[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!ctx.HasInput(1)) {
    sizes.assign(length, 1);
    squeeze = ctx.node().GetInt("keepdims", 1) == 0;
  } else {
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> split, ReadInt64s(ctx, 1));
    if (ctx.input(1).rank() == 0) {
      if (split[0] <= 0) return ctx.Error(absl::StrCat("split ", split[0], " is not positive"));
      for (int64_t at = 0; at < length; at += split[0]) sizes.push_back(std::min(split[0], length - at));
    } else {
      int64_t total = 0;
      for (int64_t s : split) {
        if (s < 0) return ctx.Error(absl::StrCat("split size ", s, " is negative"));
        total += s;
      }
      if (total != length) {
        return ctx.Error(absl::StrCat("split sizes add up to ", total, ", axis ", axis, " has ",
                                      length));
      }
      sizes = std::move(split);
    }
  }
  std::vector<Tensor> pieces;
  int64_t at = 0;
  for (int64_t size : sizes) {
    TensorView piece = data_ops::Offset(x, at * x.strides[axis]);
    piece.dims[axis] = size;
    if (squeeze) {  // pieces of 1: the axis dropped from the view, so one copy makes the piece
      piece.dims.erase(piece.dims.begin() + axis);
      piece.strides.erase(piece.strides.begin() + axis);
    }
    pieces.push_back(Tensor::CopyOf(piece));
    at += size;
  }
  return ctx.SetOutputValue(0, Tensor::Sequence(x.type, std::move(pieces)));
}

// The elements joined along `axis` (or stacked along a new one with new_axis = 1): they must
// agree on every other dim.
absl::Status ConcatFromSequence(KernelContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const std::vector<Tensor>* in, SequenceInput(ctx, 0));
  if (in->empty()) return ctx.Error("cannot concatenate an empty sequence");
  const bool new_axis = ctx.node().GetInt("new_axis", 0) != 0;
  const Shape& first = (*in)[0].dims();
  const int64_t rank = static_cast<int64_t>(first.size()) + (new_axis ? 1 : 0);
  ANVIL_ASSIGN_OR_RETURN(const int64_t axis,
                         anvil::NormalizeAxis(ctx.node(), ctx.node().GetInt("axis", 0), rank, "axis"));
  // Each element as a tensor of `rank` dims (a 1 inserted at `axis` when stacking).
  auto dims_of = [&](const Tensor& t) {
    Shape d = t.dims();
    if (new_axis) d.insert(d.begin() + axis, 1);
    return d;
  };
  Shape out_dims = dims_of((*in)[0]);
  out_dims[axis] = 0;
  for (size_t k = 0; k < in->size(); ++k) {
    const Shape d = dims_of((*in)[k]);
    bool same = d.size() == out_dims.size();
    for (int64_t j = 0; same && j < rank; ++j) same = j == axis || d[j] == out_dims[j];
    if (!same) {
      return ctx.Error(absl::StrCat("element ", k, " ", (*in)[k].view().DebugString(),
                                    " does not match element 0 ", (*in)[0].view().DebugString(),
                                    " off axis ", axis));
    }
    out_dims[axis] += d[axis];
  }
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, ctx.AllocateOutput(0, out_dims));
  int64_t at = 0;
  for (const Tensor& t : *in) {
    const Shape d = dims_of(t);
    TensorView dst = data_ops::Offset(*out, at * out->strides[axis]);
    dst.dims = d;
    data_ops::CopyView(dst, TensorView::Dense(t.type(), t.data(), d));
    at += d[axis];
  }
  return absl::OkStatus();
}

absl::Status Optional(KernelContext& ctx) {
  if (ctx.HasInput(0)) return ctx.SetOutputValue(0, Own(ctx, 0));
  // An empty optional: its element type when the `type` attribute's TypeProto says a tensor's
  // (the element type is only informative: nothing reads an empty optional's elements).
  return ctx.SetOutputValue(0, Tensor::NoneOptional(ctx.node().output(0)->type().elem().element_type()));
}

absl::Status OptionalHasElement(KernelContext& ctx) {
  Tensor has(ElementType::kBool, {});
  *has.As<uint8_t>() = ctx.HasInput(0) && ctx.input(0).kind != ValueKind::kNoneOptional;
  return EmitTensor(ctx, 0, has);
}

absl::Status OptionalGetElement(KernelContext& ctx) {
  if (!ctx.HasInput(0) || ctx.input(0).kind == ValueKind::kNoneOptional) {
    return ctx.Error("the optional is empty");
  }
  if (ctx.input(0).is_tensor() && ctx.IsOutputAllocated(0)) {
    data_ops::CopyView(ctx.output(0), ctx.input(0));
    return absl::OkStatus();
  }
  return ctx.SetOutputValue(0, Own(ctx, 0));
}

}  // namespace
}  // namespace anvil::sequence_ops

namespace anvil::kernel_rules {

namespace sq = sequence_ops;

// Sorted by op_type.
const KernelRule kSequenceKernels[] = {
    {"", "ConcatFromSequence", &Stateless<sq::ConcatFromSequence>},
    {"", "Optional", &Stateless<sq::Optional>},
    {"", "OptionalGetElement", &Stateless<sq::OptionalGetElement>},
    {"", "OptionalHasElement", &Stateless<sq::OptionalHasElement>},
    {"", "SequenceAt", &Stateless<sq::SequenceAt>},
    {"", "SequenceConstruct", &Stateless<sq::SequenceConstruct>},
    {"", "SequenceEmpty", &Stateless<sq::SequenceEmpty>},
    {"", "SequenceErase", &Stateless<sq::SequenceErase>},
    {"", "SequenceInsert", &Stateless<sq::SequenceInsert>},
    {"", "SequenceLength", &Stateless<sq::SequenceLength>},
    {"", "SplitToSequence", &Stateless<sq::SplitToSequence>},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
