#!/usr/bin/env bash
# anvil-compile end to end: the LayerNorm+GELU model compiled to libmodel.so, the C program of
# examples/aot built against it with the system C compiler, run on an input, and its output
# compared with anvil-run's on the same input (float32 tolerance: the library's loops are
# vectorized, anvil-run's kernels are too, in a different order).
set -uo pipefail
R="$TEST_SRCDIR/anvil"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
MODEL="$R/testdata/models/lngelu.onnx"
"$R/tools/anvil-compile" "$MODEL" -o "$TMP/lib" --shared || { echo "FAIL: anvil-compile"; exit 1; }
for f in model.cc model.h model.weights libmodel.so; do
  [[ -s "$TMP/lib/$f" ]] || { echo "FAIL: $f missing"; exit 1; }
done
cc -I "$TMP/lib" -o "$TMP/main" "$R/examples/aot/main.c" -L "$TMP/lib" -lmodel ||
  { echo "FAIL: building examples/aot/main.c"; exit 1; }
/usr/bin/python3 - "$TMP" <<'PY' || { echo "FAIL: writing the input"; exit 1; }
import sys, numpy as np, onnx
from onnx import numpy_helper
tmp = sys.argv[1]
x = np.random.default_rng(7).standard_normal((2, 3, 768)).astype(np.float32)
x.tofile(f"{tmp}/x.raw")
import os
os.makedirs(f"{tmp}/in", exist_ok=True)
with open(f"{tmp}/in/input_0.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
PY
LD_LIBRARY_PATH="$TMP/lib" "$TMP/main" "$TMP/x.raw" 2 3 768 >"$TMP/y.raw" ||
  { echo "FAIL: running the AOT program"; exit 1; }
"$R/tools/anvil-run" "$MODEL" --input-dir "$TMP/in" --out "$TMP/out" --iters 1 --warmup 0 \
  >/dev/null || { echo "FAIL: anvil-run"; exit 1; }
/usr/bin/python3 - "$TMP" <<'PY'
import sys, numpy as np, onnx
from onnx import numpy_helper
tmp = sys.argv[1]
want = numpy_helper.to_array(onnx.load_tensor(f"{tmp}/out/output_0.pb")).reshape(-1)
got = np.fromfile(f"{tmp}/y.raw", dtype=np.float32)
if got.shape != want.shape:
    sys.exit(f"FAIL: {got.shape} outputs, want {want.shape}")
err = float(np.max(np.abs(got - want)))
if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
    sys.exit(f"FAIL: max abs difference {err}")
print(f"AOT output matches anvil-run: {got.size} values, max abs difference {err:.3g}")
PY
