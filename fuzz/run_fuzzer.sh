#!/usr/bin/env bash
# run_fuzzer.sh BINARY TARGET SEED_DIR...: the test of one fuzz target (see BUILD).
# SEED_DIR is a directory of the workspace, or "onnx-node-models": the model.onnx of every ONNX
# backend node test (Debian's libonnx-testdata). Seeds and fuzz/regressions/TARGET are flattened
# into one directory (libFuzzer reads corpus directories flat), then:
#  - ANVIL_FUZZ_SECONDS unset (ordinary build): each input runs once (replay_main.cc);
#  - ANVIL_FUZZ_SECONDS=S (--config=fuzz): libFuzzer mutates for S seconds with a fixed seed,
#    5 s per input and 2 GiB of RSS at most; a crash leaves its input in the test's outputs
#    (bazel-testlogs/fuzz/TARGET_test/test.outputs/) to be added to fuzz/regressions/TARGET.
#  - ANVIL_FUZZ_RUNS=N instead: N executions with the fixed seed, whatever the machine's speed
#    (what scripts/test.sh runs). Not bit-identical between runs: absl's hash seed changes per
#    process, so coverage and with it the grown corpus differ slightly, but the budget does not
#    shrink on a slow or loaded CI machine as a timed run's does.
set -euo pipefail
binary=$1
target=$2
shift 2
root="${TEST_SRCDIR:-.}/anvil"
work="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
rm -rf "$work"
mkdir -p "$work"
n=0
add() {  # add FILE: a symlink with a unique flat name
  n=$((n + 1))
  ln -s "$(realpath "$1")" "$work/seed-$n"
}
for seeds in "$@" "fuzz/regressions/$target"; do
  if [[ $seeds == onnx-node-models ]]; then
    while IFS= read -r f; do add "$f"; done < <(find /usr/include/onnx/backend/test/data/node \
      -name model.onnx | sort)
  elif [[ -d "$root/$seeds" ]]; then
    while IFS= read -r f; do add "$f"; done < <(find -L "$root/$seeds" -type f | sort)
  fi
done
echo "$target: $n seed inputs"
if [[ -z "${ANVIL_FUZZ_SECONDS:-}" && -z "${ANVIL_FUZZ_RUNS:-}" ]]; then
  exec "$binary" "$work"
fi
if [[ -n "${ANVIL_FUZZ_RUNS:-}" ]]; then
  budget=(-runs="$ANVIL_FUZZ_RUNS")
else
  budget=(-max_total_time="$ANVIL_FUZZ_SECONDS")
fi
artifacts="${TEST_UNDECLARED_OUTPUTS_DIR:-$work}/"
# The corpus grows in its own directory; the seeds stay read-only.
grown="${TEST_TMPDIR:-$work}/grown"
mkdir -p "$grown"
exec "$binary" -seed=1 "${budget[@]}" -timeout=5 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts" "$grown" "$work"
