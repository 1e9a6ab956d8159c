#!/usr/bin/env python3
"""Assembles the `anvil` wheel from what Bazel built (run by the //python:wheel genrule).

    build_wheel.py --out anvil-0.1.0-cp311-cp311-linux_x86_64.whl \
        --package python/anvil/__init__.py ... --extension .../_anvil.so \
        --bin .../anvil-opt --bin .../anvil-compile --lib .../libanvil_aot_host.so

Layout inside the wheel: anvil/ (the Python sources, _anvil.so), anvil/bin/ (the tools that
`python3 -m anvil` and anvil.compile run), anvil/lib/ (the AOT kernel host), and the
.dist-info metadata with a RECORD of sha256 hashes, as PEP 427 asks. Only the standard library:
installs offline with `pip install --no-index`.
"""

import argparse
import base64
import hashlib
import os
import stat
import sys
import zipfile

NAME = "anvil"
SUMMARY = "Anvil: simplify, infer shapes, run and compile ONNX models"


def version_of(init_path: str) -> str:
    for line in open(init_path, encoding="utf-8"):
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip('"\'')
    raise SystemExit(f"build_wheel: no __version__ in {init_path}")


def record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--package", action="append", default=[], help="a file of anvil/")
    parser.add_argument("--extension", required=True)
    parser.add_argument("--bin", action="append", default=[])
    parser.add_argument("--lib", action="append", default=[])
    parser.add_argument("--python-tag", default="cp311")
    args = parser.parse_args()

    init = next((p for p in args.package if os.path.basename(p) == "__init__.py"), None)
    if init is None:
        raise SystemExit("build_wheel: --package must include anvil/__init__.py")
    version = version_of(init)
    tag = f"{args.python_tag}-{args.python_tag}-linux_x86_64"
    dist_info = f"{NAME}-{version}.dist-info"

    files = []  # (arcname, path, executable)
    for p in args.package:
        files.append((f"anvil/{os.path.basename(p)}", p, False))
    files.append(("anvil/_anvil.so", args.extension, True))
    for p in args.bin:
        files.append((f"anvil/bin/{os.path.basename(p)}", p, True))
    for p in args.lib:
        files.append((f"anvil/lib/{os.path.basename(p)}", p, True))

    metadata = "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        "Requires-Python: >=3.11",
        "Requires-Dist: numpy",
        "Requires-Dist: onnx",
        "",
    ]).encode()
    wheel = "\n".join([
        "Wheel-Version: 1.0",
        "Generator: anvil build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
        "",
    ]).encode()

    records = []
    with zipfile.ZipFile(args.out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        def add(arcname: str, data: bytes, executable: bool) -> None:
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            mode = 0o755 if executable else 0o644
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            records.append(record_line(arcname, data))

        for arcname, path, executable in sorted(files):
            with open(path, "rb") as f:
                add(arcname, f.read(), executable)
        add(f"{dist_info}/METADATA", metadata, False)
        add(f"{dist_info}/WHEEL", wheel, False)
        records.append(f"{dist_info}/RECORD,,")
        add_record = "\n".join(records).encode() + b"\n"
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        z.writestr(info, add_record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
