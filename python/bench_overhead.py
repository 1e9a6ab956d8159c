#!/usr/bin/env python3
"""Measures what the `anvil` Python package adds over Anvil's C++ tools.

Two figures:

* Call overhead: `anvil.InferenceSession.run` on a one-Add model (float32 x[1,4] + y[4]), the
  median per-call time over rounds of calls from Python, against the median per-run time that
  `anvil-run` reports for the same model (the C++ Session without Python). Target: <= 3 us.
* Simplify: `anvil.simplify(path, check=False, output_path=...)` wall time against
  `anvil-opt MODEL --passes=<anvil.DEFAULT_PIPELINE> -o OUT.onnx`, best of a few runs each.
  Target: ratio <= 1.1.

Run from the repository root with the package on PYTHONPATH (Debian's python3 has numpy and
onnx)::

    PYTHONPATH=DIR_WITH_ANVIL_PACKAGE /usr/bin/python3 python/bench_overhead.py \
        [--anvil-run PATH] [--anvil-opt PATH] [--model MODEL.onnx]

The tools default to $ANVIL_TOOLS_DIR/anvil-run and $ANVIL_TOOLS_DIR/anvil-opt, else
bazel-bin/tools/ (of the current directory, then of this script's repository).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Python puts this script's directory first on sys.path, and its anvil/ is the source package
# without the native module: take the built package from PYTHONPATH (or the installed one).
if sys.path and os.path.abspath(sys.path[0] or ".") == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]
import anvil  # pylint: disable=wrong-import-position

OPSET = 17


def find_tool(name: str, given: Optional[str]) -> str:
    """The path of tool `name`: `given`, else $ANVIL_TOOLS_DIR's, else bazel-bin/tools/'s."""
    if given:
        candidates = [given]
    else:
        candidates = []
        if os.environ.get("ANVIL_TOOLS_DIR"):
            candidates.append(os.path.join(os.environ["ANVIL_TOOLS_DIR"], name))
        candidates.append(os.path.join("bazel-bin", "tools", name))
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        candidates.append(os.path.join(repo, "bazel-bin", "tools", name))
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    sys.exit(f"bench_overhead: {name} not found (tried {', '.join(candidates)}): build it with "
             f"`bazel build //tools:{name}` or pass --{name} PATH")


def add_model() -> onnx.ModelProto:
    """z = x + y with x float32[1,4] and y float32[4]."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "y"], ["z"])], "one_add",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def mlp_model(layers: int = 16, width: int = 256) -> onnx.ModelProto:
    """An MLP on x[N, width] whose weights come out of foldable constant subgraphs.

    Layer i computes Relu(MatMul(h, Transpose(Wt_i) * scale_i) + (b_i + bias_shift)): the
    Transpose, the Mul and the Add of initializers are constprop's work, and every layer repeats
    the same `scale` constant and shift subgraph, which CSE merges.
    """
    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(np.array(0.5, np.float32), "half"),
        numpy_helper.from_array(np.array(2.0, np.float32), "two"),
    ]
    nodes = []
    h = "x"
    for i in range(layers):
        initializers.append(numpy_helper.from_array(
            rng.standard_normal((width, width)).astype(np.float32) / np.sqrt(width), f"wt{i}"))
        initializers.append(numpy_helper.from_array(
            rng.standard_normal(width).astype(np.float32), f"b{i}"))
        nodes += [
            # scale = half * two (the same subgraph in every layer: CSE, then constprop).
            helper.make_node("Mul", ["half", "two"], [f"scale{i}"]),
            helper.make_node("Transpose", [f"wt{i}"], [f"w{i}_t"], perm=[1, 0]),
            helper.make_node("Mul", [f"w{i}_t", f"scale{i}"], [f"w{i}"]),
            helper.make_node("Add", [f"b{i}", "half"], [f"b{i}_shifted"]),
            helper.make_node("Sub", [f"b{i}_shifted", "half"], [f"bias{i}"]),
            helper.make_node("MatMul", [h, f"w{i}"], [f"mm{i}"]),
            helper.make_node("Add", [f"mm{i}", f"bias{i}"], [f"pre{i}"]),
            helper.make_node("Relu", [f"pre{i}"], [f"h{i}"]),
        ]
        h = f"h{i}"
    nodes.append(helper.make_node("Identity", [h], ["y"]))
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", width])],
        initializer=initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])


def python_run_us(path: str, rounds: int, calls: int) -> float:
    """Median per-call microseconds of InferenceSession.run over `rounds` rounds of `calls`."""
    rng = np.random.default_rng(1)
    feed = {"x": rng.standard_normal((1, 4)).astype(np.float32),
            "y": rng.standard_normal(4).astype(np.float32)}
    with anvil.InferenceSession(path) as session:
        run = session.run
        for _ in range(max(1000, calls // 5)):  # warm-up
            run(None, feed)
        per_call: List[float] = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                run(None, feed)
            per_call.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(per_call)


def cpp_run_us(anvil_run: str, path: str, iters: int, warmup: int) -> float:
    """Median per-run microseconds that anvil-run reports (one JSON line with "median_ms")."""
    done = subprocess.run([anvil_run, path, "--iters", str(iters), "--warmup", str(warmup),
                           "--shape", "x=1,4", "--shape", "y=4"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench_overhead: {anvil_run} failed: {done.stderr.strip()}")
    for line in done.stdout.splitlines():
        if '"median_ms"' in line:
            return float(json.loads(line)["median_ms"]) * 1e3
    sys.exit(f"bench_overhead: no \"median_ms\" in {anvil_run}'s output: {done.stdout.strip()}")


def best_seconds(function, repeats: int) -> float:
    """The least wall time of `repeats` calls of `function`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anvil-run", help="the anvil-run binary")
    parser.add_argument("--anvil-opt", help="the anvil-opt binary")
    parser.add_argument("--model", help="the model simplify and anvil-opt run on (default: a "
                        "generated MLP with foldable constant subgraphs)")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of Python calls")
    parser.add_argument("--calls", type=int, default=5000, help="Python calls per round")
    parser.add_argument("--iters", type=int, default=100000, help="anvil-run's timed runs")
    parser.add_argument("--repeats", type=int, default=5, help="simplify/anvil-opt runs each")
    args = parser.parse_args()
    anvil_run = find_tool("anvil-run", args.anvil_run)
    anvil_opt = find_tool("anvil-opt", args.anvil_opt)

    with tempfile.TemporaryDirectory(prefix="anvil-bench-") as tmp:
        add_path = os.path.join(tmp, "one_add.onnx")
        onnx.save(add_model(), add_path)
        py_us = python_run_us(add_path, args.rounds, args.calls)
        cpp_us = cpp_run_us(anvil_run, add_path, args.iters, warmup=1000)
        print(f"one-Add run: python {py_us:.2f} us, C++ Session {cpp_us:.2f} us, "
              f"overhead {py_us - cpp_us:.2f} us (target <= 3 us)")

        model = args.model
        if model is None:
            model = os.path.join(tmp, "mlp.onnx")
            onnx.save(mlp_model(), model)
        py_out = os.path.join(tmp, "simplified_py.onnx")
        cli_out = os.path.join(tmp, "simplified_cli.onnx")
        argv = [anvil_opt, model, f"--passes={anvil.DEFAULT_PIPELINE}", "-o", cli_out]

        def cli() -> None:
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"bench_overhead: {' '.join(argv)} failed: {done.stderr.strip()}")

        py_s = best_seconds(lambda: anvil.simplify(model, check=False, output_path=py_out),
                            args.repeats)
        cli_s = best_seconds(cli, args.repeats)
        print(f"simplify {os.path.basename(model)}: python {py_s * 1e3:.1f} ms, "
              f"anvil-opt {cli_s * 1e3:.1f} ms, ratio {py_s / cli_s:.2f} (target <= 1.1)")
        # What of anvil-opt's time is the process itself (start, registries, exit).
        start_argv = [anvil_opt, add_path, "--passes=", "-o", os.path.join(tmp, "start.onnx")]
        start_s = best_seconds(lambda: subprocess.run(start_argv, capture_output=True, check=True),
                               args.repeats)
        print(f"  anvil-opt on the one-Add model without passes: {start_s * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
