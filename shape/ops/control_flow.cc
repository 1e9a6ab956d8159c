// ShapeHelpers for If, Loop, Scan and SequenceMap: their bodies are inferred through
// IndexExprBuilder::InferSubgraph (the analysis builder runs shape inference on the body; the
// runtime executes bodies itself and does not call these).
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
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
  inputs.push_back(TensorInfo{ElementType::kBool, DimsExpr{}, std::nullopt});
  for (int i = 0; i < num_carried; ++i) {
    TensorInfo carried = ctx.Input(2 + i);
    carried.values.reset();  // values change across iterations
    inputs.push_back(std::move(carried));
  }
  // Carried values whose shape changes across iterations are joined until stable (two rounds
  // suffice: a join only forgets).
  absl::StatusOr<std::vector<TensorInfo>> outputs;
  for (int round = 0; round < 3; ++round) {
    outputs = ctx.builder().InferSubgraph(*body, inputs);
    if (!outputs.ok()) return outputs.status();
    if (static_cast<int>(outputs->size()) < 1 + num_carried) {
      return ctx.Error(absl::StrCat("body returns ", outputs->size(), " values, needs at least ",
                                    1 + num_carried));
    }
    bool stable = true;
    for (int i = 0; i < num_carried; ++i) {
      TensorInfo joined = Join(inputs[2 + i], (*outputs)[1 + i]);
      joined.values.reset();
      if (!SameShapeAndType(joined, inputs[2 + i])) {
        stable = false;
        inputs[2 + i] = std::move(joined);
      }
    }
    if (stable) break;
  }
  // Iteration count: M when the body passes its condition through unchanged (or there is no
  // condition), so only M ends the loop.
  IndexExpr iterations = IndexExpr::Questionmark();
  const Value* body_cond_in = body->inputs()[1];
  const Value* body_cond_out = body->outputs()[0];
  const bool cond_passthrough =
      body_cond_out == body_cond_in ||
      (body_cond_out->producer() != nullptr && body_cond_out->producer()->op_type() == "Identity" &&
       body_cond_out->producer()->input(0) == body_cond_in);
  if (cond_passthrough || !ctx.HasInput(1)) {
    if (std::optional<IndexExprList> m = ctx.InputValues(0); m && m->size() == 1) {
      iterations = (*m)[0];
    }
  }
  if (std::optional<std::vector<int64_t>> cond = ctx.InputLiteralValues(1);
      cond && cond->size() == 1 && (*cond)[0] == 0) {
    iterations = 0;
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (i < num_carried) {
      ctx.output(i) = inputs[2 + i];
      continue;
    }
    const int body_index = 1 + i;
    if (body_index >= static_cast<int>(outputs->size())) break;
    TensorInfo scan = (*outputs)[body_index];
    scan.values.reset();
    if (scan.dims) scan.dims->insert(scan.dims->begin(), iterations);
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
      absl::StatusOr<int64_t> a = ctx.NormalizeAxis(axis, scan.rank(), "scan_input_axes");
      if (!a.ok()) return a.status();
      if (j == 0) sequence_length = (*scan.dims)[*a];
      if (v8) {
        batch = (*scan.dims)[0];
        scan.dims->erase(scan.dims->begin(), scan.dims->begin() + 2);
      } else {
        scan.dims->erase(scan.dims->begin() + *a);
      }
    }
    body_inputs.push_back(std::move(scan));
  }
  absl::StatusOr<std::vector<TensorInfo>> outputs = ctx.builder().InferSubgraph(*body, body_inputs);
  if (!outputs.ok()) return outputs.status();
  for (int i = 0; i < ctx.num_outputs() && i < static_cast<int>(outputs->size()); ++i) {
    TensorInfo out = (*outputs)[i];
    out.values.reset();
    if (out.dims) {
      if (i >= num_state) {
        const int k = i - num_state;
        int64_t axis = v8 ? 0 : (k < static_cast<int>(out_axes.size()) ? out_axes[k] : 0);
        absl::StatusOr<int64_t> a = ctx.NormalizeAxis(axis, out.rank() + 1, "scan_output_axes");
        if (!a.ok()) return a.status();
        out.dims->insert(out.dims->begin() + *a, sequence_length);
      }
      if (v8) out.dims->insert(out.dims->begin(), batch.value_or(IndexExpr::Questionmark()));
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
    {"", "If", IfShape},
    {"", "Loop", LoopShape},
    {"", "Scan", ScanShape},
    {"", "SequenceMap", SequenceMapShape},
    {nullptr, nullptr, nullptr},
};

}  // namespace shape_rules
}  // namespace anvil
