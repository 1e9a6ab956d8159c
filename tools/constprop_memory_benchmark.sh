#!/usr/bin/env bash
# Memory benchmark for constant propagation (issue 5): generates a model with >= 1 GiB of
# float32 weights flowing through foldable chains (testdata/gen_constprop_memory_model.py),
# runs `anvil-opt --passes=constprop` on it with views and garbage collection (default) and
# without, and prints peak RSS (/usr/bin/time -v) against the bound
# 1.25 x (bytes of input constants + bytes of output constants), plus fold time.
#   bazel run -c opt //tools:constprop_memory_benchmark [-- --gib 1.0]
set -euo pipefail
OPT="$(cd "$(dirname "$0")" && pwd)/anvil-opt"
[[ -x "$OPT" ]] || OPT="$RUNFILES_DIR/anvil/tools/anvil-opt"
GEN="$(dirname "$0")/../testdata/gen_constprop_memory_model.py"
[[ -f "$GEN" ]] || GEN="${RUNFILES_DIR:-$0.runfiles}/anvil/testdata/gen_constprop_memory_model.py"
GIB=1.0
[[ "${1:-}" == "--gib" ]] && GIB="$2"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

/usr/bin/python3 "$GEN" "$WORK/model.onnx" --gib "$GIB"
input_bytes=$(stat -c %s "$WORK/model.onnx.data")

run() {  # name, extra args...
  local name=$1
  shift
  rm -f "$WORK"/out.onnx*
  /usr/bin/time -v "$OPT" "$WORK/model.onnx" "$@" --timing -o "$WORK/out.onnx" \
    --external-data-threshold=1024 2>"$WORK/log" >/dev/null
  local rss_kb fold_ms output_bytes
  rss_kb=$(grep "Maximum resident set size" "$WORK/log" | awk '{print $NF}')
  fold_ms=$(grep -E "^constprop" "$WORK/log" | awk '{print $2}')
  output_bytes=$(stat -c %s "$WORK/out.onnx.data")
  local bound=$(( (input_bytes + output_bytes) * 5 / 4 ))
  awk -v n="$name" -v r="$rss_kb" -v b="$bound" -v i="$input_bytes" -v o="$output_bytes" \
      -v t="$fold_ms" 'BEGIN {
        printf "%-26s peak RSS %6.2f GiB = %.2f x (in %.2f + out %.2f GiB); bound 1.25x; fold %.1f s\n",
               n, r / 1048576, r * 1024 / (i + o), i / 2^30, o / 2^30, t / 1000 }'
}

run "views + GC (default)" --passes=constprop
run "no views, no GC" "--passes=constprop{views=false,collect=false}" --no-gc
