// Session: load a model once, run it many times.
//
//   absl::StatusOr<std::unique_ptr<Session>> s = Session::Load("model.onnx");
//   absl::StatusOr<std::vector<Tensor>> out = (*s)->Run({{"x", x}});
//
// Load runs a pipeline (default kLoadPipeline below: Einsums run as MatMuls, a MatMul by a
// transposed constant weight reads the weight in place (FusedMatMul), inference
// BatchNormalization folds into the Conv before it, layer norms become LayerNormalization,
// HardSwish/HardSigmoid/GELU/SiLU chains become single ops and a Conv's activation joins it in a
// com.microsoft FusedConv),
// sorts the graph topologically and builds the execution plan (plan.h): one kernel per node — a
// node without one fails the load with Unimplemented naming op and opset — slots, liveness, reuse
// candidates and a plan per subgraph.
//
// Run binds the named inputs (errors name the input: missing, unknown, wrong element type, wrong
// rank, a dim that contradicts a literal the model declares), then
//  1. ShapeInferenceEngine::Infer: nothing when the input shapes are the last run's; otherwise
//     every value's shape, along the schedule;
//  2. MemoryPlanner::Plan, only when a size changed: one arena for the intermediates, with
//     in-place reuse and aliasing of reshape-like ops;
//  3. the executor: each step's kernel on views into the arena. Graph outputs are Tensors of
//     their own (the caller keeps them; the session keeps the last two runs' too and reuses
//     a buffer once its caller has dropped it, so a loop of runs allocates no new outputs);
//     values whose size only data decides, and subgraph results, live on the heap and are freed
//     after their last reader.
// A Session is not thread-safe: one Run at a time.
#ifndef ANVIL_RUNTIME_SESSION_H_
#define ANVIL_RUNTIME_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/progress.h"
#include "base/scratch.h"
#include "graph/ir.h"
#include "kernels/tensor.h"
#include "runtime/memory_planner.h"
#include "runtime/plan.h"
#include "runtime/shape_engine.h"
#include "shape/dim_ranges.h"

namespace anvil {

// Half the physical memory of this machine (1 GiB if it cannot be read).
int64_t DefaultMaxAllocationBytes();

// What Load does to a model before planning it: topological order, verification against the op
// schemas (kernels trust it), the pipeline, topological order again. Shared with the other
// engines that run models (lower/'s TirSession). Tolerated spec breaches (verifier.h) are
// appended to `warnings` when given; with `progress`, the verification and each pass that take
// a second or more are reported.
absl::Status PrepareModelForRun(Model& model, const std::string& pipeline,
                                std::vector<std::string>* warnings = nullptr,
                                const Progress* progress = nullptr);

// The passes every engine runs on a model at load unless told otherwise (Session, lower/'s
// TirSession and anvil-compile): Einsums become MatMuls, inference BatchNormalization folds into
// the Conv before it, QDQ-quantized ops become integer ops (QLinearConv, QLinearMatMul, and
// ONNX Runtime's QGemm and QLinear element-wise, pool and Concat ops), layer norms, attention
// blocks and activations written in
// primitives become single ops, float16 regions compute in float32 between one Cast at each
// edge (kernels/widen_float16.h), and chains of depthwise and pointwise convolutions run in the
// blocked NCHWc layout of this CPU's vector width (kernels/nchwc_layout.h). The runtime does not
// link them: a program that loads models with this pipeline links //passes:default.
inline constexpr char kLoadPipeline[] =
    "shape-inference,einsum-decompose,fuse-matmul-transpose,fold-batchnorm,fuse-qdq,"
    "fuse-layernorm,fuse-attention,fuse-activations,widen-float16,nchwc,dce";

struct SessionOptions {
  // Passes run on the model at load (pass_manager.h syntax); "" runs none.
  std::string pipeline = kLoadPipeline;
  // Place intermediates in one planned arena; off: every tensor on the heap (for debugging).
  bool plan_memory = true;
  // Let elementwise ops overwrite dying inputs and reshape-like ops alias their input.
  bool reuse = true;
  // Seed of random ops without a seed attribute.
  uint64_t seed = 0x5eed;
  // Intra-op threads a run's kernels may split work across (base/parallel.h: GEMM, Conv,
  // pooling, large element-wise ops and row-wise normalizations); 0: every logical CPU of the
  // machine. Ops run one after another either way. Results do not depend on it.
  int threads = 1;
  // Time every step of every run (Profile()); costs two clock reads per node.
  bool profile = false;
  // The largest single allocation a run may make: one tensor, or the planned arena of the
  // intermediates. Larger is a ResourceExhausted error naming the node, op and dims, instead of
  // the OOM killer. kNoAllocationLimit: none. Default: half the machine's physical memory.
  int64_t max_allocation_bytes = DefaultMaxAllocationBytes();
  // Where the load reports its long steps (import, verification, passes, planning and the
  // kernels' packing: base/progress.h); null: nowhere. Must outlive Load.
  const Progress* progress = nullptr;
  // Release the bytes of weights that every reader packed into its own copy at load (MatMul and
  // Gemm with a constant float B), so that packing does not double their memory. model() then
  // holds such an initializer as type and dims only: reading its values aborts. false keeps
  // them (to export or interpret the loaded model).
  bool release_packed_weights = true;
  // Ranges of the graph inputs' symbolic dims (shape/dim_ranges.h; `--input-ranges`), added to
  // the model's own (metadata anvil.dim_ranges) before the load pipeline. A run with an input
  // outside them is an error. When they bound every intermediate's dims, data-dependent ones
  // included (NonZero's count), the arena is planned once at load for the upper bounds and no
  // run allocates intermediates (MemoryStats::bounded_plan).
  std::vector<SymbolRange> input_ranges;
};

// Where the time went, per op type, over the runs since the last ResetProfile().
struct OpProfile {
  std::string op_type;
  int64_t nodes = 0;        // nodes of this op in the schedule
  int64_t total_nanos = 0;  // summed over those nodes and the runs
};

// Where the time went, per node of the schedule, over the same runs.
struct NodeProfile {
  std::string name;     // the node's name ("" when it has none)
  std::string output;   // its first output's name (unique in the graph, unlike names)
  std::string op_type;  // with its domain, as in OpProfile
  std::string dims;     // input and output dims of the last run: "[1,3,8,8] [3,3,3,3] -> [1,3,6,6]"
  int64_t total_nanos = 0;
};

// Figures of the current memory plan.
struct MemoryStats {
  int64_t arena_bytes = 0;        // the arena the plan needs
  int64_t lower_bound_bytes = 0;  // peak bytes live at once: no plan can use less
  int64_t unshared_bytes = 0;     // one buffer per intermediate tensor, no sharing
  int64_t plans = 0;              // times the planner ran (re-plans after size changes)
  int in_place_reuses = 0;        // outputs written over a dying input
  int aliases = 0;                // reshape-like outputs sharing their input's bytes
  int64_t heap_tensors = 0;       // tensors allocated outside the arena by the last run
  // Planned once at load for every intermediate's upper bound (the model's dim ranges): the
  // arena is never re-planned or grown. Otherwise `unbounded` names the first intermediate
  // without a finite bound (and the plan follows each run's sizes).
  bool bounded_plan = false;
  std::string unbounded;
  int64_t used_bytes = 0;         // the last run's peak of live intermediate bytes
  int64_t arena_allocations = 0;  // times the arena was allocated since load
  // Initializer bytes released at load because their kernels keep packed copies
  // (SessionOptions::release_packed_weights).
  int64_t released_weight_bytes = 0;
  // Where the constants are now (GraphPlan::ConstantBytes): initializers read from a file
  // mapping (external data: resident only as far as they are read, and droppable by the OS),
  // initializers and Constant values in memory, and the kernels' own copies (packed weights).
  int64_t mapped_weight_bytes = 0;
  int64_t in_memory_weight_bytes = 0;
  int64_t kernel_copy_bytes = 0;
  int64_t scratch_bytes = 0;  // the kernels' scratch buffers, kept for the next run
};

class Session {
 public:
  static absl::StatusOr<std::unique_ptr<Session>> Load(const std::string& path,
                                                       const SessionOptions& options = {});
  static absl::StatusOr<std::unique_ptr<Session>> Load(std::unique_ptr<Model> model,
                                                       const SessionOptions& options = {});
  ~Session();

  // The graph inputs a caller must provide (initializers that are also inputs may be given
  // too, overriding their value), and the outputs Run returns, in order.
  const std::vector<const Value*>& inputs() const { return inputs_; }
  const std::vector<const Value*>& outputs() const { return outputs_; }
  // The model after the load pipeline (initializers released for packed copies hold only their
  // type and dims: SessionOptions::release_packed_weights).
  const Model& model() const { return *model_; }
  // Breaches of the ONNX spec the load tolerated (as ONNX Runtime does), one line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

  absl::StatusOr<std::vector<Tensor>> Run(const absl::flat_hash_map<std::string, Tensor>& inputs);
  // Run with graph outputs written into tensors of the caller's (ONNX Runtime's IO binding):
  // `bound_outputs` maps output names to tensors of the type and dims the run gives them
  // (InvalidArgument naming the node otherwise), which Run returns in those outputs' places. A
  // bound output may be the buffer of an input only where its op reads that input in place:
  // GroupQueryAttention's present_key and present_value bound to past_key and past_value (a
  // cache of the maximum length, as ONNX Runtime's past_present_share_buffer), so that a decode
  // step writes its new keys and copies no cache.
  absl::StatusOr<std::vector<Tensor>> Run(
      const absl::flat_hash_map<std::string, Tensor>& inputs,
      const absl::flat_hash_map<std::string, Tensor>& bound_outputs);

  int64_t shape_inference_runs() const { return shape_engine_->shape_inference_runs(); }
  const ShapeInferenceEngine& shape_engine() const { return *shape_engine_; }
  MemoryStats memory_stats() const;
  // Names of the values whose size changed in the last shape re-inference.
  std::vector<std::string> ChangedValues() const;
  // Per op type, most time first (empty unless SessionOptions::profile), over runs() runs.
  std::vector<OpProfile> Profile() const;
  // Per node in schedule order (empty unless SessionOptions::profile), over runs() runs.
  std::vector<NodeProfile> NodeProfiles() const;
  int64_t runs() const { return runs_; }
  void ResetProfile();

 private:
  Session() = default;
  absl::Status Init(std::unique_ptr<Model> model, const SessionOptions& options);
  absl::Status BindInputs(const absl::flat_hash_map<std::string, Tensor>& inputs,
                          std::vector<TensorView>* views) const;
  absl::Status PrepareMemory();
  // Sets bound_bytes_ (each intermediate's bytes at its dims' upper bounds), bounded_ and
  // unbounded_, and input_ranges_, from the model's dim ranges.
  absl::Status ComputeBounds();
  // Allocates the arena for the current plan when it has grown.
  absl::Status GrowArena();
  // planner_ and reuse_steps_ over lifetimes_, with the reuse candidates a plan for bounded_
  // allows.
  void MakePlanner();

  SessionOptions options_;
  std::unique_ptr<Model> model_;
  std::vector<std::string> warnings_;
  std::unique_ptr<GraphPlan> plan_;
  std::unique_ptr<ShapeInferenceEngine> shape_engine_;
  std::unique_ptr<MemoryPlanner> planner_;
  std::vector<int> reuse_steps_;  // per planner candidate: its step
  std::vector<const Value*> inputs_;
  std::vector<const Value*> outputs_;
  // The arena and, per slot, its view there (type and dims of the current shapes).
  Tensor arena_;
  std::vector<TensorView> arena_views_;
  // Steps that run no kernel this plan (an applied alias): output = input's bytes.
  std::vector<bool> alias_step_;
  // Bounded plans: per slot, the region reserved for an output whose dims the data decides
  // (filled when its kernel runs); the bytes at the upper bounds, -1 when not in the arena.
  std::vector<ArenaRegion> reserved_;
  std::vector<int64_t> bound_bytes_;
  bool bounded_ = false;
  std::string unbounded_;
  // A graph input's dim with a declared range: checked when a run binds it.
  struct InputRange {
    int input = 0;
    int axis = 0;
    SymbolRange range;
  };
  std::vector<InputRange> input_ranges_;
  std::vector<Lifetime> lifetimes_;
  int64_t arena_allocations_ = 0;
  int64_t heap_tensors_ = 0;
  int64_t released_weight_bytes_ = 0;
  // The last two runs' graph outputs, reused when the caller has dropped them.
  TensorRecycler output_recycler_;
  // Subgraph bodies' tensors, per body plan, reused across iterations and runs.
  absl::node_hash_map<const GraphPlan*, TensorRecycler> body_buffers_;
  int64_t runs_ = 0;
  std::vector<int64_t> step_nanos_;  // per step, when profiling
  // The kernels' scratch (im2col, Winograd blocks, attention scores), reused by every run and
  // freed with the session.
  ScratchPool scratch_;
};

}  // namespace anvil

#endif  // ANVIL_RUNTIME_SESSION_H_
