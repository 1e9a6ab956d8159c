#!/usr/bin/env bash
# Conformance floor test: runs `conformance MODE ...` for every line of conformance/floors.txt
# that starts with MODE (the line's flags, its last word the floor), requiring at least that
# many passing tests, and no wrong result when --max-wrong=0 is given.
#   conformance_floor_test.sh MODE [--max-wrong=0] [--with=STR] [--without=STR]
set -uo pipefail

MODE="$1"
shift
# --with=STR / --without=STR pick the floor lines (of MODE) that contain / lack STR; the other
# arguments go to conformance.
EXTRA=()
WITH=""
WITHOUT=""
for arg in "$@"; do
  case $arg in
    --with=*) WITH=${arg#--with=} ;;
    --without=*) WITHOUT=${arg#--without=} ;;
    *) EXTRA+=("$arg") ;;
  esac
done
# Compiled code is cached per test run, inside the test's own directory.
export ANVIL_JIT_CACHE="${TEST_TMPDIR:-$(mktemp -d)}/anvil-jit"
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
  [[ ${words[0]} == "$MODE" ]] || continue
  [[ -z $WITH || $line == *"$WITH"* ]] || continue
  [[ -z $WITHOUT || $line != *"$WITHOUT"* ]] || continue
  floor=${words[-1]}
  args=("${words[@]:0:${#words[@]}-1}")
  runs=$((runs + 1))
  report="$OUT/$(IFS=_; echo "${args[*]}" | tr -d '-').txt"
  echo "== conformance ${args[*]} --min-pass=$floor ${EXTRA[*]}"
  if ! "$BIN" "${args[@]}" --min-pass="$floor" "${EXTRA[@]}" --report="$report"; then
    echo "FAIL: conformance ${args[*]} is below its floor $floor or has wrong results (see above)"
    failures=$((failures + 1))
  fi
done <"$FLOORS"

if ((runs == 0)); then
  echo "FAIL: no $MODE line in $FLOORS"
  exit 1
fi
if ((failures)); then
  echo "$failures of $runs $MODE run(s) failed"
  exit 1
fi
echo "all $runs $MODE runs meet their floors"
