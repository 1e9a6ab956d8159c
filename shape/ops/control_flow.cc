// ShapeHelpers for If, Loop, Scan and SequenceMap: their bodies are inferred through
// IndexExprBuilder::InferSubgraph (the analysis builder runs shape inference on the body; the
// runtime executes bodies itself and does not call these).
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "shape/ops/op_util.h"
#include "shape/shape_helper.h"
#include "shape/shape_rules.h"

namespace anvil {
namespace {

const Graph* SubgraphAttr(const Node& node, std::string_view name) {
  const Attribute* a = node.FindAttribute(name);
  if (a == nullptr || a->type() != AttributeType::kGraph || a->graphs.empty()) return nullptr;
  return a->graphs[0].get();
}

// The most specific info true of both: equal dims stay, others become questionmarks.
TensorInfo Join(const TensorInfo& a, const TensorInfo& b) {
  if (!a.is_tensor() || !b.is_tensor()) {
    if (a.kind == b.kind) {
      // A sequence known to be empty has no element to disagree with: what the other's elements
      // share is true of all (a Loop that inserts rank-1 tensors into a SequenceEmpty carries a
      // sequence of rank-1 tensors).
      const auto is_empty = [](const TensorInfo& s) {
        return s.kind == TensorInfo::Kind::kSequence && s.elements != nullptr &&
               s.elements->empty();
      };
      if (is_empty(a) != is_empty(b)) {
        TensorInfo out = is_empty(a) ? b : a;
        const TensorInfo& empty = is_empty(a) ? a : b;
        if (out.element().type == ElementType::kUndefined) {
          TensorInfo elem = out.element();
          elem.type = empty.element().type;
          out.elem = std::make_shared<const TensorInfo>(std::move(elem));
        }
        out.elements = nullptr;  // the lengths of the two may differ
        return out;
      }
      TensorInfo out = a;
      out.elem = std::make_shared<const TensorInfo>(Join(a.element(), b.element()));
      out.elements = nullptr;  // the lengths of the two may differ
      return out;
    }
    // An optional and a bare value (a present optional may be given as its value): an optional
    // of what both hold.
    if (a.kind == TensorInfo::Kind::kOptional) return TensorInfo::Optional(Join(a.element(), b));
    if (b.kind == TensorInfo::Kind::kOptional) return TensorInfo::Optional(Join(a, b.element()));
    return TensorInfo{};
  }
  TensorInfo out;
  out.type = a.type != ElementType::kUndefined ? a.type : b.type;
  if (a.dims && b.dims && a.dims->size() == b.dims->size()) {
    DimsExpr dims;
    for (size_t k = 0; k < a.dims->size(); ++k) {
      dims.push_back((*a.dims)[k] == (*b.dims)[k] ? (*a.dims)[k] : IndexExpr::Questionmark());
    }
    out.dims = std::move(dims);
  }
  if (a.values && b.values && *a.values == *b.values) out.values = a.values;
  return out;
}

// Output `i` of an If joined from its branches' `a` and `b`: a dim the two give differently is
// data-dependent, in the union of their ranges.
void BoundJoinedDims(ShapeContext& ctx, int i, const TensorInfo& a, const TensorInfo& b) {
  TensorInfo& out = ctx.output(i);
  if (!out.is_tensor() || !out.dims || !a.dims || !b.dims) return;
  for (size_t k = 0; k < out.dims->size(); ++k) {
    const IndexExpr& x = (*a.dims)[k];
    const IndexExpr& y = (*b.dims)[k];
    if (x == y) continue;
    (*out.dims)[k] = ctx.DataDependentDim(absl::StrCat("o", i, "_d", k), Min(x, y), Max(x, y));
  }
}

absl::Status IfShape(ShapeContext& ctx) {
  const Graph* then_branch = SubgraphAttr(ctx.node(), "then_branch");
  const Graph* else_branch = SubgraphAttr(ctx.node(), "else_branch");
  if (then_branch == nullptr || else_branch == nullptr) {
    return ctx.Error("needs graph attributes then_branch and else_branch");
  }
  auto then_out = ctx.builder().InferSubgraph(*then_branch, {});
  if (!then_out.ok()) return then_out.status();
  auto else_out = ctx.builder().InferSubgraph(*else_branch, {});
  if (!else_out.ok()) return else_out.status();
  if (then_out->size() != else_out->size() ||
      static_cast<int>(then_out->size()) != ctx.num_outputs()) {
    return ctx.Error(absl::StrCat("branches return ", then_out->size(), " and ", else_out->size(),
                                  " values for ", ctx.num_outputs(), " outputs"));
  }
  // A decided condition selects one branch exactly.
  std::optional<std::vector<int64_t>> cond = ctx.InputLiteralValues(0);
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (cond && cond->size() == 1) {
      ctx.output(i) = (*cond)[0] != 0 ? (*then_out)[i] : (*else_out)[i];
    } else {
      ctx.output(i) = Join((*then_out)[i], (*else_out)[i]);
      BoundJoinedDims(ctx, i, (*then_out)[i], (*else_out)[i]);
    }
  }
  return absl::OkStatus();
}

// Type, dims and kind alike, sequence and optional elements included (values are not compared).
bool SameShapeAndType(const TensorInfo& a, const TensorInfo& b) {
  if (a.kind != b.kind || a.type != b.type || a.dims != b.dims) return false;
  if (a.is_tensor()) return true;
  return SameShapeAndType(a.element(), b.element());
}

// The carried values of a loop body (Loop's carried values, Scan's states) may change shape on
// the first iteration and keep the new shape from then on: [A] + [C] is broadcast once, then
// stays. The body is inferred on the initial values, then on what it returned; when that second
// round returns the same carried shapes and the same other outputs, they hold exactly for every
// iteration after the first. Otherwise the carried values are joined until stable (a join only
// forgets, so three rounds suffice), and hold only what every iteration agrees on.
struct CarriedShapes {
  std::vector<std::vector<TensorInfo>> rounds;  // the body's outputs, per inference round
  std::vector<TensorInfo> later;                // the carried values after one or more runs
};

absl::StatusOr<CarriedShapes> InferCarried(ShapeContext& ctx, const Graph& body,
                                           std::vector<TensorInfo> inputs, int in_offset,
                                           int out_offset, int num_carried) {
  CarriedShapes result;
  auto carried_out = [&](const std::vector<TensorInfo>& outputs, int i) {
    TensorInfo out =
        out_offset + i < static_cast<int>(outputs.size()) ? outputs[out_offset + i] : TensorInfo{};
    out.values.reset();
    return out;
  };
  auto infer = [&]() -> absl::Status {
    ANVIL_ASSIGN_OR_RETURN(std::vector<TensorInfo> outputs,
                           ctx.builder().InferSubgraph(body, inputs));
    if (static_cast<int>(outputs.size()) < out_offset + num_carried) {
      return ctx.Error(absl::StrCat("body returns ", outputs.size(), " values, needs at least ",
                                    out_offset + num_carried));
    }
    result.rounds.push_back(std::move(outputs));
    return absl::OkStatus();
  };
  auto carried_stable = [&](const std::vector<TensorInfo>& outputs) {
    for (int i = 0; i < num_carried; ++i) {
      if (!SameShapeAndType(carried_out(outputs, i), inputs[in_offset + i])) return false;
    }
    return true;
  };
  auto done = [&]() {
    for (int i = 0; i < num_carried; ++i) result.later.push_back(inputs[in_offset + i]);
    return std::move(result);
  };
  ANVIL_RETURN_IF_ERROR(infer());
  if (carried_stable(result.rounds[0])) return done();
  // One step to a fixed point?
  const std::vector<TensorInfo> initial = inputs;
  for (int i = 0; i < num_carried; ++i) inputs[in_offset + i] = carried_out(result.rounds[0], i);
  ANVIL_RETURN_IF_ERROR(infer());
  const std::vector<TensorInfo>& first = result.rounds[0];
  const std::vector<TensorInfo>& second = result.rounds[1];
  bool others_agree = first.size() == second.size();
  for (size_t k = out_offset + num_carried; others_agree && k < first.size(); ++k) {
    others_agree = SameShapeAndType(first[k], second[k]);
  }
  if (others_agree && carried_stable(second)) return done();
  // Joined until stable.
  inputs = initial;
  for (int round = 0; round < 3; ++round) {
    bool stable = true;
    for (int i = 0; i < num_carried; ++i) {
      TensorInfo joined = Join(inputs[in_offset + i], carried_out(result.rounds.back(), i));
      joined.values.reset();
      if (!SameShapeAndType(joined, inputs[in_offset + i])) {
        stable = false;
        inputs[in_offset + i] = std::move(joined);
      }
    }
    if (stable) break;
    ANVIL_RETURN_IF_ERROR(infer());
  }
  return done();
}

// A carried value after `iterations` runs of the body: `initial` for none, `later` for one or
// more, and per dim initial + min(iterations, 1) * (later - initial) for a symbolic count.
TensorInfo AfterIterations(const TensorInfo& initial, const TensorInfo& later,
                           const IndexExpr& iterations) {
  if (iterations == 0) return initial;
  const IndexExpr positive = Ge(iterations, 1);
  if (positive.IsKnown() && positive.literal() != 0) return later;
  if (iterations.IsQuestionmark() || !initial.is_tensor() || !later.is_tensor() ||
      initial.type != later.type || !initial.dims || !later.dims ||
      initial.dims->size() != later.dims->size()) {
    TensorInfo joined = Join(initial, later);
    joined.values.reset();
    return joined;
  }
  TensorInfo out = later;
  for (size_t k = 0; k < out.dims->size(); ++k) {
    const IndexExpr& d0 = (*initial.dims)[k];
    const IndexExpr& d1 = (*later.dims)[k];
    if (d0 == d1) continue;
    (*out.dims)[k] = d0.IsQuestionmark() || d1.IsQuestionmark()
                         ? IndexExpr::Questionmark()
                         : d0 + Min(iterations, 1) * (d1 - d0);
  }
  return out;
}

// Per-iteration dims of a body output stacked `count` times. With no iteration the runtime (as
// ONNX Runtime) takes them from the body output's declared type, 0 where that has no literal: a
// symbolic dim d is d * min(count, 1) unless the count is provably positive.
void ForNoIteration(DimsExpr& dims, const IndexExpr& count) {
  const IndexExpr positive = Ge(count, 1);
  if (positive.IsKnown() && positive.literal() != 0) return;
  for (IndexExpr& d : dims) {
    if (!d.IsLiteral()) d = d * Min(count, 1);
  }
}

// Loop(M, cond, v_initial...) with body (iteration_num, cond, v...) -> (cond, v..., scans...).
absl::Status LoopShape(ShapeContext& ctx) {
  const Graph* body = SubgraphAttr(ctx.node(), "body");
  if (body == nullptr) return ctx.Error("needs graph attribute body");
  const int num_carried = ctx.num_inputs() - 2;
  if (num_carried < 0 || static_cast<int>(body->inputs().size()) != num_carried + 2) {
    return ctx.Error(absl::StrCat("body takes ", body->inputs().size(), " inputs for ",
                                  ctx.num_inputs(), " loop inputs"));
  }
  std::vector<TensorInfo> inputs;
  inputs.push_back(TensorInfo{ElementType::kInt64, DimsExpr{}, std::nullopt});
  // The body runs only while the condition holds, so its condition input is true on every run
  // (the initial condition, then what the previous run returned; true when cond is omitted).
  inputs.push_back(TensorInfo{ElementType::kBool, DimsExpr{}, IndexExprList{1}});
  for (int i = 0; i < num_carried; ++i) {
    TensorInfo carried = ctx.Input(2 + i);
    carried.values.reset();  // values change across iterations
    inputs.push_back(std::move(carried));
  }
  ANVIL_ASSIGN_OR_RETURN(CarriedShapes carried,
                         InferCarried(ctx, *body, std::move(inputs), 2, 1, num_carried));
  const std::vector<TensorInfo>* outputs = &carried.rounds.back();
  // Iteration count: max(M, 0) only when the loop provably runs M times: the initial condition
  // is omitted or a constant true, and the body's condition output is provably true (a constant,
  // or its condition input passed through). Otherwise the count depends on data: in [0, M]
  // (a constant false condition or M <= 0: none).
  IndexExpr iterations;
  std::optional<std::vector<int64_t>> initial_cond = ctx.InputLiteralValues(1);
  const bool starts_true =
      !ctx.HasInput(1) || (initial_cond && initial_cond->size() == 1 && (*initial_cond)[0] != 0);
  bool stays_true = true;
  for (const std::vector<TensorInfo>& round : carried.rounds) {
    const std::optional<IndexExprList>& body_cond = round[0].values;
    stays_true = stays_true && body_cond && body_cond->size() == 1 && (*body_cond)[0].IsKnown() &&
                 (*body_cond)[0].literal() != 0;
  }
  std::optional<IndexExpr> trip_count;
  if (ctx.HasInput(0)) {
    if (const std::optional<IndexExprList>& m = ctx.InputValues(0); m && m->size() == 1) {
      trip_count = Max((*m)[0], 0);
    }
  }
  if (initial_cond && initial_cond->size() == 1 && (*initial_cond)[0] == 0) {
    iterations = 0;
  } else if (trip_count && trip_count->IsLiteral() && trip_count->literal() == 0) {
    iterations = 0;
  } else if (trip_count && starts_true && stays_true) {
    iterations = *trip_count;
  } else {
    iterations =
        ctx.DataDependentDim("iterations", 0, trip_count.value_or(IndexExpr::Questionmark()));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (i < num_carried) {
      ctx.output(i) = AfterIterations(ctx.Input(2 + i), carried.later[i], iterations);
      continue;
    }
    const int body_index = 1 + i;
    if (body_index >= static_cast<int>(outputs->size())) break;
    TensorInfo scan = (*outputs)[body_index];
    scan.values.reset();
    if (scan.dims) {
      ForNoIteration(*scan.dims, iterations);
      scan.dims->insert(scan.dims->begin(), iterations);
    }
    ctx.output(i) = std::move(scan);
  }
  return absl::OkStatus();
}

// Scan-8: (sequence_lens, state..., scan...) with a leading batch dim; Scan-9+: (state...,
// scan...) with per-input axes and directions.
absl::Status ScanShape(ShapeContext& ctx) {
  const Graph* body = SubgraphAttr(ctx.node(), "body");
  if (body == nullptr) return ctx.Error("needs graph attribute body");
  const bool v8 = ctx.opset() < 9;
  const int first = v8 ? 1 : 0;
  const int64_t num_scan_inputs = ctx.node().GetInt("num_scan_inputs", 0);
  // Checked as int64 before narrowing: 2^40 would wrap to 0 and loop 2^40 times.
  if (num_scan_inputs < 0 || num_scan_inputs > ctx.num_inputs() - first) {
    return ctx.Error(
        absl::StrCat("num_scan_inputs ", num_scan_inputs, " exceeds the number of inputs"));
  }
  const int num_state = ctx.num_inputs() - first - static_cast<int>(num_scan_inputs);
  std::vector<int64_t> in_axes = ctx.node().GetInts("scan_input_axes");
  std::vector<int64_t> out_axes = ctx.node().GetInts("scan_output_axes");

  std::vector<TensorInfo> body_inputs;
  std::optional<IndexExpr> batch;
  for (int i = 0; i < num_state; ++i) {
    TensorInfo state = ctx.Input(first + i);
    state.values.reset();
    if (v8 && state.dims && !state.dims->empty()) {
      batch = (*state.dims)[0];
      state.dims->erase(state.dims->begin());
    }
    body_inputs.push_back(std::move(state));
  }
  IndexExpr sequence_length = IndexExpr::Questionmark();
  for (int j = 0; j < num_scan_inputs; ++j) {
    TensorInfo scan = ctx.Input(first + num_state + j);
    scan.values.reset();
    if (scan.dims) {
      int64_t axis = v8 ? 1 : (j < static_cast<int>(in_axes.size()) ? in_axes[j] : 0);
      ANVIL_ASSIGN_OR_RETURN(int64_t a, ctx.NormalizeAxis(axis, scan.rank(), "scan_input_axes"));
      if (j == 0) sequence_length = (*scan.dims)[a];
      if (v8) {
        batch = (*scan.dims)[0];
        scan.dims->erase(scan.dims->begin(), scan.dims->begin() + 2);
      } else {
        scan.dims->erase(scan.dims->begin() + a);
      }
    }
    body_inputs.push_back(std::move(scan));
  }
  std::vector<TensorInfo> initial_states(body_inputs.begin(), body_inputs.begin() + num_state);
  ANVIL_ASSIGN_OR_RETURN(CarriedShapes carried,
                         InferCarried(ctx, *body, std::move(body_inputs), 0, 0, num_state));
  const std::vector<TensorInfo>* outputs = &carried.rounds.back();
  // Scan-8 runs each batch entry for its own length when sequence_lens is given.
  const IndexExpr iterations = v8 && ctx.HasInput(0) ? IndexExpr::Questionmark() : sequence_length;
  for (int i = 0; i < ctx.num_outputs() && i < static_cast<int>(outputs->size()); ++i) {
    TensorInfo out = i < num_state
                         ? AfterIterations(initial_states[i], carried.later[i], iterations)
                         : (*outputs)[i];
    out.values.reset();
    if (out.dims) {
      const IndexExpr batch_size = batch.value_or(IndexExpr::Questionmark());
      if (i >= num_state) {
        const int k = i - num_state;
        int64_t axis = v8 ? 0 : (k < static_cast<int>(out_axes.size()) ? out_axes[k] : 0);
        ANVIL_ASSIGN_OR_RETURN(int64_t a,
                               ctx.NormalizeAxis(axis, out.rank() + 1, "scan_output_axes"));
        // Scan-8 runs batch * length iterations, fewer with sequence_lens.
        ForNoIteration(*out.dims, !v8               ? sequence_length
                                  : ctx.HasInput(0) ? IndexExpr::Questionmark()
                                                    : batch_size * sequence_length);
        out.dims->insert(out.dims->begin() + a, sequence_length);
      } else if (v8) {
        ForNoIteration(*out.dims, batch_size);
      }
      if (v8) out.dims->insert(out.dims->begin(), batch_size);
    }
    ctx.output(i) = std::move(out);
  }
  return absl::OkStatus();
}

// SequenceMap(input_sequence, additional_inputs...) with body (one value per input: a sequence's
// element, a tensor whole) -> one value per output, collected into a sequence each.
absl::Status SequenceMapShape(ShapeContext& ctx) {
  const Graph* body = SubgraphAttr(ctx.node(), "body");
  if (body == nullptr) return ctx.Error("needs graph attribute body");
  if (static_cast<int>(body->inputs().size()) != ctx.num_inputs() ||
      static_cast<int>(body->outputs().size()) != ctx.num_outputs()) {
    return ctx.Error(absl::StrCat("body takes ", body->inputs().size(), " inputs and returns ",
                                  body->outputs().size(), " values for ", ctx.num_inputs(),
                                  " inputs and ", ctx.num_outputs(), " outputs"));
  }
  std::vector<TensorInfo> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const TensorInfo& in = ctx.Input(i);
    inputs.push_back(in.kind == TensorInfo::Kind::kSequence ? in.element() : in);
  }
  auto outputs = ctx.builder().InferSubgraph(*body, inputs);
  if (!outputs.ok()) return outputs.status();
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    TensorInfo elem = (*outputs)[i];
    elem.values.reset();
    ctx.output(i) = TensorInfo::Sequence(std::move(elem));
  }
  return absl::OkStatus();
}

}  // namespace

namespace shape_rules {

const ShapeRule kControlFlowRules[] = {
    {"", "If", IfShape},         {"", "Loop", LoopShape},
    {"", "Scan", ScanShape},     {"", "SequenceMap", SequenceMapShape},
    {nullptr, nullptr, nullptr},
};

}  // namespace shape_rules
}  // namespace anvil
