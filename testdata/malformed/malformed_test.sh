#!/usr/bin/env bash
# bazel test //testdata/malformed:malformed_test: every malformed model through anvil-opt (default
# pipeline) and anvil-run, each with a time and address-space limit (check_malformed.py).
set -euo pipefail
ROOT="$TEST_SRCDIR/anvil"
exec /usr/bin/python3 "$ROOT/testdata/malformed/check_malformed.py" \
  --opt "$ROOT/tools/anvil-opt" --run "$ROOT/tools/anvil-run" \
  --gen "$ROOT/testdata/malformed/gen_malformed.py" \
  --manifest "$ROOT/testdata/malformed/cases.txt" \
  --workdir "${TEST_TMPDIR:-$(mktemp -d)}/corpus" "$@"
