// The compiled backend's cost check: compiled code must never be slower than the interpreter.
// Emitted loops are usually faster than the runtime's kernels for the same nodes (fused, no
// intermediate tensors), but not always: a transposing read feeding an exp stays scalar, a
// kernel may have a blocked algorithm the loops lack. So a compiled TirSession times, on its
// first run's inputs, every group of emitted statements (EmittedModule::groups) and the
// interpreter's kernels for the same nodes, and lowers the nodes of the groups that lost to
// kernel calls (LoweringOptions::kernel_nodes); it keeps that module only if a whole run of it
// is faster too. The decision is cached beside the compiled library, per input dims and threads,
// so it is measured once per shape class.
#ifndef ANVIL_LOWER_EVALUATOR_COST_CHECK_H_
#define ANVIL_LOWER_EVALUATOR_COST_CHECK_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/tensor.h"
#include "lower/emit/emit_cc.h"
#include "lower/jit/compiled_module.h"
#include "runtime/session.h"

namespace anvil::lower {

// What the cost check of a compiled session did.
struct CostCheckStats {
  bool ran = false;       // measured at this load (else the decision came from the cache)
  bool cached = false;    // the decision came from the cache
  std::string skipped;    // why no check ran ("" when one did or the cache answered)
  int groups = 0;         // groups of emitted statements compared with kernels
  int slower = 0;         // of which the kernels were faster
  int checked_nodes = 0;  // the nodes of those groups, tried as kernel calls
  // Nodes (first outputs) the session's module now runs as kernel calls.
  std::vector<std::string> kernel_nodes;
  // Least seconds of a run: compiled as first lowered, with the kernel calls (0 when no group
  // was slower), and the interpreter.
  double first_seconds = 0, checked_seconds = 0, interpreter_seconds = 0;
  bool kept = false;   // the module with kernel calls replaced the first one
  double seconds = 0;  // the check's own wall time
};

// A group loses when its emitted code took more than kSlack times its nodes' kernel time plus
// kFloorSeconds: timer noise on a group of microseconds must not flip it.
inline constexpr double kCostCheckSlack = 1.1;
inline constexpr double kCostCheckFloorSeconds = 2e-6;

// The nodes of the groups of emitted work slower than the kernels of their nodes
// (`kernel_seconds`: least seconds per node, by first output); nodes lowered as views
// (`view_nodes`) stay views. Counts groups and slower ones into `stats`.
absl::flat_hash_set<std::string> NodesSlowerThanKernels(
    const std::vector<EmittedModule::Group>& groups, const GroupProfile& profile,
    const absl::flat_hash_map<std::string, double>& kernel_seconds,
    const absl::flat_hash_set<std::string>& view_nodes, CostCheckStats* stats);

// The interpreter on a copy of a prepared model (no load pipeline runs), timing its nodes.
class KernelTimer {
 public:
  static absl::StatusOr<std::unique_ptr<KernelTimer>> Load(const Model& model, int threads);
  ~KernelTimer();
  // One run on `inputs`: each node's seconds folded into `least` (the least per node, by first
  // output); returns the run's seconds (its nodes' sum).
  absl::StatusOr<double> Run(const absl::flat_hash_map<std::string, Tensor>& inputs,
                             absl::flat_hash_map<std::string, double>* least);

 private:
  KernelTimer() = default;
  std::unique_ptr<Session> session_;
};

// Folds one profiled run into the least seconds so far (a default GroupProfile: takes the
// run's).
void KeepLeast(const GroupProfile& run, GroupProfile* least);

// The cache file of a decision: beside `library`, keyed by the inputs' types and dims and the
// thread count.
std::string CostCheckPath(const std::string& library, const std::vector<Tensor>& inputs,
                          int threads);
// The cached decision (the nodes to run as kernels, maybe none), or nullopt when there is no
// readable one.
std::optional<std::vector<std::string>> ReadCostCheck(const std::string& path);
// Writes the decision (atomically: a concurrent reader sees all of it or none).
absl::Status WriteCostCheck(const std::string& path, const std::vector<std::string>& nodes);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EVALUATOR_COST_CHECK_H_
