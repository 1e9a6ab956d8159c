#!/usr/bin/env bash
# //scripts:structure_test: check_structure.py's unit tests, then the check itself on the C++
# sources in the runfiles (each package's structure_sources) with the repository's allowlist.
set -euo pipefail
root="${TEST_SRCDIR:?run under bazel test}/${TEST_WORKSPACE:-anvil}"
python3 "$root/scripts/check_structure_test.py"
python3 "$root/scripts/check_structure.py" --root "$root" \
  --allow "$root/scripts/structure_allowlist.txt" --strict-allow
