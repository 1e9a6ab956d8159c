// The simplification pipeline Anvil runs when a user names none: `anvil-opt` on its embedded
// default model, Python's `anvil.simplify`, and the scaling benchmark. Its passes are linked by
// //passes:default plus //constprop. (A macro too, so that usage texts can spell it.)
// fuse-matmul-transpose runs before constprop so that a tied weight (an embedding that a MatMul
// also reads through a Transpose) is not folded into a second, transposed copy.
#ifndef ANVIL_PASSES_DEFAULT_PIPELINE_H_
#define ANVIL_PASSES_DEFAULT_PIPELINE_H_

#define ANVIL_DEFAULT_PIPELINE \
  "shape-inference,einsum-decompose,fuse-matmul-transpose{shared-only=true},constprop,cse,dce"

namespace anvil {

inline constexpr char kDefaultPipeline[] = ANVIL_DEFAULT_PIPELINE;

}  // namespace anvil

#endif  // ANVIL_PASSES_DEFAULT_PIPELINE_H_
