#!/usr/bin/env bash
# `anvil-run --generate` on the 2-layer decoder of testdata/generate_decoder.py (ONNX Runtime's
# model builder's graph: MatMulNBits, GroupQueryAttention, the skip and RMS norms): the 16 greedy
# tokens ONNX Runtime 1.30 generates for the same prompt (tools/ort_generate.js
# decoder_2layer.onnx --prompt-len 8 --generate 16, shared and grow modes alike), with the cache
# bound as past and present, fed back each step, and at 2 threads.
set -uo pipefail

RUN="$TEST_SRCDIR/anvil/tools/anvil-run"
MODEL="$TEST_SRCDIR/anvil/testdata/decoder/decoder_2layer.onnx"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

readonly ORT_TOKENS="461,1200,64,64,64,64,126,126,126,126,126,126,126,126,3892,3892"

for args in "" "--grow-cache" "--threads 2" "--rounds 2"; do
  # shellcheck disable=SC2086
  "$RUN" "$MODEL" --generate 16 --prompt-len 8 $args >"$TMP/out" 2>"$TMP/err" ||
    { fail "--generate $args exited $?: $(cat "$TMP/err")"; continue; }
  grep -qF "\"tokens\": [$ORT_TOKENS]" "$TMP/out" ||
    fail "--generate $args: tokens differ from ONNX Runtime's [$ORT_TOKENS]: $(cat "$TMP/out")"
  for field in ttft_ms decode_tokens_per_s peak_rss_mb; do
    grep -q "\"$field\": [0-9]" "$TMP/out" || fail "--generate $args: no $field: $(cat "$TMP/out")"
  done
done
grep -q '"mode": "shared"' "$TMP/out" || fail "the cache is not shared by default: $(cat "$TMP/out")"

# --memory with --generate: where the bytes are after generating (the MatMulNBits weights are the
# kernels' packed copies; the embedding, read by Gather, stays an initializer).
"$RUN" "$MODEL" --generate 4 --prompt-len 8 --memory >"$TMP/out" 2>"$TMP/err" ||
  fail "--generate --memory exited $?: $(cat "$TMP/err")"
grep -q '"kernel_copy_bytes": [1-9]' "$TMP/out" || fail "--memory: no kernel copies: $(cat "$TMP/out")"
grep -q '"in_memory_weight_bytes": [1-9]' "$TMP/out" || fail "--memory: no weights: $(cat "$TMP/out")"
grep -q "anvil-run: memory (MB):" "$TMP/err" || fail "--memory printed no breakdown: $(cat "$TMP/err")"

# A model that is not a decoder is refused, naming what is missing.
"$RUN" "$TEST_SRCDIR/anvil/tools/testdata/small.onnxtxt" --generate 4 >"$TMP/out" 2>"$TMP/err"
rc=$?
[[ $rc -eq 1 ]] || fail "a non-decoder: exit $rc, want 1"
grep -qF "needs a decoder with inputs input_ids, attention_mask" "$TMP/err" ||
  fail "a non-decoder: $(cat "$TMP/err")"

if ((failures)); then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
