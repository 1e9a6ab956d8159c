#include "einsum/decompose.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "einsum/emit_graph.h"
#include "einsum/program.h"
#include "graph/node_errors.h"
#include "graph/op_schema.h"
#include "graph/pass_registry.h"
#include "shape/einsum_dims.h"
#include "shape/einsum_equation.h"
#include "shape/index_expr.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

using einsum::OpKind;

std::string_view OnnxOpOf(OpKind kind) {
  switch (kind) {
    case OpKind::kTranspose:
      return "Transpose";
    case OpKind::kReshape:
      return "Reshape";
    case OpKind::kDiagonal:
      return "Slice";
    case OpKind::kReduceSum:
      return "ReduceSum";
    case OpKind::kMatMul:
      return "MatMul";
    case OpKind::kMul:
      return "Mul";
    case OpKind::kExpand:
      return "Expand";
    case OpKind::kZeros:
      return "ConstantOfShape";
  }
  return "";
}

bool IsConstant(const Value* v) {
  return v->IsInitializer() ||
         (v->producer() != nullptr && v->producer()->op_type() == "Constant" &&
          v->producer()->domain().empty());
}

// The perm of the Transpose node that produced `v`, or empty.
std::vector<int64_t> ProducerPerm(const Value* v) {
  const Node* p = v->producer();
  if (p == nullptr || p->op_type() != "Transpose" || !p->domain().empty() || p->num_inputs() != 1 ||
      p->input(0) == nullptr || !v->type().has_shape()) {
    return {};
  }
  std::vector<int64_t> perm = p->GetInts("perm");
  if (perm.empty()) {  // the default reverses the dims
    for (int64_t k = v->type().rank() - 1; k >= 0; --k) perm.push_back(k);
  }
  return static_cast<int64_t>(perm.size()) == v->type().rank() ? perm : std::vector<int64_t>{};
}

struct Outcome {
  bool rewritten = false;
  std::string remark;  // why it was kept
};

class Decomposer {
 public:
  Decomposer(int64_t opset, const einsum::ProgramOptions& options)
      : opset_(opset), options_(options) {}

  absl::StatusOr<Outcome> Rewrite(Node& node) {
    auto kept = [&](std::string why) {
      return Outcome{false, absl::StrCat(node.Describe(), ": kept: ", why)};
    };
    absl::StatusOr<einsum::Equation> eq = einsum::Equation::Parse(node.GetString("equation", ""));
    if (!eq.ok()) return NodeError(node, FromAbsl(eq.status().message()));
    if (node.num_inputs() == 0 || node.num_outputs() != 1 || node.output(0) == nullptr) {
      return NodeError(node, "an Einsum needs at least one input and exactly one output");
    }
    std::vector<int64_t> ranks;
    std::vector<einsum::OperandInfo> operands;
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Value* v = node.input(i);
      if (v == nullptr) return NodeError(node, absl::StrCat("input ", i, " is missing"));
      const TensorInfo info = InfoFromType(v->type());
      if (!info.dims) {
        return kept(absl::StrCat("the rank of input '", v->name(),
                                 "' is unknown (run shape-inference first)"));
      }
      ranks.push_back(info.rank());
      operands.push_back({*info.dims, IsConstant(v), ProducerPerm(v)});
    }
    const ElementType type = node.input(0)->type().element_type();
    if (type == ElementType::kUndefined) return kept("the element type of input 0 is unknown");
    absl::StatusOr<einsum::BoundEquation> bound = eq->Bind(ranks);
    if (!bound.ok()) return NodeError(node, FromAbsl(bound.status().message()));
    std::vector<const DimsExpr*> pointers;
    for (const einsum::OperandInfo& o : operands) pointers.push_back(&o.dims);
    absl::StatusOr<std::vector<IndexExpr>> sizes = EinsumLabelSizes(*bound, pointers);
    if (!sizes.ok()) return NodeError(node, FromAbsl(sizes.status().message()));

    const einsum::Program program = einsum::BuildProgram(*bound, operands, *sizes, options_);
    for (const einsum::ProgramOp& op : program.ops) {
      const std::string_view onnx_op = OnnxOpOf(op.kind);
      // ConstantOfShape's input is the shape; its value attribute takes every numeric type.
      if (op.kind != OpKind::kZeros && !OpAcceptsInputType("", onnx_op, opset_, 0, type)) {
        return kept(absl::StrCat(absl::string_view(onnx_op.data(), onnx_op.size()),
                                 " does not accept ", ElementTypeName(type).data(), " at opset ",
                                 opset_));
      }
    }
    if (absl::Status s = einsum::EmitProgram(program, node, opset_, &emitted_); !s.ok()) {
      return kept(std::string(s.message()));
    }
    return Outcome{true, ""};
  }

  const einsum::EmittedOps& emitted() const { return emitted_; }

 private:
  int64_t opset_;
  einsum::ProgramOptions options_;
  einsum::EmittedOps emitted_;
};

}  // namespace

absl::StatusOr<bool> EinsumDecomposePass::Run(Model& model, PassContext& ctx) {
  ScopedIndexExprContext index_exprs;  // the run's symbolic dims go with it
  einsum::ProgramOptions options;
  if (!einsum::ParseStrategy(*strategy_, &options.planner.strategy)) {
    return absl::InvalidArgumentError(
        absl::StrCat("einsum-decompose: strategy must be auto, optimal, greedy or left-to-right, "
                     "not '",
                     *strategy_, "'"));
  }
  if (*size_hint_ < 1 || *optimal_limit_ < 1 || *optimal_limit_ > 12 || *beam_width_ < 1 ||
      *beam_width_ > 64) {
    return absl::InvalidArgumentError(
        "einsum-decompose: size-hint must be >= 1, optimal-limit in [1, 12], beam-width in "
        "[1, 64]");
  }
  options.planner.size_hint = *size_hint_;
  options.planner.optimal_limit = static_cast<int>(*optimal_limit_);
  options.beam_width = static_cast<int>(*beam_width_);

  std::vector<Node*> einsums;
  model.graph().ForEachGraph([&](Graph& g) {
    for (Node* n : g.nodes()) {
      if (n->op_type() == "Einsum" && (n->domain().empty() || n->domain() == "ai.onnx")) {
        einsums.push_back(n);
      }
    }
  });
  Decomposer decomposer(model.OpsetVersion(""), options);
  bool changed = false;
  for (Node* n : einsums) {
    ANVIL_ASSIGN_OR_RETURN(Outcome outcome, decomposer.Rewrite(*n));
    if (outcome.rewritten) {
      changed = true;
      ctx.AddStatistic("einsums-rewritten", 1);
    } else {
      ctx.AddStatistic("einsums-kept", 1);
      ctx.AddRemark(outcome.remark);
    }
  }
  for (const auto& [op, count] : decomposer.emitted()) {
    ctx.AddStatistic(absl::StrCat("nodes-", absl::AsciiStrToLower(op)), count);
  }
  return changed;
}

ANVIL_REGISTER_PASS(EinsumDecomposePass);

}  // namespace anvil
