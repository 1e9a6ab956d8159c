#!/usr/bin/env bash
# Quick start, command 2: install what is missing, run every test, build the consumer example,
# and end with one line "N passed, N failed" (test cases from each test's XML report; a test
# target that fails to build or crashes without a report counts as one failure). Exits non-zero
# if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

log=$(mktemp)
bazel test --test_summary=short //... 2>&1 | tee "$log"
bazel_status=${PIPESTATUS[0]}

# The consumer workspace imports one Anvil library alone, as another project would.
consumer_failed=0
echo "== examples/consumer: building against @anvil//graph:ir"
if ! (cd examples/consumer && bazel build //... && bazel-bin/consumer); then
  consumer_failed=1
fi

/usr/bin/python3 - "$log" "$consumer_failed" "$bazel_status" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET

log, consumer_failed, bazel_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
passed = failed = 0
targets = {}
for line in open(log, errors="replace"):
    m = re.match(r"^(//\S+)\s+(?:\(cached\)\s+)?(PASSED|FAILED TO BUILD|FAILED|NO STATUS|TIMEOUT|FLAKY)\b",
                 line.strip())
    if m:
        targets[m.group(1)] = m.group(2)
testlogs = os.path.realpath("bazel-testlogs")
for target, status in sorted(targets.items()):
    pkg, name = target[2:].split(":")
    xml = os.path.join(testlogs, pkg, name, "test.xml")
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
else:
    passed += 1
if not targets and bazel_status != 0:
    failed += 1  # bazel itself failed before running anything
print(f"{len(targets)} test targets, consumer example {'FAILED' if consumer_failed else 'built'}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
