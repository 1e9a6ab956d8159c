#!/usr/bin/env bash
# Quick start, command 2: install what is missing, run every test, build the consumer example,
# check the README figure tables (scripts/readme_tables.py --check), fuzz the parsers and
# importers with libFuzzer (300,000 inputs each), and end with one line
# "N passed, N failed"
# (test cases from each test's XML report; a test target that fails to build or crashes without
# a report counts as one failure). Exits non-zero if anything failed. Prints each stage's wall
# time at the end.
#   scripts/test.sh              the above
#   scripts/test.sh --full       also builds and runs the consumer's anvil_cc_model app (a second
#                                build of the compiler, in the consumer's own output base), and
#                                fuzzes with libFuzzer what needs the whole stack: the pipeline
#                                parser (300,000 inputs) and the model fuzzer (100,000 mutated
#                                models through every pass, the runtime and the Tensor IR), a
#                                second instrumented build of the kernels and lowering (~20 min)
#   scripts/test.sh --cache      also scripts/model_cache_test.sh: the model zoo built in clean
#                                output bases through a loopback HTTP remote cache and a disk
#                                cache (all hits the second time) and compared byte for byte
#                                (~20 min: a clean build of the compiler); CI runs this tier
#   scripts/test.sh --sanitize   the whole suite under --config=asan, then --config=ubsan
#   scripts/test.sh --no-fuzz    without the libFuzzer runs (the seeds are still replayed)
set -uo pipefail
cd "$(dirname "$0")/.."

stages=()
stage_start=$SECONDS
# Ends the running stage (named by its argument) and records its wall time.
end_stage() {
  stages+=("$(printf '%-44s %6d s' "$1" $((SECONDS - stage_start)))")
  stage_start=$SECONDS
}

scripts/setup.sh || exit 1
end_stage "setup (apt)"

sanitize=0
fuzz=1
full=0
cache=0
for arg in "$@"; do
  case $arg in
    --sanitize) sanitize=1 ;;
    --no-fuzz) fuzz=0 ;;
    --full) full=1 ;;
    --cache) cache=1 ;;
    *) echo "usage: scripts/test.sh [--full] [--cache] [--sanitize] [--no-fuzz]" >&2; exit 2 ;;
  esac
done

log=$(mktemp)
consumer_failed=0
readme_failed=0
cache_status=-1  # not run
if ((sanitize)); then
  # Each config has its own output tree (platform_suffix); testlogs are read per config below.
  for config in asan ubsan; do
    echo "== bazel test --config=$config //..."
    bazel test --config=$config --test_summary=short //... 2>&1 | sed "s|^//|$config://|" | tee -a "$log"
  done
  bazel_status=${PIPESTATUS[0]}
  end_stage "bazel test --config=asan/ubsan //..."
else
  bazel test --test_summary=short //... 2>&1 | tee "$log"
  bazel_status=${PIPESTATUS[0]}
  end_stage "bazel test //... (build and tests)"

  # The consumer workspace uses Anvil as another project would: one library alone
  # (@anvil//graph:ir), and a model compiled by the anvil_cc_model rule, used from C. Its own
  # output base builds from scratch; by default it builds the library and analyzes the model's
  # targets (every @anvil label of the rule resolves from outside), while the rule's actions are
  # built and run in this workspace by //examples/aot. --full builds and runs the app too.
  echo "== examples/consumer: @anvil//graph:ir alone, and a model through anvil_cc_model"
  if ((full)); then
    consumer_cmd="bazel build //... && bazel-bin/consumer && bazel-bin/model_app"
  else
    consumer_cmd="bazel build //:consumer && bazel-bin/consumer && bazel build --nobuild //..."
  fi
  if ! (cd examples/consumer && eval "$consumer_cmd"); then
    consumer_failed=1
  fi
  end_stage "examples/consumer$( ((full)) || echo ' (library; model analyzed)')"

  # Each README's figures table is what scripts/readme_tables.py writes from docs/figures/.
  echo "== scripts/readme_tables.py --check: README figure tables match docs/figures"
  if ! /usr/bin/python3 scripts/readme_tables.py --check; then
    readme_failed=1
  fi

  if ((fuzz)); then
    # A fixed number of inputs rather than a time: a slow or loaded CI machine fuzzes as much.
    # By default only the targets whose code is graph and shape (import, text, dims, einsum
    # equations): their instrumented build is small. The pipeline parser and the model fuzzer link
    # constprop, the kernels and lowering, a second instrumented build of most of the tree; their
    # seeds and regressions are replayed by `bazel test //...` above, and --full fuzzes them.
    # The model fuzzer runs ~130 models/s against ~5,000-100,000 inputs/s for the parsers.
    parsers=(//fuzz:import_binary_fuzzer_test //fuzz:import_text_fuzzer_test
      //fuzz:dim_expr_fuzzer_test //fuzz:einsum_equation_fuzzer_test)
    ((full)) && parsers+=(//fuzz:pipeline_parser_fuzzer_test)
    echo "== scripts/fuzz.sh --runs=300000: libFuzzer, 300,000 inputs per parser/importer target"
    scripts/fuzz.sh --runs=300000 "${parsers[@]}" 2>&1 | sed "s|^//|fuzz://|" | tee -a "$log"
    end_stage "fuzz: clang-15 build, parser targets"
    if ((full)); then
      echo "== scripts/fuzz.sh --runs=100000 //fuzz:model_fuzzer_test: 100,000 mutated models"
      scripts/fuzz.sh --runs=100000 //fuzz:model_fuzzer_test 2>&1 | sed "s|^//|fuzz://|" |
        tee -a "$log"
      end_stage "fuzz: model fuzzer"
    fi
  fi

  if ((cache)); then
    echo "== scripts/model_cache_test.sh: the model zoo through a remote cache and a disk cache"
    scripts/model_cache_test.sh
    cache_status=$?
    end_stage "model zoo: remote and disk cache, bytes"
  fi
fi

echo "== wall time per stage"
printf '%s\n' "${stages[@]}"

/usr/bin/python3 - "$log" "$consumer_failed" "$bazel_status" "$readme_failed" "$cache_status" <<'PY'
import glob, os, re, sys
import xml.etree.ElementTree as ET

log, consumer_failed, bazel_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
readme_failed, cache_status = int(sys.argv[4]), int(sys.argv[5])
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
if cache_status > 0:
    failed += 1  # scripts/model_cache_test.sh
elif cache_status == 0:
    passed += 1
if readme_failed:
    failed += 1
elif not any(t.startswith(("asan:", "ubsan:")) for t in targets):
    passed += 1  # the README figure tables
if not targets and bazel_status != 0:
    failed += 1  # bazel itself failed before running anything
print(f"{len(targets)} test targets, consumer example {'FAILED' if consumer_failed else 'built or not run'}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
