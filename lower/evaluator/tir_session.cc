#include "lower/evaluator/tir_session.h"

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
  s->threads_ = options.threads;
  ANVIL_ASSIGN_OR_RETURN(s->module_, LowerToTir(*s->model_, options.lowering, &s->stats_));
  for (const Value* in : s->model_->graph().inputs()) {
    if (!in->IsInitializer()) s->inputs_.push_back(in);
  }
  for (const Value* out : s->model_->graph().outputs()) s->outputs_.push_back(out);
  if (options.compile) {
    ANVIL_ASSIGN_OR_RETURN(s->compiled_, CompiledModule::Compile(s->module_, options.jit));
  } else {
    s->evaluator_ = std::make_unique<Evaluator>(s->module_, options.evaluator);
  }
  return s;
}

absl::StatusOr<std::vector<Tensor>> TirSession::Run(
    const absl::flat_hash_map<std::string, Tensor>& inputs) {
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
  parallel::ThreadScope threads(threads_);
  ScratchScope scratch(&scratch_);
  if (compiled_ != nullptr) return compiled_->Run(ordered);
  return evaluator_->Run(ordered);
}

const EvaluatorStats& TirSession::evaluator_stats() const {
  static const EvaluatorStats kNone;
  return evaluator_ != nullptr ? evaluator_->stats() : kNone;
}

}  // namespace anvil::lower
