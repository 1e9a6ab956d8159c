// Control-flow kernels: If, Loop and Scan. Their bodies run through KernelContext::RunSubgraph
// (the runtime's subgraph executor, or the reference interpreter's), which returns each body
// output as a tensor of its own; the kernels only sequence iterations and move bytes, so one
// implementation serves every element type.
//
// Output shapes come from running the bodies (the runtime builder cannot infer subgraphs), so
// every output is allocated here with AllocateOutput; the caller decides the element type (the
// type inferred or declared; the body's result's when there is none) and a body result of
// another type is an error.
//
// Scan inputs are passed to the body as strided views of one slice of the input (no copy);
// scan outputs are collected per iteration and written once into the stacked output.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/kernel_rules.h"
#include "kernels/ops/data_internal.h"

namespace anvil::kernel_rules {
namespace {

const Graph* GraphAttribute(const Node& node, std::string_view name) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr || a->type() != AttributeType::kGraph || a->graphs.empty()) return nullptr;
  return a->graphs[0].get();
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The view of element `index` along `axis` (the axis removed): a strided slice, no copy.
TensorView SliceAt(const TensorView& v, int64_t axis, int64_t index) {
  TensorView s;
  s.type = v.type;
  s.data = static_cast<uint8_t*>(v.data) + index * v.strides[axis] * v.ElementBytes();
  for (int64_t k = 0; k < v.rank(); ++k) {
    if (k == axis) continue;
    s.dims.push_back(v.dims[k]);
    s.strides.push_back(v.strides[k]);
  }
  return s;
}

// Copies `src` into `dst` (same dims, both possibly strided), element by element; the innermost
// dim goes by memcpy when it is dense on both sides.
void CopyView(const TensorView& src, const TensorView& dst) {
  const int64_t n = src.NumElements();
  if (n == 0) return;
  if (src.type == ElementType::kString) return data_ops::CopyView(dst, src);
  const size_t size = src.ElementBytes();
  if (src.Contiguous() && dst.Contiguous()) {
    std::memcpy(dst.data, src.data, n * size);
    return;
  }
  const int64_t rank = src.rank();
  if (rank == 0) {
    std::memcpy(dst.data, src.data, size);
    return;
  }
  const int64_t inner = src.dims[rank - 1];
  const bool dense_inner = src.strides[rank - 1] == 1 && dst.strides[rank - 1] == 1;
  Shape index(rank, 0);
  const auto* s = static_cast<const uint8_t*>(src.data);
  auto* d = static_cast<uint8_t*>(dst.data);
  for (int64_t row = 0; row < n / inner; ++row) {
    int64_t so = 0, doff = 0;
    for (int64_t k = 0; k + 1 < rank; ++k) {
      so += index[k] * src.strides[k];
      doff += index[k] * dst.strides[k];
    }
    if (dense_inner) {
      std::memcpy(d + doff * size, s + so * size, inner * size);
    } else {
      for (int64_t j = 0; j < inner; ++j) {
        std::memcpy(d + (doff + j * dst.strides[rank - 1]) * size,
                    s + (so + j * src.strides[rank - 1]) * size, size);
      }
    }
    for (int64_t k = rank - 2; k >= 0; --k) {
      if (++index[k] < src.dims[k]) break;
      index[k] = 0;
    }
  }
}

// Allocates output `i` with `dims` and checks that its type is `type` (the body's result, and
// the output's type when the model gives none).
absl::StatusOr<TensorView*> AllocateTyped(KernelContext& ctx, int i, ElementType type,
                                          absl::Span<const int64_t> dims) {
  absl::StatusOr<TensorView*> out = ctx.AllocateOutput(i, dims, type);
  if (!out.ok()) return out.status();
  if ((*out)->type != type) {
    return ctx.Error(absl::StrCat("output ", i, " is declared ",
                                  std::string(ElementTypeName((*out)->type)),
                                  " but the body computes ", std::string(ElementTypeName(type))));
  }
  return out;
}

// Writes a body result to output `i`.
absl::Status EmitTensor(KernelContext& ctx, int i, const TensorView& value) {
  if (!ctx.HasOutput(i)) return absl::OkStatus();
  // A sequence or empty optional goes out whole (sharing the element tensors).
  if (!value.is_tensor()) return ctx.SetOutputValue(i, Tensor::CopyOf(value));
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, AllocateTyped(ctx, i, value.type, value.dims));
  CopyView(value, *out);
  return absl::OkStatus();
}

// A scalar (or one-element) tensor's value as an integer; false for an empty one.
absl::StatusOr<int64_t> ScalarValue(const KernelContext& ctx, const TensorView& v,
                                    std::string_view what) {
  if (v.NumElements() != 1) {
    return ctx.Error(
        absl::StrCat(std::string(what), " must hold one element, has ", v.NumElements()));
  }
  return ReadElementAsInt64(v.type, static_cast<const uint8_t*>(v.data), 0);
}

// Stacks per-iteration values along `axis` of the result (prepending when `reverse`) into
// output `i`. `empty_dims` gives the per-iteration dims when there were no iterations.
absl::Status EmitStacked(KernelContext& ctx, int i, const std::vector<Tensor>& items,
                         int64_t axis_attr, bool reverse, ElementType empty_type,
                         const Shape& empty_dims) {
  if (!ctx.HasOutput(i)) return absl::OkStatus();
  const ElementType type = items.empty() ? empty_type : items[0].type();
  Shape item_dims = items.empty() ? empty_dims : items[0].dims();
  for (const Tensor& t : items) {
    if (t.dims() != item_dims || t.type() != type) {
      return ctx.Error(absl::StrCat("scan output ", i, " changes across iterations: ",
                                    DimsString(item_dims), " then ", DimsString(t.dims())));
    }
  }
  const int64_t rank = static_cast<int64_t>(item_dims.size()) + 1;
  const int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  if (axis < 0 || axis >= rank) {
    return ctx.Error(
        absl::StrCat("scan output axis ", axis_attr, " is out of range for rank ", rank));
  }
  Shape dims = item_dims;
  dims.insert(dims.begin() + axis, static_cast<int64_t>(items.size()));
  ANVIL_ASSIGN_OR_RETURN(TensorView* out, AllocateTyped(ctx, i, type, dims));
  const int64_t count = static_cast<int64_t>(items.size());
  for (int64_t t = 0; t < count; ++t) {
    CopyView(items[t].view(), SliceAt(*out, axis, reverse ? count - 1 - t : t));
  }
  return absl::OkStatus();
}

// Per-iteration dims of a body output as declared (literal dims; unknown ones 0), for stacking
// zero iterations.
Shape DeclaredDims(const Value* v) {
  Shape dims;
  if (v == nullptr || !v->type().has_shape()) return dims;
  for (const Dim& d : v->type().shape()) dims.push_back(d.is_literal() ? *d.value : 0);
  return dims;
}

// Element type of a stacked output with no iterations to take it from: the node output's, else
// the body output's (either may be untyped when no shape inference ran).
ElementType StackedType(const Value* node_out, const Value* body_out) {
  for (const Value* v : {node_out, body_out}) {
    if (v != nullptr && v->type().element_type() != ElementType::kUndefined) {
      return v->type().element_type();
    }
  }
  return ElementType::kUndefined;
}

// ---- If ----

class IfKernel final : public OpKernel {
 public:
  IfKernel(const Graph* then_branch, const Graph* else_branch)
      : then_(then_branch), else_(else_branch) {}

  absl::Status Compute(KernelContext& ctx) override {
    ANVIL_ASSIGN_OR_RETURN(int64_t cond, ScalarValue(ctx, ctx.input(0), "the condition"));
    const Graph& branch = cond != 0 ? *then_ : *else_;
    ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> results, ctx.RunSubgraph(branch, {}));
    if (static_cast<int>(results.size()) != ctx.num_outputs()) {
      return ctx.Error(absl::StrCat("the ", cond != 0 ? "then" : "else", " branch returns ",
                                    results.size(), " values for ", ctx.num_outputs(), " outputs"));
    }
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      ANVIL_RETURN_IF_ERROR(EmitTensor(ctx, i, results[i].view()));
    }
    return absl::OkStatus();
  }

 private:
  const Graph* then_;
  const Graph* else_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeIf(const Node& node, int64_t) {
  const Graph* then_branch = GraphAttribute(node, "then_branch");
  const Graph* else_branch = GraphAttribute(node, "else_branch");
  if (then_branch == nullptr || else_branch == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": needs graph attributes then_branch and else_branch"));
  }
  return std::unique_ptr<OpKernel>(new IfKernel(then_branch, else_branch));
}

// ---- Loop ----
// Loop(M, cond, v_initial...) with body (iteration_num, cond, v...) -> (cond, v..., scans...).

class LoopKernel final : public OpKernel {
 public:
  explicit LoopKernel(const Graph* body) : body_(body) {}

  absl::Status Compute(KernelContext& ctx) override {
    const int num_carried = ctx.num_inputs() - 2;
    const int num_scans = ctx.num_outputs() - num_carried;
    if (num_carried < 0 || num_scans < 0) {
      return ctx.Error(
          absl::StrCat("has ", ctx.num_inputs(), " inputs and ", ctx.num_outputs(), " outputs"));
    }
    int64_t max_trips = std::numeric_limits<int64_t>::max();
    if (ctx.HasInput(0)) {
      ANVIL_ASSIGN_OR_RETURN(max_trips, ScalarValue(ctx, ctx.input(0), "the trip count M"));
    }
    bool cond = true;
    if (ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(int64_t c, ScalarValue(ctx, ctx.input(1), "the condition"));
      cond = c != 0;
    }
    std::vector<TensorView> carried;
    for (int i = 0; i < num_carried; ++i) carried.push_back(ctx.input(2 + i));
    std::vector<Tensor> carried_owner;  // keeps the previous iteration's results alive
    std::vector<std::vector<Tensor>> scans(num_scans);
    std::vector<int64_t> scan_bytes(num_scans, 0);  // what scans[k] holds

    Tensor iteration(ElementType::kInt64, {});
    Tensor condition(ElementType::kBool, {});
    int64_t trip = 0;
    for (; trip < max_trips && cond; ++trip) {
      *iteration.As<int64_t>() = trip;
      *condition.As<uint8_t>() = 1;
      std::vector<TensorView> args = {iteration.view(), condition.view()};
      args.insert(args.end(), carried.begin(), carried.end());
      ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> results, ctx.RunSubgraph(*body_, args));
      if (static_cast<int>(results.size()) != 1 + num_carried + num_scans) {
        return ctx.Error(absl::StrCat("the body returns ", results.size(),
                                      " values, the loop needs ", 1 + num_carried + num_scans));
      }
      ANVIL_ASSIGN_OR_RETURN(int64_t next,
                             ScalarValue(ctx, results[0].view(), "the body's condition"));
      cond = next != 0;
      carried_owner.assign(results.begin() + 1, results.begin() + 1 + num_carried);
      for (int i = 0; i < num_carried; ++i) carried[i] = carried_owner[i].view();
      for (int k = 0; k < num_scans; ++k) {
        scans[k].push_back(results[1 + num_carried + k]);
        scan_bytes[k] += static_cast<int64_t>(scans[k].back().ByteSize());
        ANVIL_RETURN_IF_ERROR(
            ctx.CheckHeldBytes(num_carried + k, scan_bytes[k], trip + 1, scans[k].back()));
      }
    }
    for (int i = 0; i < num_carried; ++i) {
      ANVIL_RETURN_IF_ERROR(EmitTensor(ctx, i, carried[i]));
    }
    for (int k = 0; k < num_scans; ++k) {
      const int out = num_carried + k;
      const Value* body_out = body_->outputs()[1 + num_carried + k];
      const ElementType empty_type = StackedType(ctx.node().output(out), body_out);
      ANVIL_RETURN_IF_ERROR(
          EmitStacked(ctx, out, scans[k], 0, false, empty_type, DeclaredDims(body_out)));
    }
    return absl::OkStatus();
  }

 private:
  const Graph* body_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeLoop(const Node& node, int64_t) {
  const Graph* body = GraphAttribute(node, "body");
  if (body == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": needs graph attribute body"));
  }
  const int num_carried = node.num_inputs() - 2;
  if (num_carried < 0 || static_cast<int>(body->inputs().size()) != num_carried + 2 ||
      static_cast<int>(body->outputs().size()) != node.num_outputs() + 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": the body takes ", body->inputs().size(),
                     " inputs and returns ", body->outputs().size(), " values for a loop with ",
                     node.num_inputs(), " inputs and ", node.num_outputs(), " outputs"));
  }
  return std::unique_ptr<OpKernel>(new LoopKernel(body));
}

// ---- Scan ----
// Scan-9+: (state..., scan...) -> (state..., scan_out...), per-input axes and directions.
// Scan-8: (sequence_lens, state..., scan...) with a leading batch dim on everything; the
// sequence axis of scan inputs and outputs is 1.

class ScanKernel final : public OpKernel {
 public:
  ScanKernel(const Graph* body, bool v8, int64_t num_scan_inputs, std::vector<int64_t> in_axes,
             std::vector<int64_t> in_directions, std::vector<int64_t> out_axes,
             std::vector<int64_t> out_directions)
      : body_(body),
        v8_(v8),
        num_scan_inputs_(num_scan_inputs),
        in_axes_(std::move(in_axes)),
        in_directions_(std::move(in_directions)),
        out_axes_(std::move(out_axes)),
        out_directions_(std::move(out_directions)) {}

  absl::Status Compute(KernelContext& ctx) override {
    const int first = v8_ ? 1 : 0;
    const int num_state = ctx.num_inputs() - first - static_cast<int>(num_scan_inputs_);
    const int num_scan_out = ctx.num_outputs() - num_state;
    if (num_state < 0 || num_scan_out < 0) {
      return ctx.Error("num_scan_inputs does not fit the inputs and outputs");
    }
    // The body's signature is states then scan items in, states then scan outputs out; a body
    // with fewer outputs had its missing ones read past the end (the model fuzzer found it).
    const size_t body_in = static_cast<size_t>(num_state + num_scan_inputs_);
    const size_t body_out = static_cast<size_t>(num_state + num_scan_out);
    if (body_->inputs().size() != body_in || body_->outputs().size() != body_out) {
      return ctx.Error(absl::StrCat(
          "the body takes ", body_->inputs().size(), " inputs and gives ", body_->outputs().size(),
          " outputs where ", num_state, " states, ", num_scan_inputs_, " scan inputs and ",
          num_scan_out, " scan outputs need ", body_in, " and ", body_out));
    }
    if (!v8_) {
      std::vector<TensorView> states, scans;
      for (int i = 0; i < num_state; ++i) states.push_back(ctx.input(first + i));
      for (int j = 0; j < num_scan_inputs_; ++j) scans.push_back(ctx.input(first + num_state + j));
      std::vector<Tensor> final_states;
      std::vector<std::vector<Tensor>> outs;
      ANVIL_RETURN_IF_ERROR(RunSequence(ctx, states, scans, -1, &final_states, &outs));
      for (int i = 0; i < num_state; ++i) {
        ANVIL_RETURN_IF_ERROR(EmitTensor(ctx, i, final_states[i].view()));
      }
      for (int k = 0; k < num_scan_out; ++k) {
        const int64_t axis = k < static_cast<int>(out_axes_.size()) ? out_axes_[k] : 0;
        const bool reverse = k < static_cast<int>(out_directions_.size()) && out_directions_[k];
        ANVIL_RETURN_IF_ERROR(EmitStacked(ctx, num_state + k, outs[k], axis, reverse,
                                          EmptyType(ctx, num_state + k),
                                          DeclaredDims(body_->outputs()[num_state + k])));
      }
      return absl::OkStatus();
    }

    // Scan-8: one sequence per batch entry.
    if (num_scan_inputs_ < 1) return ctx.Error("needs at least one scan input");
    const TensorView& scan0 = ctx.input(first + num_state);
    if (scan0.rank() < 2) return ctx.Error("scan inputs need [batch, sequence, ...] dims");
    const int64_t batch = scan0.dims[0];
    const int64_t max_len = scan0.dims[1];
    std::vector<std::vector<Tensor>> batch_states(batch);
    std::vector<std::vector<std::vector<Tensor>>> batch_outs(batch);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t len = max_len;
      if (ctx.HasInput(0)) {
        const TensorView& lens = ctx.input(0);
        if (lens.NumElements() != batch) {
          return ctx.Error(
              absl::StrCat("sequence_lens has ", lens.NumElements(), " entries for batch ", batch));
        }
        len = ReadElementAsInt64(lens.type, static_cast<const uint8_t*>(lens.data), b);
        if (len < 0 || len > max_len) {
          return ctx.Error(
              absl::StrCat("sequence_lens[", b, "] = ", len, " is outside [0, ", max_len, "]"));
        }
      }
      std::vector<TensorView> states, scans;
      for (int i = 0; i < num_state; ++i) states.push_back(SliceAt(ctx.input(first + i), 0, b));
      for (int j = 0; j < num_scan_inputs_; ++j) {
        scans.push_back(SliceAt(ctx.input(first + num_state + j), 0, b));
      }
      ANVIL_RETURN_IF_ERROR(RunSequence(ctx, states, scans, len, &batch_states[b], &batch_outs[b]));
    }
    // States: [batch, ...]; scan outputs: [batch, max_len, ...], zeros past a short sequence.
    for (int i = 0; i < num_state; ++i) {
      if (!ctx.HasOutput(i)) continue;
      std::vector<Tensor> per_batch;
      for (int64_t b = 0; b < batch; ++b) per_batch.push_back(batch_states[b][i]);
      ANVIL_RETURN_IF_ERROR(EmitStacked(ctx, i, per_batch, 0, false, EmptyType(ctx, i),
                                        DeclaredDims(body_->outputs()[i])));
    }
    for (int k = 0; k < num_scan_out; ++k) {
      const int out = num_state + k;
      if (!ctx.HasOutput(out)) continue;
      Shape item_dims = DeclaredDims(body_->outputs()[out]);
      ElementType type = EmptyType(ctx, out);
      for (int64_t b = 0; b < batch; ++b) {
        if (!batch_outs[b][k].empty()) {
          item_dims = batch_outs[b][k][0].dims();
          type = batch_outs[b][k][0].type();
          break;
        }
      }
      Shape dims = item_dims;
      dims.insert(dims.begin(), {batch, max_len});
      ANVIL_ASSIGN_OR_RETURN(TensorView* view, AllocateTyped(ctx, out, type, dims));
      std::memset(view->data, 0, view->NumElements() * view->ElementBytes());
      for (int64_t b = 0; b < batch; ++b) {
        const TensorView row = SliceAt(*view, 0, b);
        const std::vector<Tensor>& items = batch_outs[b][k];
        for (size_t t = 0; t < items.size(); ++t) {
          if (items[t].dims() != item_dims) {
            return ctx.Error(absl::StrCat("scan output ", k, " changes across iterations"));
          }
          CopyView(items[t].view(), SliceAt(row, 0, static_cast<int64_t>(t)));
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  ElementType EmptyType(const KernelContext& ctx, int out) const {
    return StackedType(ctx.node().output(out), body_->outputs()[out]);
  }

  // Runs the body over one sequence: `len` steps (-1: the scan axes' length), scan inputs
  // sliced along their axes.
  absl::Status RunSequence(KernelContext& ctx, const std::vector<TensorView>& initial_states,
                           const std::vector<TensorView>& scans, int64_t len,
                           std::vector<Tensor>* final_states,
                           std::vector<std::vector<Tensor>>* outs) const {
    const int num_state = static_cast<int>(initial_states.size());
    std::vector<int64_t> axes(scans.size());
    int64_t length = -1;
    for (size_t j = 0; j < scans.size(); ++j) {
      int64_t axis = v8_ ? 0 : (j < in_axes_.size() ? in_axes_[j] : 0);
      if (axis < 0) axis += scans[j].rank();
      if (axis < 0 || axis >= scans[j].rank()) {
        return ctx.Error(
            absl::StrCat("scan input ", j, " has no axis ", j < in_axes_.size() ? in_axes_[j] : 0));
      }
      axes[j] = axis;
      if (length < 0) {
        length = scans[j].dims[axis];
      } else if (scans[j].dims[axis] != length) {
        return ctx.Error(absl::StrCat("scan inputs have sequence lengths ", length, " and ",
                                      scans[j].dims[axis]));
      }
    }
    if (length < 0) length = 0;
    if (len >= 0) length = len;
    std::vector<TensorView> states = initial_states;
    std::vector<Tensor> state_owner;
    const int num_out = static_cast<int>(body_->outputs().size()) - num_state;
    outs->assign(num_out, {});
    std::vector<int64_t> out_bytes(num_out, 0);  // what (*outs)[k] holds
    for (int64_t t = 0; t < length; ++t) {
      std::vector<TensorView> args = states;
      for (size_t j = 0; j < scans.size(); ++j) {
        const bool reverse = j < in_directions_.size() && in_directions_[j] != 0;
        args.push_back(SliceAt(scans[j], axes[j], reverse ? length - 1 - t : t));
      }
      ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> results, ctx.RunSubgraph(*body_, args));
      if (static_cast<int>(results.size()) != num_state + num_out) {
        return ctx.Error(absl::StrCat("the body returns ", results.size(), " values, expected ",
                                      num_state + num_out));
      }
      state_owner.assign(results.begin(), results.begin() + num_state);
      for (int i = 0; i < num_state; ++i) states[i] = state_owner[i].view();
      for (int k = 0; k < num_out; ++k) {
        (*outs)[k].push_back(results[num_state + k]);
        out_bytes[k] += static_cast<int64_t>((*outs)[k].back().ByteSize());
        ANVIL_RETURN_IF_ERROR(
            ctx.CheckHeldBytes(num_state + k, out_bytes[k], t + 1, (*outs)[k].back()));
      }
    }
    // The final states: the last iteration's results, or copies of the initial states when no
    // iteration ran.
    final_states->clear();
    for (int i = 0; i < num_state; ++i) {
      final_states->push_back(i < static_cast<int>(state_owner.size()) ? state_owner[i]
                                                                       : Tensor::CopyOf(states[i]));
    }
    return absl::OkStatus();
  }

  const Graph* body_;
  bool v8_;
  int64_t num_scan_inputs_;
  std::vector<int64_t> in_axes_;
  std::vector<int64_t> in_directions_;
  std::vector<int64_t> out_axes_;
  std::vector<int64_t> out_directions_;
};

// SequenceMap: the body runs once per element of the input sequence, given that element, the
// same element of each other sequence input (of the same length) and every tensor input whole;
// each body output's values are collected into one output sequence.
class SequenceMapKernel final : public OpKernel {
 public:
  explicit SequenceMapKernel(const Graph* body) : body_(body) {}

  absl::Status Compute(KernelContext& ctx) override {
    const TensorView& first = ctx.input(0);
    if (first.kind != ValueKind::kSequence || first.elements == nullptr) {
      return ctx.Error(absl::StrCat("input 0 must be a sequence, is ", first.DebugString()));
    }
    const size_t n = first.elements->size();
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const TensorView& in = ctx.input(i);
      if (in.kind == ValueKind::kSequence && in.elements->size() != n) {
        return ctx.Error(absl::StrCat("sequence input ", i, " has ", in.elements->size(),
                                      " tensors, input 0 has ", n));
      }
    }
    std::vector<std::vector<Tensor>> collected(ctx.num_outputs());
    std::vector<int64_t> collected_bytes(ctx.num_outputs(), 0);
    for (size_t k = 0; k < n; ++k) {
      std::vector<TensorView> args;
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const TensorView& in = ctx.input(i);
        args.push_back(in.kind == ValueKind::kSequence ? (*in.elements)[k].view() : in);
      }
      ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> results, ctx.RunSubgraph(*body_, args));
      if (static_cast<int>(results.size()) != ctx.num_outputs()) {
        return ctx.Error(absl::StrCat("the body returns ", results.size(), " values for ",
                                      ctx.num_outputs(), " outputs"));
      }
      for (int o = 0; o < ctx.num_outputs(); ++o) {
        if (!results[o].is_tensor()) {
          return ctx.Error(absl::StrCat("body output ", o, " is not a tensor"));
        }
        if (k > 0 && results[o].type() != collected[o][0].type()) {
          return ctx.Error(absl::StrCat("body output ", o, " changes element type at element ", k));
        }
        collected[o].push_back(std::move(results[o]));
        collected_bytes[o] += static_cast<int64_t>(collected[o].back().ByteSize());
        ANVIL_RETURN_IF_ERROR(ctx.CheckHeldBytes(o, collected_bytes[o], static_cast<int64_t>(k) + 1,
                                                 collected[o].back()));
      }
    }
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      const Value* out = ctx.node().output(o);
      const ElementType type = !collected[o].empty() ? collected[o][0].type()
                               : out != nullptr      ? out->type().elem().element_type()
                                                     : ElementType::kUndefined;
      ANVIL_RETURN_IF_ERROR(ctx.SetOutputValue(o, Tensor::Sequence(type, std::move(collected[o]))));
    }
    return absl::OkStatus();
  }

 private:
  const Graph* body_;
};

absl::StatusOr<std::unique_ptr<OpKernel>> MakeSequenceMap(const Node& node, int64_t) {
  const Graph* body = GraphAttribute(node, "body");
  if (body == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": needs graph attribute body"));
  }
  return std::unique_ptr<OpKernel>(new SequenceMapKernel(body));
}

absl::StatusOr<std::unique_ptr<OpKernel>> MakeScan(const Node& node, int64_t opset) {
  const Graph* body = GraphAttribute(node, "body");
  if (body == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": needs graph attribute body"));
  }
  const int64_t num_scan_inputs = node.GetInt("num_scan_inputs", -1);
  if (num_scan_inputs < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(node.Describe(), ": needs attribute num_scan_inputs"));
  }
  if (num_scan_inputs > node.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(node.Describe(), ": num_scan_inputs ",
                                                   num_scan_inputs, " exceeds the ",
                                                   node.num_inputs(), " inputs"));
  }
  const bool v8 = opset < 9;
  for (const char* name : {"scan_input_directions", "scan_output_directions", "directions"}) {
    for (int64_t d : node.GetInts(name)) {
      if (d != 0 && d != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat(node.Describe(), ": ", name, " holds ", d, "; expected 0 or 1"));
      }
    }
  }
  return std::unique_ptr<OpKernel>(
      new ScanKernel(body, v8, num_scan_inputs, node.GetInts("scan_input_axes"),
                     node.GetInts(v8 ? "directions" : "scan_input_directions"),
                     node.GetInts("scan_output_axes"), node.GetInts("scan_output_directions")));
}

}  // namespace

const KernelRule kControlFlowKernels[] = {
    {"", "If", &MakeIf},         {"", "Loop", &MakeLoop},
    {"", "Scan", &MakeScan},     {"", "SequenceMap", &MakeSequenceMap},
    {nullptr, nullptr, nullptr},
};

}  // namespace anvil::kernel_rules
