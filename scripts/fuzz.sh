#!/usr/bin/env bash
# Fuzzes the targets of fuzz/ with libFuzzer (clang-15, ASan) for SECONDS each (default 30),
# from the seed corpus and fuzz/regressions/. Its own Bazel output base, so the ordinary build
# (gcc) stays cached. A crash fails the target's test and leaves its input in
# ~/.cache/anvil-fuzz/execroot/anvil/bazel-out/k8-fastbuildfuzz/testlogs/fuzz/<target>_test/
# test.outputs/ (see fuzz/README.md).
#   scripts/fuzz.sh [SECONDS] [TARGET_PATTERN...]     default patterns: //fuzz/...
#   e.g. scripts/fuzz.sh 600 //fuzz:model_fuzzer_test
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
patterns=("$@")
((${#patterns[@]})) || patterns=(//fuzz/...)
scripts/setup.sh || exit 1
output_base="${ANVIL_FUZZ_OUTPUT_BASE:-$HOME/.cache/anvil-fuzz}"
exec bazel --output_base="$output_base" test --config=fuzz --test_env=ANVIL_FUZZ_SECONDS="$seconds" \
  --test_timeout=$((seconds * 2 + 120)) --test_output=errors --test_summary=short \
  -- "${patterns[@]}"
