// Shape promises, checked: an exact inferred dim equals the dim a run computes, for every input
// the model accepts (ARCHITECTURE.md, "cross-cutting rules"). For property tests and fuzzers.
//
// CheckShapePromises infers the shapes of a copy of the model whose declared dims are dropped
// everywhere but at the main graph's inputs (what inference derives, not what value_info or a
// graph output claims), runs the copy with the reference interpreter, and compares every value
// the run binds or computes (node outputs and subgraph inputs, in every subgraph, at every
// iteration of a loop) with what inference said of it:
//  - its rank, when inferred;
//  - each literal dim, and each symbolic dim whose symbols the inputs bind (N of an input
//    declared [N, 3], run with a [2, 3] tensor, is 2);
//  - the contents of integer and bool tensors whose inferred values are known the same way
//    (shape computations: what makes later Reshape/Expand/Tile targets exact).
// A questionmark (an unknown dim), or a symbol no input binds (a data-dependent dim shape
// inference named, NonZero's count), promises that every dim inference gave it is the same size
// (lowering binds one variable to it: TopK's values and indices share their k): its size is
// learned from the first value of the main graph that has it as a dim of its own, then checked
// like an input symbol's. A symbol the inputs bind to two different sizes promises nothing
// (those inputs break the model's own contract). Every dim also promises to lie in its inferred
// range (RangeOf, with the model's anvil.dim_ranges); inputs outside their declared ranges are
// not ones the property speaks of (skipped).
#ifndef ANVIL_EXEC_SHAPE_PROMISE_H_
#define ANVIL_EXEC_SHAPE_PROMISE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/tensor.h"

namespace anvil {

struct ShapePromiseReport {
  // Non-empty when nothing was checked: inference or the run failed (the model or the inputs
  // are not ones the property speaks of), with the reason.
  std::string skipped;
  int64_t values = 0;        // distinct values the run produced with a promise to check
  int64_t observations = 0;  // tensors compared (a loop body's values once per iteration)
  int64_t dims = 0;          // exact dims compared
  int64_t elements = 0;      // inferred integer elements compared
  int64_t ranged = 0;        // dims checked against their inferred range (RangeOf)
  int64_t bounded = 0;       // of those, dims with a finite upper bound
};

// `inputs` bind the main graph's inputs in order (as InterpretGraph takes them); the run
// allocates within `max_allocation_bytes` (kernels/tensor.h). An InternalError names the first
// value that breaks a promise: its producer, the inferred dims (with the sizes of their symbols)
// and the dims at run time.
absl::StatusOr<ShapePromiseReport> CheckShapePromises(
    const Model& model, const std::vector<Tensor>& inputs,
    int64_t max_allocation_bytes = kNoAllocationLimit);

}  // namespace anvil

#endif  // ANVIL_EXEC_SHAPE_PROMISE_H_
