#!/usr/bin/env python3
"""Runs anvil-opt and anvil-run on every malformed model and checks the manifest's expectations.

    check_malformed.py --opt ANVIL_OPT --run ANVIL_RUN --gen gen_malformed.py \
        --manifest cases.txt [--print] [--timeout S] [--memory-mib M] [--workdir DIR]

Generates the corpus into the work directory, then runs each manifest line's tool on its case
(anvil-opt with the default pipeline, anvil-run once with a 1 GiB allocation limit)
under a time limit and an address-space limit (so runaway allocation fails inside the tool, not
on the machine). A case passes when the tool exits 1 with exactly one stderr line containing the
expected substring, or, when the expectation is `OK`, exits 0. Crashes (signals), timeouts,
multi-line errors and stderr lines that are not printable UTF-8 of at most MAX_LINE_CHARS
characters always fail. A case is <case>.onnxtxt (ONNX text) when the generator wrote one, else
<case>.onnx. `--print` shows each tool's actual stderr line (to fill in the
manifest). Ends with "malformed: N passed, N failed".
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile


# anvil-opt's default pipeline (tools/default_model.h), the one users run on their models.
DEFAULT_PIPELINE = (
    "shape-inference,einsum-decompose,fuse-matmul-transpose{shared-only=true},constprop,cse,dce")


def read_manifest(path):
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split(" ", 2)
            if len(parts) != 3 or parts[1] not in ("opt", "run", "both"):
                sys.exit(f"{path}:{number}: expected '<case> <opt|run|both> <substring>'")
            case, tool, expected = parts
            for t in ("opt", "run") if tool == "both" else (tool,):
                entries.append((case, t, expected))
    return entries


def limit_memory(mib):
    # AddressSanitizer reserves terabytes of address space for its shadow memory, so under
    # --config=asan (which sets ASAN_OPTIONS) the address-space limit is left out; the tools'
    # own allocation limits still apply.
    sanitized = "ASAN_OPTIONS" in os.environ

    def apply():
        limit = mib << 20
        if not sanitized:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_case(args, workdir, case, tool):
    # A case is binary (<case>.onnx) or ONNX text (<case>.onnxtxt).
    model = os.path.join(workdir, case + ".onnxtxt")
    if not os.path.exists(model):
        model = os.path.join(workdir, case + ".onnx")
    if tool == "opt":
        command = [args.opt, model, "--passes=" + DEFAULT_PIPELINE,
                   "-o", os.path.join(workdir, "out", case + ".onnx")]
    else:
        # A fixed limit, so that the result does not depend on the machine's memory.
        command = [args.run, model, "--iters", "1", "--warmup", "0",
                   "--max-allocation-bytes", str(1 << 30)]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=args.timeout,
                              preexec_fn=limit_memory(args.memory_mib))
    except subprocess.TimeoutExpired:
        return None, ""
    return done.returncode, done.stderr


# Every stderr line (errors and warnings) is printable UTF-8 of bounded length, whatever bytes the
# model holds: the tools' messages quote names through base/excerpt.h.
MAX_LINE_CHARS = 1200


def unprintable(stderr):
    """What is wrong with the stderr bytes as lines a terminal shows, or an empty string."""
    try:
        text = stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"stderr is not UTF-8 ({e.reason} at byte {e.start})"
    for line in text.splitlines():
        if len(line) > MAX_LINE_CHARS:
            return f"a stderr line has {len(line)} characters, over {MAX_LINE_CHARS}"
        bad = [c for c in line if (ord(c) < 0x20 and c != "\t") or 0x7f <= ord(c) < 0xa0
               or c in "\u2028\u2029"]
        if bad:
            return f"a stderr line holds unprintable {bad[0]!r}"
    return ""


def verdict(code, stderr_bytes, expected):
    """An empty string when the result meets the expectation, else what is wrong."""
    if code is None:
        return "timed out"
    if code < 0:
        return f"killed by signal {-code}"
    problem = unprintable(stderr_bytes)
    if problem:
        return problem
    stderr = stderr_bytes.decode("utf-8")
    if expected == "OK":
        return "" if code == 0 else f"exit {code}, want 0"
    if code != 1:
        return f"exit {code}, want 1"
    lines = stderr.splitlines()
    if len(lines) != 1:
        return f"stderr has {len(lines)} lines, want 1"
    if expected == "TODO" or expected not in lines[0]:
        return f"stderr lacks '{expected}'"
    return ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--opt", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--gen", required=True)
    p.add_argument("--manifest", required=True)
    p.add_argument("--print", action="store_true", help="show every tool's stderr line")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--memory-mib", type=int, default=4096)
    p.add_argument("--workdir")
    args = p.parse_args()

    workdir = args.workdir or tempfile.mkdtemp(prefix="malformed.")
    os.makedirs(os.path.join(workdir, "out"), exist_ok=True)
    subprocess.run([sys.executable, args.gen, "--check-manifest", args.manifest], check=True)
    subprocess.run([sys.executable, args.gen, workdir], check=True, stdout=subprocess.DEVNULL)

    passed = failed = 0
    for case, tool, expected in read_manifest(args.manifest):
        code, stderr_bytes = run_case(args, workdir, case, tool)
        problem = verdict(code, stderr_bytes, expected)
        shown = stderr_bytes.decode("utf-8", "replace").strip().replace("\n", " | ")
        shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in shown)
        if len(shown) > 300:
            shown = shown[:300] + "..."
        if problem:
            failed += 1
            print(f"FAIL {case} ({tool}): {problem}: exit {code}: {shown}")
        else:
            passed += 1
            if args.print:
                print(f"ok   {case} ({tool}): {shown}")
    print(f"malformed: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
