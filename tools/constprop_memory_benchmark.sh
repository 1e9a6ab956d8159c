#!/usr/bin/env bash
# Memory benchmark for constant propagation (issues 5, 10 and 32). Generates models with 1 GiB
# of float32 weights as external data and folds each with
#   anvil-opt MODEL --passes=shape-inference,constprop,dce -o OUT
# printing peak RSS (/usr/bin/time -v) against (input bytes + output bytes), the constant pool's
# peak, fold and export time, and ONNX Runtime's peak RSS for the same fold (a session with basic
# graph optimizations writing its optimized model; tools/ort_fold.js), measured in the same run:
#   chain        4 weights through Transpose, Cast float16 and back, Mul/Add, Reshape, Concat,
#                Slice, Expand (testdata/gen_constprop_memory_model.py); output as external data
#   slice        one weight through Transpose, Cast float16 and back, Mul/Add by scalars, Reshape,
#                and a Slice keeping half (testdata/gen_constprop_slice_model.py); output inline
#   slice+user   the same, and the weight also feeds a MatMul, so it stays in the output
# each with laziness on (default) and off (constprop{lazy=false}). Targets: peak <= 1.05 x
# (in + out); with laziness on, <= 0.6 x where the Slice keeps half.
# Then, laziness on only (target 1.05): one weight through Transpose, Cast float16 and back, Mul
# by a scalar, Add a bias row, then layout ops its transposed and broadcast leaves cannot take as
# strided views, keeping a quarter (gen_constprop_memory_model.py --layout):
#   reshape-slice   Reshape to another 2-D shape, Slice a quarter of the rows; out inline / external
#   slice-reshape   Slice first, then Reshape
#   split           Reshape, Split in 4 (one part read); out external
#   gather          Reshape, Gather rows with 2-D indices, Reshape
#   r-s+user        reshape-slice, the weight also read by a MatMul; out external / inline
#   bazel run -c opt //tools:constprop_memory_benchmark [-- --gib 1.0] [-- --no-ort]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OPT="$HERE/anvil-opt"
[[ -x "$OPT" ]] || OPT="$RUNFILES_DIR/anvil/tools/anvil-opt"
find_file() {  # path relative to the workspace
  for candidate in "$HERE/../$1" "${RUNFILES_DIR:-$0.runfiles}/anvil/$1"; do
    [[ -f "$candidate" ]] && { echo "$candidate"; return; }
  done
  echo "constprop_memory_benchmark: cannot find $1" >&2
  exit 1
}
GEN_CHAIN="$(find_file testdata/gen_constprop_memory_model.py)"
GEN_SLICE="$(find_file testdata/gen_constprop_slice_model.py)"
ORT_FOLD="$(find_file tools/ort_fold.js)"
GIB=1.0
ORT=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gib) GIB="$2"; shift 2 ;;
    --no-ort) ORT=0; shift ;;
    *) echo "usage: constprop_memory_benchmark [--gib G] [--no-ort]" >&2; exit 2 ;;
  esac
done
if [[ $ORT == 1 ]] && ! command -v node >/dev/null; then
  echo "constprop_memory_benchmark: node not found; ONNX Runtime column skipped" >&2
  ORT=0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/chain" "$WORK/slice" "$WORK/slice2" "$WORK/layout"
/usr/bin/python3 "$GEN_CHAIN" "$WORK/chain/model.onnx" --gib "$GIB"
/usr/bin/python3 "$GEN_SLICE" "$WORK/slice/model.onnx" --gib "$GIB"
/usr/bin/python3 "$GEN_SLICE" "$WORK/slice2/model.onnx" --gib "$GIB" --second-user

bytes_of() {  # model.onnx plus its .data, if any
  local total
  total=$(stat -c %s "$1")
  [[ -f "$1.data" ]] && total=$((total + $(stat -c %s "$1.data")))
  echo "$total"
}

ort_peak() {  # model -> peak RSS in KiB of ONNX Runtime folding it, or "-"
  [[ $ORT == 1 ]] || { echo "-"; return; }
  rm -f "$WORK/ort.onnx"*
  if /usr/bin/time -v node "$ORT_FOLD" "$1" "$WORK/ort.onnx" >/dev/null 2>"$WORK/ort.log"; then
    grep "Maximum resident set size" "$WORK/ort.log" | awk '{print $NF}'
  else
    echo "-"
  fi
}

printf "%-14s %-5s %9s %7s %7s %7s %8s %7s %7s %8s\n" case lazy "peak RSS" "x(i+o)" target \
  "pool" "fold s" "write s" "ORT x" "verdict"
failed=0
run() {  # name, dir, target ratio, lazy (on|off), extra anvil-opt args...
  local name=$1 dir=$2 target=$3 lazy=$4
  shift 4
  local passes="shape-inference,constprop,dce"
  [[ $lazy == off ]] && passes="shape-inference,constprop{lazy=false},dce"
  rm -f "$dir"/out.onnx*
  if ! /usr/bin/time -v "$OPT" "$dir/model.onnx" --passes="$passes" --timing --stats \
      -o "$dir/out.onnx" "$@" 2>"$dir/log" >/dev/null; then
    echo "$name: anvil-opt failed:" >&2
    tail -5 "$dir/log" >&2
    failed=1
    return
  fi
  local rss_kb fold_ms write_s pool_mib in_bytes out_bytes
  rss_kb=$(grep "Maximum resident set size" "$dir/log" | awk '{print $NF}')
  fold_ms=$(grep -E "^ *constprop" "$dir/log" | head -1 | awk '{print $2}')
  write_s=$(grep -oE "in [0-9.]+ s$" "$dir/log" | awk '{print $2}')
  pool_mib=$(grep -oE "peak [0-9.]+ MiB" "$dir/log" | awk '{print $2}')
  in_bytes=$(bytes_of "$dir/model.onnx")
  out_bytes=$(bytes_of "$dir/out.onnx")
  awk -v n="$name" -v l="$lazy" -v r="$rss_kb" -v i="$in_bytes" -v o="$out_bytes" \
      -v t="$target" -v p="${pool_mib:-0}" -v f="${fold_ms:-0}" -v w="${write_s:-0}" \
      -v ort="$ORT_PEAK" 'BEGIN {
        ratio = r * 1024 / (i + o)
        ort_x = ort == "-" ? "-" : sprintf("%.2f", ort / r)
        printf "%-14s %-5s %5.2f GiB %7.2f %7.2f %4.2f GiB %8.1f %7.1f %7s %8s\n",
               n, l, r / 1048576, ratio, t, p / 1024, f / 1000, w, ort_x,
               ratio <= t ? "ok" : "OVER" }'
  if ! awk -v r="$rss_kb" -v i="$in_bytes" -v o="$out_bytes" -v t="$target" \
      'BEGIN { exit !(r * 1024 / (i + o) <= t) }'; then
    failed=1
  fi
}

ORT_PEAK=$(ort_peak "$WORK/chain/model.onnx")
run chain "$WORK/chain" 1.05 on --external-data-threshold=1024
run chain "$WORK/chain" 1.05 off --external-data-threshold=1024
ORT_PEAK=$(ort_peak "$WORK/slice/model.onnx")
run slice "$WORK/slice" 0.60 on
run slice "$WORK/slice" 1.05 off
ORT_PEAK=$(ort_peak "$WORK/slice2/model.onnx")
run slice+user "$WORK/slice2" 1.05 on
run slice+user "$WORK/slice2" 1.05 off
rm -rf "$WORK/chain" "$WORK/slice" "$WORK/slice2"
layout() {  # name, generator flags, anvil-opt flags (one word or none)
  rm -rf "$WORK/layout" && mkdir -p "$WORK/layout"
  # shellcheck disable=SC2086
  /usr/bin/python3 "$GEN_CHAIN" "$WORK/layout/model.onnx" --gib "$GIB" $2 >/dev/null
  ORT_PEAK=$(ort_peak "$WORK/layout/model.onnx")
  # shellcheck disable=SC2086
  run "$1" "$WORK/layout" 1.05 on $3
}
EXT=--external-data-threshold=1024
layout reshape-slice "--layout reshape-slice" ""
layout r-s/ext "--layout reshape-slice" "$EXT"
layout slice-reshape "--layout slice-reshape" ""
layout split/ext "--layout split" "$EXT"
layout gather "--layout gather" ""
layout r-s+user/ext "--layout reshape-slice --second-user" "$EXT"
layout r-s+user "--layout reshape-slice --second-user" ""
echo "(in + out: bytes of the model files read and written; pool: the constant pool's peak;"
echo " ORT x: ONNX Runtime's peak RSS for the same fold / Anvil's)"
exit $failed
