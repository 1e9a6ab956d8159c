#!/usr/bin/env bash
# The silero VAD v5 model (dist/silero_vad_v5.onnx of the npm package @ricky0123/vad-web@0.0.31:
# a PyTorch export whose inlined functions nest an LSTM two Ifs deep and Ifs four deep, branch
# outputs typed `type {}`) run by anvil-run, with the default backend and with
# --backend=compiled, against ONNX Runtime on the same inputs: 16 kHz frames of 512 samples
# (batch 1 and 2) and an 8 kHz frame of 256, a random state. Outputs must agree within rtol 1e-3
# (compare_outputs.py, its default atol 1e-4).
#
#   tools/vad_check.sh [--cache DIR]
#
# Run on request only: it fetches the package with `npm pack` (into DIR, by default
# ~/.cache/anvil-vad, once), and needs node (ort_run.js installs onnxruntime-node on first use)
# and Debian's python3-onnx. The test suite's offline stand-in is
# testdata/gen_nested_if_rnn_model.py.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/anvil-vad
while (($#)); do
  case $1 in
    --cache) CACHE=$2; shift 2 ;;
    *) echo "vad_check: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

PACKAGE=@ricky0123/vad-web@0.0.31
MODEL=$CACHE/package/dist/silero_vad_v5.onnx
if [[ ! -f $MODEL ]]; then
  mkdir -p "$CACHE"
  tarball=$(cd "$CACHE" && npm pack --silent "$PACKAGE" | tail -1)
  tar -xzf "$CACHE/$tarball" -C "$CACHE" package/dist/silero_vad_v5.onnx ||
    { echo "vad_check: error: $PACKAGE has no dist/silero_vad_v5.onnx" >&2; exit 1; }
fi

SHARED=$(pwd)/../shared/bench
bazel build //tools:anvil-run >/dev/null 2>&1 ||
  { echo "vad_check: error: bazel build //tools:anvil-run failed" >&2; exit 1; }
ANVIL="$(bazel info bazel-bin 2>/dev/null)/tools/anvil-run"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ANVIL_JIT_CACHE="$TMP/jit"

failures=0
# name sr batch samples
for c in "16k_b1 16000 1 512" "16k_b2 16000 2 512" "8k_b1 8000 1 256"; do
  read -r name sr batch samples <<<"$c"
  in=$TMP/$name/in
  mkdir -p "$in"
  /usr/bin/python3 - "$in" "$sr" "$batch" "$samples" <<'PY'
import sys
import numpy as np
from onnx import numpy_helper
out, sr, batch, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(sr + batch)
t = np.arange(samples) / sr
audio = 0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal((batch, samples))
values = [audio.astype(np.float32), (0.1 * rng.standard_normal((2, batch, 128))).astype(np.float32),
          np.array(sr, np.int64)]
for k, v in enumerate(values):
    with open(f"{out}/input_{k}.pb", "wb") as f:
        f.write(numpy_helper.from_array(v).SerializeToString())
PY
  node "$SHARED/ort_run.js" "$MODEL" --input-dir "$in" --out "$TMP/$name/ort" --iters 1 >/dev/null
  for backend in interpreter compiled; do
    out=$TMP/$name/$backend
    if ! "$ANVIL" "$MODEL" --input-dir "$in" --backend="$backend" --iters 1 --warmup 0 \
        --out "$out" >/dev/null 2>"$TMP/err"; then
      echo "$name $backend: FAIL: $(cat "$TMP/err")"
      failures=$((failures + 1))
      continue
    fi
    if report=$(/usr/bin/python3 "$SHARED/compare_outputs.py" "$TMP/$name/ort" "$out" \
        --rtol 1e-3); then
      echo "$name $backend: ok"
    else
      echo "$name $backend: FAIL"
      failures=$((failures + 1))
    fi
    sed 's/^/  /' <<<"$report"
  done
done
((failures == 0)) || { echo "vad_check: $failures comparison(s) failed" >&2; exit 1; }
