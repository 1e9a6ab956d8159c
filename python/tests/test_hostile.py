"""Hostile and mistaken input through Python: always a one-line anvil.Error, never a crash."""

import os

import numpy as np
import pytest

import anvil
from conftest import add_model


def one_line_error(fn, match):
    with pytest.raises(anvil.Error, match=match) as info:
        fn()
    message = str(info.value)
    assert "\n" not in message and len(message) < 1000, message
    assert isinstance(info.value, ValueError)
    return message


@pytest.fixture(scope="module")
def session():
    return anvil.InferenceSession(add_model())


X = np.ones((2, 4), np.float32)
Y = np.ones(4, np.float32)


def test_wrong_dtype(session):
    one_line_error(lambda: session.run(None, {"x": X.astype(np.float64), "y": Y}),
                   "input 'x': expected a tensor of float, got double")
    one_line_error(lambda: session.run(None, {"x": X, "y": Y.astype(np.int64)}),
                   "input 'y'.*int64")


def test_dtype_onnx_has_no_type_for(session):
    one_line_error(lambda: session.run(None, {"x": np.zeros((2, 4), "datetime64[s]"), "y": Y}),
                   "numpy dtype datetime64.* has no ONNX element type")


def test_wrong_rank(session):
    one_line_error(lambda: session.run(None, {"x": np.ones((2, 4, 1), np.float32), "y": Y}),
                   "'x'.*rank")


def test_wrong_dim(session):
    one_line_error(lambda: session.run(None, {"x": np.ones((2, 5), np.float32), "y": Y}), "'x'")


def test_missing_and_unknown_inputs(session):
    one_line_error(lambda: session.run(None, {"x": X}), "'y'")
    one_line_error(lambda: session.run(None, {"x": X, "y": Y, "w": Y}),
                   "input 'w' is not an input of the model")
    one_line_error(lambda: session.run(None, {1: X}), "input name")


def test_not_an_array(session):
    one_line_error(lambda: session.run(None, {"x": "hello", "y": Y}), "'x'")
    one_line_error(lambda: session.run(None, {"x": object(), "y": Y}), "'x'")


def test_unknown_output_name(session):
    one_line_error(lambda: session.run(["nope"], {"x": X, "y": Y}),
                   "output 'nope' is not an output of the model")


def test_closed_session():
    s = anvil.InferenceSession(add_model())
    s.close()
    s.close()  # twice is fine
    one_line_error(lambda: s.run(None, {"x": X, "y": Y}), "the session is closed")


def test_model_path_that_does_not_exist():
    one_line_error(lambda: anvil.InferenceSession("/no/such/model.onnx"),
                   "cannot open '/no/such/model.onnx'")
    one_line_error(lambda: anvil.simplify("/no/such/model.onnx"), "cannot open")
    one_line_error(lambda: anvil.infer_shapes("/no/such/model.onnx"), "cannot open")


def test_garbage_bytes():
    one_line_error(lambda: anvil.InferenceSession(b"\x08\x01garbage\xff\xff"), "cannot parse")
    one_line_error(lambda: anvil.simplify(os.urandom(64)), "cannot parse")


def test_not_a_model():
    one_line_error(lambda: anvil.InferenceSession(42), "expected an onnx.ModelProto")


def test_bad_options():
    one_line_error(lambda: anvil.InferenceSession(add_model(), backend="gpu"),
                   "unknown backend 'gpu'")
    one_line_error(lambda: anvil.InferenceSession(add_model(), threads=-1), "threads")
    one_line_error(lambda: anvil.simplify(add_model(), input_shapes={"x": [1, -4]}),
                   "negative dim")
    one_line_error(lambda: anvil.simplify(add_model(), input_shapes={"x": [1.5, 4]}),
                   "a dim must be")


def test_invalid_model_names_the_node():
    from onnx import TensorProto, helper
    from conftest import make_model
    bad = make_model([helper.make_node("Add", ["x"], ["z"], name="lonely")],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                     [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    message = one_line_error(lambda: anvil.InferenceSession(bad), "lonely")
    assert "Add" in message
