#!/usr/bin/env bash
# The Einsum benchmark: for each named equation (einsum_benchmark_models.cc), the op counts after
# einsum-decompose and the latency of
#   (a) ONNX Runtime running the original Einsum model,
#   (b) ONNX Runtime running Anvil's rewritten model,
#   (c) anvil-run running the rewritten model,
# all on one thread, on the same inputs (ort_run.js writes them, the others read them back), with
# every output compared against (a), measured in this one run.
#
#   bazel run -c opt //einsum:einsum_benchmark [-- --iters N --warmup N --rounds N --filter RE]
#
# Each round runs the three once; a column's figure is its best round's median, the steadiest
# figure on a shared, noisy machine. "speedup" is (a)/(b): how much faster ONNX Runtime runs the
# rewrite than its own Einsum kernel. Needs node (ort_run.js installs onnxruntime-node on first
# use) and Debian's python3-onnx for compare_outputs.py.
set -euo pipefail

ITERS=20
WARMUP=5
ROUNDS=3
FILTER=.
while (($#)); do
  case $1 in
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --filter) FILTER=$2; shift 2 ;;
    *) echo "einsum_benchmark: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

RUNFILES=${RUNFILES_DIR:-$0.runfiles}/anvil
MODELS_TOOL=$RUNFILES/einsum/einsum_benchmark_models
ANVIL=$RUNFILES/tools/anvil-run
ROOT=${BUILD_WORKSPACE_DIRECTORY:-$(cd "$(dirname "$0")/.." && pwd)}
SHARED=$ROOT/../shared/bench
for f in "$MODELS_TOOL" "$ANVIL" "$SHARED/ort_run.js" "$SHARED/compare_outputs.py"; do
  [[ -e $f ]] || { echo "einsum_benchmark: error: missing $f" >&2; exit 1; }
done
command -v node >/dev/null || { echo "einsum_benchmark: error: node is not installed" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$MODELS_TOOL" "$TMP" >"$TMP/cases.tsv"

median() { sed -E 's/.*"median_ms":([0-9.e+-]+).*/\1/'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN{print (b == "" || a < b) ? a : b}'; }

printf "%-18s %-20s %-40s %10s %10s %8s %10s %9s  %s\n" case equation "ops after rewrite" \
  "ort einsum" "ort rewr." speedup "anvil" "anvil/ort" outputs
printf "%-18s %-20s %-40s %10s %10s %8s %10s %9s\n" "" "" "" "ms (a)" "ms (b)" "(a)/(b)" "ms (c)" "(c)/(a)"
while IFS=$'\t' read -r name equation shapes ops cost l2r; do
  [[ $name =~ $FILTER ]] || continue
  args=()
  IFS=';' read -ra parts <<<"$shapes"
  for p in "${parts[@]}"; do args+=(--shape "$p"); done
  dir=$TMP/$name
  best_a="" best_b="" best_c=""
  for ((r = 0; r < ROUNDS; r++)); do
    a=$(node "$SHARED/ort_run.js" "$TMP/$name.onnx" "${args[@]}" --threads 1 --iters "$ITERS" \
      --warmup "$WARMUP" --out "$dir/a" | median)
    b=$(node "$SHARED/ort_run.js" "$TMP/$name.rewritten.onnx" --input-dir "$dir/a" --threads 1 \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/b" | median)
    c=$("$ANVIL" "$TMP/$name.rewritten.onnx" --input-dir "$dir/a" --threads 1 --iters "$ITERS" \
      --warmup "$WARMUP" --out "$dir/c" | median)
    best_a=$(min "$a" "$best_a") best_b=$(min "$b" "$best_b") best_c=$(min "$c" "$best_c")
  done
  check="agree"
  for side in b c; do
    if ! /usr/bin/python3 "$SHARED/compare_outputs.py" "$dir/a" "$dir/$side" --rtol 1e-3 \
      --atol 1e-4 >"$dir/cmp" 2>&1; then
      check="($side) DIFFERS: $(tr '\n' ' ' <"$dir/cmp")"
    fi
  done
  printf "%-18s %-20s %-40s %10.3f %10.3f %8.2f %10.3f %9.2f  %s\n" "$name" "$equation" "$ops" \
    "$best_a" "$best_b" "$(awk "BEGIN{print $best_a / $best_b}")" "$best_c" \
    "$(awk "BEGIN{print $best_c / $best_a}")" "$check"
  if [[ $cost != "$l2r" ]]; then
    printf "%-18s   plan cost %.4g multiply-adds + intermediates; left to right %.4g (%.0fx)\n" \
      "" "$cost" "$l2r" "$(awk "BEGIN{print $l2r / $cost}")"
  fi
done <"$TMP/cases.tsv"
