// Random ONNX models for property tests (test-only). Each draws a few graph inputs with literal,
// symbolic (N, M, K; sizes 0 to 3) or unknown dims and 3 to 9 ops among: element-wise and
// broadcasting ops, MatMul, Transpose, Concat, Gather, Squeeze/Unsqueeze, ReduceSum, Slice; ops
// whose output dims come from a shape tensor that is a constant, a graph input or built from
// dims (Shape -> Gather/Slice -> Concat): Reshape (0, -1, allowzero), Expand, Tile,
// ConstantOfShape, Range, TopK; NonZero (data decides); and control flow: Loop with a trip count
// and a condition each a constant, a graph input, a dim or omitted, its body's condition passed
// through, constant or `i < limit`, carried values that keep or grow their shape, scan outputs
// (one an If on the body's condition); If on a constant or a runtime condition; Scan along any
// axis, its state kept or grown. The generator tracks every value's dims at run time, so nearly
// every model is valid and runs. Deterministic per seed.
#ifndef ANVIL_EXEC_TESTING_RANDOM_MODEL_H_
#define ANVIL_EXEC_TESTING_RANDOM_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "kernels/tensor.h"

namespace anvil {

struct RandomModel {
  // ONNX text; an input named `omitted` stands for an omitted optional input (the text syntax
  // cannot leave out a node's first input).
  std::string text;
  // One per graph input, in order.
  std::vector<Tensor> inputs;

  // `text` parsed, with the `omitted` inputs left out.
  absl::StatusOr<std::unique_ptr<Model>> Parse() const;
};

RandomModel MakeRandomModel(uint64_t seed);

}  // namespace anvil

#endif  // ANVIL_EXEC_TESTING_RANDOM_MODEL_H_
