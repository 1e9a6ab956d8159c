#!/usr/bin/env bash
# //python:python_test: installs the wheel into a venv and runs pytest over python/tests/ with a
# JUnit report, so that scripts/test.sh counts each test case.
set -euo pipefail
RUNFILES=${TEST_SRCDIR:-$PWD/..}/anvil
WHEEL=$(ls "$RUNFILES"/python/anvil-*.whl)
VENV=${TEST_TMPDIR:-$(mktemp -d)}/venv
/usr/bin/python3 -m venv --system-site-packages "$VENV"
"$VENV/bin/python" -m pip install --quiet --no-index --no-deps "$WHEEL"
export ANVIL_TEST_ANVIL_OPT=$RUNFILES/tools/anvil-opt
export ANVIL_TEST_ANVIL_RUN=$RUNFILES/tools/anvil-run
export ANVIL_JIT_CACHE=${TEST_TMPDIR:-/tmp}/jit
# From a directory without the sources: the installed package is what gets imported.
cd "${TEST_TMPDIR:-/tmp}"
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider "$RUNFILES/python/tests" \
  ${XML_OUTPUT_FILE:+--junitxml="$XML_OUTPUT_FILE"}
