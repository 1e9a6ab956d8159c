#include "lower/lowering/lower_to_tir.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "graph/op_table.h"
#include "graph/pass_registry.h"
#include "graph/pipeline_text.h"
#include "lower/ir/builder.h"
#include "lower/ir/simplify.h"
#include "lower/lowering/node_lowering.h"
#include "lower/lowering/tir_builder.h"
#include "lower/passes/passes.h"
#include "shape/analysis_builder.h"
#include "shape/shape_inference.h"

namespace anvil::lower {
namespace {

using tir::DataType;
using tir::Expr;
using tir::Stmt;

// The module a lower-to-tir pass run left with its model.
struct LoweredModuleAttachment {
  std::unique_ptr<tir::Module> module;
};

// Whether a value is lowered as a `value` tensor that only kernel calls read and write: a
// sequence, an optional, or a tensor of unknown rank (a Reshape to a shape of unknown length, an
// If whose branches disagree on the rank), which the kernel hands over whole.
bool IsValue(const TensorInfo& info) { return !info.is_tensor() || !info.dims; }

absl::StatusOr<DataType> ElementOf(const Value& v, ElementType type) {
  std::optional<tir::ScalarKind> kind = tir::ScalarKindOf(type);
  if (!kind) {
    return absl::UnimplementedError(
        absl::StrCat("value '", v.name(), "' has no known element type; lowering needs one"));
  }
  return DataType(*kind);
}

class Lowerer;

// NodeLowering as the driver implements it for one node.
class NodeLoweringImpl final : public NodeLowering {
 public:
  NodeLoweringImpl(Lowerer& lowerer, const Node& node, int64_t opset, const ShapeFacts& facts)
      : lowerer_(lowerer), node_(node), opset_(opset), facts_(facts) {}

  const Node& node() const override { return node_; }
  int64_t opset() const override { return opset_; }
  bool has_input(int i) const override {
    return i < node_.num_inputs() && node_.input(i) != nullptr;
  }
  const Expr& input(int i) const override;
  const DimsExpr& input_dims(int i) const override;
  std::shared_ptr<const Elements> input_constant(int i) const override {
    return has_input(i) ? ShapeState::ConstantOf(node_.input(i)) : nullptr;
  }
  int num_outputs() const override { return node_.num_outputs(); }
  bool has_output(int i) const override { return node_.output(i) != nullptr; }
  const Expr& output(int i) const override;
  const DimsExpr& output_dims(int i) const override;
  void ViewOutput(int output, int input) override;
  absl::Status CallKernel() override;
  const ShapeFacts& facts() const override { return facts_; }
  Expr Dim(const IndexExpr& e) override;

 private:
  Lowerer& lowerer_;
  const Node& node_;
  int64_t opset_;
  const ShapeFacts& facts_;
};

class Lowerer {
 public:
  Lowerer(std::shared_ptr<Model> model, const absl::flat_hash_set<std::string>& kernel_nodes,
          LoweringStats* stats)
      : model_(std::move(model)), inference_(*model_), kernel_nodes_(kernel_nodes), stats_(stats) {}

  absl::StatusOr<tir::Module> Run();

  // ---- For NodeLoweringImpl ----
  const Expr& TensorOf(const Value* v) { return tensors_[v]; }
  const DimsExpr& DimsOf(const Value* v) {
    const TensorInfo& info = inference_.state().Get(v);
    static const DimsExpr* const kNone = new DimsExpr();
    return info.dims ? *info.dims : *kNone;
  }
  absl::StatusOr<Expr> Translate(const IndexExpr& e) const { return dims_.Translate(e); }
  // Output `o` of the node being lowered becomes a view of input `i`.
  void RequestView(int o, int i) { views_[o] = i; }
  absl::Status EmitKernelCall(const Node& node, int64_t opset, const std::string& category,
                              std::vector<Stmt>* out);

 private:
  absl::Status DeclareInputs();
  absl::Status DeclareGlobals();
  void DeclareOutputs();
  absl::Status LowerNode(const Node& node);
  // Declares `v` as a local tensor (or uses its output parameter) of static dims; false when
  // its dims cannot be written over what is bound.
  absl::StatusOr<bool> DeclareStatic(const Value* v, std::vector<Stmt>* out);
  // An Assert that `var`, the value of `symbol`, lies in its declared range (none when the
  // range is [0, inf)); `where` names what sets it.
  std::optional<Stmt> RangeCheck(const std::string& symbol, const Expr& var,
                                 const std::string& where);
  // Emits a copy loop src -> dst (equal dims).
  void EmitCopy(const Expr& src, const Expr& dst, std::vector<Stmt>* out);
  std::string LocalName(const std::string& hint);

  std::shared_ptr<Model> model_;
  ShapeInference inference_;
  const absl::flat_hash_set<std::string>& kernel_nodes_;
  LoweringStats* stats_;
  tir::Builder b_;
  tir::Module module_;
  DimTranslator dims_;
  std::vector<Expr> dim_params_;
  std::vector<Expr> tensor_params_;
  std::vector<Stmt> body_;
  absl::flat_hash_map<const Value*, Expr> tensors_;
  // Graph output position -> its parameter (static outputs).
  std::vector<Expr> output_params_;
  // Values whose storage is an output parameter (written by their producer directly).
  absl::flat_hash_set<const Value*> writes_output_;
  // Per output of the node being lowered: the input it is a view of.
  absl::flat_hash_map<int, int> views_;
  int64_t next_local_ = 0;
};

const Expr& NodeLoweringImpl::input(int i) const { return lowerer_.TensorOf(node_.input(i)); }
const DimsExpr& NodeLoweringImpl::input_dims(int i) const {
  return lowerer_.DimsOf(node_.input(i));
}
const Expr& NodeLoweringImpl::output(int i) const { return lowerer_.TensorOf(node_.output(i)); }
const DimsExpr& NodeLoweringImpl::output_dims(int i) const {
  return lowerer_.DimsOf(node_.output(i));
}
void NodeLoweringImpl::ViewOutput(int output, int input) { lowerer_.RequestView(output, input); }

absl::Status NodeLoweringImpl::CallKernel() {
  CountAsIntrinsic();
  return lowerer_.EmitKernelCall(node_, opset_, "intrinsic", &stmts());
}

Expr NodeLoweringImpl::Dim(const IndexExpr& e) {
  absl::StatusOr<Expr> x = lowerer_.Translate(e);
  if (!x.ok()) {
    // A fact over a dim only the run knows (a Slice start read from a Shape of an unknown dim,
    // though the output's dims are known): the kernel runs the node.
    b().Fail(absl::IsFailedPrecondition(x.status())
                 ? absl::UnimplementedError(absl::StrCat("a fact the rule needs depends on data: ",
                                                         x.status().message()))
                 : x.status());
    return tir::IndexConst(0);
  }
  return *x;
}

std::string Lowerer::LocalName(const std::string& hint) {
  return hint.empty() ? absl::StrCat("t", next_local_++) : hint;
}

absl::Status Lowerer::DeclareGlobals() {
  auto add = [&](const Value* v, std::shared_ptr<const Elements> data, std::string source) {
    std::vector<Expr> dims;
    for (int64_t d : data->dims()) dims.push_back(tir::IndexConst(d));
    ANVIL_ASSIGN_OR_RETURN(DataType element, ElementOf(*v, data->element_type()));
    Expr t = b_.Tensor(v->name(), element, std::move(dims));
    ANVIL_RETURN_IF_ERROR(b_.status());
    module_.globals.push_back({t, std::move(data), std::move(source)});
    tensors_[v] = t;
    return absl::OkStatus();
  };
  const Graph& g = model_->graph();
  for (const Value* v : g.initializers()) {
    if (v->IsGraphInput()) continue;  // an input with a default: declared as an input
    ANVIL_RETURN_IF_ERROR(add(v, v->constant(), v->name()));
  }
  for (const Node* n : g.nodes()) {
    if (n->op_type() != "Constant" || !n->domain().empty() || n->num_outputs() != 1) continue;
    std::shared_ptr<const Elements> data = ShapeState::ConstantOf(n->output(0));
    if (data == nullptr || ElementSize(data->element_type()) == 0) continue;  // left to its kernel
    ANVIL_RETURN_IF_ERROR(add(n->output(0), std::move(data), n->output(0)->name()));
  }
  return absl::OkStatus();
}

absl::Status Lowerer::DeclareInputs() {
  const Graph& g = model_->graph();
  // Dims first: one index parameter per dynamic dim the inputs name.
  for (size_t k = 0; k < g.inputs().size(); ++k) {
    const Value* v = g.inputs()[k];
    const TensorInfo& info = inference_.state().Get(v);
    if (IsValue(info)) continue;  // a value parameter: no dims of its own
    for (size_t axis = 0; axis < info.dims->size(); ++axis) {
      const IndexExpr& d = (*info.dims)[axis];
      if (d.IsLiteral()) continue;
      std::optional<IndexAtom> atom = DimTranslator::SingleAtom(d);
      if (!atom || dims_.IsBound(*atom)) continue;
      const std::string name =
          atom->kind == IndexAtom::Kind::kSymbol ? atom->name : absl::StrCat(v->name(), "_d", axis);
      Expr var = b_.Var(name, DataType::Index());
      dims_.Bind(*atom, var);
      if (atom->kind == IndexAtom::Kind::kSymbol) {
        if (std::optional<Stmt> check =
                RangeCheck(atom->name, var, absl::StrCat("input '", v->name(), "' dim ", axis))) {
          body_.push_back(*std::move(check));
        }
      }
      dim_params_.push_back(var);
      module_.binding.dims.push_back({var, static_cast<int>(k), static_cast<int>(axis)});
    }
  }
  for (const Value* v : g.inputs()) {
    const TensorInfo& info = inference_.state().Get(v);
    if (IsValue(info)) {
      Expr t = b_.Tensor(v->name(), DataType(tir::ScalarKind::kValue), {});
      ANVIL_RETURN_IF_ERROR(b_.status());
      tensors_[v] = t;
      tensor_params_.push_back(t);
      module_.binding.inputs.push_back({v->name(), t, false});
      continue;
    }
    std::vector<Expr> dims;
    for (const IndexExpr& d : *info.dims) {
      absl::StatusOr<Expr> x = dims_.Translate(d);
      if (!x.ok()) {
        return absl::UnimplementedError(
            absl::StrCat("input '", v->name(), "' has dims ", DimsToString(*info.dims),
                         " whose symbols are not plain dims of an input: ", x.status().message()));
      }
      dims.push_back(*x);
    }
    ANVIL_ASSIGN_OR_RETURN(DataType element, ElementOf(*v, info.type));
    Expr t = b_.Tensor(v->name(), element, std::move(dims));
    ANVIL_RETURN_IF_ERROR(b_.status());
    tensors_[v] = t;
    tensor_params_.push_back(t);
    tir::EntryBinding::Tensor entry{v->name(), t, false};
    entry.default_value = v->constant();
    module_.binding.inputs.push_back(std::move(entry));
  }
  return absl::OkStatus();
}

void Lowerer::DeclareOutputs() {
  const Graph& g = model_->graph();
  output_params_.assign(g.outputs().size(), Expr());
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const Value* v = g.outputs()[k];
    const TensorInfo& info = inference_.state().Get(v);
    if (!info.is_tensor() || !info.dims) continue;  // returned by the function
    std::vector<Expr> dims;
    bool ok = true;
    for (const IndexExpr& d : *info.dims) {
      absl::StatusOr<Expr> x = dims_.Translate(d);  // over the parameters only, at this point
      if (!x.ok()) {
        ok = false;
        break;
      }
      dims.push_back(*x);
    }
    std::optional<tir::ScalarKind> kind = tir::ScalarKindOf(info.type);
    if (!ok || !kind) continue;  // returned by the function (dynamic)
    Expr t = b_.Tensor(v->name(), DataType(*kind), std::move(dims));
    if (!b_.ok()) continue;
    output_params_[k] = t;
    tensor_params_.push_back(t);
    // The producer writes the first occurrence straight into the parameter.
    if (v->producer() != nullptr && !tensors_.contains(v) && !writes_output_.contains(v)) {
      writes_output_.insert(v);
      tensors_[v] = t;
    }
  }
}

absl::StatusOr<bool> Lowerer::DeclareStatic(const Value* v, std::vector<Stmt>* out) {
  if (writes_output_.contains(v)) return true;  // its output parameter
  // A graph output with no parameter has dims only the run knows (a data-dependent symbol's):
  // the function returns it, as a tensor its producer's kernel call allocates.
  if (v->IsGraphOutput() && v->graph() == &model_->graph()) return false;
  const TensorInfo& info = inference_.state().Get(v);
  if (!info.is_tensor() || !info.dims) return false;
  std::vector<Expr> dims;
  for (const IndexExpr& d : *info.dims) {
    absl::StatusOr<Expr> x = dims_.Translate(d);
    if (!x.ok()) return false;
    dims.push_back(*x);
  }
  std::optional<tir::ScalarKind> kind = tir::ScalarKindOf(info.type);
  if (!kind) return false;
  Expr t = b_.Tensor(LocalName(v->name()), DataType(*kind), std::move(dims));
  ANVIL_RETURN_IF_ERROR(b_.status());
  tensors_[v] = t;
  // Dims only the run learns, with finite upper bounds (the model's dim ranges): the bytes it
  // may take, so that plan-buffers can give it a place.
  tir::TensorAttrs attrs;
  if (!LiteralDims(*info.dims)) {
    if (std::optional<std::vector<int64_t>> most = UpperBounds(*info.dims)) {
      // A loose bound would make every run's workspace that large: past a cap the tensor is
      // allocated at its actual size instead.
      constexpr int64_t kMaxBoundedBytes = int64_t{64} << 20;
      absl::StatusOr<int64_t> bytes =
          CheckedByteSize(*most, ElementSize(tir::ElementTypeOf(*kind)));
      if (bytes.ok() && *bytes <= kMaxBoundedBytes) attrs.max_bytes = *bytes;
    }
  }
  out->push_back(b_.Define(t, Expr(), attrs));
  return true;
}

void Lowerer::EmitCopy(const Expr& src, const Expr& dst, std::vector<Stmt>* out) {
  const std::vector<Expr>& dims = dst.as<tir::TensorNode>()->dims;
  out->push_back(b_.Nest(
      dims, "c", [&](const std::vector<Expr>& i) { return b_.Store(dst, i, b_.Load(src, i)); }));
}

absl::Status Lowerer::EmitKernelCall(const Node& node, int64_t opset, const std::string& category,
                                     std::vector<Stmt>* out) {
  tir::KernelBinding binding;
  binding.op_type = node.op_type();
  binding.domain = node.domain();
  binding.opset = opset;
  binding.node_name = node.name();
  binding.category = category;
  binding.node = &node;
  std::vector<Expr> operands;
  operands.push_back(tir::IndexConst(static_cast<int64_t>(module_.kernels.size())));
  for (int i = 0; i < node.num_inputs(); ++i) {
    const Value* v = node.input(i);
    if (v == nullptr) continue;
    if (!tensors_.contains(v)) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": input '", v->name(), "' has no tensor"));
    }
    binding.slots.push_back(i);
    operands.push_back(tensors_[v]);
  }
  // Questionmarks the call's outputs bind, bound only once every output is declared: the call
  // assigns the variables, so no other output of it may be planned with them (TopK's values and
  // indices share their data-dependent k).
  std::vector<std::pair<IndexAtom, Expr>> bound_by_call;
  for (int o = 0; o < node.num_outputs(); ++o) {
    const Value* v = node.output(o);
    if (v == nullptr) continue;
    if (!tensors_.contains(v)) {
      ANVIL_ASSIGN_OR_RETURN(bool declared, DeclareStatic(v, out));
      if (!declared) {
        // Data decides its dims: index variables the call assigns, bound for later nodes.
        const TensorInfo& info = inference_.state().Get(v);
        if (IsValue(info)) {
          // A sequence, an optional or a tensor of unknown rank: a value the call sets.
          Expr t = b_.Tensor(LocalName(v->name()), DataType(tir::ScalarKind::kValue), {});
          ANVIL_RETURN_IF_ERROR(b_.status());
          tensors_[v] = t;
          out->push_back(b_.Define(t, Expr(), {.dynamic = true}));
          binding.slots.push_back(-1 - o);
          operands.push_back(t);
          continue;
        }
        std::optional<tir::ScalarKind> kind = tir::ScalarKindOf(info.type);
        if (!kind) kind = tir::ScalarKindOf(v->type().element_type());
        if (!kind) {
          return absl::UnimplementedError(
              absl::StrCat(node.Describe(), ": output '", v->name(),
                           "' has an unknown element type; lowering needs one"));
        }
        std::vector<Expr> dims;
        for (size_t k = 0; k < info.dims->size(); ++k) {
          const IndexExpr& d = (*info.dims)[k];
          if (d.IsLiteral()) {
            dims.push_back(tir::IndexConst(d.literal()));
            continue;
          }
          Expr var = b_.Var(absl::StrCat(v->name(), "_d", k), DataType::Index());
          out->push_back(b_.Define(var));
          // A lone dim nothing has bound yet (a questionmark, or the bounded symbol shape
          // analysis names a data-dependent dim with, e.g. NonZero's count) is what the call
          // computes.
          if (std::optional<IndexAtom> atom = DimTranslator::SingleAtom(d);
              atom && !dims_.IsBound(*atom)) {
            bound_by_call.emplace_back(std::move(*atom), var);
          }
          dims.push_back(var);
        }
        Expr t = b_.Tensor(LocalName(v->name()), DataType(*kind), std::move(dims));
        ANVIL_RETURN_IF_ERROR(b_.status());
        tensors_[v] = t;
        out->push_back(b_.Define(t, Expr(), {.dynamic = true}));
      }
    }
    binding.slots.push_back(-1 - o);
    operands.push_back(tensors_[v]);
  }
  for (const auto& [atom, var] : bound_by_call) {
    if (!dims_.IsBound(atom)) dims_.Bind(atom, var);
  }
  // Values of the main graph that the node's subgraphs read.
  absl::flat_hash_set<const Value*> seen;
  std::function<void(const Graph&)> collect = [&](const Graph& sub) {
    for (const Node* n : sub.nodes()) {
      for (const Value* in : n->inputs()) {
        if (in != nullptr && in->graph() == &model_->graph() && seen.insert(in).second) {
          binding.captures.push_back(in->name());
          binding.captured_values.push_back(in);
          operands.push_back(tensors_[in]);
        }
      }
      for (const Graph* nested : n->Subgraphs()) collect(*nested);
    }
    for (const Value* o : sub.outputs()) {
      if (o->graph() == &model_->graph() && seen.insert(o).second) {
        binding.captures.push_back(o->name());
        binding.captured_values.push_back(o);
        operands.push_back(tensors_[o]);
      }
    }
  };
  for (const Graph* sub : node.Subgraphs()) collect(*sub);
  module_.kernels.push_back(std::move(binding));
  out->push_back(b_.Evaluate(b_.Call(tir::IntrinsicOp::kKernel, std::move(operands))));
  // A data-dependent dim the call set keeps its inferred range: buffers are planned for it.
  for (const auto& [atom, var] : bound_by_call) {
    if (atom.kind == IndexAtom::Kind::kSymbol) {
      if (std::optional<Stmt> check = RangeCheck(atom.name, var, node.Describe())) {
        out->push_back(*std::move(check));
      }
    }
  }
  ANVIL_RETURN_IF_ERROR(b_.status());
  return absl::OkStatus();
}

std::optional<Stmt> Lowerer::RangeCheck(const std::string& symbol, const Expr& var,
                                        const std::string& where) {
  const IndexRange range = RangeOf(IndexExpr::Symbol(symbol));
  const int64_t lo = range.lo.value_or(0);
  if (lo <= 0 && !range.hi) return std::nullopt;
  Expr in_range;
  if (lo > 0) in_range = b_.Ge(var, tir::IndexConst(lo));
  if (range.hi) {
    const Expr below = b_.Le(var, tir::IndexConst(*range.hi));
    in_range = in_range.defined() ? b_.And(in_range, below) : below;
  }
  return b_.Assert(in_range, absl::StrCat(where, ": ", symbol, " is outside its range ",
                                          RangeToString({lo, range.hi})));
}

// The comment before a node's statements: its outputs, op and inputs as in ONNX's text syntax,
// and its name when it has one, e.g. "q = MatMul(ln1, wq)  [node 'attn/q']".
Stmt NodeComment(const Node& node) {
  auto names = [](const std::vector<Value*>& values) {
    std::string out;
    for (size_t k = 0; k < values.size(); ++k) {
      absl::StrAppend(&out, k ? ", " : "", values[k] == nullptr ? "" : values[k]->name());
    }
    return out;
  };
  const std::string op =
      node.domain().empty() ? node.op_type() : absl::StrCat(node.domain(), ".", node.op_type());
  std::string text = absl::StrCat(names(node.outputs()), " = ", op, "(", names(node.inputs()), ")");
  if (!node.name().empty()) absl::StrAppend(&text, "  [node '", node.name(), "']");
  return tir::MakeComment(std::move(text));
}

absl::Status Lowerer::LowerNode(const Node& node) {
  if (stats_) ++stats_->nodes;
  const std::string op =
      node.domain().empty() ? node.op_type() : absl::StrCat(node.domain(), ".", node.op_type());
  // Constants are globals already.
  if (node.op_type() == "Constant" && node.domain().empty() && node.num_outputs() == 1 &&
      tensors_.contains(node.output(0))) {
    if (stats_) {
      ++stats_->native;
      ++stats_->native_ops[op];
    }
    return absl::OkStatus();
  }
  const int64_t opset = model_->OpsetVersion(node.domain());
  std::string fallback_reason;
  // Values (sequences, optionals, tensors of unknown rank) only kernels read and write: a node
  // touching one (an Identity of a sequence, an If returning one) is a kernel call whatever rules
  // its op has.
  bool touches_value = false;
  for (const Value* v : node.inputs()) {
    touches_value |= v != nullptr && IsValue(inference_.state().Get(v));
  }
  for (const Value* v : node.outputs()) {
    touches_value |= v != nullptr && IsValue(inference_.state().Get(v));
  }
  LowerFn rule = touches_value ? nullptr : FindLowerRule(node, opset);
  if (touches_value) fallback_reason = "a sequence, optional or unknown-rank operand";
  bool measured = false;
  if (rule && !kernel_nodes_.empty()) {
    for (const Value* v : node.outputs()) {
      if (v == nullptr) continue;
      measured = kernel_nodes_.contains(v->name());
      break;
    }
    if (measured) rule = nullptr;
  }
  if (rule) {
    // The op's ShapeHelper, run with the lowering's builder, gives the facts the rule indexes
    // with; its dims must be inference's (the same rule over the same knowledge).
    TirBuilder builder(node, inference_.state());
    ShapeContext ctx(node, opset, builder);
    absl::StatusOr<ShapeFn> fn = ShapeFnFor(node, opset);
    ANVIL_RETURN_IF_ERROR(fn.status());
    ANVIL_RETURN_IF_ERROR((*fn)(ctx));
    // A rule indexes with what the ShapeHelper derived: when the helper itself could not tell
    // every output dim (an axes or starts input known only at run time, and a declared output
    // type filling in for it), its facts are incomplete and the kernel runs the node.
    bool determined = true;
    // Where inference knows more than the rule (a declared output type fixing a dim the rule
    // leaves symbolic), the run must agree: an Assert before the node's loops.
    std::vector<Stmt> declared_checks;
    for (int o = 0; o < node.num_outputs(); ++o) {
      if (node.output(o) == nullptr) continue;
      const std::optional<DimsExpr>& dims = ctx.output(o).dims;
      if (!dims) {
        determined = false;
        continue;
      }
      for (const IndexExpr& d : *dims) determined &= !d.IsQuestionmark() && d.IsDefined();
      const TensorInfo& known = inference_.state().Get(node.output(o));
      if (!known.dims || known.dims->size() != dims->size()) continue;
      for (size_t k = 0; k < known.dims->size(); ++k) {
        const IndexExpr& a = (*known.dims)[k];
        const IndexExpr& c = (*dims)[k];
        if (!a.IsQuestionmark() && !c.IsQuestionmark() && a != c) {
          absl::StatusOr<Expr> derived = dims_.Translate(c);
          absl::StatusOr<Expr> declared = dims_.Translate(a);
          if (!derived.ok() || !declared.ok()) {
            determined = false;
            continue;
          }
          declared_checks.push_back(b_.Assert(
              b_.Eq(*derived, *declared),
              absl::StrCat(node.Describe(), ": output ", o, " dim ", k, " is ", c.ToString(),
                           " by the op's rule but ", a.ToString(), " as declared")));
        }
      }
    }
    // Declare the outputs; a data-dependent one sends the node to its kernel.
    std::vector<Stmt> stmts;
    bool all_static = determined;
    std::vector<const Value*> declared;
    for (int o = 0; o < node.num_outputs() && all_static; ++o) {
      const Value* v = node.output(o);
      if (v == nullptr) continue;
      ANVIL_ASSIGN_OR_RETURN(bool ok, DeclareStatic(v, &stmts));
      if (ok) declared.push_back(v);
      all_static &= ok;
    }
    if (all_static) {
      NodeLoweringImpl lowering(*this, node, opset, ctx.recorded_facts());
      views_.clear();
      absl::Status s = rule(lowering);
      if (s.ok()) s = lowering.b().status();
      if (s.ok()) {
        // Views replace their outputs' buffers (a graph output is copied instead).
        for (auto [o, i] : views_) {
          const Value* v = node.output(o);
          const Expr& base = tensors_[node.input(i)];
          if (writes_output_.contains(v)) {
            // The output owns its memory: copy, through a view of the input in its dims.
            const Expr& out = tensors_[v];
            Expr view = b_.Tensor(LocalName(absl::StrCat(v->name(), "_view")), out.type(),
                                  out.as<tir::TensorNode>()->dims);
            lowering.stmts().push_back(b_.Define(view, Expr(), {.view_of = base}));
            EmitCopy(view, out, &lowering.stmts());
            continue;
          }
          const Expr& t = tensors_[v];
          for (Stmt& d : stmts) {
            const auto* def = d.as<tir::DefineNode>();
            if (def != nullptr && def->target.same(t)) d = b_.Define(t, Expr(), {.view_of = base});
          }
        }
        ANVIL_RETURN_IF_ERROR(b_.status());
        body_.push_back(NodeComment(node));
        for (Stmt& st : declared_checks) body_.push_back(std::move(st));
        for (Stmt& st : lowering.checks()) body_.push_back(std::move(st));
        for (Stmt& st : stmts) body_.push_back(std::move(st));
        for (Stmt& st : lowering.stmts()) body_.push_back(std::move(st));
        if (stats_) {
          if (lowering.counted_as_intrinsic()) {
            ++stats_->intrinsic;
            ++stats_->intrinsic_ops[op];
          } else {
            ++stats_->native;
            ++stats_->native_ops[op];
            if (!views_.empty()) {
              ++stats_->views;
              for (const Value* v : node.outputs()) {
                if (v == nullptr) continue;
                stats_->view_nodes.insert(v->name());
                break;
              }
            }
          }
        }
        return absl::OkStatus();
      }
      if (!absl::IsUnimplemented(s)) return s;
      fallback_reason = std::string(s.message());
    } else if (!determined) {
      fallback_reason = "the ShapeHelper cannot tell its output dims before the run";
    } else {
      fallback_reason = "an output's dims depend on data";
    }
    // Not covered: forget the declarations, call the kernel.
    for (const Value* v : declared) {
      if (!writes_output_.contains(v)) tensors_.erase(v);
    }
  }
  std::vector<Stmt> stmts;
  ANVIL_RETURN_IF_ERROR(EmitKernelCall(node, opset, measured ? "measured" : "fallback", &stmts));
  body_.push_back(NodeComment(node));
  for (Stmt& st : stmts) body_.push_back(std::move(st));
  if (stats_ && measured) {
    ++stats_->measured;
  } else if (stats_) {
    ++stats_->fallback;
    ++stats_->fallback_ops[op];
    if (!fallback_reason.empty()) stats_->fallback_reasons.emplace(op, fallback_reason);
  }
  return absl::OkStatus();
}

absl::StatusOr<tir::Module> Lowerer::Run() {
  ANVIL_RETURN_IF_ERROR(inference_.InferAll().status());
  IndexExprContext::Scope scope(inference_.context());
  ANVIL_RETURN_IF_ERROR(DeclareGlobals());
  ANVIL_RETURN_IF_ERROR(DeclareInputs());
  DeclareOutputs();
  for (const Node* node : model_->graph().nodes()) {
    ANVIL_RETURN_IF_ERROR(LowerNode(*node));
  }
  // Graph outputs not written in place: copies (inputs, weights, repeated outputs, views); and
  // outputs whose dims only the run knows come back from the function.
  const Graph& g = model_->graph();
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const Value* v = g.outputs()[k];
    if (!tensors_.contains(v)) {
      return absl::InternalError(absl::StrCat("graph output '", v->name(), "' was not computed"));
    }
    const Expr& param = output_params_[k];
    if (!param.defined()) {
      module_.binding.outputs.push_back({v->name(), tensors_[v], true});
      continue;
    }
    if (!tensors_[v].same(param)) EmitCopy(tensors_[v], param, &body_);
    module_.binding.outputs.push_back({v->name(), param, false});
  }
  ANVIL_RETURN_IF_ERROR(b_.status());
  tir::Function main;
  main.name = "main";
  main.params = dim_params_;
  main.params.insert(main.params.end(), tensor_params_.begin(), tensor_params_.end());
  main.body = tir::MakeBlock(std::move(body_));
  module_.functions.push_back(std::move(main));
  module_.source = model_;
  ANVIL_RETURN_IF_ERROR(tir::VerifyModule(module_));
  return std::move(module_);
}

}  // namespace

// ---- NodeLowering helpers ----

Expr NodeLowering::Local(std::string name, DataType type, Expr init) {
  Expr v = b().Var(std::move(name), type);
  Emit(b().Define(v, init));
  return v;
}

Expr NodeLowering::LocalTensor(std::string name, DataType element, std::vector<Expr> dims) {
  Expr t = b().Tensor(std::move(name), element, std::move(dims));
  Emit(b().Define(t));
  return t;
}

std::vector<Expr> NodeLowering::BroadcastIndex(int input, const std::vector<Expr>& out,
                                               int output) {
  const DimsExpr& in_dims = input_dims(input);
  const DimsExpr& out_dims = output_dims(output);
  const std::vector<Expr>& tensor_dims = TensorDims(this->input(input));
  const size_t offset = out.size() - in_dims.size();
  std::vector<Expr> index;
  for (size_t k = 0; k < in_dims.size(); ++k) {
    const IndexExpr& d = in_dims[k];
    const Expr& i = out[offset + k];
    if (d.IsLiteral() && d.literal() == 1) {
      index.push_back(tir::IndexConst(0));
    } else if (d == out_dims[offset + k]) {
      index.push_back(i);
    } else {
      index.push_back(b().Min(i, b().Sub(tensor_dims[k], tir::IndexConst(1))));
      const std::pair<int, size_t> key(input, k);
      if (std::find(checked_.begin(), checked_.end(), key) == checked_.end()) {
        checked_.push_back(key);
        const Expr& out_dim = TensorDims(this->output(output))[offset + k];
        checks_.push_back(b().Assert(
            b().Or(b().Eq(tensor_dims[k], tir::IndexConst(1)), b().Eq(tensor_dims[k], out_dim)),
            absl::StrCat(node().Describe(), ": cannot broadcast input ", input, " dim ", k, " (",
                         d.ToString(), ") to the output's (", out_dims[offset + k].ToString(),
                         ")")));
      }
    }
  }
  return index;
}

absl::Status NodeLowering::Unimplemented(std::string_view why) const {
  return absl::UnimplementedError(absl::StrCat(node().Describe(), ": ", AsAbsl(why)));
}

absl::Status NodeLowering::Error(std::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(node().Describe(), ": ", AsAbsl(what)));
}

LowerFn FindLowerRule(const Node& node, int64_t opset) {
  static const std::vector<LowerFn>* const kRules = new std::vector<LowerFn>(BindToOps<LowerRule>(
      {kElementwiseLowerRules, kReduceLowerRules, kDataLowerRules, kLinalgLowerRules}));
  const OpInfo* op = FindOp(node.domain(), node.op_type(), opset);
  if (op == nullptr) return nullptr;
  return (*kRules)[OpIndex(*op)];
}

absl::StatusOr<tir::Module> LowerToTir(const Model& model, const LoweringOptions& options,
                                       LoweringStats* stats) {
  std::shared_ptr<Model> copy = model.Clone();
  Lowerer lowerer(copy, options.kernel_nodes, stats);
  ANVIL_ASSIGN_OR_RETURN(tir::Module module, lowerer.Run());
  if (options.simplify) module = tir::Simplify(module);
  if (stats) stats->before_passes = CountLoops(module);
  return RunModulePasses(std::move(module), options, stats ? &stats->passes : nullptr);
}

const tir::Module* LoweredModule(const Model& model) {
  const LoweredModuleAttachment* a = model.FindAttachment<LoweredModuleAttachment>();
  return a == nullptr ? nullptr : a->module.get();
}

absl::StatusOr<LoweringOptions> LowerToTirPass::Options() const {
  LoweringOptions options;
  options.fuse = *fuse_;
  options.tile_rows = *tile_rows_;
  options.row_tiles.tile_bytes = *tile_bytes_;
  options.row_tiles.weight_bytes = *tile_weight_bytes_;
  options.plan_buffers = *plan_buffers_;
  options.collapse_loops = *collapse_loops_;
  options.mark_loops = *mark_loops_;
  options.instrumentations = tir_instrumentations_;
  if (pipeline_->empty()) return options;
  for (const PassOptionBase* option : this->options()) {
    if (option != &pipeline_ && !option->IsDefault()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "lower-to-tir: option '", option->name(),
          "' cannot be combined with 'pipeline' (which names the Tensor IR passes itself)"));
    }
  }
  options.pipeline = *pipeline_;
  return options;
}

absl::StatusOr<LoweringOptions> ParseLoweringOptions(std::string_view text) {
  LowerToTirPass pass;
  absl::StatusOr<std::vector<PassSpec>> specs =
      ParsePipelineText(absl::StrCat(AsAbsl(pass.name()), "{", AsAbsl(text), "}"));
  if (!specs.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("lower-to-tir option text '", Excerpt(text),
                                                   "' is not key=value[,key=value...] (",
                                                   specs.status().message(), ")"));
  }
  for (const PassSpec& spec : *specs) {
    for (const PassOptionSpec& option : spec.options) {
      ANVIL_RETURN_IF_ERROR(pass.SetOption(option.key, option.value));
    }
  }
  return pass.Options();
}

absl::StatusOr<bool> LowerToTirPass::Run(Model& model, PassContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(const LoweringOptions options, Options());
  LoweringStats stats;
  ANVIL_ASSIGN_OR_RETURN(tir::Module module, LowerToTir(model, options, &stats));
  ctx.AddStatistic("nodes-native", stats.native);
  ctx.AddStatistic("nodes-intrinsic", stats.intrinsic);
  ctx.AddStatistic("nodes-fallback", stats.fallback);
  const ModuleCounts counts = CountLoops(module);
  ctx.AddStatistic("loop-nests-before-fusion", stats.before_passes.nests);
  ctx.AddStatistic("loop-nests", counts.nests);
  ctx.AddStatistic("loops-before-fusion", stats.before_passes.loops);
  ctx.AddStatistic("loops", counts.loops);
  ctx.AddStatistic("stored-intermediates-before-fusion", stats.before_passes.stored_intermediates);
  ctx.AddStatistic("stored-intermediates", counts.stored_intermediates);
  ctx.AddStatistic("local-buffers", counts.local_buffers);
  ctx.AddStatistic("inlined-producers", stats.passes.fuse.inlined);
  ctx.AddStatistic("fused-loops", stats.passes.fuse.fused);
  ctx.AddStatistic("contracted-intermediates", stats.passes.fuse.contracted);
  ctx.AddStatistic("row-tile-loops", stats.passes.row_tiles.runs);
  ctx.AddStatistic("row-tile-gemms", stats.passes.row_tiles.gemms);
  ctx.AddStatistic("row-tile-nests", stats.passes.row_tiles.nests);
  ctx.AddStatistic("row-tile-contracted", stats.passes.row_tiles.contracted);
  ctx.AddStatistic("workspace-buffers", stats.passes.plan.buffers);
  if (!stats.passes.plan.dynamic) {
    ctx.AddStatistic("workspace-bytes", stats.passes.plan.workspace_bytes);
    ctx.AddStatistic("workspace-bytes-unshared", stats.passes.plan.unshared_bytes);
  }
  ctx.AddStatistic("collapsed-loops", stats.passes.collapse.collapsed);
  ctx.AddStatistic("parallel-loops", stats.passes.mark.parallel);
  ctx.AddStatistic("vectorized-loops", stats.passes.mark.vectorized);
  for (const auto& [op, n] : stats.fallback_ops) {
    ctx.AddRemark(absl::StrCat(op, ": ", n, " node(s) call their kernel (no lowering rule)"));
  }
  model.Attachment<LoweredModuleAttachment>().module =
      std::make_unique<tir::Module>(std::move(module));
  return false;
}

namespace {
[[maybe_unused]] const bool kRegistered = pass_internal::RegisterPassClass<LowerToTirPass>();
}  // namespace

}  // namespace anvil::lower
