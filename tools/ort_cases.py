"""What the single-op comparisons with ONNX Runtime share (tools/llm_ops_vs_ort.py,
tools/opsets_vs_ort.py): where the two runners are, writing a case's inputs, running one runner on
a case directory, and comparing Anvil's outputs with ONNX Runtime's within a tolerance.

A case directory holds model.onnx and input_K.pb (the graph inputs in order); each runner writes
its outputs to DIR/ort or DIR/anvil as output_K.pb (../shared/bench/ort_run.js and anvil-run
share these flags).
"""
import os
import re
import subprocess

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORT_RUN = os.path.join(ROOT, "..", "shared", "bench", "ort_run.js")
ANVIL_RUN = os.environ.get("ANVIL_RUN", os.path.join(ROOT, "bazel-out", "k8-opt", "bin", "tools",
                                                     "anvil-run"))


def vi(name, array):
    """A graph input declared with the array's type and shape."""
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]
    return helper.make_tensor_value_info(name, elem, list(array.shape))


def load(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def write_case(case_dir, model, inputs):
    """Saves the model and its (name, array) inputs as input_K.pb."""
    os.makedirs(case_dir, exist_ok=True)
    onnx.save(model, os.path.join(case_dir, "model.onnx"))
    for k, (name, a) in enumerate(inputs):
        with open(os.path.join(case_dir, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, name).SerializeToString())


def run(tool, case_dir):
    """Runs "ort" or "anvil" on the case; None, or the runner's first error line."""
    cmd = ["node", ORT_RUN] if tool == "ort" else [ANVIL_RUN]
    try:
        p = subprocess.run(cmd + [os.path.join(case_dir, "model.onnx"), "--input-dir", case_dir,
                                  "--out", os.path.join(case_dir, tool), "--iters", "1",
                                  "--warmup", "0"], capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "timed out after 600 s"
    if p.returncode == 0:
        return None
    lines = [l for l in p.stderr.splitlines() if l.strip()] or [f"exit status {p.returncode}"]
    errors = [l for l in lines if re.match(r"(ort_run|anvil-run)(: error)?: ", l)
              and ": warning: " not in l]
    return (errors or lines)[0].strip()[:300]


def compare(case_dir, outputs, atol, rtol):
    """(None, worst) when each of the first `outputs` outputs of Anvil is within
    atol + rtol * |ONNX Runtime's| (NaN matching NaN), else (what differs, worst); worst is the
    largest absolute difference seen."""
    worst = 0.0
    for k in range(outputs):
        want = load(os.path.join(case_dir, "ort", f"output_{k}.pb"))
        path = os.path.join(case_dir, "anvil", f"output_{k}.pb")
        if not os.path.exists(path):
            return f"MISMATCH (no output {k})", worst
        got = load(path)
        if want.shape != got.shape:
            return f"MISMATCH (output {k}: shape {got.shape}, ONNX Runtime's {want.shape})", worst
        if want.dtype != got.dtype:
            return f"MISMATCH (output {k}: {got.dtype}, ONNX Runtime's {want.dtype})", worst
        if not got.size:
            continue
        g, w = got.astype(np.float64), want.astype(np.float64)
        diff = np.abs(g - w)
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        bad = ~same & ~(diff <= atol + rtol * np.abs(w))
        worst = max(worst, float(np.max(np.where(same, 0.0, diff))))
        if np.any(bad):
            return (f"MISMATCH (max abs diff {worst:.2e}; output {k}: {int(np.sum(bad))} of "
                    f"{got.size} outside tolerance)"), worst
    return None, worst
