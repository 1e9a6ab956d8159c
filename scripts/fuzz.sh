#!/usr/bin/env bash
# Fuzzes the targets of fuzz/ with libFuzzer (clang-15, ASan) for SECONDS each (default 30),
# from the seed corpus and fuzz/regressions/. Its own Bazel output base, so the ordinary build
# (gcc) stays cached. A crash fails the target's test and leaves its input in
# ~/.cache/anvil-fuzz/execroot/anvil/bazel-out/k8-fastbuildfuzz/testlogs/fuzz/<target>_test/
# test.outputs/ (see fuzz/README.md).
#   scripts/fuzz.sh [SECONDS | --runs=N] [TARGET_PATTERN...]     default patterns: //fuzz/...
#   e.g. scripts/fuzz.sh 600 //fuzz:model_fuzzer_test
# --runs=N fuzzes N inputs per target instead of a time, the same budget on a slow or loaded
# machine (what scripts/test.sh runs).
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-30}
shift || true
patterns=("$@")
((${#patterns[@]})) || patterns=(//fuzz/...)
scripts/setup.sh || exit 1
output_base="${ANVIL_FUZZ_OUTPUT_BASE:-$HOME/.cache/anvil-fuzz}"
if [[ $budget == --runs=* ]]; then
  runs=${budget#--runs=}
  env=(--test_env=ANVIL_FUZZ_RUNS="$runs" --test_env=ANVIL_FUZZ_SECONDS=)
  timeout=900
else
  env=(--test_env=ANVIL_FUZZ_SECONDS="$budget")
  timeout=$((budget * 2 + 120))
fi
exec bazel --output_base="$output_base" test --config=fuzz "${env[@]}" \
  --test_timeout="$timeout" --test_output=errors --test_summary=short \
  -- "${patterns[@]}"
