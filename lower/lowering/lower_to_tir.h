// Lowering: a shape-inferred ONNX graph becomes one Tensor IR Module.
//
// The entry function `main` takes the graph's dynamic dims as index parameters (exactly the
// symbols shape inference found on the inputs, and unnamed dynamic input dims), then the graph
// inputs and outputs as tensors. Weights and Constant nodes are module globals. Each node, in
// graph order, becomes statements over its output tensors, through its lowering rule:
//  - natively: element-wise ops (unary, binary, variadic, with numpy broadcasting; Where, Cast,
//    Clip, activations), reductions (ReduceX, ArgMax/Min), Softmax/LogSoftmax,
//    LayerNormalization, and data movement (Transpose, Concat, Slice, Gather, Pad, Expand, Tile)
//    become loops over the output; Reshape, Flatten, Squeeze, Unsqueeze and Identity become views
//    with no loop; MatMul and Gemm on f32/f64 become loops around the `gemm` intrinsic;
//  - as compute intrinsics: Conv, ConvTranspose, pooling call their runtime kernels;
//  - any other node (or a covered op on a type its rule does not take) calls its kernel through
//    the module's kernel table — so every model the runtime runs also lowers.
// Loop bounds and output dims come from each op's ShapeHelper, run with the lowering's
// IndexExprBuilder (tir_builder.h). Outputs whose size only data decides (NonZero, ...) are
// allocated by their kernel call, which binds their dims to index variables later nodes use.
//
// Then the simplifier and a Tensor IR pipeline (lower/passes/passes.h): by default
// fuse,tile-rows,plan-buffers,collapse-loops,mark-loops, run by a tir::PassManager.
#ifndef ANVIL_LOWER_LOWERING_LOWER_TO_TIR_H_
#define ANVIL_LOWER_LOWERING_LOWER_TO_TIR_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "graph/pass.h"
#include "lower/ir/module.h"
#include "lower/passes/passes.h"

namespace anvil::lower {

struct LoweringOptions : ModulePassOptions {
  bool simplify = true;
  // Nodes, by their first output's name, that call their kernel even where a rule would lower
  // them to loops: those the compiled backend's cost check measured faster as kernels
  // (TirSessionOptions::cost_check).
  absl::flat_hash_set<std::string> kernel_nodes;
};

// What lowering did, by op.
struct LoweringStats {
  int64_t nodes = 0;
  int64_t native = 0;                           // lowered to loops (views included)
  int64_t views = 0;                            // of which views with no loop
  absl::flat_hash_set<std::string> view_nodes;  // their first outputs' names
  int64_t intrinsic = 0;  // compute intrinsics (gemm, convolution and pooling kernels)
  int64_t fallback = 0;   // kernel calls of ops no rule covers
  int64_t measured = 0;   // kernel calls of nodes LoweringOptions::kernel_nodes names
  std::map<std::string, int64_t> native_ops, intrinsic_ops, fallback_ops;
  // For ops with a rule that still called their kernel: why (the first node's reason).
  std::map<std::string, std::string> fallback_reasons;
  // The module as lowered (simplified), before fusion; and what the passes did.
  ModuleCounts before_passes;
  ModulePassStats passes;
};

// Lowers `model` (a copy of it: the module keeps the copy alive for its kernel calls).
absl::StatusOr<tir::Module> LowerToTir(const Model& model, const LoweringOptions& options = {},
                                       LoweringStats* stats = nullptr);

// The lowered module a `lower-to-tir` pass run left with the model (null before).
const tir::Module* LoweredModule(const Model& model);

// Lowering options from the `lower-to-tir` pass's option text, e.g. "tile-rows=false,fuse=true"
// or "pipeline=fuse,mark-loops" (what follows the pass name in a pipeline, without braces; ""
// gives the defaults), read by the pipeline parser (graph/pipeline_text.h). InvalidArgument
// naming an unknown option (with the list of options), a value that does not parse, or a
// pipeline given together with the switches it replaces.
absl::StatusOr<LoweringOptions> ParseLoweringOptions(std::string_view text);

// Pass `lower-to-tir`: lowers the model and keeps the module with it (LoweredModule); the graph
// is unchanged. The Tensor IR pipeline is either the option `pipeline`, any text of registered
// Tensor IR passes:
//   lower-to-tir{pipeline=fuse,tile-rows{tile-bytes=98304},plan-buffers,collapse-loops,mark-loops}
// or, without it, the default pipeline as the switches fuse, tile-rows (with tile-bytes and
// tile-weight-bytes), plan-buffers, collapse-loops, mark-loops (all on) say: `lower-to-tir`
// runs all five, `lower-to-tir{fuse=false}` the last four. Statistics: nodes-native,
// nodes-intrinsic, nodes-fallback; loop nests, loops and stored intermediates before fusion and
// after; what fusion, planning and marking did. Tensor IR instrumentations (print-IR-after,
// timing, statistics of each Tensor IR pass) attach with AddTirInstrumentation.
class LowerToTirPass : public Pass {
 public:
  std::string_view name() const override { return "lower-to-tir"; }
  std::string_view description() const override {
    return "lowers the graph to a Tensor IR module (anvil-opt --emit=tir prints it)";
  }
  std::vector<std::string> Requires() const override { return {"shapes-inferred"}; }
  absl::StatusOr<bool> Run(Model& model, PassContext& ctx) override;

  // The lowering options the pass's options say; InvalidArgument when `pipeline` is given with
  // a switch it replaces.
  absl::StatusOr<LoweringOptions> Options() const;

  // Added to the Tensor IR pass manager of every run (not owned; must outlive the runs).
  void AddTirInstrumentation(tir::PassInstrumentation* instrumentation) {
    tir_instrumentations_.push_back(instrumentation);
  }

 private:
  PassOption<std::string> pipeline_{
      this, "pipeline", "",
      "the Tensor IR pipeline, e.g. fuse,tile-rows{tile-bytes=98304},mark-loops (empty: the one "
      "the switches below say)"};
  PassOption<bool> fuse_{this, "fuse", true, "producer-consumer fusion of loops"};
  PassOption<bool> tile_rows_{this, "tile-rows", true,
                              "run gemm calls and their row-wise neighbours tile by tile"};
  PassOption<int64_t> tile_bytes_{this, "tile-bytes", RowTileOptions().tile_bytes,
                                  "bytes of rows one tile writes (tile-rows)", 1};
  PassOption<int64_t> tile_weight_bytes_{this, "tile-weight-bytes", RowTileOptions().weight_bytes,
                                         "bytes of gemm weights one tile loop may read (tile-rows)",
                                         0};
  PassOption<bool> plan_buffers_{this, "plan-buffers", true,
                                 "place intermediates in one workspace"};
  PassOption<bool> collapse_loops_{this, "collapse-loops", true,
                                   "make loop pairs over tensors' last two axes one loop"};
  PassOption<bool> mark_loops_{this, "mark-loops", true, "mark parallel and vectorizable loops"};
  std::vector<tir::PassInstrumentation*> tir_instrumentations_;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_LOWERING_LOWER_TO_TIR_H_
