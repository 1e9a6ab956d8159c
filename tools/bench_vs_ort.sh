#!/usr/bin/env bash
# Anvil's runtime against ONNX Runtime on the generated models (testdata/generate_models.py) and
# the model zoo of public architectures (testdata/generate_zoo.py):
# the same model, the same inputs (ort_run.js writes them, anvil-run reads them back), measured
# side by side in this run with one intra-op thread each, then with as many threads as the
# machine has logical CPUs (both runtimes alike; --threads N to choose). Prints one line per
# model and batch with the medians of Anvil's interpreter, Anvil's compiled code (anvil-run
# --backend=compiled, the JIT) and ONNX Runtime, each in a process of its own, the ratios to ONNX
# Runtime (lower is better; 1.0 is parity) and how many times faster compiled code is than the
# interpreter (int/comp: the median over rounds of anvil-run --compare's paired ratio, the two
# engines' runs alternating in one process), after checking that the outputs agree; then the
# LayerNorm+GELU chain's effective
# memory bandwidth
# against a STREAM-style triad measured in the same run, and the JIT's compile times, cold (a
# fresh cache) and cached.
#
#   tools/bench_vs_ort.sh [--iters N] [--warmup N] [--rounds N] [--threads N] [--no-sweep] [--ops]
#
# --ops adds, after everything else, the per-op-type table of each zoo model at one thread
# (tools/op_profile_vs_ort.sh on the row's own inputs, --rounds rounds of --iters runs), one block
# per model headed "== ops zoo/NAME SHAPE"; scripts/readme_tables.py --from-bench puts the op types
# with at least 5% of either runtime's time into the kernels README (about 6 minutes more).
#
# Rows: the generated MLP, CNN, transformer block, LayerNorm+GELU chain and MobileNetV3-style
# network at two batch sizes, the zoo at batch 1 (MobileNetV2, MobileNetV3-small, ResNet-18,
# BlazeFace, a UNet, a YOLO-style detector, an STFT + log-mel audio front end, float16 MobileNetV2
# and UNet: rows "zoo/NAME"), then the GEMM sweep (constant-weight MatMul models x[M, K] x W[K, N],
# testdata/generate_models.py's GEMM_SHAPES; --no-sweep leaves it out), then the quantized zoo
# (QDQ ResNet-18 and MobileNetV2, a dynamically quantized BERT-style encoder) at batch 1 and 8,
# interpreter only, with int8/fp32 ratios. Float16 models (names
# ending in _fp16) are compared with --rtol 1e-2 --atol 5e-3 (float32 ones: 1e-3 and 1e-5), and
# their float16 inputs are made uniform in [-1, 1) here (ort_run.js's random float16 are raw bit
# patterns 0..3, denormals).
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
OPS=0
ALL_THREADS=$(nproc)
while (($#)); do
  case $1 in
    --threads) ALL_THREADS=$2; shift 2 ;;
    --no-sweep) SWEEP=0; shift ;;
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --ops) OPS=1; shift ;;
    *) echo "bench_vs_ort: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

SHARED=$(pwd)/../shared/bench
ORT_RUN=$SHARED/ort_run.js
COMPARE=$SHARED/compare_outputs.py
TARGETS=(//tools:anvil-run //testdata:models //testdata:zoo //testdata:quantized_zoo)
bazel build -c opt "${TARGETS[@]}" >/dev/null 2>&1 ||
  { echo "bench_vs_ort: error: bazel build -c opt ${TARGETS[*]} failed" >&2; exit 1; }
BIN=$(bazel info -c opt bazel-bin 2>/dev/null)
ANVIL="$BIN/tools/anvil-run"
MODELS="$BIN/testdata/models"
# A row's model: NAME is testdata/models/NAME.onnx, DIR/NAME is testdata/DIR/NAME.onnx (zoo/...).
model_path() {
  if [[ $1 == */* ]]; then echo "$BIN/testdata/$1.onnx"; else echo "$MODELS/$1.onnx"; fi
}
# Float16 models are compared more loosely: float16 rounding after every op.
tolerance() {
  if [[ $1 == *_fp16 ]]; then echo "--rtol 1e-2 --atol 5e-3"; else echo "--rtol 1e-3 --atol 1e-5"; fi
}
# Inputs of float16 models: uniform in [-1, 1) as for float32 (seeded), input_K.pb in DIR.
fp16_inputs() {
  /usr/bin/python3 - "$@" <<'PY'
import os, sys
import numpy as np
import onnx
from onnx import numpy_helper
path, shape, out = sys.argv[1], [int(d) for d in sys.argv[2].split(",")], sys.argv[3]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
graph = onnx.load(path, load_external_data=False).graph
weights = {t.name for t in graph.initializer}
inputs = [i for i in graph.input if i.name not in weights]
for k, i in enumerate(inputs):
    dtype = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[i.type.tensor_type.elem_type]
    data = (rng.random(shape) * 2 - 1).astype(dtype)
    with open(os.path.join(out, f"input_{k}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(data, i.name).SerializeToString())
PY
}
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
  "zoo/mobilenetv2 1,3,224,224" "zoo/mobilenetv3_small 1,3,224,224" "zoo/resnet18 1,3,224,224"
  "zoo/blazeface 1,128,128,3" "zoo/unet 1,3,128,128" "zoo/yolo_head 1,3,160,160"
  "zoo/audio_frontend 1,1,16000"
  "zoo/mobilenetv2_fp16 1,3,224,224" "zoo/unet_fp16 1,3,128,128"
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
  path=$(model_path "$model")
  tag=${model//\//_}
  dir="$TMP/$tag-$shape-$threads"
  inputs=(--shape "x=$shape")
  if [[ $model == *_fp16 ]]; then
    fp16_inputs "$path" "$shape" "$dir/in"
    inputs=(--input-dir "$dir/in")
  fi
  best_anvil="" best_ort="" best_comp="" paired=()
  for ((r = 0; r < ROUNDS; r++)); do
    ort=$(node "$ORT_RUN" "$path" "${inputs[@]}" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/ort" | median)
    # Each engine in a process of its own, as ONNX Runtime runs: the interpreter, then compiled
    # code (two engines alternating in one process evict each other's weights and arenas from
    # the caches: MobileNetV3-small measured 0.97 ms alone and 1.17 ms alternating).
    anvil=$("$ANVIL" "$path" --input-dir "$dir/ort" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/anvil" 2>>"$COMPILE_LOG.$tag" | median)
    comp=$("$ANVIL" "$path" --backend=compiled --input-dir "$dir/ort" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/compiled" 2>>"$COMPILE_LOG.$tag" | median)
    # The two in one process, their runs alternating: the median ratio of adjacent pairs (int/comp,
    # steady where this machine's speed drifts; both engines pay the alternation alike).
    line=$("$ANVIL" "$path" --input-dir "$dir/ort" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --compare=compiled 2>>"$COMPILE_LOG.$tag")
    paired+=("$(sed -E 's/.*"paired_ratio_median":([0-9.e+-]+).*/\1/' <<<"$line")")
    if [[ -z $best_comp ]] || awk "BEGIN{exit !($comp < $best_comp)}"; then best_comp=$comp; fi
    if [[ -z $best_ort ]] || awk "BEGIN{exit !($ort < $best_ort)}"; then best_ort=$ort; fi
    if [[ -z $best_anvil ]] || awk "BEGIN{exit !($anvil < $best_anvil)}"; then best_anvil=$anvil; fi
  done
  int_comp=$(printf "%s\n" "${paired[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  check="outputs agree"
  for out in anvil compiled; do
    # shellcheck disable=SC2046  # the two options of tolerance, split
    if ! /usr/bin/python3 "$COMPARE" "$dir/ort" "$dir/$out" $(tolerance "$model") >"$dir/cmp" 2>&1; then
      check="$out OUTPUTS DIFFER: $(tr '\n' ' ' <"$dir/cmp")"
    fi
  done
  printf "%-22s %-14s %7d %12.4f %12.4f %12.4f %8.2f %8.2f %10.2f  %s\n" "$model" "$shape" \
    "$threads" "$best_anvil" "$best_comp" "$best_ort" "$(awk "BEGIN{print $best_anvil / $best_ort}")" \
    "$(awk "BEGIN{print $best_comp / $best_ort}")" "$int_comp" "$check" | tee -a "$TMP/table"
done
done

# Quantized rows (testdata/generate_quantized_zoo.py) at batch 1 and 8 (the QOperator-format
# CNNs at batch 1): Anvil's interpreter (the compiled backend does not lower int8 yet) against
# ONNX Runtime with its default optimizations (which fuse QDQ), and against Anvil on the float32
# model the quantized one was made from (int8/fp32; BERT's float model is not in the zoo).
# Anvil computes ONNX Runtime's arithmetic but for its AVX2 kernels' saturating u8 x s8 pairs
# (kernels/README.md), where Anvil's sums are exact: the CNNs' outputs agree within two steps of
# the output's quantization, bert_dynq's within 0.15.
QCASES=(
  "zoo/resnet18_qdq 1,3,224,224" "zoo/resnet18_qdq 8,3,224,224"
  "zoo/mobilenetv2_qdq 1,3,224,224" "zoo/mobilenetv2_qdq 8,3,224,224"
  "zoo/resnet18_qop 1,3,224,224" "zoo/mobilenetv2_qop 1,3,224,224"
  "zoo/bert_dynq 1,128,256" "zoo/bert_dynq 8,128,256"
)
qtolerance() {
  if [[ $1 == *bert* ]]; then echo "--rtol 0 --atol 0.15"; else echo "--rtol 0 --atol 0.06"; fi
}
echo
printf "%-22s %-14s %7s %12s %12s %10s %12s %10s\n" "quantized model" x threads "anvil ms" \
  "ort ms" "anvil/ort" "fp32 ms" "int8/fp32"
for threads in "${THREAD_COUNTS[@]}"; do
for c in "${QCASES[@]}"; do
  read -r model shape <<<"$c"
  path=$(model_path "$model")
  float_model=${model%_qdq}
  float_model=${float_model%_qop}
  [[ $float_model == "$model" ]] && float_model=""
  dir="$TMP/${model//\//_}-$shape-$threads"
  best_anvil="" best_ort="" best_fp32=""
  for ((r = 0; r < ROUNDS; r++)); do
    ort=$(node "$ORT_RUN" "$path" --shape "x=$shape" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/ort" | median)
    anvil=$("$ANVIL" "$path" --input-dir "$dir/ort" --threads "$threads" \
      --iters "$ITERS" --warmup "$WARMUP" --out "$dir/anvil" | median)
    if [[ -n $float_model ]]; then
      fp32=$("$ANVIL" "$(model_path "$float_model")" --input-dir "$dir/ort" --threads "$threads" \
        --iters "$ITERS" --warmup "$WARMUP" | median)
      if [[ -z $best_fp32 ]] || awk "BEGIN{exit !($fp32 < $best_fp32)}"; then best_fp32=$fp32; fi
    fi
    if [[ -z $best_ort ]] || awk "BEGIN{exit !($ort < $best_ort)}"; then best_ort=$ort; fi
    if [[ -z $best_anvil ]] || awk "BEGIN{exit !($anvil < $best_anvil)}"; then best_anvil=$anvil; fi
  done
  check="outputs agree"
  # shellcheck disable=SC2046  # the two options of qtolerance, split
  if ! /usr/bin/python3 "$COMPARE" "$dir/ort" "$dir/anvil" $(qtolerance "$model") >"$dir/cmp" 2>&1; then
    check="OUTPUTS DIFFER: $(tr '\n' ' ' <"$dir/cmp")"
  fi
  fp32_cell="-" ratio_cell="-"
  if [[ -n $best_fp32 ]]; then
    fp32_cell=$(printf "%.4f" "$best_fp32")
    ratio_cell=$(awk "BEGIN{printf \"%.2f\", $best_anvil / $best_fp32}")
  fi
  printf "%-22s %-14s %7d %12.4f %12.4f %10.2f %12s %10s  %s\n" "$model" "$shape" "$threads" \
    "$best_anvil" "$best_ort" "$(awk "BEGIN{print $best_anvil / $best_ort}")" "$fp32_cell" \
    "$ratio_cell" "$check"
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
# Every model of the rows but the GEMM sweep's, once each, in the rows' order.
for model in $(printf "%s\n" "${CASES[@]}" | awk '$1 !~ /^matmul_/ && !seen[$1]++ {print $1}'); do
  tag=${model//\//_}
  cold=$(grep -o 'compile [0-9.]* s' "$COMPILE_LOG.$tag" | head -1)
  cached=$(grep -c 'cached' "$COMPILE_LOG.$tag" || true)
  printf "  %-22s %s; %s later loads from the cache\n" "$model" "${cold:-cached}" "$cached"
done

if ((OPS)); then
  echo
  echo "Per op type (tools/op_profile_vs_ort.sh, 1 thread, the rows' inputs):"
  for c in "${CASES[@]}"; do
    read -r model shape <<<"$c"
    [[ $model == zoo/* ]] || continue
    echo "== ops $model $shape"
    ANVIL_RUN=$ANVIL tools/op_profile_vs_ort.sh "$(model_path "$model")" \
      --input-dir "$TMP/${model//\//_}-$shape-1/ort" --threads 1 --rounds "$ROUNDS" \
      --iters "$ITERS" --warmup "$WARMUP" | sed -n '/^op type/,/^end-to-end/p'
  done
fi
