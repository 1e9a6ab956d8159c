#!/usr/bin/env bash
# Anvil's runtime against ONNX Runtime on the generated models (testdata/generate_models.py):
# the same model, the same inputs (ort_run.js writes them, anvil-run reads them back), measured
# side by side in this run with one intra-op thread each, then with as many threads as the
# machine has logical CPUs (both runtimes alike; --threads N to choose). Prints one line per
# model and batch with the medians of Anvil's interpreter, Anvil's compiled code (anvil-run
# --backend=compiled, the JIT) and ONNX Runtime, the ratios to ONNX Runtime (lower is better; 1.0
# is parity) and how many times faster compiled code is than the interpreter (int/comp: the
# median over rounds of anvil-run --compare's paired ratio, the two engines' runs alternating in
# one process), after checking that the outputs agree; then the LayerNorm+GELU chain's effective
# memory bandwidth
# against a STREAM-style triad measured in the same run, and the JIT's compile times, cold (a
# fresh cache) and cached.
#
#   tools/bench_vs_ort.sh [--iters N] [--warmup N] [--rounds N] [--threads N] [--no-sweep]
#
# Rows: the generated MLP, CNN, transformer block, LayerNorm+GELU chain and MobileNetV3-style
# network at two batch sizes, then the GEMM sweep (constant-weight MatMul models x[M, K] x W[K, N],
# testdata/generate_models.py's GEMM_SHAPES; --no-sweep leaves it out).
#
# Both sides warm up first (ONNX Runtime's first runs are many times slower than the rest); each
# round runs both tools once and the reported median is the best round's, which on this shared,
# noisy machine is the steadiest figure. Needs node (ort_run.js installs onnxruntime-node on first
# use) and Debian's python3-onnx.
set -euo pipefail
cd "$(dirname "$0")/.."

ITERS=50
WARMUP=10
ROUNDS=3
SWEEP=1
ALL_THREADS=$(nproc)
while (($#)); do
  case $1 in
    --threads) ALL_THREADS=$2; shift 2 ;;
    --no-sweep) SWEEP=0; shift ;;
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    *) echo "bench_vs_ort: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

SHARED=$(pwd)/../shared/bench
ORT_RUN=$SHARED/ort_run.js
COMPARE=$SHARED/compare_outputs.py
bazel build -c opt //tools:anvil-run //testdata:models >/dev/null 2>&1 ||
  { echo "bench_vs_ort: error: bazel build -c opt //tools:anvil-run //testdata:models failed" >&2; exit 1; }
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
ANVIL="$BIN/tools/anvil-run"
MODELS="$BIN/testdata/models"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# A fresh JIT cache: the first load of each model is a cold compile, the next ones are cached.
export ANVIL_JIT_CACHE="$TMP/jit"

median() { sed -E 's/.*"median_ms":([0-9.e+-]+).*/\1/'; }

# model shape-of-x
CASES=(
  "mlp 1,256" "mlp 64,256"
  "cnn 1,3,32,32" "cnn 16,3,32,32"
  "transformer 1,32,64" "transformer 8,128,64"
  "lngelu 8,128,768" "lngelu 64,128,768"
  "mobilenet 1,3,64,64" "mobilenet 8,3,64,64"
)
if ((SWEEP)); then
  for f in "$MODELS"/matmul_*.onnx; do
    IFS=_ read -r _ m n k <<<"$(basename "$f" .onnx)"
    CASES+=("matmul_${m}_${n}_${k} $m,$k")
  done
fi
THREAD_COUNTS=(1)
((ALL_THREADS > 1)) && THREAD_COUNTS+=("$ALL_THREADS")
printf "%-22s %-14s %7s %12s %12s %12s %8s %8s %10s\n" model x threads "interp ms" "compiled ms" \
  "ort ms" "interp/ort" "comp/ort" "int/comp"
COMPILE_LOG=$TMP/compile.log
for threads in "${THREAD_COUNTS[@]}"; do
for c in "${CASES[@]}"; do
  read -r model shape <<<"$c"
  dir="$TMP/$model-$shape-$threads"
  best_anvil="" best_ort="" best_comp="" paired=()
  for ((r = 0; r < ROUNDS; r++)); do
    ort=$(node "$ORT_RUN" "$MODELS/$model.onnx" --shape "x=$shape" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/ort" | median)
    # The interpreter and compiled code in one process, their runs alternating: the medians of
    # each, and the median ratio of adjacent pairs (steady where this machine's speed drifts).
    line=$("$ANVIL" "$MODELS/$model.onnx" --input-dir "$dir/ort" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/anvil" --compare=compiled \
      2>>"$COMPILE_LOG.$model")
    anvil=$(sed -E 's/.*"iters":[0-9]+,"median_ms":([0-9.e+-]+).*/\1/' <<<"$line")
    comp=$(sed -E 's/.*"vs":\{[^}]*"median_ms":([0-9.e+-]+).*/\1/' <<<"$line")
    paired+=("$(sed -E 's/.*"paired_ratio_median":([0-9.e+-]+).*/\1/' <<<"$line")")
    if [[ -z $best_comp ]] || awk "BEGIN{exit !($comp < $best_comp)}"; then best_comp=$comp; fi
    if [[ -z $best_ort ]] || awk "BEGIN{exit !($ort < $best_ort)}"; then best_ort=$ort; fi
    if [[ -z $best_anvil ]] || awk "BEGIN{exit !($anvil < $best_anvil)}"; then best_anvil=$anvil; fi
  done
  # The compiled outputs, from a run of their own (--out writes the first engine's).
  "$ANVIL" "$MODELS/$model.onnx" --backend=compiled --input-dir "$dir/ort" --threads "$threads" \
    --iters 1 --warmup 0 --out "$dir/compiled" >/dev/null 2>>"$COMPILE_LOG.$model"
  int_comp=$(printf "%s\n" "${paired[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  check="outputs agree"
  for out in anvil compiled; do
    if ! /usr/bin/python3 "$COMPARE" "$dir/ort" "$dir/$out" --rtol 1e-3 --atol 1e-5 >"$dir/cmp" 2>&1; then
      check="$out OUTPUTS DIFFER: $(tr '\n' ' ' <"$dir/cmp")"
    fi
  done
  printf "%-22s %-14s %7d %12.4f %12.4f %12.4f %8.2f %8.2f %10.2f  %s\n" "$model" "$shape" \
    "$threads" "$best_anvil" "$best_comp" "$best_ort" "$(awk "BEGIN{print $best_anvil / $best_ort}")" \
    "$(awk "BEGIN{print $best_comp / $best_ort}")" "$int_comp" "$check" | tee -a "$TMP/table"
done
done

# Memory bandwidth: a STREAM-style triad (a = b + s * c over 128 MiB arrays, one thread, best of
# 10) compiled here with the JIT's compiler and flags, against the chain's effective bandwidth
# (its input read once and its output written once per run).
cat >"$TMP/triad.cc" <<'CC'
#include <chrono>
#include <cstdio>
#include <vector>
int main() {
  const long n = 32L << 20;
  std::vector<float> a(n, 0.0f), b(n, 1.0f), c(n, 2.0f);
  double best = 1e30;
  for (int r = 0; r < 10; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  std::printf("%.3f %f\n", 3.0 * n * sizeof(float) / best / 1e9, a[n / 2]);
}
CC
"${CXX:-c++}" -std=c++17 -O3 -march=native -o "$TMP/triad" "$TMP/triad.cc"
TRIAD=$("$TMP/triad" | cut -d' ' -f1)
echo
echo "memory bandwidth (1 thread): STREAM-style triad $TRIAD GB/s"
for c in "${CASES[@]}"; do
  read -r model shape <<<"$c"
  [[ $model == lngelu ]] || continue
  elements=$(awk -v s="$shape" 'BEGIN{n=split(s, d, ","); p=1; for (i = 1; i <= n; ++i) p *= d[i]; print p}')
  ms=$(grep "^lngelu  *$shape  *1 " "$TMP/table" | awk '{print $5}')
  gbs=$(awk "BEGIN{print 2 * $elements * 4 / ($ms / 1000) / 1e9}")
  printf "  lngelu %-12s compiled %.2f GB/s effective = %.0f%% of the triad\n" "$shape" "$gbs" \
    "$(awk "BEGIN{print 100 * $gbs / $TRIAD}")"
done

echo
echo "JIT compile per model (anvil-run --backend=compiled, first load cold, then cached):"
for model in mlp cnn transformer lngelu mobilenet; do
  cold=$(grep -o 'compile [0-9.]* s' "$COMPILE_LOG.$model" | head -1)
  cached=$(grep -c 'cached' "$COMPILE_LOG.$model" || true)
  printf "  %-12s %s; %s later loads from the cache\n" "$model" "${cold:-cached}" "$cached"
done
