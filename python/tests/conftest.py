"""Shared fixtures of the anvil package tests: the tools to compare against, the ONNX backend
suite, and small models built with onnx.helper."""

import os
import glob

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

SUITE = "/usr/include/onnx/backend/test/data"


def tool(name: str) -> str:
    variable = "ANVIL_TEST_" + name.upper().replace("-", "_")
    path = os.environ.get(variable)
    if not path:
        pytest.fail(f"${variable} is not set: run bazel test //python:python_test")
    return path


def run_tools(argvs):
    """Runs the tool command lines on every CPU at once (each is mostly process start-up: ONNX's
    schema registry) and returns their CompletedProcess results in order."""
    import concurrent.futures
    import subprocess
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return list(pool.map(
            lambda argv: subprocess.run(argv, capture_output=True, text=True), argvs))


def tool_error(done, name):
    """The one-line message of a failed tool run (without "name: error: "), or None."""
    if done.returncode == 0:
        return None
    prefix = f"{name}: error: "
    lines = [l for l in done.stderr.splitlines() if l.startswith(prefix)]
    return lines[-1][len(prefix):] if lines else done.stderr


def suite_models():
    """Every backend-suite model directory, sorted (an empty list fails the tests that use it)."""
    return sorted(d for d in glob.glob(os.path.join(SUITE, "*", "*"))
                  if os.path.isfile(os.path.join(d, "model.onnx")))


def make_model(nodes, inputs, outputs, initializers=(), opset=17, value_info=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers),
                              value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def add_model():
    """z = x + y, x float[N,4], y float[4]."""
    return make_model(
        [helper.make_node("Add", ["x", "y"], ["z"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4])])


def foldable_model(weight_elems=64):
    """y = Relu(x @ (W * 2) + (b + b)) + Relu(x @ (W * 2) + (b + b)): constprop folds W*2 and
    b+b, CSE merges the two branches; x float[N,K]."""
    k = int(np.sqrt(weight_elems))
    rng = np.random.default_rng(0)
    w = helper.make_tensor("W", TensorProto.FLOAT, [k, k], rng.standard_normal(k * k).astype(
        np.float32).tobytes(), raw=True)
    b = helper.make_tensor("b", TensorProto.FLOAT, [k], rng.standard_normal(k).astype(
        np.float32).tobytes(), raw=True)
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    nodes = [
        helper.make_node("Mul", ["W", "two"], ["W2"]),
        helper.make_node("Add", ["b", "b"], ["b2"]),
        helper.make_node("MatMul", ["x", "W2"], ["h1"]),
        helper.make_node("Add", ["h1", "b2"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MatMul", ["x", "W2"], ["h2"]),
        helper.make_node("Add", ["h2", "b2"], ["a2"]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("Add", ["r1", "r2"], ["y"]),
    ]
    return make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", k])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", k])],
                      [w, b, two])


@pytest.fixture
def tmp(tmp_path):
    return str(tmp_path)
