// ConstPropOptions: what the constprop pass (constprop.h) may fold and how. A header of its own
// so that the fold implementation (fold_rewriter.h, fold_deferred.h) reads the options without
// including the pass that drives it.
#ifndef ANVIL_CONSTPROP_CONSTPROP_OPTIONS_H_
#define ANVIL_CONSTPROP_CONSTPROP_OPTIONS_H_

#include <cstdint>

namespace anvil {

struct ConstPropOptions {
  double max_expansion = 0;  // 0: no limit
  // A fold whose output is larger than both this and its inputs is skipped with a remark (views
  // and selections of large weights are not larger than their inputs, so they still fold).
  // 0: no limit.
  int64_t max_bytes = int64_t{1} << 30;
  bool use_views = true;  // false: every fold materializes (for the memory benchmark)
  // Elementwise folds become lazy ops (fold_deferred.h) when their result has at least
  // `lazy_min_bytes` and their expression at most `max_lazy_ops` ops.
  bool lazy = true;
  int64_t lazy_min_bytes = 64 << 10;
  int64_t max_lazy_ops = 16;
  // An elementwise kernel writes its result over input 0 when nothing else reads that buffer.
  bool in_place = true;
  // Elementwise folds that are computed are computed tile by tile (false: one kernel call on the
  // whole tensors, with dense temporaries for lazy inputs; the reference in tests).
  bool tiled = true;
  // Release unreachable pool buffers inside the pass after folds that materialized at least
  // `collect_bytes` (the between-pass collector in gc.h does the rest); false: never.
  bool collect = true;
  int64_t collect_bytes = 16 << 20;
  // Fold DequantizeLinear of a quantized constant (an integer or float8 tensor: an int8 weight)
  // into a float constant. Off by default: that grows a quantized model's weights 4x and takes
  // from the runtime the integer weights its int8 kernels run on.
  bool fold_dequantize = false;
};

}  // namespace anvil

#endif  // ANVIL_CONSTPROP_CONSTPROP_OPTIONS_H_
