#include "constprop/fold_deferred.h"

#include <algorithm>
#include <string>

#include "constprop/lazy_op.h"
#include "graph/op_table.h"
#include "kernels/tensor.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

// Inputs this small are read for shape inference even when they are not dense (shape and axes
// inputs); larger ones are only seen by their type and dims.
constexpr size_t kReadableInputBytes = 4096;

bool IsFloating(ElementType t) {
  return t == ElementType::kFloat || t == ElementType::kDouble || t == ElementType::kFloat16 ||
         t == ElementType::kBfloat16;
}

bool IsNumericOrBool(ElementType t) {
  return t != ElementType::kString && t != ElementType::kUndefined &&
         t != ElementType::kComplex64 && t != ElementType::kComplex128;
}

// Slice as (start, step) per dim; the ShapeHelper already computed the output dims.
std::shared_ptr<const Elements> SliceView(const Node& node, int64_t opset,
                                          const DisposableElements& x,
                                          const std::vector<std::shared_ptr<const Elements>>& in,
                                          const std::vector<int64_t>& out_dims) {
  const int64_t rank = static_cast<int64_t>(x.dims().size());
  std::vector<int64_t> starts, ends, axes, steps;
  auto read = [&](int i) {
    std::vector<int64_t> v;
    if (i < static_cast<int>(in.size()) && in[i] != nullptr) {
      for (int64_t k = 0; k < in[i]->NumElements(); ++k) v.push_back(in[i]->GetInt64(k));
    }
    return v;
  };
  if (opset < 10) {
    starts = node.GetInts("starts");
    ends = node.GetInts("ends");
    axes = node.GetInts("axes");
  } else {
    starts = read(1);
    ends = read(2);
    axes = read(3);
    steps = read(4);
  }
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) return nullptr;
  std::vector<int64_t> start_of(rank, 0), step_of(rank, 1);
  for (size_t j = 0; j < axes.size(); ++j) {
    int64_t axis = axes[j] < 0 ? axes[j] + rank : axes[j];
    if (axis < 0 || axis >= rank || steps[j] == 0) return nullptr;
    const int64_t n = x.dims()[axis];
    int64_t s = starts[j];
    if (s < 0) s += n;
    s = steps[j] > 0 ? std::clamp<int64_t>(s, 0, n) : std::clamp<int64_t>(s, 0, n - 1);
    start_of[axis] = s;
    step_of[axis] = steps[j];
  }
  return x.Slice(start_of, step_of, out_dims);
}

// Whether `dims` broadcasts to `target` (numpy: aligned at the end, each dim equal or 1).
bool BroadcastsTo(absl::Span<const int64_t> dims, absl::Span<const int64_t> target) {
  if (dims.size() > target.size()) return false;
  const size_t lead = target.size() - dims.size();
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != target[lead + k] && dims[k] != 1) return false;
  }
  return true;
}

// Concat as a selection: the operands' positions one after the other.
std::shared_ptr<const Elements> ConcatView(const Node& node,
                                           const std::vector<std::shared_ptr<const Elements>>& in,
                                           const ConstantOutput& output, DisposablePool& pool) {
  const int64_t rank = static_cast<int64_t>(output.dims.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nullptr;
  std::vector<std::shared_ptr<const DisposableElements>> operands;
  std::vector<DisposableElements::Pick> picks;
  for (const auto& e : in) {
    if (e == nullptr || e->element_type() != output.type ||
        static_cast<int64_t>(e->dims().size()) != rank) {
      return nullptr;
    }
    for (int64_t i = 0; i < e->dims()[axis]; ++i) {
      picks.push_back({static_cast<int32_t>(operands.size()), i});
    }
    operands.push_back(DisposableElements::Wrap(e, pool));
  }
  if (static_cast<int64_t>(picks.size()) != output.dims[axis]) return nullptr;
  return DisposableElements::Select(output.type, output.dims, axis, std::move(operands),
                                    std::move(picks));
}

// Gather with constant indices of any rank: the data's positions along the axis picked by the
// indices in row-major order (a view when they step evenly, else a remap or a selection's
// picks), then the axis reshaped into the indices' dims.
std::shared_ptr<const Elements> GatherView(const Node& node, const DisposableElements& data,
                                           const std::vector<std::shared_ptr<const Elements>>& in,
                                           const ConstantOutput& output) {
  if (in.size() < 2 || in[1] == nullptr || in[1]->NumElements() > (1 << 20)) return nullptr;
  const ElementType index_type = in[1]->element_type();
  if (index_type != ElementType::kInt64 && index_type != ElementType::kInt32) return nullptr;
  const int64_t rank = static_cast<int64_t>(data.dims().size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nullptr;
  const int64_t n = data.dims()[axis];
  std::vector<uint8_t> bytes(in[1]->ByteSize());
  if (!bytes.empty()) in[1]->CopyTo(bytes.data());
  std::vector<int64_t> indices(in[1]->NumElements());
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t index = ReadElementAsInt64(index_type, bytes.data(), static_cast<int64_t>(k));
    if (index < 0) index += n;
    if (index < 0 || index >= n) return nullptr;  // the kernel reports it
    indices[k] = index;
  }
  std::shared_ptr<const DisposableElements> picked = data.Gather(axis, indices);
  if (in[1]->dims().size() == 1) return picked;
  return picked->Reshape(output.dims, /*remap=*/true);
}

}  // namespace

std::optional<ConstantOutput> InferConstantOutput(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs) {
  std::optional<std::vector<ConstantOutput>> outputs =
      InferConstantOutputs(node, opset, inputs, /*count=*/1);
  if (!outputs) return std::nullopt;
  return std::move((*outputs)[0]);
}

std::optional<std::vector<ConstantOutput>> InferConstantOutputs(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& inputs,
    int count) {
  std::vector<RuntimeOperand> operands(inputs.size());
  std::vector<Tensor> temporaries(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) continue;
    const void* data = inputs[i]->ContiguousData();
    if (data == nullptr && inputs[i]->ByteSize() <= kReadableInputBytes) {
      temporaries[i] = Tensor::FromElements(*inputs[i]);
      data = temporaries[i].data();
    }
    operands[i] = {inputs[i]->element_type(), inputs[i]->dims(), data};
  }
  RuntimeBuilder builder(operands);
  ShapeContext shape_ctx(node, opset, builder);
  if (!InferNodeShapes(shape_ctx).ok() || static_cast<int>(shape_ctx.outputs().size()) < count) {
    return std::nullopt;
  }
  std::vector<ConstantOutput> outputs;
  for (int i = 0; i < count; ++i) {
    const TensorInfo& info = shape_ctx.output(i);
    std::optional<std::vector<int64_t>> dims = LiteralDims(info);
    if (!dims) return std::nullopt;
    outputs.push_back({info.type, *std::move(dims)});
  }
  return outputs;
}

std::shared_ptr<const Elements> FoldAsView(const Node& node, int64_t opset,
                                           const std::vector<std::shared_ptr<const Elements>>& in,
                                           const ConstantOutput& output,
                                           const ConstPropOptions& options, DisposablePool& pool,
                                           std::string_view* kind) {
  *kind = "views";
  const std::string& op = node.op_type();
  // Split's outputs are views of their own (SplitAsViews).
  if (!HasTrait(node, kView) || op == "Split") return nullptr;
  if (in.empty() || in[0] == nullptr || in[0]->element_type() == ElementType::kString ||
      output.type == ElementType::kString) {
    return nullptr;
  }
  std::shared_ptr<const DisposableElements> x = DisposableElements::Wrap(in[0], pool);
  // Selections and remaps cost more to read than a dense copy: only with laziness on, for large
  // results, or for any result of a lazy input (which the kernel would read whole, however little
  // of it the result keeps).
  int64_t bytes = static_cast<int64_t>(ElementSize(output.type));
  for (int64_t d : output.dims) bytes *= d;
  bool lazy_input = false;
  for (const auto& e : in) {
    const auto* d = dynamic_cast<const DisposableElements*>(e.get());
    lazy_input |= d != nullptr && d->is_lazy();
  }
  const bool computed_when_read = options.lazy && (bytes >= options.lazy_min_bytes || lazy_input);
  if (op == "Identity") return x;
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    std::shared_ptr<const DisposableElements> view = x->Reshape(output.dims);
    if (view != nullptr || !computed_when_read) return view;
    *kind = "remaps";
    return x->Reshape(output.dims, /*remap=*/true);
  }
  if (op == "Expand") return x->BroadcastTo(output.dims);
  if (op == "Transpose") {
    std::vector<int64_t> perm = node.GetInts("perm");
    if (perm.empty()) {
      for (int64_t k = static_cast<int64_t>(x->dims().size()) - 1; k >= 0; --k) {
        perm.push_back(k);
      }
    }
    return x->Transpose(perm);
  }
  if (op == "Slice") return SliceView(node, opset, *x, in, output.dims);
  if (!computed_when_read) return nullptr;
  if (op == "Concat") {
    *kind = "selections";
    return ConcatView(node, in, output, pool);
  }
  if (op == "Gather") {
    *kind = "remaps";
    return GatherView(node, *x, in, output);
  }
  return nullptr;
}

std::vector<std::shared_ptr<const Elements>> SplitAsViews(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& in,
    DisposablePool& pool) {
  if (node.op_type() != "Split" || in.empty() || in[0] == nullptr ||
      in[0]->element_type() == ElementType::kString) {
    return {};
  }
  for (const Value* out : node.outputs()) {
    if (out == nullptr) return {};
  }
  std::optional<std::vector<ConstantOutput>> outputs =
      InferConstantOutputs(node, opset, in, node.num_outputs());
  if (!outputs) return {};
  std::shared_ptr<const DisposableElements> x = DisposableElements::Wrap(in[0], pool);
  const int64_t rank = static_cast<int64_t>(x->dims().size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return {};
  std::vector<std::shared_ptr<const Elements>> parts;
  std::vector<int64_t> starts(rank, 0), steps(rank, 1);
  for (const ConstantOutput& part : *outputs) {
    if (static_cast<int64_t>(part.dims.size()) != rank ||
        starts[axis] + part.dims[axis] > x->dims()[axis]) {
      return {};
    }
    parts.push_back(x->Slice(starts, steps, part.dims));
    starts[axis] += part.dims[axis];
  }
  return parts;
}

std::shared_ptr<const DisposableElements> ElementwiseExpression(
    const Node& node, int64_t opset, const std::vector<std::shared_ptr<const Elements>>& in,
    const ConstantOutput& output, DisposablePool& pool) {
  const OpInfo* info = FindOp(node.domain(), node.op_type(), opset);
  if (info == nullptr || !info->Has(kElementwise) || node.num_outputs() != 1) return nullptr;
  // Legacy broadcasting (opset < 7: `broadcast`/`axis` attributes) is not numpy's.
  if (node.FindAttribute("broadcast") != nullptr || node.FindAttribute("axis") != nullptr) {
    return nullptr;
  }
  if (!IsNumericOrBool(output.type)) return nullptr;
  const bool cast_like = node.op_type() == "CastLike";
  std::vector<std::shared_ptr<const DisposableElements>> operands(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == nullptr) continue;
    if (!IsNumericOrBool(in[i]->element_type())) return nullptr;
    std::shared_ptr<const DisposableElements> x = DisposableElements::Wrap(in[i], pool);
    if (cast_like && i == 1) {
      // CastLike's second input only gives the type: one element of it will do.
      if (x->NumElements() == 0) return nullptr;
      const std::vector<int64_t> zeros(x->dims().size(), 0), ones(x->dims().size(), 1);
      x = x->Slice(zeros, ones, ones);
    }
    if (!BroadcastsTo(x->dims(), output.dims)) return nullptr;
    operands[i] = x->BroadcastTo(output.dims);
  }
  absl::StatusOr<std::shared_ptr<const LazyOp>> op = LazyOp::Create(node, opset);
  if (!op.ok()) return nullptr;
  return std::make_shared<DisposableElements>(*std::move(op), output.type, output.dims,
                                              std::move(operands));
}

bool CannotFailOnData(const Node& node, ElementType result) {
  const bool cast = node.op_type() == "Cast" || node.op_type() == "CastLike";
  return cast || IsFloating(result) || result == ElementType::kBool;
}

bool MayStayLazy(const Node& node, const DisposableElements& expression,
                 const ConstPropOptions& options) {
  // Only kernels that cannot fail on data, so that reading the elements later cannot either.
  if (!CannotFailOnData(node, expression.element_type())) return false;
  if (static_cast<int64_t>(expression.ByteSize()) < options.lazy_min_bytes) return false;
  if (expression.lazy_op_count() > options.max_lazy_ops) return false;
  // The kernel accepts these types and attributes: its first element computes.
  uint8_t first[16];
  return expression.NumElements() > 0 && expression.Evaluate(0, 1, 0, 1, first, 1).ok();
}

}  // namespace anvil
