#include "lower/evaluator/tir_session.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "graph/model_io.h"
#include "runtime/session.h"

namespace anvil::lower {

absl::StatusOr<std::unique_ptr<TirSession>> TirSession::Load(const std::string& path,
                                                             const TirSessionOptions& options) {
  std::vector<std::string> import_warnings;  // graphs the import sorted
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadModel(path, &import_warnings));
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<TirSession> session, Load(std::move(model), options));
  session->warnings_.insert(session->warnings_.begin(), import_warnings.begin(),
                            import_warnings.end());
  return session;
}

absl::StatusOr<std::unique_ptr<TirSession>> TirSession::Load(std::unique_ptr<Model> model,
                                                             const TirSessionOptions& options) {
  std::unique_ptr<TirSession> s(new TirSession());
  ANVIL_RETURN_IF_ERROR(PrepareModelForRun(*model, options.pipeline, &s->warnings_));
  s->model_ = std::move(model);
  s->options_ = options;
  s->threads_ = options.threads;
  ANVIL_ASSIGN_OR_RETURN(s->module_, LowerToTir(*s->model_, options.lowering, &s->stats_));
  for (const Value* in : s->model_->graph().inputs()) {
    if (!in->IsInitializer()) s->inputs_.push_back(in);
  }
  for (const Value* out : s->model_->graph().outputs()) s->outputs_.push_back(out);
  if (options.compile) {
    ANVIL_ASSIGN_OR_RETURN(s->compiled_, CompiledModule::Compile(s->module_, options.jit));
    if (options.cost_check) {
      int64_t weight_bytes = 0;
      for (const tir::Global& g : s->module_.globals) {
        if (g.data != nullptr) weight_bytes += g.data->ByteSize();
      }
      if (weight_bytes > options.cost_check_max_weight_bytes) {
        s->cost_check_.skipped = absl::StrCat(weight_bytes, " bytes of weights (over ",
                                              options.cost_check_max_weight_bytes, ")");
      } else {
        s->cost_check_pending_ = true;
      }
    } else {
      s->cost_check_.skipped = "off";
    }
  } else {
    s->evaluator_ = std::make_unique<Evaluator>(s->module_, options.evaluator);
  }
  return s;
}

absl::StatusOr<std::vector<Tensor>> TirSession::Run(
    const absl::flat_hash_map<std::string, Tensor>& inputs) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> ordered, Bind(inputs));
  parallel::ThreadScope threads(threads_);
  ScratchScope scratch(&scratch_);
  if (cost_check_pending_) {
    cost_check_pending_ = false;
    ANVIL_RETURN_IF_ERROR(CheckCosts(inputs, ordered));
  }
  if (compiled_ != nullptr) return compiled_->Run(ordered);
  return evaluator_->Run(ordered);
}

absl::Status TirSession::CheckCostsNow(const absl::flat_hash_map<std::string, Tensor>& inputs) {
  if (!cost_check_pending_) return absl::OkStatus();
  ANVIL_ASSIGN_OR_RETURN(std::vector<Tensor> ordered, Bind(inputs));
  parallel::ThreadScope threads(threads_);
  ScratchScope scratch(&scratch_);
  cost_check_pending_ = false;
  return CheckCosts(inputs, ordered);
}

absl::StatusOr<std::vector<Tensor>> TirSession::Bind(
    const absl::flat_hash_map<std::string, Tensor>& inputs) const {
  const tir::EntryBinding& binding = module_.binding;
  std::vector<Tensor> ordered(binding.inputs.size());
  size_t used = 0;
  for (size_t k = 0; k < binding.inputs.size(); ++k) {
    auto it = inputs.find(binding.inputs[k].name);
    if (it != inputs.end()) {
      ordered[k] = it->second;
      ++used;
    } else if (binding.inputs[k].default_value == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", binding.inputs[k].name, "' is missing"));
    }
  }
  if (used != inputs.size()) {
    std::vector<std::string> names;
    for (const tir::EntryBinding::Tensor& t : binding.inputs) names.push_back(t.name);
    for (const auto& [name, tensor] : inputs) {
      bool known = false;
      for (const std::string& n : names) known |= n == name;
      if (!known) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the model has no input '", name, "' (inputs: ", absl::StrJoin(names, ", "), ")"));
      }
    }
  }
  return ordered;
}

absl::StatusOr<std::unique_ptr<CompiledModule>> TirSession::Recompile(
    const std::vector<std::string>& kernel_nodes, tir::Module* module, LoweringStats* stats) {
  LoweringOptions lowering = options_.lowering;
  lowering.kernel_nodes.insert(kernel_nodes.begin(), kernel_nodes.end());
  ANVIL_ASSIGN_OR_RETURN(*module, LowerToTir(*model_, lowering, stats));
  return CompiledModule::Compile(*module, options_.jit);
}

absl::Status TirSession::CheckCosts(const absl::flat_hash_map<std::string, Tensor>& named,
                                    const std::vector<Tensor>& ordered) {
  const auto start = std::chrono::steady_clock::now();
  CostCheckStats& c = cost_check_;
  const std::string path = CostCheckPath(compiled_->stats().library_path, ordered, threads_);
  // Swaps in the module that runs `nodes` as kernel calls.
  auto adopt = [&](const std::vector<std::string>& nodes) -> absl::Status {
    compiled_.reset();  // it points into module_
    LoweringStats stats;
    ANVIL_ASSIGN_OR_RETURN(compiled_, Recompile(nodes, &module_, &stats));
    stats_ = std::move(stats);
    c.kernel_nodes = nodes;
    return absl::OkStatus();
  };
  if (std::optional<std::vector<std::string>> cached = ReadCostCheck(path)) {
    c.cached = true;
    if (!cached->empty()) ANVIL_RETURN_IF_ERROR(adopt(*cached));
    return absl::OkStatus();
  }
  bool emitted_work = false;
  for (const EmittedModule::Group& g : compiled_->emitted().groups) emitted_work |= g.emitted_work;
  if (!emitted_work) {
    c.skipped = "no emitted loops (every node calls its kernel)";
    return absl::OkStatus();
  }
  // Compiled and interpreted runs alternate, so that both see the machine in the same state
  // (its speed drifts); each group and node keeps its least time. First one of each to warm up,
  // then enough for ~0.4 s, 3 to 10 pairs.
  absl::StatusOr<std::unique_ptr<KernelTimer>> timer = KernelTimer::Load(*model_, threads_);
  absl::flat_hash_map<std::string, double> kernels;
  absl::StatusOr<double> interpreted = timer.ok() ? (*timer)->Run(named, &kernels) : timer.status();
  if (!interpreted.ok()) {
    // (A model the interpreter cannot run with these inputs keeps its compiled code.)
    c.skipped = absl::StrCat("the interpreter failed: ", interpreted.status().message());
    return absl::OkStatus();
  }
  ANVIL_ASSIGN_OR_RETURN(GroupProfile profile, compiled_->ProfileGroups(ordered, 1));
  const int runs =
      std::clamp(static_cast<int>(0.4 / std::max(profile.run_seconds + *interpreted, 1e-6)), 3, 10);
  profile = GroupProfile();
  kernels.clear();
  c.interpreter_seconds = std::numeric_limits<double>::infinity();
  for (int r = 0; r < runs; ++r) {
    ANVIL_ASSIGN_OR_RETURN(const GroupProfile run, compiled_->ProfileGroups(ordered, 1));
    KeepLeast(run, &profile);
    ANVIL_ASSIGN_OR_RETURN(const double seconds, (*timer)->Run(named, &kernels));
    c.interpreter_seconds = std::min(c.interpreter_seconds, seconds);
  }
  timer->reset();
  c.ran = true;
  c.first_seconds = profile.run_seconds;
  const absl::flat_hash_set<std::string> slower =
      NodesSlowerThanKernels(compiled_->emitted().groups, profile, kernels, stats_.view_nodes, &c);
  std::vector<std::string> chosen;
  if (!slower.empty()) {
    std::vector<std::string> nodes(slower.begin(), slower.end());
    std::sort(nodes.begin(), nodes.end());
    c.checked_nodes = static_cast<int>(nodes.size());
    tir::Module module;
    LoweringStats stats;
    ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<CompiledModule> checked,
                           Recompile(nodes, &module, &stats));
    ANVIL_RETURN_IF_ERROR(checked->Run(ordered).status());
    // Kept only when a whole run is faster too (fusion across the groups may have paid), both
    // modules again taking turns.
    GroupProfile before, after;
    for (int r = 0; r < runs; ++r) {
      ANVIL_ASSIGN_OR_RETURN(const GroupProfile a, compiled_->ProfileGroups(ordered, 1));
      KeepLeast(a, &before);
      ANVIL_ASSIGN_OR_RETURN(const GroupProfile b, checked->ProfileGroups(ordered, 1));
      KeepLeast(b, &after);
    }
    c.first_seconds = before.run_seconds;
    c.checked_seconds = after.run_seconds;
    if (after.run_seconds < before.run_seconds) chosen = std::move(nodes);
    checked.reset();
    if (!chosen.empty()) {
      ANVIL_RETURN_IF_ERROR(adopt(chosen));
      c.kept = true;
    }
  }
  // (A cache this process cannot write, read-only for many hosts, only costs the next load a
  // measurement.)
  WriteCostCheck(path, chosen).IgnoreError();
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return absl::OkStatus();
}

const EvaluatorStats& TirSession::evaluator_stats() const {
  static const EvaluatorStats kNone;
  return evaluator_ != nullptr ? evaluator_->stats() : kNone;
}

}  // namespace anvil::lower
