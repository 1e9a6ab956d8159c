"""The README examples run as written: every ```python block of python/README.md and of the
repository README's Python section, and python/README.md's `python3 -m anvil` lines, on a
model.onnx with an input x float[N,3,224,224] made here."""

import os
import re
import shlex
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import make_model

RUNFILES = os.path.join(os.environ.get("TEST_SRCDIR", ""), "anvil")
# (README, the section its examples are in; None: the whole file)
READMES = [("python/README.md", None), ("README.md", "Python")]


def blocks(readme, section, language):
    text = open(os.path.join(RUNFILES, readme), encoding="utf-8").read()
    if section is not None:
        text = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def write_model(directory):
    """A small CNN: Conv -> Relu -> GlobalAveragePool -> Flatten, input x float[N,3,224,224]."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    model = make_model(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("GlobalAveragePool", ["r"], ["g"]),
         helper.make_node("Flatten", ["g"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 224, 224])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])], [w])
    onnx.save(model, os.path.join(directory, "model.onnx"))


@pytest.mark.parametrize("readme,section", READMES, ids=[r for r, _ in READMES])
def test_python_examples_run(readme, section, tmp_path, monkeypatch):
    examples = blocks(readme, section, "python")
    assert examples, f"no python examples in {readme}"
    monkeypatch.chdir(tmp_path)
    write_model(str(tmp_path))
    namespace = {"__name__": "__readme__"}  # one reader goes through the blocks in order
    for code in examples:
        exec(compile(code, readme, "exec"), namespace)


def test_command_line_examples_run(tmp_path):
    write_model(str(tmp_path))
    lines = [l.split("#")[0].strip() for block in blocks("python/README.md", None, "sh") for l in
             block.splitlines() if l.startswith("python3 -m anvil")]
    assert len(lines) >= 3
    for line in lines:
        argv = [sys.executable] + shlex.split(line)[1:]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, f"{line}: {done.stderr}"
