"""anvil.simplify: anvil-opt's pipeline from Python, onnxsim's options."""

import os
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import anvil
from conftest import add_model, foldable_model, make_model, run_tools, suite_models, tool, tool_error


def test_simplify_equals_anvil_opt_on_the_backend_suite(tmp):
    """Byte for byte the file anvil-opt writes, or the same error, for every suite model."""
    models = suite_models()
    assert len(models) > 900
    runs = run_tools([[tool("anvil-opt"), os.path.join(d, "model.onnx"),
                       f"--passes={anvil.DEFAULT_PIPELINE}", "-o", os.path.join(tmp, f"opt{i}.onnx")]
                      for i, d in enumerate(models)])
    same = errors = 0
    mismatches = []
    got = os.path.join(tmp, "py.onnx")
    for i, (d, done) in enumerate(zip(models, runs)):
        path = os.path.join(d, "model.onnx")
        expected = os.path.join(tmp, f"opt{i}.onnx")
        error = tool_error(done, "anvil-opt")
        if os.path.exists(got):
            os.remove(got)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # tolerated spec breaches
                anvil.simplify(path, check=False, output_path=got)
            py_error = None
        except anvil.Error as e:
            py_error = str(e)
        if error is not None or py_error is not None:
            errors += 1
            if error != py_error:
                mismatches.append(f"{d}: anvil-opt error {error!r}, simplify {py_error!r}")
            continue
        if open(expected, "rb").read() != open(got, "rb").read():
            mismatches.append(f"{d}: the written models differ")
            continue
        # The returned ModelProto is the same model.
        if i % 10 == 0:
            returned = anvil.simplify(onnx.load(path), check=False)
            if returned != onnx.load(expected):
                mismatches.append(f"{d}: the returned ModelProto differs from anvil-opt's file")
                continue
        same += 1
    print(f"{same} models identical to anvil-opt's, {errors} failing alike, "
          f"{len(mismatches)} mismatches")
    assert not mismatches, "\n".join(mismatches[:20])


def test_default_pipeline_folds_and_merges():
    model = foldable_model()
    out = anvil.simplify(model)
    ops = [n.op_type for n in out.graph.node]
    assert ops.count("MatMul") == 1, ops  # CSE merged the branches
    assert "Mul" not in ops  # W * 2 folded
    assert isinstance(out, onnx.ModelProto)


def test_input_model_is_not_modified():
    model = foldable_model()
    before = model.SerializeToString()
    anvil.simplify(model)
    assert model.SerializeToString() == before


def test_bytes_and_path_inputs(tmp):
    model = foldable_model()
    path = os.path.join(tmp, "m.onnx")
    onnx.save(model, path)
    a = anvil.simplify(model.SerializeToString())
    b = anvil.simplify(path)
    assert a == b


def test_input_shapes_fix_dims():
    out = anvil.simplify(add_model(), input_shapes={"x": [3, 4]})
    dims = [d.dim_value for d in out.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [3, 4]
    out_dims = [d.dim_value for d in out.graph.output[0].type.tensor_type.shape.dim]
    assert out_dims == [3, 4]


def test_input_shapes_unknown_input():
    with pytest.raises(anvil.Error, match="no input 'nope'"):
        anvil.simplify(add_model(), input_shapes={"nope": [1]})


def test_skip_leaves_a_pass_out():
    out = anvil.simplify(foldable_model(), skip=("cse",))
    assert [n.op_type for n in out.graph.node].count("MatMul") == 2
    with pytest.raises(anvil.Error, match="not in the pipeline"):
        anvil.simplify(foldable_model(), skip=("no-such-pass",))


def test_explicit_passes_and_unknown_pass():
    out = anvil.simplify(foldable_model(), passes="dce")
    assert [n.op_type for n in out.graph.node].count("MatMul") == 2
    with pytest.raises(anvil.Error, match="unknown pass 'frobnicate'"):
        anvil.simplify(foldable_model(), passes="frobnicate")
    # Options go through Anvil's pipeline parser: nested and quoted values, bad keys refused.
    out = anvil.simplify(foldable_model(), passes='constprop{max-expansion=4},cse,dce')
    assert [n.op_type for n in out.graph.node].count("MatMul") == 1
    with pytest.raises(anvil.Error, match="bogus"):
        anvil.simplify(foldable_model(), passes="cse{bogus=1}")
    with pytest.raises(anvil.Error, match="invalid pass pipeline"):
        anvil.simplify(foldable_model(), passes="cse{")


def break_numerics(model):
    """A test pass that changes results: +1 on every element of the first float initializer."""
    for init in model.graph.initializer:
        if init.data_type == TensorProto.FLOAT:
            array = numpy_helper.to_array(init) + np.float32(1)
            init.CopyFrom(numpy_helper.from_array(array, init.name))
            return model
    return model


def test_check_catches_a_pass_that_breaks_numerics():
    anvil.register_pass("break-numerics", break_numerics)
    with pytest.raises(anvil.Error, match="check failed: output 'y' differs"):
        anvil.simplify(foldable_model(), passes="constprop,break-numerics,dce")
    # Without the check the broken model comes back; with a harmless Python pass it passes.
    anvil.simplify(foldable_model(), passes="constprop,break-numerics,dce", check=False)
    anvil.register_pass("identity", lambda m: m)
    anvil.simplify(foldable_model(), passes="constprop,identity,cse,dce", check_n=3)


def test_output_path_with_external_data(tmp):
    model = foldable_model(weight_elems=512 * 512)  # a 1 MiB weight
    out = os.path.join(tmp, "big.onnx")
    assert anvil.simplify(model, output_path=out, external_data_threshold=1024) == out
    assert os.path.exists(out + ".data")
    assert os.path.getsize(out) < 64 * 1024
    # A path input reads its external data; the result checks against the original.
    again = anvil.simplify(out, passes="dce")
    assert len(again.graph.initializer) == 2  # the folded W*2 and b+b


def test_text_output(tmp):
    out = os.path.join(tmp, "m.onnxtxt")
    anvil.simplify(add_model(), output_path=out)
    assert "Add" in open(out).read()


def test_save_round_trips(tmp):
    path = anvil.save(add_model(), os.path.join(tmp, "saved.onnx"))
    assert onnx.load(path).graph.node[0].op_type == "Add"
