#!/usr/bin/env bash
# Quick start, command 2: install what is missing, run every test, build the consumer example,
# fuzz the parsers and importers with libFuzzer (300,000 inputs each) and the model fuzzer
# (100,000 mutated models), and end with one line
# "N passed, N failed"
# (test cases from each test's XML report; a test target that fails to build or crashes without
# a report counts as one failure). Exits non-zero if anything failed.
#   scripts/test.sh              the above
#   scripts/test.sh --sanitize   the whole suite under --config=asan, then --config=ubsan
#   scripts/test.sh --no-fuzz    without the libFuzzer runs (the seeds are still replayed)
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

sanitize=0
fuzz=1
for arg in "$@"; do
  case $arg in
    --sanitize) sanitize=1 ;;
    --no-fuzz) fuzz=0 ;;
    *) echo "usage: scripts/test.sh [--sanitize] [--no-fuzz]" >&2; exit 2 ;;
  esac
done

log=$(mktemp)
consumer_failed=0
if ((sanitize)); then
  # Each config has its own output tree (platform_suffix); testlogs are read per config below.
  for config in asan ubsan; do
    echo "== bazel test --config=$config //..."
    bazel test --config=$config --test_summary=short //... 2>&1 | sed "s|^//|$config://|" | tee -a "$log"
  done
  bazel_status=${PIPESTATUS[0]}
else
  bazel test --test_summary=short //... 2>&1 | tee "$log"
  bazel_status=${PIPESTATUS[0]}

  # The consumer workspace uses Anvil as another project would: one library alone
  # (@anvil//graph:ir), and a model compiled by the anvil_cc_model rule, used from C.
  echo "== examples/consumer: @anvil//graph:ir alone, and a model through anvil_cc_model"
  if ! (cd examples/consumer && bazel build //... && bazel-bin/consumer && bazel-bin/model_app); then
    consumer_failed=1
  fi

  if ((fuzz)); then
    # A fixed number of inputs rather than a time: a slow or loaded CI machine fuzzes as much.
    # The model fuzzer runs ~2,000 inputs/s against ~20,000-100,000 for the parsers.
    echo "== scripts/fuzz.sh --runs=300000: libFuzzer, 300,000 inputs per parser/importer target"
    scripts/fuzz.sh --runs=300000 //fuzz/... -//fuzz:model_fuzzer_test 2>&1 | sed "s|^//|fuzz://|" |
      tee -a "$log"
    echo "== scripts/fuzz.sh --runs=100000 //fuzz:model_fuzzer_test: 100,000 mutated models"
    scripts/fuzz.sh --runs=100000 //fuzz:model_fuzzer_test 2>&1 | sed "s|^//|fuzz://|" |
      tee -a "$log"
  fi
fi

/usr/bin/python3 - "$log" "$consumer_failed" "$bazel_status" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET

log, consumer_failed, bazel_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
passed = failed = 0
targets = {}
for line in open(log, errors="replace"):
    m = re.match(r"^((?:asan:|ubsan:|fuzz:)?//\S+)\s+(?:\(cached\)\s+)?"
                 r"(PASSED|FAILED TO BUILD|FAILED|NO STATUS|TIMEOUT|FLAKY)\b", line.strip())
    if m:
        targets[m.group(1)] = m.group(2)
out = os.path.realpath("bazel-out")
fuzz_base = os.environ.get("ANVIL_FUZZ_OUTPUT_BASE", os.path.expanduser("~/.cache/anvil-fuzz"))
testlogs_of = {
    "": os.path.realpath("bazel-testlogs"),
    "asan": os.path.join(out, "k8-fastbuildasan", "testlogs"),
    "ubsan": os.path.join(out, "k8-fastbuildubsan", "testlogs"),
    "fuzz": os.path.join(fuzz_base, "execroot/anvil/bazel-out/k8-fastbuildfuzz/testlogs"),
}
for target, status in sorted(targets.items()):
    config, _, label = target.rpartition("//")
    pkg, name = label.split(":")
    xml = os.path.join(testlogs_of[config.rstrip(":")], pkg, name, "test.xml")
    cases_ok = cases_bad = 0
    if status in ("PASSED", "FAILED", "FLAKY") and os.path.exists(xml):
        for case in ET.parse(xml).iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                cases_bad += 1
            else:
                cases_ok += 1
    if status == "PASSED" and cases_ok + cases_bad == 0:
        cases_ok = 1  # a non-gtest test: one check
    if status != "PASSED" and cases_bad == 0:
        cases_bad = 1  # failed to build, timed out, crashed before reporting
    passed += cases_ok
    failed += cases_bad
if consumer_failed:
    failed += 1
elif not any(t.startswith(("asan:", "ubsan:")) for t in targets):
    passed += 1
if not targets and bazel_status != 0:
    failed += 1  # bazel itself failed before running anything
print(f"{len(targets)} test targets, consumer example {'FAILED' if consumer_failed else 'built or not run'}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
