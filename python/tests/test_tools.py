"""anvil.compile and `python3 -m anvil`: the tools shipped in the package."""

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import anvil
from conftest import add_model, foldable_model, make_model


def test_compile_writes_a_library(tmp):
    out = os.path.join(tmp, "lib")
    assert anvil.compile(foldable_model(), out) == out
    for name in ("model.h", "model.cc", "model.weights", "libmodel.so"):
        assert os.path.exists(os.path.join(out, name)), name


def test_compile_error_is_the_tools_line(tmp):
    bad = make_model([helper.make_node("Add", ["x"], ["z"], name="lonely")],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                     [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    with pytest.raises(anvil.Error, match="lonely") as info:
        anvil.compile(bad, os.path.join(tmp, "bad"))
    assert "\n" not in str(info.value)


def test_python_m_anvil_is_anvil_opt(tmp):
    help_text = subprocess.run([sys.executable, "-m", "anvil", "--help"], capture_output=True,
                               text=True, check=True).stdout
    assert help_text.startswith("usage: anvil-opt")
    path = os.path.join(tmp, "m.onnx")
    onnx.save(foldable_model(), path)
    out = os.path.join(tmp, "out.onnx")
    subprocess.run([sys.executable, "-m", "anvil", path, f"--passes={anvil.DEFAULT_PIPELINE}",
                    "-o", out], check=True, capture_output=True)
    assert onnx.load(out) == anvil.simplify(path)
    failed = subprocess.run([sys.executable, "-m", "anvil", "/no/such.onnx"],
                            capture_output=True, text=True)
    assert failed.returncode == 1 and failed.stderr.startswith("anvil-opt: error: cannot open")


def test_help_reads_like_documentation():
    for fn in (anvil.simplify, anvil.infer_shapes, anvil.compile, anvil.save,
               anvil.register_pass, anvil.InferenceSession, anvil.InferenceSession.run):
        assert fn.__doc__ and len(fn.__doc__) > 80, fn
    assert "overwrite_input_shapes" in anvil.simplify.__doc__
