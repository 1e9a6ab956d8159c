#!/usr/bin/env bash
# End-to-end checks of anvil-opt's command-line contract (see tools/anvil_opt.cc).
set -uo pipefail

OPT="$TEST_SRCDIR/anvil/tools/anvil-opt"
DATA="$TEST_SRCDIR/anvil/tools/testdata"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_error NAME EXIT_CODE SUBSTRING -- ARGS...: one line on stderr containing SUBSTRING.
expect_error() {
  local name=$1 code=$2 substring=$3
  shift 4
  "$OPT" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [[ $rc -eq $code ]] || fail "$name: exit $rc, want $code"
  [[ $(wc -l <"$TMP/err") -eq 1 ]] || fail "$name: stderr is not one line: $(cat "$TMP/err")"
  grep -qF -- "$substring" "$TMP/err" || fail "$name: stderr lacks '$substring': $(cat "$TMP/err")"
}

# No arguments: the default model after the default pipeline, and a timing table.
"$OPT" >"$TMP/out" 2>"$TMP/err" || fail "no-args run exited $?"
# Its two attention Einsums become MatMuls.
grep -q "Einsum" "$TMP/out" && fail "default model output still has an Einsum: $(cat "$TMP/out")"
[[ $(grep -c " = MatMul " "$TMP/out") -ge 2 ]] || fail "default model output lacks MatMuls"
grep -q "Pass execution timing report" "$TMP/err" || fail "no timing table: $(cat "$TMP/err")"
for pass in shape-inference einsum-decompose constprop cse dce; do
  grep -q "^ *$pass " "$TMP/err" || fail "timing table lacks $pass"
done

# A text model through cse,dce: the duplicate Relu and the dead Neg disappear.
"$OPT" "$DATA/small.onnxtxt" --passes=cse,dce --stats >"$TMP/out" 2>"$TMP/err" ||
  fail "cse,dce run exited $?: $(cat "$TMP/err")"
[[ $(grep -c "Relu" "$TMP/out") -eq 1 ]] || fail "cse kept both Relus: $(cat "$TMP/out")"
grep -q "Neg" "$TMP/out" && fail "dce kept the dead Neg"
grep -q "nodes-erased" "$TMP/err" || fail "--stats printed no nodes-erased: $(cat "$TMP/err")"

# Binary output, read back; the text round trip is stable.
"$OPT" "$DATA/small.onnxtxt" --passes=dce -o "$TMP/out.onnx" 2>"$TMP/err" ||
  fail "writing .onnx exited $?: $(cat "$TMP/err")"
[[ -s "$TMP/out.onnx" ]] || fail "no binary output written"
"$OPT" "$TMP/out.onnx" -o "$TMP/again.onnxtxt" || fail "reading back the .onnx failed"
"$OPT" "$TMP/again.onnxtxt" >"$TMP/again_printed" || fail "reading back the .onnxtxt failed"
"$OPT" "$TMP/out.onnx" >"$TMP/first_printed" || fail "printing the .onnx failed"
cmp -s "$TMP/again_printed" "$TMP/first_printed" || fail "binary -> text -> print differs"

# shape-inference writes symbolic dims into a binary model as dim_param expressions.
"$OPT" "$DATA/symbolic_conv.onnxtxt" --passes=shape-inference -o "$TMP/shapes.onnx" 2>"$TMP/err" ||
  fail "shape-inference -o .onnx exited $?: $(cat "$TMP/err")"
"$OPT" "$TMP/shapes.onnx" >"$TMP/shapes_printed" || fail "reading back shapes.onnx failed"
grep -qF "float[N,8,floor((H + 1) / 4),floor((W + 1) / 4)] y" "$TMP/shapes_printed" ||
  fail "inferred output shape missing: $(cat "$TMP/shapes_printed")"
grep -qF "float[N,8,floor((H - 1) / 2) + 1,floor((W - 1) / 2) + 1] c" "$TMP/shapes_printed" ||
  fail "inferred intermediate shape missing from value_info"

# --print-ir-after
"$OPT" "$DATA/small.onnxtxt" --passes=cse,dce --print-ir-after=dce >/dev/null 2>"$TMP/err"
grep -q "IR after dce" "$TMP/err" || fail "--print-ir-after=dce printed nothing"
grep -q "IR after cse" "$TMP/err" && fail "--print-ir-after=dce also printed cse"
# A Tensor IR pass: the module after it, from inside lower-to-tir.
"$OPT" "$DATA/small.onnxtxt" --passes=shape-inference,lower-to-tir --print-ir-after=tile-rows \
  >/dev/null 2>"$TMP/err" || fail "--print-ir-after=tile-rows: $(cat "$TMP/err")"
grep -A1 "IR after tile-rows" "$TMP/err" | grep -q "^module {" ||
  fail "--print-ir-after=tile-rows printed no module: $(head -3 "$TMP/err")"
grep -q "IR after fuse" "$TMP/err" && fail "--print-ir-after=tile-rows also printed fuse"

# An Einsum einsum-decompose keeps (no int8 MatMul) is a remark in --stats, not an error.
"$OPT" "$DATA/int8_einsum.onnxtxt" --passes=shape-inference,einsum-decompose --stats \
  >"$TMP/out" 2>"$TMP/err" || fail "int8 einsum: exited $?: $(cat "$TMP/err")"
grep -q "einsum-decompose  einsums-kept" "$TMP/err" || fail "int8 einsum: no einsums-kept: $(cat "$TMP/err")"
grep -q "einsum-decompose: node #0 (Einsum, output 'y'): kept: MatMul does not accept int8 at opset 17" \
  "$TMP/err" || fail "int8 einsum: no remark: $(cat "$TMP/err")"

# --list-passes and --help
# (Into a file first: grep -q leaving early would break the pipe of a long listing, which
# pipefail reports.)
"$OPT" --list-passes >"$TMP/passes" || fail "--list-passes exited $?"
grep -q "topo-sort" "$TMP/passes" || fail "--list-passes lacks topo-sort"
grep -q "^  fuse-activations  " "$TMP/passes" || fail "--list-passes lacks fuse-activations"
# One pass per line: a pass after another's options starts its own line.
grep -q "^  cse  " "$TMP/passes" || fail "--list-passes runs a pass into the options before"
"$OPT" --help >"$TMP/help" || fail "--help exited $?"
grep -q "usage: anvil-opt" "$TMP/help" || fail "--help lacks usage"
tr -d '\n' <"$TMP/help" | grep -q "shape-inference,einsum-decompose,fuse-matmul-transpose{shared-only=true},constprop,cse,dce" ||
  fail "--help does not name the default pipeline"

# Bad input: one clear line, non-zero exit, never a crash.
head -c 300 /dev/urandom >"$TMP/corrupt.onnx"
printf '\x0a\xff\xff\xff\xff\x0f garbage' >"$TMP/corrupt2.onnx"
expect_error missing-file 1 "cannot open" -- "$TMP/nope.onnx"
expect_error corrupt-protobuf 1 "corrupt2.onnx" -- "$TMP/corrupt2.onnx"
expect_error unknown-domain 1 "op domain 'com.example' is not in the model's opset imports" -- \
  "$DATA/unknown_domain.onnxtxt"
expect_error unknown-pass 1 "unknown pass 'bogus'; available passes:" -- \
  "$DATA/small.onnxtxt" --passes=dce,bogus
expect_error bad-pipeline 1 "column" -- "$DATA/small.onnxtxt" "--passes=dce{"
expect_error unknown-option 1 "dce" -- "$DATA/small.onnxtxt" "--passes=dce{nope=1}"
expect_error bad-extension 1 "unknown model file extension" -- "$DATA/small.onnxtxt" -o "$TMP/x.pb"
expect_error bad-flag 2 "unknown option '--frobnicate'" -- --frobnicate
printf 'this is not onnx text {' >"$TMP/bad.onnxtxt"
expect_error bad-text 1 "bad.onnxtxt" -- "$TMP/bad.onnxtxt"
# A random-bytes file must not crash either (any one-line error is fine).
"$OPT" "$TMP/corrupt.onnx" >/dev/null 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "random bytes: exit $rc, want 1: $(cat "$TMP/err")"

# --emit=tir prints the lowered module (it parses back: lowering_text_test checks that), and
# --emit=cc the C++ the JIT compiles.
"$OPT" "$DATA/small.onnxtxt" --passes=shape-inference,lower-to-tir --emit=tir >"$TMP/m.tir" \
  2>"$TMP/err" || fail "--emit=tir: $(cat "$TMP/err")"
grep -q "^module {" "$TMP/m.tir" && grep -q "func main(" "$TMP/m.tir" ||
  fail "--emit=tir printed no module: $(head -3 "$TMP/m.tir")"
"$OPT" "$DATA/small.onnxtxt" --emit=cc -o "$TMP/m.cc" 2>"$TMP/err" || fail "--emit=cc: $(cat "$TMP/err")"
grep -q 'extern "C" int32_t anvil_entry' "$TMP/m.cc" || fail "--emit=cc wrote no entry function"
expect_error bad-emit 2 "expected onnx, tir, cc or shapes" -- "$DATA/small.onnxtxt" --emit=llvm

# --input-ranges bounds a graph input's symbolic dim; --emit=shapes prints every value's shape
# with its dims' ranges: NonZero of [N, 8] with N <= 16 has at most 128 rows, and what is
# gathered with them too; -o keeps the ranges in the model's metadata.
cat >"$TMP/nz.onnxtxt" <<'MODEL'
<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 8] x, float[8, 4] w) => (y) {
  nz = NonZero (x)
  zero = Constant <value = int64 {0}> ()
  idx = Gather <axis = 0> (nz, zero)
  rows = Gather <axis = 0> (x, idx)
  y = MatMul (rows, w)
}
MODEL
"$OPT" "$TMP/nz.onnxtxt" --input-ranges=N=1:16 --emit=shapes >"$TMP/shapes" 2>"$TMP/err" ||
  fail "--emit=shapes: $(cat "$TMP/err")"
grep -q "^  x: float\[N,8\]  N in \[1, 16\]$" "$TMP/shapes" &&
  grep -q "^  y: float\[NonZero_nz_n,4\]  NonZero_nz_n in \[0, 128\]$" "$TMP/shapes" &&
  grep -q "^dims: 6 literal, 5 bounded, 0 unbounded, 0 unknown" "$TMP/shapes" ||
  fail "--emit=shapes: $(cat "$TMP/shapes")"
"$OPT" "$TMP/nz.onnxtxt" --input-ranges=N=1:16 --passes=shape-inference -o "$TMP/nz_out.onnxtxt" \
  2>"$TMP/err" || fail "--input-ranges -o: $(cat "$TMP/err")"
grep -q '"anvil.dim_ranges" : "N=1:16,NonZero_nz_n=0:128"' "$TMP/nz_out.onnxtxt" ||
  fail "ranges not in the metadata: $(head -5 "$TMP/nz_out.onnxtxt")"
expect_error range-of-no-input 1 "--input ranges: \`M\` is not a symbolic dim of a graph input (they are: N)" -- \
  "$TMP/nz.onnxtxt" --input-ranges=M=1:4 --emit=shapes
expect_error bad-range 2 "--input-ranges: dim ranges 'N=4:1'" -- "$TMP/nz.onnxtxt" --input-ranges=N=4:1

if ((failures)); then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all anvil-opt checks passed"
