#!/usr/bin/env bash
# The run floor test: runs `conformance run` with the flags of each `run` line of
# conformance/floors.txt, requiring at least that many passing tests.
set -uo pipefail

BIN="$TEST_SRCDIR/anvil/tools/conformance"
# conformance/floors.txt, copied beside the binary (see the conformance_floors genrule).
FLOORS="$TEST_SRCDIR/anvil/tools/conformance_floors.txt"
OUT="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-$(mktemp -d)}}"
failures=0
runs=0

while read -r line; do
  line="${line%%#*}"
  read -r -a words <<<"$line"
  ((${#words[@]} >= 2)) || continue
  [[ ${words[0]} == run ]] || continue
  floor=${words[-1]}
  args=("${words[@]:0:${#words[@]}-1}")
  runs=$((runs + 1))
  report="$OUT/$(IFS=_; echo "${args[*]}" | tr -d '-').txt"
  echo "== conformance ${args[*]} --min-pass=$floor"
  if ! "$BIN" "${args[@]}" --min-pass="$floor" --report="$report"; then
    echo "FAIL: conformance ${args[*]} is below its floor $floor (see above)"
    failures=$((failures + 1))
  fi
done <"$FLOORS"

if ((runs == 0)); then
  echo "FAIL: no run line in $FLOORS"
  exit 1
fi
if ((failures)); then
  echo "$failures of $runs run(s) failed"
  exit 1
fi
echo "all $runs runs meet their floors"
