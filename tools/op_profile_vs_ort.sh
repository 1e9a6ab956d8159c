#!/usr/bin/env bash
# Where Anvil's runtime and ONNX Runtime spend their time on one model, per op type, side by
# side: the same inputs (ort_run.js writes them, anvil-run and ort_profile.js read them back), the
# same thread count (one intra-op thread unless --threads N), Anvil's interpreter with anvil-run
# --profile against ONNX Runtime's own profiler (tools/ort_profile.js). Prints one table sorted by
# Anvil's time: op type, nodes and ms per run on each side and Anvil/ONNX Runtime (lower is
# better; 1.0 is parity), then the sums of the op times and each runtime's end-to-end median.
#
#   tools/op_profile_vs_ort.sh MODEL (--shape NAME=D0,D1,... [--shape ...] | --input-dir DIR)
#                              [--iters N] [--warmup N] [--rounds N] [--threads N]
#
# --input-dir reads the inputs from DIR (input_K.pb, as ort_run.js --out writes them) instead of
# making random ones (tools/bench_vs_ort.sh --ops passes the inputs of its rows).
#
# Each tool runs --rounds times (a process each: load, --warmup runs, --iters timed runs). An op
# type's time is the best (lowest) round's mean per run (anvil-run --profile reports means, which
# one preempted run on a shared machine can double; the best round is the steadiest figure, as in
# bench_vs_ort.sh), an end-to-end median the best round's median. The op types are each
# runtime's after its own load-time rewrites, so they do not line up one to one: Anvil folds
# BatchNormalization into Conv and fuses Conv+activation (FusedConv), LayerNormalization, Gelu,
# attention; ONNX Runtime has its own fusions (FusedConv, FusedMatMul, ...) and NCHWc layout
# (Conv with ReorderInput/ReorderOutput). Types are matched by name without their domain
# (com.microsoft.FusedConv is FusedConv); a type only one side has gets "-" on the other, and a
# ratio over different node counts is marked *. ONNX Runtime's end-to-end median is from
# ort_run.js without the profiler (which slows it down); its profiled median is in the note.
#
# Needs node (ort_run.js, ../shared/bench, installs onnxruntime-node on first use), python3 and
# an opt anvil-run: bazel build -c opt //tools:anvil-run, found at
# bazel-out/k8-opt/bin/tools/anvil-run under the repository, or wherever $ANVIL_RUN says.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

ITERS=20
WARMUP=10
ROUNDS=10
THREADS=1
MODEL=""
SHAPES=()
INPUT_DIR=""
while (($#)); do
  case $1 in
    --shape) SHAPES+=(--shape "$2"); shift 2 ;;
    --input-dir) INPUT_DIR=$2; shift 2 ;;
    --iters) ITERS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "op_profile_vs_ort: error: unknown argument '$1'" >&2; exit 2 ;;
    *) [[ -z $MODEL ]] || { echo "op_profile_vs_ort: error: more than one model" >&2; exit 2; }
       MODEL=$1; shift ;;
  esac
done
USAGE="usage: tools/op_profile_vs_ort.sh MODEL (--shape NAME=D0,D1,... | --input-dir DIR) [--iters N] [--warmup N]"
USAGE+=" [--rounds N] [--threads N]"
[[ -n $MODEL ]] || { echo "$USAGE" >&2; exit 2; }
[[ -f $MODEL ]] || { echo "op_profile_vs_ort: error: no model $MODEL" >&2; exit 1; }

ANVIL=${ANVIL_RUN:-$ROOT/bazel-out/k8-opt/bin/tools/anvil-run}
[[ -x $ANVIL ]] || {
  echo "op_profile_vs_ort: error: no $ANVIL:" \
    "bazel build -c opt //tools:anvil-run (or set ANVIL_RUN)" >&2
  exit 1
}
ORT_RUN=${ORT_RUN:-$ROOT/../shared/bench/ort_run.js}
ORT_PROFILE=$ROOT/tools/ort_profile.js
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

COMMON=(--iters "$ITERS" --warmup "$WARMUP" --threads "$THREADS")
# The inputs: --input-dir's, or from ONNX Runtime (random for --shape, seeded as anvil-run would
# make them).
if [[ -n $INPUT_DIR ]]; then
  mkdir -p "$TMP/io"
  cp "$INPUT_DIR"/input_*.pb "$TMP/io/"
else
  node "$ORT_RUN" "$MODEL" ${SHAPES[@]+"${SHAPES[@]}"} --iters 1 --warmup 0 --out "$TMP/io" >/dev/null
fi
for ((r = 0; r < ROUNDS; r++)); do
  # ONNX Runtime without the profiler (end to end), Anvil with --profile (its table on stderr),
  # ONNX Runtime with its profiler on.
  node "$ORT_RUN" "$MODEL" --input-dir "$TMP/io" "${COMMON[@]}" >"$TMP/ort_run.$r.json"
  "$ANVIL" "$MODEL" --input-dir "$TMP/io" "${COMMON[@]}" --profile >"$TMP/anvil.$r.json" \
    2>"$TMP/anvil.$r.err" || { cat "$TMP/anvil.$r.err" >&2; exit 1; }
  node "$ORT_PROFILE" "$MODEL" --input-dir "$TMP/io" "${COMMON[@]}" >"$TMP/ort_profile.$r.json"
done

python3 - "$TMP" "$(basename "$MODEL")" "$THREADS" "$ITERS" "$ROUNDS" <<'PY'
import json, re, sys

tmp, model, threads, iters, rounds = sys.argv[1:6]
rounds = range(int(rounds))
load = lambda f: json.load(open(f"{tmp}/{f}"))
anvil_e2e = min(load(f"anvil.{r}.json")["median_ms"] for r in rounds)
ort_e2e = min(load(f"ort_run.{r}.json")["median_ms"] for r in rounds)
ort_profiled_e2e = min(load(f"ort_profile.{r}.json")["median_ms"] for r in rounds)

def key(op_type):  # without the domain: com.microsoft.FusedConv -> FusedConv
    return op_type.rsplit(".", 1)[-1]

def best(per_round):  # [{op: (nodes, ms)}] -> {op: (nodes, lowest ms over the rounds)}
    out = {}
    for ops in per_round:
        for k, (n, ms) in ops.items():
            out[k] = (n, min(ms, out[k][1])) if k in out else (n, ms)
    return out

def add(ops, op_type, nodes, ms):
    n, t = ops.get(key(op_type), (0, 0.0))
    ops[key(op_type)] = (n + nodes, t + ms)

line_re = re.compile(r"^\s+(\S+)\s+(\d+) nodes\s+([0-9.]+) ms")
anvil_rounds, ort_rounds = [], []
for r in rounds:
    ops, in_profile = {}, False
    for line in open(f"{tmp}/anvil.{r}.err"):
        if "profile over" in line:
            in_profile = True
        elif in_profile and (m := line_re.match(line)):
            add(ops, m[1], int(m[2]), float(m[3]))
    anvil_rounds.append(ops)
    ops = {}
    for p in load(f"ort_profile.{r}.json")["ops"]:
        add(ops, p["op_type"], p["nodes"], p["ms"])
    ort_rounds.append(ops)
anvil, ort = best(anvil_rounds), best(ort_rounds)

def ratio(a, b, mark=" "):
    return f"{a / b:.2f}{mark}" if a is not None and b else "-"

rows = sorted(anvil, key=lambda k: -anvil[k][1]) + sorted(
    (k for k in ort if k not in anvil), key=lambda k: -ort[k][1])
width = max([len(k) for k in rows] + [len("end-to-end median")])
fmt = f"%-{width}s %6s %10s %6s %10s %11s"
print(f"{model}: ms per run, best of {len(rounds)} rounds of {iters} timed runs, "
      f"{threads} intra-op thread(s)")
print(fmt % ("op type", "nodes", "Anvil ms", "nodes", "ORT ms", "Anvil/ORT"))
for k in rows:
    a, o = anvil.get(k), ort.get(k)
    print(fmt % (k, a[0] if a else "-", f"{a[1]:.4f}" if a else "-",
                 o[0] if o else "-", f"{o[1]:.4f}" if o else "-",
                 ratio(a[1] if a else None, o[1] if o else None,
                       "*" if a and o and a[0] != o[0] else " ")))
print("-" * (width + 49))
sa, so = sum(v[1] for v in anvil.values()), sum(v[1] for v in ort.values())
print(fmt % ("sum of op times", sum(v[0] for v in anvil.values()), f"{sa:.4f}",
             sum(v[0] for v in ort.values()), f"{so:.4f}", ratio(sa, so)))
print(fmt % ("end-to-end median", "", f"{anvil_e2e:.4f}", "", f"{ort_e2e:.4f}",
             ratio(anvil_e2e, ort_e2e)))
with_, without = ort_profiled_e2e, ort_e2e
print(f"""
note: op types are each runtime's after its own fusions and layout changes, so rows do not
  match one to one (e.g. Anvil FusedConv = Conv+BatchNormalization+activation vs ORT Conv,
  FusedConv, ReorderInput/ReorderOutput of its NCHWc layout; Anvil MultiHeadAttention vs ORT
  MatMul/Softmax/Transpose/Reshape); * marks a ratio over different node counts. Compare the
  sums for the whole. ORT's op times are with its profiler on (end-to-end median {with_:.4f} ms
  with it, {without:.4f} ms without); sums of op times leave out each runtime's run overhead.""")
PY
