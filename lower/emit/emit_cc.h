// C++ emission: a Tensor IR module becomes one self-contained C++ translation unit.
//
// The unit includes only the C++ standard library, defines the ABI below, and one function
//
//   extern "C" int32_t <entry_symbol>(const AnvilHost* host, const int64_t* indices,
//                                     AnvilBuffer* const* tensors, uint8_t* workspace);
//
// which runs the module's entry function: `indices` are its index parameters in order,
// `tensors` its tensor slots (EmittedModule::tensor_slots says which tensor each slot holds: the
// tensor parameters, then the globals, then the workspace offsets, then the dynamic outputs,
// whose data and dims the function writes), `workspace` the planned workspace (or null). It
// returns 0, or 1 after reporting the failure through host->fail.
//
// Readable: names come from the graph (tensors and dims keep their ONNX names, made C
// identifiers), each ONNX node's comment from lowering ("// q = MatMul(ln1, wq)") stands before
// the code it became, and each group of top-level statements - the comments, Defines and checks
// before a statement that does work (a fused loop nest, a tile loop, a kernel or gemm call) and
// that statement - is a function of its own, <entry_symbol>__g<k>_<first output>, so a profile
// names the group (perf showed anvil_entry::{lambda(long, long)#2} before). The entry copies
// its parameters into a state struct, <entry_symbol>__state, and calls the groups in order;
// each group copies in the fields it reads and copies out those it declares or assigns.
//
// Scalar semantics are the evaluator's, lane for lane: integers wrap, integer division by zero
// fails, float-to-integer casts saturate (NaN becomes 0), f16/bf16 round after every operation,
// math calls the same libm overloads, min/max propagate NaN. Compile with -ffp-contract=off so that
// no multiply-add is fused: the emitted code then gives the evaluator's bits.
//
// Kernel and gemm intrinsics call the host (the runtime's kernels; the generated code links
// against nothing and includes Highway's headers only for vector loops, see EmitOptions). Not
// emitted: vector-typed IR expressions (lowering emits one lane and marks loops instead) and
// calls of module functions; both are Unimplemented.
//
// The emitter's parts, after Halide's CodeGen_C: scalar_emitter.h (expressions and statements
// on the IR's visitor), vector_emitter.h (Highway loops), emit_cc.cc (the unit's assembly: ABI,
// entry, groups, buffers); the helpers every unit starts with are ordinary sources,
// prelude.inc and vector_prelude.inc, embedded as text (prelude_text.h).
#ifndef ANVIL_LOWER_EMIT_EMIT_CC_H_
#define ANVIL_LOWER_EMIT_EMIT_CC_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "lower/emit/emit_options.h"
#include "lower/ir/module.h"

namespace anvil::lower {

// The ABI shared by the generated code and its host, as C.
extern const char kAnvilCcAbi[];

struct EmittedModule {
  std::string source;
  std::string entry_symbol;
  int num_indices = 0;
  // What each slot of `tensors` holds; `dynamic_outputs` are slots the function fills.
  std::vector<tir::Expr> tensor_slots;
  int first_global = 0;
  int offsets_slot = -1;  // the workspace offsets tensor, or -1
  int first_dynamic_output = 0;
  // The workspace: `workspace_bytes` when its size is constant; else `sizes_symbol` names
  //   extern "C" void f(const int64_t* indices, int64_t* sizes);
  // giving each planned buffer's bytes for a run's indices (-1 when they overflow 64 bits), to
  // be placed with the MemoryPlanner over `lifetimes` (their offsets go in the offsets slot).
  int64_t workspace_bytes = 0;
  // extern "C" void f(const int64_t* indices, int64_t* dims): the dims of the non-dynamic
  // outputs (in binding order, concatenated) for a run's indices (-1 for a dim whose arithmetic
  // overflows 64 bits).
  std::string output_dims_symbol;
  std::string sizes_symbol;
  std::vector<std::pair<int, int>> lifetimes;
  // The entry runs its top-level statements as groups, one function each (the work of one node,
  // or of the nodes fusion merged), reporting each to the host's group_done when it has one.
  struct Group {
    std::string symbol;
    // The nodes whose statements the group holds: each node's first output (as the comments
    // lowering writes before a node's statements name it).
    std::vector<std::string> nodes;
    // Whether the group runs emitted loops (or other emitted statements), not only kernel calls.
    bool emitted_work = false;
  };
  std::vector<Group> groups;
};

absl::StatusOr<EmittedModule> EmitCc(const tir::Module& module, const EmitOptions& options = {});

// A gemm call of the entry function whose B is a whole f32 global (a constant weight) with
// constant N, K and ldb: what a host packs once at load (GemmHost::PackWeight).
struct GemmWeightUse {
  size_t global = 0;  // index into Module::globals
  bool trans_b = false;
  int64_t k = 0, n = 0, ldb = 0;
};
std::vector<GemmWeightUse> ConstantGemmWeights(const tir::Module& module);

// Whether the entry function calls gemm at all.
bool CallsGemm(const tir::Module& module);

// Per kernel id, the element types of the operands the entry function passes to its calls (what
// a host reads the operands' bytes as).
absl::flat_hash_map<int64_t, std::vector<tir::DataType>> KernelOperandTypes(
    const tir::Module& module);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_EMIT_CC_H_
