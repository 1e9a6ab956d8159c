#include "runtime/session.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/excerpt.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "graph/instrumentation.h"
#include "graph/limits.h"
#include "graph/model_io.h"
#include "graph/pass_manager.h"
#include "graph/verifier.h"
#include "runtime/executor.h"
#include "shape/index_expr.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

absl::Status SortTopologically(Model& model) {
  absl::Status sorted = absl::OkStatus();
  model.graph().ForEachGraph([&sorted](Graph& g) {
    std::string cycle;
    if (sorted.ok() && !g.TopologicalSort(&cycle)) {
      sorted = absl::InvalidArgumentError(absl::StrCat("the graph has a cycle through ", cycle));
    }
  });
  return sorted;
}

}  // namespace

Session::~Session() = default;

absl::Status PrepareModelForRun(Model& model, const std::string& pipeline,
                                std::vector<std::string>* warnings, const Progress* progress) {
  // Import refuses deeper nesting; a model built in memory is checked here, before the first
  // recursive walk (the sort).
  ANVIL_RETURN_IF_ERROR(CheckSubgraphDepth(model.graph()));
  // Imported models are in topological order; one built in memory need not be. Sorting first lets
  // the verifier judge the model, not its node order.
  ANVIL_RETURN_IF_ERROR(SortTopologically(model));
  // Kernels trust the verifier: arity, attributes and types are checked against the op schemas
  // before any of them sees a node.
  {
    ScopedProgress verifying(progress, "verify");
    if (absl::Status valid = VerifyModel(model, warnings); !valid.ok()) {
      return absl::Status(valid.code(), absl::StrCat("invalid model: ", valid.message()));
    }
  }
  if (!pipeline.empty()) {
    absl::StatusOr<PassManager> pm = PassManager::Parse(pipeline);
    if (!pm.ok() && absl::IsNotFound(pm.status()) && pipeline == kLoadPipeline) {
      // The runtime links no passes: the program that loads models links the ones it names.
      return absl::Status(pm.status().code(),
                          absl::StrCat(pm.status().message(),
                                       " (the program must link //passes:default, which registers "
                                       "the load pipeline's passes)"));
    }
    if (!pm.ok()) return pm.status();
    if (progress != nullptr) {
      pm->AddInstrumentation(std::make_unique<ProgressInstrumentation>(progress));
    }
    ANVIL_RETURN_IF_ERROR(pm->Run(model));
    ANVIL_RETURN_IF_ERROR(SortTopologically(model));
  }
  return absl::OkStatus();
}

int64_t DefaultMaxAllocationBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return int64_t{1} << 30;
  return static_cast<int64_t>(pages) * page_size / 2;
}

absl::StatusOr<std::unique_ptr<Session>> Session::Load(const std::string& path,
                                                       const SessionOptions& options) {
  std::vector<std::string> import_warnings;  // graphs the import sorted
  std::unique_ptr<Model> model;
  {
    ScopedProgress importing(options.progress, absl::StrCat("import ", path), ModelFileBytes(path));
    ANVIL_ASSIGN_OR_RETURN(model, LoadModel(path, &import_warnings));
  }
  absl::StatusOr<std::unique_ptr<Session>> session = Load(std::move(model), options);
  if (session.ok()) {
    (*session)->warnings_.insert((*session)->warnings_.begin(), import_warnings.begin(),
                                 import_warnings.end());
  }
  return session;
}

absl::StatusOr<std::unique_ptr<Session>> Session::Load(std::unique_ptr<Model> model,
                                                       const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  ANVIL_RETURN_IF_ERROR(session->Init(std::move(model), options));
  return session;
}

absl::Status Session::Init(std::unique_ptr<Model> model, const SessionOptions& options) {
  ScopedIndexExprContext index_exprs;  // what planning infers is gone with it
  options_ = options;
  model_ = std::move(model);
  if (!options.input_ranges.empty()) {
    ANVIL_RETURN_IF_ERROR(AddInputRanges(*model_, options.input_ranges));
  }
  // The plan follows node order.
  ANVIL_RETURN_IF_ERROR(
      PrepareModelForRun(*model_, options.pipeline, &warnings_, options.progress));

  {
    ScopedProgress planning(options.progress, "plan (kernels, packed weights)");
    ANVIL_ASSIGN_OR_RETURN(
        plan_, GraphPlan::Build(*model_, model_->graph(), options.release_packed_weights));
  }
  released_weight_bytes_ = plan_->released_bytes();
  for (const Value* in : model_->graph().inputs()) {
    if (!in->IsInitializer()) inputs_.push_back(in);
  }
  for (const Value* out : model_->graph().outputs()) outputs_.push_back(out);
  shape_engine_ = std::make_unique<ShapeInferenceEngine>(*plan_);

  ANVIL_RETURN_IF_ERROR(ComputeBounds());

  // Lifetimes per slot and the reuse candidates, for the memory planner.
  lifetimes_.resize(plan_->num_slots());
  for (int slot = 0; slot < plan_->num_slots(); ++slot) {
    const Slot& s = plan_->slots()[slot];
    const int first = s.producer >= 0 ? s.producer : 0;
    lifetimes_[slot] = {first, std::max(first, s.last_use)};
  }
  const std::vector<Step>& steps = plan_->steps();
  arena_views_.assign(plan_->num_slots(), TensorView{});
  reserved_.assign(plan_->num_slots(), ArenaRegion{});
  alias_step_.assign(steps.size(), false);
  MakePlanner();
  if (bounded_) {
    // One plan and one arena for every run the ranges allow, unless the worst case is more than
    // one allocation may take: then each run's sizes are planned, as without bounds.
    planner_->Plan(bound_bytes_);
    if (options.max_allocation_bytes != kNoAllocationLimit &&
        planner_->arena_bytes() > options.max_allocation_bytes) {
      unbounded_ =
          absl::StrCat("the upper bounds need an arena of ", HumanBytes(planner_->arena_bytes()),
                       ", over the allocation limit of ", HumanBytes(options.max_allocation_bytes));
      bounded_ = false;
      MakePlanner();
    } else {
      ANVIL_RETURN_IF_ERROR(GrowArena());
    }
  }
  return absl::OkStatus();
}

void Session::MakePlanner() {
  std::vector<ReuseCandidate> candidates;
  reuse_steps_.clear();
  const std::vector<Step>& steps = plan_->steps();
  for (int s = 0; s < static_cast<int>(steps.size()); ++s) {
    const Step& step = steps[s];
    if (step.reuse == ReuseKind::kNone || step.inputs.empty() || step.inputs[0] < 0 ||
        step.outputs.empty() || step.outputs[0] < 0) {
      continue;
    }
    // Planned for upper bounds, an output may overwrite its input only when the two have the
    // same dims in every run, not only the same bound (Add of [M, 4] and [N, 4] with M, N <= 8).
    const Type& in = plan_->slots()[step.inputs[0]].value->type();
    const Type& out = plan_->slots()[step.outputs[0]].value->type();
    if (bounded_ && step.reuse == ReuseKind::kInPlace &&
        (!in.has_shape() || !out.has_shape() || in.shape() != out.shape())) {
      continue;
    }
    candidates.push_back({s, step.outputs[0], step.inputs[0], step.reuse == ReuseKind::kInPlace});
    reuse_steps_.push_back(s);
  }
  planner_ = std::make_unique<MemoryPlanner>(lifetimes_, std::move(candidates), options_.reuse);
}

absl::Status Session::ComputeBounds() {
  IndexExprContext context;
  IndexExprContext::Scope scope(context);
  std::string problem;
  const std::vector<SymbolRange> ranges = ModelRangesOrNone(*model_, &problem);
  if (!problem.empty()) warnings_.push_back(problem);
  ANVIL_RETURN_IF_ERROR(DeclareRanges(ranges));
  const Graph& graph = model_->graph();
  for (int i = 0; i < static_cast<int>(graph.inputs().size()); ++i) {
    const Type& type = graph.inputs()[i]->type();
    if (!type.is_tensor() || !type.has_shape()) continue;
    for (int k = 0; k < type.rank(); ++k) {
      const Dim& d = type.shape()[k];
      if (!d.is_param()) continue;
      auto r = std::find_if(ranges.begin(), ranges.end(),
                            [&](const SymbolRange& r) { return r.name == d.param; });
      if (r != ranges.end()) input_ranges_.push_back({i, k, *r});
    }
  }
  bound_bytes_.assign(plan_->num_slots(), -1);
  bounded_ = options_.plan_memory;
  for (int slot = 0; slot < plan_->num_slots() && bounded_; ++slot) {
    const Slot& s = plan_->slots()[slot];
    const Type& type = s.value->type();
    if (s.kind != SlotKind::kComputed || s.graph_output || type.is_sequence() ||
        type.is_optional() || type.element_type() == ElementType::kString) {
      continue;
    }
    std::optional<std::vector<int64_t>> most;
    if (type.is_tensor() && type.has_shape() && type.element_type() != ElementType::kUndefined) {
      most = UpperBounds(*InfoFromType(type).dims);
    }
    absl::StatusOr<int64_t> bytes =
        most ? CheckedByteSize(*most, ElementSize(type.element_type()))
             : absl::StatusOr<int64_t>(absl::OutOfRangeError("no bound"));
    if (!bytes.ok()) {
      bounded_ = false;
      unbounded_ = absl::StrCat(Quoted(s.value->name()), " ", s.value->type().ToString());
      break;
    }
    bound_bytes_[slot] = *bytes;
  }
  return absl::OkStatus();
}

absl::Status Session::GrowArena() {
  if (planner_->arena_bytes() <= static_cast<int64_t>(arena_.ByteSize())) return absl::OkStatus();
  arena_ = Tensor();  // the old arena goes first: both need not fit at once
  absl::StatusOr<Tensor> arena = Tensor::Allocate(ElementType::kUint8, {planner_->arena_bytes()},
                                                  options_.max_allocation_bytes);
  if (!arena.ok()) {
    return absl::Status(arena.status().code(),
                        absl::StrCat("memory plan: the arena of intermediates (peak ",
                                     HumanBytes(planner_->arena_bytes()), " live at once",
                                     bounded_ ? ", planned for the dims' upper bounds" : "",
                                     ") cannot be allocated: ", arena.status().message()));
  }
  arena_ = *std::move(arena);
  ++arena_allocations_;
  return absl::OkStatus();
}

absl::Status Session::BindInputs(const absl::flat_hash_map<std::string, Tensor>& inputs,
                                 std::vector<TensorView>* views) const {
  const Graph& graph = model_->graph();
  for (const auto& [name, tensor] : inputs) {
    const Value* v = graph.FindValue(name);
    if (v == nullptr || !v->IsGraphInput()) {
      std::vector<std::string> names;
      for (const Value* in : inputs_) names.push_back(in->name());
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown input '", name, "'; the model's inputs are: ", absl::StrJoin(names, ", ")));
    }
  }
  views->clear();
  for (int slot : plan_->input_slots()) {
    const Slot& s = plan_->slots()[slot];
    const Value* v = s.value;
    auto it = inputs.find(v->name());
    if (it == inputs.end()) {
      if (v->IsInitializer()) {
        views->push_back(s.constant_view);
        continue;
      }
      return absl::InvalidArgumentError(
          absl::StrCat("missing input ", Quoted(v->name()), " (", v->type().ToString(), ")"));
    }
    const Tensor& t = it->second;
    const Type& declared = v->type();
    if (!t.defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", Quoted(v->name()), " is an undefined tensor"));
    }
    // A sequence for a sequence, a tensor for a tensor; an optional takes its value or none.
    const bool is_sequence = t.kind() == ValueKind::kSequence;
    const bool kind_ok =
        declared.is_optional() || (declared.is_sequence() && is_sequence) ||
        (declared.is_tensor() && t.is_tensor()) ||
        (!declared.is_sequence() && !declared.is_tensor() && t.kind() != ValueKind::kNoneOptional);
    if (!kind_ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", Quoted(v->name()), ": ",
          is_sequence ? "a sequence" : (t.is_tensor() ? "a tensor" : "an empty optional"),
          ", the model declares ", declared.ToString()));
    }
    if (declared.is_tensor() && declared.element_type() != ElementType::kUndefined &&
        declared.element_type() != t.type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", Quoted(v->name()), ": element type ", AsAbsl(ElementTypeName(t.type())),
          ", expected ", AsAbsl(ElementTypeName(declared.element_type())), " (",
          declared.ToString(), ")"));
    }
    if (declared.has_shape()) {
      if (declared.rank() != static_cast<int64_t>(t.dims().size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", Quoted(v->name()), ": rank ", t.dims().size(), " ", DimsToString(t.dims()),
            ", expected rank ", declared.rank(), " (", declared.ToString(), ")"));
      }
      for (const InputRange& r : input_ranges_) {
        if (plan_->slots()[slot].value != graph.inputs()[r.input]) continue;
        const int64_t size = t.dims()[r.axis];
        if (size < r.range.lo || (r.range.hi && size > *r.range.hi)) {
          return absl::InvalidArgumentError(
              absl::StrCat("input ", Quoted(v->name()), ": dim ", r.axis, " (", r.range.name,
                           ") is ", size, ", outside its range ", FormatSymbolRanges({r.range}),
                           " (got ", DimsToString(t.dims()), ")"));
        }
      }
      for (size_t k = 0; k < t.dims().size(); ++k) {
        const Dim& d = declared.shape()[k];
        if (d.is_literal() && *d.value != t.dims()[k]) {
          return absl::InvalidArgumentError(
              absl::StrCat("input ", Quoted(v->name()), ": dim ", k, " is ", t.dims()[k],
                           ", the model declares ", *d.value, " (", declared.ToString(), "; got ",
                           DimsToString(t.dims()), ")"));
        }
      }
    }
    views->push_back(t.view());
  }
  return absl::OkStatus();
}

absl::Status Session::PrepareMemory() {
  const std::vector<Step>& steps = plan_->steps();
  const int num_slots = plan_->num_slots();
  // Reshape-like steps over a graph input or constant: the output is a view of those bytes
  // (never written: in-place candidates need arena inputs), so it takes no arena space.
  std::vector<bool> external_alias(steps.size(), false);
  if (options_.reuse) {
    for (size_t s = 0; s < steps.size(); ++s) {
      const Step& step = steps[s];
      if (step.reuse != ReuseKind::kAlias || step.inputs.empty() || step.inputs[0] < 0 ||
          step.outputs.empty() || step.outputs[0] < 0) {
        continue;
      }
      const Slot& in = plan_->slots()[step.inputs[0]];
      const Slot& out = plan_->slots()[step.outputs[0]];
      const ValueShape& in_shape = shape_engine_->shape(step.inputs[0]);
      const ValueShape& out_shape = shape_engine_->shape(step.outputs[0]);
      if ((in.kind == SlotKind::kInput || in.kind == SlotKind::kConstant) && !out.graph_output &&
          in_shape.known && out_shape.known && in_shape.bytes == out_shape.bytes &&
          in_shape.type == out_shape.type) {
        external_alias[s] = true;
      }
    }
  }
  std::vector<int64_t> sizes(num_slots, -1);
  for (int slot = 0; slot < num_slots && !bounded_; ++slot) {
    const Slot& s = plan_->slots()[slot];
    const ValueShape& shape = shape_engine_->shape(slot);
    // String tensors hold std::string objects, which only Tensor constructs: heap only.
    if (!options_.plan_memory || s.kind != SlotKind::kComputed || s.graph_output || !shape.known ||
        external_alias[s.producer] || shape.type == ElementType::kString) {
      continue;
    }
    if (options_.max_allocation_bytes != kNoAllocationLimit &&
        shape.bytes > options_.max_allocation_bytes) {
      const Node& producer = *steps[s.producer].node;
      return absl::ResourceExhaustedError(
          absl::StrCat(producer.Describe(), ": output ", Quoted(s.value->name()), " ",
                       AsAbsl(ElementTypeName(shape.type)), DimsToString(shape.dims), " (",
                       HumanBytes(shape.bytes), ") is over the allocation limit of ",
                       HumanBytes(options_.max_allocation_bytes)));
    }
    sizes[slot] = shape.bytes;
  }
  if (!bounded_) planner_->Plan(sizes);  // no-op when no size changed
  ANVIL_RETURN_IF_ERROR(GrowArena());
  // Views are rebuilt whenever shapes were re-inferred: equal sizes may hold other dims.
  auto* base = static_cast<uint8_t*>(arena_.data());
  for (int slot = 0; slot < num_slots; ++slot) {
    const int64_t offset = planner_->offset(slot);
    arena_views_[slot] = TensorView{};
    reserved_[slot] = ArenaRegion{};
    if (offset < 0) continue;
    const ValueShape& shape = shape_engine_->shape(slot);
    if (bounded_ && (!shape.known || external_alias[plan_->slots()[slot].producer])) {
      // Its kernel learns the dims (or it is a view of an input): the bounded region waits.
      if (!shape.known) reserved_[slot] = {base + offset, bound_bytes_[slot]};
      continue;
    }
    if (bounded_ && shape.bytes > bound_bytes_[slot]) {
      return absl::InternalError(absl::StrCat(
          "value ", Quoted(plan_->slots()[slot].value->name()), " is ", DimsToString(shape.dims),
          " in this run, beyond its dims' upper bounds (",
          plan_->slots()[slot].value->type().ToString(), ", ", bound_bytes_[slot], " bytes)"));
    }
    arena_views_[slot] = TensorView::Dense(shape.type, base + offset, shape.dims);
  }
  for (size_t s = 0; s < steps.size(); ++s) alias_step_[s] = external_alias[s];
  for (size_t k = 0; k < reuse_steps_.size(); ++k) {
    const Step& step = steps[reuse_steps_[k]];
    if (planner_->applied(static_cast<int>(k)) && step.reuse == ReuseKind::kAlias) {
      alias_step_[reuse_steps_[k]] = true;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> Session::Run(
    const absl::flat_hash_map<std::string, Tensor>& inputs) {
  return Run(inputs, {});
}

absl::StatusOr<std::vector<Tensor>> Session::Run(
    const absl::flat_hash_map<std::string, Tensor>& inputs,
    const absl::flat_hash_map<std::string, Tensor>& bound_outputs) {
  absl::flat_hash_map<int, Tensor> bound_slots;
  for (const auto& [name, tensor] : bound_outputs) {
    bool found = false;
    for (int slot : plan_->output_slots()) {
      if (plan_->slots()[slot].value->name() != name) continue;
      bound_slots[slot] = tensor;
      found = true;
    }
    if (!found) {
      return absl::InvalidArgumentError(
          absl::StrCat("bound output '", name, "' is not an output of the model"));
    }
  }
  // Shape helpers of data-dependent ops make questionmarks; they go with the run, so a session
  // serving ever new shapes does not grow.
  ScopedIndexExprContext index_exprs;
  parallel::ThreadScope threads(options_.threads);
  ScratchScope scratch(&scratch_);
  std::vector<TensorView> input_views;
  ANVIL_RETURN_IF_ERROR(BindInputs(inputs, &input_views));
  ANVIL_ASSIGN_OR_RETURN(bool reinferred, shape_engine_->Infer(input_views));
  if (reinferred) {
    ANVIL_RETURN_IF_ERROR(PrepareMemory());
  }

  Frame frame(*plan_, nullptr);
  const std::vector<int>& input_slots = plan_->input_slots();
  for (size_t k = 0; k < input_slots.size(); ++k) {
    SlotValue& v = frame.values()[input_slots[k]];
    v.view = input_views[k];
    auto it = inputs.find(plan_->slots()[input_slots[k]].value->name());
    if (it != inputs.end()) v.owner = it->second;  // lets a passed-through input be returned
  }
  ANVIL_RETURN_IF_ERROR(frame.BindConstantsAndCaptures());
  StaticLayout layout{shape_engine_.get(), &arena_views_, &alias_step_,
                      bounded_ ? &reserved_ : nullptr};
  heap_tensors_ = 0;
  ++runs_;
  if (options_.profile) step_nanos_.resize(plan_->steps().size(), 0);
  ExecutionOptions exec_options{options_.seed,
                                &heap_tensors_,
                                options_.profile ? &step_nanos_ : nullptr,
                                options_.max_allocation_bytes,
                                &output_recycler_,
                                &body_buffers_};
  if (!bound_slots.empty()) exec_options.bound_outputs = &bound_slots;
  if (bounded_) {
    for (ArenaRegion& region : reserved_) region.used = -1;
  }
  ANVIL_RETURN_IF_ERROR(ExecuteFrame(frame, &layout, exec_options));

  std::vector<Tensor> outputs;
  outputs.reserve(plan_->output_slots().size());
  for (int slot : plan_->output_slots()) {
    const SlotValue& v = frame.values()[slot];
    if (!v.view.present()) {
      return absl::InternalError(
          absl::StrCat("graph output '", plan_->slots()[slot].value->name(), "' has no value"));
    }
    outputs.push_back(MaterializeSlot(v));
  }
  return outputs;
}

MemoryStats Session::memory_stats() const {
  MemoryStats stats;
  stats.arena_bytes = planner_->arena_bytes();
  stats.lower_bound_bytes = planner_->lower_bound_bytes();
  stats.unshared_bytes = planner_->unshared_bytes();
  stats.plans = planner_->plans();
  stats.in_place_reuses = planner_->in_place_reuses();
  // Arena aliases the planner applied plus views of inputs and constants.
  for (bool alias : alias_step_) stats.aliases += alias ? 1 : 0;
  stats.heap_tensors = heap_tensors_;
  stats.bounded_plan = bounded_;
  stats.unbounded = unbounded_;
  // The bytes the last run's intermediates held in the arena, at most, at once (asked for, not
  // computed every run).
  std::vector<int64_t> used(plan_->num_slots(), -1);
  for (int slot = 0; slot < plan_->num_slots(); ++slot) {
    if (arena_views_[slot].data != nullptr) {
      used[slot] = shape_engine_->shape(slot).bytes;
    } else if (reserved_[slot].used >= 0) {
      used[slot] = reserved_[slot].used;
    }
  }
  stats.used_bytes = runs_ > 0 ? PeakLiveBytes(lifetimes_, used) : 0;
  stats.arena_allocations = arena_allocations_;
  stats.released_weight_bytes = released_weight_bytes_;
  const GraphPlan::ConstantBytes constants = plan_->constant_bytes();
  stats.mapped_weight_bytes = constants.mapped;
  stats.in_memory_weight_bytes = constants.in_memory;
  stats.kernel_copy_bytes = constants.kernel_copies;
  stats.scratch_bytes = scratch_.bytes();
  return stats;
}

namespace {

std::string QualifiedOpType(const Node& node) {
  return node.domain().empty() ? node.op_type() : absl::StrCat(node.domain(), ".", node.op_type());
}

}  // namespace

std::vector<NodeProfile> Session::NodeProfiles() const {
  std::vector<NodeProfile> result;
  result.reserve(step_nanos_.size());
  const auto dims_of = [&](const std::vector<int>& slots) {
    std::vector<std::string> parts;
    for (int slot : slots) {
      parts.push_back(slot < 0 ? "-" : DimsToString(shape_engine_->shape(slot).dims));
    }
    return absl::StrJoin(parts, " ");
  };
  for (size_t s = 0; s < step_nanos_.size(); ++s) {
    const Step& step = plan_->steps()[s];
    std::string output;
    for (const Value* v : step.node->outputs()) {
      if (v == nullptr) continue;
      output = v->name();
      break;
    }
    result.push_back({step.node->name(), std::move(output), QualifiedOpType(*step.node),
                      absl::StrCat(dims_of(step.inputs), " -> ", dims_of(step.outputs)),
                      step_nanos_[s]});
  }
  return result;
}

std::vector<OpProfile> Session::Profile() const {
  std::map<std::string, OpProfile> by_op;
  for (size_t s = 0; s < step_nanos_.size(); ++s) {
    const std::string op = QualifiedOpType(*plan_->steps()[s].node);
    OpProfile& p = by_op[op];
    p.op_type = op;
    ++p.nodes;
    p.total_nanos += step_nanos_[s];
  }
  std::vector<OpProfile> result;
  for (auto& [op, p] : by_op) result.push_back(p);
  std::sort(result.begin(), result.end(),
            [](const OpProfile& a, const OpProfile& b) { return a.total_nanos > b.total_nanos; });
  return result;
}

void Session::ResetProfile() {
  std::fill(step_nanos_.begin(), step_nanos_.end(), 0);
  runs_ = 0;
}

std::vector<std::string> Session::ChangedValues() const {
  std::vector<std::string> names;
  for (int slot : shape_engine_->changed()) {
    const Slot& s = plan_->slots()[slot];
    if (s.kind == SlotKind::kComputed) names.push_back(s.value->name());
  }
  return names;
}

}  // namespace anvil
