#!/usr/bin/env bash
# anvil-compile end to end, as a user would: a model compiled to libmodel.so, the C program of
# examples/aot built against it with the system C compiler, run on an input, and its output
# compared with anvil-run's on the same input (float32 tolerance: the library's loops are
# vectorized, anvil-run's kernels are too, in a different order). The LayerNorm+GELU chain
# (loops only: a self-contained library); the CNN (Conv and pooling call Anvil's kernels:
# libanvil_aot_host.so is copied next to libmodel.so, which finds it by rpath); the transformer
# (gemm calls: the kernel host's packed SGEMM) and the MLP with --no-kernel-host (self-contained,
# a plain gemm loop nest). Then --no-kernel-host on the CNN must be a one-line error naming the
# ops.
set -uo pipefail
R="$TEST_SRCDIR/anvil"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"

check_model() {  # name dims... (FLAGS: more anvil-compile flags)
  local name=$1
  shift
  local dims=("$@") out="$TMP/$name"
  local model="$R/testdata/models/$name.onnx"
  "$R/tools/anvil-compile" "$model" -o "$out" --shared ${FLAGS:-} ||
    { echo "FAIL: anvil-compile $name"; exit 1; }
  for f in model.cc model.h model.weights libmodel.so; do
    [[ -s "$out/$f" ]] || { echo "FAIL: $name: $f missing"; exit 1; }
  done
  cc -I "$out" -o "$out/main" "$R/examples/aot/main.c" -L "$out" -lmodel ||
    { echo "FAIL: building examples/aot/main.c for $name"; exit 1; }
  /usr/bin/python3 - "$out" "${dims[@]}" <<'PY' || { echo "FAIL: writing the input"; exit 1; }
import os, sys, numpy as np
from onnx import numpy_helper
out, dims = sys.argv[1], [int(d) for d in sys.argv[2:]]
x = np.random.default_rng(7).standard_normal(dims).astype(np.float32)
x.tofile(f"{out}/x.raw")
os.makedirs(f"{out}/in", exist_ok=True)
with open(f"{out}/in/input_0.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, "x").SerializeToString())
PY
  # No LD_LIBRARY_PATH for the kernel host: libmodel.so finds it next to itself.
  LD_LIBRARY_PATH="$out" "$out/main" "$out/x.raw" "${dims[@]}" >"$out/y.raw" ||
    { echo "FAIL: running the AOT program on $name"; exit 1; }
  "$R/tools/anvil-run" "$model" --input-dir "$out/in" --out "$out/ref" --iters 1 --warmup 0 \
    >/dev/null || { echo "FAIL: anvil-run $name"; exit 1; }
  /usr/bin/python3 - "$out" "$name" <<'PY' || exit 1
import sys, numpy as np, onnx
from onnx import numpy_helper
out, name = sys.argv[1], sys.argv[2]
want = numpy_helper.to_array(onnx.load_tensor(f"{out}/ref/output_0.pb")).reshape(-1)
got = np.fromfile(f"{out}/y.raw", dtype=np.float32)
if got.shape != want.shape:
    sys.exit(f"FAIL: {name}: {got.shape} outputs, want {want.shape}")
err = float(np.max(np.abs(got - want)))
if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
    sys.exit(f"FAIL: {name}: max abs difference {err}")
print(f"{name}: AOT output matches anvil-run: {got.size} values, max abs difference {err:.3g}")
PY
}

# expect_error WHAT PATTERN CMD...: CMD must fail with stderr matching PATTERN (grep -E).
expect_error() {
  local what=$1 pattern=$2 err="$TMP/expect_error.err"
  shift 2
  if "$@" >/dev/null 2>"$err"; then
    echo "FAIL: $what: the run succeeded"
    exit 1
  fi
  grep -Eq "$pattern" "$err" || { echo "FAIL: $what: $(cat "$err")"; exit 1; }
  echo "$what: $(tail -1 "$err")"
}

check_model lngelu 2 3 768
[[ ! -e "$TMP/lngelu/libanvil_aot_host.so" ]] ||
  { echo "FAIL: lngelu needs no kernel host, but one was copied"; exit 1; }
check_model cnn 2 3 32 32
[[ -s "$TMP/cnn/libanvil_aot_host.so" ]] || { echo "FAIL: cnn: libanvil_aot_host.so missing"; exit 1; }
check_model transformer 2 32 64
[[ -s "$TMP/transformer/libanvil_aot_host.so" ]] ||
  { echo "FAIL: transformer: its gemm calls should link the kernel host"; exit 1; }
FLAGS=--no-kernel-host check_model mlp 4 256
[[ ! -e "$TMP/mlp/libanvil_aot_host.so" ]] ||
  { echo "FAIL: mlp --no-kernel-host: a kernel host was copied"; exit 1; }

# An output whose byte size overflows, or too large to allocate, is a one-line error from
# anvil_model_run (no crash): y[N, N, N], an outer product of x[N] with itself twice, takes 2^68
# bytes at N = 2^22 (over 64 bits) and 2 TiB at N = 2^13 (which malloc refuses).
/usr/bin/python3 - "$TMP/outer.onnx" <<'PY' || { echo "FAIL: writing the outer-product model"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
axes0 = h.make_tensor("a0", T.INT64, [2], [1, 2])
axes1 = h.make_tensor("a1", T.INT64, [2], [0, 2])
axes2 = h.make_tensor("a2", T.INT64, [2], [0, 1])
nodes = [h.make_node("Unsqueeze", ["x", "a0"], ["u0"]), h.make_node("Unsqueeze", ["x", "a1"], ["u1"]),
         h.make_node("Unsqueeze", ["x", "a2"], ["u2"]), h.make_node("Mul", ["u0", "u1"], ["m"]),
         h.make_node("Mul", ["m", "u2"], ["y"])]
g = h.make_graph(nodes, "outer", [h.make_tensor_value_info("x", T.FLOAT, ["N"])],
                 [h.make_tensor_value_info("y", T.FLOAT, ["N", "N", "N"])], [axes0, axes1, axes2])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), sys.argv[1])
PY
"$R/tools/anvil-compile" "$TMP/outer.onnx" -o "$TMP/outer" --shared >/dev/null ||
  { echo "FAIL: anvil-compile outer"; exit 1; }
cc -I "$TMP/outer" -o "$TMP/outer/main" "$R/examples/aot/main.c" -L "$TMP/outer" -lmodel ||
  { echo "FAIL: building examples/aot/main.c for outer"; exit 1; }
# 2 TiB is refused only where the kernel does not overcommit without limit (mode 1).
sizes=(4194304)
if [[ $(cat /proc/sys/vm/overcommit_memory 2>/dev/null) != 1 ]]; then
  sizes+=(8192)
else
  echo "outer product of 8192: not run (vm.overcommit_memory = 1: malloc would not refuse 2 TiB)"
fi
for n in "${sizes[@]}"; do
  head -c $((4 * n)) /dev/zero >"$TMP/outer/x.raw"
  LD_LIBRARY_PATH="$TMP/outer" expect_error "outer product of $n" \
    "^run failed: output y: cannot allocate" "$TMP/outer/main" "$TMP/outer/x.raw" $n
done

# A workspace buffer whose byte size overflows 64 bits (an [N, N, N] intermediate that a
# MaxPool kernel call materializes, summed to a scalar, at N = 2^21) is a one-line error from
# the AOT library and from the JIT, not an undersized buffer; at N = 4 both compute.
/usr/bin/python3 - "$TMP/cube.onnx" <<'PY' || { echo "FAIL: writing the cube model"; exit 1; }
import sys, onnx
from onnx import helper as h, TensorProto as T
axes = [h.make_tensor(f"a{i}", T.INT64, [2], a) for i, a in enumerate([[1, 2], [0, 2], [0, 1]])]
nodes = [h.make_node("Unsqueeze", ["x", f"a{i}"], [f"u{i}"]) for i in range(3)] + [
    h.make_node("Mul", ["u0", "u1"], ["m"]), h.make_node("Mul", ["m", "u2"], ["p"]),
    h.make_node("MaxPool", ["p"], ["q"], kernel_shape=[1]),
    h.make_node("ReduceSum", ["q"], ["y"], keepdims=0)]
g = h.make_graph(nodes, "cube", [h.make_tensor_value_info("x", T.FLOAT, ["N"])],
                 [h.make_tensor_value_info("y", T.FLOAT, None)], axes)
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), sys.argv[1])
PY
"$R/tools/anvil-compile" "$TMP/cube.onnx" -o "$TMP/cube" --shared >/dev/null 2>&1 ||
  { echo "FAIL: anvil-compile cube"; exit 1; }
cc -I "$TMP/cube" -o "$TMP/cube/main" "$R/examples/aot/main.c" -L "$TMP/cube" -lmodel ||
  { echo "FAIL: building examples/aot/main.c for cube"; exit 1; }
printf '\x00\x00\x80\x3f%.0s' 1 2 3 4 >"$TMP/cube/x4.raw"  # four 1.0f
LD_LIBRARY_PATH="$TMP/cube" "$TMP/cube/main" "$TMP/cube/x4.raw" 4 >"$TMP/cube/y4.raw" ||
  { echo "FAIL: cube at N = 4 did not run"; exit 1; }
/usr/bin/python3 -c "import numpy, sys; y = numpy.fromfile(sys.argv[1], numpy.float32); \
  sys.exit(0 if y.tolist() == [64.0] else f'FAIL: cube at N = 4 gave {y}')" "$TMP/cube/y4.raw" || exit 1
head -c $((4 * 2097152)) /dev/zero >"$TMP/cube/x.raw"
LD_LIBRARY_PATH="$TMP/cube" expect_error "cube at N = 2^21, AOT" \
  "^run failed: the workspace cannot be planned" "$TMP/cube/main" "$TMP/cube/x.raw" 2097152
ANVIL_JIT_CACHE="$TMP/jit" expect_error "cube at N = 2^21, JIT" "byte size overflows 64 bits" \
  "$R/tools/anvil-run" "$TMP/cube.onnx" --backend=compiled --shape x=2097152 --iters 1 --warmup 0

if "$R/tools/anvil-compile" "$R/testdata/models/cnn.onnx" -o "$TMP/refused" --no-kernel-host \
    2>"$TMP/refused.err"; then
  echo "FAIL: --no-kernel-host compiled the CNN"
  exit 1
fi
grep -q "call runtime kernels (.*FusedConv.*MaxPool" "$TMP/refused.err" ||
  { echo "FAIL: --no-kernel-host error: $(cat "$TMP/refused.err")"; exit 1; }
echo "--no-kernel-host: $(cat "$TMP/refused.err")"

# A sequence between two nodes: the C API and its kernel host carry tensors only, so the library
# is refused with a one-line error naming the node (the JIT runs such models).
/usr/bin/python3 - "$TMP/seq.onnx" <<'PY' || { echo "FAIL: writing the sequence model"; exit 1; }
import sys
from onnx import TensorProto, helper, save
g = helper.make_graph(
    [helper.make_node("SequenceConstruct", ["x", "x"], ["s"], name="pair"),
     helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)],
    "seq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), sys.argv[1])
PY
if "$R/tools/anvil-compile" "$TMP/seq.onnx" -o "$TMP/seq" --shared 2>"$TMP/seq.err"; then
  echo "FAIL: anvil-compile compiled a model with a sequence"
  exit 1
fi
grep -q "node 'pair' (SequenceConstruct) takes or makes a sequence or optional" "$TMP/seq.err" ||
  { echo "FAIL: sequence model error: $(cat "$TMP/seq.err")"; exit 1; }
echo "sequence model: $(cat "$TMP/seq.err")"

# A JIT cache prepared by anvil-compile --jit-cache-dir serves anvil-run's compiled backend
# read-only: at load the library is found in the shared directory and nothing is compiled. (The
# cost check before the first run may still choose kernel calls for some nodes; that variant
# compiles into the private cache.)
"$R/tools/anvil-compile" "$R/testdata/models/mlp.onnx" --jit-cache-dir="$TMP/prepared" \
  2>"$TMP/prepare.err" || { echo "FAIL: --jit-cache-dir: $(cat "$TMP/prepare.err")"; exit 1; }
grep -q "JIT library $TMP/prepared/.*\.so (compiled in" "$TMP/prepare.err" ||
  { echo "FAIL: --jit-cache-dir said: $(cat "$TMP/prepare.err")"; exit 1; }
chmod -R a-w "$TMP/prepared"
ANVIL_JIT_CACHE="$TMP/private" ANVIL_JIT_CACHE_SHARED="$TMP/missing:$TMP/prepared" \
  "$R/tools/anvil-run" "$R/testdata/models/mlp.onnx" --backend=compiled --shape x=4,256 \
  --iters 1 --warmup 0 >/dev/null 2>"$TMP/shared.err" ||
  { echo "FAIL: anvil-run on the shared cache: $(cat "$TMP/shared.err")"; exit 1; }
chmod -R u+w "$TMP/prepared"
grep -q "compiled: .*, cached, .*($TMP/prepared/" "$TMP/shared.err" ||
  { echo "FAIL: the prepared library was not loaded: $(cat "$TMP/shared.err")"; exit 1; }
echo "shared JIT cache: $(grep 'compiled:' "$TMP/shared.err")"
