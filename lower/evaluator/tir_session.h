// TirSession: a model run through lowering and then the reference evaluator or native code
// compiled from the module (lower/jit/compiled_module.h), with the interface of
// runtime::Session (load once, Run many times), so tools and tests can swap engines:
// `anvil-run --backend=tir-eval|compiled`, `conformance run --backend=tir-eval|compiled`.
//
// Load prepares the model as Session does (order, verification, the same default pipeline),
// lowers it (lower_to_tir.h) and keeps the module; Run binds the named inputs and evaluates the
// module's entry. Slow by design: it is the oracle for compiled code, not a fast path.
#ifndef ANVIL_LOWER_EVALUATOR_TIR_SESSION_H_
#define ANVIL_LOWER_EVALUATOR_TIR_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "base/scratch.h"
#include "graph/ir.h"
#include "kernels/tensor.h"
#include "lower/evaluator/cost_check.h"
#include "lower/evaluator/evaluator.h"
#include "lower/ir/module.h"
#include "lower/jit/compiled_module.h"
#include "lower/lowering/lower_to_tir.h"
#include "runtime/session.h"

namespace anvil::lower {

struct TirSessionOptions {
  // Passes run on the model before lowering (Session's default).
  std::string pipeline = kLoadPipeline;
  LoweringOptions lowering;
  EvaluatorOptions evaluator;
  // Run compiled code instead of the evaluator.
  bool compile = false;
  // Intra-op threads (SessionOptions::threads): the kernels and GEMMs a module calls, and the
  // compiled code's parallel loops.
  int threads = 1;
  JitOptions jit;
  // Compiled sessions: the cost check (cost_check.h) at the first run, which lowers the nodes
  // whose emitted loops were measured slower than their kernels to kernel calls. Skipped for
  // models with more than cost_check_max_weight_bytes of weights (the interpreter it measures
  // packs its own copies of them).
  bool cost_check = true;
  int64_t cost_check_max_weight_bytes = int64_t{1} << 30;
};

class TirSession {
 public:
  static absl::StatusOr<std::unique_ptr<TirSession>> Load(const std::string& path,
                                                          const TirSessionOptions& options = {});
  static absl::StatusOr<std::unique_ptr<TirSession>> Load(std::unique_ptr<Model> model,
                                                          const TirSessionOptions& options = {});

  // As Session: the graph inputs a caller must provide and the outputs Run returns, in order.
  const std::vector<const Value*>& inputs() const { return inputs_; }
  const std::vector<const Value*>& outputs() const { return outputs_; }
  const Model& model() const { return *model_; }
  // Breaches of the ONNX spec the load tolerated (as ONNX Runtime does), one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }
  const tir::Module& module() const { return module_; }
  const LoweringStats& lowering_stats() const { return stats_; }
  // The evaluator's statistics (compiled sessions: all zero).
  const EvaluatorStats& evaluator_stats() const;
  // The compiled module (null unless compiled).
  const CompiledModule* compiled() const { return compiled_.get(); }
  // What the cost check did (after the first run of a compiled session).
  const CostCheckStats& cost_check() const { return cost_check_; }

  absl::StatusOr<std::vector<Tensor>> Run(const absl::flat_hash_map<std::string, Tensor>& inputs);
  // The cost check on these inputs now, if it is pending (otherwise the first Run does it):
  // for callers that time runs.
  absl::Status CheckCostsNow(const absl::flat_hash_map<std::string, Tensor>& inputs);

 private:
  TirSession() = default;
  // The inputs in the binding's order (a missing one with a default: undefined).
  absl::StatusOr<std::vector<Tensor>> Bind(
      const absl::flat_hash_map<std::string, Tensor>& inputs) const;
  // The cost check, on the first run's inputs (by name, and in the binding's order).
  absl::Status CheckCosts(const absl::flat_hash_map<std::string, Tensor>& named,
                          const std::vector<Tensor>& ordered);
  // Lowers the model again with `kernel_nodes` as kernel calls and compiles it (into *module,
  // which the result points into).
  absl::StatusOr<std::unique_ptr<CompiledModule>> Recompile(
      const std::vector<std::string>& kernel_nodes, tir::Module* module, LoweringStats* stats);

  TirSessionOptions options_;
  bool cost_check_pending_ = false;
  CostCheckStats cost_check_;
  int threads_ = 1;
  std::unique_ptr<Model> model_;
  std::vector<std::string> warnings_;
  tir::Module module_;
  LoweringStats stats_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<CompiledModule> compiled_;
  std::vector<const Value*> inputs_;
  std::vector<const Value*> outputs_;
  // The scratch of the kernels the module calls, reused by every run and freed with the session.
  ScratchPool scratch_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EVALUATOR_TIR_SESSION_H_
