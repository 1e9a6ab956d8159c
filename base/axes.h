// Values that an op gives for some of its input's dims only, spread over all of them: ONNX's
// `axes` (Pad-18's input, Resize-18's attribute) names the dims that pads, roi or scales list
// values for, and every other dim takes the op's neutral value (pad 0, scale 1, roi [0, 1]).
// One helper for the shape rules (IndexExpr values) and the kernels (numbers), so both read
// `axes` the same way.
#ifndef ANVIL_BASE_AXES_H_
#define ANVIL_BASE_AXES_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace anvil {

// `values` holds runs.size() runs of axes.size() values each (pads and roi: the begins, then the
// ends); the result holds runs.size() runs of `rank` values, run r filled with runs[r] except at
// the listed axes, which take their values. Contract: every axis is normalized (0 <= axis <
// rank) and values.size() == runs.size() * axes.size(); callers check both and report them.
template <typename T>
std::vector<T> SpreadOverAxes(absl::Span<const T> values, absl::Span<const int64_t> axes,
                              int64_t rank, absl::Span<const T> runs) {
  std::vector<T> full;
  full.reserve(runs.size() * static_cast<size_t>(rank));
  for (size_t r = 0; r < runs.size(); ++r) {
    const size_t base = full.size();
    full.insert(full.end(), static_cast<size_t>(rank), runs[r]);
    for (size_t j = 0; j < axes.size(); ++j) {
      full[base + static_cast<size_t>(axes[j])] = values[r * axes.size() + j];
    }
  }
  return full;
}

}  // namespace anvil

#endif  // ANVIL_BASE_AXES_H_
