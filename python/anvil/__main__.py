"""``python3 -m anvil [MODEL] [options]``: the ``anvil-opt`` command line (see ``--help``),
for users who never touch Bazel. Runs the ``anvil-opt`` binary installed with the package."""

import os
import sys

from . import Error, _tool


def main() -> None:
    try:
        binary = _tool("anvil-opt")
    except Error as e:
        print(f"anvil-opt: error: {e}", file=sys.stderr)
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, ["anvil-opt", *sys.argv[1:]])


if __name__ == "__main__":
    main()
