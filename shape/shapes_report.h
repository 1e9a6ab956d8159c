// Every value's shape with the range of each symbolic dim, as text: what
// `anvil-opt --emit=shapes` prints after shape inference. Ranges come from the model's
// metadata (shape/dim_ranges.h); a symbol it does not name is [0, inf), an unknown dim `?`.
//
//   graph g
//     x: float[N,8]  N in [1, 16]
//     nz: int64[2,NonZero_nz_n]  NonZero_nz_n in [0, 128]
//     If y then_branch
//       ...
//   dims: 7 literal, 3 bounded, 1 unbounded, 0 unknown; 4 values of unknown rank or type
//
// A SequenceEmpty output is marked `(empty)` and not counted: it has no element to have a rank.
#ifndef ANVIL_SHAPE_SHAPES_REPORT_H_
#define ANVIL_SHAPE_SHAPES_REPORT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "graph/ir.h"

namespace anvil {

struct ShapesReport {
  std::string text;
  int64_t literal = 0;    // dims that are numbers
  int64_t bounded = 0;    // symbolic dims with a finite upper bound
  int64_t unbounded = 0;  // symbolic dims without one
  int64_t unknown = 0;    // dims with no value and no name
  int64_t untyped = 0;    // values of unknown type or rank
};

// InvalidArgument when the metadata's ranges do not parse.
absl::StatusOr<ShapesReport> ReportShapes(Model& model);

}  // namespace anvil

#endif  // ANVIL_SHAPE_SHAPES_REPORT_H_
